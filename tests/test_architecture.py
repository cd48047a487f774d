"""The layout's rules, checked on the source (issue 9 item 4: one policy, written once).

The bodies (core.py and its mixins: the thread runtime; distributed/: the plugin, which the
twin in sim/ runs unchanged) read the books (books.py and its mixins books_*.py) only
through their public API: no ``books._x`` outside them, nor through a name bound to the
books or ``getattr``. A body that reads a private field of the books decides with state the
books do not promise to keep, and a change made in the books silently misses it. The
decision layers import only downward, the standard library and numpy; lines of src/, tests/
and bench/ (its scripts, not the records in bench/results/) stay within 100 columns. Each
rule's check is shown to fail on a violation planted in a real file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tidegate

SRC = Path(tidegate.__file__).parent


def _body_files() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if not p.name.startswith("books"))


def _names_books(node: ast.AST, aliases=frozenset()) -> bool:
    """Is ``node`` an expression naming a Books: ``books``, ``self.books``,
    ``plugin.books``, ``self._books`` (any name or attribute ending in "books"), or a name
    bound to one (``aliases``)?"""
    if isinstance(node, ast.Name):
        return node.id.lower().endswith("books") or node.id in aliases
    if isinstance(node, ast.Attribute):
        return node.attr.lower().endswith("books")
    return False


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_REFLECT = {"getattr", "setattr", "hasattr", "delattr"}


def _own_nodes(scope: ast.AST):
    """The nodes of ``scope`` outside the functions nested in it (and those functions)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _bound(scope: ast.AST, aliases: frozenset) -> frozenset:
    """``aliases`` and the names ``scope`` binds to a Books: ``b = self.books``, ``b, c =
    self.books, x``, ``(b := plugin.books)``, ``c = b``, a parameter annotated ``Books``."""
    found = set(aliases)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = scope.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            if arg.annotation is not None and "Books" in ast.unparse(arg.annotation):
                found.add(arg.arg)
    pairs = []
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs += zip(target.elts, node.value.elts)
                else:
                    pairs.append((target, node.value))
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            pairs.append((node.target, node.value))
    while True:  # (c = b after b = self.books: until nothing new)
        new = {t.id for t, v in pairs if isinstance(t, ast.Name) and t.id not in found
               and _names_books(v, found)}  # fmt: skip
        if not new:
            return frozenset(found)
        found |= new


def _private(name) -> bool:
    return isinstance(name, str) and name.startswith("_") and not name.startswith("__")


def books_privates_read(source: str) -> list[tuple[int, str]]:
    """(line, expression) of every private attribute of a Books read or written in
    ``source`` (``__dunder__`` aside): ``books._x``, through a name bound to a Books
    (``b = self.books; b._x``), by name (``getattr(books, "_x")``), or every one at once
    (``books.__dict__``, ``vars(books)``)."""
    found = []

    def scan(scope, outer):
        aliases = _bound(scope, outer)
        for node in _own_nodes(scope):
            if isinstance(node, _SCOPES):
                scan(node, aliases)
            elif isinstance(node, ast.Attribute) and _names_books(node.value, aliases) and (
                    _private(node.attr) or node.attr == "__dict__"):  # fmt: skip
                found.append((node.lineno, node.col_offset, ast.unparse(node)))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args \
                    and _names_books(node.args[0], aliases) and (  # fmt: skip
                    node.func.id == "vars" or node.func.id in _REFLECT and len(node.args) > 1
                    and isinstance(node.args[1], ast.Constant) and _private(node.args[1].value)):
                found.append((node.lineno, node.col_offset, ast.unparse(node)))

    scan(ast.parse(source), frozenset())
    return [(line, expr) for line, _, expr in sorted(found)]


def test_the_check_finds_a_private_read():
    code = "def f(self, books, plugin):\n" \
        "    return books._owed, self.books._live, plugin.books._x\n"  # fmt: skip
    assert [x for _, x in books_privates_read(code)] == \
        ["books._owed", "self.books._live", "plugin.books._x"]  # fmt: skip
    assert books_privates_read("books.owed, self.books.carrying, books.__class__") == []


def test_the_check_finds_a_private_read_through_an_alias_or_by_name():
    code = """
def f(self, plugin, ledger: Books, other):
    b = self.books
    c, d = b, other
    if (e := plugin.books) is not None:
        pass
    def inner():
        return c._live
    return (b._owed, d._fine, e._x, ledger._y, getattr(b, "_z"), getattr(self.books, "ok"),
            setattr(plugin.books, "_w", 1), vars(c), self.books.__dict__)

def g(b):
    return b._not_books
"""
    assert [x for _, x in books_privates_read(code)] == [
        "c._live", "b._owed", "e._x", "ledger._y", "getattr(b, '_z')",
        "setattr(plugin.books, '_w', 1)", "vars(c)", "self.books.__dict__"]


def test_the_check_finds_a_private_read_planted_in_a_body():
    core = (SRC / "core.py").read_text()
    planted = core + "\n\ndef _planted(self):\n    b = self.books\n    return b._owed\n"
    assert books_privates_read(core) == []
    assert [x for _, x in books_privates_read(planted)] == ["b._owed"]


def test_no_body_reads_a_books_private():
    files = _body_files()
    assert any(p.name == "core.py" for p in files)
    assert any(p.parent.name == "distributed" for p in files)
    found = [f"{p.relative_to(SRC)}:{line}: {expr}" for p in files
             for line, expr in books_privates_read(p.read_text())]  # fmt: skip
    assert not found, "bodies read the books' private fields (add a public read):\n" + \
        "\n".join(found)  # fmt: skip


# The policy package's parts, bottom up: each imports only the parts before it (its
# __init__ re-exports them all), besides the standard library and numpy.
POLICY_PARTS = ("roots", "sizes", "place", "pace", "spread", "meetings", "partners", "further",
                "admit", "broadcast")
# The decision layers and what each may import besides the standard library and numpy
# (the layout's import rule: downward only; no dask, no I/O beneath the bodies).
LAYERS = {
    "graph": set(),
    "policy": set(POLICY_PARTS),  # its __init__; the parts below
    # the books, written in three files: its mixins beneath it
    "books_admission": {"policy"},
    "books_placement": {"policy", "books_admission"},
    "books": {"policy", "books_admission", "books_placement"},
    "core_states": set(),
    # core.py's Scheduler, written in five files: its mixins beneath it
    "core_admission": {"core_states", "policy"},
    "core_eviction": {"core_states", "policy"},
    "core_pulls": {"core_states"},
    "core_validation": {"core_states"},
    "core": {"books", "graph", "policy", "core_states", "core_admission", "core_eviction",
             "core_pulls", "core_validation"},
}


def _imports(source: str) -> set[str]:
    """Top-level names of every module ``source`` imports (``.x`` for a relative one, and
    for ``tidegate.x``), at any depth (an import inside a function counts); ``importlib``
    for a call to ``__import__`` or ``import_module`` (what it loads is not read)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {_relative(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                mods = [node.module] if node.module else [a.name for a in node.names]
                out |= {"." + m.split(".")[0] for m in mods}
            elif node.module == "tidegate":
                out |= {"." + a.name for a in node.names}
            else:
                out.add(_relative(node.module))
        elif isinstance(node, ast.Call) and (
                isinstance(node.func, ast.Name) and node.func.id == "__import__"
                or isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"):
            out.add("importlib")
    return out


def _relative(module: str) -> str:
    parts = module.split(".")
    return "." + parts[1] if parts[0] == "tidegate" and len(parts) > 1 else parts[0]


def layer_violations(name: str, source: str, allowed: set) -> list[str]:
    """What decision layer ``name`` (``source``) imports beyond the standard library,
    numpy and ``allowed`` (the layers beneath it)."""
    import sys

    found = _imports(source)
    outside = sorted(m for m in found if not m.startswith(".") and (
        m not in sys.stdlib_module_names or m == "importlib") and m not in ("numpy", "__future__"))
    up = sorted(m[1:] for m in found if m.startswith(".") and m[1:] not in allowed)
    return [f"{name} imports {m}" for m in outside] + [f"{name} imports .{m} (up)" for m in up]


def test_the_import_check_finds_a_planted_violation():
    policy = (SRC / "policy" / "roots.py").read_text()
    books = (SRC / "books.py").read_text()
    assert layer_violations("policy", policy, LAYERS["policy"]) == []
    assert layer_violations("policy", policy + "\nimport dask\n", set()) == \
        ["policy imports dask"]  # fmt: skip
    planted = books + "\ndef f():\n    from .core import Scheduler\n    from tidegate import live\n"
    assert layer_violations("books", planted, LAYERS["books"]) == \
        ["books imports .core (up)", "books imports .live (up)"]  # fmt: skip
    assert layer_violations("graph", "import importlib\nimportlib.import_module('dask')\n",
                            set()) == ["graph imports importlib"]  # fmt: skip
    assert layer_violations("graph", "import os.path, numpy as np\n", set()) == []


def _layer_source(name: str) -> str:
    """A layer's source: its module, or a package's ``__init__``."""
    path = SRC / f"{name}.py"
    return path.read_text() if path.exists() else (SRC / name / "__init__.py").read_text()


def test_the_policy_layers_import_only_downward():
    found = [v for name, allowed in LAYERS.items()
             for v in layer_violations(name, _layer_source(name), allowed)]
    parts = SRC / "policy"
    found += [v for i, part in enumerate(POLICY_PARTS) for v in layer_violations(
        f"policy.{part}", (parts / f"{part}.py").read_text(), set(POLICY_PARTS[:i]))]
    assert not found, found
    # a new part of the policy names its place in the order
    assert {p.stem for p in parts.glob("*.py")} == {"__init__", *POLICY_PARTS}
    layered = {p.stem for p in [*SRC.glob("core*.py"), *SRC.glob("books*.py")]}
    assert layered <= set(LAYERS), layered - set(LAYERS)  # a new core or books file names its layer


# The house's line limit (pyproject's ruff line-length), checked here too: CI runs no ruff.
LINE_LIMIT = 100


def long_lines(source: str, limit: int = LINE_LIMIT) -> list[int]:
    """Line numbers of ``source``'s lines longer than ``limit`` columns."""
    return [n for n, line in enumerate(source.splitlines(), 1) if len(line) > limit]


def test_the_check_finds_a_long_line():
    assert long_lines("x = 1\n" + "y = " + "1" * 97 + "\n") == [2]
    assert long_lines("y = " + "1" * 96 + "\n") == []
    core = (SRC / "core.py").read_text()
    assert long_lines(core + "# " + "x" * 99 + "\n") == [core.count("\n") + 1]


def test_src_lines_stay_within_the_limit():
    found = [f"{p.relative_to(SRC)}:{n}" for p in sorted(SRC.rglob("*.py"))
             for n in long_lines(p.read_text())]  # fmt: skip
    assert not found, f"lines over {LINE_LIMIT} columns (rewrap them):\n" + "\n".join(found)


REPO = Path(__file__).resolve().parents[1]


def checked_scripts() -> list[Path]:
    """tests/ and bench/'s scripts (Python and shell; bench/results/ holds past sessions'
    records, kept as they were)."""
    bench = REPO / "bench"
    scripts = [p for ext in ("*.py", "*.sh") for p in bench.rglob(ext)
               if bench / "results" not in p.parents]  # fmt: skip
    return sorted((REPO / "tests").rglob("*.py")) + sorted(scripts)


def test_tests_and_bench_lines_stay_within_the_limit():
    files = checked_scripts()
    assert REPO / "tests" / "test_architecture.py" in files
    assert REPO / "bench" / "plugin_fingerprints.py" in files  # (not an empty glob)
    found = [f"{p.relative_to(REPO)}:{n}" for p in files for n in long_lines(p.read_text())]
    assert not found, f"lines over {LINE_LIMIT} columns (rewrap them):\n" + "\n".join(found)
