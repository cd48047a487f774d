#!/bin/bash
# rounds: base then new (order alternating per round), each one invocation with modes order alternating
cd /tmp/anom31/bench
for r in 1 2 3; do
  if [ $((r % 2)) -eq 1 ]; then order="base new"; modes=queue,tidegate; else order="new base"; modes=tidegate,queue; fi
  for tag in $order; do
    if [ $tag = base ]; then src=/work/base31/src; else src=/work/wt/anom31/src; fi
    echo "$(date -u +%T) round $r $tag load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/anom31/lc/log.txt
    PYTHONPATH=$src timeout 900 python distributed.py --only seed-anomaly --workers 2 --threads 2 --modes $modes --reps 1 --bandwidth 200e6 --out /tmp/anom31/lc/$tag-r$r.json > /tmp/anom31/lc/$tag-r$r.log 2>&1
    echo "$(date -u +%T) done $tag r$r rc $?" >> /tmp/anom31/lc/log.txt
  done
done
