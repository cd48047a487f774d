"""The layout's rules, checked on the source (issue 9 item 4: one policy, written once).

The bodies (core.py: the thread runtime; distributed/: the plugin, which the twin in sim/
runs unchanged) read the books (books.py) only through their public API: no ``books._x``
outside books.py. A body that reads a private field of the books decides with state the
books do not promise to keep, and a change made in the books silently misses it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tidegate

SRC = Path(tidegate.__file__).parent


def _body_files() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.name != "books.py")


def _names_books(node: ast.AST) -> bool:
    """Is ``node`` an expression naming a Books: ``books``, ``self.books``,
    ``plugin.books``, ``self._books`` (any name or attribute ending in "books")?"""
    if isinstance(node, ast.Name):
        return node.id.lower().endswith("books")
    if isinstance(node, ast.Attribute):
        return node.attr.lower().endswith("books")
    return False


def books_privates_read(source: str) -> list[tuple[int, str]]:
    """(line, ``expr._attr``) of every private attribute of a Books read or written in
    ``source`` (``__dunder__`` aside)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__") and _names_books(node.value):  # fmt: skip
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_check_finds_a_private_read():
    code = "def f(self, books, plugin):\n    return books._owed, self.books._live, plugin.books._x\n"
    assert [x for _, x in books_privates_read(code)] == \
        ["books._owed", "self.books._live", "plugin.books._x"]  # fmt: skip
    assert books_privates_read("books.owed, self.books.carrying, books.__class__") == []


def test_no_body_reads_a_books_private():
    files = _body_files()
    assert any(p.name == "core.py" for p in files)
    assert any(p.parent.name == "distributed" for p in files)
    found = [f"{p.relative_to(SRC)}:{line}: {expr}" for p in files
             for line, expr in books_privates_read(p.read_text())]  # fmt: skip
    assert not found, "bodies read the books' private fields (add a public read):\n" + \
        "\n".join(found)  # fmt: skip


# The decision layers and what each may import besides the standard library and numpy
# (the layout's import rule: downward only; no dask, no I/O beneath the bodies).
LAYERS = {
    "graph": set(),
    "policy": set(),
    "books": {"policy"},
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
    """Top-level names of every module ``source`` imports (``.x`` for a relative one)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                mods = [node.module] if node.module else [a.name for a in node.names]
                out |= {"." + m.split(".")[0] for m in mods}
            else:
                out.add(node.module.split(".")[0])
    return out


def test_the_policy_layers_import_only_downward():
    import sys

    for name, allowed in LAYERS.items():
        found = _imports((SRC / f"{name}.py").read_text())
        outside = {m for m in found if not m.startswith(".")
                   and m not in sys.stdlib_module_names and m not in ("numpy", "__future__")}
        assert not outside, (name, outside)
        up = {m[1:] for m in found if m.startswith(".")} - allowed
        assert not up, (name, up)


# The house's line limit (pyproject's ruff line-length), checked here too: CI runs no ruff.
LINE_LIMIT = 100


def long_lines(source: str, limit: int = LINE_LIMIT) -> list[int]:
    """Line numbers of ``source``'s lines longer than ``limit`` columns."""
    return [n for n, line in enumerate(source.splitlines(), 1) if len(line) > limit]


def test_the_check_finds_a_long_line():
    assert long_lines("x = 1\n" + "y = " + "1" * 97 + "\n") == [2]
    assert long_lines("y = " + "1" * 96 + "\n") == []


def test_src_lines_stay_within_the_limit():
    found = [f"{p.relative_to(SRC)}:{n}" for p in sorted(SRC.rglob("*.py"))
             for n in long_lines(p.read_text())]  # fmt: skip
    assert not found, f"lines over {LINE_LIMIT} columns (rewrap them):\n" + "\n".join(found)
