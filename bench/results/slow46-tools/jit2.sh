#!/bin/bash
cd /tmp/slow46
A="--jitter 0.3,0.4 --seeds 6 --workers 2,4 --steps 12,24 --threads 2"
PYTHONPATH=/work/base46/src nice -n 19 python jit.py $A --tag base-t2 --out jit2.jsonl > jit2_base.txt 2>&1
SW=WAKE_SAMPLES=3 PYTHONPATH=/tmp/slow46/src-fin nice -n 19 python jit.py $A --tag new3-t2 --out jit2.jsonl > jit2_new3.txt 2>&1
A="--jitter 0.3 --seeds 6 --workers 2,3,4 --steps 12,24 --threads 1"
PYTHONPATH=/work/base46/src nice -n 19 python jit.py $A --tag base-j3 --out jit2.jsonl > jit3_base.txt 2>&1
SW=WAKE_SAMPLES=3 PYTHONPATH=/tmp/slow46/src-fin nice -n 19 python jit.py $A --tag new3-j3 --out jit2.jsonl > jit3_new3.txt 2>&1
