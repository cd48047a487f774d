# Rounds 5-8, three arms in lockstep: session 42's code, the merge, and cpu43's branch head
# (main + its small cuts + DEFER_FULL, /work/cpu43src/src: git archive of cpu43).
cd /tmp/lead43
O=/work/wt/trial43/bench/results/lead43-cpu
for r in 5 6 7 8; do
  for which in base merged defer; do
    case $which in base) src=/work/base43/src;; merged) src=/work/new43/src;; defer) src=/work/cpu43src/src;; esac
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out $O/$which-r$r.json > $O/$which-r$r.log 2>&1
  done
done
date > $O/DONE2
