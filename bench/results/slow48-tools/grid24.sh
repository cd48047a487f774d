#!/bin/bash
# slow48: the anomaly of 24 loads (six reduction groups of four; --mode group slows loads 8-11)
# on 3, 4 and 6 one-thread workers: IDLE_TOP's reach beyond slow44's 12-load grid.
# usage: grid24.sh TAG SW
T=/tmp/slow48/tsw42.py
export PYTHONPATH=${SRC:-/work/wt/slow48/src} STEPS=24
C=worker:1.5,worker:2,worker:3,worker:4,group:2,group:3,group:4,all:2,all:3,all:4
for w in 2 3 4 6; do
SW="$2" CACHE=/tmp/slow48/qcache24_$w.json nice -n 19 python $T --tag $1 --workers $w --cells $C --out /tmp/slow48/runs24.jsonl
done
