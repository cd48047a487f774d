#!/bin/bash
# rounds of tidegate with STEAL_SPLIT=0 (main's thieves) / 2 (the rule), order turning per
# round, seed anomaly 4 x 1, one at a time
T=/work/wt/lc39/bench/results/one33-tools
for r in $(seq ${2:-1} $1); do
  if [ $((r % 2)) = 1 ]; then order="0 2"; else order="2 0"; fi
  for v in $order; do
    PYTHONPATH=/work/wt/lc39/src timeout 300 python $T/lc_anom.py --workers 4 --mode tidegate \
      --set STEAL_SPLIT=$v --folder /tmp/lc39/lc/inputs --out /tmp/lc39/lc/split$v-r$r.json 2>/dev/null | tail -1
  done
done
