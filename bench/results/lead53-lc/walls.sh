# Session 53: 8 more runs of the cells whose wall medians were over 1.05x in lc.sh's table
# (session 52's code = /work/base53/src), helpers running twins at nice 19.
cd /tmp/lead53/lc
export PYTHONPATH=/work/base53/src
O=/work/main/bench/results/lead53-lc
python bench/distributed.py --reps 8 --workers 2 --threads 1 --bandwidth 200e6 --modes queue,tidegate --only vorticity-files --only seed-anomaly --out $O/walls-2x1.json > $O/walls-2x1.log 2>&1
python bench/distributed.py --reps 8 --workers 2 --threads 1 --modes queue,tidegate --only stencil --only seed-anomaly --out $O/walls-free-2x1.json > $O/walls-free-2x1.log 2>&1
python bench/distributed.py --reps 8 --workers 4 --threads 1 --modes queue,tidegate --only seed-weighted --out $O/walls-free-4x1.json > $O/walls-free-4x1.log 2>&1
date > $O/WALLS_DONE
