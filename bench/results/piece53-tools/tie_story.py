"""Books' story of each M (and R) in the tie graph under tidegate, with the times.
usage: tie_story.py N SHAPE [keys...]"""
import sys
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tidegate.distributed import Plugin
from tie_probe import run

held = []
orig = Plugin.install


def install(self, scheduler):
    held.append((self, scheduler))
    return orig(self, scheduler)


Plugin.install = install
n = int(sys.argv[1]); shape = sys.argv[2]
r = run(n, shape, "tidegate")
plugin, sched = held[0]
ends = {t.key: t for t in r.trace.tasks}
print("time", r.makespan)
for e in plugin.books.log:
    k = e[0]
    t = ends.get(str(k))
    print(str(k), e[1:], f"ran {t.worker[-4:]} {t.start:.2f}" if t else "")
