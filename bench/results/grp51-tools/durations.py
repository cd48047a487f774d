"""python durations.py BUILD.pkl ...: per build, total task seconds and each group's count, sum and median."""
import sys, cloudpickle, statistics, collections
from dask.utils import key_split
for p in sys.argv[1:]:
    dsk, out, took, size = cloudpickle.load(open(p, "rb"))
    by = collections.defaultdict(list)
    for k, v in took.items(): by[key_split(k)].append(v)
    print(p, "total %.2f s" % sum(took.values()), len(took))
    for g, v in sorted(by.items(), key=lambda x: -sum(x[1])):
        print(f"   {g[:30]:30s} n {len(v):5d} sum {sum(v):7.3f} med {statistics.median(v)*1e3:8.3f} ms")
