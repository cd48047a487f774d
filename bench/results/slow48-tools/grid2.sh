#!/bin/bash
T=/tmp/slow48/tsw42.py
export PYTHONPATH=${SRC:-/work/wt/slow48/src}
C2=worker:1,worker:1.25,group:1,group:1.25,group:1.5,group:1.75,group:2.2,all:1.25,all:1.5,all:1.75,all:2.2,all:2.3,all:2.4,all:2.75,all:3.5,all:5
C4=worker:1,worker:1.5,worker:5,group:1.5,group:5,all:1.5,all:5
SW="$2" CACHE=/tmp/slow48/qcache.json nice -n 19 python $T --tag $1 --cells $C2 --out /tmp/slow48/runs2.jsonl
SW="$2" CACHE=/tmp/slow48/qcache4.json nice -n 19 python $T --tag $1 --workers 4 --cells $C4 --out /tmp/slow48/runs2.jsonl
