"""The plugin's queue lines (distributed/lines.py): best priority first, by identity,
whatever form the priorities take, stale entries dropped."""

import random
from types import SimpleNamespace

import pytest

from tidegate.distributed.lines import _Line, _Lines


def _walk(line, rng, steps, other_form):
    """Random adds, discards and peeks against a reference: the best is the least
    (priority, order added)."""
    ref = {}
    for step in range(steps):
        op = rng.random()
        if op < 0.5:
            key = rng.randrange(300)
            if key in ref:
                continue
            p = (0, rng.randrange(3), rng.randrange(10**6))
            if other_form and rng.random() < 0.02:
                p = p[:2]  # a prefix of the others
            ts = SimpleNamespace(key=key, priority=p)
            line.add(ts)
            line.add(ts)  # (again: no second entry)
            ref[key] = (ts, step)
        elif op < 0.8 and ref:
            key = rng.choice(sorted(ref))
            line.discard(ref.pop(key)[0])
        elif ref:
            best = min(ref.values(), key=lambda v: (v[0].priority, v[1]))[0]
            assert line.peek() is best
        assert len(line) == len(ref)


@pytest.mark.parametrize("other_form", [False, True])
def test_a_line_gives_the_best_priority_first(other_form):
    rng = random.Random(7)
    for _ in range(20):
        _walk(_Line(), rng, 3000, other_form)  # (3,000 steps: the stale heap is rebuilt)


def test_a_line_drops_stale_entries():
    line = _Line()
    tasks = [SimpleNamespace(key=i, priority=(0, 1, -i)) for i in range(3000)]
    for ts in tasks:
        line.add(ts)
    for ts in tasks[:2900]:
        line.discard(ts)
    assert line.peek() is tasks[2999] and len(line) == 100
    line.add(SimpleNamespace(key="x", priority=(0, 1)))  # a prefix: before the others
    assert line.peek().key == "x"


def test_lines_read_the_roots_cache_before_asking():
    asked = []

    def is_root(ts):
        asked.append(ts.key)
        return ts.key.startswith("r")

    cache = {"r1": True, "o1": False}
    lines = _Lines(is_root, cache)
    for key in ("r1", "o1", "r2"):
        lines.add(SimpleNamespace(key=key, priority=(0, 0, len(asked))))
    assert asked == ["r2"]
    assert lines.has_roots() and len(lines) == 3
