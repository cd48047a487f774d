#!/bin/bash
# rounds of queue / tidegate (order turning per round), seed anomaly 4 x 1, one at a time
T=/work/wt/lc39/bench/results/one33-tools
for r in $(seq ${2:-1} $1); do
  if [ $((r % 2)) = 1 ]; then order="tidegate queue"; else order="queue tidegate"; fi
  for m in $order; do
    PYTHONPATH=/work/wt/lc39/src timeout 300 python $T/lc_anom.py --workers 4 --mode $m \
      --folder /tmp/lc39/lc/inputs --out /tmp/lc39/lc/$m-r$r.json 2>/dev/null | tail -1
  done
done
