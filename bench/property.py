"""The core's state machine (tests/test_core_stateful.py) at scale: many random graphs.

CI runs a few hundred examples, derandomized; this runs as many as asked, at random
(``--seed`` to replay), and reports how many graphs, tasks, steps and events were checked
against DESIGN.md's invariants. A failure prints hypothesis' shrunk example and exits 1.

    python bench/property.py [--examples 10000] [--steps 60] [--seed N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import sys
import time
import traceback

import hypothesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from rich.console import Console
from rich.table import Table

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "test_core_stateful.py")


def load_machine():
    spec = importlib.util.spec_from_file_location("test_core_stateful", TESTS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CoreMachine


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--examples", type=int, default=10_000)
    p.add_argument("--steps", type=int, default=60, help="max rule steps per example")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    p.add_argument("--json", default=os.path.join(HERE, "results", "property.json"))
    a = p.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(2**32)
    machine = load_machine()
    for k in machine.totals:
        machine.totals[k] = 0
    s = settings(
        max_examples=a.examples,
        stateful_step_count=a.steps,
        deadline=None,
        database=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    console = Console()
    console.print(f"hypothesis {hypothesis.__version__}: {a.examples} examples, seed {seed}")
    t0 = time.perf_counter()
    error = None
    try:
        hypothesis.seed(seed)(lambda: run_state_machine_as_test(machine, settings=s))()
    except Exception as exc:  # noqa: BLE001 - reported below and in the JSON
        error = f"{type(exc).__name__}: {exc}"
        detail = "".join(traceback.format_exception(exc))  # with hypothesis' shrunk example
        print(detail, file=sys.stderr)
    wall = time.perf_counter() - t0
    totals = dict(machine.totals)
    table = Table(title=f"core state machine, {a.examples} examples, {wall:.0f} s")
    table.add_column("checked")
    table.add_column("count", justify="right")
    for k, v in totals.items():
        table.add_row(k, f"{v:,}")
    console.print(table)
    console.print("[red]FAILED[/red]: " + error if error else "all invariants held")
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"examples": a.examples, "steps": a.steps, "seed": seed, "wall_time": wall,
                   "totals": totals, "passed": error is None, "error": error,
                   "falsifying": detail[-6000:] if error else None,
                   "hypothesis": hypothesis.__version__, "python": platform.python_version()},
                  f, indent=1)  # fmt: skip
    console.print(f"wrote {a.json}")
    sys.exit(1 if error else 0)


if __name__ == "__main__":
    main()
