# Session 40's timed CPU: session 39's code (/work/base40/src) against the merge, 4 rounds.
cd /work/wt/trial40
for r in 1 2 3 4; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base40/src; else src=/work/wt/trial40/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out bench/results/lead40-cpu/$which-r$r.json > bench/results/lead40-cpu/$which-r$r.log 2>&1
  done
done
echo done > bench/results/lead40-cpu/DONE
