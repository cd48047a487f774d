# Session 45's timed CPU: session 44's code (/work/base45/src = 92c3757) against session 45's
# (/work/new45/src = 4b41e52), 2 rounds x 3 lockstep pairs (the session's last 30 minutes),
# from one bench copy (/tmp/lead45c/bench), quiet machine.
cd /tmp/lead45c
O=/work/main/bench/results/lead45-cpu
for r in 1 2; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base45/src; else src=/work/new45/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
