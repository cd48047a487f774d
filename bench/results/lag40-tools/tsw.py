"""twin_slow_worker with switches from env SW="LAG_WARM=1,LAG_SPREAD=0"."""
import os, sys
from tidegate import policy
sys.path.insert(0, "/tmp/lag40/bench")
for kv in filter(None, os.environ.get("SW", "").split(",")):
    k, v = kv.split("="); setattr(policy, k, float(v) if "." in v else int(v))
import twin_slow_worker as T
T.main()
