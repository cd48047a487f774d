cd /work/wt/one28
export PYTHONHASHSEED=0
for round in 0 1; do
for name in resample-store rolling-max clim-anom-store; do
  for mode in threaded base new; do
    if [ $mode = base ]; then src=/work/base28/src; lim=none; elif [ $mode = new ]; then src=/work/wt/one28/src; lim=none; else src=/work/wt/one28/src; lim=threaded; fi
    echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $name $mode r$round $(PYTHONPATH=$src python bench/core25b_real.py $name 2 $lim $round 2>/dev/null | tail -1)"
  done
done
done
