"""Admission: when a worker may take another root (the in-flight count, backlogs, passes
that complete a consumer, waves, splits)."""

from __future__ import annotations

import math

from .roots import reduces
from .place import holds_share

# A root completing a consumer passes the in-flight count only while fewer than the cap of
# roots that came in by such a pass are still in flight on its worker (processing, or loaded
# and untouched): the plugin counts them (books.Books.count_passes), the core need not (its
# ready tasks count as ``queued``). Unbounded, passes chained: ds.resample(time="7D") over
# 30-day zarr chunks, each load completing the week it straddles with the previous one,
# which came in by a pass too, its slices queued behind it; a one-thread worker of a 2 x 1
# LocalCluster held 9 chunks against a cap of 2 (peak managed 94-139 MB against queuing's
# 39-45; bounded 67 MB in 3 of 3 runs; twin 2 x 1 41.3 -> 21.8 MB, queuing's 20.2;
# bench/results/chain24-findings.txt). A consumer of more than MEETING_FANOUT inputs
# (joins_started_fan_in) is exempt: all its inputs are held before it runs whatever the
# order (``completes_consumer`` answers WIDE_PASS). Tried: at most one pass in flight on a
# one-thread worker (resample 52 MB, but twin zarr anomaly 4x1 peak 264 -> 296 MB, bytes
# +24%), half the cap everywhere (25 of 62 plugin traces moved, 20 of 180 sim).
PASSES = 1  # times the cap
WIDE_PASS = 2  # completes_consumer's answer for a wide fan-in: exempt from PASSES


def pass_cap(cap: float) -> float:
    """How many roots admitted past the count by completing a consumer may be in flight on
    a worker before another such pass waits (``may_admit_root``'s ``pass_cap``)."""
    return PASSES * cap


# A worker of at most BACKLOG_THREADS threads takes no new root, unless idle, while
# BACKLOG tasks a thread that are not roots are processing there (assigned to it, most
# queued behind its thread; dask's queuing sends no root to a worker whose threads all
# have a task): a root's data would wait behind them, beside the data they hold. Twin
# groupby-month store 4 x 1 (grp42): a month's 57 stores queued on one worker, each with
# its day and its piece of the climatology, while it loaded the next chunk; 60 namings,
# peak over queuing's 14 -> 10, max 1.36 -> 1.18x. On two-thread workers the 2 x 2 tail
# rose (over 1.05x 14 -> 16 of 60), makespans rose in 48 of 60 and rolling 2 x 2's time
# 1.062 -> 1.083x: not there. 0: main's.
BACKLOG = 8
BACKLOG_THREADS = 1
# On workers of more threads (grp43) a backlog of BACKLOG_WIDE tasks a thread refuses a root
# only while BACKLOG_FLIGHT roots are in flight there (loading, or loaded and no consumer
# started: their data waits behind the backlog and feeds the threads when it drains) and
# the worker holds BACKLOG_HELD times its count's worth of the largest root loaded. Twin
# groupby-month store 2 x 2, 60 namings: over 1.05x queuing's peak 14 -> 10, max 1.36 ->
# 1.28x, time median 0.981 -> 0.984. Without the held test rolling 2 x 2's pieces waiting
# for a halo refused the next chunk (time 1.062 -> 1.109x); counting only loaded roots
# (not loading ones) kept 12 of the 14. 0: before grp43.
BACKLOG_FLIGHT = 1
BACKLOG_WIDE = 2
BACKLOG_HELD = 2.0
# On workers of more threads (grp44) a root loading there refuses another while
# BACKLOG_BURST tasks or more wait for a thread (``processing >= threads + BACKLOG_BURST``)
# and the worker holds BACKLOG_BURST_HELD times its count's worth of the largest root: one
# root at a time where work queues. A groupby-month store's chunk is cut into its 30 days
# and 3 month pieces within a few ms of its load, which frees its slot, but the pieces wait
# for the month's climatology: a worker whose queue had drained for a moment took 4-5
# chunks within 20 ms and their pieces queued behind each other (twin 2 x 4, g7 s0: 5
# chunks as its processing fell 43 -> 10; queuing sends none past 5 tasks processing).
# Only where a load of the refused root's group was cut into BACKLOG_BURST_CUTS pieces or
# more while its siblings still read it (books.Books.burst_cuts, grp45; BACKLOG_BURST_OWN).
# Everywhere (0: grp44's form on four threads, BACKLOG_BURST_THREADS 4; on two, its
# costlier two-thread form) it moved 21 of the 62 plugin fingerprints (anomaly 400 steps
# at 40 x 4: peak 4,369 ->
# 4,939 MB; rechunk-add 100 x 4 +3.2% time), undid a tree reduction's next group queued
# behind loading threads, and on two threads cost the twin's seed graphs (s-vorticity
# 4 x 2 0.92 -> 1.08x queuing's time); their loads are cut into few pieces, and with the
# cut test nothing of theirs moves (plugin 62/62, twin 180/180, the small table's 2 x 2).
# Groupby store, peak over queuing's median / over 1.05x / max, time median, base -> this:
# 2 x 4 (30 namings) 1.043 / 15 / 1.39 -> 0.909 / 6 / 1.14, time 0.989 -> 0.990; 2 x 2
# (60) 0.911 / 10 / 1.28 -> 0.855 / 4 / 1.24, 0.984 -> 0.985; 4 x 2 (60) 0.977 / 22 / 1.57
# -> 0.921 / 13 / 1.30, 0.997 -> 1.009. Without the held test (0) the peaks fell further
# (2 x 4 0.817 / 2 / 1.19) but rolling's halo-bound workers idled (rolling 2 x 4 time
# 1.037 -> 1.088x); rolling's loads are cut into few pieces: identical now. 0: off.
BACKLOG_BURST = 1
BACKLOG_BURST_THREADS = 2
BACKLOG_BURST_HELD = 1.3
BACKLOG_BURST_CUTS = 16
# The cuts asked are the refused root's own group's (books.Books.burst_cuts, grp46): with the
# most over every group present (0, grp45's), a groupby's cut-up loads, or a persisted input
# of one, turned the clause on for every computation beside them until forgotten
# (review45).
BACKLOG_BURST_OWN = 1
# Where a load of the refused root's group was cut into BACKLOG_BURST_CUTS pieces or more, a
# root loading on a worker that holds BACKLOG_BURST_HELD times its count's worth refuses
# another however few tasks are processing there (grp48): a worker whose queue had drained
# (both threads loading, or one load and one task) took two or three chunks at once, their
# pieces then queued where it already held its last chunks' days, past what the burst
# clause saw (threads + BACKLOG_BURST processing). Twin groupby store, 60 namings a shape
# (2 x 4 30 of them seeds 3-5 new), peak over queuing's median / over 1.05x / max, time
# median / over 1.05x, off -> 1: 4 x 2 0.920 / 8 / 1.30 -> 0.880 / 5 / 1.18, time 1.006 /
# 5 -> 1.006 / 9; 2 x 2 0.850 / 4 / 1.15 -> 0.820 / 0 / 0.99, 0.988 / 1 -> 0.994 / 3; 2 x 4
# 0.885 / 5 / 1.14 -> 0.820 / 1 / 1.11, 0.984 / 10 -> 0.996 / 10. 2: on one-thread workers
# too, whose BACKLOG counts tasks only (they took two chunks at 7 tasks queued): 4 x 1
# 0.855 / 10 / 1.27 -> 0.820 / 4 / 1.27, time 1.001 / 5 -> 1.005 / 4 (the 1.27: chunks
# copied to a shuffle's indexer, no root admitted). Other graphs' loads are cut into fewer
# pieces: nothing of theirs moves. 0: off (session 47's).
BACKLOG_DRAINED = 2


def backlogged(processing: int, roots_processing: int, threads: int,
               untouched: float = 0, held: float = math.inf, slots: float = 0.0,
               cuts: int = 0) -> bool:
    """Has a worker so many tasks processing that are not roots (``processing`` less
    ``roots_processing``) that it takes no new root (:func:`may_admit_root`'s
    ``backlogged``; see :data:`BACKLOG`)? On more threads (:data:`BACKLOG_FLIGHT`) also
    ``untouched`` (its roots' outputs no consumer has used yet), ``held`` (its held bytes)
    and ``slots`` (its cap times the largest root's output) count; with no root's size
    known yet (``slots`` 0) the held test passes (the tasks processing decide, as
    queuing's count would). On :data:`BACKLOG_BURST_THREADS`+ threads a root loading where
    tasks wait for a thread is a backlog too (:data:`BACKLOG_BURST`), once ``cuts`` (the
    most pieces a load of the refused root's group was cut into:
    ``books.Books.burst_cuts``) reached :data:`BACKLOG_BURST_CUTS`; with
    :data:`BACKLOG_DRAINED` whatever the tasks processing, and (2) on one thread too."""
    if threads <= BACKLOG_THREADS:
        if BACKLOG_BURST and BACKLOG_DRAINED >= 2 and cuts >= BACKLOG_BURST_CUTS \
                and roots_processing and held >= BACKLOG_BURST_HELD * slots:
            return True
        return bool(BACKLOG) and processing - roots_processing >= BACKLOG * threads
    if BACKLOG_BURST and cuts >= BACKLOG_BURST_CUTS and threads >= BACKLOG_BURST_THREADS \
            and roots_processing and held >= BACKLOG_BURST_HELD * slots \
            and (BACKLOG_DRAINED or processing >= threads + BACKLOG_BURST):  # (cuts first)
        return True
    return bool(BACKLOG_FLIGHT) and processing - roots_processing >= BACKLOG_WIDE * threads \
        and roots_processing + untouched >= BACKLOG_FLIGHT \
        and held >= BACKLOG_HELD * slots


def may_admit_root(
    roots_processing: int,
    roots_untouched: int,
    cap: float,
    completes_consumer: bool,
    held_bytes: float,
    estimate: float,
    budget: float,
    idle: bool,
    owed: int = 0,
    beside: bool = False,
    queued: int = 0,
    passes: int = 0,
    pass_cap: float = math.inf,
    backlogged: bool = False,
) -> bool:
    """May one more root start on this worker now?

    Roots in flight are the roots processing plus held root outputs that no consumer has
    used yet (``roots_untouched``): a slot frees when data is consumed, not merely loaded,
    so loaders cannot run ahead of slow consumers. A root that completes the inputs of a
    consumer already holding some (``completes_consumer``, a bool or a function returning
    one, called only when it matters) may exceed that count, never the
    processing cap, and only while fewer than ``pass_cap`` roots that came in by such a
    pass are in flight there (``passes``; see :data:`PASSES`), but for a wide fan-in
    (``completes_consumer`` answers ``WIDE_PASS``). ``owed``: roots that meetings opened here still
    lack (see :func:`meeting_partners`), counted as in flight for a root that does not complete a
    consumer: each opened meeting holds its data until they arrive. ``beside``
    (:func:`may_load_beside`) passes the count within the budget. ``queued``: ready
    tasks that a free thread would run instead of this root; a root completes a consumer
    past the count only when there are none (they come later in priority order, and a
    stencil's halo slices, ready once their block is held and what frees it, come after
    the next column's blocks: admitted ahead of them, every block completing a meeting
    loaded and none freed; tidegate.get's 6000^2 stencil on 2 threads held up to 15
    blocks, 9-10 with them counted). A body passes them where a refused root loses nothing:
    the core, which asks as a thread frees and starts the root as soon as nothing else is
    ready. The plugin passes none, but for the load a one-thread worker runs (a root
    would wait behind it: books._queues_behind_a_load): dask sends ready tasks to their
    worker's queue at once, and a root it withholds is placed anew later, maybe elsewhere (tried,
    counting the tasks queued past a worker's threads: twin rechunk-add 20x4 moved 54 GB against
    6.5, peak 2.66 GB against 2.09). ``idle`` (nothing
    processing on the worker) always admits: progress is guaranteed even when a single root
    does not fit the budget. ``backlogged`` (:func:`backlogged`) refuses every root but
    on an idle worker.
    """
    if idle:
        return True
    if backlogged or held_bytes + estimate > budget or roots_processing >= cap:
        return False
    if beside or roots_processing + roots_untouched + owed < cap:
        return True
    if queued:
        return False
    # Asked last, and lazily when a callable: finding the consumers costs a graph walk.
    c = completes_consumer() if callable(completes_consumer) else completes_consumer
    if not c:
        return False
    return c == WIDE_PASS or passes < pass_cap


def committed(opens: int, processing: int, threads: int) -> int:
    """Of the ``opens`` roots that a root opening a meeting would reserve on a worker
    (``books.Books.place``'s ``commits``: the meeting's output meets further data), how
    many count as in flight already when it asks: all while every thread is busy
    (``processing >= threads``), one fewer where a thread is free or the worker has one
    thread (a root sent to it waits behind one task at most: ``may_load_beside``).
    Counted in full there too, a 2-thread worker with one load held and one running left
    its free thread idle rather than open a pair (twin unique-key loaders reduced
    pairwise, 8x2 with a budget: 0.93 -> 1.15 s), and one-thread workers waited a round
    trip per pair (twin zarr rechunk-add 2x1: 4.91 -> 5.23 s, 1.07x queuing's); a group of
    4 for a tree reduction still waits for room (twin anomaly 20 x 4, 200 steps: 0.96 ->
    0.82x queuing's peak either way)."""
    return max(0, opens - free_thread(processing, threads))


def awaits_combine(held_here: int, held_most: int, all_on_their_way: bool) -> bool:
    """Is a worker the place of a tree reduction's next combine, one level up from the
    partials it holds (``held_here`` of the combine's inputs done or computed there, at
    least 2 and no fewer than ``held_most``, the most on any worker), with the combine's
    inputs all on their way (each
    done, running, or waiting only on tasks that are: no root of them is still to be
    admitted)? Then that worker opens no new group of roots until the combine ran
    (``books.Books._admits``' ``opens``), and it is not idle for the progress rule: the
    combine is work on its way to it, as a copy is (``books.Books.expecting``). Why: twin
    anomaly (``x - x.mean(axis=0)``) 20 x 4, 200 steps: a worker whose own two partials
    were done opened its third group of 4 loads, idle, while the level-2 combine's other
    partials were still computed elsewhere; the combine, its 4 partials and output
    (1.9 GB) then coincided with the new group's 4 chunk-means: 4.94 GB against
    queuing's 4.56. Only once the inputs are all on their way: otherwise the combine
    waits for roots not yet admitted and the worker idles for them (lvl26's LVW: 1.16-1.32x
    makespan). At least 2: inputs spread one per worker made every holder wait for a
    combine only one of them runs, and workers that waited so took fewer groups than the
    rest, which loaded more and held them to the end (twin anomaly 20 x 4, 1,000 steps,
    5 namings: makespan 0.85x queuing's against 0.71x for main; now 0.73x; peak medians
    over 10 sizes in lvl27-findings.txt). Ties count for every tied holder (no worker is
    preferred before the combine is placed)."""
    return all_on_their_way and held_here >= 2 and held_here >= held_most


# AWAIT_HELD n (lack53): a worker awaiting a combine (awaits_combine) with a thread free that
# already holds at least n of the largest root, and no more than the workers' mean held,
# opens a group anyway. Why (traced, twin anomaly 4 x 4, 400 steps, today form at 1 GB/s):
# the loads all stay to the stores, so late in a long graph holding one group back lowers no
# peak, while each wait idled 3 of 4 threads on workers that each awaited a combine (112
# thread-seconds idle in the load phase against queuing's 47, tail52). Below the mean held
# only, so the cluster stays even (without it 4 x 4 200 steps time 1.028 -> 1.044x).
# Twin (twin_cells.py, store form, 2 seeds; queue = 1): 4 x 4 400 steps time 1.083 -> 1.013x,
# peak 1.013 -> 0.967x; 3 x 4 1.116 -> 1.057x; the anomaly grid (6-48 steps x 2x2-8x2, 12x4)
# SAME. Only on AWAIT_HELD_FEWEST..AWAIT_HELD_MOST workers of AWAIT_HELD_THREADS+ threads:
# on 2 workers (200 steps 2 x 4 peak 1.009 -> 1.026x max), on 2-thread workers (200 steps
# 4 x 2 peak 1.000 -> 1.016x) and on 8 (400 steps 8 x 4 peak 0.823 -> 0.830x) it cost a
# peak (lack53-findings.txt). With no held bound, the view off past 12-20 roots held, or
# where no other worker could take the group, short graphs lost their peak (48 steps 4 x 4
# 0.828 -> 0.862x). 0: off.
AWAIT_HELD = 30
AWAIT_HELD_FEWEST = 3
AWAIT_HELD_MOST = 4
AWAIT_HELD_THREADS = 4


def awaits_held_on(workers: int, threads: int) -> bool:
    """Is :data:`AWAIT_HELD` asked on a cluster of ``workers`` workers of ``threads``
    threads?"""
    return bool(AWAIT_HELD) and AWAIT_HELD_FEWEST <= workers <= AWAIT_HELD_MOST \
        and threads >= AWAIT_HELD_THREADS


def opens_past_combine(held: float, largest_root: float, mean_held: float,
                       processing: int, threads: int) -> bool:
    """Does a worker that awaits a combine (:func:`awaits_combine`) open a group of roots
    anyway: a thread free, ``held`` at least :data:`AWAIT_HELD` roots of ``largest_root``
    and no more than ``mean_held`` (the workers' mean)? Late in a long reduction whose
    loads all stay, one more group is a small part of what the worker holds, and the wait
    idles its threads."""
    return processing < threads and largest_root > 0 \
        and held >= AWAIT_HELD * largest_root and held <= mean_held


def free_thread(processing: int, threads: int) -> bool:
    """Would a root sent to this worker now start at once, or wait behind one task at
    most (a one-thread worker): :func:`committed` counts one fewer there."""
    return processing < threads or threads == 1


# passes_for_group where every thread of the worker loads a root: 1 (grp34) passes one more
# root there only while the line holds a root for every thread of the other workers, and
# only where the meeting's other side cannot fill those threads (threads > widest); 0
# restores w44's four-thread threshold (pass one more on 4+ threads, never on 2-3).
GROUP_SUPPLY = 1
# passes_for_group below a load on every thread: 1 (grp35) refuses the pass where no thread
# is free (tasks processing >= threads), the threads not loading cannot take the root's
# meeting (threads - roots processing < widest: its partner would queue behind a load), the
# line does not feed the other workers' threads, and another worker free for roots can;
# 2 the same without that last test; 0 passes there as before.
GROUP_BUSY = 1


def passes_for_group(roots_processing: int, threads: int, widest: int, waiting: int = 0,
                     elsewhere: int = 0, processing: int = 0, room_elsewhere: bool = True
                     ) -> bool:
    """May a root whose side is all that a further meeting (no pair: a tree reduction's
    next group) lacks pass the in-flight count on that meeting's worker, as completing it
    (``placement._decide``'s hint, :data:`FREES_SLOT` bit 2)? Not on one thread, where it
    waits behind that worker's readers, nor where every thread loads a root: it would wait
    in that worker's queue a whole load while other workers' threads free up and find
    nothing to take. Passing wherever a worker has more than one thread, the twin's
    unique-key loaders reduced pairwise (``tidegate.sim.fidelity.unique_loaders``, 24
    loads) at 4 x 2 put a group's second pair behind the first pair's worker's loads
    while two workers had a thread free and only roots reserved on busy workers were left
    (loads 7/7/5/5 per worker, the last ending at 0.86 s against queuing's 0.60): 1.20x
    queuing's makespan over 5 key namings x 3 seeds, now 1.00x (peak 0.45 -> 0.55x
    queuing's). Its costs: 4 x 4 with 48 loads 1.03 -> 1.10x (a root refused while all 4
    threads load waits unsent for a thread; counted by tasks processing rather than roots,
    1.14x), and at 8 x 2 two of the sim fingerprints' variants peak 100 -> 120 MB (queuing
    100 and 80; above queuing's on main too); bench/results/wall28-findings.txt.
    On four threads or more one such root may still queue behind the loads (w44): refused
    there, it went to another worker whose own group's roots then waited behind a combine
    (twin 4 x 4, 48 loads: last loads 0.76 s against 0.71; 1.10x queuing's makespan, now
    1.03x as before wall28; 4 x 2, 3 x 2, 8 x 2 unchanged); bench/results/w44-findings.txt.
    The threshold (four threads) is fitted on this graph's 2 x 4, 4 x 4 and 8 x 4 alone; at 3
    threads 4 x 3 stays 1.05x and 8 x 3 needs the refusal (1.16x without it): the real test
    (would other workers' threads stay free while the root waits) is not found yet.
    Where :func:`frees_slot_on` holds (every worker since busy29) only for a root whose
    meetings all read two inputs at most (``widest``, as :func:`passes_busy`: the tree's
    pairs): resample's roots, which also feed a 105-input week write, passed so on
    multi-thread workers and held their loads there (the twin's resample at 2 x 4, 5 builds:
    1.22-1.61x queuing's peak passing so, 0.96-1.11x not); refused on every worker, the
    loaders (5 namings x 3 seeds) took 4 x 4 / 48 1.027 -> 1.137x queuing's makespan and
    3 x 2 / 48 0.977 -> 1.016x (bench/results/busy29-findings.txt).
    Where every thread loads a root (:data:`GROUP_SUPPLY`, grp34) the real test: the root
    waits there for the first of those loads to end, and meanwhile the other workers' threads
    free up too; each finds a root to take while the line holds ``waiting`` (queued roots
    other than this one) at least ``elsewhere`` (the other workers' threads). Then the pass
    costs no thread anything and keeps the group's pairs on one worker; fewer, and it takes
    a root a free thread would have run (8 x 3, 48 loads: at 0.2 s the four workers first
    asked took the rest, 8 loads each, and the other four idled; 1.16x queuing's passing
    so). Never where the meeting's other side can fill every thread (``threads <=
    widest``: 2 threads loading a pair free none before that whole load). Loaders (5
    namings x 3 seeds, bench/wall28_unique.py): 4 x 3 / 48 1.052 -> 0.983x, 6 x 3 / 96
    1.060 -> 0.999x, 8 x 3 / 96 1.037 -> 0.972x; 3 x 3 / 48 1.021 -> 1.053x (the further
    meetings' worker takes more loads); 2 and 4 threads unchanged
    (bench/results/grp34-findings.txt).
    Below that, where some thread does not load a root (:data:`GROUP_BUSY`, grp35), the
    pass counted roots only: at 3 x 3 / 48 the last group's four roots, reserved for the
    worker holding their sibling group, went there at 2 roots processing while its third
    thread ran combines (``processing`` 4 of 3 threads); the root's partner then waited
    behind both loads (0.2 s) while another worker's threads had run out of roots. Refused
    where no thread is free, the threads not loading cannot take the root's meeting
    (``threads - roots_processing < widest``), the line does not feed the other workers'
    threads (``waiting < elsewhere``) and one of the least loaded workers free for roots
    has that many threads not loading (``room_elsewhere``), the pair went there: 3 x 3 / 48
    1.053 -> 1.004x queuing's makespan (5 namings x 3 seeds; 4 x 4 / 96 0.993 -> 1.008x).
    Without the ``widest`` test, 4 x 4 / 48 1.027 -> 1.096x (refused, a root waited for a
    combine, not a load); without ``room_elsewhere`` (GROUP_BUSY = 2) it also refused at
    8 x 4 / 48 where no worker had such room, and 7 of 15 runs took base's other schedule:
    1.08 -> 1.006x but peak 0.86 -> 1.14x queuing's (bench/results/grp35-findings.txt)."""
    if threads <= 1 or (widest > 2 and frees_slot_on(threads)):
        return False
    if roots_processing < threads:
        return not GROUP_BUSY or processing < threads or waiting >= elsewhere \
            or threads - roots_processing >= widest or (GROUP_BUSY == 1 and not room_elsewhere)
    if not GROUP_SUPPLY:
        return roots_processing < threads + (threads >= 4)
    return roots_processing == threads and threads > widest and waiting >= elsewhere


# A wave of roots whose slots open together (the line stalled while every worker's threads
# loaded roots and nothing else; the line now shorter than the cluster's threads): a worker
# that took its share of that line takes no fresh opener while the line cannot feed every
# other worker's threads (Admission._in_wave, Placement._decide / _over_share; wave37).
# 0: as before.
WAVE_SHARE = 1


def wave_share(line: int, workers: int) -> int:
    """A worker's share of a wave: ``line`` roots queued when the wave began (the first
    root placed after every worker was full), over ``workers`` running (ceil)."""
    return -(-line // max(workers, 1))


def over_wave_share(taken: int, share: int, waiting: int, elsewhere: int) -> bool:
    """Is a worker that took ``taken`` roots of the wave (:func:`wave_share`: ``share``)
    refused a fresh opener (a root with no partner placed and none reserved for it)?
    Yes when it took its share and the line (``waiting`` roots besides this one) cannot
    feed the other workers' threads (``elsewhere``: :data:`GROUP_SUPPLY`'s supply test):
    they free up too and would find the line empty. Why: loaders 8 x 4 / 48 (twin
    unique-key loads reduced pairwise, 32 threads): the first 32 loads end together; the
    scheduler hears w0's four completions first, and at each w0 has a thread free and its
    count below the cap, so it opened two pairs of the 16 left, then w1, w2, w3 two each:
    w0-w3 took all 16, w4-w7 none (8 loads against 4; queuing's cap, counting the
    combines, spreads them): peak 160 MB against queuing's 140 in 8 of 15 runs (5 namings
    x 3 seeds), 1.08x its makespan in the other 7. With the share: 6 loads a worker,
    makespan 1.008 [1.006-1.083] -> 0.979 [0.972-0.997]x, peak 1.143 -> 0.857x in 15 of
    15; 22 other loaders cells as before (bench/results/wave37-findings.txt). The wave
    is begun only where the line is shorter than the cluster's threads and every other
    worker runs roots and nothing else on every thread (loads started together end
    together), and ends at the first of its roots to end: begun at a line's tail, where
    the others had just started their loads or had combines queued, the refused root
    waited for them a whole load (4 x 4 / 48 1.027 -> 1.164x, 3 x 3 / 24 at worst 1.026
    -> 1.156x)."""
    return bool(WAVE_SHARE) and taken >= share and waiting < elsewhere


# A pair's second root whose partner's worker took its share of a wave of share 1 goes
# to another worker as a fresh opener (Placement._wave_split; peak38). 0: as before.
WAVE_SPLIT = 1


def splits_for_wave(over: int, partners: int, share: int, free: bool = True,
                    widest: int = 2, meetings: int = 1, joins: bool = False,
                    roots_only: bool = True) -> bool:
    """Does a root whose ``partners`` workers all took their share of the wave (``over``
    of them did: :func:`over_wave_share`) leave its pair and go where no partner is?
    Yes where every partner's worker is over its share, the share is 1 (the line no
    longer than the running workers), its data meets other data in one task
    (``meetings``) of two inputs (``widest``), not a join of two arrays (``joins``:
    :attr:`MeetingPlan.pair`), its partners' workers run roots and nothing else
    (``roots_only``: wave37's "loads started together end together") and some worker
    free for roots now has not taken its share (``free``): a pair's two roots on one
    worker then take both of its threads while the first pair's loaded data waits for
    its combine, and half the workers take none. Why: loaders 8 x 2 / 24 (twin unique-key
    loads reduced pairwise, 16 threads): the first 16 loads end together, 8 roots left
    (share 1); w0 took L7 and its partner L6 on both threads, w1-w3 a pair each, w4-w7
    none: 100 MB on w0-w3 against queuing's 80 (1.25x in 15 of 15 runs, 5 namings x 3
    seeds). Split, each worker loads one root beside its first combine: peak 1.000x in
    15 of 15, makespan 0.979 [0.974-1.006] -> 1.004 [0.997-1.010]x queuing's, bytes
    moved 220 -> 300 MB (queuing's 460; bench/results/peak38-findings.txt). Not at a
    share of 2 or more: there the pair fits in the share (8 x 4 / 48, wave37). Not
    where no other worker may take it now: at a line's last pair (2 x 3 / 96, a wave of
    2 roots on 2 workers) the root split off waited 0.07 s for the other worker and 5 of
    15 runs took 1.012 -> 1.044x queuing's makespan. Not a group of more than two
    roots: the anomaly's groups of 4 under a tree reduction (plugin 100 x 4 at 200 MB/s)
    split over the workers: peak 0.86 -> 1.00x queuing's, makespan 36.2 -> 42.0 s,
    bytes moved 62 -> 76 GB. Not a two-array join (its root meets the other array's
    in two merges): at a line's tail a side split off moved its merges (twin seed
    rechunk-add in its store form, 4 x 2: peak 300 -> 350 MB, makespan 3.82 -> 4.07 s,
    bytes moved 0 -> 150 MB). Not where the partner's worker runs other work besides its
    roots (a line's tail, not a wave's start): offset-slices' last root on 2 x 2 (2 ms
    lag) was split from a worker with a consumer queued to one whose threads both
    loaded: 3 of 9 runs (ab_twin) 0.398 -> 0.437 s, time median 0.649 -> 0.693x."""
    return bool(WAVE_SPLIT) and over == partners and share <= 1 and free \
        and widest <= 2 and meetings == 1 and not joins and roots_only


def may_fit_count(counts, opens: int) -> bool:
    """Could some busy worker admit a root by the in-flight count alone, ``counts`` being
    its ``(free_thread, slots used - cap)`` among others (``slots used``:
    ``WorkerBook.slots_used``), for a root that would newly reserve ``opens`` roots
    (:func:`committed`) and reserved none there? A necessary condition for
    :func:`may_admit_root` on a worker with something processing, for a root that
    completes no consumer there and may not load beside (the budget only refuses more).
    Why: a root nobody admits is placed anew at every task end and asked every free
    worker (twin anomaly 100x4: 48 free workers, 20 refusals a task); a body that keeps
    these counts for its free workers refuses it at once."""
    for free, over in counts:
        if over + max(0, opens - free) < 0:
            return True
    return False


def passes_for_further(roots_processing: int) -> bool:
    """May a root whose data is all that a further meeting still lacks
    (:func:`further_meeting`'s ``whole``: rechunk-add's v loads, once the u loads of the
    same step pair run or are held) pass the in-flight count on the worker holding the
    other side, as a root completing a consumer does? Only where no root is processing
    there: its side then loads after the other side's loads, two at a time on a 4-thread
    worker, not beside them. Passing whenever the other side was found, a step pair's
    four loads took every thread at once, ahead of the previous pair's adds (dask's
    priorities put loads first), whose merges waited held: twin rechunk-add 20x4, 1,000
    steps, 4 merges + 4 loads + their split halves = 10.5-11 chunks on a worker (0.63x
    queuing's peak); so, 10 (0.57x). Refused, such a root waits for that worker (the hooks
    park it there) rather than open its meeting elsewhere."""
    return roots_processing == 0


# A root whose side is all its further meeting (a pair) lacks waits for the other side's
# busy workers also when none of them is open for roots (their count of roots processing
# at the cap), rather than opening its meeting on another worker (waits_for_further);
# 0: before side31 (then it waited only where a hint worker was open).
FURTHER_WAITS = 1


def waits_for_further(whole: bool, pair: bool, busy: bool) -> bool:
    """Does a root without partners wait for its further meeting's workers, none of them
    open for roots? Only when its side is all that meeting lacks (``whole``), the meeting
    joins two sides (``pair``) and one of those workers is busy (``busy``): as when a hint
    worker is open but refuses it (:func:`passes_for_further`). Placed elsewhere, its side's
    merges run away from the other side's and each meeting (rechunk-add's add) waits for a
    merge's copy while that worker loads on: twin seed rechunk-add 4x1 (side31)."""
    return bool(FURTHER_WAITS) and whole and pair and busy


# The plugin's idle-worker split (admission._split) starts first the roots parked for their
# further meeting whose own meeting is not opened (reserved nowhere), then the rest by
# priority; 0: by priority only (before side31).
SPLIT_OPENS = 1

# The idle-worker split (admission._split): a root parked when the split began and woken by
# an earlier start of that split (a start's books change on its partners' worker: a
# reservation given back there, CONSTANT_HANDLES bit 2) is still asked with the workers it
# was parked on, not passed over: put back in line, no poke placed it until the next event
# (twin seed anomaly 4 x 1: two of four loads 25 ms late beside idle workers, 1.047 /
# 1.058x queuing's time at 2 / 10 ms). 0: passed over (before anom45).
SPLIT_WOKEN = 1

# The idle-worker split (admission._split) fills an idle worker's threads: after one root a
# worker (its first round, as before), an idle worker with a thread still free takes another
# parked root that waits for its own reduction (waits_for_own_reduction) while it holds less
# than its even share of that root's task group (split_takes). Twin seed anomaly 2 x 2 (four
# loads, one reduction): two loads waited for their partners' busy worker; the split started
# one on the idle worker, the other waited there beside a free thread until that worker's
# load and chunk-mean ended (1.09 / 1.13x queuing's time at 2 / 10 ms). 0: one root a worker
# (before seed46).
SPLIT_THREADS = 1


def split_takes(processing: int, threads: int, count: int, group: int, workers: int) -> bool:
    """May a worker idle when the idle-worker split began, ``processing`` tasks now (roots
    this split started there), take one more parked root (``SPLIT_THREADS``)? While a
    thread of its ``threads`` is free and it holds or processes fewer than its even share
    of the root's task group (``count`` there, of ``group`` over ``workers`` running
    workers: :func:`holds_share`): the threads an idle worker leaves idle wait for nothing
    else, and the share keeps one group's loads from piling on one worker."""
    return bool(SPLIT_THREADS) and processing < threads \
        and not holds_share(count, group, workers)


def passes_for_halo(in_flight: float, cap: float, passes: int, free: bool) -> bool:
    """May a root that completes a meeting found only by a deep plan
    (:attr:`MeetingPlan.deep`: a chunk's halo meeting with its neighbour, 6 steps down)
    pass the in-flight count? Only as one further root: while no root that came in by a
    pass is in flight on that worker (``passes``, ``books.Books.count_passes``) and the
    count (``in_flight``: roots processing, untouched and owed) is below ``cap + 1``. Every
    chunk of a stencil completes its neighbour's meeting, so passes chain: allowed as
    any completed meeting (``pass_cap``: the cap's worth of passes), the twin's rolling
    mean 2 x 2 ran at 1.01x queuing's time but peaked at 171-210 MB against queuing's
    145-164, 4 x 1 at 147 against 108-146; so bounded, every peak of 2x1, 2x2, 4x1 x 3
    seeds at or below queuing's (bench/results/halo26-findings.txt). ``free``: the worker
    has more than one thread (on one, a root sent there waits behind the running task: a
    pass only adds memory; see :func:`halo_depth`)."""
    return free and passes == 0 and in_flight < cap + 1


# On a worker of at most FREES_SLOT_THREADS threads (every worker since busy29; one-thread
# workers before), both bodies let a root pass the in-flight count by completing a
# consumer only where that frees a slot (frees_slot: bit 1), and a further meeting that is no
# pair counts as completed there only for a root waiting for its own reduction (bit 2;
# placement._decide; since session 28 not where every thread loads a root either:
# passes_for_group). A pass sent to a one-thread worker waits behind its queued readers and
# only adds memory (as passes_for_halo's ``free``). Both bits: resample("7D").mean()
# .to_zarr over 30-day chunks, LocalCluster 2 x 1, managed 40.5 MB against main's 67.2 and
# queuing's 40.5; twin with measured sizes and durations 2 x 1 1.00x queuing's peak (main
# 1.66x), 4 x 1 0.97x (1.42x). On every worker: 2 x 2 1.38x (main 1.04x); one bit alone
# leaves the chain. 0: main's decisions (res27, bench/results/res27-findings.txt).
FREES_SLOT = 3
# The most threads a worker may have for FREES_SLOT to apply there (frees_slot_on): every
# worker since busy29 (with BUSY_PASS; one28, busy28: 1, one-thread workers only).
FREES_SLOT_THREADS = 99


def frees_slot_on(threads: int) -> bool:
    """Does :data:`FREES_SLOT` apply on a worker of ``threads`` threads (at most
    ``FREES_SLOT_THREADS``: 99 since busy29, every worker; 1 before)? On one thread a pass past the
    count waits behind the worker's queued readers and only adds memory unless completing frees a
    slot (as :func:`passes_for_halo`'s ``free``). On every worker alone the twin's resample at 2 x 2
    rose to 1.38x queuing's peak (res27; one28's model 1.25 -> 1.62x): passes to busy multi-thread
    workers are the rest of the loss (see :func:`passes_busy`). One rule for every body: the hooks
    ask it per worker completing a consumer (and where it applies :func:`passes_for_group` passes
    only roots whose meetings are pairs), the core of its one worker (where, on one thread, a root
    is asked for only when the worker is idle: the rule decides nothing there)."""
    return threads <= FREES_SLOT_THREADS


# A completing pass on a worker of more than one thread only while fewer than BUSY_PASS x
# its threads are processing there (passes_busy; roots whose meetings read at most 4 inputs
# are spared, busy28 / busy29); 0: no such bound. On since busy29, with FREES_SLOT_THREADS = 99 and
# passes_for_group keeping wall28/w44's pass for pairs' roots: (1, 0) restores main's
# decisions (bench/results/busy29-findings.txt).
BUSY_PASS = 2

# A root reserved on a worker by the root that opened its meeting (books' ``owed``) is placed
# by a walk of that meeting's other inputs alone when each is on that worker or nowhere, no
# input is shared, gated or a handle read by 8-16, its plan is none of the rarer kinds, and its
# reduction does not split (the plugin's Placement._owed_place): the answer _decide finds, with
# fewer steps. 1: by the root's own plan (made if not kept); 2: on a first placement by its
# opener's plan mirrored (the meeting's inputs but this root's own and with the opener's:
# mirrored_inputs) where mirror_holds proves the root's own plan that mirror, else as 1 (the
# same decisions as 1; session 31's 2 assumed the mirror and differed on resample's graph and on
# trees of unlike siblings: bench/results/cpu32a-findings.txt); 0: off (the same decisions).
OWED_FAST = 2


def passes_busy(processing: int, threads: int, widest: int) -> bool:
    """May a root pass a worker's in-flight count by completing a consumer there while
    ``processing`` tasks are processing on its ``threads`` threads? Not where at least
    ``BUSY_PASS`` x its threads are (0: always may), unless every meeting of the root
    reads at most four inputs (``widest``: its widest meeting's count; busy28: two): a pair's
    load on a busy worker frees its partner's slot as soon as it runs (twin rechunk-add
    20x4 / 100x4: all 4,233 refusals were of roots whose meetings are all pairs, processing
    8-13 on 4 threads, and cost +0.5% / +1.9% makespan, no peak gained); resample's roots
    feed a week write of 105 inputs besides their pairs. Sent there, it waits in the worker's
    queue behind the queued tasks, as on one thread (:func:`frees_slot_on`), and only adds
    a load in memory. one28 / busy28 (on by default since busy29, see BUSY_PASS): with
    BUSY_PASS = 2 and frees_slot on every worker (FREES_SLOT_THREADS = 99) the twin's
    resample("7D").mean().to_zarr (measured sizes, 3 builds) 2x2 1.25 -> 0.97x queuing's
    peak, 4x2 1.30 -> 1.02x, 2x4 1.35 -> 1.02x, f-unique 4x2 makespan 1.20 -> 1.00x; but
    rechunk-add 20x4 / 100x4 makespan +0.5% / +1.9% (bench/results/one28-findings.txt).
    The core asks for a root only with a thread free: there it never refuses.
    busy29: spared up to 4 inputs (a tree reduction's group of 4 too): the twin's anomaly
    20 x 4, 1,000 steps, refused 122 roots whose widest meeting read 4 (1,061 asks) and took
    56.795 -> 57.725 s (+1.6%, same peak); resample's roots' widest reads 105."""
    return not BUSY_PASS or threads <= 1 or widest <= 4 or processing < BUSY_PASS * threads


def frees_slot(tops, carries, reduces) -> bool:
    """Does a root completing meetings on one worker (their waiting inputs: ``tops``,
    :func:`meeting_partners`' entries ``(task held or processing, the tasks between it
    and the meeting)``) free a slot of that worker's in-flight count, as a completing pass
    past the count assumes (:func:`may_admit_root`)? Only when one of those tasks carries
    a root's data in flight there (``carries(t)``: books.Books.carries) and no task
    between it and the meeting reduces it (``reduces(u, t)``: u's group has so far kept
    less than ``Policy.chain_keep`` of t's bytes; unknown: no), so that completing the
    meeting uses its data. A week's mean of one chunk waiting for the next chunk's
    (resample("7D") over 30-day chunks) holds no slot: the chunk's slot is held by its
    own readers, and loading the next chunk past the count to complete the week added a
    root in flight and freed none. Passed so, one after another, such loads held 4-5
    chunks on a one-thread worker against queuing's 2-3 (LocalCluster 2 x 1: 67 MB
    managed against 41; the twin at its geometry and measured durations 70.5 against
    41.5; bench/results/res27-findings.txt)."""
    for c, below in tops:
        if c is None or not carries(c):
            continue
        for u in below:
            if reduces(u, c):
                break
        else:
            return True
    return False


def keeps_data(nbytes: float, size: float, keep: float) -> bool:
    """Does a single-input task whose output weighs ``nbytes`` keep the data of its input
    (``size`` bytes) on, as a chain does (open -> read -> select), rather than reduce it?
    When it keeps at least ``keep`` (``Policy.chain_keep``) of it. books.Books.on_finished
    asks it of a finished task, to carry a root's data on or land it."""
    return nbytes >= keep * size


# A root whose data meets several pairs (a rechunk's halves), opening them, counts the roots it
# would reserve (Books.place's commits; the plugin's Placement._commits, pair_commits); 0: main's
PAIR_COMMITS = 1


def pair_commits(meetings: int, inputs: int, returned: float, estimate: float,
                 keep: float) -> bool:
    """Does a root opening a meeting of ``inputs`` inputs, one of the ``meetings`` its data
    meets, count the roots it would reserve there as in flight already (as for
    :func:`meets_further`: ``Books.place``'s ``commits``), although the meeting's output
    meets nothing further? When its data meets several meetings (``meetings`` >= 2: cut in
    parts, it stays until each part met its partner) and this one is a pair (2 inputs)
    whose group is not known to keep at least ``keep`` of a root's ``estimate``
    (``returned``: what it returned on average so far, NaN unknown). Why: twin rechunk at
    2 x 2 (cap 3; each 8 MB block cut in two halves, each half merged with the partner
    block's and reduced at once): an opener came with one slot left and its partner past
    the count by completing the merge (a pass), and a first-wave orphan's halves waited for
    their partner beside the next pairs: 1.08-1.22x queuing's peak in 5-6 of 15 runs a
    lag; counted, none over, 0.72-0.73x median (tail34-findings.txt section 3). Pairs met
    by one meeting (stack-sum's sums, open-read-select's selects) do not commit: counted,
    they idled threads (stack-sum 2 x 2: 0.64 -> 0.76x queuing's makespan; tail33)."""
    return bool(PAIR_COMMITS) and meetings >= 2 and inputs == 2 \
        and not keeps_data(returned, estimate, keep)


# A pair's opener counted so (pair_commits) opens it only where the tasks processing do not
# fill dask's own queuing check (processing >= the cap), on workers of more threads than a
# pair has loads (Books.place's ``pair``; pair_waits); 2: the worker's roots untouched
# counted with its tasks processing (fewer runs over, slower); 0: main's (tail35).
PAIR_BUSY = 1

# A pair's opener also waits where its two loads would queue behind the loads running
# there (roots processing + 2 > threads, 3+ threads: pair_waits); 2: also where more than
# a pair's blocks are still to be cut there (roots processing + untouched > 2) and no
# thread is free (four-thread runs over too; slower there); 3: 1, and also where the last
# pair's loads run (roots processing >= 2) beside a block still to cut, no thread is free
# and those blocks with its own two exceed the threads (2's four-thread runs over cleared
# at about half its time cost; rech37); 0: off (tail36).
PAIR_LOADS = 3


def pair_waits(processing: int, cap: float, threads: int, untouched: float = 0,
               roots_processing: int = 0) -> bool:
    """Does a root that opens pairs counted by :func:`pair_commits` wait rather than open
    them on a worker with ``processing`` tasks processing (queued or running), ``cap`` its
    roots' cap, ``threads`` its threads? When the tasks processing there fill the cap, as
    dask's queuing would find the worker saturated, on a worker of more than two threads
    (:data:`PAIR_BUSY` 2: with its ``untouched`` roots' data counted as tasks too; twin
    rechunk 2 ms over-peak runs 4x4 / 2x4 / 3x4 0 / 1 / 2 -> 0 / 0 / 0 of 15, makespan
    +0-15%, tail35-findings.txt).
    Why: twin rechunk on 4-thread workers at 2 ms (4 x 4, 2 x 4, 3 x 4): a block's halves
    wait there for their merges (each ~3x a split's time), and the books count the block's
    slot free once it was split; a worker with 7-10 tasks processing opened one more pair,
    and its two blocks and their halves met the halves still waiting: 80 MB against
    queuing's 72 (1.11x) in 5 of 15 runs a shape (tail35-findings.txt). Not on one or two
    threads: a pair's two loads take every thread there anyway, and waiting only delayed
    them (rechunk 2 x 1 at 2 ms: 0.76 -> 0.84x queuing's makespan, no peak lower).
    :data:`PAIR_LOADS`: also where ``roots_processing`` (loads running or queued there)
    and the pair's two loads exceed the threads. Why: twin rechunk on three-thread workers
    at 2 ms (3 x 3, 2 x 3, 4 x 3): a pair opened while the last pair still loaded; its
    loads came in dask's next batch with the last pair's splits and took the threads
    first (a batch's tasks start in arrival order), so both pairs' blocks (32 MB) met both
    pairs' halves (32 MB): 64 MB against queuing's 56, 4-5 of 15 runs a shape over;
    waiting, none over, peak median 0.94 -> 0.75x, makespan -4..+5% (tail36-findings.txt).
    Not on four threads (rp + 2 > 4 hardly binds): there the runs over left by the cap
    test had three blocks loaded or loading but not yet cut with every thread busy:
    PAIR_LOADS 2 waits there too (2 x 4, 3 x 4 at 2 ms: 1 / 2 of 15 -> 0; four-thread
    makespan +1-8%, three-thread run for run the same; tail36-findings.txt).
    PAIR_LOADS 3 (default) waits there only where the last pair's two loads are still
    processing (``roots_processing`` >= 2), a block is loaded but not yet cut, no thread is
    free, and those blocks and the pair's two exceed the threads. Why: in every four-thread
    run over (twin rechunk 2 x 4, 3 x 4 at 2 ms) the third pair came at rp 2, untouched 1,
    processing 4: its loads took the threads freed by the last pair's loads before that
    pair's splits (sent a batch later) and met the first pair's halves still waiting for
    their merges: 80 MB against queuing's 72-76. 2 also waited at rp 0 with three blocks
    uncut, where the splits are on the worker already (no run over came from there), and
    on six threads, which hold three pairs. 50 runs a shape at 2 ms: 2 x 4 / 3 x 4 over
    5 / 4 -> 0, makespan +3.8% / +2.4% (2: +7% / +3%); 5 ms peak medians 0.78-0.88 ->
    0.71-0.75x, makespan +0-3%; 5 threads peak medians 1.00 -> 0.73x; 6 and 8 threads,
    three threads, other workloads: unchanged or the same (rech37-findings.txt)."""
    if threads <= 2:
        return False
    if PAIR_LOADS and roots_processing + 2 > threads:
        return True
    if PAIR_LOADS == 2 and roots_processing + untouched > 2 and processing >= threads:
        return True
    if PAIR_LOADS == 3 and roots_processing >= 2 and untouched >= 1 \
            and processing >= threads and roots_processing + untouched + 2 > threads:
        return True
    if PAIR_BUSY == 2:
        processing += untouched
    return bool(PAIR_BUSY) and processing >= cap


# In the tail (fewer roots in line than the cluster has threads) a root with no partners and
# no further meeting goes only to a worker with a thread free, not queued behind its running
# work in the cap's slack (ceil(1.1 x threads)): each root left finds a thread within one
# task's time, while a queued one starts only when its worker's task ends. Why: twin weighted
# (store form, 190 MB, 200 steps) 20 x 4: at each worker's end of round two the last 20
# stores went 4 at a time to the first five finishers (3 on their threads, 1 queued), which
# ran a fourth round of one store (4.37 s) to 19.2-20.0 s while the other fifteen ended at
# 15.6-16.2 s: 1.086x queuing's makespan in 4 of 5 namings (tail52-findings.txt). 0: off.
TAIL_THREAD_FREE = 1


def tail_wants_thread(roots_queued: int, total_threads: int) -> bool:
    """Is a root without partners, with ``roots_queued`` roots in line (itself included)
    on a cluster of ``total_threads`` threads, in the tail, where it goes only to a
    worker with a thread free (:data:`TAIL_THREAD_FREE`)?"""
    return bool(TAIL_THREAD_FREE) and 0 < roots_queued <= total_threads
