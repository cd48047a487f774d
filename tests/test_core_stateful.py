"""The core as a hypothesis state machine: random graphs, budgets and interleavings.

Each example draws a graph shape (chains, fans, diamonds, loaders sharing a constant,
stencils, tree reductions, random mixes, or several of them side by side), a priority
order, per-task output sizes, per-worker threads and budgets (tiny budgets force
spilling), a saturation and a policy. The rules then feed the core what a runtime would:
one task finished, a batch finished at once, a task failed (rarely), Ctrl-C (rarely), an
empty stimulus. After every step the invariants of DESIGN.md are checked from OUTSIDE the
core, against a model kept here from the actions alone (plus ``validate_state()``):

- every task runs at most once, and at the end of a clean run exactly once;
- a task starts only when all its inputs are finished, held and in memory (a Load comes
  before the Run; never an input on disk or released);
- a result is released exactly when it is not an output and no pending task needs it;
- roots running per worker <= ceil(saturation x threads) (never exceeded, idle or not);
- bytes in memory per worker <= budget + bytes of its results pinned by running tasks;
- no deadlock: work remains and nothing failed or was cancelled => something runs;
- after a failure or Ctrl-C nothing new starts.

``bench/property.py`` runs the same machine for many more examples.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tidegate.core import Failed, Finished, Load, Release, Run, Scheduler, Spill
from tidegate.graph import TaskGraph
from tidegate.policy import SHARED_FANOUT, Policy, find_roots

SIZES = [0, 1, 10, 100, 1000, 5000]
BUDGETS = [math.inf, 1e5, 5000.0, 1000.0, 300.0, 1.0]
SATURATIONS = [0.1, 0.5, 1.0, 1.1, 2.0, math.inf]

# model states of a task
PENDING, RUNNING, MEM, DISK, RELEASED, FAILED = "pending running mem disk released failed".split()


# -- graph shapes -----------------------------------------------------------------------
# Each builder gets ``draw`` and the first free index, returns ({task: deps}, constants).
def _chain(draw, base):
    n = draw(st.integers(1, 12))
    return {base + i: [base + i - 1] if i else [] for i in range(n)}, set()


def _fan_out(draw, base):
    n = draw(st.integers(1, 14))  # >= SHARED_FANOUT makes the source a shared handle
    deps = {base: []}
    deps.update({base + 1 + i: [base] for i in range(n)})
    if draw(st.booleans()):
        deps[base + n + 1] = [base + 1 + i for i in range(n)]
    return deps, set()


def _fan_in(draw, base):
    n = draw(st.integers(1, 12))
    deps = {base + i: [] for i in range(n)}
    deps[base + n] = list(range(base, base + n))
    return deps, set()


def _diamonds(draw, base):
    k = draw(st.integers(1, 5))
    deps = {base: []}
    top = base
    for j in range(k):
        left, right, bottom = top + 1, top + 2, top + 3
        deps[left], deps[right], deps[bottom] = [top], [top], [left, right]
        top = bottom
    return deps, set()


def _shared_roots(draw, base):
    """Loaders reading one constant (a DataNode: a store handle), combined in pairs, then
    summed: the loaders are roots although each has an input."""
    n = draw(st.integers(2, 14))
    handle = base
    deps = {handle: []}
    loads = [base + 1 + i for i in range(n)]
    for i in loads:
        deps[i] = [handle]
    nxt = base + 1 + n
    pairs = []
    for j in range(0, n - 1, 2):
        deps[nxt] = [loads[j], loads[j + 1]]
        pairs.append(nxt)
        nxt += 1
    if len(pairs) > 1 and draw(st.booleans()):
        deps[nxt] = pairs
    return deps, {handle}


def _stencil(draw, base):
    """Each output needs two neighbouring loads (offset slices of an array)."""
    n = draw(st.integers(2, 12))
    deps = {base + i: [] for i in range(n)}
    for i in range(n - 1):
        deps[base + n + i] = [base + i, base + i + 1]
    return deps, set()


def _tree(draw, base):
    n = draw(st.integers(1, 20))
    arity = draw(st.integers(2, 4))
    deps = {base + i: [] for i in range(n)}
    layer, nxt = list(range(base, base + n)), base + n
    while len(layer) > 1:
        new = []
        for j in range(0, len(layer), arity):
            deps[nxt] = layer[j : j + arity]
            new.append(nxt)
            nxt += 1
        layer = new
    return deps, set()


def _mix(draw, base):
    n = draw(st.integers(1, 25))
    deps = {}
    for i in range(n):
        k = draw(st.integers(0, min(i, 4)))
        picked = draw(st.lists(st.integers(0, i - 1), min_size=k, max_size=k)) if i else []
        deps[base + i] = sorted({base + d for d in picked})
    constants = {base + i for i in range(n) if not deps[base + i] and draw(st.integers(0, 5)) == 0}
    return deps, constants


SHAPES = {
    "chain": _chain, "fan-out": _fan_out, "fan-in": _fan_in, "diamonds": _diamonds,
    "shared-roots": _shared_roots, "stencil": _stencil, "tree": _tree, "mix": _mix,
}  # fmt: skip


@st.composite
def graphs(draw):
    """(deps, outputs, constants, marked, shapes): one to three shapes side by side."""
    deps: dict = {}
    constants: set = set()
    shapes = draw(st.lists(st.sampled_from(sorted(SHAPES)), min_size=1, max_size=3))
    for name in shapes:
        d, c = SHAPES[name](draw, len(deps))
        deps.update(d)
        constants |= c
    n = len(deps)
    has_dependents = {d for ds in deps.values() for d in ds}
    sinks = [i for i in range(n) if i not in has_dependents]
    outputs = draw(st.lists(st.sampled_from(sinks), min_size=1, max_size=len(sinks), unique=True))
    outputs += draw(st.lists(st.sampled_from(range(n)), max_size=2, unique=True))
    outputs = list(dict.fromkeys(outputs))
    marked = set(draw(st.lists(st.sampled_from(range(n)), max_size=2, unique=True)))
    return deps, outputs, constants, marked, shapes


def expected_roots(deps: dict, constants: set, marked: set) -> list[bool]:
    """DESIGN.md's root, computed here independently of policy.find_roots."""
    fanout = {i: 0 for i in deps}
    for ds in deps.values():
        for d in ds:
            fanout[d] += 1

    def constant(d):  # a constant, or a shared handle: inputs all constants, wide fan-out
        return d in constants or (all(e in constants for e in deps[d])
                                  and fanout[d] >= SHARED_FANOUT)  # fmt: skip

    return [i in marked or all(constant(d) for d in deps[i]) for i in range(len(deps))]


def test_a_handle_opened_from_a_constant_makes_its_readers_roots():
    """``h = open(path)`` with ``path`` a DataNode, read by 8 tasks: h is a shared handle,
    its readers roots (policy.find_roots), in the oracle too (bench/property.py, seed 104,
    found the oracle counting only input-less handles)."""
    deps = {0: [], 1: [], 2: [1], 3: [2, 1], **{i: [2, 1] for i in range(4, 11)}}
    g = TaskGraph.from_dependencies(deps, [0])
    constant = np.zeros(len(g), bool)
    constant[1] = True
    roots = find_roots(g.dep_ptr, g.dep_idx, g.ndependents, constant, np.zeros(len(g), bool))
    assert roots.tolist() == expected_roots(deps, {1}, set())
    assert roots[3:].all()


# -- the machine ------------------------------------------------------------------------
class CoreMachine(RuleBasedStateMachine):
    """Drives one core per example; counts what it did in class-level totals (for the bench)."""

    totals = {"graphs": 0, "tasks": 0, "steps": 0, "events": 0, "runs": 0, "spills": 0,
              "loads": 0, "failures": 0, "cancels": 0, "completed": 0}  # fmt: skip

    @initialize(
        graph=graphs(),
        order=st.sampled_from(["dfs", "random"]),
        workers=st.lists(
            st.tuples(st.integers(1, 4), st.sampled_from(BUDGETS)), min_size=1, max_size=3
        ),
        saturation=st.sampled_from(SATURATIONS),
        policy=st.sampled_from(["tidegate", "tidegate", "tidegate", "priority"]),
        chain_keep=st.sampled_from([0.25, 0.25, 0.0, math.inf]),
        may_fail=st.sampled_from([False] * 5 + [True]),
        may_cancel=st.sampled_from([False] * 7 + [True]),
        seed=st.integers(0, 2**32 - 1),
    )
    def setup(self, graph, order, workers, saturation, policy, chain_keep, may_fail, may_cancel,
              seed):  # fmt: skip
        deps, outputs, constants, marked, self.shapes = graph
        g = TaskGraph.from_dependencies(deps, outputs)
        n = len(g)
        constant = np.zeros(n, bool)
        constant[list(constants)] = True
        mark = np.zeros(n, bool)
        mark[list(marked)] = True
        g.root = find_roots(g.dep_ptr, g.dep_idx, g.ndependents, constant, mark)
        g.constant = constant  # not counted as a consumer's input (as the plugin does)
        assert g.root.tolist() == expected_roots(deps, constants, marked)
        rng = random.Random(seed)
        if order == "random":
            g.set_order(np.array(rng.sample(range(n), n)))
        g.set_groups([f"g{i % 3}" for i in range(n)])
        self.rng = rng
        self.size = [rng.choice(SIZES) for _ in range(n)]
        # Some roots know their size in advance (array chunk metadata), within every budget.
        smallest = min(b for _, b in workers)
        for i in range(n):
            if g.root[i] and self.size[i] <= smallest and rng.random() < 0.3:
                g.size[i] = self.size[i]
        self.g = g
        self.deps = [g.dependencies(i) for i in range(n)]
        self.dependents = [g.dependents(i) for i in range(n)]
        self.outputs = set(g.outputs.tolist())
        self.policy = Policy(policy, saturation, chain_keep=chain_keep)
        self.budgets = [b for _, b in workers]
        self.caps = [self.policy.root_cap(t) for t, _ in workers]
        self.roots = g.root.tolist() if self.policy.withholds else [False] * n
        self.may_fail, self.may_cancel = may_fail, may_cancel
        self.core = Scheduler(g, workers, self.policy, validate=True)
        self.state = [PENDING] * n
        self.where = [-1] * n
        self.ran = [0] * n
        self.running: list[int] = []
        self.failed = self.cancelled = False
        self.steps = 0
        self.totals["graphs"] += 1
        self.totals["tasks"] += n
        actions = self.core.start()
        self.apply(actions)

    # -- the model: apply the core's actions, checking each ---------------------------
    def apply(self, actions) -> None:
        for a in actions:
            i = a.task
            if type(a) is Run:
                assert not (self.failed or self.cancelled), f"task {i} started after a stop"
                assert self.state[i] == PENDING and self.ran[i] == 0, f"task {i} runs twice"
                for d in self.deps[i]:
                    assert self.state[d] == MEM, f"task {i} started with input {d} {self.state[d]}"
                assert 0 <= a.worker < len(self.budgets)
                self.state[i], self.where[i] = RUNNING, a.worker
                self.ran[i] += 1
                self.running.append(i)
                self.totals["runs"] += 1
            elif type(a) is Spill:
                assert self.state[i] == MEM and a.worker == self.where[i]
                assert not self._pinned(i), f"spilled {i}, an input of a running task"
                self.state[i] = DISK
                self.totals["spills"] += 1
            elif type(a) is Load:
                assert self.state[i] == DISK and a.worker == self.where[i]
                self.state[i] = MEM
                self.totals["loads"] += 1
            else:
                assert type(a) is Release
                assert self.state[i] in (MEM, DISK), f"released {i} while {self.state[i]}"
                assert i not in self.outputs, f"released output {i}"
                assert not self._needed(i), f"released {i}, still needed"
                self.state[i] = RELEASED

    def _pinned(self, i) -> bool:
        return any(self.state[d] == RUNNING for d in self.dependents[i])

    def _needed(self, i) -> bool:
        return any(self.state[d] in (PENDING, RUNNING) for d in self.dependents[i])

    def _finish(self, i, nbytes=None) -> list:
        self.running.remove(i)
        self.state[i] = MEM
        return [Finished(i, self.size[i] if nbytes is None else nbytes)]

    # -- rules ------------------------------------------------------------------------
    @precondition(lambda self: self.running)
    @rule(data=st.data())
    def finish_one(self, data):
        i = data.draw(st.sampled_from(self.running), label="task")
        size = self.size[i] if not math.isnan(self.g.size[i]) else data.draw(
            st.sampled_from([self.size[i], *SIZES]), label="nbytes"
        )
        self.size[i] = size
        self._step(self._finish(i, size))

    @precondition(lambda self: len(self.running) > 1)
    @rule(data=st.data())
    def finish_batch(self, data):
        """Several completions in one handle_many, as the thread runtime batches them."""
        batch = data.draw(
            st.lists(st.sampled_from(self.running), min_size=2, unique=True), label="batch"
        )
        events = [e for i in batch for e in self._finish(i)]
        self._step(events)

    @precondition(lambda self: self.running and self.may_fail)
    @rule(data=st.data())
    def fail_one(self, data):
        i = data.draw(st.sampled_from(self.running), label="task")
        self.running.remove(i)
        self.state[i] = FAILED
        self.failed = True
        self.totals["failures"] += 1
        self._step([Failed(i)])

    @precondition(lambda self: self.may_cancel and not self.cancelled)
    @rule()
    def cancel(self):
        self.core.cancel()
        self.cancelled = True
        self.totals["cancels"] += 1

    @rule()
    def empty_stimulus(self):
        """Nothing happened (always enabled): the core has nothing new to say. After every
        event the core settles (spill, then fill, until nothing starts), so a free thread
        with an admissible task left idle until some later event shows up here."""
        actions = self.core.handle_many([])
        assert actions == [], f"an empty stimulus started work: {actions}"

    def _step(self, events) -> None:
        self.steps += 1
        self.totals["events"] += len(events)
        actions = self.core.handle_many(events)
        self.apply(actions)

    # -- invariants, after every step --------------------------------------------------
    @invariant()
    def core_agrees_with_model(self):
        core = self.core
        core.validate_state()
        assert core.n_running == len(self.running)
        assert core.n_finished == sum(s in (MEM, DISK, RELEASED) for s in self.state)
        for w, worker in enumerate(core.workers):
            mine = [i for i, s in enumerate(self.state) if self.where[i] == w]
            assert worker.held == sum(self.size[i] for i in mine if self.state[i] == MEM)
            assert worker.spilled == sum(self.size[i] for i in mine if self.state[i] == DISK)
            assert worker.running == sum(self.state[i] == RUNNING for i in mine)

    @invariant()
    def released_exactly_when_unused(self):
        for i, s in enumerate(self.state):
            if s in (MEM, DISK):
                assert i in self.outputs or self._needed(i), f"{i} held but unused"

    @invariant()
    def roots_within_cap(self):
        for w, cap in enumerate(self.caps):
            roots = sum(1 for i in self.running if self.where[i] == w and self.roots[i])
            assert roots <= cap, f"worker {w}: {roots} roots running, cap {cap}"

    @invariant()
    def memory_within_budget(self):
        if self.failed or self.cancelled:
            return  # stopping: results of the tasks still running are simply dropped
        for w, budget in enumerate(self.budgets):
            mem = pinned = 0
            for i, s in enumerate(self.state):
                if s == MEM and self.where[i] == w:
                    mem += self.size[i]
                    pinned += self.size[i] if self._pinned(i) else 0
            assert mem <= budget + pinned, f"worker {w}: {mem} in memory, budget {budget}"

    @invariant()
    def no_deadlock(self):
        if not (self.failed or self.cancelled) and not self.core.done:
            assert self.running, "work remains but nothing runs"

    # -- end of an example: run it out, then check the outcome -------------------------
    def teardown(self):
        if not hasattr(self, "core"):
            return
        while self.running:  # finish what runs (a stopped run drains), in a random order
            i = self.running[self.rng.randrange(len(self.running))]
            self._step(self._finish(i))
            self.core_agrees_with_model()
            self.released_exactly_when_unused()
            self.roots_within_cap()
            self.memory_within_budget()
            self.no_deadlock()
        n = len(self.g)
        self.totals["steps"] += self.steps
        if self.failed or self.cancelled:
            assert self.core.n_running == 0
            assert not (self.failed and self.core.done)
            return
        self.totals["completed"] += 1
        assert self.core.done
        assert self.ran == [1] * n  # every task succeeded exactly once
        for i in range(n):
            if i in self.outputs:
                assert self.state[i] in (MEM, DISK)
            else:
                assert self.state[i] == RELEASED, (i, self.state[i])
        held = sum(w.held + w.spilled for w in self.core.workers)
        assert held == sum(self.size[i] for i in self.outputs)


CI_SETTINGS = settings(
    max_examples=300,
    derandomize=True,  # deterministic in CI; bench/property.py explores at random
    database=None,
    stateful_step_count=40,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.timeout(120)
def test_core_state_machine():
    run_state_machine_as_test(CoreMachine, settings=CI_SETTINGS)


def test_spill_then_fill():
    """Found by the state machine. Two threads, budget 1 byte: when task 1 finishes (10
    bytes, over budget) the over-budget spill moves it to disk, which makes room for root 2:
    the same stimulus starts it (the core spills before it fills), no thread waits for the
    next event."""
    deps = {0: [], 1: [0], 2: [], 3: [], 4: [1, 2]}
    g = TaskGraph.from_dependencies(deps, [3, 4])
    none = np.zeros(5, bool)
    g.root = find_roots(g.dep_ptr, g.dep_idx, g.ndependents, none, none)
    # chain_keep=inf: task 1 consumes root 0's data (no chain), so root 2 is estimated at
    # root 0's 0 bytes and fits once task 1's 10 bytes are on disk.
    core = Scheduler(g, [(2, 1.0)], Policy("tidegate", 1.0, chain_keep=math.inf), validate=True)
    assert core.start() == [Run(3, 0), Run(0, 0)]
    assert core.handle(Finished(0, 0)) == [Run(1, 0)]
    actions = core.handle(Finished(1, 10))
    assert actions == [Release(0, 0), Spill(1, 0), Run(2, 0)]
    assert core.handle_many([]) == []


def test_root_taken_by_another_worker_is_replaced_on_a_blocked_one():
    """Found by bench/property.py. Caps of 1 root in flight per worker. Worker 0 (2 threads)
    runs 2 and still holds root output 0, untouched: root 5, the head of the queue, may not
    start there, so its fill stops; worker 1 (idle) takes 5. Root 3 is now the head and
    completes consumer 4 (whose input 0 is held on worker 0), so worker 0 takes it in the
    same stimulus: blocked workers are visited again when the head changes."""
    deps = {0: [], 1: [], 2: [0, 1], 3: [], 4: [0, 3], 5: []}
    g = TaskGraph.from_dependencies(deps, [2, 4, 5])
    none = np.zeros(6, bool)
    g.root = find_roots(g.dep_ptr, g.dep_idx, g.ndependents, none, none)
    g.set_order(np.array([0, 1, 2, 4, 5, 3]))
    core = Scheduler(g, [(2, math.inf), (1, math.inf)], Policy("tidegate", 0.5), validate=True)
    assert core.start() == [Run(0, 0), Run(1, 1)]
    actions = core.handle_many([Finished(0, 10), Finished(1, 10)])
    assert actions == [Run(2, 0), Run(5, 1), Run(3, 0)]
    assert core.handle_many([]) == []


def test_shapes_build_valid_graphs():
    """Every shape builder yields a DAG the core completes (a quick smoke check)."""
    from hypothesis import given

    @settings(max_examples=40, deadline=None)
    @given(st.sampled_from(sorted(SHAPES)), st.data())
    def check(name, data):
        deps, constants = SHAPES[name](data.draw, 0)
        g = TaskGraph.from_dependencies(deps, [max(deps)])
        assert len(g) == len(deps)

    check()
