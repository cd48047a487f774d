import sys, os
sys.argv = [sys.argv[0]] + sys.argv[1:]
from tidegate.distributed.hooks import Plugin
import collections
c = collections.Counter()
inside = [0]
os_ = Plugin._split
def split(self, *a, **k):
    inside[0] += 1
    c["split"] += 1
    try:
        return os_(self, *a, **k)
    finally:
        inside[0] -= 1
Plugin._split = split
for name in ("_held_here", "_slower", "_partners"):
    orig = getattr(Plugin, name)
    def f(self, *a, _o=orig, _n=name, **k):
        if inside[0]:
            c[_n] += 1
        return _o(self, *a, **k)
    setattr(Plugin, name, f)
os.environ["NOWRAP"] = "1"
exec(open("/tmp/review50/seed_scale.py").read())
W = int(sys.argv[2])
print("W", W, dict(c), "looks per chosen root per worker:",
      round((c["_held_here"] + c["_slower"]) / max(c["_partners"], 1) / W, 2))
