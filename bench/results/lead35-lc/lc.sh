cd /work/main
for shape in 2x2 2x4; do
  w=${shape%x*}; t=${shape#*x}
  for which in base35 main; do
    if [ $which = base35 ]; then src=/work/base35/src; else src=/work/main/src; fi
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src timeout 900 python bench/distributed.py --reps 2 --workers $w --threads $t --bandwidth 200e6 --modes queue,tidegate --only stencil --only rechunk --out /tmp/lead35/lc/s35-$shape-$which.json > /tmp/lead35/lc/s35-$shape-$which.log 2>&1
  done
done
echo done > /tmp/lead35/lc/DONE
