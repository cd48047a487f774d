import tidegate.policy as _p; _p.WAVE_SPLIT = 0
