"""dask's own methods recompiled from their source with one piece changed (trim.py,
holders.py): the source parsed and checked against the code running, compiled back in
dask's module, and the copy dressed as the original."""

from __future__ import annotations

import __future__
import ast
import inspect
import textwrap


def source(fn):
    """``(tree, fdef, filename)`` of ``fn``'s source, undecorated, its lines dask's; or
    None where it cannot be copied: no source, a closure, not one plain function, or a
    source on disk that is not the code running (edited or upgraded since dask was
    imported: compiled as it is, it must give the same bytecode)."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    if fn.__code__.co_freevars or filename is None:  # a closure: not copied
        return None
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != fn.__name__:
        return None
    fdef.decorator_list = []
    ast.increment_lineno(tree, first - 1)  # tracebacks point at dask's lines
    if run(tree, filename, fn)[fn.__name__].__code__.co_code != fn.__code__.co_code:
        return None
    return tree, fdef, filename


def run(tree, filename, fn) -> dict:
    """What ``tree`` defines, compiled in ``fn``'s module."""
    code = compile(tree, filename, "exec", flags=__future__.annotations.compiler_flag,
                   dont_inherit=True)  # fmt: skip
    space: dict = {}
    exec(code, fn.__globals__, space)  # noqa: S102  (dask's own source, one piece changed)
    return space


def dressed(new, fn):
    """``new`` (a copy of dask's ``fn``) with ``fn``'s defaults and names."""
    new.__defaults__, new.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    new.__qualname__, new.__module__ = fn.__qualname__, fn.__module__
    new.__wrapped__ = fn
    return new
