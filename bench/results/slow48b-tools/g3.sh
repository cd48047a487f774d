#!/bin/bash
# usage: g3.sh TAG SW  (3 x 1 cells only)
T=/tmp/slow48b/tsw42.py
export PYTHONPATH=${SRC:-/work/wt/slow48b/src}
C=worker:1.5,worker:2,worker:3,worker:4,group:2,group:3,group:4,all:2,all:3,all:4
SW="$2" CACHE=/tmp/slow48b/qcache3.json nice -n 19 python $T --tag $1 --workers 3 --cells $C --out /tmp/slow48b/runs3.jsonl
