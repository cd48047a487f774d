import sys
from tidegate.distributed import placement as P
o = P._moved_with
def m(ts):
    r = o(ts)
    print("  moved_with", ts.key, r, [(d.key, len(d.dependents), [w.address[-4:] for w in d.who_has or ()]) for d in ts.dependencies])
    return r
P._moved_with = m
sys.argv = ["dec.py"] + sys.argv[1:]
exec(open("/tmp/slow48b/dbg.py").read())
