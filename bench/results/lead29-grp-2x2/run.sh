#!/bin/bash
# quiet LocalCluster 2x2 clim-anom-store: base29 (session start) vs trial29 interleaved
cd /work/wt/trial29
i=0
for who in base new new base base new; do
  i=$((i+1))
  if [ $who = base ]; then src=/work/base29/src; else src=/work/wt/trial29/src; fi
  echo "$who $i load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=$src python bench/probe24_cluster.py --only clim-anom-store --modes queue,tidegate --reps 1 --workers 2 --threads 2 --out /tmp/lead29/lc/lc-$who-$i.json > /tmp/lead29/lc/lc-$who-$i.log 2>&1
done
echo done
