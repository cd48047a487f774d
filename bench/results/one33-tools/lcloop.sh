#!/bin/bash
# rounds of seed-anomaly 4x1 on a LocalCluster: session 32's code (main = one33 for this graph),
# session 31's (/work/base32/src) and queue, order turning per round
cd /tmp/one33
for r in $(seq 1 $1); do
  case $((r % 3)) in
    1) order="main base31 queue";; 2) order="base31 queue main";; 0) order="queue main base31";;
  esac
  for tag in $order; do
    if [ $tag = base31 ]; then src=/work/base32/src; else src=/work/wt/one33/src; fi
    mode=tidegate; [ $tag = queue ] && mode=queue
    echo "$(date -u +%T) r$r $tag start load $(cut -d' ' -f1-3 /proc/loadavg)" >> lc/loop.log
    PYTHONPATH=$src timeout 300 python lc_anom.py --workers 4 --mode $mode --out lc/$tag-r$r.json > lc/$tag-r$r.log 2>&1
    echo "$(date -u +%T) r$r $tag rc $? load $(cut -d' ' -f1-3 /proc/loadavg) $(tail -1 lc/$tag-r$r.log)" >> lc/loop.log
  done
done
echo DONE >> lc/loop.log
