# Session 51: 8 more runs of the cells whose wall medians were over 1.05x in lc.sh's table
# (session 50's code = /work/base51/src), helpers running twins at nice 19.
cd /tmp/lead51/lc
export PYTHONPATH=/work/base51/src
O=/work/main/bench/results/lead51-lc
python bench/distributed.py --reps 8 --workers 2 --threads 1 --bandwidth 200e6 --modes queue,tidegate --only stencil --only seed-weighted --out $O/walls-2x1.json > $O/walls-2x1.log 2>&1
python bench/distributed.py --reps 8 --workers 4 --threads 1 --bandwidth 200e6 --modes queue,tidegate --only stencil --out $O/walls-4x1.json > $O/walls-4x1.log 2>&1
python bench/distributed.py --reps 8 --workers 2 --threads 1 --modes queue,tidegate --only stencil --only seed-weighted --only seed-anomaly --out $O/walls-free-2x1.json > $O/walls-free-2x1.log 2>&1
date > $O/WALLS_DONE
