#!/bin/sh
# share53: KEPT_SHARE_LOADS 0 (main) against 9 (the final code) on every cell measured.
# Run from the worktree with PYTHONPATH set; $1: part (a or b); output on stdout.
C="nice -n 19 python bench/twin_cells.py --old KEPT_SHARE_LOADS=0 --new KEPT_SHARE_LOADS=9"
if [ "$1" = a ]; then
  $C --steps 24,32,48,64,96 --shapes 9x4,10x4,12x4,16x4,20x4,32x4 --seeds 3
  $C --steps 72,84,100,108 --shapes 12x4 --seeds 2
  $C --steps 80,112,128,144 --shapes 16x4 --seeds 2
else
  $C --steps 160,180,200,300,1000 --shapes 20x4 --seeds 2
  $C --steps 120,144,168,200,216,300 --shapes 24x4 --seeds 2
  $C --steps 128,160,192,224,256,288,300 --shapes 32x4 --seeds 2
  $C --steps 192,240,288,336,400,432 --shapes 48x4 --seeds 1
  $C --steps 256,320,384,448,500,576 --shapes 64x4 --seeds 1
fi
