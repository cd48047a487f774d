#!/bin/bash
# tidegate runs with the probe (lc_probe.py), one at a time
# usage: probeloop.sh FIRST LAST TAG [--set X=V ...]
T=/tmp/lc40/tools
F=$1; L=$2; TAG=$3; shift 3
for r in $(seq $F $L); do
  echo "r$r $TAG $(uptime)"
  PYTHONPATH=${SRC:-/work/wt/lc40/src} timeout 300 python $T/lc_probe.py --workers 4 --mode tidegate "$@" \
    --folder /tmp/lc40/lc/inputs --out /tmp/lc40/lc/$TAG-r$r.json 2>/dev/null | tail -1
done
