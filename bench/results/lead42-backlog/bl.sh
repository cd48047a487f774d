cd /tmp/lead42
O=/work/wt/trial42/bench/results/lead42-backlog; mkdir -p $O
date > $O/START
for r in 1 2 3 4 5 6; do
  for v in 8 0; do
    if [ $v = 8 ]; then src=/work/new42/src; else src=/work/nobl42/src; fi
    PYTHONPATH=$src python bench/distributed.py --reps 1 --workers 4 --threads 1 --bandwidth 200e6 --modes tidegate --only stencil --only seed-anomaly --out $O/bl$v-r$r.json > $O/bl$v-r$r.log 2>&1
  done
done
date > $O/DONE
