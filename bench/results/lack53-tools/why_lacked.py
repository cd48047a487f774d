"""Where LACKED_UNBLOCK drops the scan's blocker (twin stencil, test_lacked_unblock's model on
one worker, BESIDE_WIDE_ALONE 3): each drop with the worker's processing / threads and its
roots in flight / cap at that moment, and whether the tail test (roots in line <= threads)
held. Shows whether an epoch move keyed to a free thread in the tail could have asked it.
PYTHONPATH=src python why_lacked.py THREADS [LAG]"""
import collections
import sys

sys.path.insert(0, "tests")
from tidegate import policy  # noqa: E402
from tidegate.distributed import admission as A  # noqa: E402

threads = int(sys.argv[1])
lag = float(sys.argv[2]) if len(sys.argv) > 2 else 0.002
rows = []
orig = A.Admission._wake_lacked


def wake(self, lacks):
    before = self._blocked
    orig(self, lacks)
    if before is not None and self._blocked is None:
        (b,) = self.books.workers.values()
        rows.append((b.processing, b.threads, b.roots_processing + b.roots_untouched + b.owed,
                     b.cap, self._ready.roots_queued()))


A.Admission._wake_lacked = wake
import test_lacked_unblock as T  # noqa: E402

T._one_worker_stencil(threads, lag)
c = collections.Counter()
for p, t, f, cap, q in rows:
    c[("thread free" if p < t else "no thread free", "tail" if q <= t else "not tail",
       "count full" if f >= cap else "count room")] += 1
print(f"1x{threads} lag {lag}: {len(rows)} drops over 10 runs")
for k, v in c.most_common():
    print("  ", v, k)
print("   processing at the drops:", sorted(collections.Counter(p for p, *_ in rows).items()))
