# seed44: tests/test_handle_share.py's slice-add model, peak / queuing's per seed, over UNIT_STAGGER x HINT_SHARE
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests"))
import test_handle_share as T
from tidegate import policy
class MP:
    def setattr(self, o, n, v): setattr(o, n, v)
for shape in (8, 4):
  for lag in (0.002, 0.01):
    for us in (0, 1, 2):
      for hs in (1, 0, 3):
        r = T._peaks(MP(), shape, lag, HANDLE_UNOWE=1, HINT_SHARE=hs, UNIT_STAGGER=us)
        print(shape, lag, "US", us, "HS", hs, [round(t / q, 3) for t, q in r], flush=True)
