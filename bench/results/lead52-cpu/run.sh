# Session 52's timed CPU, quiet (helpers done, CI done): session 51's code (/work/base52/src =
# 2681b18) against session 52's (/work/base52m/src = main 1944a62+), 2 rounds x 3 lockstep
# pairs, one bench copy (/tmp/lead52/cpu/bench).
cd /tmp/lead52/cpu
O=/work/main/bench/results/lead52-cpu
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base52/src; else src=/work/base52m/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
