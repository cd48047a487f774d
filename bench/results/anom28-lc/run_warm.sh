#!/bin/bash
# anom28: seed-anomaly at 4x1, 200 MB/s, 3 reps per invocation (mode order turns each rep);
# the invocation's first run (just after the zarr inputs were written) is read as warm-up.
# usage: run_warm.sh TAG FIRST LAST
cd "$(dirname "$0")/../../.." || exit 1
TAG=$1; FIRST=$2; LAST=$3
D=bench/results/anom28-lc
for r in $(seq "$FIRST" "$LAST"); do
  if (( r % 2 )); then M=queue,tidegate; else M=tidegate,queue; fi
  echo "invocation $r 4x1 $M load $(cut -d' ' -f1 /proc/loadavg) $(date -u +%H:%M:%S)"
  python bench/distributed.py --reps 3 --workers 4 --threads 1 --bandwidth 200e6 \
    --only seed-anomaly --modes $M --out $D/$TAG-warm-4x1-i$r.json 2>&1 | grep '^rep'
done
