# try: on 4+-thread workers a spread root may wait behind busy threads (one root ahead)
import tidegate.books as B, tidegate.policy as P
P.AHEAD4 = 0
P.AHEAD_T = 4
_orig = P.may_load_beside
def mlb(threads, roots_processing, processing, light=0, third=False):
    if P.AHEAD4 and threads >= P.AHEAD_T and roots_processing < P.AHEAD4 and processing <= threads:
        return True
    return _orig(threads, roots_processing, processing, light, third)
B.may_load_beside = mlb
