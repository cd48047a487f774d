"""Session 36 (lead): trim._occupancy's loop against cpu36b's form in C, timed a call.

python bench/results/lead36-occupancy-timeit.py  (Python 3.11.7, 2026-12-06: 1 prefix
0.25 us against 1.01, 2: 0.33 / 1.14, 3: 0.41 / 1.28, 5: 0.54 / 1.50): the C form ran
fewer bytecodes but more time; reverted (lead36-findings.txt)."""
import timeit
import types
from functools import reduce
from itertools import compress, count
from operator import add, attrgetter, mul


class P:
    def __init__(self, d):
        self.duration_average = d
        self.max_exec_time = 0.1


s = types.SimpleNamespace(task_prefixes={f"p{i}": P(0.01 * i + 0.001) for i in range(10)},
                          UNKNOWN_TASK_DURATION=0.5, bandwidth=1e8)
_average = attrgetter("duration_average")
_negative = (0.0).__gt__


def loop(s, tpc, net):
    res = 0.0
    prefixes = s.task_prefixes
    for name, n in tpc.items():
        prefix = prefixes[name]
        duration = prefix.duration_average
        if duration < 0:
            duration = 2 * prefix.max_exec_time if prefix.max_exec_time > 0 \
                else s.UNKNOWN_TASK_DURATION
        res += duration * n
    return res + net / s.bandwidth


def in_c(s, tpc, net):
    prefixes = list(map(s.task_prefixes.__getitem__, tpc))
    durations = list(map(_average, prefixes))
    for i in compress(count(), map(_negative, durations)):
        prefix = prefixes[i]
        durations[i] = 2 * prefix.max_exec_time if prefix.max_exec_time > 0 \
            else s.UNKNOWN_TASK_DURATION
    return reduce(add, map(mul, durations, tpc.values()), 0.0) + net / s.bandwidth


for n in (1, 2, 3, 5):
    tpc = {f"p{i}": i + 1 for i in range(n)}
    a = min(timeit.repeat(lambda: loop(s, tpc, 0.0), number=200000, repeat=5)) / 0.2
    b = min(timeit.repeat(lambda: in_c(s, tpc, 0.0), number=200000, repeat=5)) / 0.2
    print(f"{n} prefixes: loop {a:.3f} us, in C {b:.3f} us a call")
