import tidegate.policy as p
import tidegate.distributed.broadcast as b
p.broadcast_pairs.__defaults__ = (64,)
b.BROADCAST_PER_SENDER = 64
