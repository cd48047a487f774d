#!/usr/bin/env bash
# The controller's parameter scan behind orc47-findings.txt (one JSON line per run).
# usage: scan.sh OUT_DIR   (queue's rows from bench/twin_workloads.py in OUT_DIR/base-{20,100}x4.json)
set -u
OUT=$1
cd "$(dirname "$0")"
one() {  # workers, params...
    W=$1; shift
    nice -n 19 python oracle.py --workers "$W" --plan ctl $(for a in "$@"; do echo --set "$a"; done) \
        --queue "$OUT/base-${W}x4.json" --out "$OUT/scan-${W}x4.jsonl" 2>&1 | grep -E "^peak|STALL" \
        | sed "s/^/$W $* : /"
}
for T in 14 15 16; do for H in 6 8 10 12; do for hl in 3 99; do for wg in 0 1; do
    one 100 T=$T hosts=$H host_loads=0 hi_level=$hl whole_group=$wg combine_first=1
done; done; done; done
for T in 55 56 58; do for H in 0 1 2 3; do for h in 38 42; do for hl in 3 99; do for wg in 0 1; do
    [ "$H" = 0 ] && [ "$h" != 38 ] && continue
    one 20 T=$T hosts=$H host_loads=$h hi_level=$hl whole_group=$wg combine_first=1
done; done; done; done; done
