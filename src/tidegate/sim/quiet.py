"""dask's own methods without the lines that only append to a log.

dask's scheduler and workers log every transition (and a worker most stimuli) to a deque
that only ``story()`` and a failed validation read: per entry a tuple, a ``time()`` call,
and for a worker's transition a dict of its recommendations. In the twin that was ~3-4%
of a run (100k tasks on 100 workers: ~11 transitions per task). Without validation the
twin runs these copies: each is the dask function recompiled from its own source with
every ``self.<log>.append(...)`` statement turned into ``pass``, so the rest of dask's
code is exactly dask's, in whatever version is installed. A function whose source is not
available, or which has nothing to drop, is not copied (dask's own runs).
"""

from __future__ import annotations

import __future__
import ast
import inspect
import textwrap


class _DropAppends(ast.NodeTransformer):
    def __init__(self, log: str) -> None:
        self.log = log
        self.dropped = 0

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "append"
                and isinstance(call.func.value, ast.Attribute)
                and call.func.value.attr == self.log
                and isinstance(call.func.value.value, ast.Name)
                and call.func.value.value.id == "self"):
            self.dropped += 1
            return ast.copy_location(ast.Pass(), node)
        return node


def without_log(fn, log: str):
    """``fn`` recompiled without its ``self.<log>.append(...)`` statements, or None."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn)
    except (OSError, TypeError):
        return None
    if fn.__code__.co_freevars or filename is None:  # a closure or super(): not copied
        return None
    text = textwrap.dedent("".join(lines))
    if f"self.{log}.append" not in text:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:  # e.g. a def inside another statement: not copied
        return None
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != fn.__name__:
        return None
    if any(isinstance(n, (ast.Name, ast.Attribute)) and _mangled(getattr(n, "id", None)
                                                              or getattr(n, "attr", ""))
           for n in ast.walk(fdef)):
        return None  # a private name compiled outside its class would not be mangled
    drop = _DropAppends(log)
    drop.visit(fdef)
    if not drop.dropped:
        return None
    fdef.decorator_list = []  # e.g. dask's handler registration: the copy is not registered
    ast.increment_lineno(tree, first - 1)  # tracebacks point at dask's lines
    code = compile(tree, filename, "exec", flags=__future__.annotations.compiler_flag,
                   dont_inherit=True)
    space: dict = {}
    exec(code, fn.__globals__, space)  # noqa: S102  (dask's own source, less log lines)
    new = space[fdef.name]
    new.__defaults__, new.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    new.__qualname__, new.__module__ = fn.__qualname__, fn.__module__
    new.__wrapped__ = fn
    return new


def _mangled(name: str) -> bool:
    return name.startswith("__") and not name.endswith("__")


def quiet_methods(cls: type, log: str) -> dict:
    """{name: copy without log appends} for the functions defined on ``cls`` that have any."""
    out = {}
    for name, fn in vars(cls).items():
        if inspect.isfunction(fn):
            new = without_log(fn, log)
            if new is not None:
                out[name] = new
    return out
