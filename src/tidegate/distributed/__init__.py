"""tidegate's policy inside a real dask.distributed scheduler.

Two ways in: ``client.register_plugin(tidegate.distributed.Plugin(...))`` on any running
cluster, or ``dask scheduler --preload tidegate.distributed`` (``dask_setup`` below; options
from dask.config ``tidegate.distributed.*``). Two ways out, both restoring dask's own
behaviour: ``tidegate.distributed.uninstall(client)`` or
``client.unregister_scheduler_plugin("tidegate")``.

Layout: the plugin and everything that touches ``SchedulerState`` (the twin installs it
on a bare state) is one class, ``hooks.Plugin``, written in hooks.py (events), install.py,
admission.py and placement.py, with tasks.py and lines.py beside them; server.py holds the
parts that need a live ``Scheduler`` (timer, stimulus, stealing, noticing removal).
Decisions: books.py and the policy package.
"""

from __future__ import annotations

import inspect
import warnings

import distributed
from packaging.version import Version

from .hooks import NAME, Plugin, _budget  # noqa: F401
from .install import STATE_HOOKS  # noqa: F401
from .server import SERVER_HOOKS

__all__ = [
    "Plugin", "dask_setup", "uninstall", "installed", "LocalCluster", "check_compatible",
    "UnsupportedDistributed", "NAME", "SUPPORTED", "HOOKS",
]  # fmt: skip

# The distributed releases this package is tested with; keep in sync with pyproject.toml
# and .ci/distributed-lowest (which runs the plugin's and the twin's tests on SUPPORTED[0];
# tests/test_distributed_pin.py checks all three agree). Before 2025.4 the client fuses the
# graph and the scheduler never sees the annotations (dask/dask#7036): tidegate_limit,
# tidegate_root and priority on fused graphs would be ignored there
# (bench/results/dist24-findings.txt).
SUPPORTED = (Version("2025.4.0"), Version("2027.0.0"))
HOOKS = {**STATE_HOOKS, **SERVER_HOOKS}
ATTRIBUTES = ("queued", "idle", "idle_task_count", "running", "WORKER_SATURATION", "tasks")


class UnsupportedDistributed(RuntimeError):
    """The running distributed does not have the scheduler hooks tidegate replaces."""


def check_compatible(scheduler_or_class) -> None:
    """Fail with a clear message unless the scheduler has the hooks we replace, with the
    signatures we expect (called at install time). Server hooks are checked on a live
    ``Scheduler``; a bare ``SchedulerState`` (the twin) needs only the state hooks."""
    cls = scheduler_or_class if isinstance(scheduler_or_class, type) else type(scheduler_or_class)
    where = f"distributed {distributed.__version__}"
    hooks = dict(STATE_HOOKS)
    if issubclass(cls, distributed.Scheduler):
        hooks.update(SERVER_HOOKS)
    for name, expected in hooks.items():
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
    # The placement hook gets no task: we rely on is_rootish(ts) being asked just before,
    # and on the queued -> processing move asking decide_worker_rootish_queuing_enabled().
    for method, needles in (
        ("_transition_waiting_processing",
         ("self.is_rootish(ts)", "self.decide_worker_rootish_queuing_enabled()")),
        ("_transition_queued_processing", ("self.decide_worker_rootish_queuing_enabled()",)),
    ):  # fmt: skip
        try:
            src = inspect.getsource(getattr(cls, method))
        except (AttributeError, OSError, TypeError):
            continue
        found = [src.find(n) for n in needles]
        if min(found) < 0 or found != sorted(found):
            raise UnsupportedDistributed(
                f"{where}: {method} no longer asks {' then '.join(needles)}; "
                "tidegate.distributed cannot place roots"
            )
    v = Version(distributed.__version__.split("+")[0])
    if not SUPPORTED[0] <= v < SUPPORTED[1]:
        older = " (annotations on fused graphs do not reach the scheduler there)" \
            if v < SUPPORTED[0] else ""  # fmt: skip
        warnings.warn(
            f"tidegate.distributed is tested with distributed >={SUPPORTED[0]},<{SUPPORTED[1]}, "
            f"not {distributed.__version__}{older}; the hooks it needs are present, proceeding",
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
