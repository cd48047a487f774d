import tidegate.policy as P; P.WAVE_SHARE = 0
