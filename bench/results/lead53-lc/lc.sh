# Session 53: the LocalCluster table re-taken whole on session 52's code (602331c = /work/base53/src),
# queue vs tidegate, 3 reps, from a bench copy (/tmp/lead53/lc/bench); helpers run twins at nice 19.
cd /tmp/lead53/lc
export PYTHONPATH=/work/base53/src
O=/work/main/bench/results/lead53-lc
ALL="--only loaders --only open-read-select --only stack-sum --only offset-slices --only stencil --only rechunk --only vorticity-files --only seed-slice-add --only seed-rechunk-add --only seed-weighted --only seed-anomaly"
date > $O/START
python bench/distributed.py --reps 3 --workers 2 --threads 1 --bandwidth 200e6 --modes queue,tidegate $ALL --out $O/dist-2x1.json > $O/dist-2x1.log 2>&1
python bench/distributed.py --reps 3 --workers 4 --threads 1 --bandwidth 200e6 --modes queue,tidegate $ALL --out $O/dist-4x1.json > $O/dist-4x1.log 2>&1
python bench/distributed.py --reps 3 --workers 2 --threads 1 --modes queue,tidegate $ALL --out $O/free-2x1.json > $O/free-2x1.log 2>&1
python bench/distributed.py --reps 3 --workers 4 --threads 1 --modes queue,tidegate $ALL --out $O/free-4x1.json > $O/free-4x1.log 2>&1
date > $O/DONE
