# Session 49's timed CPU, quiet (helpers done, CI done): session 48's code (/work/base49/src =
# e6791c5) against session 49's (/work/base49c/src = main e259ec9), 2 rounds x 3 lockstep pairs,
# one bench copy (/tmp/lead49/cpu/bench).
cd /tmp/lead49/cpu
O=/work/main/bench/results/lead49-cpu2
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base49/src; else src=/work/base49c/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
