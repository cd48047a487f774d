# Session 49's timed CPU: session 47's code (/work/base48/src = a23bc4f) against session 48's
# (/work/base49/src = e6791c5), 2 rounds x 3 lockstep pairs, one bench copy (/tmp/lead49/cpu/bench),
# quiet machine (at the session's start, nothing else running).
cd /tmp/lead49/cpu
O=/work/main/bench/results/lead49-cpu
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base48/src; else src=/work/base49/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
