# sten39 exploration (not kept): SHORT_DEEP only for the first block of a pair (no root
# processing there), FIRST_DEEP 1.
import tidegate.policy as P, tidegate.books as B
P.FIRST_DEEP = 0
_orig = P.waits_behind_short
def waits_behind_short(threads, roots_processing, processing, light):
    return _orig(threads, roots_processing, processing, light) and (
        not P.FIRST_DEEP or roots_processing == 0)
P.waits_behind_short = waits_behind_short
B.waits_behind_short = waits_behind_short
