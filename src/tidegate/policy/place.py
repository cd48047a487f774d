"""Placement: which worker a root or a consumer goes to (partners, held bytes, combines,
spreads off a busy holder); what to spill."""

from __future__ import annotations

import math

from .roots import OWN_PARTNERS_FIRST, SHARED_BY_LOAD, SHARED_FANOUT, by_load
from .sizes import NOT_DATA_RATIO


def place_root(partner, admissible, idle, load, shared=None, by_load=False) -> int | None:
    """Which worker should a root go to now? Index into the per-worker sequences, or None
    (keep it withheld).

    ``partner[w]``: how many inputs of the root's consumers are held or being computed on
    worker w; ``admissible[w]``: ``may_admit_root`` for w; ``idle[w]``: nothing processing
    on w; ``load[w]``: how busy w is (lower is better).

    Roots whose outputs meet downstream go to the same worker: the admissible worker with
    the most partners. When partners exist but none of their workers may admit now, the root
    waits for them while one of them is busy (a slot frees there when its tasks end; later
    roots keep the other workers busy meanwhile); only when every partner's worker is idle
    and still refuses (its data waits for consumers elsewhere) may an idle worker take it.
    Sending it to any idle worker at once split pairs whenever the partner's worker had its
    roots processing at the cap: on a free network half of vorticity-files' steps moved a
    32 MB read. Without partners, the least loaded admissible worker.

    ``shared[w]``: of ``partner[w]``, those that are inputs several tasks read (grids read by
    every step of a short series, a stencil's block): they rank the admissible workers but
    are no reason to wait, since they are copied once per worker whatever happens: waiting
    for the grids' busy worker left the other worker of a 2-worker cluster idle for a whole
    vorticity-files run, and the first held every read.

    ``by_load`` (:func:`by_load`: every input of its meetings is read by others too): with
    shared partners only, the least loaded admissible worker, the fewest partners breaking
    ties (:data:`SHARED_BY_LOAD`): seed weighted's second 8 MB chunk loaded beside the
    first, doubling that worker's peak (bench/results/tail32-findings.txt).
    """
    n = len(admissible)
    own = partner if shared is None else [p - s for p, s in zip(partner, shared)]
    # With partners of its own somewhere, only their workers are ranked here (shared ones
    # rank among those): a worker holding shared inputs only is no partner's.
    mine = shared is not None and any(p > 0 for p in own)
    ranked = own if OWN_PARTNERS_FIRST and mine else partner
    if SHARED_BY_LOAD and by_load and shared is not None and not mine:
        # Shared partners only: copied to every worker using them wherever the root goes,
        # so the least loaded admissible worker, the fewest partners breaking ties (the
        # root's data is copied to them too: apart, each worker holds less at once).
        sign = -1 if SHARED_BY_LOAD == 2 else 1
        best = None
        for w in range(n):
            if admissible[w] and (best is None or (-load[w], sign * partner[w])
                                  > (-load[best], sign * partner[best])):
                best = w
        return best
    best = None
    for w in range(n):
        if admissible[w] and ranked[w] > 0:
            if best is None or (partner[w], -load[w]) > (partner[best], -load[best]):
                best = w
    if best is not None:
        return best
    candidates = range(n)
    if any(p > 0 for p in own):
        if any(own[w] > 0 and not idle[w] for w in range(n)):
            return None
        candidates = [w for w in range(n) if idle[w]]
    best = None
    for w in candidates:
        if admissible[w] and (best is None or load[w] < load[best]):
            best = w
    return best


# The plugin's idle-worker split (admission._split) asks _splits again of roots parked
# before their reduction's first task returned (its sizes learnt since), as _park would now:
# kept from then on (a busy worker holding less may take one); an idle worker holding its
# even share of the roots' group (holds_share) and more than another (_heavier) takes none
# of them; 0: asked only when parked (before tail34).
SPLIT_KEPT_ANEW = 1


def holds_share(count: int, group: int, workers: int) -> bool:
    """Does a worker holding or processing ``count`` roots of a task group of ``group`` roots
    hold its even share of them over ``workers`` running workers (``ceil(group /
    workers)``)? Asked by the plugin's idle-worker split (``SPLIT_KEPT_ANEW``) of a root
    parked before its reduction's first task returned and now known to reduce: an idle
    worker holding its share takes it only if it holds no more than the others (``_heavier``,
    :func:`places_by_held`); below its share it takes it as before. Why: twin seed anomaly
    6 x 2 (12 loads in 3 groups of 4, cap 3, senders limited): a load parked ~1 ms before
    the first chunk-mean's size was known started on an idle worker holding 2 loads of
    another group, 3 loads there: 1.27x queuing's peak in every run. Asked of every idle
    worker, one reduction group's loads 3x slower at 4 x 1 (bench/twin_slow_worker.py):
    a load waited for the least holding worker's slot while two idled (4/3/3/2 loads,
    1.23x queuing's makespan against 1.09x)."""
    return workers > 0 and count >= -(-group // workers)


SPLIT_HELD = True  # split_gains: a root splits from a busy partner only by held data; False: old


def split_gains(meetings, dependencies, held, readers, saturated: bool = True) -> bool:
    """May a root parked for its partners' busy worker start on an idle worker instead
    (the plugin's ``Admission._split``)? Not for a pair whose partner is still to be
    computed: where every meeting has two inputs of its own (``readers``: read by fewer
    than ``SHARED_FANOUT`` tasks; a shared grid is no partner's), none of them held
    (``held``: in memory). The partner then waits on its busy worker (queued behind its
    running task): the meeting waits for it wherever the root loads, and the split adds a
    copy of one side to that wait. A meeting of more inputs still splits (its partners
    load side by side, not one after another on the busy worker), and so does a root whose
    partners' workers are not ``saturated`` (some has a thread free: it refuses the root for
    another reason, a memory budget, that may hold long after the partner is computed;
    twin vorticity 8 x 2 under a 200 MB budget: waiting, 4.133 s against 3.982). Why:
    twin vorticity-files 4 x 1 (bench/results/tail31-findings.txt): the last step's first
    read was sent to a busy one-thread worker, queued behind a 160 ms vorticity; an idle
    worker took the step's second read (the split), and the meeting waited for the first
    read and then a 32 MB copy (160 ms at 200 MB/s): 1.211 s, 1.086 waiting. The split
    was made for a reduction's held chunk means (zarr anomaly 2 x 1, admission._split):
    there the partners are held. ``meetings``: the root's (``MeetingPlan.meetings``)."""
    if not SPLIT_HELD or not saturated:
        return True
    for m, _ in meetings:
        own = 0
        for d in dependencies(m):
            if readers(d) < SHARED_FANOUT:
                if held(d):
                    return True
                own += 1
        if own != 2:
            return True  # no pair (several partners load side by side): split
    return False


def place_consumer(local: dict, chosen):
    """Where should a task that is not a root run? ``local``: {worker: bytes of its inputs
    held there, inputs read by many tasks left out}; ``chosen``: the runtime's own choice
    (dask's: the worker where it would start soonest, counting transfers).

    The runtime's choice stands when it holds as many of those bytes as any worker (it
    balances load among equals); otherwise the task goes where most of them are. A data
    input read by many tasks (a grid, broadcast weights) is copied to every worker using it
    and must not pull its consumers elsewhere: leaving it out of ``local``, the consumer of
    two co-located loads follows them, though a busy worker made dask ship 380 MB off it.
    """
    if not local:
        return chosen
    best = max(local.values())
    if local.get(chosen, 0) >= best:
        return chosen
    return min(w for w, b in local.items() if b == best)


def pulls_consumer(nbytes: float, largest_root: float) -> bool:
    """Does an input computed from nothing (a root) count among a consumer's own input
    bytes for :func:`place_consumer`? Not when it is tiny beside what roots load
    (``NOT_DATA_RATIO``, as :func:`holds_data` and :func:`second_input`): an indexer, e.g.
    xarray's groupby shuffle-taker (~280 bytes), read with a 15.6 MB zarr chunk by the
    shuffle-split that cuts the chunk by month. The chunk, read by its ~30 day slices too,
    is left out of ``local`` as an input read by many; the indexer alone then decided and
    the split went to the indexer's worker, copying the chunk."""
    return not (0 <= nbytes and NOT_DATA_RATIO * nbytes < largest_root)


def own_input(nbytes: float, readers: int, from_nothing: bool, largest_root: float) -> bool:
    """Is an input of a task that is not a root one of its *own* inputs for placement: in
    :func:`place_consumer`'s ``local`` bytes, and counted by :func:`keeps_its_worker`?
    Of known size (``nbytes`` > 0), read by fewer than ``SHARED_FANOUT`` tasks (one read by
    many, a grid or broadcast weights, is copied to every worker using it and must not pull
    its readers), and, when computed from nothing (no inputs: constants embedded in the
    graph too), not tiny beside what roots load (:func:`pulls_consumer`: an indexer).
    ``largest_root``: the books' ``roots_max``. One definition for both questions: they
    differed (stealing counted a tiny indexer held elsewhere, so it could take a task
    whose data was all where it ran, and left constants aside however large)."""
    return 0 < nbytes and readers < SHARED_FANOUT and (
        not from_nothing or pulls_consumer(nbytes, largest_root))


# A task that is not a root whose one input that is data is read by SHARED_FANOUT or more
# tasks (so no own input: own_input), the rest tiny roots (an indexer), runs where that
# input is held when that holder has a free thread or, on one thread, is at most one task
# busier than dask's choice (5); a free thread or a thread's worth busier on any worker (3:
# on two threads 4 x 2 over 1.05x peak 5 -> 7, 2 x 2 time 3 -> 7); one task busier on any
# (4); a free thread only (1); always (2: time 1.04x median at 4 x 1); 0: dask's choice
# (occupancy and the copy's cost). Twin groupby store 4 x 1 g4 s2: each chunk's
# shuffle-split (the chunk, read by its ~30 day slices, and the shuffle-taker) went to the
# taker's worker, copying two whole chunks there: 1.27x queuing's peak, 0.88x at 5 (grp48b).
CUT_AT_HOLDER = 5


def cut_at_holder(data_inputs: int, largest_input: float, largest_root: float,
                  holder_processing: int, holder_threads: int, chosen_processing: int) -> bool:
    """Does a task with no own input (:func:`own_input`) go to the holder of its largest
    input rather than dask's choice? ``data_inputs``: its inputs not tiny beside what roots
    load (:func:`pulls_consumer`'s test, whatever computed them): one alone, of
    ``largest_input`` bytes (a chunk read by its cut pieces, not a broadcast beside other
    data); ``holder_processing`` / ``holder_threads``: that holder's book,
    ``chosen_processing``: dask's choice's (CUT_AT_HOLDER: on two threads the slack moved
    the tails, on one it mends them)."""
    if not CUT_AT_HOLDER or data_inputs != 1 or not pulls_consumer(largest_input, largest_root):
        return False
    return CUT_AT_HOLDER == 2 or holder_processing < holder_threads or (
        CUT_AT_HOLDER == 3 and holder_processing <= chosen_processing + holder_threads) or (
        CUT_AT_HOLDER == 4 and holder_processing <= chosen_processing + 1) or (
        CUT_AT_HOLDER == 5 and holder_threads == 1 and holder_processing <= chosen_processing + 1)


# A task that is not a root, placed by dask beside its one data input read by many (a
# month's climatology stack, 0.52 MB, read by its ~62 day slices), goes to the least busy
# other running worker when the holder has a threads' worth queued behind its threads and
# the input is a small copy (at most 1 / SPREAD_COPY of a root's output): 1 where that
# worker has a free thread, 2 where it is at least a task a thread less busy; 0: dask's
# choice. dask's occupancy counts the day slices (0.1 ms each), not the stores that follow
# each one to its worker (4.5 ms): twin groupby store 2 x 4, a month's 60 day slices and
# stores all on the stack's worker (123 processing) while the other had 11 (grp49b, grp50).
# At 2 (60 namings): 2 x 4 time over 1.05x 12 -> 9, worst 1.16 -> 1.11; 8 x 4's median time
# +0.6% (still 0.90x). Not on one-thread workers: there the stores, their inputs split,
# queued 43 on one worker while three idled (4 x 1 g7 s4 1.08 -> 1.29x queuing's time).
# Only on clusters of at most SPREAD_FANOUT_WORKERS: each move copies the input to a new
# worker, all from the holder's link; on many workers the slices spread one a worker
# (rev50m: 100 stacks of 62 slices on 100 x 4, 2.68 -> 3.67 s, 1.32x queuing's time; 20 x
# 4 1.02x; measured to gain on 2-8 workers only).
SPREAD_FANOUT = 2
SPREAD_COPY = 8
SPREAD_FANOUT_WORKERS = 8


def spreads_from(largest_input: float, largest_root: float, chosen_processing: int,
                 chosen_threads: int, workers: int = 2) -> bool:
    """The holder's half of :func:`spreads_fanout`: is dask's choice busy enough and the
    input small enough that another worker may take the task, on a cluster of ``workers``
    running workers? (Asked before the bodies look at the other workers.)"""
    return bool(SPREAD_FANOUT) and workers <= SPREAD_FANOUT_WORKERS and chosen_threads >= 2 \
        and chosen_processing >= 2 * chosen_threads \
        and pulls_consumer(largest_input, largest_root) \
        and SPREAD_COPY * largest_input <= largest_root  # fmt: skip


def spreads_fanout(largest_input: float, largest_root: float, chosen_processing: int,
                   chosen_threads: int, other_processing: int, other_threads: int) -> bool:
    """Does a task with no own input (:func:`own_input`) whose one data input (of
    ``largest_input`` bytes, :func:`pulls_consumer`) dask's choice holds go to another
    worker instead? ``chosen_*`` / ``other_*``: the two workers' books (SPREAD_FANOUT)."""
    if not spreads_from(largest_input, largest_root, chosen_processing, chosen_threads):
        return False
    if SPREAD_FANOUT == 1:
        return other_processing < other_threads
    return (other_processing + other_threads) * chosen_threads \
        <= chosen_processing * other_threads


def keeps_its_worker(held_here: int, held_elsewhere: int) -> bool:
    """May work stealing leave a task that is not a root where it is? Yes (it is never
    stolen) when every input of its own (``held_here``, at least one:
    :func:`own_input`, as :func:`place_consumer` counts them) is held on the
    worker it is processing on and none elsewhere (``held_elsewhere``). Stolen, its inputs
    are copied to the thief and held twice until it ends, against the placement that put
    it where they are; an idle thief gets a withheld root instead (the progress rule).
    Why: twin anomaly 20x4, 1,000 steps, a level-1 combine of 4 chunk means (760 MB) was
    stolen off the worker that made them while it loaded the next group, which then held
    8 chunk means, not 4, and the copies."""
    return held_here > 0 and held_elsewhere == 0


# A task that is not a root, whose own inputs are all held on at most STEAL_SPLIT workers,
# is stolen only to one of them (server._fast_thief asks thieves_only_holders; lc39). 0:
# dask's thief among every idle worker, as before.
STEAL_SPLIT = 2


def thieves_only_holders(holders: int, all_held: bool) -> bool:
    """May work stealing move a task that is not a root only to a worker holding some of
    its own inputs (:func:`own_input`, as :func:`keeps_its_worker` counts them)? Yes when
    they are all held (``all_held``) on ``holders`` workers, from 1 to ``STEAL_SPLIT``.
    Why: a tree reduction's combine whose 4 inputs were split 2 + 2 over two workers was
    stolen (keeps_its_worker binds only where all are on its worker) to a third worker
    holding none, which copied all 4 while holding its own group's loads and chunk means:
    seed anomaly 4 x 1 on a LocalCluster, that worker's managed peak 145 -> 168 MiB
    (one33, and lc39 on main a6d339f). Stolen to the other holder, it copies the 2 it would
    have copied anyway, where nothing of another group waits."""
    return 0 < holders <= STEAL_SPLIT and all_held


def sole_holder(local: dict):
    """The one worker holding more of a consumer's own input bytes than any other, or
    None: there :func:`place_consumer`'s answer is that worker whatever the runtime
    chooses (its choice stands only among equals), so a runtime need not make its choice
    first (the plugin then skips dask's objective, which costs every worker holding any
    input, a widely copied grid's holders included: twin vorticity, 100 workers, a quarter
    of the scheduler's CPU)."""
    best = sole = None
    for a, b in local.items():
        if best is None or b > best:
            best, sole = b, a
        elif b == best:
            sole = None
    return sole


def spill_candidates(
    in_memory, state, nbytes, priority, dependent_ptr, dependent_idx, running: int, pending
) -> list:
    """Held results that may be spilled, furthest next use first: ``[(next_use, task)]``.

    A result's next use is the best priority among its dependents not yet started
    (``state in pending``); inputs of running tasks (``state == running``) are pinned. A
    requested output nobody else needs is next used at the very end (inf), so it goes first.
    """
    out = []
    for i in in_memory:
        next_use = math.inf
        pinned = False
        for c in range(dependent_ptr[i], dependent_ptr[i + 1]):
            d = dependent_idx[c]
            s = state[d]
            if s == running:
                pinned = True
                break
            if s in pending and priority[d] < next_use:
                next_use = priority[d]
        if not pinned and nbytes[i] > 0:
            out.append((next_use, i))
    out.sort(reverse=True)
    return out


def reduced_enough(reduced: float, loaded: float) -> bool:
    """May a root whose data waits for its own reduction (:func:`waits_for_own_reduction`)
    load away from its meeting's partners, on any worker open for roots? Only when its
    reduction's first task keeps at most half of what it loads (``reduced``, ``loaded``:
    bytes; NaN unknown: no): then splitting its meeting moves that fraction, while
    waiting for the partners' busy worker piles whole loads there until the reduction is
    whole (zarr anomaly, 2 x 1 LocalCluster: 8 MB chunk-means of 32 MB loads). A
    reduction keeping all of it (one time step per chunk, the twin's seed anomaly) would
    move as much as it loads: 100 x 4 makespan 1.21x, bytes 1.25x."""
    return reduced <= loaded / 2


def places_by_held(partners_held: float, least_held: float, estimate: float) -> bool:
    """Should a root whose data waits for its own reduction (:func:`waits_for_own_reduction`,
    :func:`reduced_enough`) load on the worker holding least (``least_held``: its held and
    estimated bytes plus the roots reserved there, this root's own reservation left out)
    rather than beside its meeting's partners (``partners_held``, the same measure)? Yes
    when the partners' worker holds more than half a load (``estimate``) more: every such
    load stays where it is loaded until the reduction is whole, so the busiest worker's
    peak is the count of loads it took, and co-locating saves only the move of what its
    reduction's first task keeps of it (the LocalCluster's seed anomaly at 2 x 1: a fast
    worker took the last reduction group's loads while the other still ran its own,
    8 loads against 4, 305 MiB against 244; twin, one worker's loads 2x slower: 336 MB
    against queuing's 272)."""
    return least_held + estimate / 2 < partners_held


# places_by_held's test asked of each worker holding some of the root's partners, not only
# of the one holding most of them: one holding more than half a load over the least is left
# out of the partners the root may join (the plugin's Placement._by_held, _decide; lc40).
# 0: main's (only the most partners' worker is measured).
HEAVY_PARTNER = 1


def leaves_partner(partner_held: float, least_held: float, estimate: float) -> bool:
    """Is a worker holding some of a root's meeting partners, not the most of them, left out
    of the workers that root may join (:func:`places_by_held`'s case: its data waits for
    its own reduction), where it holds (``partner_held``, places_by_held's measure) more
    than half a load (``estimate``) over the worker holding least (``least_held``)? Yes:
    the same test as places_by_held's, asked of every partners' worker. Why: the
    LocalCluster's seed anomaly at 4 x 1 (3 reduction groups of 4 loads): a group's root
    whose partners were 2 loads on a busy worker and 1 on another found the busy one no
    heavier than the least (places_by_held: no), was refused there by its count and went
    to the other partner's worker as its 4th load (3 loads and 3 chunk-means held there,
    the least-holding worker 1 load and a load running): 167.8 MiB at that worker against
    145.0 (lc40-findings.txt)."""
    return bool(HEAVY_PARTNER) and places_by_held(partner_held, least_held, estimate)


# A reduction group's last root, before any of its reduction returned, waits rather than pass
# its partners' full count while another worker holds a load less (bit 1; the plugin's
# Placement._unknown_pass), and places_by_held's measure counts roots in flight whole (bit 2:
# those started before any returned carry no estimate). anom32-findings.txt. 0: main's.
UNKNOWN_PASS = 3


def loads_before_reduced(partners_held: float, least_held: float, estimate: float) -> bool:
    """Should a root whose data waits for its own reduction (:func:`waits_for_own_reduction`),
    whose reduction's first task has not returned yet (:func:`reduced_enough` unknown), and
    whose meeting's partners are on a worker whose in-flight count is full, wait there
    (parked, until its reduction is known and :func:`places_by_held` may place it) rather
    than pass that count by completing the meeting (``partners_held``: what that worker
    holds, roots in flight counted whole)? Yes when another worker open for roots holds at
    least a load (``estimate``) less (``least_held``, the same measure): every such load
    stays where it is loaded until its reduction is whole, so the busiest worker's peak is
    its count of loads. Waiting, not loading there at once: a reduction that keeps all it
    reads (the twin's anomaly, one time step per chunk) would move every such load (twin
    anomaly 20 x 4: 12 loads of 190 MB moved, 0.36 -> 0.39x queuing's bytes, peak 0.86 ->
    0.91x).

    Why: the twin's seed anomaly at 4 x 2 (3 reduction groups of 4 loads on 4 workers, cap
    3): each group's 4th load was decided ~1 ms before the first chunk-mean returned and
    passed the count on its partners' worker, while the handle's worker held one load:
    4 loads on three workers, 1.10x queuing's peak; waiting, 0.95x (anom31-findings.txt
    section 2, anom32-findings.txt)."""
    return least_held + estimate * 0.75 < partners_held


# A root waiting for its own reduction, before any of that reduction returned (the first
# wave), waits (parked) rather than join its partners' worker once that worker has its even
# share of the roots' group and a free worker has less; places_by_held decides once the
# reduction is known (the plugin's Placement._first_share; tail33). 2: and such a root
# starts on a worker with a thread free below its share once no root is left in line
# (first_share_takes; seed50). 0: main's.
FIRST_SHARE = 2


def over_first_share(count: int, least: int, group: int, workers: int) -> bool:
    """Does a root whose data waits for its own reduction (:func:`waits_for_own_reduction`),
    while none of that reduction's first tasks has returned (the first wave: sizes are the
    books' guess), wait for its reduction (then :func:`places_by_held` decides) rather than
    start on its partners' worker (``count`` of its task group there) while a free worker
    holds ``least``? When ``count`` has reached the worker's even share of the ``group``
    roots of its task group over ``workers`` running workers and ``least`` has not. Such
    loads stay where they load until the whole reduction is done, so a worker's peak is
    the count it took: twin seed anomaly 4 x 4 (3 reduction groups of 4 loads, cap 5) put
    each group whole on a worker, 4 loads on three workers, none on the fourth (the store
    handle's): 1.15x queuing's peak (anom32-findings.txt section 2). The share binds only
    where a group's roots are few beside the workers (more workers than reduction groups);
    anomaly at 20 x 4 with 1,000 loads (a share of 50 against a cap of 5) never meets it."""
    if not FIRST_SHARE or workers < 2:
        return False
    share = -(-group // workers)
    return count >= share > least


def first_share_takes(processing: int, threads: int, count: int, group: int,
                      workers: int) -> bool:
    """May a worker, ``processing`` tasks on ``threads`` threads and ``count`` roots of the
    task group there (of ``group`` roots over ``workers`` running workers), take a root
    parked by :func:`over_first_share` once no root is left in line (the wave is whole)?
    While a thread is free there and the worker holds fewer than its even share
    (:func:`holds_share`). Why: the wait is for the reduction's first sizes, and with no
    root left to run the thread it would take idles for a whole load: twin anomaly of 6
    steps on 2 x 4 (6 loads on 8 threads, the mean's groups of 4 and 2): load 0 parked on
    its group's worker (3 loads there, the share), w0 loading 2 with 2 threads free; it
    started a load later beside its group, 4 loads / 2: 1.153x queuing's time, 1.111x its
    peak; started on w0, 3 / 3 as queuing: 0.962x / 1.000x (seed50-findings.txt). Placed
    at once instead (tail33's first form), before the wave was whole: anomaly 16 steps 8 x 2
    0.848 -> 1.508x queuing's time, 1.000 -> 1.273x its peak; at once only where it
    completes its group, it opened a later group on the worker it went to: 12 steps 4 x 4
    0.883 -> 1.001x its time."""
    return FIRST_SHARE >= 2 and processing < threads and not holds_share(count, group, workers)


# A root waiting for its own reduction, that reduction known to keep all it loads (not
# reduced_enough: the anomaly's chunk-means, one step a chunk, every load read again by its
# store after the whole mean), goes to a worker free for roots holding fewer than its even
# share of the roots' task group rather than join its partners' worker once that one holds
# its share (bit 1: past_kept_share; the plugin's Placement._kept_share); and in the first
# wave such a root waits for its reduction on a full count too, as FIRST_SHARE's withholding
# on one not full (bit 2: Placement._first_share). Why: every such load stays where it loads
# until its store, so the loads' count a worker took is its peak and its stores' rounds;
# joining whatever the count gave twin anomaly (build(), 190 MB) 24 steps 4 x 4 loads 8 / 8 /
# 4 / 4 (1.125x queuing's peak), 12 steps 2 x 2 7 / 5 (a 4th round of 2.09 s stores, 1.194x
# its time), 12 steps 2 x 4 8 / 4 (1.067x peak): with both bits 1.000 / 1.000 / 1.000x,
# 0.977x / 0.927x / 1.024x time (anom52-findings.txt). Only where kept_share_on (a worker's
# threads take a whole group of 4 loads at once, or two workers): on 2-thread workers of 4
# and 8 it evened the loads (6 a worker) while a later combine of partials (4 of 380 MB)
# landed on one of them: 24 steps 4 x 2 0.878 -> 1.004x queuing's peak (max 1.067), 48
# steps 8 x 2 1.031 -> 1.092x; and on at most KEPT_SHARE_MOST workers (the largest measured
# without a peak cost): anomaly 100 x 4 at 1,000 steps (twin_workloads.py) peak 0.81 ->
# 0.89x queuing's, 20 x 4 at 300 steps 0.80 -> 0.91x (plugin_fingerprints' configuration).
# 0: off (a root joins its partners whatever they hold).
KEPT_SHARE = 3
KEPT_SHARE_THREADS = 4
KEPT_SHARE_WORKERS = 2
KEPT_SHARE_MOST = 8


def kept_share_on(threads: int, workers: int, bit: int = 1) -> bool:
    """Is :data:`KEPT_SHARE`'s ``bit`` asked on a cluster of ``workers`` running workers,
    the partners' worker running ``threads`` threads? Where a worker has
    :data:`KEPT_SHARE_THREADS` threads or more (a group of 4 loads at once) or the cluster
    has at most :data:`KEPT_SHARE_WORKERS` workers (every later combine's inputs on both).
    Elsewhere the even spread it makes put a later combine of partials beside a full share
    of loads where the uneven one had left a lighter worker for it (twin anomaly 24 steps
    4 x 2, 48 steps 8 x 2: 1.004x and 1.092x queuing's peak). Not on more than
    :data:`KEPT_SHARE_MOST` workers (anomaly 100 x 4 at 1,000 steps: peak 0.81 -> 0.89x
    queuing's; 20 x 4 at 300 steps 0.80 -> 0.91x; measured without a peak cost on 2-8)."""
    return bool(KEPT_SHARE & bit) and 2 <= workers <= KEPT_SHARE_MOST and (
        threads >= KEPT_SHARE_THREADS or workers <= KEPT_SHARE_WORKERS)


def past_kept_share(count: int, least: int, group: int, workers: int) -> bool:
    """Does a root waiting for its own reduction, known to keep all it loads (not
    :func:`reduced_enough`), leave its partners' worker, which holds or runs ``count`` roots
    of its task group (``group`` roots over ``workers`` running workers), for a worker free
    for roots holding ``least`` of them (:data:`KEPT_SHARE` bit 1)? When ``count`` has
    reached the even share (:func:`holds_share`, ``ceil(group / workers)``) and ``least``
    has not: such loads stay where they load until their stores, so the busiest worker's
    count is its peak, and its stores' rounds the makespan's tail."""
    if workers < 2:
        return False
    share = -(-group // workers)
    return count >= share > least


# A reduction's first combine of loads that wait for it (the anomaly's chunk-means into
# their group's partial) goes to the candidate worker whose held, estimated and incoming
# bytes plus the inputs it would copy in are least, when that is over half a load less than
# where its inputs' holder would put it (the plugin's Placement._combine_elsewhere; anom36).
# 0: main's.
COMBINE_BY_HELD = 1


def combine_elsewhere(chosen: float, least: float, estimate: float = 0.0) -> bool:
    """Does a reduction's first combine of loads kept for that reduction
    (:func:`waits_for_own_reduction`: the anomaly's group partial of 4 chunk-means, its
    loads read again by stores once the mean is whole) go to the candidate worker whose
    measure is ``least`` rather than to the one dask and :func:`place_consumer` chose
    (``chosen``)? The measure of a worker: its held bytes, the estimated outputs of its
    tasks processing, their inputs still to come to it, and the combine's inputs it would
    copy in; candidates other than the chosen one have a thread free. Yes when ``least``
    is less by more than half a load (``estimate``, as :func:`places_by_held`): a move
    costs the copies, and among workers of like loads it lowered no peak (twin, one
    reduction group's loads 2x slower, 4 x 1: makespan 1.046 -> 1.094x queuing's, peak
    equal, with no margin). The holder of most of its inputs holds their loads too, kept
    until the mean is whole: a combine beside them adds its inputs and its output to the
    busiest worker. Twin seed anomaly at 5 x 2 (12 loads of 32 MB, 3 groups of 4,
    FIRST_SHARE's share of 3: each group's 3 loads on one worker, its 4th elsewhere): each
    partial went beside its group's 3 loads, 144-152 MB against queuing's 120 (1.27x, 15
    of 15 runs); placed by this measure 1.00x (anom36-findings.txt). Held bytes alone
    (tail35's form) missed the loads still processing on a candidate (3 x 2: 1.08x) and
    the chunk-means still to copy to it (5 x 2: all three partials on one worker)."""
    return bool(COMBINE_BY_HELD) and least + estimate / 2 < chosen


# COMBINE_BY_HELD asks a reduction's first combine of loads kept for it whose first task keeps
# all it loads (not reduced_enough: the twin anomaly's chunk-means, one step a chunk) too,
# where its loads' group is no larger than the cluster's threads (the whole reduction loads
# in one wave: no later wave pays for the copies), its inputs' holders the only candidates
# (combine_kept_whole; Placement._combine_elsewhere). Why: twin anomaly (build(), 190 MB) 6
# steps on 4 x 2 / 4 x 4: the combine of 4 went beside 2 of its loads (kept for their
# stores), 1,520 MB against queuing's 1,330 (1.143x); moved to a holder of 1: 1.000x, time
# 0.966 -> 1.000x (with TIE_FEWER_READERS; alone its stores' ties cost 1.187x). 20 x 4 at 48
# steps peak 1.042 -> 1.000x; with free workers as candidates 6 steps 8 x 2 took 1.065x
# time. Cost: 20 x 4 at 24 steps of 50 MB time 0.740 -> 0.759x, bytes 0.85 -> 0.94x, the
# peak equal (anom51-findings.txt). 0: off (before anom51: such combines stay beside their
# holder).
KEPT_WHOLE_COMBINE = 1


def combine_kept_whole(loads: int, threads: int) -> bool:
    """Is a reduction's first combine, whose first task keeps all of the load it reads
    (not :func:`reduced_enough`), asked by :func:`combine_elsewhere` among its inputs'
    holders? When ``loads`` (its loads' task group) is at most the cluster's ``threads``:
    the whole reduction loads in one wave, and the loads, kept for their stores, stay on
    the workers where they load whatever the combine does, so a combine beside most of
    them adds its inputs and its output to the busiest worker (twin anomaly 6 steps 4 x 2:
    1.143 -> 1.000x queuing's peak). Not on larger graphs: there the combines' copies are
    paid wave after wave (anomaly 100 x 4, bytes moved 0.35 -> 0.69x, time +39%:
    :func:`reduced_enough`)."""
    return bool(KEPT_WHOLE_COMBINE) and loads <= threads


# A consumer whose own input bytes tie between workers goes to the tied worker whose input
# there has the fewest readers, where the plugin's answer was one of the tied workers
# (fewest_readers; Placement._decide_worker_non_rootish). Why: the twin anomaly's store
# reads its load (read by its chunk-mean and it) and the mean (read by every store), both
# 190 MB: dask's tie-break sent stores to the mean's worker, copying their loads there,
# where the mean would be copied to the loads' workers for the other stores anyway; 6 steps
# 2 x 2 bytes moved 0.57 -> 0.43x queuing's, 2 x 4 0.71 -> 0.57x, time and peak the same
# (and KEPT_WHOLE_COMBINE's time); senders at 200 MB/s, 4 steps 2 x 2 of 32 MB 1.178 ->
# 1.000x time, bytes 1.33 -> 1.00x. 0: off (before anom51: dask's choice among the tied).
TIE_FEWER_READERS = 1


def fewest_readers(tied: dict, chosen, free=None):
    """Of ``tied`` ({worker: the fewest readers of a consumer's own inputs held there},
    the workers holding most of its input bytes, equally), the one whose input there has
    the fewest readers; ``chosen`` (the runtime's choice) among equals. An input read by
    many is copied to its other readers' workers anyway; one read by few is copied for
    this consumer alone. Only to a worker with a thread free (``free(worker)``; None: any):
    the runtime's choice balances load among equals, and inputs of few readers all on one
    worker (pieces of one chunk) drew every tied consumer there (rev51m: a synthetic
    getitem-plus-load graph at 8 x 2, 1.75x the time without this guard)."""
    least = min(tied.values())
    if tied.get(chosen) == least:
        return chosen
    other = next(w for w, n in tied.items() if n == least)
    return other if free is None or free(other) else chosen


# COMBINE_BY_HELD asks nothing of a reduction's first combine (of chunk-means, each of one
# load) that takes its input group whole (the whole reduction in one task, its result read
# back by every load's reader): dask's choice, a holder of one input, stands
# (combines_whole). A later level (IDLE_COMBINE's mean of partials) is asked as before. 0:
# asked as any first combine (before seed46).
COMBINE_WHOLE = 1


def combines_whole(inputs: int, group: int) -> bool:
    """Is a reduction's first combine of ``inputs`` inputs, all of one task group of
    ``group`` tasks, that group whole (``COMBINE_WHOLE``)? Then nothing else of the
    reduction runs while its inputs come in, and every task after it waits for its result:
    moved off the holder :func:`combine_elsewhere` would choose against, it copies in one
    input more and (its result read by the loads' readers there) sends out one copy more,
    both on the graph's one path, to save at most one load's bytes. Twin seed anomaly (four
    loads, one mean, 48 steps) on 5 x 4 / 8 x 2: moved to an empty worker, 0.556x queuing's
    peak at 1.15x its time with senders free, 1.21x limited (four 8 MB means received one
    after the other at 200 MB/s, then four copies out); a tree's partial (a group of 4 of
    12 chunk-means, anom36's 5 x 2) is not whole: asked as before."""
    return bool(COMBINE_WHOLE) and inputs >= group > 0


def after_reduction(freed: float, returned: float) -> float:
    """Bytes a task processing on a worker will have freed there once it ends, for
    :func:`places_by_held`'s measure of what a worker holds: ``freed``, the bytes of its
    inputs held there that no other task still needs (a combine's chunk-means), less what
    it returns (``returned``: its group's average so far; NaN unknown). Only a task that
    keeps less than it frees counts (a reduction): unknown or growing, nothing.

    Why: held bytes seen while a combine runs count its inputs, gone a few milliseconds
    later. Twin seed anomaly 2 x 2 (12 loads of 32 MB, 3 groups of 4; every load read again
    by a store after the mean): the last group's loads were placed while one worker's
    combine still held its 4 chunk-means (160 MB against the other's 144 after its own
    combine), so two of them stayed beside their partners by half a load, 7 loads against
    5, and the stores followed: 1.070x queuing's makespan and 1.09x its peak (median of 15:
    3 namings x 5 seeds, 10 ms overrun); counted after the combine, 6 / 6: 1.037x, peak
    0.97x (bench/results/small30-findings.txt)."""
    if returned == returned and returned < freed:
        return freed - returned
    return 0.0


# A root whose own partners are all on workers with a backlog (more than PARTNER_BACKLOG x
# their threads tasks processing, two threads or more) is placed as a root without
# partners: it neither waits for those workers nor passes their count by completing its
# meeting there (Placement._backlogged, _owed_place). Why (traced, tie52, rev51m's graph:
# C_i = f(M_i, F_i), M_i a load, F_i one of n pieces of a big root R): R's worker queued its
# n pieces (17 tasks on 2 threads at 4 x 2, 33 at 8 x 2); every load's partner was a piece
# there, so the loads waited for that worker while the others ran dry, or passed onto it
# and ran ahead of the pieces the other workers' consumers waited for: 1.21x / 1.50x
# queuing's time at 4 x 2 / 8 x 2 -> 0.97x / 0.99x, peak and bytes at or under queuing's
# (bench/results/tie52-tools/tie_probe.py; tie52-findings.txt). A load and its piece weigh
# alike there: either is copied. Not reached by rechunk-add's busy pairs (8-13 tasks on 4
# threads, busy28). 0: off (they wait for or pass onto the partner's worker, as before).
PARTNER_BACKLOG = 4
# Which such roots leave (tie52b): PARTNER_BACKLOG_CUT 1, only a root whose partners there
# are cut already (in memory); 2, also, where the worker of a partner still to be cut has
# at most PARTNER_BACKLOG_THREADS threads, one whose partner is next there (fewer than
# PARTNER_BACKLOG_FRONT x threads tasks processing there come before it by dask's
# priority) or that is placed while a worker open for roots has nothing processing. Why
# (traced, tie52b, the same graph, 4 x 4 n 24 and 8 x 2 n 24): a load that leaves R's
# worker frees its threads there to cut pieces faster than their consumers elsewhere (their
# loads placed later, paced) fetch and finish them, and each C placed beside its piece
# copies the load in: R's worker held R plus 19-21 pieces against queuing's 16-17 (peak
# 1.07-1.11x queuing's). A load whose piece is cut meets it at once; one whose piece waits
# behind the others waits as before. tie52's 180-run sweep (tie52b-tools/sweep_runs.py,
# compare_runs.py against PARTNER_BACKLOG 0): runs over 1.05x queuing's time 93 -> 87
# (tie52's form 62), over its peak 80 -> 75 (88), over its bytes 31 -> 35 (60); no cell
# newly over queuing's peak (tie52's form: 10); 4 x 2 n 16 1.213 -> 0.983x time, 8 x 2
# n 32 1.504 -> 1.092x (tie52's 0.993x). 0: every such root leaves (tie52's form). FRONT
# 0: 8 x 2 n 32 1.161x; FRONT 2: 8 x 2 n 24 over queuing's peak; THREADS 4: 8 x 4 n 32
# over it (or, FRONT on 4 threads, 4 x 4 n 16 1.06 -> 1.24x queuing's time).
PARTNER_BACKLOG_CUT = 2
PARTNER_BACKLOG_FRONT = 1
PARTNER_BACKLOG_THREADS = 2


def partner_backlogged(processing: int, threads: int) -> bool:
    """Is a worker with ``processing`` tasks on ``threads`` threads too far behind for a root
    to wait for it, or to go there by its partners (:data:`PARTNER_BACKLOG`)? Never a
    one-thread worker: tasks queue behind its one thread as a rule (the twin rechunk on 2 x
    1 and 4 x 1 moved 0.002 -> 0.155x queuing's bytes with it, time the same)."""
    return bool(PARTNER_BACKLOG) and threads > 1 and processing > PARTNER_BACKLOG * threads


def partner_backlog_leaves(pending: bool, ahead: int, threads: int, idle: bool) -> bool:
    """May a root whose partners' workers are all backlogged (:func:`partner_backlogged`)
    leave them (:data:`PARTNER_BACKLOG_CUT`)? ``pending``: a partner of it there is still
    to be computed, with ``ahead`` tasks processing before it on its worker of ``threads``
    threads; ``idle``: some worker open for roots has nothing processing. Else it waits
    for them, or passes, as without the rule."""
    if not pending or not PARTNER_BACKLOG_CUT:
        return True
    if PARTNER_BACKLOG_CUT < 2 or threads > PARTNER_BACKLOG_THREADS:
        return False
    return idle or ahead < PARTNER_BACKLOG_FRONT * threads
