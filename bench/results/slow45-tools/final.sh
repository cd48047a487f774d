#!/bin/bash
# base (main's src) and new (the branch) over slow44's 72 cells, one run
cd /tmp/slow45
for side in BASE NEW; do
  if [ $side = BASE ]; then export SRC=/work/base45/src; else export SRC=/work/wt/slow45/src; fi
  ./grid.sh F$side "" > final_${side}_1.txt 2>&1
  ./grid2.sh F$side "" > final_${side}_2.txt 2>&1
  ./grid3.sh F$side "" > final_${side}_3.txt 2>&1
done
