#!/bin/bash
# (ci41) mutants of the guards: src copies in /tmp/ci41/mut/{A,B,C,D}/src, test copies in
# /tmp/ci41/mut/{T1,T2}/tests (see ci41-findings.txt section 1 for each edit)
cd /work/wt/ci41
echo "== C (further_by_plan, meeting_plan)"; PYTHONPATH=/tmp/ci41/mut/C/src nice -n 19 python -m pytest -q -p no:cacheprovider --basetemp /tmp/ci41/ptC tests/test_plugin_safety.py -k "persistent and (further or meeting_plan)" 2>&1 | grep -E "^FAILED|passed|failed|^E  .*assert" | cut -c1-220
echo "== D (thief)"; PYTHONPATH=/tmp/ci41/mut/D/src nice -n 19 python -m pytest -q -p no:cacheprovider --basetemp /tmp/ci41/ptD tests/test_plugin_safety.py -k "persistent and thief" 2>&1 | grep -E "^FAILED|passed|failed|^E  .*assert" | cut -c1-220
for m in T1 T2; do
  echo "== $m"; cd /tmp/ci41/mut/$m && PYTHONPATH=/work/wt/ci41/src nice -n 19 python -m pytest -q -p no:cacheprovider --basetemp /tmp/ci41/pt$m tests/test_plugin_safety.py -k persistent 2>&1 | grep -E "^FAILED|passed|failed" | cut -c1-220
done
