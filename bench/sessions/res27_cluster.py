"""res27: bench/probe24_cluster.py with policy.FREES_SLOT set from RES27_BITS (0: main's
decisions; unset: the code's). The LocalCluster's scheduler runs in this process, so the
setting reaches the plugin.

    RES27_BITS=0 python bench/sessions/res27_cluster.py --only resample-store --modes tidegate
        --reps 1 --out F.json
"""
import os
import sys

import tidegate.policy  # noqa: E402  (first: importing tidegate drops bench/ from sys.path)

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/

if "RES27_BITS" in os.environ:
    tidegate.policy.FREES_SLOT = int(os.environ["RES27_BITS"])
import probe24_cluster  # noqa: E402

if __name__ == "__main__":
    probe24_cluster.main()
