"""A controller with the whole picture: loads go to fixed workers (shares planned offline:
``hosts`` workers load ``host_loads`` each, the rest balanced, whole groups dealt in
rounds), released in order on each worker only while the worker's projected bytes stay
under a cap; every combine (and the aggregate) placed, when ready, on the worker where its
footprint fits under the cap with the fewest bytes to fetch (ties: the fewest loads still to
come there, then the lowest projection); a combine that fits nowhere waits (dask's
``no-worker``) until something is freed. The cap ``T`` is in chunks (C = 190 MB).

It is a schedule of the same graph in the same twin (the oracle's hooks, see oracle.py),
with knowledge no online policy has: every worker's bytes exactly, every size in advance."""

from __future__ import annotations

from oracle import C, Oracle, Plan
from plans import _deal, _finish, _shares


class Controller(Oracle):
    def __init__(self, plan, tree, T, margin=0.0, pre=2.0, combine_first=True, keep=0.0, force=True):
        super().__init__(plan)
        self.tree = tree
        self.T = T * C
        self.margin = margin * C
        self.keep = keep * C
        self.force = force
        self.forced = 0
        self.whole_group = False
        self.bcast = False
        self.bcast_open = set()
        self.bcast_wait = {}
        self.stores = set(tree.stores.values())
        self.force_loads = True
        self.pre = pre * C  # what a load in flight will come to (itself + its chunk-mean)
        self.sizes = tree.model.sizes
        self.combines = set(tree.children)  # combines and the aggregate
        self.chosen: dict = {}
        self.pending: dict = {}  # combine key -> TaskState, ready, not placed
        self.loads_left = [len(o) for o in plan.order]
        self.combine_first = combine_first
        # level-1 combines planned on each worker (its whole groups) whose loads began
        self.l1_open = [set() for _ in range(plan.workers)]
        self.fixed = {}  # combine -> the workers it may go to (None: any)
        # loads of groups opened on each worker (local level-1 combine) not yet released:
        # reserved when the group opens, so an opened group always completes
        self.unreleased = [0] * plan.workers
        self.local_l1 = {}  # load key -> (worker, its level-1 combine) when planned local
        for k in tree.by_level[1]:
            ws = {plan.where[tree.loads[i]] for i in tree.leaves[k]}
            if len(ws) == 1:
                w = ws.pop()
                for i in tree.leaves[k]:
                    self.local_l1[tree.loads[i]] = (w, k)
                self.chosen[k] = w

    def transition(self, key, start, finish, *args, **kwargs) -> None:
        super().transition(key, start, finish, *args, **kwargs)
        if finish == "processing" and key in self.chosen and key in self.tree.level \
                and self.tree.level[key] == 1:
            self.l1_open[self.chosen[key]].discard(key)

    def decide(self, ts):
        key = ts.key
        if self.bcast and key in self.stores:
            w = self.plan.where[key]
            if w not in self.bcast_open:
                self.bcast_wait.setdefault(w, []).append(key)
                return None
        if key in self.combines:
            w = self.chosen.get(key)
            if w is None:
                self.pending[key] = ts
                return None
            return self.s.workers[self.addr[w]]
        return super().decide(ts)

    def proj(self, w) -> float:
        """Bytes worker w holds or will hold for what it was given: its held results, the
        outputs of its tasks processing (a load also its chunk-mean), inputs on their way,
        and the output of each level-1 combine planned there whose group has begun."""
        ws = self.s.workers[self.addr[w]]
        sizes = self.sizes
        n = ws.nbytes + 2 * C * len(self.l1_open[w])
        if self.whole_group:
            n += self.pre * self.unreleased[w]
        for ts in ws.processing:
            k = ts.key
            n += self.pre if k in self.roots else sizes.get(k, 0)
            for d in ts.dependencies:
                if ws not in (d.who_has or ()):
                    n += sizes.get(d.key, 0)
        return n

    def place(self, key, ts, force=False) -> int | None:
        fixed = self.fixed.get(key)
        if fixed is not None:
            cands = fixed
        else:
            cands = range(self.plan.workers)
        best = None
        sizes = self.sizes
        deps = ts.dependencies
        for w in cands:
            ws = self.s.workers[self.addr[w]]
            fetch = sum(sizes.get(d.key, 0) for d in deps if ws not in d.who_has)
            after = self.proj(w) + fetch + sizes.get(key, 0)
            if after + self.margin > self.T + 0.01 * C and not force:  # (+ the handle)
                continue
            if force:
                score = (after, fetch)
            score = (fetch, self.loads_left[w], after)
            if best is None or score < best[0]:
                best = (score, w)
        return None if best is None else best[1]

    def release(self, *, stimulus_id: str) -> None:
        s = self.s
        recs = {}
        if self.bcast and self.bcast_wait:
            self._broadcast(stimulus_id)
        lv = self.tree.level
        for key, ts in sorted(self.pending.items(), key=lambda kv: -lv[kv[0]]):
            if ts.state != "no-worker":
                self.pending.pop(key)
                continue
            w = self.place(key, ts)
            if w is not None:
                self.chosen[key] = w
                self.pending.pop(key)
                s.transitions({key: "processing"}, stimulus_id)
        if self.pending and self.force and not any(
                self.s.workers[a].processing for a in self.addr):
            # progress: the cluster idle, the deepest waiting combine goes where it fits best
            key, ts = min(self.pending.items(), key=lambda kv: -lv[kv[0]])
            if ts.state == "no-worker":
                self.chosen[key] = self.place(key, ts, force=True)
                self.pending.pop(key)
                self.forced += 1
                s.transitions({key: "processing"}, stimulus_id)
        # A combine waits for room: no worker opens a new group (finishing one is fine)
        closed = self.combine_first and self.pending
        started = False
        order, cap, nxt, proc = self.plan.order, self.plan.cap, self.next, self.processing
        for w in range(self.plan.workers):
            while nxt[w] < len(order[w]) and proc[w] < cap[w]:
                key = order[w][nxt[w]]
                opens = key in self.local_l1 and self.local_l1[key][1] not in self.l1_open[w]
                if not self.whole_group:
                    opens = opens and key[1] % 4 == 0
                if closed and opens:
                    break
                # an opened group's loads were reserved: only an opening (or a load of no
                # local group) asks for room, for all it will need
                need = 0.0 if (key in self.local_l1 and not opens) else (
                    4 * self.pre + 2 * C if opens else self.pre)
                if not self.whole_group:
                    need = self.pre
                if need and self.proj(w) + need + self.margin > self.T - self.reserve(w) + 0.01 * C:
                    # progress: a worker with nothing to do may always start its next load
                    ws = self.s.workers[self.addr[w]]
                    if ws.processing or not self.force or not self.force_loads:
                        break
                    if any(self.s.workers[a].processing for a in self.addr):
                        break  # (progress: only when the whole cluster is idle)
                key = order[w][nxt[w]]
                if s.tasks[key].state != "no-worker":
                    break  # not ready yet (its handle): released when it is
                nxt[w] += 1
                started = True
                got = self.local_l1.get(key)
                if got is not None:
                    if got[1] not in self.l1_open[w]:
                        self.l1_open[w].add(got[1])
                        self.unreleased[w] += 3  # its other three loads
                    else:
                        self.unreleased[w] -= 1
                self.loads_left[w] -= 1
                self.released.add(key)
                if s.tasks[key].state == "no-worker":
                    s.transitions({key: "processing"}, stimulus_id)

    def _broadcast(self, stimulus_id) -> None:
        """The aggregate reaches the workers in a doubling wave: with h workers holding
        it, the stores of 2h workers may start (each fetches it from one of the holders),
        instead of all 100 fetching it from the one worker that made it (19 s of its link)."""
        agg = self.s.tasks.get(self.tree.agg)
        if agg is None or agg.state != "memory":
            return
        holders = {self.addr.index(ws.address) for ws in agg.who_has}
        self.bcast_open |= holders
        allowed = 2 * len(holders)
        for w in list(self.bcast_wait):
            if w not in self.bcast_open and len(self.bcast_open) < allowed:
                self.bcast_open.add(w)
            if w in self.bcast_open:
                keys = [k for k in self.bcast_wait.pop(w) if self.s.tasks[k].state == "no-worker"]
                if keys:
                    self.s.transitions({k: "processing" for k in keys}, stimulus_id)

    def reserve(self, w) -> float:
        """Room kept on w beyond its projection before a load starts there."""
        return self.keep


def controlled(tree, workers, threads, T=16.0, hosts=0, host_loads=0, cap=4, margin=0.0,
               pre=2.0, combine_first=0, keep=0.0, force=1,
               hi_level=3, prio=1, whole_group=0,
               force_loads=1, bcast=0, **_):
    plan = Plan(workers, threads)
    plan.name = "ctl"
    shares = _shares(tree.n, workers, hosts, host_loads)
    lw, steps = _deal(tree.n, shares)
    _finish(plan, tree, lw)
    for w, ss in enumerate(steps):
        plan.order[w] = [tree.loads[i] for i in ss]
        plan.cap[w] = cap
    for k in tree.children:
        plan.where[k] = 0  # placed by the controller
    # The workers' order among ready tasks: combines (higher levels first), then
    # chunk-means, then loads in the plan's order, stores last (dask.order interleaves a
    # load of a later group before an earlier group's chunk-means on a worker).
    if prio:
        for k, l in tree.level.items():
            plan.priority[k] = (0, -l, tree.leaves[k][0])
        for i in tree.cms:
            plan.priority[tree.cms[i]] = (1, 0, i)
        for w, ks in enumerate(plan.order):
            for j, k in enumerate(ks):
                plan.priority[k] = (2, j, k[1])
        for i in tree.stores:
            plan.priority[tree.stores[i]] = (3, 0, i)
        plan.priority[tree.handle] = (0, -99, 0)

    def make(p):
        c = Controller(p, tree, T, margin, pre, bool(combine_first), keep, bool(force))
        c.whole_group = bool(whole_group)
        c.force_loads = bool(force_loads)
        c.bcast = bool(bcast)
        host_ids = list(range(workers - hosts, workers))
        if hosts:
            for k, l in tree.level.items():
                if l >= hi_level:
                    c.fixed[k] = host_ids
        return c

    plan.controller = make
    return plan
