# print ends_sooner_elsewhere's operands at each pace move consideration
import sys, os
from tidegate import policy as Pm
from tidegate.distributed import placement as P
orig = P.ends_sooner_elsewhere
def e(wait, lag, ow, olag, dur, comm, ocomm):
    r = orig(wait, lag, ow, olag, dur, comm, ocomm)
    if dur > 0.2:
        print(f"  ends_sooner wait={wait:.3f} comm={comm:.3f} -> here {(wait+dur)*lag+comm:.3f}; other_wait={ow:.3f} other_comm={ocomm:.3f} -> there {(ow+dur)*olag+ocomm:.3f} dur={dur:.3f} => {r}")
    return r
P.ends_sooner_elsewhere = e
sys.argv = ["dec.py"] + sys.argv[1:]
exec(open("/tmp/slow48b/dec.py").read())
