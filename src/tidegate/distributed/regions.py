"""Compact regions: a spread group cut into one region a worker (policy.compact_regions)
and its roots placed in their region's worker, under policy.region_cap.

A mixin of :class:`tidegate.distributed.placement.Placement`.
"""

from __future__ import annotations

import math

from ..policy import (
    loads_at_once,
    regions_on,
    compact_regions,
)
from .. import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from . import walks as walks_module  # (WALKS_KEPT read there: one bound, set on walks)


def _started_on(ts):
    """The worker root ts runs or ran on (its result held there), or None."""
    ws = ts.processing_on
    if ws is None and ts.who_has:
        ws = next(iter(ts.who_has))
    return None if ws is None else ws.address


class Regions:
    """Plugin's compact regions of spread groups."""

    _caps = (-1, 0.0)  # (workers in the books, their caps summed): _spread_at_once's
    # Are all workers in the books of policy.SPREAD_REGION_THREADS+ threads (None: not
    # known; a worker booked or removed sets it so): _place asks _region_of only then.
    _wide_books = None

    def _spread_at_once(self, ts):
        """``Books.place``'s ``spread`` of a spread root ts: 2 where policy.SPREAD_CAP may
        act (ts's group loads whole at once under the count: policy.loads_at_once, over the
        caps of the workers in the books, summed again when their number changes), else
        True."""
        if not policy_module.SPREAD_CAP:
            return True
        return 2 if loads_at_once(len(ts.group), self._caps_summed()) else True

    def _caps_summed(self) -> float:
        """The caps of the workers in the books summed (kept while their number holds)."""
        books = self.books
        if self._caps[0] != len(books.workers):
            self._caps = (len(books.workers), sum(b.cap for b in books.workers.values()))
        return self._caps[1]

    def _workers_moved(self) -> None:
        """A worker booked or removed (hooks): what is kept of the books' workers is found
        again. Keyed by their number alone, it could name a gone worker where another came
        in its place (a nanny's restart), and a region's roots would wait for it."""
        self._wide_books = None
        self._caps = (-1, 0.0)
        self._regions.clear()

    def _region_of(self, ts):
        """The worker of root ts's compact region (policy.SPREAD_REGION), or None: ts's
        group is not placed by regions, or ts is in none. Kept per group while the group's
        size holds (a graph added to it: cut again) and no worker is booked or removed
        (``_workers_moved``)."""
        entry = self._region_entry(ts)
        return None if entry is None or entry[2] is None else entry[2].get(ts.key)

    def _region_entry(self, ts):
        """_region_of's kept entry of ts's group, ``(group, its size, {key: worker} or
        None, {worker: its region's size})``, cut (again) where not kept; None where the
        books' workers are found too narrow here."""
        if self._wide_books is None:
            workers = self.books.workers.values()
            self._wide_books = bool(workers) and min(
                b.threads for b in workers) >= policy_module.SPREAD_REGION_THREADS
            if not self._wide_books:
                return None
        group = ts.group
        entry = self._regions.get(group.name)
        if entry is None or entry[0] is not group or entry[1] != len(group):
            if len(self._regions) >= walks_module.WALKS_KEPT:
                self._regions.clear()
            cut = self._regions_of(ts)
            sizes: dict = {}  # (each worker's region size: policy.region_cap's REGION_LESS)
            for a in cut.values() if cut is not None else ():
                sizes[a] = sizes.get(a, 0) + 1
            entry = self._regions[group.name] = (group, len(group), cut, sizes)
        return entry

    def _regions_of(self, ts):
        """{key: worker} of ts's group, cut by policy.compact_regions, one region a worker
        in the books (sizes by their caps), where policy.regions_on the fewest threads a
        worker, ts's data is spread (its plan) and the group loads whole at once
        (policy.loads_at_once); else None. The group's roots are found from ts through
        their plans: each root's neighbours are the roots of its meetings' other inputs
        (in its group); a group not all reached so, or with a root meeting none of it,
        is not cut. With policy.REGION_WHOLE, every root's data must be spread (not ts's
        alone: the answer is the group's whichever root asks), and roots already started
        stay in their workers' regions."""
        group = ts.group
        workers = self.books.workers
        whole = policy_module.REGION_WHOLE
        if not workers or not loads_at_once(len(group), self._caps_summed()) \
                or not regions_on(min(b.threads for b in workers.values()), len(group),
                                  len(workers)) \
                or not self._plan(ts).spread:  # fmt: skip
            return None
        near: dict = {}  # key: the roots its data meets, of its group
        found = {ts.key: ts}
        todo = [ts]
        while todo:
            r = todo.pop()
            meets = near[r.key] = []
            plan = self._plan(r)
            if whole and not plan.spread:
                return None  # (a group mixing spread and unspread roots: not cut)
            for inputs in plan.inputs:
                for entry in inputs:
                    for c in entry[0]:
                        if c is not r and c.group is group:
                            meets.append(c.key)
                            if c.key not in found:
                                found[c.key] = c
                                todo.append(c)
        if len(found) != len(group) or not all(near.values()):
            return None  # (not all met from ts, or a root meeting none of its group)
        order = sorted(found.values(), key=lambda t: t.priority)
        index = {t.key: i for i, t in enumerate(order)}
        neighbours = [sorted({index[k] for k in near[t.key]}) for t in order]
        addrs = sorted(workers)
        caps = [workers[a].cap for a in addrs]
        total, n = sum(caps), len(order)
        sizes = [int(n * c // total) for c in caps]
        for k in range(n - sum(sizes)):  # (the remainder, a root each, first workers first)
            sizes[k % len(sizes)] += 1
        fixed = None
        if whole:
            at = {a: k for k, a in enumerate(addrs)}
            fixed = [at.get(_started_on(t), -1) for t in order]
        regions = compact_regions(neighbours, sizes, fixed)
        return {t.key: addrs[k] for t, k in zip(order, regions) if k >= 0}

    def _region_place(self, ts, target, stimulus_id, size=0):
        """``(worker or None, partners)`` for root ts of a group placed by regions: its
        region's worker ``target`` or none (it waits for it, as for a partner's worker),
        under policy.region_cap's cap (``Books.place``'s spread 3; ``size``: the roots of
        target's region), no meeting reserved."""
        partners = {target: 1}
        self._lacked = set()  # (none reserved: _wake_lacked wakes nothing for it)
        if target not in self._open:
            return None, partners
        return self.books.place(ts.key, math.nan, ts.group.name, partners, iter((target,)),
                                stimulus_id, set(), {}, (), 3, region=size), partners
