#!/bin/bash
# anom28: seed-anomaly 2x1, 200 MB/s, tidegate only: main's src (/work/base28/src) against
# this branch's, one invocation each per round, order alternating. usage: run_ab.sh FIRST LAST
cd "$(dirname "$0")/../../.." || exit 1
D=bench/results/anom28-lc
for r in $(seq "$1" "$2"); do
  if (( r % 2 )); then O="base branch"; else O="branch base"; fi
  for v in $O; do
    if [ $v = base ]; then P=/work/base28/src; else P=$PWD/src; fi
    echo "round $r $v load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
    PYTHONPATH=$P python bench/distributed.py --reps 1 --workers 2 --threads 1 --bandwidth 200e6 \
      --only seed-anomaly --modes tidegate --out $D/ab-$v-2x1-r$r.json 2>&1 | grep '^rep'
  done
done
