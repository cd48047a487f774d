# Session 46's timed CPU: session 45's code (/work/base46/src = d9fef0f) against session 46's
# merge (/work/wt/trial46/src), 2 rounds x 3 lockstep pairs, one bench copy (/tmp/lead46/bench),
# quiet machine (helpers done).
cd /tmp/lead46
O=/work/wt/trial46/bench/results/lead46-cpu
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base46/src; else src=/work/wt/trial46/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
