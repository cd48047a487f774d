from tidegate import policy; policy.BROADCAST_LEARN = 1
