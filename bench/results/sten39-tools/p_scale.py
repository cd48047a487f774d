# sten39 exploration: SHORT_DEEP scaled by threads / BESIDE_BUSY_THREADS (SCALE_DEEP 1).
import tidegate.policy as P, tidegate.books as B
P.SCALE_DEEP = 0
def waits_behind_short(threads, roots_processing, processing, light):
    deep = P.SHORT_DEEP * threads // P.BESIDE_BUSY_THREADS if P.SCALE_DEEP else P.SHORT_DEEP
    return threads >= P.BESIDE_BUSY_THREADS and processing <= threads + deep \
        and roots_processing < 2 and light > 0 and P.SHORT_DEEP > 0 and P.BESIDE_BUSY != 0
P.waits_behind_short = waits_behind_short
B.waits_behind_short = waits_behind_short
