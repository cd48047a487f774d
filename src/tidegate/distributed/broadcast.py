"""Widely shared inputs copied holder to holder, in waves (a broadcast tree).

A task whose input is read by many tasks (broadcast weights, a grid) is a root; without
this, its consumers go to every worker at once and each worker fetches the input from
the one worker that made it: n copies queue on that worker's link. dask's worker picks
the holder to fetch from itself (``_select_workers_for_gather``: ties broken by a
``random.Random(0)`` that every worker seeds alike), so sending consumers in waves alone
would not spread the fetches: the fetchers of a wave would all pick the same holder.

Instead the scheduler names the sender. A consumer may go only to a worker that holds the
input or has a copy on its way; for the other candidates, copies start as holders have
room (:func:`tidegate.policy.broadcast_pairs`: one copy at a time per holder) with dask's
own ``acquire-replicas`` message naming one holder. A copy is done when the receiver shows
up in the input's ``who_has`` (its ``add-keys``, which pokes the plugin: the next wave
starts then, not at the next task's end), so holders double per transfer time. The consumers sent
meanwhile to a worker whose copy is on its way wait for that copy (dask's worker does not fetch
twice).

Only placement among the workers open for roots is restricted; a holder is always
allowed, so roots never wait for a copy when a holder has room. Non-root consumers
(placed by dask by their inputs) are not.
"""

from __future__ import annotations

import operator
from collections import deque
from itertools import chain, compress, filterfalse, tee

from .. import policy
from ..policy import (
    BROADCAST_MIN_BYTES,
    SHARED_FANOUT,
    broadcast_pairs,
    broadcast_per_sender,
    copy_rate,
    is_broadcast,
    joins_group,
    kept_level,
    senders_free,
)


def watch(plugin, s) -> None:
    """Poke ``plugin`` when a worker reports a copy of an input in flight (``add-keys``);
    dask calls no plugin hook for a new replica."""
    handlers = getattr(s, "stream_handlers", None)
    original = (handlers or {}).get("add-keys")
    if original is None or getattr(original, "_tidegate", False):
        return

    def add_keys(*args, keys=(), **kwargs):
        out = original(*args, keys=keys, **kwargs)
        b = plugin.__dict__.get("_broadcast")
        if plugin.scheduler is s and b is not None and b.flight \
                and any(k in b.flight for k in keys):  # fmt: skip
            if b._starts:
                worker = kwargs.get("worker", args[0] if args else None)
                try:  # (inside dask's stream handler: a raise there drops the worker)
                    b.landed(s, worker, keys)
                except Exception as exc:
                    plugin._error("landed", exc)
            b.generation += 1
            plugin.poke(f"tidegate-copy-{b.copies}")
        return out

    add_keys._tidegate = True
    add_keys.__wrapped__ = original
    handlers["add-keys"] = add_keys


def unwatch(s) -> None:
    handlers = getattr(s, "stream_handlers", None) or {}
    h = handlers.get("add-keys")
    if getattr(h, "_tidegate", False):
        handlers["add-keys"] = h.__wrapped__


class Broadcast:
    """Copies on their way, per shared input: ``flight[key] = {receiver: sender}``."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = bool(enabled)  # dask.config tidegate.distributed.broadcast
        self.flight: dict = {}
        self.copies = 0  # copies requested so far
        self.log: deque = deque(maxlen=10_000)  # (key, receiver, sender, stimulus_id)
        self.held: dict = {}  # queued reader -> (worker dask chose, generation) while held
        # Bumped whenever a copy starts, lands or is dropped: a reader held at the same
        # generation would be held again, so it is not looked at (O(1) per held reader).
        self.generation = 0
        self._seen: dict = {}  # key -> (holders, workers) when its copies were last checked
        self._holders: dict = {}  # key -> (its who_has as last seen, their addresses)
        self.flush = None  # called before a copy's message is sent (Plugin._flush_starts)
        # The fan-out learnt from the copies' times (policy.BROADCAST_LEARN): level None
        # (not known), 0 (a sender's copies slowed each other), n > 0 (n verdicts in a
        # row found they did not; policy.broadcast_per_sender).
        self.level = None
        self.per = broadcast_per_sender(None)  # copies a holder may send at once, now
        self._nw = 0  # the workers self.per was found for (the probe's size follows them)
        self._starts: dict = {}  # (key, receiver) -> its group, while the copy is out
        # group: [start time, nbytes, copies out, durations, judged, sender, key]
        self._live: dict = {}  # sender -> its groups with copies out
        self._probe = None  # while the fan-out is not known: the group probing it, if any
        self.best_rate = 0.0  # the fastest bytes/s a copy took (policy.senders_free)
        self._hosts = frozenset()  # the workers' hosts when level was last set above 0
        self.verdicts: list = []  # (key, durations, free) per judged group (a record)
        self.timed: deque = deque(maxlen=1_000)  # (key, receiver, sender, stimulus, start)

    def shared(self, ts) -> bool:
        """Does ``ts`` read a widely shared input held somewhere? Such a task that is not a
        root goes through the queue, so :meth:`gate` can hold it."""
        for d in ts.dependencies:
            # (SHARED_FANOUT first: is_broadcast's cheap necessary condition, without a call
            # for each input of each task; then who_has, set when the task is asked)
            if len(d.dependents) >= SHARED_FANOUT and d.who_has \
                    and is_broadcast(d.nbytes, len(d.dependents)):  # fmt: skip
                # (the task's own tests only now: every read here is pure, and most tasks
                # read no such input: asked of every task not a root, cpu43)
                return self.enabled and not (
                    ts.resource_restrictions or ts.worker_restrictions
                    or ts.host_restrictions or ts.actor)  # (dask never queues these)
        return False

    @property
    def active(self) -> bool:
        """Copies on their way (queued consumers may wait for them)."""
        return any(self.flight.values())

    def place(self, s, ts, decide, stimulus_id=None, looked=False):
        """The worker for queued non-root ``ts``: ``decide(ts)`` (dask's placement, by its
        inputs) if :meth:`gate` lets it go there now, else None (it stays queued). A held
        task keeps its worker until it goes: dask's objective over every worker, asked
        again at every poke for every held reader, cost more than the rest together.
        ``looked``: the caller just found that gate may let ts go on the worker it is held
        on (poke's look, ``blocked``): :meth:`_holds` is not asked there (its answer:
        no)."""
        addr, gen = self.held.get(ts.key, (None, -1))
        ws = None if addr is None else s.workers.get(addr)
        if ws is not None:
            # (a current worker runs when every worker does, dask's running being a subset
            # of its workers: found without hashing a WorkerState in Python, twice a look)
            running = s.running
            if not (len(running) == len(s.workers) or ws in running):
                ws = None
            elif gen == self.generation:
                return None
        if ws is None:
            ws = decide(ts)
            if ws is None or ws not in s.running:
                return None
            looked = False
        if not looked and self._holds(s, ts, ws):  # (gate's answer where it holds ts)
            self.held[ts.key] = (ws.address, self.generation)
            return None
        if self.gate(s, ts, ws, stimulus_id):
            self.held.pop(ts.key, None)
            return ws
        self.held[ts.key] = (ws.address, self.generation)
        return None

    def gate(self, s, ts, ws, stimulus_id=None) -> bool:
        """May ``ts`` (placed by its inputs on ``ws``) go there now? Yes when ws holds each
        shared input of ts, or a copy is on its way, or a copy can start now (started)."""
        if ws is None:
            return False
        _, allowed = self.restrict(s, ts, {}, [ws.address], stimulus_id)
        return bool(allowed)

    def _holds(self, s, ts, ws) -> bool:
        """Would :meth:`gate` hold ``ts`` on (current, running) ``ws`` now without starting
        a copy? True only then; False when gate may let it go or start a copy (the caller
        then asks gate). Exact: restrict's tests per input in its order, with its
        bookkeeping (:meth:`_flight`, called where _allowed calls it), gate's answer for a
        one-worker candidate list: an input held by ``ws`` or with a copy on its way there
        passes; one that is not, while every holder is sending, holds ts (no copy can start
        for it, nor for a later input: no candidate is left). Why: a reader of the
        anomaly's mean is held at dask's decide_worker and again at each look while its
        stamp is stale (twin anomaly 100 x 4: ~720 times), and gate's way there (restrict,
        _allowed: holder addresses, covered set, filtered list) cost ~300 bytecodes a time
        (this: ~150 with _flight's test)."""
        if not self.enabled or getattr(s, "stream_comms", None) is None:
            return False  # (restrict changes nothing: gate lets it go)
        addr = ws.address
        held = False
        for d in ts.dependencies:
            n = len(d.dependents)
            if n < SHARED_FANOUT or d.nbytes < BROADCAST_MIN_BYTES or not d.who_has \
                    or not is_broadcast(d.nbytes, n):  # fmt: skip
                continue
            who = d.who_has
            # (_allowed's bookkeeping: _flight, called there unless no copy is on its way
            # and every worker holds d, does nothing unless copies are on their way and
            # holders or workers changed in number since it last looked: asked here first)
            flight = self.flight.get(d.key)
            if flight is None:
                flight = self.flight[d.key] = {}
            elif flight and self._seen.get(d.key) != (len(who), len(s.workers)):
                flight = self._flight(s, d, who)
            if held or ws in who or addr in flight:
                continue
            per = self.per if self._nw == len(s.workers) else self._reper(s)
            if len(flight) < len(who) * per:
                return False  # a holder may send: gate may start a copy
            held = True
        return held

    def restrict(self, s, ts, partners: dict, candidates: list, stimulus_id=None):
        """``(partners, candidates)`` for root ``ts`` with the workers that neither hold
        its shared inputs nor have a copy on its way left out; copies start for the
        candidates that holders can serve now. Unchanged for a task with no such input.

        Cost: O(candidates + copies on their way); the holders are listed (O(h log h))
        only when a copy may start."""
        comms = None
        for d in ts.dependencies:
            # (is_broadcast's necessary conditions first, as in shared: a root's handle or
            # a mean's input is no broadcast, found without a call; 2 calls per task on
            # the twin's anomaly, and on its weighted for the two store handles)
            n = len(d.dependents)
            if n < SHARED_FANOUT or d.nbytes < BROADCAST_MIN_BYTES or not d.who_has \
                    or not is_broadcast(d.nbytes, n):  # fmt: skip
                continue
            # (the scheduler's comms and the switch asked only for such an input: every
            # read above is pure, and most roots read none, cpu47)
            if comms is None:
                comms = getattr(s, "stream_comms", None)
                if comms is None or not self.enabled:
                    return partners, candidates
            candidates = self._allowed(s, comms, d, candidates, stimulus_id)
            if partners:
                partners = {a: n for a, n in partners.items()
                            if self._has(s, d, a)}  # fmt: skip
        return partners, candidates

    def restricts(self, s, ts) -> bool:
        """Would :meth:`restrict` change anything for root ``ts`` (an input of ts it
        gates)? Asked without its side effects (copies started)."""
        for d in ts.dependencies:  # (the inputs first, as restrict: pure reads, cpu47)
            n = len(d.dependents)
            if n < SHARED_FANOUT or d.nbytes < BROADCAST_MIN_BYTES or not d.who_has \
                    or not is_broadcast(d.nbytes, n):  # fmt: skip
                continue
            return getattr(s, "stream_comms", None) is not None and self.enabled
        return False

    def _has(self, s, d, addr) -> bool:
        """addr holds d or has a copy of it on its way."""
        return s.workers.get(addr) in d.who_has or addr in self.flight.get(d.key, ())

    def blocker(self, s):
        """``blocked(ts, ws)``: would :meth:`gate` hold ``ts`` on ``ws`` now without
        starting a copy? Exact, with gate's bookkeeping (:meth:`_flight`) and nothing
        else: True when, for the first shared input ``ws`` neither holds nor awaits, every
        holder is already sending; False when gate may let it go or start a copy (the
        caller then asks gate). None: gate holds nothing (no comms, broadcasting off).

        Why: a held reader is looked at again whenever any copy starts or lands, and
        nearly always stays held (twin vorticity, 100 workers: 55,000 looks at 2,000
        readers of about 3 shared inputs each). For a run of looks with nothing happening
        between them (no copy started, no message handled), each input's holders, copies
        on their way and whether every holder is sending are found once per run."""
        if getattr(s, "stream_comms", None) is None or not self.enabled:
            return None
        memo: dict = {}
        per = self.per if self._nw == len(s.workers) else self._reper(s)

        def blocked(ts, ws) -> bool:
            addr = ws.address
            held = False
            for d in ts.dependencies:
                info = memo.get(d.key)
                if info is None:  # first met in this run: gate's bookkeeping happens here
                    who = d.who_has
                    if not who or not is_broadcast(d.nbytes, len(d.dependents)):
                        info = memo[d.key] = ()
                    else:
                        flight = self._flight(s, d, who)
                        info = memo[d.key] = (who, flight, len(flight) >= len(who) * per)
                if not info or held:
                    continue
                who, flight, full = info
                if ws in who or addr in flight:
                    continue
                if not full:
                    return False
                held = True
            return held

        blocked.memo = memo  # read by the plugin's bulk look (hooks.Plugin._skip_held)
        return blocked

    def sig(self, ts) -> frozenset:
        """The keys of ``ts``'s inputs that :meth:`blocked` treats as shared now (held
        somewhere, :func:`is_broadcast`). Kept per held reader: while every held reader has
        the same, the plugin may look at them in bulk. Of a queued task only a new graph
        can make another input shared (more dependents); one shared can stop being so
        (fewer dependents, no holder), which the bulk look checks."""
        return frozenset(d.key for d in ts.dependencies
                         if d.who_has and is_broadcast(d.nbytes, len(d.dependents)))

    def _flight(self, s, d, who) -> dict:
        """Copies of ``d`` on their way, with those that arrived or lost their receiver or
        sender dropped: looked at only when holders or workers changed in number, not at
        every placement."""
        workers = s.workers
        flight = self.flight.get(d.key)
        if flight is None:
            flight = self.flight[d.key] = {}
        seen = (len(who), len(workers))
        if flight and self._seen.get(d.key) != seen:
            self._seen[d.key] = seen
            # By address (dask keeps only current workers in who_has): a str's hash is
            # cached, a WorkerState hashes in Python, twice per copy on its way.
            holders = self.addresses(d.key, who)
            # Landed, receiver gone, or sender no longer a holder: found in C (a Python
            # pass over every copy on its way, at each landing, was a tenth of the
            # plugin's broadcast work, twin weighted 100x4); removing them in another
            # order leaves the same dict.
            gone = set(compress(flight, map(operator.not_,
                                            map(holders.__contains__, flight.values()))))
            gone.update(filter(holders.__contains__, flight))
            gone.update(filterfalse(workers.__contains__, flight))
            for dest in gone:
                del flight[dest]
            self.generation += len(gone)
        return flight

    def addresses(self, key, who) -> set:
        """The addresses of ``who`` (input ``key``'s holders; not to be changed), kept
        while its holders are the same WorkerStates. Why: a root reading a grid asked them
        of every holder, one WorkerState read from memory each (twin weighted 100x4: ~40
        holders per grid per root); the comparison with the copy kept goes through the
        two sets' tables, identity first with the hashes they store (no WorkerState read,
        no Python call)."""
        kept = self._holders.get(key)
        if kept is not None and kept[0] == who:
            return kept[1]
        holders = set(map(_address, who))
        self._holders[key] = (set(who), holders)
        return holders

    def _allowed(self, s, comms, d, candidates, stimulus_id):
        """The candidates that hold d or await a copy (in order), copies started for the
        others that holders can serve now. A root's free workers (an iterator, or what
        another shared input left of them: every free worker, 1,000 at 1,000 workers) are
        read lazily, as far as its placement or the copies read them, not listed whole
        four times per root: that was most of the scheduler's CPU per task at 1,000
        workers (twin weighted, while the copies spread). A list is filtered at once."""
        who = d.who_has
        workers = s.workers
        everywhere = len(who) == len(workers)  # (who_has keeps only current workers)
        flight = self.flight.get(d.key)
        if flight or not everywhere:
            flight = self._flight(s, d, who)
        elif flight is None:  # (what _flight does when no copy is on its way: no call)
            flight = self.flight[d.key] = {}
        if everywhere:
            # Every worker holds d: a candidate that is a worker is allowed, and
            # candidates are workers.
            if type(candidates) is _Replay:  # (its workers: another shared input's)
                return candidates
            if not isinstance(candidates, list):
                return _Replay(filter(workers.__contains__, candidates))
            allowed = list(filter(workers.__contains__, candidates))
            if len(allowed) == len(candidates):
                return allowed
        # Candidates that hold d or await a copy, and the others: by address, with C's
        # filters.
        lazy = not isinstance(candidates, list)
        holders = self.addresses(d.key, who)  # (who_has keeps only current workers)
        covered = holders.union(flight)
        per = self.per if self._nw == len(workers) else self._reper(s)
        every_holder_sending = len(flight) >= len(who) * per
        if lazy:
            # Candidates given as an iterator (a root's free workers, from _place) are
            # read once: when copies start, such a root keeps no worker and waits for a
            # copy to land (an accident of the code before, kept: re-reading them, the
            # root goes with its copy at once, changed weighted's fingerprints and its
            # twin makespan, 1,000 steps: 29.9 -> 34.0 s at 100x4 and 200 MB/s, 63.5 ->
            # 63.7 s at 20x4; peak and bytes equal).
            again = candidates if type(candidates) is _Replay else ()
            read = candidates if type(candidates) is _Replay else _Replay(candidates)
            allowed = _Replay(filter(covered.__contains__, read))
            if every_holder_sending:
                return allowed
            wanting = filterfalse(covered.__contains__, read)
        else:
            again = candidates
            allowed = list(filter(covered.__contains__, candidates))
            if len(allowed) == len(candidates) or every_holder_sending:
                return allowed
            wanting = filterfalse(covered.__contains__, candidates)
        if per == 1:  # busy or not is all broadcast_pairs reads: the idle holders only
            # (those sending left out before the sort: while copies spread, nearly every
            # holder is sending, and sorting them all per root cost O(h log h))
            idle = holders.difference(flight.values())
            if not idle:  # no copy can start: the candidates need no look
                return allowed
            if lazy:  # read as far as the first that needs a copy, if any
                first = next(wanting, None)  # (addresses are never None)
                if first is None:
                    return allowed
                wanting = chain((first,), wanting)
            sending = dict.fromkeys(sorted(idle), 0)
        else:
            sending = dict.fromkeys(sorted(holders), 0)
            for src in flight.values():
                if src in sending:
                    sending[src] += 1
        # No more copies than tasks left to place; at least one, for the task asking.
        most = max(1, len(d.waiters or ()) - len(who) - len(flight))
        started = set()
        # Workers receiving a copy of another shared input go last: a worker's incoming
        # copies take turns on its link, and two grids made on two workers were both sent
        # to a third, one after the other, while their holders waited for each other's
        # (twin seed weighted 4 x 1, 200 MB/s: first readers 40 ms later, 1.05-1.08x
        # queuing's makespan).
        if policy.BROADCAST_FRESH:
            receiving = self._receiving(s, d.key)
        else:
            receiving = {r for k, f in self.flight.items() if k != d.key for r in f}
        if receiving and per > 1 and self.level is None and policy.BROADCAST_PROBE_ALONE:
            # No probe while another input's copies are on their way (their senders and
            # receivers are its too): the tree (a smaller per than _holds and blocker
            # read: they then ask gate, which holds).
            per = 1
        if receiving and per > 1 and policy.BROADCAST_LEARN:
            pairs = self._pairs_apart(sending, wanting, most, per, receiving)
        else:
            if receiving:
                first, then = tee(wanting)
                wanting = chain(filterfalse(receiving.__contains__, first),
                                filter(receiving.__contains__, then))
            pairs = broadcast_pairs(sending, wanting, most, per)
        for dest, src in pairs:
            comm = comms.get(dest)
            if comm is None:
                continue
            if self.flush is not None:  # (the plugin's starts so far go first: their order)
                self.flush()
            comm.send({
                "op": "acquire-replicas", "who_has": {d.key: [src]},
                "nbytes": {d.key: d.nbytes},
                "stimulus_id": stimulus_id or f"tidegate-broadcast-{self.copies}",
            })  # fmt: skip
            flight[dest] = src
            started.add(dest)
            if policy.BROADCAST_LEARN:
                self._started(s, d, dest, src, stimulus_id)
            self.generation += 1
            self.copies += 1
            self.log.append((d.key, dest, src, stimulus_id))
        if started:  # in the candidates' order (least loaded first); covered: allowed
            allowed = [a for a in again if a in started or a in covered]
        return allowed

    def _receiving(self, s, key) -> set:
        """Workers awaiting a copy of a shared input other than ``key``, each input's
        copies that landed or lost their sender dropped first (:meth:`_flight`). Why: an
        input's last copies stay in its flight after they land until someone looks at it
        again, and after its readers are done nobody does (it is released, not forgotten,
        while its readers' results are held): the next computation's broadcast on the same
        scheduler took those workers for receivers of another input, and sent them no copy
        beyond the tree's (twin seed anomaly 5 x 4, senders free, two computations on one
        cluster: its second's copies in 2 hops, not 1; anom39)."""
        out: set = set()
        for k, f in list(self.flight.items()):
            if k == key or not f:
                continue
            ts = s.tasks.get(k)
            if ts is None:
                self.generation += len(f)
                f.clear()
                continue
            out.update(self._flight(s, ts, ts.who_has or ()))  # (None: released)
        return out

    @staticmethod
    def _pairs_apart(sending, wanting, most, per, receiving) -> list:
        """broadcast_pairs when a holder may send more than one copy at once: the copies
        beyond one per holder go only to workers receiving no other shared input. A
        worker's incoming copies take turns on its link: two grids' holders probing with
        2 copies each sent both to one of 3 workers, which got the second a transfer time
        late (twin seed weighted 4 x 1, senders limited: 2.40 -> 2.48 s)."""
        wanting = list(wanting)
        apart = [w for w in wanting if w not in receiving]
        pairs = broadcast_pairs(sending, apart, most, per)
        used = {src for _, src in pairs}
        idle = {h: 0 for h, n in sending.items() if not n and h not in used}
        if idle and len(pairs) < most:
            pairs += broadcast_pairs(idle, [w for w in wanting if w in receiving],
                                     most - len(pairs), 1)
        return pairs

    def _reper(self, s) -> int:
        """:attr:`per` for the workers now and what the copies measured so far say (a
        "free" verdict only while the workers' hosts are those it was made on:
        policy.kept_level; their hosts listed only then, when the workers' count changed)."""
        self._nw = len(s.workers)
        if self.level is not None and self.level > 0 and policy.BROADCAST_KEEP:
            hosts = frozenset(ws.host for ws in s.workers.values())
            self.level = kept_level(self.level, self._hosts, hosts)
        self.per = broadcast_per_sender(self.level, self._probe is not None, self._nw)
        return self.per

    def _started(self, s, d, dest, src, stimulus_id) -> None:
        """Copy of ``d`` to ``dest`` from ``src`` started: timed, in the group of ``src``'s
        copies of d started at about the same time (policy.joins_group: the readers one
        poke lets go each start one, a few ms apart on a real scheduler), or a new one."""
        now = _now(s)
        live = self._live.setdefault(src, [])
        g = live[-1] if live else None
        if g is None or g[6] != d.key or g[3] \
                or not joins_group(now - g[0], d.nbytes, getattr(s, "bandwidth", 0)):
            # (copies the sender sends besides a group's, before or after, can only make
            # its copies slower or further apart: a verdict of "slowed", the tree)
            g = [now, d.nbytes, 0, [], True, src, d.key]
            live.append(g)
        g[2] += 1
        if g[2] == 2 and self.level is None and self._probe is None:
            # The probe: until it lands, holders send one at a time (where a sender's
            # copies queue, every holder probing at once queued a copy behind each probe:
            # twin seed weighted 8 x 2, senders limited, 0.766 -> 0.838x queuing's time).
            self._probe = g
            self._nw = -1
        self.timed.append((d.key, dest, src, stimulus_id, now))
        self._starts[d.key, dest] = g

    def landed(self, s, worker, keys) -> None:
        """``worker`` reported copies of ``keys``: the copies of them it awaited are timed;
        a group whose copies have all landed is judged (policy.senders_free), and the
        fan-out follows the latest verdict."""
        now = None
        for k in keys:
            g = self._starts.pop((k, worker), None)
            if g is None:
                continue
            if now is None:
                now = _now(s)
            took = now - g[0]
            g[3].append(took)
            g[2] -= 1
            if took > 0 and g[1] / took > self.best_rate:
                self.best_rate = g[1] / took
            if g[2] > 0:
                continue
            if g is self._probe:  # landed: another may probe if this one told nothing
                self._probe = None
                self._nw = -1  # (per found again: _reper)
            live = self._live.get(g[5])
            if live is not None and g in live:
                live.remove(g)
                if not live:
                    del self._live[g[5]]
            if not g[4] or now - g[0] <= 0:
                continue
            if len(g[3]) == 1:
                continue
            free = senders_free(g[3], g[1],
                                copy_rate(self.best_rate, getattr(s, "bandwidth", 0)))
            self.level = (self.level or 0) + 1 if free else 0
            if free and policy.BROADCAST_KEEP:
                self._hosts = frozenset(ws.host for ws in s.workers.values())
            self._nw = -1
            self.verdicts.append((k, tuple(g[3]), free))

    def keep(self, old) -> None:
        """What ``old`` (the Broadcast this one replaces at a resync) learnt of the
        senders (policy.BROADCAST_KEEP): its verdict, best rate and hosts; nothing of its
        copies."""
        if old is not None and policy.BROADCAST_KEEP:
            self.level, self.best_rate, self._hosts = old.level, old.best_rate, old._hosts
            self._nw = -1

    def drop_worker(self, addr) -> None:
        """Worker ``addr`` left: the holder lists kept naming it go (:meth:`addresses`).
        Kept till their key was forgotten, they held the departed WorkerState (and all it
        references) for the whole computation; the next ask lists the holders afresh.
        Cost: O(keys kept), once per departure."""
        holders = self._holders
        for key in [k for k, (_, a) in holders.items() if addr in a]:
            del holders[key]

    def forget(self, key) -> None:
        if self._starts:  # copies that never landed: their groups are not judged
            for k, dest in [kd for kd in self._starts if kd[0] == key]:
                g = self._starts.pop((k, dest))
                if g is self._probe:
                    self._probe = None
                    self._nw = -1
                live = self._live.get(g[5])
                if live is not None and g in live:
                    live.remove(g)
                    if not live:
                        del self._live[g[5]]
        self.flight.pop(key, None)
        self._seen.pop(key, None)
        self._holders.pop(key, None)
        self.held.pop(key, None)


class _Replay:
    """A root's candidates, read from an iterator lazily: as the list of them made at once
    would be, iterated again from the start alike (Broadcast._allowed). A tee's copies:
    each reads from the start, what one read is kept for the others, in C."""

    __slots__ = ("_start",)

    def __init__(self, source) -> None:
        self._start = tee(source, 1)[0]

    def __iter__(self):
        return self._start.__copy__()

    def __bool__(self) -> bool:
        return next(self._start.__copy__(), None) is not None  # (addresses are never None)


_address = operator.attrgetter("address")  # (in C: no Python frame per holder)


def _now(s) -> float:
    """The scheduler's loop time: tornado's IOLoop.time() on a real scheduler, the
    virtual clock in the twin (sim.clock.VirtualLoop). Read only to time the copies a
    broadcast starts (policy.BROADCAST_LEARN)."""
    loop = getattr(s, "loop", None)
    return loop.time() if loop is not None else 0.0
