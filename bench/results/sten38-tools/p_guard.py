# sten38 exploration: SHORT_THREADS bit 1 (one thread) only where a guard holds.
import tidegate.policy as P, tidegate.books as B
P.SGUARD = 0
_orig = B.Books._beside_light
def _beside_light(self, w, book, est):
    if book.threads == 1 and P.SGUARD and P.SHORT_THREADS & 1:
        mine = book.held + book.estimated
        others = [b.held + b.estimated for v, b in self.workers.items() if v != w]
        ok = True
        if others:
            if P.SGUARD == 1:
                ok = mine <= sum(others) / len(others)
            elif P.SGUARD == 2:
                ok = mine <= min(others) + est
            elif P.SGUARD == 3:
                ok = mine <= (sum(others) + mine) / (len(others) + 1) + est / 2
        if not ok:
            old = P.SHORT_THREADS
            P.SHORT_THREADS = old & ~1
            try:
                return _orig(self, w, book, est)
            finally:
                P.SHORT_THREADS = old
    return _orig(self, w, book, est)
B.Books._beside_light = _beside_light
