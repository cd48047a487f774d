#!/bin/bash
# the pytest line of .ci/distributed-lowest, this branch's src, the lowest distributed's venv
cd /work/wt/slow48b
VENV=/tmp/venv-distributed-2025.4.0
cmd=$(awk 'NR>=20 && /pytest/,/[^\\]$/' .ci/distributed-lowest | sed 's/^PYTHONPATH=src //; s#"\$VENV/bin/python"#'$VENV'/bin/python#' | tr -d '\\\n')
echo "$cmd"
eval PYTHONPATH=/work/wt/slow48b/src nice -n 19 $cmd --basetemp /tmp/slow48b/ptl
