# sten38 exploration: BESIDE_BUSY's "no task waits for a thread" deepened to
# processing <= threads + BESIDE_DEEP on 4+ thread workers.
import tidegate.policy as P, tidegate.books as B
P.BESIDE_DEEP = 0
_orig = P.may_load_beside
def may_load_beside(threads, roots_processing, processing, light=0, third=False):
    return _orig(threads, roots_processing, processing, light, third) or (
        P.BESIDE_DEEP and P.BESIDE_BUSY and threads >= P.BESIDE_BUSY_THREADS
        and roots_processing < 2 and processing <= threads + P.BESIDE_DEEP)
P.may_load_beside = may_load_beside
B.may_load_beside = may_load_beside
