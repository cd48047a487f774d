# snd47: a trace_twin --patch printing each Placement._combine_elsewhere call: the twin's
# clock, the combine, dask's / place_consumer's choice, the answer (None: the choice
# stands), the bytes of its inputs per holder (MB) and each worker's bytes on their way
# (placement._incoming).  PYTHONPATH=src python bench/trace_twin.py 5x4 0.002 0
#   --only seed-anomaly --outgoing inf --patch bench/results/snd47-tools/combine_calls.py
from tidegate.distributed import placement as P

_o = P.Placement._combine_elsewhere


def f(self, ts, local, chosen):
    out = _o(self, ts, local, chosen)
    s = self.scheduler
    inc = {a[-4:]: round(P._incoming(w) / 1e6, 1) for a, w in s.workers.items()}
    print("t=%.4f COMBINE %s chosen %s -> %s local %s incoming %s" % (
        s.loop.time(), ts.key, chosen[-4:], out and out.address[-4:],
        {a[-4:]: round(v / 1e6, 1) for a, v in local.items()}, inc))
    return out


P.Placement._combine_elsewhere = f
