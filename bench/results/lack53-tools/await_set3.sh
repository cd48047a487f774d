#!/bin/sh
# The long cells 100-400 steps x 2x2..8x4 (today form, 1 GB/s, 2 namings), then the brief's grid.
T=bench/results/lack53-tools; P=$T/probe_await.py; tag=$1; shift
for s in 100 200 400; do
  nice -n 19 python bench/results/tail52-tools/cells_n.py --name anomaly --store 0 --steps $s \
    --shapes 2x2,2x4,4x2,4x4,8x4 --namings 2 --kw "dict(bandwidth=1e9)" --patch $P \
    --old AWAIT_MODE=0 "$@" 2>&1 | grep -v "^  "
done > $T/long-$tag.txt 2>&1
nice -n 19 python $T/cells_p.py --patch $P --steps 6,12,24,48 --shapes 2x2,2x4,4x2,4x4,8x2 \
  --old AWAIT_MODE=0 "$@" > $T/grid-$tag.txt 2>&1
