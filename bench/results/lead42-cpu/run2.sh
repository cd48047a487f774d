# Session 42's timed CPU: session 41's code (/work/base42/src) against the merge (/work/new42/src,
# git archive of trial42 after review42's mends), 4 rounds, from one bench copy (/tmp/lead42/bench).
cd /tmp/lead42
O=/work/wt/trial42/bench/results/lead42-cpu
for r in 5 6 7 8; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base42/src; else src=/work/new42/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE2
