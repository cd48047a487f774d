"""res27: bench/probe24_cluster.py with policy.FREES_SLOT on when RES27_FREES_SLOT=1 (the
LocalCluster's scheduler runs in this process, so the switch reaches the plugin).

    RES27_FREES_SLOT=1 python bench/res27_cluster.py --only resample-store --modes tidegate --reps 1 --out F.json
"""
import os
import sys

import tidegate.policy  # noqa: E402  (first: importing tidegate drops bench/ from sys.path)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

tidegate.policy.FREES_SLOT = os.environ.get("RES27_FREES_SLOT") == "1"
import probe24_cluster  # noqa: E402

if __name__ == "__main__":
    probe24_cluster.main()
