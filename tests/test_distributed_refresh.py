"""The timer's look at every worker (Plugin._refresh_all) by set operations
(_refresh_some) does what the look at each worker in turn (_refresh_each) does: the same
looks and wakes, in the same order."""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st
from sortedcontainers import SortedDict

from tidegate.distributed import hooks


class _W:  # a WorkerState: hashed by identity
    pass


class _Fake:
    """The state _refresh_some/_refresh_each read, with _refresh and _wake that record
    their calls and change that state as the plugin's do."""

    def __init__(self, n, looked, booked, changed, open_, parked) -> None:
        self.workers = SortedDict((f"w{i:02d}", _W()) for i in range(n))
        self.running = set(self.workers.values())
        self.books = SimpleNamespace(
            workers={a: SimpleNamespace(budget=math.inf) for a in booked if a in self.workers},
            changed=set(changed))
        self._looked = dict(looked)
        self._open = set(open_)
        self._waiting_on: dict = {}
        for task, on in enumerate(parked):  # a root parked on its partners' workers
            for a in on:
                self._waiting_on.setdefault(a, set()).add(task)
        self.calls: list = []

    def _wake(self, k) -> None:
        self.calls.append(("wake", k))
        for task in list(self._waiting_on.get(k, ())):
            for a in [a for a, w in self._waiting_on.items() if task in w]:
                self._waiting_on[a].discard(task)
                if not self._waiting_on[a]:
                    del self._waiting_on[a]

    def _refresh(self, addr) -> None:
        self.calls.append(("refresh", addr))
        self._looked[addr] = True
        self._open.add(addr) if int(addr[1:]) % 3 else self._open.discard(addr)
        if addr in self._open and addr in self._waiting_on:
            self._wake(addr)


addrs = st.sampled_from([f"w{i:02d}" for i in range(12)])


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.dictionaries(addrs, st.booleans()), st.sets(addrs),
       st.sets(addrs), st.sets(addrs), st.lists(st.sets(addrs, min_size=1, max_size=3)))
def test_refresh_by_sets_looks_and_wakes_as_each_worker_in_turn(
        n, looked, booked, changed, open_, parked):  # fmt: skip
    some = _Fake(n, looked, booked, changed, open_, parked)
    each = copy.deepcopy(some)
    k1 = hooks.Plugin._refresh_some(some, some.workers, some._looked, some.books.changed)
    k2 = hooks.Plugin._refresh_each(each, each.workers, each.running, each.books.workers,
                                    each._looked, each.books.changed)  # fmt: skip
    assert k1 == k2
    assert some.calls == each.calls
    assert (some._looked, some._open, some._waiting_on) == \
        (each._looked, each._open, each._waiting_on)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.sets(addrs), st.sets(addrs),
       st.lists(st.sets(addrs, min_size=1, max_size=3)), st.booleans())
def test_refresh_of_the_usual_tick_looks_and_wakes_as_each_worker_in_turn(
        n, changed, open_, parked, limited):  # fmt: skip
    """Every worker looked at before, running then and booked (_refresh_some's shortcut,
    found from the changed workers and those with parked roots): as in turn."""
    names = [f"w{i:02d}" for i in range(n)]
    some = _Fake(n, dict.fromkeys(names, True), names, changed, open_, parked)
    if limited:  # a task parked on a full limit: not a worker
        some._waiting_on[("limit", "io")] = {"t"}
    each = copy.deepcopy(some)
    k1 = hooks.Plugin._refresh_some(some, some.workers, some._looked, some.books.changed)
    k2 = hooks.Plugin._refresh_each(each, each.workers, each.running, each.books.workers,
                                    each._looked, each.books.changed)  # fmt: skip
    assert k1 == k2 == n
    assert some.calls == each.calls
    assert (some._looked, some._open, some._waiting_on) == \
        (each._looked, each._open, each._waiting_on)  # fmt: skip


class _Looked:
    """The state Admission._refresh reads for one running worker, booked in real Books;
    _set_free and _set_count recorded."""

    def __init__(self, books) -> None:
        self.ws = SimpleNamespace(nbytes=0)
        self.scheduler = SimpleNamespace(workers={"w": self.ws}, running={"w"})
        self.books, self._plain = books, True
        self._looked: dict = {}
        self._open: set = set()
        self._epoch = 0
        self._free_key: dict = {}
        self._count: dict = {}
        self._idle: set = set()
        self._waiting_on: dict = {}
        self._uneven = False
        self._blocked, self._blocked_tail = None, False  # (TAIL_THREAD_FREE's epoch)
        self.free = self.count = None

    def _set_free(self, addr, key) -> None:
        self.free = key

    def _set_count(self, addr, count) -> None:
        self.count = count


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 6), st.booleans(), st.integers(0, 6), st.integers(0, 6),
       st.sampled_from([1.0, 3.0, math.inf]), st.integers(0, 4), st.integers(0, 4),
       st.sampled_from([4.0, 10.0, math.inf]), st.integers(1, 4))
def test_refresh_opens_as_may_take_some_says(processing, expecting, rp, ru, cap, held,
                                             estimated, budget, threads):  # fmt: skip
    """Admission._refresh opens a worker exactly where books.may_take_some says it may
    take some, and makes it free where it may progress or has slots left under its
    budget."""
    from tidegate.books import Books

    books = Books()
    book = books.add_worker("w", threads, budget)
    book.processing, book.roots_processing, book.roots_untouched = processing, rp, ru
    book.cap, book.estimated = cap, float(estimated)
    books.expecting = frozenset({"w"}) if expecting else frozenset()
    fake = _Looked(books)
    fake.ws.nbytes = held
    hooks.Plugin._refresh(fake, "w")
    opens = books.may_take_some("w")
    assert ("w" in fake._open) == opens
    idle = processing == 0 and not expecting
    free = opens and (idle or (rp + ru < cap and held + estimated < budget))
    assert (fake.free is not None) == free
