#!/bin/bash
# rounds of queue / tidegate (order turning per round), seed anomaly 4 x 1, one at a time
# usage: lcloop.sh LAST [FIRST] [SRC] [TAG]
T=/tmp/lc40/tools
SRC=${3:-/work/wt/lc40/src}
TAG=${4:-}
for r in $(seq ${2:-1} $1); do
  if [ $((r % 2)) = 1 ]; then order="tidegate queue"; else order="queue tidegate"; fi
  for m in $order; do
    echo "r$r $m $(uptime)" 
    PYTHONPATH=$SRC timeout 300 python $T/${SCRIPT:-lc_anom.py} --workers 4 --mode $m \
      --folder /tmp/lc40/lc/inputs --out /tmp/lc40/lc/$TAG$m-r$r.json 2>/dev/null | tail -1
  done
done
