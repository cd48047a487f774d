# twin_workloads.py with policy switches from SET="X=V,Y=W" (anom52):
# SET=KEPT_SHARE=1 python tw_switch.py --workers 20 --threads 4 --steps 1000 ...
import os, runpy, sys
from tidegate import policy
for kv in filter(None, os.environ.get("SET", "").split(",")):
    k, v = kv.split("=")
    setattr(policy, k, eval(v))
here = os.path.dirname(os.path.abspath(__file__))
sys.argv = ["twin_workloads.py"] + sys.argv[1:]
runpy.run_path(os.path.join(here, "..", "..", "twin_workloads.py"), run_name="__main__")
