# Session 47's timed CPU: session 46's code (/work/base47/src = 6dfa98f) against session 47's
# (/work/main/src = d54abf9), 2 rounds x 3 lockstep pairs, one bench copy (/tmp/lead47/cpu/bench),
# quiet machine (helpers done, CI done).
cd /tmp/lead47/cpu
O=/work/main/bench/results/lead47-cpu
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base47/src; else src=/work/main/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
