# Each twin run computes the same workload twice on one cluster (one scheduler, one plugin
# install): first under other key names (a warm-up), then the graph measured. The result is
# the second computation's: makespan from the first's end, peaks and bytes moved from then.
# (anom39: a verdict kept across computations, Broadcast living per install.)
from tidegate.sim import cluster as _C
from tidegate.sim.model import build_model as _build

def _renamed(model, tag="-w1st"):
    def new(k):
        return (f"{k[0]}{tag}",) + k[1:] if isinstance(k, tuple) else f"{k}{tag}"
    ren = {k: new(k) for k in model.dsk}
    dsk = {ren[k]: v.substitute(ren, key=ren[k]) for k, v in model.dsk.items()}
    return _build(dsk, [ren[k] for k in model.keys],
                  sizes={ren[k]: v for k, v in model.sizes.items()},
                  durations={ren[k]: v for k, v in model.durations.items()})

_run = _C.SimCluster.run
def _twice(self):
    measured = self.model
    self.model = _renamed(measured)
    _run(self)
    t1 = self.clock.now
    for w in self.workers.values():
        w.peak = w.state.nbytes
    self.bytes_transferred = 0
    self.model = measured
    return _run(self) - t1
_C.SimCluster.run = _twice
