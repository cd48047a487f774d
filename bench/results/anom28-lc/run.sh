#!/bin/bash
# anom28: seed-anomaly on a LocalCluster, 200 MB/s, 1 thread per worker, interleaved rounds:
# each round runs 2x1 then 4x1, each one invocation of queue and tidegate (order alternating
# per round). PYTHONPATH picks the code (TAG names the files).
# usage: run.sh TAG FIRST LAST   (rounds FIRST..LAST)
cd "$(dirname "$0")/../../.." || exit 1
TAG=$1; FIRST=$2; LAST=$3
D=bench/results/anom28-lc
for r in $(seq "$FIRST" "$LAST"); do
  if (( r % 2 )); then M=queue,tidegate; else M=tidegate,queue; fi
  for W in 2 4; do
    echo "round $r ${W}x1 $M load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
    python bench/distributed.py --reps 1 --workers $W --threads 1 --bandwidth 200e6 \
      --only seed-anomaly --modes $M --out $D/$TAG-${W}x1-r$r.json 2>&1 | grep '^rep'
  done
done
