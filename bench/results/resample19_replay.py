import sys, pickle
from tidegate.core import Scheduler
from tidegate.policy import Policy
from tidegate.testing import drive
data = pickle.load(open(sys.argv[1], "rb"))
for case, (g, sizes, budgets) in data.items():
    for budget in [1e10] + [float(b) for b in sys.argv[2:]]:
        r = []
        for seed in range(4):
            core = Scheduler(g, [(2, budget)], Policy("tidegate", 1.1))
            drive(core, seed=seed, size=sizes.__getitem__)
            r.append((round(core.workers[0].peak_held / 1e6), core.peak_roots_held, round(core.bytes_spilled / 1e6), sum(1 for e in core.books.log if e[1] == "pulled")))
        print(case, f"{budget/1e6:.0f}MB", "peak held MB, roots held, spilled MB, pulls:", r)
