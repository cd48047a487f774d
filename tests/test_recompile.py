"""tidegate.distributed.recompile copies a function only from the source that compiles to
the code running, and a copy that fails to compile leaves dask's method in place."""

from __future__ import annotations

import importlib
import linecache
import sys

import pytest

pytest.importorskip("distributed")
from distributed.scheduler import SchedulerState  # noqa: E402

from tidegate.distributed import holders, recompile, trim  # noqa: E402


HEAD = 'from __future__ import annotations\n\n\ndef check(ws):\n    """doc"""\n'


def _module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)  # (like dask's modules, with postponed annotations)
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name), path
    finally:
        sys.path.remove(str(tmp_path))


@pytest.mark.parametrize("edit", [
    ("ws.nthreads * 1.9", "ws.nthreads * 7.5"),   # a constant: same bytecode
    ("ws.nthreads * 1.9", "ws.nworkers * 1.9"),   # an attribute name: same bytecode
])  # fmt: skip
def test_an_edited_source_is_not_copied(tmp_path, edit):
    name = f"stand_in_{abs(hash(edit))}"
    mod, path = _module(tmp_path, name, HEAD + f"    return {edit[0]}\n")
    assert recompile.source(mod.check) is not None  # the file as imported: copied
    path.write_text(HEAD + f"    return {edit[1]}\n")
    linecache.checkcache()
    assert recompile.source(mod.check) is None


def test_dask_s_methods_compile_to_their_running_code():
    for fn in (SchedulerState._task_to_msg, SchedulerState.check_idle_saturated):
        tree, _, filename = recompile.source(fn)
        copy = recompile.run(tree, filename, fn)[fn.__name__]
        assert recompile.same_code(copy.__code__, fn.__code__)


def test_a_copy_that_fails_keeps_dask_s_method(monkeypatch):
    def broken(fn, tree, fdef, filename):
        raise NameError("a default naming a class constant")

    for module in (trim, holders):
        monkeypatch.setattr(module, "_compile", broken)
        made: dict = {}
        monkeypatch.setattr(module, "_made", made)
        fn = SchedulerState.check_idle_saturated
        make = trim.without_idle_task_count if module is trim else holders.task_to_msg
        assert make(fn) is None and made == {fn: None}
