import tidegate.policy as p
import tidegate.distributed.broadcast as b
p.broadcast_pairs.__defaults__ = (2,)
b.BROADCAST_PER_SENDER = 2
