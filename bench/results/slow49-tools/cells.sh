#!/bin/bash
# usage: cells.sh TAG "SW" W CELLS   (tidegate against cached queue)
export PYTHONPATH=${SRC:-/work/wt/slow49/src}
SW="$2" CACHE=/tmp/slow49/qcache$( [ "$3" = 2 ] && echo "" || echo $3 ).json nice -n 19 python /tmp/slow49/tsw42.py --tag $1 --workers $3 --cells $4 --out /tmp/slow49/runsx.jsonl
