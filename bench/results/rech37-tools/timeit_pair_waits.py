"""rech37: pair_waits per call, PAIR_LOADS 1 against 3, on the books states it sees in the
twin rechunk on four threads (rp2 ru1 p4 cap5: the new clause's test runs; rp0 ru2 p4: it
stops at its first test) and on three threads (value 1's clause answers first)."""
import timeit
import tidegate.policy as P

cases = {"4t rp2 ru1 p4": (4, 5, 4, 1.0, 2), "4t rp0 ru2 p4": (4, 5, 4, 2.0, 0),
         "3t rp2 ru0 p3": (3, 4, 3, 0.0, 2), "2t": (2, 3, 2, 1.0, 2)}
for name, args in cases.items():
    row = []
    for v in (1, 3):
        P.PAIR_LOADS = v
        f = P.pair_waits
        n = 200000
        best = min(timeit.repeat(lambda: f(*args), number=n, repeat=5)) / n
        row.append(f"PAIR_LOADS {v}: {best * 1e9:.0f} ns")
    print(f"{name:14s} " + "  ".join(row))
