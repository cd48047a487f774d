#!/bin/bash
# usage: final.sh SIDE SRC [SW]   (grid over slow44's 72 cells, tag F$SIDE)
cd /tmp/slow48
export SRC=$2
./grid.sh F$1 "$3" > final_$1_1.txt 2>&1
./grid2.sh F$1 "$3" > final_$1_2.txt 2>&1
./grid3.sh F$1 "$3" > final_$1_3.txt 2>&1
