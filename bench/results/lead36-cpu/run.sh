cd /work/main
for r in 1 2 3 4 5 6; do
  for which in base merged; do
    if [ $which = base ]; then src=/work/base36/src; else src=/work/main/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src python bench/plugin_cpu.py --workers 100 --repeat 3 --only anomaly --only rechunk-add --only slice-add --only stack-sum --out /tmp/lead36/cpu/$which-r$r.json > /tmp/lead36/cpu/$which-r$r.log 2>&1
  done
done
echo done > /tmp/lead36/cpu/DONE
