"""tidegate's policy inside a real dask.distributed scheduler.

dask's scheduler looks a few decisions up through ``self``; :class:`Plugin` replaces them on
the live scheduler instance (never on the class) and puts them back on :meth:`Plugin.uninstall`:

``is_rootish(ts)``
    Structural root detection (:func:`tidegate.policy.is_root`): a task whose inputs are all
    constants (none, DataNodes, scattered data, shared handles with a wide fan-out) or that
    is marked ``data_producer``. Key names and group sizes play no part. Tasks with
    restrictions, actors and tasks dask must not queue (P2P outputs) are never roots. It
    also remembers the task, because the next call, ``decide_worker_rootish_queuing_enabled()``,
    receives none.
``decide_worker_rootish_queuing_enabled()``
    Placement with co-assignment (:func:`tidegate.policy.place_root`) gated by admission
    (:func:`tidegate.policy.may_admit_root`): roots in flight per worker (roots processing
    plus root outputs no consumer has used yet) below ``ceil(saturation x threads)``, and
    held bytes plus the root's estimated output within the budget. ``None`` queues the task.
``stimulus_queue_slots_maybe_opened``
    Releases queued roots in priority order, looking a little past a head that waits for
    its partners' worker, so other workers are not left without work.
``check_idle_saturated``
    dask's own bookkeeping, then the memory gate: a busy worker over its budget is not
    "idle" (work stealing and dask's fast paths leave it alone). ``idle_task_count`` is kept
    empty: tidegate owns the queue, and dask's own queue bookkeeping stays consistent.

Work stealing never moves a root (the stealing extension treats roots like dask's "fast
tasks"), so co-assignment and the per-worker caps hold. A periodic callback re-examines the
queue, so a worker whose held bytes dropped without a stimulus gets work again.
``decide_worker_non_rootish`` is left alone: non-roots consume inputs, dask places them where
their input bytes are, and gating them by memory would only delay freeing it.

Two ways in: ``client.register_plugin(tidegate.distributed.Plugin(...))`` on any running
cluster, or ``dask scheduler --preload tidegate.distributed`` (``dask_setup`` below; options
from dask.config ``tidegate.distributed.*``). ``tidegate.distributed.uninstall(client)``
restores dask's behaviour (``remove_plugin`` alone does not call ``close()``).
"""

from __future__ import annotations

import inspect
import logging
import math
import time
import warnings
from collections import defaultdict

import dask.config
import distributed
from dask._task_spec import DataNode
from dask.utils import parse_bytes, parse_timedelta
from distributed.diagnostics.plugin import SchedulerPlugin
from packaging.version import Version
from tornado.ioloop import PeriodicCallback

from .policy import Policy, estimate_output, is_root, may_admit_root, place_root

logger = logging.getLogger("tidegate.distributed")

NAME = "tidegate"
# The distributed releases this module was written for; keep in sync with pyproject.toml.
SUPPORTED = (Version("2025.1.0"), Version("2027.0.0"))

# Methods replaced on the scheduler instance, with the parameters we expect (after self).
# "*name": keyword-only; "name=": has a default.
HOOKS = {
    "is_rootish": ("ts",),
    "decide_worker_rootish_queuing_enabled": (),
    "stimulus_queue_slots_maybe_opened": ("*stimulus_id",),
    "check_idle_saturated": ("ws", "occ="),
}
ATTRIBUTES = ("queued", "idle", "idle_task_count", "running", "WORKER_SATURATION", "tasks")

DEPTH = 4  # levels searched below a root for where its output meets others (and back up)
FANOUT = 16  # wider than this, a task's dependents have no single meeting place
_MISSING = object()


class UnsupportedDistributed(RuntimeError):
    """The running distributed does not have the scheduler hooks tidegate replaces."""


def check_compatible(scheduler_or_class) -> None:
    """Fail with a clear message unless the scheduler has the hooks we replace, with the
    signatures we expect (called at install time)."""
    cls = scheduler_or_class if isinstance(scheduler_or_class, type) else type(scheduler_or_class)
    where = f"distributed {distributed.__version__}"
    for name, expected in HOOKS.items():
        fn = getattr(cls, name, None)
        if not callable(fn):
            raise UnsupportedDistributed(
                f"tidegate.distributed needs Scheduler.{name}, which {where} does not have; "
                f"supported: distributed >={SUPPORTED[0]},<{SUPPORTED[1]}"
            )
        params = _shape(fn)
        if params != expected:
            raise UnsupportedDistributed(
                f"tidegate.distributed expects Scheduler.{name}({', '.join(expected)}), "
                f"{where} has {name}({', '.join(params)}); "
                f"supported: distributed >={SUPPORTED[0]},<{SUPPORTED[1]}"
            )
    if not isinstance(scheduler_or_class, type):
        missing = [a for a in ATTRIBUTES if not hasattr(scheduler_or_class, a)]
        if missing:
            raise UnsupportedDistributed(
                f"tidegate.distributed needs scheduler attributes {missing} missing in {where}"
            )
    # The placement hook gets no task: we rely on is_rootish(ts) being asked just before.
    try:
        src = inspect.getsource(cls._transition_waiting_processing)
    except (AttributeError, OSError, TypeError):
        src = None
    if src is not None:
        i, j = src.find("self.is_rootish(ts)"), src.find("self.decide_worker_rootish_queuing_enabled()")
        if not 0 <= i < j:
            raise UnsupportedDistributed(
                f"{where} no longer asks is_rootish(ts) before "
                "decide_worker_rootish_queuing_enabled(); tidegate.distributed cannot place roots"
            )
    v = Version(distributed.__version__.split("+")[0])
    if not SUPPORTED[0] <= v < SUPPORTED[1]:
        warnings.warn(
            f"tidegate.distributed is tested with distributed >={SUPPORTED[0]},<{SUPPORTED[1]}, "
            f"not {distributed.__version__}; the hooks it needs are present, proceeding",
            stacklevel=3,
        )


def _shape(fn) -> tuple:
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        kw = "*" if p.kind is p.KEYWORD_ONLY else ""
        default = "=" if p.default is not p.empty else ""
        out.append(f"{kw}{p.name}{default}")
    return tuple(out)


def _budget(value):
    """bytes / "4GB" -> bytes; a float in (0, 1] -> fraction of each worker's memory_limit;
    None -> unlimited."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return float(parse_bytes(value))
        except (ValueError, KeyError) as exc:
            raise ValueError(f"memory_limit={value!r} is not a size; use bytes or '4GB'") from exc
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"memory_limit must be a size > 0 or a fraction in (0, 1], got {value!r}")
    return float(value)


class Plugin(SchedulerPlugin):
    """Run tidegate's policy inside the dask scheduler it is registered with.

    ``saturation``: roots in flight per worker = ``ceil(saturation x threads)`` (default:
    dask.config ``tidegate.distributed.saturation``, else ``tidegate.saturation``).
    ``memory_limit``: each worker's budget for held bytes: bytes or ``"4GB"``, or a float in
    (0, 1] for a fraction of the worker's own ``memory_limit``; None: unlimited.
    ``interval``: how often the queue is re-examined without a stimulus.
    ``count_unmanaged``: add the heartbeat's recent unmanaged memory to held bytes (only
    meaningful when each worker is its own process).
    """

    name = NAME

    def __init__(
        self,
        saturation: float | None = None,
        memory_limit=None,
        interval="250ms",
        count_unmanaged: bool = False,
    ):
        if saturation is None:
            saturation = dask.config.get(
                "tidegate.distributed.saturation", dask.config.get("tidegate.saturation", 1.1)
            )
        self.policy = Policy("tidegate", saturation)
        if math.isinf(self.policy.saturation):
            raise ValueError("saturation must be finite; for no withholding use dask's "
                             "distributed.scheduler.worker-saturation: inf without tidegate")
        if memory_limit is None:
            memory_limit = dask.config.get("tidegate.distributed.memory-limit", None)
        self.memory_limit = _budget(memory_limit)
        self.interval = parse_timedelta(interval)
        self.count_unmanaged = bool(count_unmanaged)
        self.scheduler = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["scheduler"] = None
        for k in [k for k in state if k.startswith("_")]:
            del state[k]
        return state

    # -- SchedulerPlugin ------------------------------------------------------------------
    async def start(self, scheduler) -> None:
        self.install(scheduler)

    async def close(self) -> None:
        self.uninstall()

    def restart(self, scheduler) -> None:
        if self.scheduler is scheduler:
            self._reset()

    def remove_worker(self, scheduler, worker, **kwargs) -> None:
        if self.scheduler is not None:
            for book in (self._roots_processing, self._estimated, self._untouched_n):
                book.pop(worker, None)
            # Outputs that survive elsewhere (replicas) must not count against this address
            # later: consuming them would recreate its book at -1.
            for key in [k for k, addr in self._untouched.items() if addr == worker]:
                del self._untouched[key]

    def update_graph(self, scheduler, **kwargs) -> None:
        # New roots may have been queued behind a waiting head: look again soon.
        if self.scheduler is not None:
            scheduler.loop.add_callback(self._poke)

    def transition(self, key, start, finish, *args, **kwargs) -> None:
        """Bookkeeping per worker: roots processing and their estimates, root outputs no
        consumer has used yet; sizes seen. Called by dask right after each transition."""
        if self.scheduler is None:
            return
        if start == "processing":
            rec = self._processing.pop(key, None)
            if rec is not None:
                addr, est = rec
                self._roots_processing[addr] -= 1
                self._estimated[addr] -= est
        if finish != "memory":
            addr = self._untouched.pop(key, None)
            if addr is not None:
                self._untouched_n[addr] -= 1
            if finish == "forgotten":
                self._is_root_cache.pop(key, None)
        ts = self.scheduler.tasks.get(key)
        if ts is None:
            return
        if finish == "processing" and ts.processing_on is not None and self._root(ts):
            addr = ts.processing_on.address
            est = self._estimate(ts)
            self._processing[key] = (addr, est)
            self._roots_processing[addr] += 1
            self._estimated[addr] += est
        elif finish == "memory" and start == "processing":
            for dts in ts.dependencies:
                addr = self._untouched.pop(dts.key, None)
                if addr is not None:
                    self._untouched_n[addr] -= 1
            if self._root(ts):
                nbytes = ts.nbytes if ts.nbytes > 0 else 0
                g = ts.group.name
                if nbytes > self._group_max.get(g, 0):
                    self._group_max[g] = nbytes
                self._roots_max = max(self._roots_max, nbytes)
                addr = kwargs.get("worker")
                if addr is None and ts.who_has:
                    addr = next(iter(ts.who_has)).address
                if ts.dependents and addr is not None and key not in self._untouched:
                    self._untouched[key] = addr
                    self._untouched_n[addr] += 1

    # -- install / uninstall --------------------------------------------------------------
    def install(self, scheduler) -> None:
        """Replace the scheduler's decision points with tidegate's (idempotent)."""
        check_compatible(scheduler)
        previous = scheduler.__dict__.get("_tidegate")
        if previous is self:
            return
        if previous is not None:
            previous.uninstall()
        self.scheduler = scheduler
        self._saved = {name: scheduler.__dict__.get(name, _MISSING) for name in HOOKS}
        self._orig = {name: getattr(scheduler, name) for name in HOOKS}
        self._saved_saturation = scheduler.WORKER_SATURATION
        self._reset()
        scheduler.WORKER_SATURATION = self.policy.saturation
        scheduler.is_rootish = self._is_rootish
        scheduler.decide_worker_rootish_queuing_enabled = self._decide_worker
        scheduler.stimulus_queue_slots_maybe_opened = self._stimulus
        scheduler.check_idle_saturated = self._check_idle_saturated
        self._patch_stealing(scheduler)
        scheduler._tidegate = self
        # Catch up with work already under way.
        for ts in scheduler.tasks.values():
            if ts.state == "processing":
                self.transition(ts.key, "waiting", "processing")
            elif ts.state == "memory" and self._root(ts) and ts.who_has and ts.dependents:
                if not any(d.state == "memory" for d in ts.dependents):
                    addr = next(iter(ts.who_has)).address
                    self._untouched[ts.key] = addr
                    self._untouched_n[addr] += 1
        for ws in scheduler.workers.values():
            scheduler.check_idle_saturated(ws)
        self._pc = PeriodicCallback(self._poke, self.interval * 1000)
        scheduler.periodic_callbacks["tidegate"] = self._pc
        self._pc.start()
        logger.info("tidegate installed: %s", self.describe())
        self._poke()

    def uninstall(self) -> None:
        """Put dask's own methods back; tasks withheld by tidegate go to dask's queue."""
        s = self.scheduler
        if s is None:
            return
        self.scheduler = None
        if s.__dict__.get("_tidegate") is not self:
            return
        del s._tidegate
        pc = s.periodic_callbacks.pop("tidegate", None)
        if pc is not None:
            pc.stop()
        for name, saved in self._saved.items():
            if saved is _MISSING:
                s.__dict__.pop(name, None)
            else:
                setattr(s, name, saved)
        steal = s.extensions.get("stealing")
        if steal is not None and self._saved_steal is not None:
            if self._saved_steal is _MISSING:
                steal.__dict__.pop("steal_time_ratio", None)
            else:
                steal.steal_time_ratio = self._saved_steal
        s.WORKER_SATURATION = self._saved_saturation
        for ws in s.workers.values():
            s.check_idle_saturated(ws)
        stimulus_id = f"tidegate-uninstall-{time.time()}"
        if s.queued:
            if math.isinf(s.WORKER_SATURATION):
                # dask without queuing has no queue: let the tasks be decided afresh.
                s.transitions({ts.key: "released" for ts in s.queued.sorted()}, stimulus_id)
            else:
                s.stimulus_queue_slots_maybe_opened(stimulus_id=stimulus_id)
        logger.info("tidegate uninstalled")

    def _reset(self) -> None:
        self._processing: dict = {}  # root key -> (worker address, estimate)
        self._roots_processing: defaultdict = defaultdict(int)
        self._estimated: defaultdict = defaultdict(float)
        self._untouched: dict = {}  # root key -> worker address
        self._untouched_n: defaultdict = defaultdict(int)
        self._group_max: dict = {}
        self._roots_max = 0.0
        self._is_root_cache: dict = {}
        self._context = None  # (ts, ws or None): the task the next placement is for

    def _patch_stealing(self, scheduler) -> None:
        steal = scheduler.extensions.get("stealing")
        self._saved_steal = None
        if steal is None:
            return
        self._saved_steal = steal.__dict__.get("steal_time_ratio", _MISSING)
        original = steal.steal_time_ratio
        root = self._root

        def steal_time_ratio(ts):
            if root(ts):
                return None, None  # never stolen: keeps co-assignment and the caps
            return original(ts)

        steal.steal_time_ratio = steal_time_ratio
        for ts in list(steal.key_stealable):
            if root(ts):
                steal.remove_key_from_stealable(ts)

    def describe(self) -> str:
        budget = "unlimited" if self.memory_limit is None else (
            f"{self.memory_limit:g} of each worker's memory_limit" if self.memory_limit <= 1
            else f"{self.memory_limit:.0f} bytes per worker"
        )
        return f"saturation={self.policy.saturation}, budget {budget}"

    # -- views of a worker ----------------------------------------------------------------
    def budget(self, ws) -> float:
        b = self.memory_limit
        if b is None:
            return math.inf
        if b <= 1:
            return b * ws.memory_limit if ws.memory_limit else math.inf
        return b

    def held_bytes(self, ws) -> float:
        """Bytes of results the scheduler knows the worker holds (``WorkerState.nbytes``:
        in memory or spilled, replicas included) plus the estimated outputs of roots
        processing there (plus recent unmanaged memory, if asked)."""
        held = ws.nbytes + self._estimated.get(ws.address, 0.0)
        if self.count_unmanaged:
            held += max(0, ws.memory.unmanaged_recent)
        return held

    def roots_in_flight(self, ws) -> int:
        return self._roots_processing.get(ws.address, 0) + self._untouched_n.get(ws.address, 0)

    def _root(self, ts) -> bool:
        r = self._is_root_cache.get(ts.key)
        if r is None:
            r = self._is_root_cache[ts.key] = _structural_root(ts)
        return r

    def _estimate(self, ts) -> float:
        return estimate_output(math.nan, self._group_max.get(ts.group.name, 0), self._roots_max)

    def _may_take_some(self, ws) -> bool:
        if not ws.processing:
            return True
        return (
            self._roots_processing.get(ws.address, 0) < self.policy.root_cap(ws.nthreads)
            and self.held_bytes(ws) < self.budget(ws)
        )

    def _place(self, ts, workers):
        """The worker root ``ts`` should start on now, or None to keep it withheld."""
        partners = _partners(ts)
        est = self._estimate(ts)
        # Under a budget, a root of unknown size (none seen yet) probes alone on a worker:
        # otherwise the whole first wave would be admitted at an estimate of 0 bytes.
        probing = est == 0 and self.memory_limit is not None and not self._roots_max
        partner, admissible, idle, load = [], [], [], []
        for ws in workers:
            p = partners.get(ws, 0)
            busy = len(ws.processing)
            partner.append(p)
            idle.append(busy == 0)
            admissible.append(
                not (probing and self._roots_processing.get(ws.address, 0) and busy)
                and may_admit_root(
                    self._roots_processing.get(ws.address, 0),
                    self._untouched_n.get(ws.address, 0),
                    self.policy.root_cap(ws.nthreads),
                    p > 0,
                    self.held_bytes(ws),
                    est,
                    self.budget(ws),
                    busy == 0,
                )
            )
            load.append((self.roots_in_flight(ws) + busy) / ws.nthreads)
        i = place_root(partner, admissible, idle, load)
        return None if i is None else workers[i]

    # -- the replaced scheduler methods ---------------------------------------------------
    def _is_rootish(self, ts) -> bool:
        if self._root(ts):
            self._context = (ts, None)
            return True
        return False

    def _decide_worker(self):
        s = self.scheduler
        context, self._context = self._context, None
        if context is None:
            return None  # not asked by us or after is_rootish: stays queued for our stimulus
        ts, ws = context
        if ws is not None:
            return ws if ws in s.running else None
        if ts.state == "waiting" and s.queued:
            head = s.queued.peek()
            if head.priority < ts.priority:
                return None  # strict priority: queue behind better withheld roots
        if not s.running:
            return None
        return self._place(ts, _workers(s))

    def _stimulus(self, *, stimulus_id: str) -> None:
        s = self.scheduler
        if not s.queued or not s.running:
            return
        workers = _workers(s)
        if not any(self._may_take_some(ws) for ws in workers):
            return
        window = min(256, 4 * len(workers) + 8)
        for ts in list(s.queued.peekn(window)):
            if ts.state != "queued":
                continue
            ws = self._place(ts, workers)
            if ws is None:
                continue
            self._context = (ts, ws)
            s.transitions({ts.key: "processing"}, stimulus_id)
            self._context = None
            if not any(self._may_take_some(w) for w in workers):
                break

    def _check_idle_saturated(self, ws, occ: float = -1.0) -> None:
        s = self.scheduler
        self._orig["check_idle_saturated"](ws, occ)
        s.idle_task_count.discard(ws)  # tidegate owns the queue
        if ws.processing and ws.address in s.idle and self.held_bytes(ws) >= self.budget(ws):
            s.idle.pop(ws.address, None)

    def _poke(self) -> None:
        s = self.scheduler
        if s is not None and s.queued:
            s.stimulus_queue_slots_maybe_opened(stimulus_id=f"tidegate-poke-{time.time()}")


def _workers(s) -> list:
    return sorted(s.running, key=lambda ws: ws.address)


def _constant(ts) -> bool:
    return ts.run_spec is None or isinstance(ts.run_spec, DataNode)


def _structural_root(ts) -> bool:
    if ts.resource_restrictions or ts.worker_restrictions or ts.host_restrictions:
        return False
    if ts.actor or not ts._queueable:
        return False
    spec = ts.run_spec
    marked = bool(getattr(spec, "data_producer", False))
    return is_root(
        ((len(d.dependencies), len(d.dependents), _constant(d)) for d in ts.dependencies), marked
    )


def _partners(ts) -> dict:
    """Workers holding or computing inputs of the tasks where ``ts``'s output meets others:
    {WorkerState: count}. Searched a few levels down through single-input chains, then back
    up the other inputs' single-input chains."""
    meets = []
    frontier = [ts]
    for _ in range(DEPTH):
        nxt = []
        for t in frontier:
            if len(t.dependents) > FANOUT:
                continue
            for d in t.dependents:
                if len(d.dependencies) > 1:
                    meets.append((d, t))
                else:
                    nxt.append(d)
        if meets or not nxt:
            break
        frontier = nxt
    scores: dict = defaultdict(int)
    for m, via in meets:
        if len(m.dependencies) > FANOUT:
            continue
        for dts in m.dependencies:
            if dts is via:
                continue
            t = dts
            for _ in range(DEPTH):
                if t.who_has:
                    for ws in t.who_has:
                        scores[ws] += 1
                    break
                if t.processing_on is not None:
                    scores[t.processing_on] += 1
                    break
                if len(t.dependencies) != 1:
                    break
                t = next(iter(t.dependencies))
    return scores


# -- ways in and out -------------------------------------------------------------------
def dask_setup(scheduler) -> None:
    """``dask scheduler --preload tidegate.distributed`` (or the
    ``distributed.scheduler.preload`` config): options from dask.config
    ``tidegate.distributed.saturation`` / ``tidegate.distributed.memory-limit``."""
    scheduler.add_plugin(Plugin(), name=NAME)


def uninstall(client) -> bool:
    """Restore dask's own scheduling on the client's scheduler and remove the plugin.
    True if tidegate was installed."""
    return client.run_on_scheduler(_uninstall_on_scheduler)


def _uninstall_on_scheduler(dask_scheduler) -> bool:
    plugin = dask_scheduler.__dict__.get("_tidegate")
    if plugin is None:
        return False
    plugin.uninstall()
    for name, p in list(dask_scheduler.plugins.items()):
        if p is plugin:
            dask_scheduler.remove_plugin(name)
    return True


def installed(client) -> bool:
    """Is tidegate running inside the client's scheduler?"""
    return client.run_on_scheduler(lambda dask_scheduler: "_tidegate" in dask_scheduler.__dict__)


def LocalCluster(*args, plugin: Plugin | None = None, **kwargs):
    """A ``distributed.LocalCluster`` whose scheduler runs tidegate from the start.
    ``plugin`` defaults to ``Plugin()``; other arguments go to LocalCluster."""
    scheduler_kwargs = dict(kwargs.pop("scheduler_kwargs", None) or {})
    plugins = list(scheduler_kwargs.get("plugins", ()))
    plugins.append(plugin if plugin is not None else Plugin())
    scheduler_kwargs["plugins"] = plugins
    return distributed.LocalCluster(*args, scheduler_kwargs=scheduler_kwargs, **kwargs)
