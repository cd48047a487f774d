# Session 49: the cells whose 3-run medians were over 1.05x queue's wall (or managed) re-run, 8 reps,
# session 48's code (/work/base49/src), helpers at nice 19.
cd /tmp/lead49/lc
export PYTHONPATH=/work/base49/src
O=/work/main/bench/results/lead49-lc
python bench/distributed.py --reps 8 --workers 4 --threads 1 --bandwidth 200e6 --modes queue,tidegate --only stencil --only seed-weighted --out $O/walls-4x1.json > $O/walls-4x1.log 2>&1
python bench/distributed.py --reps 8 --workers 4 --threads 1 --modes queue,tidegate --only stencil --only seed-slice-add --out $O/walls-free-4x1.json > $O/walls-free-4x1.log 2>&1
date > $O/WALLS_DONE
# then: the one cell over queue's bytes (median of 3), 8 reps
python bench/distributed.py --reps 8 --workers 2 --threads 1 --modes queue,tidegate --only seed-anomaly --out $O/bytes-free-2x1.json > $O/bytes-free-2x1.log 2>&1
