# Session 51's timed CPU, quiet (helpers done, CI done): session 50's code (/work/base51/src =
# 9b8221d) against session 51's (/work/base51m/src = main 25a193f), 2 rounds x 3 lockstep pairs,
# one bench copy (/tmp/lead51/cpu/bench).
cd /tmp/lead51/cpu
O=/work/main/bench/results/lead51-cpu
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base51/src; else src=/work/base51m/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
