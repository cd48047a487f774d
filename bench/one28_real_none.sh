# memory_limit="none" (and dask's threaded scheduler) on probe24's three real xarray pipelines
# (bench/core25b_real.py, 2 threads, inputs in /tmp/probe24-inputs): one line per run, rounds
# interleaved (README, one28). Runs this checkout's src (NEW) and, when BASE names another
# src, that code too:   BASE=/path/to/other/src [ROUNDS=2] bash bench/one28_real_none.sh
cd "$(dirname "$0")/.." || exit 1
NEW=${NEW:-$PWD/src}
modes="threaded new"
[ -n "$BASE" ] && modes="threaded base new"
export PYTHONHASHSEED=0
for round in $(seq 0 $((${ROUNDS:-2} - 1))); do
for name in resample-store rolling-max clim-anom-store; do
  for mode in $modes; do
    case $mode in
      base) src=$BASE; lim=none ;;
      new) src=$NEW; lim=none ;;
      *) src=$NEW; lim=threaded ;;
    esac
    out=$(PYTHONPATH=$src python bench/core25b_real.py $name 2 $lim $round 2>/dev/null | tail -1)
    echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $name $mode r$round $out"
  done
done
done
