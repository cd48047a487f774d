"""Trial (not in src): an opener whose meetings lack more roots than its worker's cap
reserves none of them (Books._reserve patched). Exec'd before tie_sweep.py's runs:
  PYTHONPATH=src python -c "exec(open('bench/results/tie52-tools/reserve_trial.py').read());
  import runpy, sys; sys.argv=['x','--shapes','2x4,2x2']; runpy.run_path(
  'bench/results/tie52-tools/tie_sweep.py', run_name='__main__')\""""
from tidegate import books as _B

_orig_reserve = _B.Books._reserve


def _reserve(self, task, w, lacks):
    book = self.workers.get(w)
    if lacks and book is not None and len(lacks) > book.cap:
        lacks = ()
    return _orig_reserve(self, task, w, lacks)


_B.Books._reserve = _reserve
