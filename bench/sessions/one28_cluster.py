"""one28: bench/probe24_cluster.py with policy.FREES_SLOT_THREADS and policy.BUSY_PASS set from
ONE28_FST / ONE28_BUSY (unset: the code's, main's decisions). The LocalCluster's scheduler
runs in this process, so the setting reaches the plugin.

    ONE28_FST=99 ONE28_BUSY=2 python bench/sessions/one28_cluster.py --only resample-store
        --workers 2 --threads 2 --modes tidegate --reps 1 --out F.json
"""
import os
import sys

import tidegate.policy  # noqa: E402  (first: importing tidegate drops bench/ from sys.path)

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/

if "ONE28_FST" in os.environ:
    tidegate.policy.FREES_SLOT_THREADS = int(os.environ["ONE28_FST"])
if "ONE28_BUSY" in os.environ:
    tidegate.policy.BUSY_PASS = int(os.environ["ONE28_BUSY"])
import probe24_cluster  # noqa: E402

if __name__ == "__main__":
    probe24_cluster.main()
