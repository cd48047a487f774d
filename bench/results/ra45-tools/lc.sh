#!/bin/bash
cd /work/wt/ra45
for src in /work/wt/ra45/src /work/base45/src; do
  tag=$(basename $(dirname $src))
  PYTHONPATH=$src nice -n 19 python bench/distributed.py --reps 3 --workers 4 --threads 1 --modes queue,tidegate --only rechunk --out /tmp/ra45/lc/rechunk-$tag.json > /tmp/ra45/lc/rechunk-$tag.txt 2>&1
  PYTHONPATH=$src nice -n 19 python bench/distributed.py --reps 3 --workers 4 --threads 1 --modes queue,tidegate --only seed-rechunk-add --out /tmp/ra45/lc/sra-$tag.json > /tmp/ra45/lc/sra-$tag.txt 2>&1
  PYTHONPATH=$src nice -n 19 python bench/distributed.py --reps 3 --workers 4 --threads 4 --steps 16 --modes queue,tidegate --only seed-rechunk-add --out /tmp/ra45/lc/sra16x4-$tag.json > /tmp/ra45/lc/sra16x4-$tag.txt 2>&1
done
echo done > /tmp/ra45/lc/DONE
