# tidy42's checks (run from the repository's root at the branch's head; scratch in /tmp/tidy42).
# 1. Each switch off on main's code: copies of src with one line changed.
mkdir -p /tmp/tidy42/offA /tmp/tidy42/offB
for X in A B; do git archive 32ff2f0 src bench | tar -x -C /tmp/tidy42/off$X; done
cd /tmp/tidy42/offA/src/tidegate
sed -i 's/^KEPT_STEP = 1$/KEPT_STEP = 0/' books.py
sed -i 's/^VIEW_MEMO = 1$/VIEW_MEMO = 0/' distributed/hooks.py
sed -i 's/^BATCH_STARTS = True$/BATCH_STARTS = False/' distributed/admission.py
sed -i 's/^FOLD_STEALING = True$/FOLD_STEALING = False/' distributed/server.py
sed -i 's/^PARK_HELD_QUEUED = True$/PARK_HELD_QUEUED = False/' \
    /tmp/tidy42/offB/src/tidegate/distributed/admission.py
for X in A B; do
  cd /tmp/tidy42/off$X
  PYTHONHASHSEED=0 PYTHONPATH=src nice -n 19 python bench/plugin_fingerprints.py fp.json \
      --compare bench/results/plugin_fingerprints-lead39.json > fp.log 2>&1
  nice -n 19 python bench/sim_fingerprints.py --against /work/base42/src > sim.log 2>&1
done
PYTHONHASHSEED=0 PYTHONPATH=/work/base42/src nice -n 19 python bench/ab_twin.py \
    --only vorticity-files --shapes 4x1 --namings 3 --seeds 5 \
    --switch tidegate.distributed.admission.PARK_HELD_QUEUED --old 0 --new 1
# 2. The head, frozen: fingerprints and bytecodes.
mkdir -p /tmp/tidy42/head && git archive HEAD src bench | tar -x -C /tmp/tidy42/head
cd /tmp/tidy42/head
export PYTHONDONTWRITEBYTECODE=1
PYTHONHASHSEED=0 PYTHONPATH=src nice -n 19 python bench/plugin_fingerprints.py fp.json \
    --compare bench/results/plugin_fingerprints-lead39.json > fp.log 2>&1
nice -n 19 python bench/sim_fingerprints.py --against /work/base42/src > sim.log 2>&1
PYTHONHASHSEED=0 nice -n 19 python bench/core_fingerprints.py --against /work/base42/src \
    > core.log 2>&1
for W in anomaly rechunk-add slice-add stack-sum; do
  PYTHONHASHSEED=0 PYTHONPATH=src nice -n 19 python bench/plugin_ops.py --workers 100 \
      --scale 1 --only $W --against /work/base42/src > ops-$W.log 2>&1
done
