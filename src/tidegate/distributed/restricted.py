"""Limited tasks with restrictions (``dask.annotate(resources=..., tidegate_limit=...)``,
``workers=``, ``host=``).

dask never queues a restricted task (``validate_queued`` asserts it has none), so such a
task cannot be withheld in the queue as other limited tasks are. It is held where dask
itself holds a task no worker can take now: in ``no-worker``. The plugin's
``decide_worker_non_rootish`` answers None while one of the task's limits is full (the
task goes to, or stays in, ``no-worker``); when a limited task ends, the poke moves the
best held ones back to ``processing``, best priority first, while their limits have room;
dask then places them by their restrictions. dask retries ``no-worker`` tasks only when a
worker joins; uninstalling the plugin hands every held one back to dask the same way.

Caveat: with ``distributed.scheduler.no-workers-timeout`` set, a task held longer than
that is failed by dask as unrunnable.
"""

from __future__ import annotations


def restricted(ts) -> bool:
    return bool(ts.resource_restrictions or ts.worker_restrictions or ts.host_restrictions)


def held_by_limits(plugin, s) -> set:
    """The restricted limited tasks in ``no-worker`` (after a resync: rebuilt from dask)."""
    if not plugin.limits:
        return set()
    return {ts for ts in s.unrunnable if restricted(ts) and plugin._limit_names(ts)}


def hold(plugin, ts) -> bool:
    """Should restricted ``ts`` wait in ``no-worker`` for its limits? (remembered)"""
    names = plugin._limit_names(ts)
    if names and plugin.limits.full(names):
        plugin._held.add(ts)
        return True
    return False


def release(plugin, s, stimulus_id) -> None:
    """Move held tasks whose limits have room to ``processing``, best priority first."""
    held = plugin._held
    for ts in sorted(held, key=lambda t: t.priority):
        if ts.state != "no-worker" or s.tasks.get(ts.key) is not ts:
            held.discard(ts)
            continue
        if plugin.limits.full(plugin._limit_names(ts)):
            continue  # another limit may still have room for a later one
        held.discard(ts)  # placed, or held again by the hook if dask finds no worker
        plugin._apply({ts.key: "processing"}, stimulus_id)


def hand_back(plugin, s, stimulus_id) -> None:
    """On uninstall: dask's own placement for every held task."""
    recs = {ts.key: "processing" for ts in plugin._held if ts.state == "no-worker"}
    plugin._held = set()
    if recs:
        plugin._apply(recs, stimulus_id)
