"""dask's ``_task_to_msg`` with each input's holders listed from a kept copy while they
are the same workers in the same order.

A compute-task message names every holder of every input (``who_has``): dask lists them
with a generator over ``dts.who_has``, one ``WorkerState.address`` read per holder per
task. Where an input is held widely (broadcast weights, a grid, a store handle read by
every step) that is most of the message's cost: twin weighted, 100 workers x 4, 1,000
steps, 289 holders listed per task under tidegate (readers go where the grids already
are, so most are sent once most workers hold them) against queuing's 145, 2,010
bytecodes per task, the largest single item of the scheduler's work.

The copy is dask's own function recompiled from its own source with that one expression,
``tuple(ws.address for ws in <holders>)``, replaced by :func:`addresses` over the same
holders (fewer than ``FEW``: its own listing, in place): the same tuple, in the same
order, from the same set. A kept copy is used only
when the set yields the same WorkerStates in the same order as when it was kept (their
tuple compared in C, identity first), so the message is exactly dask's. Made only when
the expression is found once, as expected, and the source on disk compiles to the code
running; otherwise dask's own method stays (as trim.py does).
"""

from __future__ import annotations

import ast
import copy
import operator

from . import recompile

_made: dict = {}  # dask's function -> its copy (or None): compiled once per process
_address = operator.attrgetter("address")
# Fewer holders than this are listed as dask lists them: a look-up would cost as much.
FEW = 8
KEPT = 1024  # kept listings, at most (then all are dropped): O(KEPT x workers) memory
HOOK = "_tidegate_addresses"  # the closure variable the copy calls
ADDRESS = "_tidegate_address"  # the closure variable the copy maps over few holders


def listing(audited: dict | None = None):
    """A fresh ``addresses(who)`` with its own kept copies (one per scheduler). The
    plugin drops a set's copy (``addresses.kept.pop(id(who), None)``) before each change
    of a task's holders: its replica hooks see every one (``Plugin._replicas``).
    ``audited``: every copy used is also listed anew and compared, counted there under
    "holders" (tests)."""
    kept: dict = {}

    def addresses(who) -> tuple:
        """``tuple(ws.address for ws in who)``, from a kept copy while ``who`` (the same
        set object) has not changed since it was kept: a set yields its members in the
        same order until it changes."""
        if len(who) < FEW:
            return tuple(map(_address, who))
        k = kept.get(id(who))
        if k is not None and k[0] is who:
            if audited is not None:
                assert k[1] == tuple(map(_address, who)), (k[1], who)
                audited["holders"] = audited.get("holders", 0) + 1
            return k[1]
        if len(kept) >= KEPT:
            kept.clear()
        # (the set itself kept: its id is not reused while its copy is)
        out = tuple(map(_address, who))
        kept[id(who)] = (who, out)
        return out

    addresses.kept = kept
    return addresses


def task_to_msg(fn):
    """A maker ``make(addresses) -> function`` of ``fn`` (dask's
    ``SchedulerState._task_to_msg``) listing holders with ``addresses``, or None (the
    expression is not as expected)."""
    return recompile.once(_made, fn, _compile)


def _compile(fn, tree, fdef, filename):
    found = [node for node in ast.walk(fdef) if _lists_addresses(node)]
    if len(found) != 1 or any(isinstance(n, ast.Name) and n.id in (HOOK, ADDRESS)
                              for n in ast.walk(fdef)):  # fmt: skip
        return None
    call = found[0]
    holders_of = call.args[0].generators[0].iter
    # ``tuple(map(ADDRESS, H)) if len(H) < FEW else HOOK(H)``, H the holders' expression
    # (read twice: dask's ``(dts.who_has or ())``, pure): fewer than FEW holders (most
    # inputs) listed as addresses() lists them, without its call (a frame a message's
    # input: twin rechunk-add 100 x 4, 1.36 a task; cpu47)
    few = ast.IfExp(
        test=ast.Compare(left=_call("len", copy.deepcopy(holders_of)), ops=[ast.Lt()],
                         comparators=[ast.Constant(FEW)]),
        body=_call("tuple", _call("map", ast.Name(id=ADDRESS, ctx=ast.Load()),
                                  copy.deepcopy(holders_of))),
        orelse=_call(HOOK, holders_of))

    class _Swap(ast.NodeTransformer):
        def visit_Call(self, node):
            return few if node is call else self.generic_visit(node)

    _Swap().visit(fdef)
    # def _make(HOOK, ADDRESS): <fdef>; return <fdef's function>  -- closure variables
    extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}  # 3.12+
    make = ast.FunctionDef(
        name="_make", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=HOOK),
                                                               ast.arg(arg=ADDRESS)],
                                         kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None, **extra,
    )  # fmt: skip
    module = ast.Module(body=[make], type_ignores=[])
    ast.copy_location(make, fdef)
    ast.fix_missing_locations(module)
    maker = recompile.run(module, filename, fn)["_make"]

    def make_fn(addresses):
        return recompile.dressed(maker(addresses, _address), fn)

    return make_fn


def _call(name, *args):
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _lists_addresses(node) -> bool:
    """``tuple(x.address for x in <expr>)``: one generator, no condition."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "tuple" and len(node.args) == 1 and not node.keywords):  # fmt: skip
        return False
    gen = node.args[0]
    if not isinstance(gen, ast.GeneratorExp) or len(gen.generators) != 1:
        return False
    comp = gen.generators[0]
    return (isinstance(comp.target, ast.Name) and not comp.ifs and not comp.is_async
            and isinstance(gen.elt, ast.Attribute) and gen.elt.attr == "address"
            and isinstance(gen.elt.value, ast.Name)
            and gen.elt.value.id == comp.target.id)  # fmt: skip
