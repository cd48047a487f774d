#!/bin/bash
cd /work/wt/ra45
src=/work/wt/ra45/src
PYTHONPATH=$src nice -n 19 python bench/distributed.py --reps 3 --workers 4 --threads 1 --modes queue,tidegate --only rechunk --out /tmp/ra45/lc/rechunk-final.json > /tmp/ra45/lc/rechunk-final.txt 2>&1
PYTHONPATH=$src nice -n 19 python bench/distributed.py --reps 3 --workers 4 --threads 1 --modes queue,tidegate --only seed-rechunk-add --out /tmp/ra45/lc/sra-final.json > /tmp/ra45/lc/sra-final.txt 2>&1
PYTHONPATH=$src nice -n 19 python bench/distributed.py --reps 3 --workers 4 --threads 4 --steps 16 --modes queue,tidegate --only seed-rechunk-add --out /tmp/ra45/lc/sra16x4-final.json > /tmp/ra45/lc/sra16x4-final.txt 2>&1
echo done > /tmp/ra45/lc/DONE2
