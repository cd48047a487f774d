#!/bin/bash
# (ci41) mutants of the guards: src copies in /tmp/ci41/mut/{A,B,C,D}/src, test copies in
# /tmp/ci41/mut/{T1,T2}/tests (see ci41-findings.txt section 1 for each edit)
# mutants of the guards (A-D: src copies) and of the test (T1, T2: tests copies)
cd /work/wt/ci41
for m in A B C D; do
  echo "== $m"; PYTHONPATH=/tmp/ci41/mut/$m/src nice -n 19 python -m pytest -q -p no:cacheprovider --basetemp /tmp/ci41/pt$m tests/test_plugin_safety.py -k persistent 2>&1 | grep -E "^FAILED|passed|failed" | cut -c1-220
done
for m in T1 T2; do
  echo "== $m"; cd /tmp/ci41/mut/$m && PYTHONPATH=/work/wt/ci41/src nice -n 19 python -m pytest -q -p no:cacheprovider --basetemp /tmp/ci41/pt$m tests/test_plugin_safety.py -k persistent 2>&1 | grep -E "^FAILED|passed|failed" | cut -c1-220
done
