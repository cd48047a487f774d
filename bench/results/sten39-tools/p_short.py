# sten39 exploration: on 4+ thread workers, where a short task processes there (light > 0),
# BESIDE_BUSY's depth is SHORT_DEEP instead of BESIDE_DEEP.
import tidegate.policy as P, tidegate.books as B
P.SHORT_DEEP = 0
_orig = P.may_load_beside
def may_load_beside(threads, roots_processing, processing, light=0, third=False):
    return _orig(threads, roots_processing, processing, light, third) or (
        P.SHORT_DEEP and light > 0 and P.BESIDE_BUSY and threads >= P.BESIDE_BUSY_THREADS
        and roots_processing < 2 and processing <= threads + P.SHORT_DEEP)
P.may_load_beside = may_load_beside
B.may_load_beside = may_load_beside
