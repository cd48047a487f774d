#!/bin/sh
# (cpu37c) time_place.py alternated between two src trees, N pairs:
# sh bench/results/cpu37c-tools/time_place.sh BASE_SRC NEW_SRC N [WORKLOAD STEPS WORKERS]
b=$1; n=$2; k=$3; shift 3
for i in $(seq "$k"); do
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$b python bench/results/cpu37c-tools/time_place.py "$@"
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$n python bench/results/cpu37c-tools/time_place.py "$@"
done
