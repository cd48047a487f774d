#!/bin/bash
cd /tmp/slow46
A="--jitter 0.2,0.4 --seeds 6 --workers 2,3,4 --steps 12,24"
PYTHONPATH=/work/base46/src nice -n 19 python jit.py $A --tag base > jit_base.txt 2>&1
for m in 3 2 1; do
SW=WAKE_SAMPLES=$m PYTHONPATH=/work/wt/slow46/src nice -n 19 python jit.py $A --tag new$m > jit_new$m.txt 2>&1
done
