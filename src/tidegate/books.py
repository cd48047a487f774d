"""Per-worker books and the decisions read from them: written once, fed by every body.

Rules of this file:

- Pure: no dask, no clock, no I/O, no threads. Blind to the body: tasks and workers are
  opaque hashable ids (the core: ints; the dask plugin: keys and worker addresses).
- Bodies *report* (``on_run``, ``on_finished``, ``on_failed``, ``on_released``, worker
  changes) and *ask* (``admits``, ``may_take_some``, ``place``, ``estimate``). What a root is,
  when its slot frees, what "idle" means and what a root is expected to weigh are decided
  here and in the policy package, nowhere else.
- Every change is logged with the stimulus id of the event that caused it (a bounded log);
  ``story(task)`` prints a task's history.
- Written in three files: ``Books`` here (the reports, carriers, reservations, the log),
  its admission (``books_admission.BooksAdmission``: ``admits``, ``may_take_some`` ...)
  and its placement (``books_placement.BooksPlacement``: ``place``) as mixins beneath it.

Roots in flight, by the data they load (DESIGN.md, "roots in flight"): a root occupies a
slot on the worker it ran on from the moment it starts until the data it loaded has been
used. Its output is a *carrier* of that data; a task with a single input that keeps the
data's size (open -> read -> select) becomes a carrier in turn. The data counts as used
when a carrier is consumed by a task that combines it with other inputs or reduces it
(output below ``Policy.chain_keep`` of its input), or when every carrier is released. A
carrier whose data went on down a chain stops counting (its successor holds the data now)
but may still be extended by its other single-input dependents (an open feeding two reads).
A task that joins pieces of one array into an output as large (a rechunk's merge:
``policy.joins_pieces``) neither reduced nor combined the data: its output counts on its
worker as a root's loaded data does, until a consumer uses it.

Roots owed: a root whose data meets other roots' data that nobody loads yet (u-t placed,
v-t not) reserves those roots on its worker (``WorkerBook.owed``) until they are placed,
wherever, or its own data lands. A root that opens a new meeting must fit in the slots
left (``slots_used``); one that completes a meeting is admitted as before. Without the
reservation a worker opened ``cap`` meetings and then took their other roots past the
count, holding twice the data its threads could use.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from types import MappingProxyType

from . import policy as policy_module  # (switches read per decision: tests set them)
from .policy import (
    HANDLE_MAX_BYTES, Policy, estimate_output, holds_data,
    join_slot, joins_pieces, judged_again, keeps_data, keeps_read_on, rejudged_on,
)
from .books_admission import BooksAdmission
from .books_placement import BooksPlacement


LOG_SIZE = 100_000


_NO_RECORD = (None, 0.0, False, None)  # (worker, estimate, root, group) of no task


class InvalidTransition(ValueError):
    """A move the state table does not allow: raised at the bad move, with the task's story."""

    def __init__(self, key, start, finish, story=()):
        self.key, self.start, self.finish, self.story = key, start, finish, list(story)
        lines = "\n".join(f"  {entry}" for entry in self.story[-20:])
        super().__init__(
            f"invalid transition for task {key!r}: {start} -> {finish}"
            + (f"\nstory:\n{lines}" if lines else "")
        )


@dataclass(slots=True, eq=False)
class WorkerBook:
    """One worker's books. ``held`` and ``spilled`` are measured bytes the body reports (the
    core counts its results; the plugin copies dask's ``WorkerState.nbytes`` before it asks);
    everything else is kept by :class:`Books` from the reported events."""

    threads: int
    budget: float
    cap: float = math.inf
    processing: int = 0  # tasks processing here (the core: running)
    roots_processing: int = 0
    roots_untouched: int = 0  # roots run here whose loaded data no consumer has used yet
    estimated: float = 0.0  # estimated outputs of the tasks processing here
    consuming: int = 0  # consumers processing here whose inputs count as in use (<= threads)
    owed: int = 0  # roots that meetings opened here still lack (Books.place reserves them)
    passes: int = 0  # roots admitted here past the count by completing a consumer, in flight
    held: float = 0.0
    spilled: float = 0.0
    peak_held: float = 0.0
    # Bumped at every change of what Books._admits reads of this book (every field above
    # but spilled and peak_held): Books.place's remembered refusals hold while it stays.
    version: int = 0

    # Names used before books.py existed (bridge/local and tests read them).
    @property
    def running(self) -> int:
        return self.processing

    @property
    def roots_running(self) -> int:
        return self.roots_processing

    @property
    def held_bytes(self) -> float:
        """DESIGN.md's held bytes: measured results plus processing tasks' estimates."""
        return self.held + self.estimated

    @property
    def roots_in_flight(self) -> int:
        return self.roots_processing + self.roots_untouched

    @property
    def slots_used(self) -> int:
        """Roots in flight plus those owed: what a root opening a new meeting must fit in.
        Only admission counts the owed: counted also in which workers the plugin lists as
        free for roots and in their load order, they kept rechunk-add's other side off the
        opener's worker (twin 20x4, 3 of 4 seeds: peak 2.28 -> 2.66 GB)."""
        return self.roots_processing + self.roots_untouched + self.owed

    @property
    def idle(self) -> bool:
        """Nothing processing here: may always start its best task (progress)."""
        return self.processing == 0


class Limits:
    """Named concurrency limits (``dask.annotate(tidegate_limit="s3-read")``): at most
    ``caps[name]`` tasks counting against ``name`` processing at once, in the whole
    scheduler (all workers). Pure, like the books; the core and the dask plugin feed it.

    No deadlock, by construction: a task is withheld by a limit only while that limit is
    full (``count >= cap >= 1``), i.e. while a task of that limit is processing and will
    end; withheld tasks are kept apart (``hold``), so they never stand in front of
    unrelated work; when a task of ``name`` ends, ``on_done`` hands back the best withheld
    tasks of ``name`` for the body to offer again.
    """

    def __init__(self, caps: dict | None = None):
        self.caps: dict = {}
        for name, cap in (caps or {}).items():
            if isinstance(cap, bool) or int(cap) != cap or cap < 1:
                raise ValueError(f"limit {name!r} must be an integer >= 1, got {cap!r}")
            self.caps[name] = int(cap)
        self.count: dict = {name: 0 for name in self.caps}
        self.peak: dict = {name: 0 for name in self.caps}
        self._held: dict = {name: [] for name in self.caps}  # name -> heap of (priority, task)
        self._running: dict = {}  # task -> names it counts against
        self._held_names: dict = {}  # withheld task -> names it counts against
        self.n_held = 0

    def __bool__(self) -> bool:
        return bool(self.caps)

    def full(self, names) -> str | None:
        """The first of ``names`` that is full (a task of it may not start now), else None."""
        for name in names:
            cap = self.caps.get(name)
            if cap is not None and self.count[name] >= cap:
                return name
        return None

    def hold(self, name, priority, task, names) -> None:
        """Keep ``task`` (counting against ``names``) aside until a task of ``name`` (full)
        ends."""
        assert self.count[name] >= self.caps[name], (name, self.count[name])
        heapq.heappush(self._held[name], (priority, task))
        self._held_names[task] = names
        self.n_held += 1

    def on_run(self, task, names) -> None:
        names = tuple(n for n in names if n in self.caps)
        if not names:
            return
        for name in names:
            c = self.count[name] = self.count[name] + 1
            if c > self.peak[name]:
                self.peak[name] = c
        self._running[task] = names

    def on_done(self, task) -> list:
        """Task ended (finished, failed, lost): its slots free. Returns ``[(priority,
        task)]`` to offer again: per freed limit, its best withheld task that no other full
        limit withholds (those move to that limit's heap on the way)."""
        names = self._running.pop(task, ())
        out = []
        for name in names:
            self.count[name] -= 1
            held = self._held[name]
            while held:
                p, t = heapq.heappop(held)
                other = self.full(self._held_names[t])
                if other is not None:
                    heapq.heappush(self._held[other], (p, t))
                    continue
                del self._held_names[t]
                self.n_held -= 1
                out.append((p, t))
                break
        return out

    def held(self, name=None) -> list:
        if name is None:
            return [t for h in self._held.values() for _, t in h]
        return [t for _, t in self._held.get(name, ())]

    def validate(self) -> None:
        counts = {name: 0 for name in self.caps}
        for names in self._running.values():
            for name in names:
                counts[name] += 1
        for name, cap in self.caps.items():
            assert self.count[name] == counts[name], (name, self.count[name], counts[name])
            assert 0 <= self.count[name] <= cap, \
                f"limit {name!r} exceeded: {self.count[name]} > {cap}"  # fmt: skip
        assert self.n_held == sum(len(h) for h in self._held.values()) == len(self._held_names)


class Books(BooksAdmission, BooksPlacement):
    """The books of one scheduler (one core, or one dask scheduler's plugin)."""

    # Tests set audit: every answer given from what is remembered (Books.place's refusals,
    # the plugin's kept walks) is also found anew and compared (AssertionError if not).
    audit = False

    # The plugin bounds chains of completing passes (policy.PASSES); the core need not: its
    # ready tasks count as ``queued`` ahead of such a pass (may_admit_root).
    count_passes = False

    def __init__(self, policy: Policy | None = None, log_size: int = LOG_SIZE):
        self.policy = policy or Policy()
        self.workers: dict[Hashable, WorkerBook] = {}
        # A cluster of one worker (policy.may_load_beside's ``alone``): kept by add_worker
        # and remove_worker, read at every may_load_beside call (no count there).
        self.alone = True
        self._processing: dict = {}  # task -> (worker, estimate, root, group)
        self._carriers: dict = {}  # task whose output carries a root's data -> (root, nbytes)
        # The same, read-only, for the bodies (never rebound: _carriers is only mutated).
        # A view, not a property: the core asks "any carrier?" at every task end and
        # release, where a property's call cost ~0.1 µs of its ~11 µs a task.
        self.carrying = MappingProxyType(self._carriers)
        # Carriers whose data a single-input successor carried on: kept so that another
        # successor may carry it too, no longer counted (anomaly: a load read by its chunk
        # mean and held for the subtraction held its slot until the whole mean was done,
        # and loads ran one per worker: twin 20x4, 2x queuing's time).
        self._passed: set = set()
        self._live: dict = {}  # root -> [worker or None, carriers alive, group]
        # Pieces cut from a root's data while siblings still read it (a groupby's rechunk
        # cutting a chunk into its days): root -> cuts so far; at its landing, the most a
        # load of its group was cut into (what policy.BACKLOG_BURST_CUTS asks of a root
        # refused by a worker's burst of loads: its own group's, BACKLOG_BURST_OWN), and
        # the most over the groups (cuts_max: below BACKLOG_BURST_CUTS, as on most graphs,
        # the clause is off for every group's roots: no lookup).
        self._cuts: dict = {}
        self._cut_groups: dict = {}
        self.cuts_max = 0
        self._passes: dict = {}  # root admitted past the count by a completing pass -> worker
        self._pass_ok: dict = {}  # root -> workers where _admits let it pass so (until on_run)
        self._consuming: dict = {}  # consumer -> worker: its inputs' data is in use
        self._queued_consumers: dict = {}  # worker -> {consumer: inputs} beyond its threads
        self._loaded_max: dict = {}  # group -> largest data a root of it loaded
        self._join_groups: set = set()  # groups a task of which joined pieces (_joined)
        self._join_weight: dict = {}  # joined task -> the slot it holds (policy.join_slot)
        # Roots reserved by a root that opened their meetings (its data waits for theirs):
        # reserved root -> (worker, opening root); opening root -> roots it reserved.
        self._owed: dict = {}
        self._owing: dict = {}
        # _owed, read-only, for the bodies (never rebound): reserved root -> (worker,
        # opening root). A view, as ``carrying``: the plugin reads it where a call costs.
        self.owed = MappingProxyType(self._owed)
        self._roots_max = 0.0  # largest data any root loaded (over the groups kept)
        # Largest result a root of each group returned (kept while the group is, as
        # _loaded_max) and the largest over them (``largest_root``): a root's result far
        # smaller is no data in flight (policy.holds_data, ``root_holds_data``). A root's
        # own result, not what its chain loaded (_loaded_max): an open's handle beside
        # the reads. Read-only for the bodies (the plugin sizes an unrun root by it).
        self.root_results: dict = {}
        self._largest_root = 0.0
        self.largest_root_task = None  # the root that returned it (the bodies name it)
        # The body's, called with a group whose roots turn out to load data (a result of
        # HANDLE_MAX_BYTES or more after smaller ones) while roots are owed: the plugin
        # moves reservations made for a handle's readers to the blocks (rereserve).
        self.loads_data: Callable | None = None
        # Root results that counted as data only for want of a larger root result then
        # (policy.judged_again: handle-sized, no single-input reader): root -> bytes. Each
        # is judged again when a larger root result finishes (``_rejudge``): tiny beside
        # it, its slot frees (on workers policy.rejudged_on names) unless ``leads_on``.
        self._judged_small: dict = {}
        # The body's: does root ``task``'s result lead to data anyway, although tiny (a
        # reader of it is about to run: a running total's first carry; or a reader of it
        # is a root: a handle its loads read)? None: the body has no such view, and no
        # root result is judged again.
        self.leads_on: Callable | None = None
        # Roots ``place`` was refused for: task -> (its task-wide inputs, expecting, {worker:
        # that worker's inputs when it refused}). Asked again with the same inputs,
        # a worker gives the same answer without the policy's calls: a root nobody admits
        # is placed anew at every task end and asks every free worker (twin anomaly
        # 100x4: 48 free workers refused a blocked opener, 20 _admits calls a task).
        self._refusals: dict = {}
        self.audited: dict = {}  # answers given from what is remembered, checked, by kind
        self.log: deque = deque(maxlen=log_size)
        # Workers whose books changed since the body last looked (bounded by the workers):
        # a body keeping a set of workers open for roots re-examines only these.
        self.changed: set = set()
        # Workers that have work on its way although nothing processes there (the plugin:
        # queued readers held until a copy of a shared input lands, by the worker they
        # wait on): not idle for the progress rule. Why: twin vorticity in the store
        # form, 100x4: held stores left their workers "idle", each admitted a root pair
        # per load past its count (26 untouched against a cap of 5), peak 16.5 GB
        # against queue's 10.6; with this, 2.1 GB.
        self.expecting = frozenset()
        # The body's view of the tree-reduction combines one level up from partials a
        # worker holds: w -> (held_here, held_most, all_on_their_way) per combine
        # (policy.awaits_combine, asked in _admits of a root opening a meeting only);
        # None: the body keeps none.
        self.combines: Callable | None = None
        self.noted: dict | frozenset = frozenset()  # the workers the body has any noted at
        # The body's: light(w, estimate, most), how many of the tasks processing on w read
        # next to no data beside a root of that estimate (policy.reads_little), counted up
        # to ``most`` (policy.may_load_beside's ``light``); None: the body has no view.
        self.light: Callable | None = None

    # -- workers ------------------------------------------------------------------------
    def add_worker(self, w, threads: int, budget: float) -> WorkerBook:
        book = self.workers.get(w)
        if book is None:
            book = self.workers[w] = WorkerBook(int(threads), float(budget))
            self.alone = len(self.workers) < 2
            if len(self.workers) == 2:
                # (asks_wide's and may_load_beside's ``alone`` are read from the worker
                # count, in no version)
                self._refusals.clear()
        threads, budget = int(threads), float(budget)
        if book.threads != threads or book.budget != budget or book.version == 0:
            book.threads, book.budget = threads, budget
            book.cap = self.policy.root_cap(threads)
            book.version += 1
        return book

    def remove_worker(self, w, locate: Callable | None = None, stimulus_id=None) -> None:
        """Worker ``w`` left. Its processing tasks are gone (the body reports them failed or
        released as its runtime does); roots whose loaded data survives on another worker
        (``locate(carrier)`` -> that worker, else None) are counted there from now on."""
        if self.workers.pop(w, None) is not None and len(self.workers) == 1:
            self._refusals.clear()  # (asks_wide's ``alone``: see add_worker)
        self.alone = len(self.workers) < 2
        self.changed.discard(w)
        self._queued_consumers.pop(w, None)
        for task in [t for t, ww in self._consuming.items() if ww == w]:
            del self._consuming[task]
        for r in [r for r, o in self._owed.items() if o[0] == w]:
            self._unreserve(r)
        for r in [r for r, ww in self._passes.items() if ww == w]:
            del self._passes[r]
        for task, (ww, est, root, group) in list(self._processing.items()):
            if ww == w:
                del self._processing[task]
        for root, rec in self._live.items():
            if rec[0] != w:
                continue
            rec[0] = None
            if locate is not None:
                for carrier, (r, _) in self._carriers.items():
                    if r == root:
                        where = locate(carrier)
                        if where is not None and where in self.workers:
                            rec[0] = where
                            self.workers[where].roots_untouched += self._join_weight.get(root, 1)
                            self.workers[where].version += 1
                            self.changed.add(where)
                            break
            self.log.append((root, "moved", w, rec[0], stimulus_id))

    # -- events -------------------------------------------------------------------------
    def on_run(self, task, w, root: bool, group, known: float, stimulus_id=None) -> float:
        """Task starts processing on w; returns the estimate of its output."""
        book = self.workers[w]
        if self._owed and task in self._owed:
            # It came (placed by any path). Also a task reserved as a root that is none:
            # a reader of a block whose size was unknown when a walk took it for a handle.
            self._unreserve(task)
        if root:
            # (self.estimate inlined here, in place and refuses_further: a call a root)
            est = estimate_output(known, self._loaded_max.get(group, 0.0), self._roots_max)
            if self._pass_ok:
                ws = self._pass_ok.pop(task, ())
                if w in ws:
                    self._passes[task] = w
                    book.passes += 1
            book.roots_processing += 1
            book.estimated += est
        else:
            est = known if known == known else 0.0
            if est:  # (most non-roots: nothing to add)
                book.estimated += est
        book.processing += 1
        book.version += 1
        self._processing[task] = (w, est, root, group)
        self.changed.add(w)
        return est

    def on_finished(
        self, task, nbytes: float, inputs: Iterable, single_input: bool, feeds: bool,
        stimulus_id=None, pieces: float = math.nan, read_on: Callable | None = None,
    ) -> None:  # fmt: skip
        """Task finished with ``nbytes`` of output. ``inputs``: its inputs' ids (only those
        that carry a root's data matter); ``single_input``: it has exactly one input;
        ``feeds``: some task still needs its output. A root never extends another root's
        chain (a shared handle read by many loaders lands at the first). ``pieces``: the
        task joins two or more inputs all of one task group, of these bytes together (NaN:
        it does not); see ``policy.joins_pieces``. ``read_on(x)``: do other single-input
        tasks have yet to read input x (``policy.read_on``: a stencil's block, a load that
        a rechunk splits)? Then a reduction of x (a halo slice, a rechunk's edge split)
        leaves its data in flight for them: they need nothing else, and one may carry it
        on."""
        rec = self._processing.pop(task, None)
        root = False
        book = None
        if rec is not None:
            w, est, root, group = rec
            if task in self._consuming or self._queued_consumers:
                self._consumer_left(task, w, stimulus_id)
            book = self.workers.get(w)
            if book is not None:
                book.processing -= 1
                if est:  # (most non-roots: nothing to take off)
                    book.estimated -= est
                if root:
                    book.roots_processing -= 1
                book.version += 1
                self.changed.add(w)
            if root:
                self._loaded(group, nbytes)
                if not feeds and self._owing:
                    self._unowe(task)
                if not feeds and self._passes:
                    self._unpass(task)
                if feeds:
                    self._carriers[task] = (task, nbytes)
                    self._passed.discard(task)  # ran again: its new output counts
                    live = self._live.get(task)
                    if live is not None:  # ran again (core: dropped) while its data travels
                        live[1] += 1
                    else:
                        self._live[task] = [w if book is not None else None, 1, group]
                        if book is not None:
                            book.roots_untouched += 1
        carriers = self._carriers
        if pieces == pieces and feeds and rec is not None and not root:
            if joins_pieces(nbytes, pieces, self._roots_max):
                self._join_groups.add(rec[3])
                self._joined(task, rec[0], nbytes, stimulus_id)
        if not carriers:
            return
        for x in inputs:
            c = carriers.get(x)
            if c is None:
                continue
            r, xbytes = c
            if single_input and not root and keeps_data(nbytes, xbytes, self.policy.chain_keep):
                # The data goes on down the chain (open -> read -> select): still in flight,
                # held by task now, not by x.
                live = self._live.get(r)
                if feeds and task not in carriers and live is not None:
                    # (a root no longer in flight is not brought back by its chain: a
                    # passed carrier may outlive it, and the root may run again, dropped)
                    carriers[task] = (r, nbytes)
                    live[1] += 1
                    if live[2] is not None:  # (a join's data is no root's size)
                        self._loaded(live[2], nbytes)
                if x in self._passed:
                    continue
                if read_on is not None and book is not None \
                        and keeps_read_on(book.threads) and read_on(x):  # fmt: skip
                    # x itself is still to be read by a sibling (a rechunk's other half):
                    # it stays in flight beside task. Passed at the first half, its load
                    # landed when that half's merge ran, the next root came in, and the
                    # sibling, ordered after it, held the load (twin rechunk 4x1: 1.25x
                    # queuing's peak).
                    continue
                self._passed.add(x)
            elif single_input and not root and read_on is not None and x not in self._passed \
                    and read_on(x):  # fmt: skip
                # A piece of it (a stencil's halo): a sibling still takes it on. Landed at
                # the first slice, its 8 MB stayed held for the others, slots freed, and
                # loads ran ahead (twin stencil 4x1: 1.5x queuing's peak).
                if policy_module.BACKLOG_BURST_CUTS:
                    self._cuts[r] = self._cuts.get(r, 0) + 1
                continue
            else:
                # Consumed: combined with other data, or reduced (_drop_carrier's count inline:
                # hot; the landing, once a root, is _landed).
                del carriers[x]
                if x in self._passed:
                    self._passed.discard(x)
                    continue
                live = self._live.get(r)
            if live is None:
                continue
            live[1] -= 1
            if live[1] == 0:
                # (book stays the task's worker's: a later input's keeps_read_on asks the
                # threads where the task ran, not the landed root's; tidy41-findings.txt)
                self._landed(r, live, "consumed", x, stimulus_id)

    def _joined(self, task, w, nbytes, stimulus_id) -> None:
        """``task`` joined pieces of one array on w (policy.joins_pieces): its output is data
        in flight there, as a root's, until a consumer uses it; its inputs' roots land as
        usual (their data is in it now). Not a root: admission and estimates ignore it."""
        book = self.workers.get(w)
        if book is None or task in self._carriers:
            return
        self._carriers[task] = (task, nbytes)
        self._live[task] = [w, 1, None]
        weight = join_slot(nbytes, self._roots_max)
        if weight != 1:
            self._join_weight[task] = weight
        book.roots_untouched += weight
        book.version += 1
        self.changed.add(w)
        self.log.append((task, "joined", w, nbytes, stimulus_id))

    def on_consuming(self, task, inputs: Iterable, stimulus_id=None,
                     pieces: float = math.nan) -> None:  # fmt: skip
        """``task`` (processing, reported by ``on_run``) combines several inputs and every
        one of them is held on its worker: nothing is left to wait for. The data its inputs
        carry counts as in use, not waiting, from now on, for as many such consumers per
        worker as it has threads (a worker runs no more at once); the others queue, in the
        order reported, and take the place of one that leaves processing. Holding the slots
        until the consumer finishes idled threads (a vorticity over two co-located loads:
        a 4-thread worker 0.9 busy); freeing them for every consumer processing let loads
        run ahead of consumers slower than they are. A consumer still waiting for a
        transfer is not reported: its inputs' slots free when it finishes.

        ``pieces``: as ``on_finished``'s (NaN: not all of one group). A task joining pieces
        of one array (a rechunk's merge) uses nothing up: its output carries the data on
        (``_joined``), so its inputs keep their slots until it finishes. Freed at its
        start, a merge of two loads' halves landed one of them while the other half was
        still to merge, and the next step pair's loads came in beside (twin rechunk-add
        20x4: 10.5 chunks on a worker against 10). Known to join by its group: one of
        its group joined already (a tree reduction's combine of 4 chunk means is pieces
        of one group too, but reduces them: kept from consuming, anomaly's groups held
        their slots to the combine's end, twin 20x4 200 steps 0.82 -> 0.86x queuing's
        peak)."""
        if not self._carriers:
            return
        if pieces == pieces and self._join_groups \
                and self._processing.get(task, _NO_RECORD)[3] in self._join_groups:  # fmt: skip
            return
        inputs = [x for x in inputs if x in self._carriers and x not in self._passed]
        rec = self._processing.get(task)
        if not inputs or rec is None or rec[0] not in self.workers:
            return
        w = rec[0]
        if self.workers[w].consuming < self.workers[w].threads:
            self._consume(task, w, inputs, stimulus_id)
        else:
            self._queued_consumers.setdefault(w, {})[task] = inputs

    def _consume(self, task, w, inputs, stimulus_id) -> None:
        """A running consumer keeps one slot (a thread's worth of work, as a root processing
        does) and frees the others: freeing all let a 2-thread worker hold 9 loads at once
        (1.1x queuing's memory on vorticity-files), keeping all idled threads."""
        self.workers[w].consuming += 1
        self._consuming[task] = w
        kept = False
        for x in inputs:
            if x in self._carriers and x not in self._passed:
                if not kept:
                    kept = True  # dropped when the consumer finishes (on_finished)
                    continue
                self._drop_carrier(x, stimulus_id, "consuming")

    def _consumer_left(self, task, w, stimulus_id) -> None:
        """``task`` left processing on w: a queued consumer there takes its place."""
        queued = self._queued_consumers.get(w)
        if queued is not None:
            queued.pop(task, None)
        if self._consuming.pop(task, None) is None:
            return
        book = self.workers.get(w)
        if book is None:
            return
        book.consuming -= 1
        while queued:
            nxt = next(iter(queued))
            inputs = queued.pop(nxt)
            if any(x in self._carriers for x in inputs):
                self._consume(nxt, w, inputs, stimulus_id)
                break
        if not queued:
            self._queued_consumers.pop(w, None)

    def on_failed(self, task, inputs: Iterable, stimulus_id=None) -> None:
        """Task left processing without an output (erred, lost, cancelled). Its inputs'
        data counts as used: nothing will consume it in this attempt."""
        self.on_stopped(task, stimulus_id)
        for x in inputs:
            if x in self._carriers:
                self._drop_carrier(x, stimulus_id, "consumer failed")

    def on_stopped(self, task, stimulus_id=None) -> None:
        """Task left processing without an output; its inputs are untouched (dask moved it)."""
        rec = self._processing.pop(task, None)
        if rec is None:
            return
        w, est, root, group = rec
        if task in self._consuming or self._queued_consumers:
            self._consumer_left(task, w, stimulus_id)
        if root and self._owing:
            self._unowe(task)  # placed again later, it reserves again
        if root and self._passes:
            self._unpass(task)
        book = self.workers.get(w)
        if book is not None:
            book.processing -= 1
            book.estimated -= est
            if root:
                book.roots_processing -= 1
            book.version += 1
            self.changed.add(w)

    def _unpass(self, r) -> None:
        w = self._passes.pop(r, None)
        book = self.workers.get(w) if w is not None else None
        if book is not None:
            book.passes -= 1
            book.version += 1
            self.changed.add(w)

    def on_released(self, task, stimulus_id=None) -> None:
        """Task's output is gone from every worker."""
        if task in self._carriers:
            self._drop_carrier(task, stimulus_id, "released")

    def unload(self, roots: Iterable, stimulus_id=None) -> None:
        """The results of ``roots`` (finished, in flight) are no data after all (the body
        judged them again: policy.judged_again): their carriers count no more, and their
        slots free. One pass over the carriers."""
        roots = {r for r in roots if r in self._live}
        if roots:
            for x in [c for c, (r, _) in self._carriers.items() if r in roots]:
                self._drop_carrier(x, stimulus_id, "no data")

    def _drop_carrier(self, x, stimulus_id, why) -> None:
        r, _ = self._carriers.pop(x)
        if x in self._passed:
            self._passed.discard(x)  # not counted since its data went on
            return
        live = self._live.get(r)
        if live is None:
            return
        live[1] -= 1
        if live[1] == 0:
            self._landed(r, live, why, x, stimulus_id)

    def _landed(self, r, live, why, x, stimulus_id):
        """Root r's data is in flight no more (its last carrier x consumed or dropped, for
        ``why``): its slot frees on its worker (``live``: its entry, just counted down to
        0)."""
        del self._live[r]
        if self._judged_small:  # (landed: _rejudge would drop it; a key run again is
            self._judged_small.pop(r, None)  # judged by its new result, not this one)
        if self._cuts:
            cuts = self._cuts.pop(r, 0) + 1  # (and the last piece, which landed it)
            group = live[2]
            if cuts > 1 and group is not None and cuts > self._cut_groups.get(group, 0):
                self._cut_groups[group] = cuts
                if cuts > self.cuts_max:
                    self.cuts_max = cuts
        if self._passes:
            self._unpass(r)
        w = live[0]
        book = self.workers.get(w) if w is not None else None
        weight = self._join_weight.pop(r, 1) if self._join_weight else 1
        if book is not None:
            book.roots_untouched -= weight
            book.version += 1
            self.changed.add(w)
        if self._owing:
            self._unowe(r)
        self.log.append((r, "landed", why, x, stimulus_id))

    # -- meetings opened ------------------------------------------------------------------
    def _reserve(self, task, w, lacks) -> None:
        """Root ``task`` was placed on ``w``: it no longer needs a reservation, and it
        reserves on w the roots its meetings lack (``lacks``, from
        :func:`policy.meeting_partners`) that nobody reserved yet. They count against w's
        slots until they are placed (anywhere) or task's data lands. At startup a store
        handle read first made every worker load one side of five steps, then the other
        side past the count (twin slice-add 20x4: 11 chunks held against 7 after)."""
        if task in self._owed:
            self._unreserve(task)
        if not lacks or w not in self.workers:
            return
        for r in lacks:
            if r not in self._owed and r not in self._processing:
                self._owe(r, w, task)

    def _owe(self, r, w, opener) -> None:
        """Root r is reserved on worker w for ``opener``'s meetings."""
        self._owed[r] = (w, opener)
        self._owing.setdefault(opener, []).append(r)
        book = self.workers[w]
        book.owed += 1
        book.version += 1
        self.changed.add(w)

    def rereserve(self, instead: Callable, stimulus_id=None) -> int:
        """Reservations made for the wrong task end: ``instead(task)`` -> ``task`` (keep
        it), or the root to reserve in its place for the same opener (None: none). A body
        reserved the readers of a block whose size was unknown (a handle by structure:
        its readers are roots); once the block's group is known to load data, the
        meetings lack the block itself, not each of its readers. Returns how many
        changed."""
        moved = [(r, instead(r)) for r in self._owed]
        moved = [(r, x) for r, x in moved if x != r]
        for r, x in moved:
            w, opener = self._owed[r]
            self._unreserve(r)
            self.log.append((r, "unreserved", x, stimulus_id))
            if x is not None and w in self.workers and x not in self._owed \
                    and x not in self._processing:  # fmt: skip
                self._owe(x, w, opener)
        return len(moved)

    def _unreserve(self, r) -> None:
        opener = self._free_slot(r)
        rs = self._owing.get(opener)
        if rs is not None:
            rs.remove(r)
            if not rs:
                del self._owing[opener]

    def unreserve_for(self, root) -> None:
        """The roots ``root`` reserved (its meetings' lacks) are reserved no more, while it
        stays in the books (the plugin: a handle found handle-sized,
        ``policy.drops_reservations``)."""
        if self._owing:
            self._unowe(root)

    def _unowe(self, root) -> None:
        """``root`` is no longer in flight (its data landed, it left processing): the
        roots it reserved are reserved no more."""
        for r in self._owing.pop(root, ()):
            self._free_slot(r)

    def _free_slot(self, r):
        """Root r is reserved no more: its worker gets the slot back. Returns the opener."""
        w, opener = self._owed.pop(r)
        book = self.workers.get(w)
        if book is not None:
            book.owed -= 1
            book.version += 1
            self.changed.add(w)
        return opener

    def root_holds_data(self, task, group, nbytes: float, feeds: bool,
                        chained: Callable, key=None) -> bool:  # fmt: skip
        """Does root ``task``'s result (``nbytes``) count as data in flight until a consumer
        uses it (``policy.holds_data``, against the largest root result before it)?
        ``feeds``: some task needs it (else no); ``chained(task)``: does a single-input
        task take it on (asked only of a handle-sized result). Notes the result in
        ``root_results`` and ``largest_root`` (and tells ``loads_data`` of a group whose
        roots turn out to load data). A result counted as data only for want of a larger
        one yet (``policy.judged_again``) is judged again when a larger one finishes
        (``_rejudge``). ``key``: task's name in the books (``on_run``'s), when the body
        passes its own record as ``task`` (the plugin: a TaskState; None: ``task``). Both
        bodies ask it as a root finishes, before ``on_finished``."""
        largest = self._largest_root
        small = False
        if feeds:
            if not holds_data(nbytes, largest, False):  # tiny: only then ask chained
                feeds = holds_data(nbytes, largest, chained(task))
            elif nbytes < HANDLE_MAX_BYTES and self.leads_on is not None:
                small = judged_again(nbytes, chained(task))  # data for want of a larger?
        if nbytes > largest:
            self._largest_root = nbytes
            self.largest_root_task = task
        before = self.root_results.get(group, 0)
        if nbytes > before:
            self.root_results[group] = nbytes
            if self._owed and before < HANDLE_MAX_BYTES <= nbytes \
                    and self.loads_data is not None:  # fmt: skip
                self.loads_data(group)
        if self._judged_small and self._largest_root > largest:
            self._rejudge(self._largest_root)
        if small:  # (after _rejudge: its own result is no smaller than the largest)
            self._judged_small[task if key is None else key] = nbytes
        return feeds

    def _rejudge(self, largest: float) -> None:
        """A root result larger than any so far finished: the roots whose results counted
        as data beside the smaller ones (``policy.judged_again``) and are tiny beside this
        one are no data in flight (``policy.holds_data``): their slots free (``unload``),
        on workers ``policy.rejudged_on`` names, unless the body says their result
        ``leads_on`` to data. grp29: xarray's groupby shuffle-takers, run at startup."""
        judged, live, workers = self._judged_small, self._live, self.workers
        leads_on = self.leads_on
        gone = []
        for task, nbytes in list(judged.items()):
            rec = live.get(task)
            if rec is None:
                del judged[task]  # its data landed, or it left
            elif not holds_data(nbytes, largest, False):
                del judged[task]
                book = workers.get(rec[0])
                if book is not None and rejudged_on(book.threads) and not leads_on(task):
                    gone.append(task)
        if gone:
            self.unload(gone, "tidegate-rejudged")

    def _loaded(self, group, nbytes: float) -> None:
        if nbytes > self._loaded_max.get(group, 0):
            self._loaded_max[group] = nbytes
        if nbytes > self._roots_max:
            self._roots_max = nbytes

    # -- per-computation statistics ----------------------------------------------------
    def forget_groups(self, keep: Callable[[Hashable], bool]) -> None:
        """Drop size statistics of groups no longer present (``keep(group)`` false): a new
        computation's roots are not estimated from an old one's."""
        self._join_groups = {g for g in self._join_groups if keep(g)}
        gone = [g for g in self._loaded_max if not keep(g)]
        for g in gone:
            del self._loaded_max[g]
        if gone:
            self._roots_max = max(self._loaded_max.values(), default=0.0)
        gone = [g for g in self._cut_groups if not keep(g)]
        for g in gone:
            del self._cut_groups[g]
        if gone:
            self.cuts_max = max(self._cut_groups.values(), default=0)
        results = self.root_results
        gone = [g for g in results if not keep(g)]
        for g in gone:  # (in place: the dict is the bodies' to read)
            del results[g]
        if gone:
            self._largest_root = max(results.values(), default=0.0)

    # -- decisions ----------------------------------------------------------------------
    def estimate(self, known: float, group) -> float:
        """A root's expected loaded bytes: known size, else the largest its group loaded
        (through its chain), else the largest any root loaded, else 0."""
        return estimate_output(known, self._loaded_max.get(group, 0.0), self._roots_max)

    # -- introspection ------------------------------------------------------------------
    @property
    def busy(self) -> int:
        """Tasks processing on all workers (counted when asked: nothing decides by it, and
        a count kept per task start and end cost two updates a task)."""
        return sum(b.processing for b in self.workers.values())

    @property
    def has_carriers(self) -> bool:
        """Some output carries a root's data: only then do inputs need reporting."""
        return bool(self._carriers)

    @property
    def largest_root(self) -> float:
        """The largest result a root returned (over the groups kept): ``root_holds_data``."""
        return self._largest_root

    @property
    def roots_max(self) -> float:
        """The largest data any root loaded, through its chain (over the groups kept):
        what ``policy.second_input``, ``joins_pieces`` and ``pulls_consumer`` compare to."""
        return self._roots_max

    @property
    def keeps_groups(self) -> bool:
        """Are size statistics of some group kept (``root_results``, loaded sizes, joins)?
        The plugin asks before looking whether a forgotten task's group goes."""
        return bool(self.root_results or self._loaded_max or self._join_groups)

    def keeps_group(self, group) -> bool:
        """Are size statistics of ``group`` kept (``forget_groups`` would drop some)?"""
        return group in self.root_results or group in self._loaded_max \
            or group in self._join_groups  # fmt: skip

    def opened(self, root) -> bool:
        """Does ``root``, placed, hold reservations of roots its meetings lack?"""
        return root in self._owing

    def data_waits(self, root) -> bool:
        """Has ``root`` finished with its data still in flight (loaded, not yet used by a
        consumer), and is it not running again?"""
        return root in self._live and root not in self._processing

    def processing_on(self, task):
        """The worker ``task`` is booked processing on (``on_run``), or None."""
        return self._processing.get(task, _NO_RECORD)[0]

    def in_flight(self, root) -> bool:
        return root in self._processing or root in self._live

    def carries(self, task) -> bool:
        """For ``policy.frees_slot``: does task's output carry a root's data counted in
        flight (its slot frees when a consumer uses it), or is task a root processing?"""
        rec = self._processing.get(task)
        if rec is not None:
            return rec[2]
        return task in self._carriers and task not in self._passed

    def carriers(self, root) -> list:
        return [x for x, (r, _) in self._carriers.items() if r == root and x not in self._passed]

    def story(self, *tasks) -> list:
        wanted = set(tasks)
        return [e for e in self.log if e[0] in wanted or (len(e) > 3 and e[3] in wanted)]

    def validate(self) -> None:
        """Recount every book from the per-task records; O(tasks in flight)."""
        processing = {w: 0 for w in self.workers}
        roots = dict(processing)
        estimated = {w: 0.0 for w in self.workers}
        for task, (w, est, root, _) in self._processing.items():
            assert w in self.workers, f"{task!r} processing on departed worker {w!r}"
            processing[w] += 1
            roots[w] += root
            estimated[w] += est
        untouched = {w: 0 for w in self.workers}
        counts: dict = {}
        assert self._passed <= self._carriers.keys(), "a passed carrier is not a carrier"
        for x, (r, _) in self._carriers.items():
            if x not in self._passed:
                counts[r] = counts.get(r, 0) + 1
        for r, (w, n, _) in self._live.items():
            assert counts.get(r, 0) == n > 0, \
                f"root {r!r}: {n} carriers booked, {counts.get(r)} kept"  # fmt: skip
            if w is not None:
                untouched[w] += self._join_weight.get(r, 1)
        for w, book in self.workers.items():
            assert book.processing == processing[w], (w, book.processing, processing[w])
            assert book.roots_processing == roots[w], (w, book.roots_processing, roots[w])
            assert abs(book.estimated - estimated[w]) <= 1e-6 * max(1.0, estimated[w]), w
            assert book.roots_untouched == untouched[w], (w, book.roots_untouched, untouched[w])
            consuming = [t for t, ww in self._consuming.items() if ww == w]
            assert book.consuming == len(consuming) <= book.threads, (w, book.consuming)
            for t in (*consuming, *self._queued_consumers.get(w, ())):
                assert self._processing.get(t, (None,))[0] == w, \
                    f"consumer {t!r} not processing on {w!r}"  # fmt: skip
            assert book.processing >= 0 and book.roots_untouched >= 0
        owed = {w: 0 for w in self.workers}
        for r, (w, opener) in self._owed.items():
            assert r in self._owing.get(opener, ()), (r, opener)
            if w in owed:
                owed[w] += 1
        assert sum(map(len, self._owing.values())) == len(self._owed)
        for w, book in self.workers.items():
            assert book.owed == owed[w], (w, book.owed, owed[w])
