"""The parts of tidegate.distributed that need a running dask ``Scheduler`` (a server with
an event loop), kept apart from the policy hooks so the twin can install the plugin on a
bare ``SchedulerState``: the periodic look at the queue, the stimulus dask calls when slots
may have opened, noticing ``unregister_scheduler_plugin``, and keeping roots unstealable.

Everything here is applied only when the scheduler has it, and undone by ``detach``.
"""

from __future__ import annotations

import dis
import inspect
import logging
import threading
import weakref

import numpy as np

from tornado.ioloop import PeriodicCallback

from ..policy import SHARED_FANOUT, keeps_its_worker, own_input, thieves_only_holders
from . import recompile

logger = logging.getLogger("tidegate.distributed")
dask_logger = logging.getLogger("distributed.scheduler")  # (as dask logs a plugin's failure)

_MISSING = object()
# Plugins attached in this process: the _materialize_graph patch (process-wide) is undone
# when the last one detaches (schedulers of one process may run on different threads).
_ATTACHED: weakref.WeakSet = weakref.WeakSet()
_ATTACHED_LOCK = threading.Lock()
# Scheduler (server) methods replaced on the instance: name -> expected parameters.
SERVER_HOOKS = {"stimulus_queue_slots_maybe_opened": ("*stimulus_id",)}


def is_server(scheduler) -> bool:
    return hasattr(scheduler, "periodic_callbacks") and hasattr(scheduler, "loop")


def attach(plugin, s) -> None:
    """Timer, stimulus, removal detection and stealing on a live ``Scheduler``."""
    plugin._server_saved = {
        name: s.__dict__.get(name, _MISSING) for name in (*SERVER_HOOKS, "remove_plugin")
    }
    if hasattr(s, "stimulus_queue_slots_maybe_opened"):
        # poke itself (called by keyword), not Install._guard's wrapper: poke keeps its own
        # fallback (an error in _poke: dask's stimulus), and the guard's test never held
        # here (``_fallback`` is set only inside poke's fallback, which calls dask's class
        # method; ``scheduler`` is None only inside uninstall, before detach puts dask's
        # back). One frame fewer a message (cpu47).
        s.stimulus_queue_slots_maybe_opened = plugin.poke
    original_remove = getattr(s, "remove_plugin", None)
    if original_remove is not None:

        def remove_plugin(name=None):
            # dask's unregister_scheduler_plugin only deletes the plugin from the dict; it
            # never calls close(). Restore dask's own methods when it is ours that goes.
            if plugin._folded is not None and name == plugin._folded[0]:
                unfold_stealing(plugin, s)  # (stealing itself named: back in the dict)
            ours = s.plugins.get(name) is plugin
            original_remove(name)
            if ours:
                try:
                    plugin.uninstall()
                except Exception as exc:  # (the client's unregister still succeeds)
                    plugin._error("uninstall", exc)
                    detach(plugin, s)  # (dask's methods back: poke, scheduler-less, waits)

        s.remove_plugin = remove_plugin
    _patch_stealing(plugin, s)
    with _ATTACHED_LOCK:
        _ATTACHED.add(plugin)
        patch_materialize()
    pc = PeriodicCallback(plugin._tick, plugin.interval * 1000)
    s.periodic_callbacks["tidegate"] = pc
    pc.start()
    fold_stealing(plugin, s)  # (not yet in the dict, as start() is called: at a graph)


def detach(plugin, s) -> None:
    unfold_stealing(plugin, s)
    pc = s.periodic_callbacks.pop("tidegate", None)
    if pc is not None:
        pc.stop()
    for name, saved in getattr(plugin, "_server_saved", {}).items():
        if saved is _MISSING:
            s.__dict__.pop(name, None)
        else:
            setattr(s, name, saved)
    _unpatch_stealing(plugin, s)
    with _ATTACHED_LOCK:
        _ATTACHED.discard(plugin)
        if not _ATTACHED:  # (another scheduler in this process may still need it)
            unpatch_materialize()


def soon(plugin, s, fn) -> None:
    """Run fn on the scheduler's loop after the current handler (outside dask's
    transitions); the twin, with no loop, calls poke itself."""
    loop = getattr(s, "loop", None)
    if loop is not None:
        loop.add_callback(fn)


def _patch_stealing(plugin, s) -> None:
    steal = getattr(s, "extensions", {}).get("stealing")
    plugin._saved_steal = None
    if steal is None:
        return
    plugin._saved_steal = steal.__dict__.get("steal_time_ratio", _MISSING)
    original = steal.steal_time_ratio
    asked = [None]  # the task _steal_transition found may be stolen, just now

    def steal_time_ratio(ts):
        if asked[0] is ts:  # (asked just before put_key_in_stealable called this)
            asked[0] = None
            return original(ts)
        try:
            if _never_stolen(ts, plugin):
                return None, None
        except Exception as exc:  # never break dask's stealing bookkeeping
            plugin._error("steal_time_ratio", exc)
        return original(ts)

    steal.steal_time_ratio = steal_time_ratio
    plugin._saved_thief = _MISSING
    if _thief_shape(steal):
        plugin._saved_thief = steal.__dict__.get("_get_thief", _MISSING)
        steal._get_thief = _fast_thief(plugin, steal, steal._get_thief)
    plugin._saved_steal_transition = _MISSING
    plugin._steal_closure = None
    if _transition_shape(steal):
        plugin._saved_steal_transition = steal.__dict__.get("transition", _MISSING)
        steal.transition = plugin._steal_closure = _steal_transition(
            plugin, steal, steal.transition, asked)  # fmt: skip
    for ts in list(steal.key_stealable):
        if plugin._root(ts):
            steal.remove_key_from_stealable(ts)


def fold_stealing(plugin, s) -> None:
    """Take the stealing extension out of ``s.plugins`` where it sits before the plugin,
    with only plugins between that do nothing at a transition (_passes_by: a LocalCluster
    has its WorkerStatusPlugin there): tidegate's hooks call its hooks first (transition,
    add_worker, remove_worker, restart: the ones WorkStealing has beyond SchedulerPlugin's
    no-ops), so every transition reaches the plugins in the order dask called them (and
    a worker's arrival or departure, but for the plugins _passes_by lets stealing's hooks
    follow). Why: dask's _transition calls each plugin in a loop (18 bytecodes a plugin,
    building a keyword dict), 4 times a task, and stealing's transition
    (_steal_transition) does something only where a task starts or leaves processing (2
    of the 4): twin rechunk-add 100 x 4, ~64 bytecodes a task.
    Only where _steal_transition is stealing's transition and both are in the dict
    (added by register_scheduler_plugin after start(): then at the first graph).
    unfold_stealing (detach) puts it back where it was."""
    if plugin._folded is not None or plugin._steal_closure is None:
        return
    steal = getattr(s, "extensions", {}).get("stealing")
    plugins = getattr(s, "plugins", None)
    if steal is None or type(plugins) is not dict \
            or steal.__dict__.get("transition") is not plugin._steal_closure:  # fmt: skip
        return
    keys = list(plugins)
    mine = [i for i, k in enumerate(keys) if plugins[k] is plugin]
    theirs = [i for i, k in enumerate(keys) if plugins[k] is steal]
    if len(mine) != 1 or len(theirs) != 1 or theirs[0] > mine[0] \
            or not all(map(_passes_by, (plugins[k] for k in keys[theirs[0] + 1:mine[0]]))):
        return  # fmt: skip
    name = keys[theirs[0]]
    plugin._folded = (name, steal, keys[:theirs[0]])
    plugin._steal_fold = plugin._steal_closure  # (Plugin.transition calls it)
    # (the closure's own extension: Plugin.transition reads its books to skip a call that
    # would return at once)
    plugin._steal_ext = plugin._steal_closure.steal
    del plugins[name]


def _passes_by(p) -> bool:
    """May stealing's hooks run after plugin ``p``'s, not before? Where ``p``'s transition
    is SchedulerPlugin's no-op and it has none of stealing's other hooks, or only
    WorkerStatusPlugin's (a LocalCluster's: it sends the worker's identity to the cluster
    manager, and reads nothing of stealing's)."""
    from distributed.diagnostics.plugin import SchedulerPlugin

    if "transition" in getattr(p, "__dict__", {}) \
            or getattr(type(p), "transition", None) is not SchedulerPlugin.transition:
        return False  # fmt: skip
    if type(p).__name__ == "WorkerStatusPlugin" \
            and type(p).__module__ == "distributed.scheduler":  # fmt: skip
        return True
    return all(getattr(type(p), h, None) is getattr(SchedulerPlugin, h)
               and h not in getattr(p, "__dict__", {})
               for h in ("add_worker", "remove_worker", "restart"))  # fmt: skip


def unfold_stealing(plugin, s) -> None:
    """Stealing back in ``s.plugins`` where fold_stealing took it from: after the last
    plugin before it then that is still there (else first)."""
    folded = plugin._folded
    if folded is None:
        return
    plugin._folded = plugin._steal_fold = plugin._steal_ext = None
    name, steal, before = folded
    plugins = getattr(s, "plugins", None)
    if plugins is None or name in plugins:
        return
    after = next((k for k in reversed(before) if k in plugins), None)
    items = list(plugins.items())
    plugins.clear()
    if after is None:
        plugins[name] = steal
    for k, v in items:
        plugins[k] = v
        if k == after:
            plugins[name] = steal


def folded_hook(plugin, hook, *args, **kwargs) -> None:
    """Stealing's ``hook`` called as dask calls a plugin's (an exception logged, the next
    plugin called all the same)."""
    folded = plugin._folded
    if folded is None:
        return
    try:
        getattr(folded[1], hook)(*args, **kwargs)
    except Exception as e:
        dask_logger.exception(e)


def _never_stolen(ts, plugin) -> bool:
    """Is ts never to be stolen (steal_time_ratio ``(None, None)``): a root (keeps
    co-assignment and the caps), or a task whose own inputs are all on its worker
    (policy.keeps_its_worker)?"""
    # (the plugin's cache first, plugin._root only on a miss: once per task)
    root = plugin._is_root_cache.get(ts.key)  # (rebuilt by _resync: read here)
    if root is None:
        root = plugin._root(ts)
    return root or _inputs_all_here(ts, plugin)


# What WorkStealing.transition reads (distributed 2025.1-2026.8): with these alone, and its
# *args / **kwargs unread, _steal_transition answers as it does.
_TRANSITION_NAMES = ("scheduler", "tasks", "remove_key_from_stealable", "_remove_from_in_flight",
                     "unknown_durations", "pop", "prefix", "name", "set", "processing_on",
                     "recalculate_cost", "put_key_in_stealable")


def _transition_shape(steal) -> bool:
    """Is this stealing extension's ``transition`` dask's as _steal_transition restates it
    (the same names read, its extra arguments unread)?"""
    fn = getattr(getattr(steal, "transition", None), "__func__", None)
    if not recompile.same_shape(fn, _TRANSITION_NAMES) \
            or fn.__code__.co_varnames[:6] != ("self", "key", "start", "finish", "args", "kwargs"):
        return False
    return not any(i.opname.startswith("LOAD_") and i.argval in ("args", "kwargs")
                   for i in dis.get_instructions(fn.__code__))  # fmt: skip


def _steal_transition(plugin, steal, original, asked):
    """dask's WorkStealing.transition (called by dask after every transition, 4 times a
    task), without the calls that would change nothing. Most tasks are never stolen under
    the plugin (_never_stolen: twin rechunk-add, slice-add, stack-sum, weighted and
    vorticity 100 x 4 put none of their tasks in stealing's books; anomaly 3%, running
    total half): then a task leaving processing is in none of them (nothing to take out
    while ``key_stealable``, ``in_flight`` and ``unknown_durations`` are empty: dask's
    calls pop nothing), and one starting is not put in them (put_key_in_stealable stores
    nothing for ``(None, None)``). Otherwise dask's own, as it is. Its calls cost the twin
    rechunk-add 100 x 4 ~130 bytecodes a task (two frames hashing the TaskState in Python,
    a set made per finish) that stored nothing. ``asked``: the plugin's steal_time_ratio's
    one-task memo (a task found here to be no root and to have inputs elsewhere is not
    asked that again by it, called at once by put_key_in_stealable)."""
    tasks = steal.scheduler.tasks

    def transition(key, start, finish, *args, stimulus_id=None, worker=None, metadata=None,
                   nbytes=None, startstops=None, status=None, thread=None, type=None,
                   typename=None, **kwargs) -> None:  # fmt: skip
        # (the finished task's keywords named, as in Plugin.transition: no **kwargs dict)
        if start == "processing":
            if steal.key_stealable or steal.in_flight or steal.unknown_durations:
                original(key, start, finish)  # (it reads no other argument)
                return
            if finish != "processing":
                return
        elif finish != "processing":
            return
        ts = tasks[key]
        try:  # (_never_stolen inlined: once per task)
            root = plugin._is_root_cache.get(key)
            if root is None:
                root = plugin._root(ts)
            if root or _inputs_all_here(ts, plugin):
                return
        except Exception:  # (steal_time_ratio, asked below, records it and falls back)
            steal.put_key_in_stealable(ts)
            return
        asked[0] = ts
        try:
            steal.put_key_in_stealable(ts)
        finally:
            asked[0] = None

    transition.__wrapped__ = original
    transition.steal = steal  # (read by fold_stealing: Plugin.transition's first test)
    return transition


def _inputs_all_here(ts, plugin) -> bool:
    """policy.keeps_its_worker for ts: its own inputs (policy.own_input, as the plugin's
    place_consumer counts them, against ``plugin.books``' roots_max) all held on the worker
    it is processing on; never while a worker is found clearly slower
    (policy.steals_beside_slower: ``plugin._slow_groups``), but a task placed by pace
    (policy.PACE_STAYS) stays whatever: its move weighed the paces already."""
    if plugin._pace_moved and ts.key in plugin._pace_moved:
        return True  # (moved by pace: policy.PACE_STAYS)
    if plugin._slow_groups:
        return False
    ws = ts.processing_on
    if ws is None:
        return False
    here = elsewhere = 0
    for d in ts.dependencies:  # (policy.own_input; its size and readers tests inlined: hot)
        if d.nbytes <= 0 or len(d.dependents) >= SHARED_FANOUT:
            continue
        if not d.dependencies and not own_input(d.nbytes, len(d.dependents), True,
                                                plugin.books.roots_max):  # fmt: skip
            continue
        if ws in (d.who_has or ()):
            here += 1
        else:
            elsewhere += 1
    return keeps_its_worker(here, elsewhere)


def _own_holders(ts, plugin):
    """The workers holding ts's own inputs (policy.own_input, as _inputs_all_here counts
    them) where policy.thieves_only_holders keeps its thieves among them, else None. Asked
    only of a task stealing looks for a thief for (a few per balance round); not while a
    worker is found clearly slower (policy.steals_beside_slower: dask's stealing)."""
    if plugin._slow_groups or ts.processing_on is None:
        return None
    holders: set = set()
    all_held = True
    for d in ts.dependencies:
        if d.nbytes <= 0 or len(d.dependents) >= SHARED_FANOUT:
            continue
        if not d.dependencies and not own_input(d.nbytes, len(d.dependents), True,
                                                plugin.books.roots_max):  # fmt: skip
            continue
        if d.who_has:
            holders.update(d.who_has)
        else:
            all_held = False
    return holders if thieves_only_holders(len(holders), all_held) else None


def _unpatch_stealing(plugin, s) -> None:
    steal = getattr(s, "extensions", {}).get("stealing")
    saved = getattr(plugin, "_saved_steal", None)
    if steal is None or saved is None:
        return
    for name, kept in (("steal_time_ratio", "_saved_steal"),
                       ("transition", "_saved_steal_transition"),
                       ("_get_thief", "_saved_thief")):
        saved = getattr(plugin, kept, None)
        if saved is _MISSING:  # (dask's own, the class's: drop the instance's)
            steal.__dict__.pop(name, None)
        elif saved is not None:
            setattr(steal, name, saved)
        setattr(plugin, kept, None)
    # Roots processing now were kept out of stealing: dask may move them again.
    for ws in s.workers.values():
        for ts in ws.processing:
            if ts not in steal.key_stealable:
                steal.put_key_in_stealable(ts)


def _thief_shape(steal) -> bool:
    """Does this dask's stealing pick a thief with ``_get_thief(scheduler, ts,
    potential_thieves, *, occupancies)`` and ``stealing_objective`` (distributed >= 2025.4)?"""
    fn = getattr(steal, "_get_thief", None)
    if fn is None or not hasattr(steal, "stealing_objective"):
        return False
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return params == ["scheduler", "ts", "potential_thieves", "occupancies"]


def _fast_thief(plugin, steal, original):
    """dask's ``_get_thief`` with the same answer, cheaper: the thief with the least
    ``(occupancy per thread + transfer time, stored bytes)``, the first in iteration order
    among equals (as ``min``). A worker's transfer time is the size of the inputs it lacks
    over the bandwidth (``get_comm_cost``): each input's holders and size are found once
    per call, and each worker costs a membership test per input, instead of a set
    difference and a generator per worker. Why it matters here: withholding roots leaves
    many workers idle, and dask asks every idle worker for every stealable task (twin
    anomaly, 1,000 workers: 22 s of the scheduler's 44 s went to ``stealing_objective``;
    dask's queuing keeps few idle). Session 6 costed only the workers holding no input
    this way; with the anomaly's mean copied to most workers, the others still cost
    270 µs per task at 1,000 workers, a third of the scheduler's CPU."""

    # One balance round (dask's ``balance`` passes one ``occupancies`` per round, fixed in
    # it, and changes no replica): each worker's occupancy, its steals in flight and each
    # input's holders by ``id``, found once per round (a WorkerState hashes in Python, an
    # int does not). Steals in flight change within a round only by the steal balance
    # requests after a call (``move_task_request``: that call's thief and the task's
    # worker), so those two are read again at the next call.
    in_flight = steal.in_flight_occupancy
    round_: list = [None]  # [occupancies, {id: occupancy}, {id: in flight}, {key: {id}}, moved]
    # The round's thieves as arrays (_Thieves), for the one potential_thieves set the
    # round passes to every call: [set, _Thieves] (24-46 calls per round at 100-1,000
    # workers in the twin's anomaly, each of which scanned every idle worker in Python).
    arrays: list = [None, None]

    def _get_thief(scheduler, ts, potential_thieves, *, occupancies):
        if ts.actor or plugin.scheduler is None:
            round_[0] = None
            return original(scheduler, ts, potential_thieves, occupancies=occupancies)
        if round_[0] is not occupancies:
            round_[:] = [occupancies, {id(w): o for w, o in occupancies.items()},
                         {id(w): v for w, v in in_flight.items()}, {}, ()]
            arrays[0] = arrays[1] = None
        occupancy, flying, holders = round_[1], round_[2], round_[3]
        moved = round_[4]
        for w in moved:
            flying[id(w)] = in_flight.get(w, 0)
        deps = []
        for d in ts.dependencies:
            who = holders.get(d.key)
            if who is None:
                who = holders[d.key] = {id(w) for w in d.who_has or ()}
            deps.append((who, d.get_nbytes(), d.key))
        if any(type(n) is not int for _, n, _ in deps):
            # Sizes summed in another order could round differently: dask's own search.
            round_[0] = None
            return original(scheduler, ts, potential_thieves, occupancies=occupancies)
        round_[4] = ()
        valid_workers = scheduler.valid_workers(ts)
        bandwidth = scheduler.bandwidth
        best = None
        if valid_workers is None and len(potential_thieves) >= _ARRAY_THIEVES:
            if arrays[0] is not potential_thieves:
                arrays[0] = potential_thieves
                arrays[1] = _Thieves(potential_thieves, occupancy, flying)
            found = arrays[1].best(potential_thieves, moved, flying, deps, bandwidth)
            if found is not False:
                best = found
            else:  # not as the arrays were built (a thief added, a NaN): dask's order
                arrays[0] = None
                best = _scan(potential_thieves, deps, occupancy, flying, bandwidth)
        else:
            if valid_workers is not None:
                valid_thieves = potential_thieves & valid_workers
                if valid_thieves:
                    potential_thieves = valid_thieves
                elif not ts.loose_restrictions:
                    return None
            best = _scan(potential_thieves, deps, occupancy, flying, bandwidth)
        if best is not None:
            round_[4] = (best, ts.processing_on)  # balance may move ts to best now
        return best

    def guarded(scheduler, ts, potential_thieves, *, occupancies):
        try:
            only = _own_holders(ts, plugin)  # (policy.thieves_only_holders)
            if only is not None:
                potential_thieves = {ws for ws in only if ws in potential_thieves}
                if not potential_thieves:
                    return None
            return _get_thief(scheduler, ts, potential_thieves, occupancies=occupancies)
        except Exception as exc:  # dask's own search for this call (never break balance)
            round_[0] = arrays[0] = None
            plugin._error("_get_thief", exc)
            return original(scheduler, ts, potential_thieves, occupancies=occupancies)

    guarded.__wrapped__ = original
    return guarded


def _scan(potential_thieves, deps, occupancy, flying, bandwidth):
    """dask's thief (see _fast_thief) by a look at each potential thief in turn."""
    cost: dict = {}  # bytes lacking -> transfer time (get_comm_cost's division)
    best = best_occ = best_nbytes = None
    for ws in potential_thieves:
        i = id(ws)
        lacking = 0
        for who, n, _ in deps:
            if i not in who:
                lacking += n
        far = cost.get(lacking)
        if far is None:
            far = cost[lacking] = lacking / bandwidth
        occ = (occupancy[i] + flying.get(i, 0)) / ws.nthreads + far
        nbytes = ws.nbytes
        # (occ, nbytes) < (best_occ, best_nbytes), as min compares dask's keys
        if best is None or occ < best_occ or (occ == best_occ and nbytes < best_nbytes):
            best, best_occ, best_nbytes = ws, occ, nbytes
    return best


_ARRAY_THIEVES = 32  # fewer potential thieves: the plain scan costs less than numpy's calls


class _Thieves:
    """One balance round's potential thieves as arrays, in the set's iteration order (a
    set keeps its order when members are discarded, the only change balance makes to it
    within a round): each call computes every thief's score as :func:`_scan` does, the
    same float operations in the same order, elementwise in numpy."""

    def __init__(self, potential_thieves, occupancy, flying) -> None:
        order = self.order = list(potential_thieves)
        ids = self.ids = list(map(id, order))
        n = len(order)
        self.pos = dict(zip(ids, range(n)))
        self.occ = np.fromiter(map(occupancy.__getitem__, ids), float, n)
        self.fly = np.array([flying.get(i, 0) for i in ids], dtype=float)
        self.nthreads = np.fromiter((w.nthreads for w in order), float, n)
        # A worker's stored bytes do not change within a round (no task finishes in it).
        self.nbytes = np.fromiter((w.nbytes for w in order), np.int64, n)
        self.alive = np.ones(n, dtype=bool)
        self.count = n
        self.masks: dict = {}  # key -> its holders among the thieves (widely held inputs)

    def best(self, potential_thieves, moved, flying, deps, bandwidth):
        """The thief, None when none is left, or False when the set is not as built."""
        pos, alive = self.pos, self.alive
        for w in moved:  # a steal requested by the last call: its thief and victim
            p = pos.get(id(w))
            if p is not None:
                self.fly[p] = flying[id(w)]
                if alive[p] and self.count > len(potential_thieves) \
                        and w not in potential_thieves:  # fmt: skip
                    alive[p] = False  # the thief, discarded by balance once busy
                    self.count -= 1
        if self.count != len(potential_thieves):
            return False
        if not self.count:
            return None
        n = len(self.order)
        lacking = np.full(n, sum(nb for _, nb, _ in deps), dtype=np.int64)
        for who, nb, key in deps:
            if len(who) * 8 < n:
                for i in who:
                    p = pos.get(i)
                    if p is not None:
                        lacking[p] -= nb
            else:
                mask = self.masks.get(key)
                if mask is None:
                    mask = self.masks[key] = np.fromiter(map(who.__contains__, self.ids),
                                                         bool, n)  # fmt: skip
                lacking -= np.where(mask, nb, 0)
        # (occupancy + in flight) / threads + lacking / bandwidth, as _scan's floats
        score = (self.occ + self.fly) / self.nthreads + lacking / bandwidth
        if np.isnan(score).any():
            return False
        score[~alive] = np.inf
        low = score.min()
        tied = np.flatnonzero(alive & (score == low))
        nbytes = self.nbytes[tied]
        return self.order[int(tied[np.argmin(nbytes)])]  # the first of the least bytes


def patch_materialize() -> None:
    """Annotations that survive fusion on a cluster (process-wide, idempotent; undone by
    :func:`unpatch_materialize` when the process's last plugin detaches).

    The scheduler materialises a client's expression itself
    (``distributed.scheduler._materialize_graph``) and takes annotations from
    ``expr.__dask_annotations__()``, read *after* low-level fusion, which drops them
    (dask/dask#7036). The wrapper adds those of the unoptimised layers, carried onto the
    fused tasks by :mod:`tidegate.annotations` (``priority``: the highest member's;
    ``tidegate_limit``: every member's; ``tidegate_root``; other kinds where all agree).
    Nothing changes for a graph without annotated layers; an error leaves dask's result.
    """
    import distributed.scheduler as dask_scheduler

    original = dask_scheduler._materialize_graph
    if getattr(original, "_tidegate", False):
        return

    def _materialize_graph(expr, validate):
        # (dsk, annotations) from 2025.5; 2025.4.x returns (dsk, dependencies, annotations)
        out = original(expr=expr, validate=validate)
        try:
            from .. import annotations

            dsk, by_type = out[0], out[-1]
            carried = annotations.carry(annotations.read(expr), dsk)
            for kind, values in carried.items():
                by_type.setdefault(kind, {}).update(values)
        except Exception:  # never break a graph submission over annotations
            logger.exception("tidegate: carrying annotations through fusion failed")
        return out

    _materialize_graph._tidegate = True
    _materialize_graph.__wrapped__ = original
    dask_scheduler._materialize_graph = _materialize_graph


def unpatch_materialize() -> None:
    """dask's own ``_materialize_graph`` back, unless another wrapper went on top of ours
    since (undoing it would drop theirs; ours under it only adds annotations)."""
    import distributed.scheduler as dask_scheduler

    current = dask_scheduler._materialize_graph
    if getattr(current, "_tidegate", False):
        dask_scheduler._materialize_graph = current.__wrapped__
