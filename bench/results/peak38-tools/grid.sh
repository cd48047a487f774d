#!/bin/bash
# usage: grid.sh PATCH(or none) OUT [SRC]  -- grp35's loaders grid (23 cells) through wall28_unique.py,
# 5 namings x 3 seeds, from SRC (default /work/wt/peak38/src) and a bench copy (BENCH, default /tmp/peak38/bench)
P=$1; OUT=$2; SRC=${3:-/work/wt/peak38/src}; : > $OUT
B=${BENCH:-/tmp/peak38/bench}
for c in 8x4:48 2x4:48 3x4:48 4x4:48 4x4:96 3x3:48 4x3:48 4x3:96 4x3:24 6x3:48 6x3:96 8x3:48 8x3:96 2x3:48 2x3:96 3x3:96 4x2:24 4x2:48 3x2:48 8x2:24 8x2:48 5x3:48 3x3:24 ; do
  sh=${c%:*}; st=${c#*:}
  if [ "$P" = none ]; then a=""; else a="--patch $P"; fi
  echo "$sh/$st $(PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$SRC python $B/wall28_unique.py --shape $sh --steps $st --namings 5 --seeds 3 $a | tail -1)" >> $OUT
done
