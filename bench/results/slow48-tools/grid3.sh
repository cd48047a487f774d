#!/bin/bash
T=/tmp/slow48/tsw42.py
export PYTHONPATH=${SRC:-/work/wt/slow48/src}
C=worker:1.5,worker:2,worker:3,worker:4,group:2,group:3,group:4,all:2,all:3,all:4
for w in 3 6; do
SW="$2" CACHE=/tmp/slow48/qcache$w.json nice -n 19 python $T --tag $1 --workers $w --cells $C --out /tmp/slow48/runs3.jsonl
done
