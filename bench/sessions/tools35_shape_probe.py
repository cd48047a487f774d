"""Each "dask's code has the shape we restate" check's yes / no (trim.quick,
install._drops_all_in_transitions, server._transition_shape) on this distributed: dask's
code as found, with one name, local or constant changed, overridden on an instance or a
subclass. JSON to stdout; compare two checkouts' (tools35: recompile.same_shape exact).

    PYTHONPATH=OTHER/src python bench/sessions/tools35_shape_probe.py tests > A.json
"""
import json
import sys

sys.path.insert(0, sys.argv[1])  # tests/ (its test_distributed._bare_state)
from test_distributed import _bare_state  # noqa: E402
from distributed.scheduler import SchedulerState, WorkerState  # noqa: E402
from distributed.stealing import WorkStealing  # noqa: E402

from tidegate.distributed import install, server, trim  # noqa: E402


def mutations(code):
    yield "as-is", code
    yield "names+", code.replace(co_names=code.co_names + ("zz_extra",))
    yield "names-swap", code.replace(co_names=code.co_names[1:] + code.co_names[:1])
    vn = code.co_varnames
    for i in range(len(vn)):
        yield f"local{i}", code.replace(co_varnames=vn[:i] + (vn[i] + "_x",) + vn[i + 1:])
    cs = code.co_consts
    for i, c in enumerate(cs):
        if type(c) in (int, float) and not isinstance(c, bool):
            yield f"const{i}", code.replace(co_consts=cs[:i] + (c + 1,) + cs[i + 1:])
        if type(c) is str:
            yield f"strconst{i}", code.replace(co_consts=cs[:i] + (c + "x",) + cs[i + 1:])
    if cs and cs[0] is None:
        yield "const0-str", code.replace(co_consts=("doc",) + cs[1:])


def fn_of(owner, name):
    f = owner.__dict__[name]
    return f.fget if isinstance(f, property) else f


def probe(targets, check):
    out = {}
    for owner, name in targets:
        f = fn_of(owner, name)
        code = f.__code__
        try:
            for tag, c in mutations(code):
                f.__code__ = c
                trim._quick_made.clear()
                install._drops_all.clear()
                out[f"{owner.__name__}.{name}:{tag}"] = check()
        finally:
            f.__code__ = code
    return out


state = _bare_state(nworkers=1, nthreads=1)
res = {}
res["trim"] = probe(
    [(WorkerState if n in trim._WORKER else SchedulerState, n) for n in trim._SHAPES],
    lambda: trim.quick(state) is not None)
steal = WorkStealing.__new__(WorkStealing)
res["server"] = probe([(WorkStealing, "transition")], lambda: server._transition_shape(steal))
steal.transition = WorkStealing.transition  # an instance's plain function, dask's code
res["server"]["instance-plain-function"] = server._transition_shape(steal)
steal.transition = lambda *a, **k: None
res["server"]["instance-lambda"] = server._transition_shape(steal)
del steal.transition


class Sub(WorkStealing):
    def transition(self, key, start, finish, *args, **kwargs):
        return super().transition(key, start, finish, *args, **kwargs)


res["server"]["subclass"] = server._transition_shape(Sub.__new__(Sub))
owner = next(k for k in type(state).__mro__ if "remove_all_replicas" in k.__dict__)
res["install"] = probe([(owner, "remove_all_replicas")],
                       lambda: install._drops_all_in_transitions(state))
state.remove_all_replicas = lambda ts: None
install._drops_all.clear()
res["install"]["instance-override"] = install._drops_all_in_transitions(state)
del state.remove_all_replicas
print(json.dumps(res, indent=0, sort_keys=True))
