"""dask's own methods without the lines that only append to a log.

dask's scheduler and workers log every transition (and a worker most stimuli) to a deque
that only ``story()`` and a failed validation read: per entry a tuple, a ``time()`` call,
and for a worker's transition a dict of its recommendations. In the twin that was ~3-4%
of a run (100k tasks on 100 workers: ~11 transitions per task). Without validation the
twin runs these copies: each is the dask function recompiled from its own source with
every ``self.<log>.append(...)`` statement turned into ``pass``, so the rest of dask's
code is exactly dask's, in whatever version is installed. A function whose source is not
available, or which has nothing to drop, is not copied (dask's own runs). A caller may
also drop calls it knows do nothing (a worker telling its plugins, when it has none).
"""

from __future__ import annotations

import __future__
import ast
import inspect
import textwrap


class _Drop(ast.NodeTransformer):
    """``self.<log>.append(...)`` and ``self.<call>(...)`` statements become ``pass``."""

    def __init__(self, log: str, calls: tuple) -> None:
        self.log, self.calls = log, calls
        self.dropped = 0

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            f = call.func
            if ((f.attr == "append" and _on_self(f.value) and f.value.attr == self.log)
                    or (f.attr in self.calls and isinstance(f.value, ast.Name)
                        and f.value.id == "self")):
                self.dropped += 1
                return ast.copy_location(ast.Pass(), node)
        return node


def _on_self(node) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self")


def without_log(fn, log: str, calls: tuple = ()):
    """``fn`` recompiled without its ``self.<log>.append(...)`` statements (and its
    ``self.<name>(...)`` statements for the names in ``calls``), or None."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn)
    except (OSError, TypeError):
        return None
    if fn.__code__.co_freevars or filename is None:  # a closure or super(): not copied
        return None
    text = textwrap.dedent("".join(lines))
    if f"self.{log}.append" not in text:  # only functions that log are copied
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
    drop = _Drop(log, tuple(calls))
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


def quiet_methods(cls: type, log: str, calls: tuple = ()) -> dict:
    """{name: copy without log appends (and ``calls``)} for the functions defined on
    ``cls`` that log."""
    out = {}
    for name, fn in vars(cls).items():
        if inspect.isfunction(fn):
            new = without_log(fn, log, calls)
            if new is not None:
                out[name] = new
    return out
