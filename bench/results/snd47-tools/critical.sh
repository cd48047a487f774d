#!/bin/sh
# snd47: the seed anomaly's critical path from bench/trace_twin.py's text, per policy:
# when the last partial and the aggregate end, when the aggregate's last copy lands, the
# makespan.  sh critical.sh SHAPE LAG SEED [OUTGOING] [extra trace_twin args]
shape=$1 lag=$2 seed=$3 out=${4:-inf}; shift 4 2>/dev/null || shift $#
for p in tidegate queue; do
  python bench/trace_twin.py $shape $lag $seed --only seed-anomaly --outgoing $out \
      --policy $p "$@" 2>&1 | awk -v p=$p '
    /makespan/ {for (i = 1; i <= NF; i++) if ($i == "makespan") ms = $(i + 1)}
    /^   t[0-9]+ .*mean_combine-parti/ {split($2, a, "-"); if (a[2] > part) part = a[2]}
    /^   t[0-9]+ .*mean_agg-aggregate/ {split($2, a, "-"); agg = a[2]}
    /^  xfer .*mean_agg-aggregate/ {split($2, a, "-"); n++; if (a[2] > last) last = a[2]}
    END {printf "%-8s last partial %s aggregate %s copies %d last landed %s makespan %s\n",
         p, part, agg, n, last, ms}'
done
