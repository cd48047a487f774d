"""The test under a mutant, N times: per3 (a holder sends 3 copies at once:
policy.BROADCAST_PER_SENDER = 3), nobc (the plugin names no copy: Broadcast disabled)."""
import sys, time, os
sys.path.insert(0, "/work/wt/lc39/tests")
import test_annotations_distributed as T
import tidegate.policy as P
from tidegate.distributed import broadcast as B
which, n = sys.argv[1], int(sys.argv[2])
if which == "per3":
    P.BROADCAST_PER_SENDER = 3
elif which == "nobc":
    init = B.Broadcast.__init__
    def __init__(self, enabled=True):
        init(self, False)
    B.Broadcast.__init__ = __init__
fails = 0
for i in range(n):
    t = time.time()
    try:
        T.test_broadcast_copies_named_by_the_scheduler(); r = "passed"
    except AssertionError as e:
        fails += 1; r = "FAILED " + str(e).splitlines()[0][:160]
    print(which, i, r, round(time.time() - t, 1), flush=True)
print(which, "failed", fails, "of", n)
