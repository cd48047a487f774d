# Session 50's timed CPU, quiet (helpers done, CI done): session 49's code (/work/base50/src =
# f5c2cc2) against session 50's (/work/base50c/src = main 26d6bde), 2 rounds x 3 lockstep pairs,
# one bench copy (/tmp/lead50/cpu/bench).
cd /tmp/lead50/cpu
O=/work/main/bench/results/lead50-cpu
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base50/src; else src=/work/base50c/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
