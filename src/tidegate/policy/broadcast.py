"""Copies of a widely shared input, holder to holder (a tree instead of every worker
pulling from the first holder)."""

from __future__ import annotations

import heapq
import math
import operator
from itertools import compress, islice

from .roots import SHARED_FANOUT

# Broadcasting a widely shared input (an input fed to SHARED_FANOUT or more tasks): copies
# are made holder to holder, each holder sending to at most BROADCAST_PER_SENDER workers at
# once, so the number of holders doubles per transfer time instead of every worker pulling
# from the first holder at once (n copies through one link take n transfer times; a tree
# takes about log2(n)). Below BROADCAST_MIN_BYTES a copy costs about a round trip: the
# waves would cost more than the queueing they avoid.
BROADCAST_PER_SENDER = 1
BROADCAST_MIN_BYTES = 1 << 20


def is_broadcast(nbytes: float, ndependents: int) -> bool:
    """Is an input of ``nbytes`` read by ``ndependents`` tasks copied by waves?"""
    return ndependents >= SHARED_FANOUT and nbytes >= BROADCAST_MIN_BYTES


# A broadcast that learns its fan-out (anom38; issue 9's seed anomaly with senders free).
# The tree (one copy per holder at a time) is right when a sender's copies share its link
# (a NIC: n copies at once take n transfer times) and costs log2(n) hops where they do not
# (dask's own LocalCluster hands data over in-process; the twin's ``--outgoing inf``):
# queuing's workers all fetch from the one holder at once, in one hop. The scheduler can
# tell the two apart from the copies it starts: while it does not know, a holder sends
# BROADCAST_PROBE copies at once (as cheap as the tree where the sender's copies queue: a
# holder's copies still land one per transfer time, and the tree's completion is later than
# the second's), one probe at a time, none while another input's copies are on their way
# (BROADCAST_PROBE_ALONE); when copies that shared a sender landed together
# (:func:`senders_free`), holders send more at once, doubling per such verdict up to
# BROADCAST_WIDE (:func:`broadcast_per_sender`); when they did not, one at a time (the
# tree). Times: the scheduler's loop clock from acquire-replicas sent to add-keys heard
# (broadcast.Broadcast.landed). 0: the tree always (BROADCAST_PER_SENDER).
# Off by default (anom38): senders free gain (twin seed anomaly 5 x 4 1.155 -> 1.080x
# queuing's time, weighted 8 x 2 1.150 -> 1.025x, 100 x 4 0.89-0.91x), senders limited
# hold except the twin's weighted 100 x 4 at 200 MB/s (+3.7%: the probe's second copy).
BROADCAST_LEARN = 0
BROADCAST_PROBE = 2
BROADCAST_WIDE = 64
# Copies that one sender started together were slowed by sharing it when they landed more
# than BROADCAST_SPREAD of one copy's time apart (a sender whose copies queue lands them one
# copy's time apart, whatever waited before them), or when the slowest took more than
# BROADCAST_SLACK times one copy's time (a link shared fairly slows each alike). One copy's
# time: its bytes at the best rate any copy of the run reached (no copy beats its link).
BROADCAST_SPREAD = 0.5
BROADCAST_SLACK = 1.5
# The fan-out grows by 2 ** BROADCAST_GROWTH per "free" verdict in a row (1: doubles, as
# anom38 built it). 2 (x4) reaches the wide fan-out in half the verdicts: twin weighted
# 100 x 4, senders free, 18.45 -> 17.50 s (1.199 -> 1.138x queuing's; anom39); senders
# whose copies queue never get a "free" verdict there, so they are not touched. The cost
# is a wrong "free" verdict's: it commits twice the copies to one sender before the next
# verdict corrects it.
BROADCAST_GROWTH = 1


def broadcast_per_sender(level, probing: bool = False, workers: int = 0) -> int:
    """Copies a holder may send at once, given what the copies measured so far say of
    the senders: ``level`` None (not known yet), 0 (a sender's copies slowed each other
    at the last verdict), n > 0 (n verdicts in a row found they did not: the fan-out
    doubles with each, up to BROADCAST_WIDE, so that a verdict wrong by chance commits
    few copies to one sender). ``probing``: copies started together to learn it are out:
    one at a time until they land (where a sender's copies queue, the probe's sender
    would otherwise take a third while its second waits, and other holders would queue
    copies of their own). ``workers``: how many there are; the probe
    sends no more copies at once than the tree's hops to them all (ceil(log2(workers))):
    where a sender's copies queue, its k-th lands at k transfer times, no later than the
    tree's last."""
    if not BROADCAST_LEARN:
        return BROADCAST_PER_SENDER
    probe = max(BROADCAST_PER_SENDER, BROADCAST_PROBE)
    if level is None:
        if probing:
            return BROADCAST_PER_SENDER
        hops = math.ceil(math.log2(workers)) if workers > 1 else 1
        return max(BROADCAST_PER_SENDER, min(probe, hops))
    if level <= 0:
        return BROADCAST_PER_SENDER
    return max(BROADCAST_PER_SENDER,
               min(BROADCAST_WIDE, probe << min(level * BROADCAST_GROWTH, 30)))


# The fan-out learnt is a property of the senders, not of a graph: kept across computations
# (Broadcast lives per install) and across the plugin's resyncs (a restart does not change
# the network); a "free" verdict is dropped (probe again) when a worker joins on a host it
# was not made on: a new machine's NIC may queue its copies, and a kept "free" verdict on
# senders that queue commits copies before a verdict corrects it (twin, level 1 kept on
# senders limited: seed weighted 8 x 2 0.752 -> 1.000x queuing's time, 5 x 1 0.948 ->
# 1.072; anom39). A "slowed" verdict is kept (the tree: the safe side). 0: forgotten at
# every resync, kept on any host (anom38's).
BROADCAST_KEEP = 1


def kept_level(level, hosts_then, hosts_now):
    """The fan-out level (broadcast_per_sender) to keep when the workers changed: a
    "free" verdict (level > 0) made on ``hosts_then`` holds only while every host now was
    among them; else not known (None: probe again)."""
    if not BROADCAST_KEEP or level is None or level <= 0:
        return level
    return level if hosts_now <= hosts_then else None


# The workers receiving copies of another shared input (broadcast.Broadcast._allowed: they
# go last; no probe while any) are found from copies really on their way: each other
# input's landed copies dropped first (Broadcast._receiving). 0: as read, with entries left
# from copies that landed after the last look at their input (anom39: a later
# computation's broadcast treated those workers as receiving).
BROADCAST_FRESH = 1

# No probe while copies of another shared input are on their way (twin vorticity-files
# 5 x 2, senders limited: three grids probed at once moved the readers' placement,
# 0.428 -> 0.511x queuing's time). 0: probe whenever the fan-out is not known.
BROADCAST_PROBE_ALONE = 1

# Copies of one input a sender starts within this fraction of one copy's expected time
# (its bytes over the scheduler's bandwidth estimate) count as started together.
BROADCAST_JOIN = 0.1


def joins_group(elapsed: float, nbytes: float, bandwidth: float) -> bool:
    """Does a copy started ``elapsed`` s after its sender's first copy of the same input
    (none landed yet) time that sender's sharing with it? Only if it started within
    BROADCAST_JOIN of the time one copy should take (``bandwidth``: dask's estimate,
    ``Scheduler.bandwidth``; 100 MB/s until heartbeats tell more); otherwise the first
    copy had most of its time alone and the two would look free on a sender that is not."""
    if elapsed <= 0:
        return True
    return bandwidth > 0 and elapsed <= BROADCAST_JOIN * nbytes / bandwidth


def senders_free(durations, nbytes: float, best_rate: float) -> bool:
    """Copies of ``nbytes`` each that one sender started together took ``durations`` (s,
    from the scheduler's sending to its hearing of each copy): did sharing the sender not
    slow them? ``best_rate``: the fastest bytes/s any copy of the run took (these
    included), so ``nbytes / best_rate`` is at least one copy's time on its link. Yes
    only when they landed within BROADCAST_SPREAD of that time of one another and the
    slowest took no more than BROADCAST_SLACK times it."""
    if len(durations) < 2 or best_rate <= 0:
        return False
    one = nbytes / best_rate
    fast, slow = min(durations), max(durations)
    return slow - fast <= BROADCAST_SPREAD * one and slow <= BROADCAST_SLACK * one


# One copy's time, the yardstick of senders_free, at no slower a rate than dask's own
# estimate (Scheduler.bandwidth: 100 MB/s configured, then learnt from the workers'
# transfers): on a real scheduler a copy's measured time is the message's round trip
# (acquire-replicas out, the receiver's gather, add-keys back) besides its bytes, and on a
# busy cluster that round trip is most of it: LocalCluster 4 x 1 at load 18-30, 8 MB
# copies from senders whose copies queue at 200 MB/s (40 ms apart) took 0.15-0.3 s each,
# the best rate seen was 37 MB/s, and the probe's pair, 47 ms apart, passed the spread
# test against 0.21 s ("free", wrong: 6 of 10 first verdicts on such senders; with this
# floor, none; learn40). dask's estimate bounds the yardstick: a spread of one transfer at
# that rate is not taken for noise. Twin (LEARN 1): no decision moves (its copies' rates
# reach dask's estimate). It also turns a busy cluster's right "free" verdicts into
# "slowed" (the tree: the safe side). 0: the best rate seen alone (anom38's).
BROADCAST_RATE_FLOOR = 1


def copy_rate(best_rate: float, bandwidth: float) -> float:
    """The bytes/s one copy's time is judged at (senders_free): the best any copy took,
    or dask's estimate ``bandwidth`` if faster (BROADCAST_RATE_FLOOR)."""
    if BROADCAST_RATE_FLOOR and bandwidth and bandwidth > best_rate:
        return bandwidth
    return best_rate


def broadcast_pairs(sending: dict, wanting: list, most: int,
                    per_sender: int = BROADCAST_PER_SENDER) -> list:
    """Which copies of one input start now: ``[(receiver, sender)]``.

    ``sending``: {holder: copies it is sending now}; ``wanting``: workers without a copy or
    one on its way, best first; ``most``: copies worth starting at all (no more than the
    tasks left to place). Each receiver gets the least busy holder (then the first in
    ``sending``'s order); a holder at ``per_sender`` takes no more."""
    if per_sender == 1:  # the idle holders in order, one receiver each (as the heap would)
        idle = compress(sending, map(operator.not_, sending.values()))
        return list(islice(zip(wanting, idle), max(most, 0)))
    return pairs_by_heap(sending, wanting, most, per_sender)


def pairs_by_heap(sending: dict, wanting: list, most: int, per_sender: int) -> list:
    """:func:`broadcast_pairs`' general rule: a heap of holders by copies sending, then
    by order."""
    heap = [(n, i, h) for i, (h, n) in enumerate(sending.items()) if n < per_sender]
    heapq.heapify(heap)
    out: list = []
    for w in wanting:  # O((holders + copies) log holders)
        if len(out) >= most or not heap:
            break
        n, i, h = heapq.heappop(heap)
        out.append((w, h))
        if n + 1 < per_sender:
            heapq.heappush(heap, (n + 1, i, h))
    return out
