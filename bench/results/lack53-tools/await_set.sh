#!/bin/sh
# The anomaly set for a combine-view probe: the brief's grid (twin_cells, store form, 2 seeds)
# + 48 steps 12 x 4, then tail52's 100-800 steps x 4x4/8x4 cells (today form, 1 GB/s, 2
# namings). sh await_set.sh TAG NEW-ARGS...  (PYTHONPATH=src, from the worktree's root)
T=bench/results/lack53-tools; P=$T/probe_await.py; tag=$1; shift
nice -n 19 python $T/cells_p.py --patch $P --steps 6,12,24,48 --shapes 2x2,2x4,4x2,4x4,8x2 \
  --old AWAIT_MODE=0 "$@" > $T/grid-$tag.txt 2>&1
nice -n 19 python $T/cells_p.py --patch $P --steps 48 --shapes 12x4 --old AWAIT_MODE=0 "$@" \
  >> $T/grid-$tag.txt 2>&1
for s in 100 200 400 800; do
  nice -n 19 python bench/results/tail52-tools/cells_n.py --name anomaly --store 0 --steps $s \
    --shapes 4x4,8x4 --namings 2 --kw "dict(bandwidth=1e9)" --patch $P --old AWAIT_MODE=0 "$@" \
    2>&1 | grep -v "^  "
done > $T/await-grid-$tag.txt 2>&1
