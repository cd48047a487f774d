# Session 41's timed CPU: session 40's code (/work/base41/src) against the merge (/work/new41/src,
# git archive of main after the merge), 4 rounds, from one bench copy (/tmp/lead41/bench).
cd /tmp/lead41
O=/work/main/bench/results/lead41-cpu
for r in 1 2 3 4; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base41/src; else src=/work/new41/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
echo done > $O/DONE
