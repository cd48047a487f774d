"""The test function itself, N times in one process (beside burners); prints each outcome."""
import sys, time, os, traceback
sys.path.insert(0, "/work/wt/lc39/tests")
import test_annotations_distributed as T
n = int(sys.argv[1]); fails = 0
for i in range(n):
    t = time.time()
    try:
        T.test_broadcast_copies_named_by_the_scheduler(); r = "ok"
    except AssertionError as e:
        fails += 1; r = "FAIL " + str(e).splitlines()[0][:200]
    print(i, r, round(time.time() - t, 1), os.getloadavg()[0], flush=True)
print("fails", fails, "of", n)
