# Session 43's timed CPU: session 42's code (/work/base43/src) against the merge (/work/new43/src,
# git archive of trial43), 4 rounds x 3 lockstep pairs, from one bench copy (/tmp/lead43/bench).
cd /tmp/lead43
O=/work/wt/trial43/bench/results/lead43-cpu
for r in 1 2 3 4; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base43/src; else src=/work/new43/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
