#!/bin/bash
# tidegate with HEAVY_PARTNER=0 / 1 alternating (order turning per round), probe on, one at a time
# usage: abloop.sh FIRST LAST
T=/tmp/lc40/tools
for r in $(seq $1 $2); do
  if [ $((r % 2)) = 1 ]; then order="0 1"; else order="1 0"; fi
  for v in $order; do
    echo "r$r hp$v $(uptime)"
    PYTHONPATH=/work/wt/lc40/src timeout 300 python $T/lc_probe.py --workers 4 --mode tidegate \
      --set HEAVY_PARTNER=$v --folder /tmp/lc40/lc/inputs --out /tmp/lc40/lc/hp$v-r$r.json 2>&1 | tail -1
  done
done
