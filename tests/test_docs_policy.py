"""docs/policy.md names the policy's rules, switches and tests by their code names: a rename
that leaves the page behind fails here, not in a reader's grep."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _words(paths) -> set:
    return {w for p in paths for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", p.read_text())}


def test_every_code_name_in_docs_policy_exists():
    doc = (ROOT / "docs" / "policy.md").read_text()
    names = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_.]*)(?:\(\))?`", doc))
    tests = sorted((ROOT / "tests").glob("*.py"))
    known = _words(sorted((ROOT / "src" / "tidegate").rglob("*.py")) + tests)
    known |= {p.stem for p in tests} | {"py"}
    missing = sorted(n for n in names
                     if not re.fullmatch(r"[0-9a-f]{7,40}", n)  # a commit
                     and any(part and part not in known for part in n.split(".")))
    assert len(names) > 100  # the page still names its rules
    assert not missing, missing


def test_every_test_named_in_docs_policy_exists():
    doc = (ROOT / "docs" / "policy.md").read_text()
    named = set(re.findall(r"\b(test_[A-Za-z0-9_]+)\b", doc))
    tests = sorted((ROOT / "tests").glob("*.py"))
    defined = {m for p in tests for m in re.findall(r"^\s*def (test_\w+)", p.read_text(), re.M)}
    defined |= {p.stem for p in tests}
    assert named, "the page names the tests that fail without its rules"
    assert not sorted(named - defined), sorted(named - defined)
