# Session 44's timed CPU: session 43's code (/work/base44/src) against the merge (/work/new44/src,
# git archive of trial44), 4 rounds x 3 lockstep pairs, from one bench copy (/tmp/lead44/bench).
cd /tmp/lead44
O=/work/wt/trial44/bench/results/lead44-cpu
for r in 1 2 3 4; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base44/src; else src=/work/new44/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE
