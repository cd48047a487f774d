#!/bin/bash
# usage: grid.sh TAG SW
T=/tmp/slow46/tsw42.py
export PYTHONPATH=${SRC:-/work/wt/slow46/src}
C2=worker:1.5,worker:1.75,worker:2,worker:2.2,worker:2.5,worker:3,worker:4,worker:5,group:2,group:2.5,group:3,group:4,group:5,all:2,all:2.5,all:3,all:4
C4=worker:2,worker:2.5,worker:3,worker:4,group:2,group:2.5,group:3,group:4,all:2,all:2.5,all:3,all:4
SW="$2" CACHE=/tmp/slow46/qcache.json nice -n 19 python $T --tag $1 --cells $C2 --out /tmp/slow46/runs.jsonl
SW="$2" CACHE=/tmp/slow46/qcache4.json nice -n 19 python $T --tag $1 --workers 4 --cells $C4 --out /tmp/slow46/runs.jsonl
