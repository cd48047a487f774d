#!/bin/sh
# Long anomaly cells on few workers for a combine-view probe (today form, 1 GB/s, 2 namings):
# 100-800 steps x 2x2, 2x4, 4x2, 4x4. sh await_set2.sh TAG NEW-ARGS...
T=bench/results/lack53-tools; P=$T/probe_await.py; tag=$1; shift
for s in 100 200 400 800; do
  nice -n 19 python bench/results/tail52-tools/cells_n.py --name anomaly --store 0 --steps $s \
    --shapes 2x2,2x4,4x2,4x4 --namings 2 --kw "dict(bandwidth=1e9)" --patch $P \
    --old AWAIT_MODE=0 "$@" 2>&1 | grep -v "^  "
done > $T/long-$tag.txt 2>&1
