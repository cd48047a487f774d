#!/usr/bin/env bash
# The second, targeted scan behind orc47-findings.txt (scan.sh's first part: T 14-15 at 100 x 4).
set -u
OUT=$1
cd "$(dirname "$0")"
one() {
    W=$1; shift
    nice -n 19 python oracle.py --workers "$W" --plan ctl $(for a in "$@"; do echo --set "$a"; done) \
        --queue "$OUT/base-${W}x4.json" --out "$OUT/scan-${W}x4.jsonl" 2>&1 | grep -E "^peak|STALL" \
        | sed "s/^/$W $* : /"
}
for T in 12 13; do for H in 6 8 9; do one 100 T=$T hosts=$H host_loads=0 combine_first=1; done; done
for T in 55 57; do for H in 0 2 3; do for h in 38 44; do
    [ "$H" = 0 ] && [ "$h" != 38 ] && continue
    one 20 T=$T hosts=$H host_loads=$h combine_first=1
done; done; done
