# trace_twin.py --patch: --only anomaly-N (or NAME-N) traces tidegate.sim.workloads' build(NAME,
# N, 190 MB chunks, store form) on simulate's defaults (1 GB/s, 1 ms latency, no thread lag),
# the configuration of small46's tr.py and seed49's anomprobe.py (LAG and --outgoing ignored).
import sys

S = sys.modules["wall29_small"]
_models, _twin = S.models, S.twin


def models(names, measured, namings):
    from tidegate.sim.workloads import build

    for name in names:
        base, _, steps = name.rpartition("-")
        if base and steps.isdigit():
            yield name, build(base, int(steps), 190e6, store=True).model(), [None] * namings
        else:
            yield from _models([name], measured, namings)


def twin(model, g, policy, shape, lag, seed, outgoing, record_memory=False):
    from tidegate.sim import simulate

    w, t = map(int, shape.split("x"))
    return simulate(model, workers=w, threads_per_worker=t, seed=seed, policy=policy,
                    record_memory=record_memory, processes=1)


S.models, S.twin = models, twin
