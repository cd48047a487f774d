"""The supported distributed releases are stated in three places that must agree: the
``distributed`` extra's pin in pyproject.toml, ``tidegate.distributed.SUPPORTED`` (what
``check_compatible`` warns outside of), and .ci/distributed-lowest, which installs the
lowest release the pin allows and runs the plugin's and the twin's tests on it."""

from __future__ import annotations

import re
import tomllib
import warnings
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
from packaging.requirements import Requirement  # noqa: E402
from packaging.version import Version  # noqa: E402

import tidegate.distributed as td  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _pin():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["distributed"]  # fmt: skip
    (req,) = [Requirement(r) for r in extras if Requirement(r).name == "distributed"]
    lower = [Version(s.version) for s in req.specifier if s.operator == ">="]
    upper = [Version(s.version) for s in req.specifier if s.operator == "<"]
    return lower, upper


def test_supported_is_the_pin():
    lower, upper = _pin()
    assert lower == [td.SUPPORTED[0]] and upper == [td.SUPPORTED[1]]


def test_ci_runs_the_plugin_on_the_lowest_release_the_pin_allows():
    script = (ROOT / ".ci" / "distributed-lowest").read_text()
    assert re.findall(r"^LOWEST=(\S+)$", script, re.M) == [str(td.SUPPORTED[0])]
    assert '"distributed==$LOWEST"' in script and '"dask[array,dataframe]==$LOWEST"' in script
    # the plugin's test files and the twin's that drive dask's state machines run there
    # (thread-runtime ones and the twin's process/CLI plumbing need not)
    for pattern in ("test_distributed*.py", "test_plugin_*.py", "test_sim.py",
                    "test_sim_model.py", "test_annotations_distributed.py",
                    "test_annotations_twin.py"):  # fmt: skip
        assert list((ROOT / "tests").glob(pattern)), pattern
        assert f"tests/{pattern}" in script, pattern


def test_check_compatible_warns_only_outside_the_supported_releases(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        td.check_compatible(distributed.Scheduler)  # the running release is supported
    for version, older in (("2025.3.0", True), ("2027.1.0", False)):
        monkeypatch.setattr(distributed, "__version__", version)
        with pytest.warns(UserWarning, match=f"not {version}") as got:
            td.check_compatible(distributed.Scheduler)
        assert ("annotations on fused graphs" in str(got[0].message)) is older
