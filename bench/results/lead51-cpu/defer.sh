# Session 51: DEFER_FULL on (main 25a193f = /work/base51m/src) against off (the same with
# trim.DEFER_FULL = False, /work/base51m-off/src), 2 rounds x 3 lockstep pairs, quiet.
cd /tmp/lead51/cpu
O=/work/main/bench/results/lead51-cpu
for r in 1 2; do
  for which in on off; do
    if [ $which = on ]; then src=/work/base51m/src; else src=/work/base51m-off/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/defer-$which-r$r.json > $O/defer-$which-r$r.log 2>&1
  done
done
date > $O/DEFER_DONE
