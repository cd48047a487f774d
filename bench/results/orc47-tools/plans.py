"""Plans for oracle.py (see there). Each takes (tree, workers, threads, **params)."""

from __future__ import annotations

from oracle import Plan


def _finish(plan, tree, load_worker):
    """Chunk-means and stores go with their loads; the handle to worker 0."""
    plan.where[tree.handle] = 0
    for i, k in tree.loads.items():
        w = load_worker[i]
        plan.where[k] = plan.where[tree.cms[i]] = plan.where[tree.stores[i]] = w


def whole(tree, workers, threads, **_):
    """Groups of 4 loads whole, dealt round-robin; every combine on its first child's
    worker; the aggregate too. (A sanity plan.)"""
    plan = Plan(workers, threads)
    plan.name = "whole"
    lw = {}
    for j, l1 in enumerate(tree.by_level[1]):
        for i in tree.leaves[l1]:
            lw[i] = j % workers
    _finish(plan, tree, lw)
    for i in sorted(lw):
        plan.order[lw[i]].append(tree.loads[i])
    for lv in sorted(tree.by_level):
        for k in tree.by_level[lv]:
            c = tree.children[k][0]
            plan.where[k] = plan.where[c]
    plan.where[tree.agg] = plan.where[tree.children[tree.agg][0]]
    return plan


PLANS = {"whole": whole}


def _shares(n, workers, hosts, host_loads):
    """Loads per worker: hosts (the last ``hosts`` workers) ``host_loads`` each, the rest
    balanced over the loaders."""
    loaders = workers - hosts
    rest = n - hosts * host_loads
    base, extra = divmod(rest, loaders)
    return [base + (w < extra) for w in range(loaders)] + [host_loads] * hosts


def _deal(n, shares, piece=4):
    """Steps to workers in rounds: each round every worker with share left takes the next
    ``piece`` steps (fewer if its share ends): whole groups while shares last. Returns
    step -> worker and each worker's steps in order."""
    left = list(shares)
    lw, order = {}, [[] for _ in shares]
    i = 0
    while i < n:
        for w in range(len(shares)):
            take = min(piece, left[w], n - i)
            for _ in range(take):
                lw[i] = w
                order[w].append(i)
                i += 1
            left[w] -= take
            if i >= n:
                break
    return lw, order


def hosts(tree, workers, threads, hosts=2, host_loads=0, tail=1, cap=4, host_cap=None,
          up_local=1, **_):
    """Loaders take whole groups in rounds and combine them (level 1) where they were
    loaded, but their last ``tail`` groups (and any group split between workers) are
    combined on a host; level>=2 combines go to the sibling worker holding the first
    child if all their leaves were combined on loaders before the tail (``up_local``), else
    to a host; the aggregate to a host. Hosts (the last ``hosts`` workers) load
    ``host_loads`` each."""
    plan = Plan(workers, threads)
    plan.name = "hosts"
    shares = _shares(tree.n, workers, hosts, host_loads)
    lw, steps = _deal(tree.n, shares)
    _finish(plan, tree, lw)
    for w, ss in enumerate(steps):
        plan.order[w] = [tree.loads[i] for i in ss]
        plan.cap[w] = cap if w < workers - hosts else (host_cap or cap)
    host_ids = list(range(workers - hosts, workers))
    late = set()  # steps in a loader's last `tail` groups
    for w in range(workers - hosts):
        late.update(steps[w][-4 * tail:] if tail else [])
    hi = 0
    remote = set()
    for k in tree.by_level[1]:
        ws = {lw[i] for i in tree.leaves[k]}
        if len(ws) == 1 and not (late & set(tree.leaves[k])):
            plan.where[k] = ws.pop()
        else:
            plan.where[k] = host_ids[hi % hosts]
            hi += 1
            remote.add(k)
    for lv in sorted(tree.by_level):
        if lv == 1:
            continue
        for k in tree.by_level[lv]:
            kids = tree.children[k]
            if up_local and not any(c in remote for c in kids):
                plan.where[k] = plan.where[kids[0]]
            else:
                plan.where[k] = host_ids[hi % hosts]
                hi += 1
                remote.add(k)
    plan.where[tree.agg] = host_ids[hi % hosts]
    return plan


PLANS["hosts"] = hosts


def _ctl(*a, **kw):
    from ctl import controlled
    return controlled(*a, **kw)


PLANS["ctl"] = _ctl
