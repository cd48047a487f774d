"""dask's own methods recompiled from their source with one piece changed (trim.py,
holders.py): the source parsed and checked against the code running, compiled back in
dask's module, and the copy dressed as the original. And same_shape: is dask's code still
the one a restatement was written against."""

from __future__ import annotations

import __future__
import ast
import inspect
import logging
import textwrap
import types

logger = logging.getLogger(__name__)


def once(made: dict, fn, make):
    """``make(fn, tree, fdef, filename)`` from ``fn``'s :func:`source`, kept in ``made`` (once
    per process); None where there is no such source or ``make`` raises (an AST this
    Python's compiler refuses, a default naming a class constant, say): dask's method stays."""
    if fn not in made:
        try:
            got = source(fn)
            made[fn] = None if got is None else make(fn, *got)
        except Exception as e:
            logger.info("tidegate keeps dask's %s: its copy failed (%r)", fn.__qualname__, e)
            made[fn] = None
    return made[fn]


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
    if not same_code(run(tree, filename, fn)[fn.__name__].__code__, fn.__code__):
        return None
    return tree, fdef, filename


def same_code(a, b) -> bool:
    """Whether two code objects do the same: bytecode, the names and constants it uses
    (nested code alike). Bytecode alone let an edit of a constant or an attribute name
    through (the copy then ran the file's version, not the one imported)."""
    fields = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_flags")
    if any(getattr(a, f) != getattr(b, f) for f in fields) or len(a.co_consts) != len(b.co_consts):
        return False
    for k, (x, y) in enumerate(zip(a.co_consts, b.co_consts)):
        if k == 0 and type(x) is str and type(y) is str:  # a docstring: dedent moved it
            x, y = inspect.cleandoc(x), inspect.cleandoc(y)
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not same_code(x, y):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def same_shape(fn, names: tuple, consts: tuple | None = None, local: tuple | None = None):
    """Is ``fn`` (a function; a property: its getter) dask's code as a restatement of it
    recorded it: reading exactly the global and attribute ``names`` (``co_names``), and where
    given, with the constants ``consts`` (strings, such as docstrings, left out) and the
    locals ``local`` (``co_varnames``)? (trim.quick, install._drops_all_in_transitions,
    server._transition_shape: a restatement answers as dask's code only for that code.)"""
    code = getattr(getattr(fn, "fget", fn), "__code__", None)
    if code is None or code.co_names != names:
        return False
    if local is not None and code.co_varnames != local:
        return False
    return consts is None or tuple(c for c in code.co_consts if type(c) is not str) == consts


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
