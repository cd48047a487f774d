#!/bin/bash
# usage: grid.sh TAG SW
T=/tmp/slow48/tsw42.py
export PYTHONPATH=${SRC:-/work/wt/slow48/src}
C2=worker:1.5,worker:1.75,worker:2,worker:2.2,worker:2.5,worker:3,worker:4,worker:5,group:2,group:2.5,group:3,group:4,group:5,all:2,all:2.5,all:3,all:4
C4=worker:2,worker:2.5,worker:3,worker:4,group:2,group:2.5,group:3,group:4,all:2,all:2.5,all:3,all:4
SW="$2" CACHE=/tmp/slow48/qcache.json nice -n 19 python $T --tag $1 --cells $C2 --out /tmp/slow48/runs.jsonl
SW="$2" CACHE=/tmp/slow48/qcache4.json nice -n 19 python $T --tag $1 --workers 4 --cells $C4 --out /tmp/slow48/runs.jsonl
