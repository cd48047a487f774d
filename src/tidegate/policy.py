"""The decisions, as pure code over small views of state. No I/O, no threads, no clock.

The same functions run in the thread runtime, the simulator and inside a dask.distributed
scheduler, so they take plain numbers and arrays, never a runtime's objects.
"""

from __future__ import annotations

import heapq
import math
import operator
from dataclasses import dataclass
from itertools import compress, islice
from typing import Callable, NamedTuple

import numpy as np

POLICIES = ("tidegate", "priority")

# A task with no inputs that feeds this many tasks is a shared handle (an opened file, a
# store), not a load: its dependents still count as roots.
SHARED_FANOUT = 8
# A constant (a DataNode: a store handle, ``from_array``'s array object) read by fewer
# than SHARED_FANOUT tasks ends a walk's chain below it too, unless its size says it is
# data (HANDLE_MAX_BYTES): its readers are roots (is_root), so the chain's root is the
# reader, not the constant. Walked to the constant, a short series' handle (rechunk-add of
# 4 steps: two 56 B handles read by 4 loads each) was every load's partner on the
# handle's worker, where each load "completed" its merges: all 8 loads ran on one of 4
# workers (twin 4 x 4: 2.75x queuing's peak, 1.37x its time; ra45-findings.txt). Bit 1: the
# walks' chains (_chain, _chain_fast); bit 2: the constant's own plan and reservations
# (walked_handle: it opens no meeting of its readers', gives back what it reserved); bit 4:
# not up a chain that starts at an input read by several tasks and reaches the constant two
# or more steps up (a grid: grid-dx <- open-dx <- store-grid, read by every step): there the
# grid's loads became roots every step's opener lacked and reserved on its worker (twin
# vorticity of 4-12 steps on 2 x 4: 1.11-1.61x queuing's time with bits 1 and 2 alone,
# 0.87-1.14x with bit 4). 0: main's.
CONSTANT_HANDLES = 7
# ... unless its output is known to weigh this much: a handle describes data and is tiny
# (a zarr array object: ~100 bytes); a stencil's 8 MB block read by its 9 overlap pieces
# is data. Taken for a handle, its pieces became roots, placed apart from it: the whole
# block was copied to their workers (twin, 4x1 at 200 MB/s: 260 MiB moved against
# queuing's 31). Known sizes: an array layer's chunk metadata before a run (core), the
# measured result once the input ran (plugin: its readers are classified when ready).
HANDLE_MAX_BYTES = 1 << 16
# An input read by more tasks than this has no single meeting place: it is copied to every
# worker that uses it (a grid, broadcast weights, a store handle).
MEETING_FANOUT = 16
# A root that is itself a shared handle whose loads meet no other root's data has no
# meetings of its own (handle_meets, handle_plan_on): bit 1 on clusters averaging more than
# one thread per worker, bit 2 on one-thread clusters too, bit 4 there only if its readers
# wait for their own reduction (anom31/anom32-findings.txt). 0: main's decisions, its
# readers' meetings walked from it; 1: main's at session 32's start.
HANDLE_PLAN = 7

# Data whose root feeds more meetings than this (a 2-D stencil's block, read by 9 overlaps)
# is held until the last of them: completing one frees none of it.
MEETING_SPREAD = 3
# SPREAD_IN_ORDER: a new graph's root whose data feeds more than MEETING_SPREAD meetings (a
# stencil's block) is not placed when dask's update_graph walk offers it (an order its sets
# decide: a 6 x 6 stencil's first offers were blocks of the last columns in priority order,
# whose overlaps then waited for the whole sweep) but queued: the plugin's poke starts such
# roots best first (as a graph with priority annotations already). Twin stencil 2 x 8, 240
# runs: over 1.05x queuing's time 77 -> 39 (2 ms) and 36 -> 2 (10 ms), over queuing's peak 7
# -> 0 and 9 -> 1 (sten47-findings.txt). 1: roots of a group of two or more (a lone grid's
# open is no such order: queued, twin vorticity-files 4 x 1 took 6% longer); 2: every spread
# root; 0: off.
SPREAD_IN_ORDER = 1
# LACKED_UNBLOCK 1: a spread root that stopped poke's scan for want of partners (the scan's
# blocker, asked again only once a worker opens or frees by the count) is asked at the next
# scan once a root it lacks is placed (Admission._wake_lacked); parked on its partner's
# worker, it is then woken as any spread root there (Books.may_take_spread). Where the
# count (blocks loaded whose overlaps wait) stays at the cap most of a stencil's sweep,
# the blocker waited for it to drop while its partners loaded (twin stencil 1 x 8 at 2 ms,
# traced: the last column asked at 193 ms, its partners placed from 115 ms). Twin stencil
# at 2 ms, 60 runs a cell, summed makespan: 1 x 4 -4.8% (runs over 1.05x queuing's time 55
# -> 9), 2 x 4 -7.7%, 1 x 8 -2.2%, 2 x 2 +0.6% (2 -> 2 over); none over queuing's peak
# either way; 1 x 2, 4 x 4, 2 x 8, 3 x 8 and at 10 ms the same runs. sten49-findings.txt.
# 0: off.
LACKED_UNBLOCK = 1


@dataclass(frozen=True)
class Policy:
    """``tidegate``: withhold roots (``saturation`` x threads in flight per worker) and admit
    them only while held bytes plus their estimate fit the budget. ``priority``: plain strict
    priority, no withholding; the reference to compare against."""

    name: str = "tidegate"
    saturation: float = 1.1
    # A root of unknown size (nothing seen yet) starts alone on a busy worker, so a first
    # wave is not admitted at an estimate of 0 bytes. The plugin probes; the core lets the
    # first wave run (its threads share one process, the budget catches up after one wave).
    probe: bool = False
    # A single-input task whose output keeps at least this fraction of its input's bytes
    # carries a root's data on (open -> read -> select); smaller, it reduced the data.
    chain_keep: float = 0.25

    def __post_init__(self) -> None:
        if self.name not in POLICIES:
            raise ValueError(f"unknown policy {self.name!r}; choose one of {', '.join(POLICIES)}")
        if not (isinstance(self.saturation, (int, float)) and self.saturation > 0):
            raise ValueError(f"saturation must be a number > 0, got {self.saturation!r}")
        if math.isnan(self.saturation):
            raise ValueError("saturation must be a number > 0, got nan")
        if not 0 <= self.chain_keep <= math.inf:
            raise ValueError(f"chain_keep must be >= 0, got {self.chain_keep!r}")

    @property
    def withholds(self) -> bool:
        return self.name == "tidegate"

    def root_cap(self, threads: int) -> float:
        """Roots processing at once on a worker with ``threads`` threads."""
        if not self.withholds or math.isinf(self.saturation):
            return math.inf
        return max(1, math.ceil(self.saturation * threads))


def find_roots(
    dep_ptr: np.ndarray,
    dep_idx: np.ndarray,
    ndependents: np.ndarray,
    constant: np.ndarray,
    marked: np.ndarray,
    nbytes: np.ndarray | None = None,
) -> np.ndarray:
    """Root = a task whose inputs are all constants, by structure alone.

    ``constant[i]``: task i holds data already (a DataNode: a store handle, an embedded
    chunk). A task with no inputs besides constants and a wide fan-out is a shared handle
    and counts as constant too (``h = open(path)`` read by 8 loads, whether ``path`` is a
    DataNode task, as on a cluster, or a value handed in, as in ``get``), unless
    ``nbytes[i]`` (its known output size, NaN unknown) says it is data (HANDLE_MAX_BYTES).
    ``marked[i]``: declared a data producer or annotated as root. Key names and group
    sizes play no part, so unique keys and small groups are found.
    """
    n = len(dep_ptr) - 1
    owner = np.repeat(np.arange(n), np.diff(dep_ptr))
    data_in = np.bincount(owner, weights=~constant[dep_idx], minlength=n)
    shared = constant | is_handle(data_in, ndependents, np.nan if nbytes is None else nbytes)
    nonconstant_inputs = np.bincount(owner, weights=~shared[dep_idx], minlength=n)
    return (nonconstant_inputs == 0) | marked


def is_handle(data_inputs, readers, nbytes):
    """Is a task a shared handle (an opened file, a store), not data: no inputs besides
    constants (``data_inputs`` == 0), read by ``SHARED_FANOUT`` or more tasks, and not
    known to weigh ``HANDLE_MAX_BYTES`` (``nbytes``: NaN or < 0, unknown: a handle by
    structure)? Its readers are then roots. One rule for :func:`find_roots` (numpy
    arrays), :func:`is_root` and the graph walks (:func:`_chain`): a walk that took a
    stencil's 8 MB block for a handle reported its halo slices as roots still to load,
    and the books reserved them (books.Books.place) on the opener's worker, where they
    were never placed as roots: twin stencil 4x2, 55 such reservations on a worker for
    36 roots, so the in-flight count never admitted a root."""
    return (data_inputs == 0) & (readers >= SHARED_FANOUT) & np.logical_not(
        nbytes >= HANDLE_MAX_BYTES)


def is_one_handle(data_inputs: int, readers: int, nbytes: float) -> bool:
    """:func:`is_handle` for one task, without numpy (1.4 us a call on scalars: the plugin
    asks it of most tasks' first input, through :func:`is_root`)."""
    return data_inputs == 0 and readers >= SHARED_FANOUT and not nbytes >= HANDLE_MAX_BYTES


def handle_meets(task, plan) -> bool:
    """Does root ``task``, a shared handle by structure (:func:`is_handle`: no data inputs,
    read by ``SHARED_FANOUT`` or more tasks, its size unknown before it runs; or, with
    ``CONSTANT_HANDLES``, a constant read by fewer: :func:`walked_handle`), meet other
    roots' data where it runs? ``plan``: its :func:`meeting_plan` within ``depth`` (no
    halo walk). Not when no input of the meetings it reaches comes up a single-input
    chain from another root (each such chain ends at ``task``; the others start at a task
    of several inputs, a reduction): an opened store whose loads meet only each other or
    reductions. It is copied to every worker that reads it, and its readers are the
    roots, each placed by its own meetings. Walked as data, its meetings lacked all its
    readers and the books reserved them on its worker (the seed anomaly's zarr array, 12
    loads: twin 2 x 4, that worker's in-flight count full of reservations, the other took
    a fifth root, which opened a reduction group, and its partners followed: 8 loads
    against 4, peak 1.24x queuing's; anom31-findings.txt). A stencil's block (8 MB, read by
    its 9 overlap pieces, unknown until it ran) meets its neighbours' blocks: yes. Asked
    where :func:`handle_plan_on` says."""
    own = False
    for inputs in plan.inputs:
        for entry in inputs:
            end = entry[1]
            if end is task:  # (identity, as meeting_plan's halo test)
                own = True
            elif end is not None:
                return True  # another root's data
    return not own


# HANDLE_UNOWE: a root that is a shared handle by structure and finished with a handle-sized
# result (:func:`drops_reservations`) reserves its meetings' roots no more. 0: off (main
# before seed43: they stayed reserved until its first reader's data landed).
HANDLE_UNOWE = 1


def drops_reservations(data_inputs: int, readers: int, nbytes: float,
                       constant: bool = False) -> bool:
    """:data:`HANDLE_UNOWE`: does a root that finished with ``nbytes`` of output, with
    ``data_inputs`` inputs besides constants and ``readers`` readers, give up the slots
    its meetings reserved (``Books.place``'s ``lacks``)? When it is a shared handle by
    structure (:func:`walked_handle`, ``constant``: a DataNode) whose result is now known
    handle-sized: its readers
    are the roots, each placed by its own meetings. Placed before it ran (its size
    unknown), :func:`handle_meets` walked it as data where its loads meet another root's
    (a stencil's block meets its neighbours'), so its meetings lacked every other load
    they read and the books reserved those on its worker. Why: the seed's slice-add
    opens two zarr arrays (one handle each, 12 loads each, a load of one meeting a load of
    the other): each handle's worker held 12 reservations of the other array's loads when
    the handles finished, refused every other load (the count full) and took none of the
    first wave; the two other workers of 4 x 4 took it all (twin: 1.44-1.63x queuing's
    peak; seed43-findings.txt)."""
    return bool(HANDLE_UNOWE) and walked_handle(constant, data_inputs, readers, nbytes)


def walked_handle(constant: bool, data_inputs: int, readers: int, nbytes: float) -> bool:
    """Is a task a handle to the meeting walks, its readers the roots: a shared handle by
    structure (:func:`is_one_handle`), or, with ``CONSTANT_HANDLES``, a ``constant`` (a
    DataNode: is_root makes its readers roots however few) read by fewer, not known to
    weigh ``HANDLE_MAX_BYTES``? The body asks it of a root's own plan
    (:func:`handle_meets`) and of a finished root's reservations
    (:func:`drops_reservations`): walked as data, a short series' handle (rechunk-add of 4
    steps, 4 loads a handle) reserved its 4 loads on its worker, which then took every load
    of the array while the other handle's worker took the other's (twin 2 x 4: 1.23x
    queuing's peak, 1.17x its time; ra45-findings.txt)."""
    if readers >= SHARED_FANOUT:
        return is_one_handle(data_inputs, readers, nbytes)
    return bool(CONSTANT_HANDLES & 2) and constant and readers > 0 \
        and not nbytes >= HANDLE_MAX_BYTES  # fmt: skip


def handle_plan_on(threads: float, readers_reduce=None) -> bool:
    """Is :func:`handle_meets` asked on a cluster of ``threads`` threads per worker
    (``HANDLE_PLAN``'s bits 1 and 2; 0: never, main's decisions)? With bit 4, on one-thread
    workers only for a handle whose readers wait for their own reduction
    (``readers_reduce()``: :func:`waits_for_own_reduction` of one reader; a load read
    again beside its mean). anom31: on one-thread workers the walked handle's
    reservations, all made on one worker, hid a reduction group's partners from the other
    workers' counts (its opener reserved none anew, so they came in by the count): without
    them the seed anomaly took 1.01x queuing's time at 4 x 1 against 0.95x (0.99x against
    1.02x at 2 x 1). anom32: with :func:`counts_own_group` they come in by the count
    anyway (4 x 1 0.805 -> 0.789x, 2 x 1 1.019 -> 0.986x queuing's time, sender model);
    a rechunk's handle (seed rechunk-add 4 x 1, 10 ms overrun: 0.52 -> 0.65x queuing's
    time, its worst peak 0.79 -> 0.86x) keeps its plan there (bit 4)."""
    if not HANDLE_PLAN & (1 if threads > 1 else 2):
        return False
    return threads > 1 or not HANDLE_PLAN & 4 or readers_reduce is None or readers_reduce()


# A root reserved on a worker by the root that opened its meeting is counted there without
# its own meeting's other reservations (the opener's still owed there): bit 1 on one-thread
# workers, bit 2 on others. 0: main's, only its own reservation (anom32-findings.txt).
OWN_GROUP = 1


def counts_own_group(threads: int) -> bool:
    """Is a reserved root that waits for its own reduction (:func:`waits_for_own_reduction`;
    the plugin says so: ``Books.place(own_group=)``) admitted on its reserved worker by the
    count without the other roots its opener still has reserved there (``OWN_GROUP``)?
    Asked of every reserved root, it moved the plugin's one-thread stencil (4 x 1: 1.02 ->
    1.06x queuing's makespan) and zarr weighted (+1.7%). Each of them, admitted,
    turns a reservation into a root in flight: they only bar other meetings. Counted, a
    reduction group of 4 opened on a one-thread worker (cap 2) filled the count with its
    own 3 reservations and refused its own partners: they came only by an idle worker's
    split or by held bytes, and groups split three ways (twin seed anomaly 4 x 1 with
    the handle's plan dropped, ``HANDLE_PLAN`` bit 2: anom31-findings.txt)."""
    return bool(OWN_GROUP & (2 if threads > 1 else 1))


# How many tasks processing on a worker that read next to no data (``reads_little``: a
# stencil's per-block statistics, 24 KB beside its 8 MB blocks) a spread root may be sent
# ahead of (``may_load_beside``'s ``light``); 0: before sten33. With 2 the twin's stencil on
# one-thread workers runs faster (bench/wall29_small.py, 2 x 1 at 2 ms 1.062 -> 1.016x
# queuing's median on distributed 2026.8, 1.050 -> 1.029x on 2025.4). The plugin gives the
# count (books.light) on distributed 2025.5 on (distributed/install.py's _starts_by_walk:
# before, the tests' 6 x 6 stencil ran one schedule, slower with it; la34-findings.txt).
# LIGHT_THREADS says where: bit 1 on one-thread workers, bit 2 on workers of 2+ threads
# (sten35, with SHORT_AHEAD and LIGHT_FREE: twin stencil 2 x 2 at 2 ms 1.057 -> 0.981x
# queuing's median, runs over 1.05x 9 -> 1 of 15, peaks as before; sten35-findings.txt).
LIGHT_AHEAD = 2
LIGHT_THREADS = 3
# A task reads little when its inputs together are below 1/LIGHT_RATIO of a root's load.
LIGHT_RATIO = 64
# ... and counts only while its kind's average run time (dask's, known) is under LIGHT_SHORT
# seconds: about a scheduler round trip, the gap a root sent ahead fills (sten33: 2.1-4.4 ms
# after each block). Longer, the root arrived in time without it, and went to a worker busy
# for as long: twin stencil 4 x 1 at 10 ms overrun 0.988 -> 0.997x queuing's median (10 of
# 15 runs slower), now as before the rule (la34). inf: any run time, unknown too (sten33).
LIGHT_SHORT = 0.005
# Of the tasks a spread root is sent ahead of (``light``), up to SHORT_AHEAD may read data
# (more than little) where their kind ends soon (under LIGHT_SHORT, known), on the workers
# SHORT_THREADS names (bits as LIGHT_THREADS'). On two threads the scheduler hears of each
# 2 ms slice's end a round trip late, so it counted the worker busy when it had run dry:
# the block came after both threads idled (twin stencil 2 x 2 at 2 ms: gaps before a block
# 117 ms a run against queuing's 48, after it 84 against 33). One such task ahead: the block
# starts at most one slice early, holding its predecessor that much longer (two: 4 x 1
# peak 0.75 -> 0.87x queuing's median, max 1.17). 0 restores sten33's light tasks only.
# On one thread (bit 1, not kept): twin stencil 2 x 1 at 2 ms 1.027 -> 0.981x, but the
# tests' default model 2 x 1 s7 1.002 -> 1.014x over five namings, one run's peak +1 block.
SHORT_AHEAD = 1
SHORT_THREADS = 2
# SHORT_ONE 1: on one-thread workers (where SHORT_THREADS does not name them) the one short
# task that reads a block counts too, where the worker holds no more than the least-held
# other worker plus the root (:func:`holds_least`; ``light_ahead(short=True)``, asked by
# books.Books._beside_light only where the allowance without it refused). One thread at 2 ms:
# each block's slices come a round trip after it loads, and the next block came a round trip
# after the last slice was heard of; queuing runs blocks in pairs and idles at neither (twin
# stencil 2 x 1 at 2 ms: random_sample -> getitem gaps 83 ms a run, getitem -> random_sample
# 34 ms, queuing's 0 and 26). Sent ahead of the last slice it covers the second gap and part
# of the first, but holds its predecessor's block a slice longer: everywhere (SHORT_THREADS
# 3) 1.037 -> 0.996x queuing's time median over 60 runs, 11 -> 2 over 1.05x, but runs over
# queuing's peak 3 -> 6 of 180 (2 x 1, 3 x 1, 4 x 1). Only where the worker is not the one
# holding most, the block more is not the cluster's peak: 2 x 1 1.004x, 0 over, peaks over
# as before. sten38-findings.txt. 0: off (main before sten38).
SHORT_ONE = 1
# LIGHT_FREE 1: on workers of 2+ threads the allowance counts in may_load_beside's second
# test too (a thread free where at most one root processes): the second block of a pair
# went out only once the scheduler heard a thread free (twin stencil 2 x 2 at 2 ms, with
# SHORT_AHEAD: 1.018 -> 0.981x queuing's median). sten33 tried light tasks there without
# LIGHT_SHORT: rolling's light steps run up to 100 ms, and its chunks ran ahead. 0: off.
LIGHT_FREE = 1


# BESIDE_THIRD 1: on workers of BESIDE_THIRD_THREADS+ threads, a third spread root may
# process beside other work where a task processing there ends soon (may_load_beside's
# ``third``; the body asks :func:`asks_third`, then counts as ``light``: a short task, known
# run time under LIGHT_SHORT). Two at once on four threads: a worker's four threads sliced
# two blocks, then two loaded while two idled a round trip (twin stencil 2 x 4 at 2 ms:
# 1.078x queuing's time median, 12 of 15 runs over 1.05x). Three where a short task runs:
# 1.013x (6 over), peaks 0.69 -> 0.75x median, max 0.87x. Everywhere (a thread free, any
# task): 0.983x, but at 10 ms overrun (no task short) peaks 0.72 -> 0.93x median, 3 runs
# over 1.05x (max 1.09: a block over queuing's in its lean runs). sten36-findings.txt.
# 0: off (main before sten36).
BESIDE_THIRD = 1
BESIDE_THIRD_THREADS = 4

# BESIDE_BUSY 1: on workers of BESIDE_BUSY_THREADS+ threads, may_load_beside's second test
# (fewer than two spread roots processing) asks only that no task waits for a thread
# (processing <= threads), not that a thread is free: the root may wait in the worker's
# queue behind one task end. The scheduler hears of a thread freeing a round trip late, so
# with every thread slicing a block the next block went out after a thread had idled
# (twin stencil 2 x 4 at 10 ms: threads 3.4 of 4 busy against queuing's 3.9, 1.060x
# queuing's time median, 21 of 30 runs over 1.05x; with it 1.044x, 10 over, peaks as
# before, none over queuing's). Two-thread workers (BESIDE_BUSY_THREADS 2, not kept): time
# gains too (3 x 2 at 2 ms 0.866 -> 0.836x) but 3 x 2 at 10 ms peaks 0.80 -> 0.89x median.
# sten37-findings.txt. 0: off (main before sten37).
BESIDE_BUSY = 1
BESIDE_BUSY_THREADS = 4
# BESIDE_DEEP n: BESIDE_BUSY's clause lets the root wait behind up to n tasks waiting for a
# thread (processing <= threads + n), not none. A block loads in about 1.5 slices' time (15
# ms beside 10 ms slices), and the scheduler hears of each slice's end a round trip late:
# sent when the last four slices of a pair of blocks were left (one round of 4 threads),
# the next pair loaded on two threads while the other two idled (twin stencil 2 x 4 at 10
# ms: getitem -> getitem gaps 220 ms a run against queuing's none; 1.054x queuing's time
# median, 16 of 30 runs over 1.05x). Two tasks deeper: 1.021x (2 over), peaks 0.79 -> 0.81x
# median, none over queuing's; still at most two roots processing. sten38-findings.txt.
# 0: off (main before sten38). 3 (sten50; on clusters of two or more workers since
# sten50b, BESIDE_DEEP_ALONE on one): the start's two blocks' slices fill a four-thread
# worker's queue to threads + 3, and 2 held back the block between them (twin stencil 4 x 4
# at 10 ms, traced: (2,5) loaded at 40 ms, not 16, while the overlaps of (1,5) and (3,5)
# waited for it). 60 runs a cell, 2 -> 3: 4 x 4 at 10 ms tidegate's peak 80 -> 64 MB in
# every run (queuing's lowest 72-80: 1 -> 0 runs over it), 3 x 4 runs over queuing's peak
# 4 -> 0, over 1.05x its time 19 -> 4 (-3.0% summed); 5 x 4 at 2 ms -4.6%; costs 5 x 4 at
# 10 ms 2 -> 4 over 1.05x (+0.7%), 8 x 4 at 10 ms +1.7%. sten50-findings.txt,
# sten50b-findings.txt. 2: trial50's.
BESIDE_DEEP = 3
# BESIDE_DEEP_ALONE n: BESIDE_DEEP on a cluster's only worker (may_load_beside's ``alone``;
# the thread runtime's one worker too). 3 there put 1 x 4 at 10 ms over queuing's peak in 1
# of 60 runs (1.077x; none with 2). sten50b-findings.txt.
BESIDE_DEEP_ALONE = 2
# BESIDE_DEEP_WIDE n: on workers of BESIDE_WIDE_THREADS+ threads, BESIDE_DEEP is n (0: as
# on fewer threads). Eight threads run a block's nine slices in one round, and two to four
# loads at a time feed them in bursts: every slice of the blocks loaded done, processing
# past threads + 2 while they ran held the next loads back, and the threads idled a round
# trip before those came (twin stencil 2 x 8: 1.027x queuing's time median at 10 ms, 20 of
# 60 runs over 1.05x). Six deeper: 1.006x, 4 over; at 2 ms 22 -> 16 over; runs over
# queuing's peak 2 -> 6 at 10 ms (by two blocks), 3 -> 2 at 2 ms. sten43-findings.txt.
BESIDE_DEEP_WIDE = 4
# SHORT_DEEP n: where a task processing on the worker is known short (the light allowance
# counts one: ``light`` > 0, its kind's run time under LIGHT_SHORT), BESIDE_BUSY's clause
# lets the root wait behind up to n tasks waiting for a thread, not BESIDE_DEEP
# (:func:`waits_behind_short`; asked by books.Books._beside_light after the allowance
# refused). BESIDE_DEEP's two tasks are a round trip at 10 ms slices on four threads; at 2
# ms they are a millisecond: each pair of blocks went out when its predecessors' last
# slices were left, came a round trip later and loaded on two threads while two idled (twin
# stencil 2 x 4 at 2 ms, traced: getitem -> getitem gaps 144 ms a run against queuing's 31,
# getitem -> random_sample 153 against 92; 0.999x queuing's time median, 8 of 30 runs
# over 1.05x). Ten deeper (SHORT_DEEP_SLACK 0; 60 runs a cell): 2 x 4 0.990 -> 0.917x
# (13 -> 3 over), 3 x 4 0.685 -> 0.664x, 4 x 4 0.621 -> 0.593x; runs over queuing's peak by
# a block 0 -> 1 of 180 (4 x 4: a reshuffled schedule's waiting interiors); 10 ms cells run
# for run the same (no task short). 6 and 8: slower, no fewer peaks over.
# sten39-findings.txt. 0: off (main before sten39).
SHORT_DEEP = 10
# SHORT_DEEP_SLACK s: ... only where the worker holds no more than every other worker plus
# s roots (:func:`holds_least` with s times the root's estimate; inf: no guard). The block
# sent early holds its predecessors' a few slices longer; on the worker holding least it is
# not the cluster's peak. 2 x 4 at 2 ms, 60 runs: no guard 2 runs of 30 over queuing's peak
# by a block; s 1 (SHORT_ONE's) 1 of 60 (0.896x time); s 0 none (0.917x); s -1 (no more
# than any other after the root) 1 of 60 and 0.944x.
SHORT_DEEP_SLACK = 0
# BESIDE_LEAST 1: on workers of 2 to BESIDE_BUSY_THREADS (excl.) threads, a spread root
# passes the count by may_load_beside (Books._admits' ``beside``) where a root processes
# there only if the worker holds no more than every other worker plus the root
# (:func:`holds_least`, as SHORT_DEEP_SLACK 0). Traced (twin stencil 8 x 2 at 2 ms, naming
# 4 seed 2): a worker holding five interiors and a block, 16-24 MB more than three others,
# took (2,1) beside a running load past a full count: 56 MB against queuing's 48 (one
# schedule in all 60 runs, over queuing's peak where queuing is lucky, 2 of 60). 60 runs a
# cell, over queuing's peak 8 x 2 2 -> 0, 3 x 2 16 -> 0 at 2 ms, 4 x 2 3 -> 0 at 10 ms;
# summed makespan +1.3%, -0.8%, -0.7%; 4 x 2 at 2 ms +2.8%, 8 x 2 at 10 ms +4.4% (none
# over 1.05x queuing's). On four threads it cost (2 x 4 at 10 ms 1 -> 5 runs over
# 1.05x). Not on the first test (no root processing there): 2 x 2 at 2 ms 0 -> 5 over
# 1.05x. On clusters of BESIDE_LEAST_WORKERS+ workers: on 2 x 2 nothing to remove (no run
# over queuing's peak either way at 2 or 10 ms) and test_stencil's 2 x 2 on distributed
# 2025.4 1.056 -> 1.102x queuing's time. sten49b-findings.txt. 0: off (trial49).
BESIDE_LEAST = 1
BESIDE_LEAST_WORKERS = 3
# BESIDE_WIDE n: on workers of BESIDE_WIDE_THREADS+ threads, may_load_beside's "fewer than
# two spread roots processing" is "fewer than n per eight threads" (:func:`asks_wide`),
# where other tasks than roots process there (BESIDE_WIDE_BUSY). Two loads at a time on
# eight threads: a pair of blocks loads in ~6 ms and its 18 slices run in ~5 ms on eight
# threads, so the threads idle while the next pair loads (twin stencil 2 x 8 at 2 ms:
# threads 2.8-3.9 of 8 busy against queuing's 4.1-5.8; 1.145x queuing's time median, 46 of
# 60 runs over 1.05x). Four: 1.036x (25 over), at 10 ms 1.073 -> 1.038x (48 -> 21 over);
# peaks 0.72 -> 0.88x median, none over queuing's but one at 10 ms (main's too).
# BESIDE_WIDE_BUSY 0 (at the start too, nothing but roots processing): 1.022x, but a
# worker took four blocks at the start and more of its partners later (4 x 8 at 2 ms: 8
# of 60 runs a block over queuing's peak, main none). Not guarded by holds_least
# (SHORT_DEEP_SLACK's form, slack 0: 4 x 8 still 6 over, 2 x 8 6 over). sten40-findings.txt.
# 0: off (main before sten40).
BESIDE_WIDE = 4
BESIDE_WIDE_THREADS = 8
# BESIDE_WIDE_BUSY: 1 BESIDE_WIDE only where tasks other than roots process; 0 also where
# only roots do (the start); 2 (sten48) as 0 on clusters of two or more workers, as 1 on
# one. Since SPREAD_IN_ORDER the start's blocks are the first the sweep needs, so four at
# once no longer strand blocks: 2 x 8 at 2 ms loaded two per worker at 1.2 ms, the next at
# 9-12 ms (1.4-2.1 of 8 threads busy in the first 10 ms, queuing's 6.2). Twin stencil,
# 1 -> 2: 2 x 8 at 2 ms (240 runs) over 1.05x queuing's time 37 -> 0, summed makespan
# -4.9%, peak 0.841 -> 0.789x median; at 10 ms (120 runs) 0 -> 0, -0.5%; 3 x 8 (60 runs)
# 7 -> 0 and 47 -> 6 over; none over queuing's peak more; 4 x 8, 5 x 8, 8 x 8, 2 x 16 the
# same runs. Not on one worker (0 there: 1 x 8 at 2 ms 0 -> 35 of 60 over 1.05x, +13.7%;
# at 10 ms runs over queuing's peak 11 -> 19; not traced). sten48-findings.txt.
BESIDE_WIDE_BUSY = 2
# BESIDE_WIDE_ALONE n: with BESIDE_WIDE_BUSY 2, on a cluster's only worker where only roots
# process (the start), fewer than n per eight threads (2: the guard, as before sten49;
# BESIDE_WIDE's 4: no guard). Four there (traced, twin stencil 1 x 8 at 2 ms): the four
# blocks' 36 slices passed threads + SHORT_DEEP, the next load waited to 19.7 ms against
# 9.0 with two, and the sweep ran in bursts of four loads on the one queue (3.7 and 2.5 of
# 8 threads busy at 20-40 ms): with LACKED_UNBLOCK summed makespan +6.7% (6 of 60 runs
# over 1.05x queuing's), at 10 ms runs over queuing's peak 9 -> 15. Three: 1 x 8, 60 runs,
# -4.0% at 2 ms, -3.7% at 10 ms, the same peaks. sten49-findings.txt.
BESIDE_WIDE_ALONE = 3
# SPREAD_CAP: where a spread root's group (a stencil's blocks) would load whole at once
# under the count (:func:`loads_at_once`), such a root meets a cap of its worker's threads,
# not saturation x threads, on workers of SPREAD_CAP_THREADS to SPREAD_CAP_BELOW (excl.)
# threads (:func:`spread_cap`). Twin stencil 8 x 4, 60 runs: over queuing's peak (1.05x)
# 39 -> 0 at 10 ms, 41 -> 6 at 2 ms, none over 1.05x its time. On eight threads too
# (SPREAD_CAP_BELOW inf) 4 x 8 at 10 ms: peak over 42 -> 7, but time over 1.05x 5 -> 15.
# Tried: the threads as a cap on roots processing only (the count as it was): 8 x 4 at
# 10 ms 39 -> 27 over, 4 x 8 42 -> 40. For every group (no loads_at_once): 2 x 4 at 10 ms
# time over 1.05x 5 -> 14. 0: off (main before pk41). pk41-findings.txt.
SPREAD_CAP = 1
SPREAD_CAP_THREADS = 4
SPREAD_CAP_BELOW = 8
# SPREAD_REGION: where such a group loads whole at once on workers of SPREAD_REGION_THREADS+
# threads (:func:`regions_on`), its roots are cut into one compact region a worker
# (:func:`compact_regions`: each worker's blocks neighbours of each other) and each root
# goes to its region's worker, under a cap of SPREAD_REGION_SHARE x its threads
# (:func:`spread_cap`'s ``spread`` 3). Twin stencil 4 x 8 at 10 ms: partners placed two
# workers' blocks interleaved in the same columns (pk41), each interior waiting for the
# other worker's late edges; compact regions alone are faster (0.90 -> 0.83x queuing's
# time, 10 runs) but not lower; with the cap of 7 lower too (sten42-findings.txt). On
# four threads too since the lead's check in session 42 (cap 3 of 4: 8 x 4 at 2 ms over
# queuing's peak 5 -> 0 of 60 runs, peak median 0.890 -> 0.778x, time 0.336 -> 0.332x; at
# 10 ms 0.890 -> 0.876x, time 0.619 -> 0.633x; 2 x 4, 3 x 4, 4 x 4 and ten other workloads
# the same: lead42-findings.txt). 0: off (main before sten42).
SPREAD_REGION = 1
SPREAD_REGION_THREADS = 4
SPREAD_REGION_SHARE = 0.75
# SPREAD_REGION_SHARE 0.875 -> 0.75 and REGION_LESS 2 (sten43; :func:`region_cap`): a
# region's cap 6 of 8 threads, and two below its region's size. At 10 ms, regions of 7-8
# blocks (5 x 8) and of 4-5 (8 x 8) loaded whole under a cap of 7 and held every block
# with its interior: a block over queuing's peak in most runs. Numbers (twin stencil, 60
# runs a cell): sten43-findings.txt. 0.875 / 0: main before sten43.
REGION_LESS = 2
# REGION_WHOLE 1: a group is cut into regions from the whole group, whichever root is asked
# first: only where every root's data is spread (main read the first asked root's plan for
# the group: a group mixing spread and unspread roots, a 2-D rechunk of 1000 into 1500,
# was cut or not by which root came first), and a cut made anew (the workers changed, the
# group grew) keeps the roots already started in their workers' regions
# (:func:`compact_regions`' ``fixed``; main cut afresh: a started block's neighbours went
# to whichever worker the new cut named). sten43-findings.txt. 0: off (main before sten43).
REGION_WHOLE = 1


# HINT_SHARE: a root without partners whose further meeting's other roots are placed only
# in part (further_meeting's ``whole`` false: a hint) takes a hint worker only while that
# worker holds or processes fewer than its even share of the root's task group, where the
# group loads whole at once (:func:`hint_within_share`). 3: so also a ``whole`` hint of
# several workers where the further meeting is no pair (MeetingPlan.pair false: not
# rechunk-add's two sides): twin slice-add 8 x 4 1.29 -> 1.17x queuing's peak, but the twin
# fingerprints' anomaly (24 steps, 20 x 4: a tree level is no pair) 1.00 -> 1.09x in 2 of 3
# seeds; 2: every ``whole`` hint of a meeting that is no pair (seed-weighted 4 x 4 and
# 8 x 4 slower, up to 1.13x queuing's time); 0: off (main before seed43).
# seed43-findings.txt.
HINT_SHARE = 1
# A root group loading whole at once (loads_at_once): a root opening a unit (it and its one
# meeting's other roots not processing yet) goes to a busy worker only where the unit fits
# in the worker's even share of the wave (staggers_unit; Books.place's ``stagger``, the
# plugin's Placement._stagger). Why: the seed's zarr slice-add on 8 x 4 (12 chunk pairs,
# caps summed 40): each worker took two pairs at once, both pairs' loads and slices held
# together (7 chunks, 1.29-1.40x queuing's peak in 15 of 15 runs); staggered, a worker's
# second pair loads once its first pair's store started: 1.000x in 15 of 15 at 2 and 10
# ms, time 0.48 -> 0.51x / 0.43 -> 0.45x queuing's; 4 x 4 at 10 ms 1.063 -> 1.000x;
# vorticity-files 8 x 4 1.000 -> 0.84x (runs over 6 -> 1 / 3 -> 0 of 15). Its cost: the
# units that wait start a load later; where loads are long against their consumers (the
# twin's default model, 50 MB chunks: fingerprints' stack-sum / slice-add 20 x 4) that is
# 0.91 -> 1.25x queuing's time for the same peak (seed44-findings.txt), and nothing at
# placement tells the two apart (no load has finished): off, so no measured cell loses;
# 1 for clusters whose loads are short against their consumers. 2: a worker holding a
# whole unit's slots takes none (slice-add 4 x 4 0.75x peak, 1.8x the time); 0: off.
# 3 (seed45): 1 only where dask's scheduler knows the durations (its task prefixes'
# averages: an earlier compute on the same scheduler, or distributed.scheduler.
# default-task-durations) and a unit's wait, its load and the chain to its meeting, is
# short against the meeting that consumes it (unit_waits_short). Nothing known (a first
# compute): as 0. Why: no load of a wave has finished when its units are placed, and a
# wait for one costs the whole load where loads are long; what a scheduler learned before
# is the only thing that tells the seed's 12 ms loads beside 0.23 s stores (the stagger's
# cost, one load, is 6% of the makespan) from the default model's 0.3 s loads beside
# 0.55 s stores (37%). seed45-findings.txt.
# 4 (slad47): where 3 would stagger (durations known, the wait short), no unit waits; a
# worker's cap for the wave's roots is its even share of the wave instead (wave_cap: the
# group's roots times the roots of its one meeting, over the running workers). Why: on
# the seed's real 48-step arrays (bench/wall24_twin's folder per steps) a worker's second
# pair staggered whole still holds 6 chunks (its two slices end together beside its
# loads and the first pair's slices: 1.200x queuing's peak, as unstaggered, +6 / +10%
# time at 2 / 10 ms); three loads at once, the fourth after the first is consumed, 5
# chunks: 1.000x at +3 / +5% (slad47-findings.txt). 5: 4 on a first compute too
# (durations not asked): the twin's default model pays a load (slad47-findings.txt).
# 6 (seed49): 4 where the loads are known short; elsewhere (a first compute, or loads
# known long) the wave's share caps a worker too, and a root the share refuses on its
# partners' workers goes to the least loaded worker whose share admits it (wave_splits):
# its pair splits, one slice copied to the store, instead of waiting a load for a slot;
# only where the meeting reads the unit alone (beside shared inputs, vorticity 20 x 4, a
# split lowered no busiest worker and cost 0.58 -> 0.69x queuing's time).
# Why: a first compute cannot tell the seed's 12 ms loads from the default model's 0.3 s
# ones, and the split costs a copy in both, not a load (seed slice-add 8 x 4 cold 1.200
# -> 1.000x queuing's peak at 0.31 -> 0.48x its time; default model slice-add 20 x 4
# 1.2 -> 1.0x at 0.91 -> 0.94x, where mode 5's wait cost 1.18x; seed49-findings.txt).
UNIT_STAGGER = 6
# unit_waits_short: a wait at most this fraction of its consumer's duration is short (the
# seed's 0.058, the twin's default model 0.64). The stagger's cost is about r / (1 + r) of
# the makespan for a wait of r consumers: the seed's slice-add 8 x 4 with its store
# scaled (seed45-tools/ratio_sweep.py), 1.5 -> 1.2x queuing's peak at every r, time +5%
# at r 0.05, +8-9% at 0.1, +13-17% at 0.25, +15-27% at 0.5-1.
UNIT_SHORT = 0.1


def reads_little(input_bytes: float, estimate: float, duration: float = -1.0) -> bool:
    """Does a task processing on a worker read next to no data beside what a root loads
    (its inputs together under ``estimate / LIGHT_RATIO``; ``estimate``: the root's,
    :func:`estimate_output`), and end soon (``duration``: its kind's average run time,
    negative if unknown, under ``LIGHT_SHORT``)? A root that starts ahead of it in the
    worker's queue holds nothing of the root's size longer (``may_load_beside``'s
    ``light``). Unknown (no estimate yet, no run time yet): no."""
    return 0 <= input_bytes and LIGHT_RATIO * input_bytes < estimate and (
        0 <= duration < LIGHT_SHORT or LIGHT_SHORT == math.inf)


def light_on(threads: int) -> int:
    """How many of a worker's tasks that read little (:func:`reads_little`) a spread root
    may be sent ahead of there (``LIGHT_AHEAD`` where ``LIGHT_THREADS`` names the worker's
    kind: bit 1 one thread, bit 2 more; else 0)."""
    return LIGHT_AHEAD if LIGHT_THREADS & (2 if threads > 1 else 1) else 0


def light_ahead(tasks, estimate: float, most: int, threads: int, short: bool = False) -> int:
    """``may_load_beside``'s ``light`` on a worker of ``threads`` threads: of ``tasks``
    (``(input_bytes, duration)`` of each task processing there: its inputs together,
    negative if unknown; its kind's average run time, negative if unknown), those that read
    little (:func:`reads_little`), and up to ``SHORT_AHEAD`` that read more but end soon
    (known run time under ``LIGHT_SHORT``) where ``SHORT_THREADS`` names the worker's kind,
    or ``short`` (the body's :data:`SHORT_ONE` ask); counted up to ``most``. Why the short
    ones: see :data:`SHORT_AHEAD`."""
    heavy = SHORT_AHEAD if short or SHORT_THREADS & (2 if threads > 1 else 1) else 0
    n = 0
    for input_bytes, duration in tasks:
        if reads_little(input_bytes, estimate, duration):
            n += 1
        elif heavy and 0 <= duration < LIGHT_SHORT:
            heavy -= 1
            n += 1
        else:
            continue
        if n >= most:
            break
    return n


def asks_short_one(threads: int) -> bool:
    """Could the one short task that reads a block count in ``light`` on this worker where
    :data:`SHORT_THREADS` does not count it (:data:`SHORT_ONE`: one-thread workers; the
    body then asks :func:`holds_least`)?"""
    return threads == 1 and bool(SHORT_ONE) and not SHORT_THREADS & 1


def holds_least(held: float, other: float, estimate: float) -> bool:
    """:data:`SHORT_ONE`'s test against one other worker: does a worker holding ``held``
    bytes (held and estimated) hold no more than ``other`` (another worker's) plus a root
    of ``estimate`` bytes? Asked of every other worker: the one short task counts where it
    holds of each."""
    return held <= other + estimate


def asks_third(threads: int, roots_processing: int) -> bool:
    """Could a short task processing on this worker let a third spread root start beside
    other work (:data:`BESIDE_THIRD`)? The body then asks whether one does
    (``may_load_beside``'s ``third``)."""
    return bool(BESIDE_THIRD) and roots_processing == 2 and threads >= BESIDE_THIRD_THREADS


def asks_wide(threads: int, roots_processing: int, processing: int,
              alone: bool = True) -> bool:
    """Would :data:`BESIDE_WIDE` let one more spread root process beside other work on this
    worker than the two of :func:`may_load_beside`'s second test (where other tasks than
    roots process there, with BESIDE_WIDE_BUSY; ``alone``: the cluster's only worker)? The
    body then asks may_load_beside with ``wide``."""
    return bool(BESIDE_WIDE) and threads >= BESIDE_WIDE_THREADS \
        and 2 <= roots_processing < BESIDE_WIDE * threads // 8 \
        and (processing > roots_processing or not BESIDE_WIDE_BUSY
             or BESIDE_WIDE_BUSY == 2 and (
                 not alone or roots_processing < BESIDE_WIDE_ALONE * threads // 8))


def loads_at_once(group_size: int, caps_total: float) -> bool:
    """Would the count let a root group load whole at once, every worker its share (the
    group no larger than the workers' caps summed)? Then nothing staggers its loads, and
    for a spread group (:func:`spread_cap`) every worker's blocks wait together."""
    return group_size <= caps_total


def spread_cap(cap: float, threads: int, spread: int = 2, region: int = 0) -> float:
    """:data:`SPREAD_CAP`: the cap (``may_admit_root``'s: roots processing at once, and the
    count) that a spread root (``Books.place``'s ``spread``: its data feeds more than
    MEETING_SPREAD meetings and is held until the last) meets on a worker of
    SPREAD_CAP_THREADS to SPREAD_CAP_BELOW threads, where its group loads at once
    (:func:`loads_at_once`; the body asks): its threads, not saturation x threads (4 x 1.1
    -> 5).

    Why: a block stays held until its last slice runs, and its interior until the overlap
    has its eight neighbours' edges; a worker runs the slices of every block it holds in
    dask's priority order, which spreads each block's slices over the whole order. Where
    the count lets the whole group load at once (36 blocks on 8 x 4: five blocks on half
    the workers), all of a worker's blocks' slices interleave and no block is freed before
    most interiors are cut (sten40's trace of 8 x 4 at 2 ms: five blocks and five interiors
    at a worker's peak, 80 MB against queuing's 72). With the threads as the cap, the
    group's last roots wait for a worker's first blocks to be sliced. Twin stencil 8 x 4,
    60 runs (namings x seeds): over queuing's peak by 5% 39 -> 0 at 10 ms (1.125 -> 0.890x
    median), 41 -> 6 at 2 ms (1.110 -> 0.889x); time 0.627 -> 0.591x and 0.324 -> 0.331x
    queuing's (none over 1.05x). pk41-findings.txt. ``spread`` 3: a root placed by its
    region (:data:`SPREAD_REGION`): :func:`region_cap` (``region``: its region's size)."""
    if spread == 3:
        return region_cap(cap, threads, region)
    if SPREAD_CAP and SPREAD_CAP_THREADS <= threads < SPREAD_CAP_BELOW:
        return min(cap, threads)
    return cap


def regions_on(threads: int, group_size: int = 0, workers: int = 0) -> bool:
    """:data:`SPREAD_REGION`: are a spread group's roots, loading whole at once
    (:func:`loads_at_once`), placed by :func:`compact_regions` on a cluster of ``workers``
    workers whose fewest threads a worker are ``threads``? Only a group of at least two
    roots a worker (``group_size``): a region of one root or none is no region, and a few
    roots read by many tasks (grids, weights, a zarr's few chunks) were pinned to the
    first workers by it (twin seed-weighted 2 x 8: peak 1.0 -> 2.0x queuing's, time 1.00
    -> 1.19x)."""
    return bool(SPREAD_REGION) and threads >= SPREAD_REGION_THREADS \
        and group_size >= 2 * workers


def hint_within_share(count: int, group: int, workers: int, caps_total: float) -> bool:
    """:data:`HINT_SHARE`: may a root without partners go to a worker of its further
    meeting's hint (the meeting's other roots placed there, in part: further_meeting's
    ``whole`` false) that holds or processes ``count`` tasks of the root's task group of
    ``group`` roots, over ``workers`` running workers whose caps sum to ``caps_total``?
    Always where the group does not load whole at once (:func:`loads_at_once`: the count
    staggers its loads, each worker takes roots as its slots free); else only within the
    worker's even share (:func:`within_share`). Why: a store's final task reads every
    chunk's store (a fan-in of 12 tiny results, inside ``MEETING_FANOUT``), so every root
    of a 12-chunk group hinted the first worker that took one: it took roots up to its cap,
    the next worker the rest, two of four workers none; the other array's roots follow
    their partners, so two workers held five chunk pairs each where queuing holds three
    (twin seed slice-add 4 x 4 and 8 x 4: 1.44-2.20x queuing's peak in every run,
    seed43-findings.txt). A meeting of tiny results saves no bytes moved; one of data (a
    tree reduction's next level) is met by a share as well, its roots following their
    partners."""
    if not HINT_SHARE or not loads_at_once(group, caps_total):
        return True
    return within_share(count, group, workers)


# PAIR_SPREAD: a root whose further meeting's other side is all placed on one worker (a
# whole pair hint: rechunk-add's second array) opens its side elsewhere where that worker
# holds roots already, the pairs of both sides are no more than the workers and some worker
# is idle (spreads_pair).
# 0: off (main's: the side follows the hint whatever the cluster's size).
PAIR_SPREAD = 1
# A root whose further meetings (further_meeting, further_plan) are all final gathers of
# one collection's pieces (a da.store's finalize of its per-chunk stores): 1 (small46): it
# gets no further partners and is never found whole there (its plan's ``further`` flag
# stays): the finalize's hint put two pairs of a store of 16 steps on one worker past its
# count beside an idle one (gathers_further). 0: main's (the finalize a further meeting).
# 2 (fg48, default): the walks keep the gather's hint (as 0); the body keeps it only for
# a root of one meeting whose group loads whole at once, on the workers that took no more
# of the gather's inputs than any running worker (Placement._gather_share); else no hint
# (as 1). Why: with 1 the last pair of a wave that does not divide evenly waited for a
# slot where the hint's pass had started it on a worker as short as any (twin slice-add
# of 8 steps on 2 x 4: 1.23 -> 1.00x queuing's time; 6 steps 1.14 -> 1.00x its peak), and
# 2 keeps 1's balance on the seed's 48- and 16-step arrays (slad47's form of 2, the hint
# held to the even share of the group's tasks held, lost it: 4 x 4 peak 0.73 -> 0.91x;
# fg48-findings.txt).
FURTHER_GATHER = 2


# JOIN_SPREAD (rca48): the roots of a two-array join (MeetingPlan.pair: rechunk-add's
# sides), both sides no more than the running workers and some worker idle, open each on a
# worker of its own, like a root without partners (no partner reserved, no further hint):
# a load a worker, as queuing places them (spreads_join). 0: off (co-assigned pairs).
JOIN_SPREAD = 1


def spreads_join(roots: int, workers: int) -> bool:
    """:data:`JOIN_SPREAD`: do the ``roots`` of a two-array join (both sides, loading whole
    at once) each open on a worker of their own over ``workers`` running workers? Only
    where they are no more than the workers (the body asks only while some worker is
    idle): co-assigned, a unit's two pairs hold both sides' loads and splits on one worker
    where the others idle. Why: rechunk-add of 4 steps on 8 x 4 (8 loads of 190 MB): each
    side's pair on a worker, 760 MB on four workers, four idle; a load a worker, 380-475 MB
    as queuing's (1.60 -> 1.00x its peak), 1.000x its time (0.974x co-assigned) and its
    bytes moved (1,520 MB, co-assigned 760): a merge copies a half, an add a merge
    (rca48-findings.txt). Not where the roots outnumber the workers (seed rechunk-add
    8 x 4, 24 loads): some worker then holds a unit's merges whole (192 MB at 10 ms
    whatever its loads' order), and every split unit's copies run on the idle workers'
    links (the lowest placement found, 128 MB, took 3.4-4.2x the time)."""
    return bool(JOIN_SPREAD) and roots <= workers


def spreads_pair(slots_used: int, unit: int, roots: int, workers: int) -> bool:
    """:data:`PAIR_SPREAD`: does a root leave its whole pair hint's worker, whose slots
    used (``WorkerBook.slots_used``) are ``slots_used`` (the other side's roots there),
    where the ``roots`` of both sides (loading whole at once) fit one ``unit`` (the root and
    its meeting's other roots not processing yet: a pair) a worker over ``workers`` running
    workers? The body asks it only while some worker is idle. Why: rechunk-add of 4 steps on
    4 x 4 (8 loads): each unit's two sides on one worker, 6 chunks at its peak where
    queuing spreads the loads over every worker (1.50x queuing's peak; ra45-findings.txt).
    Not where pairs outnumber the workers: some units then stay whole, so the peak is the
    same, and the pairs split apart only move their merges (seed rechunk-add 8 x 4, 24
    loads: 0.23 -> 0.33x queuing's time at the same peak, the merges' copies on the
    critical path)."""
    if not PAIR_SPREAD:
        return False
    return slots_used > 0 and roots <= unit * workers


def staggers_unit(slots_used: int, unit: int, group: int = 0, workers: int = 0) -> bool:
    """:data:`UNIT_STAGGER`: is a fresh opener refused by a busy worker whose slots used
    (``WorkerBook.slots_used``: roots in flight and owed) are ``slots_used``, where its group
    loads whole at once (:func:`loads_at_once`; the body asks) and ``unit`` is the opener
    and its meeting's other roots not processing yet (a chunk pair: 2)? 1: when the unit
    would not fit in the worker's even share of the wave (a unit for each of the
    ``group``'s roots, over the ``workers`` running: rounded up) nor in one unit; 2:
    whenever the worker holds a whole unit's slots already (its last unit not consumed)."""
    if not UNIT_STAGGER or unit <= 1 or UNIT_STAGGER >= 4:
        return False
    if UNIT_STAGGER == 2:
        return slots_used >= unit
    return slots_used + unit > max(unit, -(-group * unit // max(1, workers)))


def wave_cap(cap: float, roots: int, workers: int) -> float:
    """:data:`UNIT_STAGGER` 4: the cap a root of a wave loading whole at once meets (its
    worker's ``cap`` otherwise): the wave's ``roots`` over the ``workers`` running, rounded
    up, at least one. A worker with more of the wave's units than its share then loads
    them a root at a time as the first ones are consumed, not all at once. Below a unit
    (fewer roots than two a worker) a pair's second load waits for its worker's work to
    end, where mode 3 let it follow: kept (review47, the seed slice-add of 16 steps warm
    on 8 x 4: mode 3 0.67x queuing's time at 1.5x its peak, mode 4 1.01x at 1.00x)."""
    return min(cap, max(1, -(-roots // max(1, workers))))


def wave_splits(partners: list, roots: int, workers: int) -> bool:
    """:data:`UNIT_STAGGER` 6: does a root its partners' workers refused leave them for
    another worker? ``partners``: ``(roots in flight, cap)`` of each partner's worker; yes
    where every one has taken its share of the wave (:func:`wave_cap`): the refusal is the
    share's, and waiting for a slot there costs a load where loads are long."""
    return bool(partners) and all(n >= wave_cap(cap, roots, workers) for n, cap in partners)


def unit_waits_short(load: float, chain: float, consumer: float) -> bool:
    """:data:`UNIT_STAGGER` 3: would a unit's wait for its worker's first unit be short
    against the work it waits beside? ``load``: the unit's roots' average duration,
    ``chain``: the tasks' from its data to its meeting (0: none), ``consumer``: the
    meeting's (dask's task prefix averages; -1: not known, never short). Short where the
    load and chain take at most :data:`UNIT_SHORT` of the consumer: the second unit then
    loads while the first unit's consumer runs, and finishes a load later, not a unit."""
    return load >= 0 and chain >= 0 and consumer > 0 \
        and load + chain <= UNIT_SHORT * consumer


def region_cap(cap: float, threads: int, region: int = 0) -> float:
    """The cap a root placed by its region (:data:`SPREAD_REGION`) meets: SPREAD_REGION_SHARE
    of its worker's threads (6 of 8; 7 before sten43), at least one, never above ``cap``.
    Why fewer than the threads: a region's blocks all load at once otherwise and every one
    waits for its slices together; a block or two less at once lets the first blocks'
    slices free them first (twin stencil 4 x 8 at 10 ms with regions: cap 9 peaks at 15
    blocks and interiors, 7 at 12-13, 6 lower again: sten43-findings.txt). Nor above the
    worker's region size (``region``, 0: not known) less REGION_LESS (at least one): a
    region no larger than the share's cap (8 x 8: four or five blocks a worker, cap 7)
    loaded whole at once, every block held with its interior."""
    c = min(cap, max(1, int(SPREAD_REGION_SHARE * threads)))
    if REGION_LESS and region:
        return min(c, max(1, region - REGION_LESS))
    return c


def compact_regions(neighbours, sizes, fixed=None) -> list:
    """Regions of a root group, one a worker: ``neighbours[i]``, the roots whose data meets
    root i's (indices, in priority order: 0 first); ``sizes[k]``, how many roots region k
    takes. Each region grows from a seed, the root with the fewest neighbours not yet in a
    region (a corner of what is left; ties: first in priority), breadth first, a ring of
    neighbours at a time, each ring in priority order; where a region's ring runs out
    before its size, it seeds again. Returns each root's region, -1 where the sizes summed
    are short. Why: the partners a root meets are placed root by root, and where a whole
    group loads at once they mixed two workers' blocks in the same columns, each waiting
    for the other's edges (pk41's trace of the stencil 4 x 8); a compact region has most of
    each block's neighbours on its own worker.

    ``fixed[i]``: the region root i is in already (its worker started it: a cut made anew
    after the workers changed, or the group grew), -1 if none: those count in their
    region's size, and the region grows from their neighbours first (:data:`REGION_WHOLE`).
    """
    n = len(neighbours)
    region = [-1] * n
    free = [len(nb) for nb in neighbours]  # neighbours not yet in a region
    left = n

    def take(i, k):
        region[i] = k
        for j in neighbours[i]:
            free[j] -= 1

    taken_at = [0] * len(sizes)
    for i, k in enumerate(fixed or ()):
        if 0 <= k < len(sizes):
            take(i, k)
            taken_at[k] += 1
            left -= 1
    for k, size in enumerate(sizes):
        taken = taken_at[k]
        # (a region holding started roots grows around them, not from a new seed)
        ring: list = sorted({j for i in range(n) if region[i] == k for j in neighbours[i]
                             if region[j] < 0}) if taken else []
        while taken < size and left:
            if not ring:
                ring = [min((i for i in range(n) if region[i] < 0),
                            key=lambda i: (free[i], i))]
            for i in ring:
                if taken == size:
                    break
                take(i, k)
                taken += 1
                left -= 1
            ring = sorted({j for i in ring if region[i] == k for j in neighbours[i]
                           if region[j] < 0})
    return region


def may_load_beside(threads: int, roots_processing: int, processing: int,
                    light: int = 0, third: bool = False, wide: bool = False,
                    alone: bool = False) -> bool:
    """May a root whose data feeds more than ``MEETING_SPREAD`` meetings (a stencil's
    block, read by 9 overlaps, each waiting for 8 other blocks) and meets data already
    placed (``Books.place``'s ``spread``: it has partners) start on a worker beside its
    other work, whatever the worker's in-flight count?

    Its data waits for its neighbours' whatever this worker does, so the count (held
    blocks whose overlaps wait for blocks not loaded yet: 3-5 on a 2-thread worker of a
    6 x 6 stencil, against a cap of 3) says nothing of loads running ahead of their
    consumers. The worker's own queue does: a root may start where no task waits for a
    thread (``processing <= threads``) and no root is processing, or where a thread is
    free and fewer than two roots are processing. Why:
    - with the count, and one root at a time only where nothing waited (main), a 2-thread
      worker loaded a block on one thread while the other sat idle, then sliced: twin
      stencil (6000^2, 200 MB/s), 8 key namings, 2x2 1.31-1.49x queuing's time, 4x2
      1.11-1.27x; two loads side by side, then 18 slices on both threads: 0.97-1.09x.
    - on one thread, nothing was sent until the worker was idle: a scheduler round trip
      per root (2x1: 1.04-1.06x). Sent while the last task runs, it waits in the worker's
      queue: 1.00-1.03x.
    - a thread free alone, however many roots process (4 loads at once on 4 threads):
      twin 20x4 (30000^2) peak 130 MiB per worker against 115 with at most two (main 76,
      queuing 123). A root without partners loaded beside (its meetings hold nothing
      yet) raised 4x2's peak to 1.33x queuing's: it keeps the count.

    ``light``: of the tasks processing there, those that read next to no data
    (:func:`reads_little`; the body need count no further than :func:`light_on`): up to
    ``light_on(threads)`` of them count as not there in the first test (no root
    processing). The scheduler hears of a task's end a round trip late (the worker's and
    the scheduler's batched streams: 2 and 5 ms, plus latency), so a root sent while the
    last task there runs arrived after it had ended: a one-thread worker idled before each
    block, where queuing keeps a second block waiting there (twin stencil 2 x 1, 2 ms
    overrun: 1.07x queuing's time). Sent while a reduction's small steps are left there
    too (a block's statistics, 24 KB, and their partial sums), the root arrives before
    the worker runs dry and, when it starts ahead of them, they fill part of the round
    trip before its own slices come; they hold the same few bytes a little longer. Counted
    as the tasks reading blocks (the slices, the overlap sums) too, the root held a block
    more where they waited behind it (twin stencil 2 x 1 and 4 x 1 at 10 ms overrun, peak
    0.86 -> 1.05x queuing's median, max 1.11-1.28x). Not in the second test: on one
    thread a root queued behind a running root is one block more at every block (wall28's
    S1); on two, light tasks as free threads let rolling's chunks run ahead (twin rolling
    2 x 2: peak 0.92 -> 1.02x queuing's, time 1.080 -> 1.095x: its light tasks run up to
    100 ms). sten33-findings.txt. Since sten35 (:data:`LIGHT_FREE`) the light tasks count
    in the second test too on 2+ threads, now that they end within LIGHT_SHORT; and
    ``light`` may count one short task that reads a block (:func:`light_ahead`).

    ``third``: a task processing there ends soon (the body's answer where
    :func:`asks_third`): a third root may process beside other work in the second test
    (:data:`BESIDE_THIRD`, four-thread workers).

    On workers of :data:`BESIDE_BUSY_THREADS`+ threads (:data:`BESIDE_BUSY`) the second
    test's "a thread free" is "no task waits for a thread" (``processing <= threads``),
    or no more than :data:`BESIDE_DEEP` wait (:data:`BESIDE_DEEP_WIDE` on wide workers;
    :data:`BESIDE_DEEP_ALONE` where ``alone``: the cluster's only worker).

    ``wide``: :func:`asks_wide` (:data:`BESIDE_WIDE`): on workers of BESIDE_WIDE_THREADS+
    threads the second test's "fewer than two roots processing" is "fewer than BESIDE_WIDE
    per eight threads" (the body passes it only where asks_wide).
    """
    ahead = min(light, light_on(threads))
    free = ahead if LIGHT_FREE and threads > 1 else 0
    return roots_processing == 0 and processing - ahead <= threads or (
        processing - free < threads and (roots_processing < 2 or wide or third and asks_third(
            threads, roots_processing))) or (
        processing <= threads + (BESIDE_DEEP_WIDE if BESIDE_DEEP_WIDE and threads >=
                                 BESIDE_WIDE_THREADS else
                                 BESIDE_DEEP_ALONE if alone else BESIDE_DEEP)
        and (roots_processing < 2 or wide)
        and threads >= BESIDE_BUSY_THREADS and BESIDE_BUSY != 0)


def waits_behind_short(threads: int, roots_processing: int, processing: int,
                       light: int, wide: bool = False) -> bool:
    """:data:`SHORT_DEEP`: may a spread root wait behind up to SHORT_DEEP tasks waiting for
    a thread (``processing <= threads + SHORT_DEEP``) where a task processing there is known
    short (``light`` > 0: :func:`light_ahead`'s count), on workers of BESIDE_BUSY_THREADS+
    threads with fewer than two roots processing (``wide``: as :func:`may_load_beside`'s)?
    (The body asks it after :func:`may_load_beside` refused; with :data:`SHORT_DEEP_SLACK`
    only where the worker holds least, :func:`holds_least`.)"""
    return threads >= BESIDE_BUSY_THREADS and processing <= threads + SHORT_DEEP \
        and (roots_processing < 2 or wide) \
        and light > 0 and SHORT_DEEP > 0 and BESIDE_BUSY != 0


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


def estimate_output(known: float, group_max: float, roots_max: float) -> float:
    """Pessimistic output size: the known size, else the largest seen in the task's group,
    else the largest root output seen so far, else 0 (nothing seen: let the first ones run)."""
    if known == known:  # not NaN
        return known
    if group_max > 0:
        return group_max
    return roots_max


# A root result this many times smaller than the largest root result so far is no data.
NOT_DATA_RATIO = 1000


def holds_data(nbytes: float, largest_root: float, chained: bool) -> bool:
    """Does a finished root's result count as data in flight until a consumer uses it?

    Not when it is tiny beside what roots load (a store's ``None``, 16 bytes, beside 8 MB
    weights) and no single-input task takes it on: counted so, weighted's stores (roots:
    their only inputs are the shared weights), whose results wait for the final task,
    filled the root slots and the rest ran one at a time. ``chained``: a single-input task
    takes the result on (open -> read), so however small (a file handle) it still leads to
    the data its chain loads. Both bodies count a task's inputs without constants (data
    embedded in the graph, a DataNode): a read of a handle and a DataNode has one input."""
    return chained or NOT_DATA_RATIO * nbytes >= largest_root


# A root result that counted as data (holds_data) only for want of a larger root result
# then, no chunk having finished yet, is judged again when a larger one finishes (bit 1;
# 0: main's decisions). grp29: xarray's groupby shuffle-takers (~280 B, no single-input
# reader) that run at startup were judged beside nothing or beside each other, so each
# kept a root slot until its month cut ran, which needs a chunk dask.order loads late;
# the cut (a single-input task for the books: the taker is an indexer beside the chunk)
# then carried the taker's slot on and taught the taker's group a 12.4 MB size. Twin
# clim-anom-store 2 x 2 g3 s1: 3 of w1's 3 slots held so from 0.3 s to 1.5 s. Bit 1: on
# workers of two threads or more; bit 2: on one-thread workers too. Over 3 builds x 6 seeds
# (bench/grp27_twin.py's graphs, with SIZED_BY_PREFIX 3), tidegate / queuing's median and
# max: 2 x 2 time 1.035 / 1.144 -> 0.999 / 1.036, peak 1.00 / 1.30 -> 0.96 / 1.30. On one
# thread the freed slots let loads run ahead: 4 x 1 peak 0.96 / 1.22 -> 1.03 / 1.52 (time
# 0.981 -> 0.971), 2 x 1 peak 0.90 / 1.35 -> 0.90 / 1.31 (time 1.015 / 1.086 -> 0.989 /
# 1.027): bit 2 is off. The body exempts a root a reader of which is about to run or is a
# root (the body's books.leads_on: a running total's first carry, weighted's array handles).
REJUDGE_SMALL = 1


def judged_again(nbytes: float, chained: bool) -> bool:
    """Is a root result that :func:`holds_data` counts as data now judged again when a
    larger root result finishes (:data:`REJUDGE_SMALL`, on some workers:
    :func:`rejudged_on`)? When it is handle-sized (under ``HANDLE_MAX_BYTES``: only such a
    result can turn tiny beside a chunk) and no single-input task takes it on
    (``chained``: then it leads to data whatever its size)."""
    return bool(REJUDGE_SMALL & 3) and nbytes < HANDLE_MAX_BYTES and not chained


# A task computed from nothing whose task prefix's results so far (dask's key_split: every
# xarray groupby shuffle-taker, each its own one-task group) are all tiny beside the largest
# root result, and that no single-input task takes on, is no root from then on: it is placed
# at once as dask places any other ready task, not withheld in line with the loads (1; 0:
# session 29's decisions). grp30: the takers and shuffle-sorters (~0-280 B indexers) waited
# in dask.order's line behind chunk loads, and with them the month cuts they index and the
# month's climatology, while the month's day merges (0.5 MB each) waited for it: twin
# clim-anom-store 2 x 2 g2 s5, month 2's climatology done at 1.36 s though its chunks
# loaded by 0.59 s (queuing: 1.22 s, its takers run late in the same order); now 0.78 s.
# Over 6 builds x 6 seeds (bench/grp27_twin.py --folder /tmp/grp30), tidegate / queuing's
# median / max: 2 x 2 peak 0.96 / 1.32 -> 0.94 / 1.23, time 1.003 / 1.070 -> 0.976 /
# 1.039; 2 x 1 peak 0.98 / 1.35 -> 0.94 / 1.23, time 1.011 / 1.086 -> 0.968 / 1.020;
# 4 x 1 peak 0.97 / 1.27 -> 0.98 / 1.40 (5 namings at 1.28-1.40 against main's 1.22 at
# most), time 0.992 / 1.059 -> 0.980 / 1.072. Bit 1: on clusters with a worker of two
# threads or more; bit 2: on one-thread clusters too (3 since grp32; 1: session 31's
# decisions). grp32: that 4 x 1 tail is naming noise, not the rule's: letting the twin's
# senders go free (1 GB/s -> inf, no decision rule changed) moves each policy's own 4 x 1
# peak per naming by 0.66-1.39x (queuing) and 0.72-1.22x (tidegate); with free senders
# the rule's 4 x 1 max is lower (1.43 -> 1.30), on test_probe25's store too (1.41 ->
# 1.29), its medians equal (0.975 -> 0.980 limited, 1.015 -> 1.020 free); 2 x 1 is
# faster in 36 namings of 36 (time 1.011 / 1.086 -> 0.968 / 1.020): on one thread the
# takers waited in line and the thread idled before them (g1 s1: 0.95 s idle vs 0.42).
# At 200 MB/s in and out (the small-cluster table's setting), 18 namings: 2 x 1 peak
# 0.995 / 1.14 -> 0.855 / 0.98, time 1.010 / 1.099 -> 0.977 / 1.008; 4 x 1 peak 1.09 /
# 1.52 -> 0.97 / 1.33, time 1.000 / 1.185 -> 0.968 / 1.054.
TINY_PREFIX_NO_ROOT = 3


def tiny_prefix(most: float, largest_root: float, threads: Callable[[], int]) -> bool:
    """Are the tasks of a prefix computed from nothing, whose largest result so far is
    ``most`` bytes, no roots (:data:`TINY_PREFIX_NO_ROOT`)? When ``most`` is tiny beside
    the largest root result (``holds_data``'s ratio), on a cluster whose workers have at
    most ``threads()`` threads (asked only then)."""
    return bool(TINY_PREFIX_NO_ROOT & 3) and NOT_DATA_RATIO * most < largest_root \
        and bool(TINY_PREFIX_NO_ROOT & (1 if threads() > 1 else 2))  # fmt: skip


def rejudged_on(threads: int) -> bool:
    """Does a root judged again (:func:`judged_again`) free its slot on a worker of
    ``threads`` threads (:data:`REJUDGE_SMALL`)?"""
    return bool(REJUDGE_SMALL & (1 if threads > 1 else 2))


# A task joining pieces of one array whose output keeps at least this fraction of the
# pieces' bytes holds their data on; a tree reduction's combine of k partials keeps 1/k
# (counted as a join at 1/4, anomaly's mean combines: twin 20x4 peak 8.55 -> 8.74 GB).
JOIN_KEEP = 0.75


def joins_pieces(nbytes: float, pieces: float, largest_root: float) -> bool:
    """Does a task that joins pieces of one array (two or more inputs, all of one task
    group: a rechunk's merge of slices of neighbouring loads) hold its roots' data on, as a
    single-input chain does? When its output keeps about the pieces' bytes (``pieces``: the
    sum of its inputs' outputs; a slice reported as a view may weigh almost nothing) and is
    not tiny beside what roots load (the rechunk's edge merge). It neither reduced the data
    nor combined it with other data, so its output counts as data in flight on its worker
    until a consumer uses it. Why: rechunk-add, twin 20x4 at 200 MB/s: the roots' slots
    freed at the split or the merge while 24 merges waited on one worker for their add
    (tidegate 1.27x queue's peak at 600 steps; counted so, 0.67x, and 2.3 GB moved
    against 69)."""
    return nbytes >= JOIN_KEEP * pieces and NOT_DATA_RATIO * nbytes >= largest_root


# A join's slot is counted in these steps (exact in binary floating point: the books add
# and take off the same steps, and a worker's count returns to exactly 0).
JOIN_SLOT_STEPS = 64
# A join's bytes count this many times against a root's load (tuned, see join_slot).
JOIN_SLOT_SCALE = 1.5


def join_slot(nbytes: float, largest_root: float) -> float:
    """The share of a root slot a task that joined pieces (``joins_pieces``) holds while its
    output waits for a consumer: ``JOIN_SLOT_SCALE`` x its bytes against the largest data a
    root loaded, rounded up to 1/``JOIN_SLOT_STEPS``, at most one slot. Counted as a whole
    slot, xarray's ``rolling(time=5).mean()`` overlap sums (1.7 MB joins, a ninth of a
    15.6 MB load) held 7-13 slots per worker against a cap of 3 and admission ran by the
    idle rule: twin of probe24's rolling-max (bench/probe25_twin.py) 2 x 2, 3.871 s against
    queuing's 2.994 (1.29x); counted so, 3.615 s (1.21x), peak 122.5 -> 112.7 MB (queuing
    155.1; bench/results/roll25b-findings.txt). Scale 1 (bytes alone): 2 x 1
    seed 2 peaked at 145.8 MB against queuing's 120.7 (two whole-chunk joins and their
    sums held as more loads came in); 1.5 kept every peak of 2x1, 4x1, 2x2 x 3 seeds
    at or below queuing's (3 loses it again: tuned, not derived)."""
    share = JOIN_SLOT_SCALE * nbytes
    if not largest_root > 0 or share >= largest_root:
        return 1
    return max(1, math.ceil(JOIN_SLOT_STEPS * share / largest_root)) / JOIN_SLOT_STEPS


def second_input(computed_from_nothing: bool, nbytes: float, from_sibling: bool,
                 largest_root: float) -> bool:
    """Is this input of a task with several inputs a second input, data combined with the
    data another input carries (so that input is consumed there), in the plugin's count of
    a task's inputs (``single_input`` for ``books.on_finished`` and ``read_on``)? Not when
    - it is computed from nothing and tiny beside what roots load (``NOT_DATA_RATIO``, as
      ``holds_data``): an indexer, e.g. xarray's groupby shuffle-taker (289 bytes) beside a
      15.6 MB zarr chunk in each shuffle-split that cuts the chunk by month. Counted, the
      chunk landed at its first shuffle-split while 30 day slices and two more splits
      still read it; loads ran ahead: twin 2 x 1 of ``u.groupby("time.month") - clim``
      to zarr (bench/probe25_twin.py), peak 253.5 MB against queuing's 180.9; not counted,
      188.7. (Tiny and computed from other data it is data: a running total's carry, the
      sum of earlier blocks, sequences the blocks: counted as none, twin s-running-total
      4x2 took 1.16x as long.)
    - it is computed from another input of the same task alone (``from_sibling``): a mask
      of the chunk it masks, xarray's rolling ``where(~isnan(u), u, 0)``: the task only
      carries u on. Counted, u landed at the mask (a single-input reduction, its only
      other reader a two-input task) and the masked copy, its concatenate and merge were
      in flight nowhere: twin rolling(time=5).mean().max("time") 2 x 1, 183.8 MB against
      queuing's 120.7; not counted, 112.1."""
    if from_sibling:
        return False
    return not (computed_from_nothing and 0 <= nbytes and NOT_DATA_RATIO * nbytes < largest_root)


# An input computed from nothing that has not run yet (size unknown: a second input for
# second_input) is sized by what the tasks of its key prefix returned so far, on one-thread
# workers (bit 1; 0: main's decisions). grp28: xarray's groupby shuffle-takers (each its own
# task group, ~280 B, prefix "shuffle-taker") beside 15.6 MB zarr chunks; a month cut of a
# chunk whose taker had not run counted as a combining reader, so once the chunk's 30 day
# slices were cut it landed though a late cut still held it (dask.order runs some takers
# last): twin 4 x 1 g3 s2, chunk 13 landed at 0.43 s, held till 1.47 s, and its worker took
# two more loads (peak 156.0 MB against queuing's 114.6; sized so, 124.4). Over 3 graph
# builds x 3 seeds (bench/grp27_twin.py) peak / queuing's, median and max: 2 x 1 0.94 / 1.20
# -> 0.86 / 1.01, 4 x 1 0.91 / 1.36 -> 0.92 / 1.16; time 2 x 1 0.984 / 1.031 -> 1.019 /
# 1.086, 4 x 1 1.007 / 1.059 -> 0.991 / 1.024. On every worker 2 x 2 too: peak 0.97 / 1.28
# -> 0.86 / 1.06 but time 1.041 / 1.144 -> 1.089 / 1.193 (the chunk's slot waits for its
# late cut while a second thread could run a load), hence one-thread only. Bit 2: on every
# worker (grp29). That time cost was mostly early takers holding slots (policy.judged_again):
# with takers judged again (then on every worker), 2 x 2 over 3 builds x 6 seeds, peak
# median / max 1.07 / 1.28 -> 0.96 / 1.29, time 0.983 / 1.019 -> 1.001 / 1.040 (one thread:
# bit 2 changes nothing).
SIZED_BY_PREFIX = 3


def sized_by_prefix(threads: int) -> bool:
    """Is an input computed from nothing that has not run yet sized by its prefix on a
    worker of ``threads`` threads (:data:`SIZED_BY_PREFIX`)?"""
    return bool(SIZED_BY_PREFIX & 2 or (SIZED_BY_PREFIX & 1 and threads == 1))


def unrun_input_size(known: float, prefix_returned: float, sized: bool) -> float:
    """The size :func:`second_input` judges an input computed from nothing by: ``known``
    (its output, < 0 before it ran), else, where :func:`sized_by_prefix` (``sized``),
    ``prefix_returned``: the average its key prefix's finished tasks returned (NaN: none
    yet, then it stays a second input)."""
    if known >= 0 or not sized:
        return known
    return prefix_returned


# books.on_finished: a load that a single-input task takes on (a rechunk's half) stays in
# flight itself too while another single-input task still has to read it (read_on), on
# workers of one thread (bit 1) and of more (bit 2: tail33's first form; it cost the twin's
# stencil 8 x 2 2% of its time and anomaly's scheduler 2% for nothing there); 0: old
READ_ON_KEEPS = 1


def keeps_read_on(threads: int) -> bool:
    """Does a load still to be read by a sibling single-input task stay in flight on a
    worker of ``threads`` threads (:data:`READ_ON_KEEPS`)?"""
    return bool(READ_ON_KEEPS & (1 if threads == 1 else 2))


def read_on(readers, task, single_input, pending, priority=None, next_load=math.inf) -> bool:
    """``books.on_finished``'s ``read_on``, one rule for both bodies: is the data that
    ``task`` (a single-input task, just finished) reduced still to be read by another
    single-input task of ``readers`` (its input's readers)? Then it does not consume the
    data its siblings still take on: a stencil's halo slice beside the block's other
    overlap pieces, a rechunk's edge split (39 kB of a 190 MB load) beside the load's two
    halves. Asked of data read by two tasks or more. Asked only above ``MEETING_SPREAD``
    readers (main to session 21), the edge split, which takes no time and so ran first,
    freed its load's slot before either half was cut: twin rechunk-add 20x4, the next
    step pair's loads came while this one's were still being split (10.5-11 chunks on
    a worker). ``single_input(r)``, ``pending(r)``: r has one input besides constants;
    r is still to finish.

    ``priority(r)``, ``next_load``: a body that runs its ready tasks in one priority order
    (the thread runtime) gives the priority of the next root it will load; a reader ordered
    after that load does not take the data on before it, so it keeps no data in flight. Kept
    in flight for them, a groupby anomaly's 15.6 MB zarr chunk held its root slot for its
    30 day slices, which dask.order runs when the month's climatology is done: loads were
    held back, the core cut every slice at once instead, and the chunk stayed in memory
    beside its slices for a month split still to come (core, 2 threads, budget 350-600 MB:
    peak held 309.0 MB where main, which counted the month split's indexer, held 253.5;
    with next_load 254.1; medians of 8 graph builds x 3 seeds, bench/core26_drive.py). The
    plugin gives none (its readers count as before; its queue's head is a candidate)."""
    if priority is None:
        return len(readers) > 1 and any(
            r is not task and r != task and single_input(r) and pending(r) for r in readers
        )
    return len(readers) > 1 and any(
        r is not task and r != task and single_input(r) and pending(r)
        and priority(r) < next_load for r in readers
    )  # fmt: skip


def is_root(inputs, marked: bool = False) -> bool:
    """One task's form of :func:`find_roots`, for runtimes that see one task at a time.

    ``inputs``: ``(ndeps, ndependents, constant, nbytes)`` of each of the task's inputs,
    ``ndeps`` counting its own inputs besides constants (it matters only when
    ``ndependents`` reaches ``SHARED_FANOUT``), ``nbytes`` its output's size (< 0 or NaN:
    unknown). The task is a root when every input is a constant (a DataNode, data already
    held) or a shared handle (no inputs of its own besides constants, fed to
    ``SHARED_FANOUT`` or more tasks, not known to weigh ``HANDLE_MAX_BYTES``), or when
    ``marked``.
    """
    if marked:
        return True
    for ndeps, ndependents, constant, nbytes in inputs:
        if not (constant or is_one_handle(ndeps, ndependents, nbytes)):
            return False
    return True


# The plugin's roots: a shared handle by structure that every reader reads beside other data
# (is_target: a store's target, a zarr array read by fused loads) is no root: bit 1 on
# clusters of multi-thread workers, bit 2 on one-thread ones (targets_on). 0: main's.
TARGETS_NO_ROOT = 2


def targets_on(threads: float) -> bool:
    """Is :func:`is_target` asked on a cluster of ``threads`` threads per worker
    (``TARGETS_NO_ROOT``'s bits)? One-thread clusters only by default: on multi-thread
    workers the handles' workers, free for roots at once, took the first broadcast wave's
    readers, which then received both weights' copies one after the other (twin weighted
    8 x 4, 100 steps: a copy behind another in 5 of 5 namings, makespans summed 1.007 ->
    1.021x queuing's; 20 x 4, 24 steps: median 1.150 -> 1.160x); there no worker's count
    filled with handles had been seen (bench/results/one33-findings.txt)."""
    return bool(TARGETS_NO_ROOT & (1 if threads > 1 else 2))


def is_target(constant: bool, readers: int, nbytes: float, roots_read: bool) -> bool:
    """Is a task that :func:`is_root` calls a root no root after all: a constant
    (``constant``: data embedded in the graph, a DataNode, which dask marks a data
    producer) that is a shared handle by structure (:func:`is_one_handle`: ``readers`` >=
    SHARED_FANOUT, ``nbytes`` unknown or handle-sized) and that no root reads
    (``roots_read``: some reader reads nothing but constants and shared handles)? Every
    reader reads it beside other data (a zarr array's handle, read by stores whose loads
    are fused in; a store's target): nothing it feeds is withheld behind it, and it is
    copied to every worker reading it. Withheld as a root it took a slot in the in-flight
    count and the cap on roots processing where it ran, though it loads nothing: seed
    weighted on one thread (2 x 1: two 8 MB chunks, two store handles of 56 B, cap 2): the
    handles filled one worker's count (refused beside the first chunk's reservations, or
    following each other to the finalize's worker), and the second chunk found only the
    first's worker open: 24 MB against queuing's 16 in 4 of 15 twin runs
    (bench/results/one33-findings.txt). A stencil's block (8 MB, size unknown before it
    runs, read by its 9 slices, each reading it alone) stays a root. Not a task computed
    from nothing: xarray's groupby indexers (shuffle-takers, -sorters, read by 18-736
    tasks beside their chunks) taken for no roots were never seen to return tiny
    (:func:`tiny_prefix` learns from roots' results), and their siblings read by fewer
    waited in the roots' line again (tests/test_probe25.py, one thread: 3 waits, 0
    before)."""
    return constant and not roots_read and is_one_handle(0, readers, nbytes)


OWN_PARTNERS_FIRST = True  # place_root: shared partners alone do not beat waiting; False: old
# place_root: a root whose partners are all shared goes to the least loaded admissible worker,
# fewer partners breaking ties (2; 1: more partners break ties, tail31's; 0: main's)
SHARED_BY_LOAD = 2
# meeting_partners: a meeting's input that is a handle by structure (read by SHARED_FANOUT or
# more, no data inputs, handle-sized or unknown) is no partner; False: old
HANDLES_NO_PARTNERS = True


def by_load(plan, readers: int, no_data: bool, nbytes: float) -> bool:
    """Is a root whose partners are all shared placed by load (:func:`place_root`'s
    ``by_load``, :data:`SHARED_BY_LOAD`)? When every other input of its meetings (``plan``:
    :func:`meeting_plan`'s) is read by other tasks too: seed weighted's 8 MB zarr chunks,
    each read by one getitem that 12 stores read beside the other chunk's and two store
    handles. Wherever such a root goes, its data and its partners are copied to every
    worker using them, so co-locating saves no copy; on its partners' worker it doubled
    that worker's peak (twin 2 x 4: 32 MB against queuing's 16-24 in every run). Not a
    meeting with an input of its own (vorticity-files: a step's reads meet the grids; the
    grids and the first read of a step still go where the grids are), and not a handle by
    structure (``readers`` of it, ``no_data``: no data inputs, ``nbytes`` its size so far;
    :func:`is_one_handle`): copied everywhere, it takes no slot worth spreading, and spread
    by load it filled the least loaded worker's count before the second chunk came."""
    if is_one_handle(0 if no_data else 1, readers, nbytes):
        return False
    found = False
    for inputs in plan.inputs:
        for entry in inputs:
            if not entry[4]:
                return False
            found = True
    return found


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


class MeetingPlan(NamedTuple):
    """The structural part of :func:`meeting_partners`' walk from one root: what the
    graph's dependents and dependencies say, nothing of where tasks are held.

    ``spread``: the root's data feeds more than ``MEETING_SPREAD`` meetings. ``inputs``:
    per meeting with at most ``fanout`` inputs, for each of its other inputs
    ``(tops, end, handle, inner, others, bar)``: its chain (:func:`_chain`), read by
    other tasks too (``shared``), and a bar to completing the meeting elsewhere (read by
    at most ``fanout`` tasks and not a constant). ``meetings``: :func:`_meetings`'.
    ``further``: a meeting's output meets other data again in one task (see
    :func:`meets_further`). ``wide``: the root's one meeting when it has more than
    ``fanout`` inputs (see :func:`joins_started_fan_in`), else None. ``pair``: a
    meeting's output is combined, in its one dependent, with one other input of another
    task group (``group(t)``): two arrays side by side (rechunk-add: the merge of u's pieces
    added to v's merge), not a level of a tree reduction, whose inputs are partials of one
    group (anomaly's mean, whatever their count). Then :func:`passes_for_further` applies
    to the roots of the second side. Applied to a tree reduction too, a group of 4 loads
    whose next level had its other partials waited for a worker with no root processing:
    twin anomaly 20x4, 200 steps, 0.82 -> 0.86x queuing's peak (every 4-way level); 1,000
    steps, only the tree's remainder (two partials, 2 of 250), 60 -> 76 GB moved and 0.786
    -> 0.814x queuing's time. (Session 39's ``joins_two_sides``, found now in
    :func:`_meeting_plan_fast`'s pass.) ``gather``: every meeting is a final gather of one
    collection's pieces (see :func:`gathers_only`)."""

    spread: bool
    inputs: tuple
    meetings: list
    further: bool = False
    wide: object = None
    pair: bool = False
    deep: bool = False
    gather: bool = False


def gathers_only(meetings, dependents, dependencies, group) -> bool:
    """Does a root's data meet other data only in final gathers: tasks with no dependents
    that join pieces of one collection (every input of one task group, ``group(t)``):
    ``finalize-...`` of ``Client.compute`` reading every output chunk; of a ``da.store``,
    every per-chunk store's ``None``? Then its partners there rank the workers it may go
    to but are no reason to wait for their busy workers (``books.Books.place``'s
    ``gather``): co-located or not, all of a gather's inputs are held on its one worker in
    the end, so co-locating them saves no memory, only the copies into that task, while
    waiting for the partners' worker runs them on its threads alone. A final task of two
    collections (``a + b`` kept as the output, without a finalize: twin sim fingerprints
    slice-add, vorticity moved) or of two inputs (a pair's combine computed as one of a
    list of outputs: tests/test_plugin_safety.py's blocked pairs, whose second roots wait
    for their partner's worker) is no gather: there co-locating the loads saves copying
    one. Why: twin seed weighted (12 stores
    reading two 8 MB grids, ~120 ms each, meeting in the finalize), 2 x 2: once the first
    stores went to w1 every other store's partners were there; they waited for w1 while w0
    ran one store on one of its two threads (bench/results/wall29-findings.txt). Without
    ``group`` (a body that gives none): False."""
    if not meetings or group is None:
        return False
    for m, _ in meetings:
        if dependents(m):
            return False
        ins = dependencies(m)
        if len(ins) <= 2:
            return False  # a pair's combine kept as an output: a meeting, no gather
        first = None
        for d in ins:
            g = group(d)
            if first is None:
                first = g
            elif g is not first and g != first:
                return False
    return True


# How far meeting_plan walks (its ``halo_depth``) from a root whose meetings within its
# depth combine only its own data (see :func:`meeting_plan`).
HALO_DEPTH = 8


def halo_depth(threads: int, workers: int) -> int | None:
    """:func:`meeting_plan`'s ``halo_depth`` on a cluster of ``workers`` workers with
    ``threads`` threads in all: ``HALO_DEPTH`` where workers have more than one thread on
    average, else None (the walk stops at depth). A one-thread worker has no thread to
    load the next chunk on beside the running one: there the deep plan only moved where
    chunks go, and its spread (9 overlap sums: ``may_load_beside``) loaded them past the
    count: twin of tests/test_probe25.py's rolling mean (5 namings) 2x1 peak 0.85 ->
    1.09x queuing's, 4x1 0.96 -> 1.26x; without the spread, 1.053 -> 1.072x and 0.97 ->
    1.02x queuing's time (bench/results/halo26-findings.txt)."""
    return HALO_DEPTH if threads > workers else None


def meeting_plan(task, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, constant=None,
                 chains: dict | None = None, group=None,
                 halo_depth: int | None = None, unique: bool = False) -> MeetingPlan:
    """:class:`MeetingPlan` of root ``task`` (arguments as :func:`meeting_partners`).

    It holds while the graph's tasks and edges do: a body may keep it for a root until a
    graph is added or a task forgotten. Why: a queued root is placed about twice and each
    placement walked its meetings again (twin anomaly 100x4: a fifth of the plugin's
    bytecodes); only ``where`` (and sizes, for handles) changes meanwhile. ``chains``,
    when given, keeps the chains walked, ``{id(t): (t, chain)}``, under the same terms:
    the roots meeting in one task walk each other's chains (a tree reduction's combine of
    4 loads: each chain walked for 3 roots). ``group(t)``, when given: t's task group (the
    collection it belongs to), for :attr:`MeetingPlan.pair`; without it ``pair`` is
    False.

    ``halo_depth``, when given: where every meeting within ``depth`` combines only this
    root's own data (xarray's rolling mean masks each chunk, ``where(~isnan(u), u, 0)``, a
    task of u and invert(u)), the walk goes on to ``halo_depth`` (fresh chains, not
    ``chains``', which are walked to ``depth``): the chunk meets its neighbour's halo 6
    steps down (invert -> concatenate -> rechunk-split -> rechunk-merge -> getitem ->
    overlap sum). Such a plan is ``deep``: where it completes a meeting, a root passes
    the in-flight count only as :func:`passes_for_halo` says. Why: never seen to meet its
    neighbours, each chunk was placed by load alone (2 x 2: alternate chunks on alternate
    workers, every halo crossing) and waited for a slot while its neighbour's data waited
    for it: twin of probe24's rolling-max (bench/probe25_twin.py) 2 x 2 1.15-1.26x
    queuing's time (bench/results/halo26-findings.txt).

    ``unique``: distinct task objects are distinct tasks (dask's TaskStates, one per key
    in a scheduler: a task is compared by identity alone, without ``==``). The plan is
    walked by :func:`_meeting_plan_fast`."""
    plan = _meeting_plan_fast(task, dependents, dependencies, depth, fanout, constant,
                              chains, group, unique)
    if halo_depth is None or halo_depth <= depth or not plan.inputs or plan.wide is not None:
        return plan
    own = 0
    for inputs in plan.inputs:
        for entry in inputs:
            for c in entry[0]:  # (identity, as meeting_partners' ``r is task``)
                if c is task:
                    break
            else:
                return plan  # a meeting with other data within depth: as it was
            own += 1
    if not own:
        return plan  # (meetings with inputs read by many only: a grid, weights)
    deep = _meeting_plan_fast(task, dependents, dependencies, halo_depth, fanout, constant,
                              None, group, unique)
    for inputs in deep.inputs:
        for entry in inputs:
            for c in entry[0]:
                if c is task:
                    break
            else:
                return deep._replace(deep=True)
    return plan


_tuple_new = tuple.__new__


def _meeting_plan_fast(task, dependents, dependencies, depth, fanout, constant, chains,
                       group, unique) -> MeetingPlan:
    """:func:`meeting_plan` at one depth, in one pass over the meetings: ``further``,
    ``pair`` and ``gather`` (:func:`meets_further`; two groups joined, see
    :attr:`MeetingPlan.pair`; :func:`gathers_only`: each asks whether some meeting's one
    dependent reads 2 to ``fanout`` inputs, or whether none has a dependent) found on the
    pass that lists their inputs, each meeting's dependents read once, each group once;
    the kept chains read in place (``_chain_of``'s look-up without its call); with
    ``unique``, a meeting's input compared with its ``via`` by identity alone. Why:
    rechunk-add's plans are one walk per root, no part of it shared with another root's
    (each chain is walked once and read once more, each meeting's other input is one
    root's entry: nothing to share between roots of one shape), so only a walk with fewer
    steps costs less (cpu40b-findings.txt: 0.70-0.96x session 39's walk's time a call;
    that walk is tests/plan_reference.py, the reference tests/test_plan_fast.py compares
    every plan with)."""
    meetings = _meetings(task, dependents, dependencies, depth, fanout)
    inputs = []
    further = pair = False
    leaves = group is not None  # (every meeting without a dependent so far: a gather?)
    for m, via in meetings:
        ds = dependents(m)
        if ds:
            leaves = False
            if len(ds) == 1:
                (m2,) = ds
                ins2 = dependencies(m2)
                n2 = len(ins2)
                if 1 < n2 <= fanout:
                    further = True
                if n2 == 2 and not pair and group is not None:
                    a, b = ins2
                    ga = group(a)
                    gb = group(b)
                    if ga is not gb and ga != gb:
                        pair = True
        ins = dependencies(m)
        if len(ins) > fanout:
            continue
        plans = []
        for t in ins:
            # Identity first: a dask TaskState's == is a Python call (by key); the same
            # object is the same task for every task type used here.
            if t is via or (not unique and t == via):
                continue
            n = len(dependents(t))
            if n > fanout:
                continue  # (a chain of no task: no score, no root, no bar; a mean, a grid)
            if chains is None:
                chain = _chain_fast(t, dependents, dependencies, depth, fanout, constant)
            else:
                kept = chains.get(id(t))
                if kept is not None and kept[0] is t:
                    chain = kept[1]
                else:
                    chain = _chain_fast(t, dependents, dependencies, depth, fanout, constant)
                    chains[id(t)] = (t, chain)
            # (2: a handle by structure, read by SHARED_FANOUT or more without data inputs:
            # no partner while its size says so, see HANDLES_NO_PARTNERS)
            shared = n > 1
            if n >= SHARED_FANOUT and HANDLES_NO_PARTNERS and _no_data(t, dependencies,
                                                                     constant):
                shared = 2
            plans.append(chain + (shared, not (constant is not None and constant(t))))
        inputs.append(tuple(plans))
    wide = None
    # (read directly only: through a chain, a reduce of each load, withholding the root
    # keeps one load per thread in memory instead of all; review22, twin 2x4: 90 MB/worker)
    if len(meetings) == 1 and len(dependencies(meetings[0][0])) > fanout \
            and (meetings[0][1] is task or meetings[0][1] == task):  # fmt: skip
        wide = meetings[0][0]
    # (the named tuple made without its Python __new__: every field given, in order)
    return _tuple_new(MeetingPlan, (
        len(inputs) > MEETING_SPREAD, tuple(inputs), meetings, further, wide, pair, False,
        leaves and bool(meetings) and gathers_only(meetings, dependents, dependencies,
                                                   group)))  # fmt: skip


def joins_started_fan_in(task, plan: MeetingPlan, dependencies, where) -> bool:
    """Does root ``task``'s data go to one task only, which reads more than ``fanout``
    inputs (``plan.wide``: a ``delayed(sum)`` of 40 loads, a concatenation), another of
    them held or processing already? Then every one of them is held before it runs,
    whatever the order: withholding ``task`` saves no memory, only threads. Such a root
    may pass the in-flight count like one completing a consumer (``may_admit_root``), in
    both bodies. Past the count only the idle rule admitted, one root whenever a worker
    had nothing to run: 40 loads of 0.2 s on 4 threads took tidegate.get 7.43 s against
    threaded's 2.01, a 2 x 2 LocalCluster 3.86 s against queuing's 2.04-2.20. (Narrower
    fan-ins are meetings: their held inputs are ``complete`` partners.) Cost: inputs
    looked at until one is found: a first root's question reads them all, later ones
    stop at one placed before (n log n in all where the order is random, as dask's sets)."""
    wide = plan.wide
    if wide is None:
        return False
    for d in dependencies(wide):
        if where(d) and not (d is task or d == task):  # (task itself is not placed yet)
            return True
    return False


def waits_for_own_reduction(task, dependents, dependencies, depth: int = 6,
                            chains: dict | None = None):
    """Is root ``task``'s data read again beside a value reduced from it (``a -
    a.mean(axis=0)``: a load's chunk-mean goes up a tree reduction into the mean, and the
    load waits for that mean)? Then it stays where it was loaded until the reduction is
    whole, wherever its reduction's meetings complete: co-locating it with its meeting's
    partners saves only the transfer of what its reduction's first task makes of it.
    Returns that first task (the chunk-mean), or None. Found by following, from each
    other dependent of ``task``, the tasks with one dependent (the reduction's path) for
    at most ``depth`` steps. Cost: few meetings, a few steps per pair; many (a grid read by
    1,000 tasks: 10^6 steps when every pair was tried), each path once with the dependents
    of each task on it.

    ``chains``, when given (a body's kept chains, :func:`_chain_of`'s), keeps the steps of
    each path past its first two, u (c's one dependent) then v (u's): under ``(id(u),
    depth)``, ``(u, frozenset of v and the tasks up to depth - 2 steps on from v)``, on the
    chains' terms (they hold while the graph does); u is tested as the walk tests it, and
    nothing is kept for a path ending at u (a running total's: each asked once). The roots
    of a tree reduction's group reach one combine first (anomaly: a group's 4 chunk-means,
    one combine), then walk the same path: each path is walked once, and tested against
    d's inputs in C (``isdisjoint``, by the hashes the sets hold). The same answer: c's
    path is u, v and v's next depth - 2 steps, the walk's; ``t is not d`` holds of every t
    in d's inputs (a task is no input of its own), so it adds nothing to ``t in ins``."""
    deps = dependents(task)
    if len(deps) < 2:
        return None
    meets = [d for d in deps if len(dependencies(d)) >= 2]
    if not meets:
        return None
    if len(meets) <= 8 and chains is not None and depth > 0:  # (below's, its paths kept)
        for d in meets:
            ins = dependencies(d)
            for c in deps:
                if c is d:
                    continue
                up = dependents(c)
                if len(up) != 1:
                    continue
                (u,) = up  # (the first step, as below)
                if u in ins:
                    return c
                up = dependents(u)
                if len(up) != 1 or depth < 2:
                    continue  # (the walk ends at u: nothing to keep)
                kept = chains.get((id(u), depth))
                if kept is None or kept[0] is not u:
                    (v,) = up
                    kept = chains[(id(u), depth)] = (u, _path_up(v, dependents, depth - 2))
                if not kept[1].isdisjoint(ins):
                    return c
        return None
    if len(meets) <= 8:  # few meetings (a load, its chunk-mean and a - mean): pair them
        for d in meets:
            ins = dependencies(d)
            for c in deps:
                if c is d:
                    continue
                t = c
                for _ in range(depth):
                    up = dependents(t)
                    if len(up) != 1:
                        break
                    (t,) = up
                    if t is not d and t in ins:
                        return c
        return None
    meets = set(meets)  # many (a grid read by every task): each path once
    first = {}  # d -> the first c (in deps' order) whose path reaches an input of d
    for c in deps:
        t = c
        for _ in range(depth):
            up = dependents(t)
            if len(up) != 1:
                break
            (t,) = up
            for d in dependents(t):
                if d in meets and d is not c and d is not t and d not in first \
                        and t in dependencies(d):  # fmt: skip
                    first[d] = c
    for d in deps:  # the answer the pairwise search gave: the first d, then its first c
        if d in first:
            return first[d]
    return None


def _path_up(u, dependents, steps: int) -> frozenset:
    """u and the tasks up to ``steps`` steps on from it along single dependents
    (:func:`waits_for_own_reduction`'s path past its first step: u its second)."""
    path = [u]
    t = u
    for _ in range(steps):
        up = dependents(t)
        if len(up) != 1:
            break
        (t,) = up
        path.append(t)
    return frozenset(path)


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


# A tree reduction's later combine (level 2 and up: its inputs all partials of one group,
# each itself a combine read by it alone, the first of pieces of one group) goes to the
# running worker with a thread free that would hold least once the partials it lacks are
# in, when that is less by more than COMBINE_LEVELS_MARGIN partials than at dask's choice
# (the holder of most partials; the
# plugin's Placement._combine_level; anom47). Not while a worker lags, a group's loads
# went by pace or over an idle worker's share: the slow worker holds least there, and the
# slow-worker and idle rules place the mean.
# 0: main's. Asked only while at most COMBINE_LEVELS_WORKERS workers run: it looks at every
# running worker per such combine (the twin anomaly at 1,000 workers, 500 steps: +1,235
# plugin bytecodes a task, growing with the cluster), and it gained at 20 workers, not at
# 100 (100 x 4 at 800-1,200 steps: the same peaks; lead47).
COMBINE_LEVELS = 1
COMBINE_LEVELS_MARGIN = 2.0
COMBINE_LEVELS_WORKERS = 64


def combine_level_elsewhere(chosen: float, least: float, partial: float) -> bool:
    """Does a tree reduction's later combine (level 2 and up) go to the worker measured
    ``least`` rather than to dask's choice, measured ``chosen``? A worker's measure: its
    held bytes, the estimated outputs of its tasks processing, their inputs on their way
    to it, and the combine's inputs it lacks (what it holds once they are in). Yes when
    ``least`` is less by over ``COMBINE_LEVELS_MARGIN`` inputs' bytes (``partial``, one
    input's). Why: twin anomaly (``x - x.mean(axis=0)``, 1,000 steps of 190 MB, 20 x 4,
    1 GB/s): every load is held until the mean is whole, and a level-2 combine (4 partials
    of 380 MB in, 380 MB out) went beside the holder of most of its partials, a worker
    holding its share of loads with its next group's chunk-means: 13.68 GB against
    queuing's 17.67 (0.77x); moved, 12.16 GB (0.69x). Over 5 namings of the keys peak
    median 0.745 -> 0.688x queuing's (0.667-0.774 -> 0.610-0.753), makespan 0.727 ->
    0.722x. The margin: at half an input (the first form) 20 x 4 at 400 steps went 0.791
    -> 0.837x (3 namings; moved where loads then came), at 2 inputs 0.791 -> 0.818x (one
    naming of 5: 6.46 -> 6.84 GB); 100 x 4 gained at half an input (0.846 -> 0.815x) and
    not at 1 or more (a 12-load worker's combine against an 8-load one: 2 partials to
    copy against 2 held). Every worker is looked at: three free workers beside the
    holders (as combine_elsewhere) lost most of it (20 x 4: 0.731x). bench/results/
    anom47-findings.txt."""
    return bool(COMBINE_LEVELS) and least + partial * COMBINE_LEVELS_MARGIN < chosen


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


def fewest_readers(tied: dict, chosen):
    """Of ``tied`` ({worker: the fewest readers of a consumer's own inputs held there},
    the workers holding most of its input bytes, equally), the one whose input there has
    the fewest readers; ``chosen`` (the runtime's choice) among equals. An input read by
    many is copied to its other readers' workers anyway; one read by few is copied for
    this consumer alone."""
    least = min(tied.values())
    if tied.get(chosen) == least:
        return chosen
    return next(w for w, n in tied.items() if n == least)


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


SLOWER = 2.5  # clearly_slower: times the other worker's root duration


def clearly_slower(pace, other) -> bool:
    """Is a worker clearly slower at a group's roots than another, so that a root waiting
    for it (:func:`places_by_held`) would idle the other? ``pace``, ``other``: the compute
    seconds of the last two roots of that group each ran (``(last, previous)``, NaN not
    yet; None: none ran). Yes when both of the worker's last two took more than
    ``SLOWER`` times the longer of the other's: a process lagging throughout, not one
    slow load (zarr's import in a process's first load, 2-4x a load; a reduction group
    whose loads are slower wherever they run). Twin anomaly 2 x 1, every load of one
    worker 3x slower: waiting for it held 6 loads a worker in 5.62 s against queuing's 9
    and 4.77 s; not waiting, 8 and 5.09 s. Equal workers, one slow group: no change."""
    return _slower_by(pace, other, SLOWER)


def _slower_by(pace, other, factor: float) -> bool:
    """Both of ``pace``'s two samples over ``factor`` times the longer of ``other``'s, each
    pair known (:func:`clearly_slower`, :func:`paced_slower`)."""
    if pace is None or other is None:
        return False
    a, b = pace
    c, d = other
    return b == b and d == d and min(a, b) > factor * max(c, d)


# Once a worker was found clearly slower at a root group (clearly_slower answered yes), work
# stealing may move a task that is not a root off the worker holding its inputs, as dask's
# stealing would (keeps_its_worker no longer binds until that group is forgotten; the
# plugin's Plugin._slower, server._inputs_all_here; slow38). 0: main's.
SLOW_STEAL = 1


def steals_beside_slower(slower: bool) -> bool:
    """May work stealing move a task that is not a root even where
    :func:`keeps_its_worker` would keep it, because a worker was found clearly slower than
    another at a root group's loads (``slower``: :func:`clearly_slower` answered yes)?
    Yes (switch ``SLOW_STEAL``). Loads then go unevenly by speed (the fast worker does not
    wait for the slow one), and each load's readers after the reduction (the anomaly's
    stores, 0.35 s each against a 0.16 s load) run where it was loaded: kept there, the
    worker that loaded more ran every one of its stores while the other idled (twin
    anomaly 2 x 1, the second worker's loads 3x slower: 8 loads / 4, stores 8 / 4, makespan
    5.11 s against queuing's 4.77, which steals a store). A stolen store copies its load to
    an idle thief, which holds less (it loaded fewer): the busiest worker's peak is not
    raised. Workers of one speed never meet this (clearly_slower never answers yes: the
    small twin table, the fingerprints), so keeps_its_worker's case (an anomaly combine
    stolen off the worker loading the next group, twin 20 x 4) is untouched."""
    return bool(SLOW_STEAL) and slower


# A root that would run on a worker clearly slower at its group (clearly_slower) than another
# goes to (or waits for) the faster one (Placement._off_slower, _faster; slow38). Bit 2: at
# the group's tail, when the fast worker would run every root left sooner than the slow one
# runs this one. Bit 1 (off): whenever the slow worker's roots in flight fill its threads
# (3x slower: summed over the tests' namings 1.072 -> 1.112x queuing's). 0: main's.
OFF_SLOWER = 2


def leaves_slower(in_flight: int, threads: int, left: int = 0, other_flight: int = 0,
                  pace=None, other=None) -> bool:
    """Does a root whose data waits for its own reduction, on its way to a worker (its
    partners', or the one holding least: :func:`places_by_held`) clearly slower at its
    group than another running worker (:func:`clearly_slower`), go to that other worker
    (or wait for it) instead? ``OFF_SLOWER`` bit 2: when the fast worker would run its
    roots in flight (``other_flight``) and every root of the group not started yet
    (``left``, this one included) sooner than the slow worker runs this one (``pace``,
    ``other``: the last two compute seconds of the group's roots on each, as
    :func:`clearly_slower` reads them; the slow one's shorter against the fast one's
    longer): the group's tail, where a last load on the slow worker keeps the reduction
    waiting while the fast worker idles. Earlier the slow worker still takes its share.
    Bit 1 (off by default): when the slow worker's ``in_flight`` roots fill its
    ``threads`` (the root would queue behind them).
    Why: twin anomaly 2 x 1 (bench/twin_slow_worker.py --mode worker), the second
    worker's loads 4x slower (0.64 s against 0.16): the last group's loads went to the
    slow worker while the fast one idled, the mean waited for them. Bit 2, summed over
    the tests' five namings: 4x 1.072 -> 1.057x queuing's makespan, 3x 1.072 (unchanged),
    peak 0.89 -> 0.98x queuing's (9 loads / 3, queuing's split); every task of the slow
    worker slowed (a lagging process) 4x 1.541 -> 1.185x. Bit 1 as well: 4x 1.008x but
    3x 1.122x (9 / 3 at 3x: the stores follow the loads, and the fast worker's wait for
    dask's stealing tick); bit 1 alone 3x 1.112x. Workers of one speed never meet this
    (clearly_slower never answers yes). slow38-findings.txt."""
    if not OFF_SLOWER:
        return False
    if OFF_SLOWER & 1 and in_flight >= threads:
        return True
    if not OFF_SLOWER & 2 or pace is None or other is None:
        return False
    a, b = pace
    c, d = other
    if a != a or b != b or c != c or d != d:
        return False  # (not two of each known)
    return (left + other_flight) * max(c, d) < min(a, b)


# A root leaving a clearly slower worker (leaves_slower, leaves_lagging) goes to a faster
# worker with a thread free where there is one, not to queue behind the first faster worker's
# (Placement._faster). 0: main's (the first faster worker). slow45.
OFF_FREE = 1


# paced_slower: a worker's last two roots of a group each took more than PACE_SLOWER times
# the other's longer (read by paced_keeps, PACE_HELD). slow41.
PACE_SLOWER = 1.5


def paced_slower(pace, other) -> bool:
    """Is a worker steadily slower at a root group's roots than another, though not
    :func:`clearly_slower`? ``pace``, ``other``: as clearly_slower reads them (the last two
    compute seconds of the group's roots on each). Both of the worker's last two took more
    than ``PACE_SLOWER`` times the longer of the other's. Read by :func:`paced_keeps`
    only: nothing else (clearly_slower's waits and tail, stealing) changes below SLOWER.
    Why: twin anomaly 2 x 1, every load of one worker 2.2x slower
    (bench/twin_slow_worker.py --mode worker): no rule fired, each group's loads stayed
    6 / 6, the fast worker idled for the slow one's last two loads (the mean at 2.57 s
    against queuing's 1.76): 1.199x queuing's makespan over five namings."""
    return _slower_by(pace, other, PACE_SLOWER) and PACE_SLOWER * max(other) > 0


# A root that places_by_held would send to (or park for) the worker holding least stays
# with its partners' worker when the least holding one is steadily slower at the group's
# roots (paced_slower) and the partners' worker holds at most PACE_HELD loads more
# (paced_keeps; Placement._by_held). 0: main's. slow41.
PACE_HELD = 3.0


def paced_keeps(partners_held: float, least_held: float, estimate: float, pace,
                other) -> bool:
    """Does a root that :func:`places_by_held` sends to the worker holding least
    (``least_held``; ``pace``: its last two compute seconds at the group's roots) stay
    with its partners' worker (``partners_held``; ``other``: its paces) instead? When
    the least holding worker is steadily slower (:func:`paced_slower`) and the partners'
    worker holds at most ``PACE_HELD`` loads (``estimate``) more: the loads then split by
    pace up to that many loads' imbalance (a peak of one load more at the busiest
    worker), rather than wait, parked, for the slow worker's thread while the fast one
    idles. Why: twin anomaly 2 x 1, every load of one worker 2.2x slower
    (bench/twin_slow_worker.py --mode worker): the last group's four loads were parked
    for the slow worker (it held least), the fast worker idled 0.81-1.00 and 1.20-1.58 s
    and the mean waited for the slow worker's sixth load."""
    return bool(PACE_HELD) and paced_slower(pace, other) \
        and partners_held <= least_held + PACE_HELD * estimate  # fmt: skip


# Once a root group's loads went by pace (paced_keeps said yes), and while no such group was
# found clearly slower (there dask's stealing moves them: SLOW_STEAL), a task that is not a
# root goes to the holder of its inputs that would end it soonest (ends_sooner_elsewhere,
# no lag: dask's soonest start; Placement._by_pace, _off_lagging), where the copies fit
# (paced_move_fits), as LAG_CONSUMERS for a lagging worker. Loads by pace without it: the
# stores follow the loads, 7 / 5 (twin --mode worker 2x: 1.038 -> 1.047x). 0: main's.
PACE_CONSUMERS = 1
# A task PACE_CONSUMERS moved off its input's holder (Placement._off_lagging) stays where it
# was placed: dask's stealing, which does not know the paces, does not move it back after
# its input was copied (server._inputs_all_here; Plugin._pace_moved). 0: main's. slow45.
PACE_STAYS = 1


def paced_move_fits(held_there: float, copies: float, held_here: float) -> bool:
    """May a task that is not a root, while a root group's loads went by pace
    (PACE_CONSUMERS), move to another holder of its inputs that ends it sooner
    (:func:`ends_sooner_elsewhere`)? Only where that worker's held bytes (``held_there``)
    with the inputs it would copy in (``copies``) stay at or below the chosen worker's
    (``held_here``): a store moved copies its load in, and the worker that loaded more
    by pace holds more until every store is done. Why: twin anomaly 2 x 1, every task of
    one worker 2.2x slower (--mode all), the loads 7 / 5 by pace: a store moved to the
    fast worker copied its 32 MB load beside its 7 loads and the mean, 304 MB against
    queuing's 272."""
    return held_there + copies <= held_here


# A task PACE_CONSUMERS would move is left where its input is while another worker, not
# holding its inputs, has at least as much made ready with it still to place (paced_move_waits),
# or while a reader of its shared input moved is copying its input (placement._moved_with):
# one move per shared input in a burst of placements, from the worker placed last
# (Placement._off_lagging). 0: main's. slow48b.
PACE_LAST = 1


def paced_move_waits(ahead_here: float, duration: float, ahead_elsewhere: float) -> bool:
    """Is a task PACE_CONSUMERS would move off its worker (:func:`ends_sooner_elsewhere`)
    left there, because another worker not holding its inputs has ``ahead_elsewhere``
    (seconds: dask's estimates of the tasks made ready with it, not placed yet) at least
    the ``ahead_here`` of its own worker plus its ``duration``? The shared input (the
    anomaly's mean) is copied to the workers in the order their tasks are placed, so the
    worker placed last ends last: a move from an earlier one shortens nothing unless that
    one moves too, and two moves copy two loads. Left, the move is asked again of the last
    worker's tasks. Why: twin anomaly 3 x 1, the loads of one group 3x slower, loads 5 /
    5 / 2 by pace: a store moved from each 5-load worker (2 x 32 MB, 4 / 4 / 4 stores),
    0.972x queuing's makespan at 1.158x its bytes; none moved 1.074x; the first one alone
    1.074x; the last one alone 1.027x at 0.947x its bytes."""
    return bool(PACE_LAST) and ahead_elsewhere > 0 and ahead_elsewhere >= ahead_here + duration


# A root that would wait (parked) for a busy worker goes to a running worker with nothing
# processing instead, when the busy one's last root of the group took more than IDLE_PACE
# times the idle one's longer, the idle one holds at most IDLE_HELD loads more after it, and
# it stays within its even share of the group with the root's meeting (idle_takes,
# within_share; Placement._idle_takes). 0: main's. slow42.
IDLE_PACE = 1.5
IDLE_HELD = 3.0
# idle_takes' held gap is loads (``estimate``) apart: IDLE_TIE of a load more still passes, so
# the small reduced outputs beside the loads (the anomaly's chunk-means) do not decide an
# exact tie (twin 2 x 1, loads 3x slower: refused by 640 bytes in 64 MB). 0: slow42's. slow44.
IDLE_TIE = 0.0625
# idle_takes also by the idle worker's shortest sample where it holds at most IDLE_NEAR loads
# more than the busy one now (a take that moves the balance by one load). 0: off. With
# IDLE_TAIL's bit 8 (alone it moved no cell of slow44's grid). slow45.
IDLE_NEAR = 1.0
# Where two workers' paces at a group's roots differ by more than IDLE_PACE (WAKE_SAMPLES), a
# worker that goes idle wakes the roots parked for other workers, so idle_takes asks then, not
# at the timer (Admission._refresh, Plugin._uneven). 0: main's. slow45.
IDLE_WAKE = 1
# Which samples make two workers' paces differ for IDLE_WAKE (hooks._uneven; judged again at
# every root's finish, a departed worker's dropped). 3: every known sample (of the last two) of
# one over IDLE_PACE times every one of another; 2: one's last over the other's longer; 1: the
# last of each (slow45's samples; a zero sample counts for none). Twin anomaly, equal
# workers, durations +-40%: the wake ran in 21 of 36 runs with slow45's (3 moved), 10 with
# 1, 4 with 2 or 3 (none moved); slow45's 72-cell grid the same with 3. slow46.
WAKE_SAMPLES = 3
# idle_takes' held test also passes where the idle worker with the root would hold no more
# than the running worker holding most now (``top_held``, within IDLE_TIE of a load): a take
# that does not raise the cluster's highest held, however far it is from the busy worker's
# (three or more workers; on two the top is the busy worker or the idle one itself, and
# IDLE_HELD decides). Twin
# 3 x 1: 4 cells of slow44's 72, 1.047-1.197 -> 0.916-0.985x queue's time; two over its bytes
# (1.10 / 1.16x: the stores moved by pace after the take). 0: main's. slow48.
IDLE_TOP = 1


def idle_takes(busy_pace, idle_pace, busy_held: float, idle_held: float,
               estimate: float, near: bool = True, top_held: float = 0.0) -> bool:
    """Does a root whose data waits for its own reduction, on its way to wait for a busy
    worker (its partners', or the one holding least: :func:`places_by_held`), start on a
    running worker with nothing processing instead (if :func:`within_share` too)?
    ``busy_pace``, ``idle_pace``: the last two compute seconds of the group's roots on
    each (newest first, as :func:`clearly_slower` reads them); ``busy_held``,
    ``idle_held``: places_by_held's measure of each. Yes when the busy worker's last root
    took more than ``IDLE_PACE`` times the longer of the idle one's (one sample: a root
    slow on its own is found after one, and the idle thread is lost meanwhile) and the
    idle worker would hold at most ``IDLE_HELD`` loads (``estimate``) more than the busy
    one with it (``IDLE_TIE`` of a load more still passes). Workers of one pace never meet
    it. Why: twin anomaly 2 x 1, one
    reduction group's loads 4x slower (bench/twin_slow_worker.py --mode group): the fast
    worker ended its own group at 0.81 s and idled to 1.29 s while the slow group's two
    loads left and the next group's four waited (parked) for the worker running the slow
    loads: 1.058x queuing's makespan over five namings (5x: 1.119x).

    Or (``IDLE_NEAR``, ``near``) when the busy worker's last root took more than
    ``IDLE_PACE`` times the idle one's shortest and the idle worker holds at most
    ``IDLE_NEAR`` loads more than the busy one now: a take that moves the balance by
    one load at most, read where the idle worker ran slow roots too (one reduction
    group's loads slow wherever they run: its longer sample is one of them). Why: twin
    anomaly 4 x 1, the loads of one reduction group 2.5-5x slower (--mode group), the
    next group's last two loads waited (parked) for a worker running a slow load while
    two workers, each of which had run one, idled 0.25-0.6 s: 1.095-1.191x queuing's
    makespan; taken, 1.023-1.121x, peak 1.000 -> 0.909x queuing's (slow45).

    The held test also passes (``IDLE_TOP``) where the idle worker with the root holds at
    most ``top_held``, the most any running worker holds now (within ``IDLE_TIE`` of a
    load): the take raises no worker above the cluster's highest. Why: twin anomaly 3 x 1,
    one group's loads 3-4x slower (--mode group) or one worker's loads 3-4x (--mode
    worker): the slow group's last load waited for the worker running two slow loads
    (0.8-1.3 s at 4x) while a worker that had ended its own group's four idled, refused
    as 3.5 loads over the busy one though only as high as the third worker: 1.047-1.197x
    queuing's makespan; taken, 0.916-0.985x at or below its peak (slow48)."""
    if not IDLE_PACE or busy_pace is None or idle_pace is None:
        return False
    last = busy_pace[0]
    known = [x for x in idle_pace if x == x]
    if last != last or not known:
        return False
    if near and IDLE_NEAR and idle_held <= busy_held + IDLE_NEAR * estimate \
            and last > IDLE_PACE * min(known) > 0:  # (over the idle one's shortest)
        return True
    return last > IDLE_PACE * max(known) and IDLE_PACE * max(known) > 0 \
        and (idle_held + estimate <= busy_held + (IDLE_HELD + IDLE_TIE) * estimate
             or IDLE_TOP and idle_held + estimate <= top_held + IDLE_TIE * estimate)  # fmt: skip


def within_share(count: int, group: int, workers: int, over: int = 0) -> bool:
    """May an idle worker take a root (:func:`idle_takes`) holding or processing ``count``
    tasks of its task group, the root's meeting's other roots not started yet counted
    (they follow it there)? When that stays within its even share of the ``group`` roots
    over ``workers`` running workers. Why: twin anomaly 4 x 1, every task of one worker
    2.5-4x slower (--mode all): idle workers took three of the slow one's parked roots
    at once, a meeting's last root followed, 4 / 3 / 3 / 2 loads, the mean beside the 4:
    1.083x queuing's peak; 2 x 1 worker 2.5x: 7 / 5, 1.118x (the mean beside the 7).
    (``over``: that many more allowed, :func:`slower_alone`'s case.)"""
    return workers > 0 and count + 1 <= -(-group // workers) + over


# A busy worker slower at a root group than every other worker (slower_alone): the idle take
# counts the root alone (not its meeting's roots to come; 0: main's) and allows IDLE_OVER
# over the even share (within_share's ``over``). 1: twin 2 x 1 loads 2.5x slower 1.083 ->
# 1.015x queuing's, but 3 x 1 every task 2x slower peak 1.000 -> 1.154x and one group's
# loads 2x slower 1.100 -> 1.152x (slow43-findings.txt): 0 by default. IDLE_COMBINE: while
# a group went over a share so, a later reduction level (the anomaly's mean) is placed by
# _combine_elsewhere's measure, not while a worker lags (Placement._idle_load); it acts
# only after a take over the share (IDLE_OVER, or IDLE_TAIL's tail take); 0: main's. slow43.
IDLE_ALONE = 1
IDLE_OVER = 0
IDLE_COMBINE = 1


def slower_alone(busy_pace, others) -> bool:
    """Is a busy worker, whose last root of a group took ``busy_pace[0]``, slower than every
    other worker that ran roots of it (``others``: their paces, newest first), each by
    :func:`idle_takes`' pace test? Then the slowness is the worker's, not its loads' (one
    reduction group's loads slow wherever they run: other workers ran slow ones too), and
    an idle worker's take (:func:`idle_takes`) is judged by :func:`within_share` with the
    root alone (and ``IDLE_OVER`` over the share), not with its meeting's roots to come
    (those the take still reserves there: the worker may end their number over its share,
    as the 4 / 3 / 3 / 2 below). Why: twin anomaly 4 x 1, every load of one worker 3-4x slower
    (bench/twin_slow_worker.py --mode worker --workers 4): its parked roots waited for it
    while the other three idled 0.40-1.29 s, each refused by the share with its meeting's
    other root counted: 1.062 / 1.104x queuing's makespan (4 / 3 / 3 / 2 loads: 0.946 /
    0.952x, peak 0.917 -> 0.833x). Not where the slowness is a group's loads' (--mode group
    4 x 1, every busy worker so: 5 / 3 / 2 / 2, 1.242x at 4x)."""
    if not IDLE_ALONE or busy_pace is None:
        return False
    return all(idle_takes(busy_pace, pace, 0.0, 0.0, 0.0, near=False) for pace in others)


# A busy worker slower alone (slower_alone) at a group's tail: an idle worker that would run
# every root of the group not started yet as soon as the busy one runs the root (idle_tail)
# may take it one over its even share (within_share's ``over``; IDLE_COMBINE then places the
# reduction's later level). Bit 2: the group is then noted as paced (Placement._paced_groups:
# its consumers go by the soonest end, PACE_CONSUMERS). Bit 4: not where the busy worker's
# readers of the group are slower too (reads_slower: a process lagging throughout, the LAG_*
# rules' case). 0: slow43's. slow44. Bit 8: the tail take also where the busy worker is not
# slower alone (a reduction group's loads slow wherever they run: other workers ran slow ones
# too), ts counted alone; with IDLE_NEAR (alone, the next root followed the take's worker: 4 x
# 1 group 4x 5 / 3 / 2 / 2, 1.242x queuing's makespan, 1.091x its peak). slow45.
IDLE_TAIL = 15


def idle_tail(left: int, busy_pace, idle_pace) -> bool:
    """Is a root that would wait for a busy worker (``busy_pace``: its last two compute
    seconds at the root's group, newest first) the group's tail for an idle worker
    (``idle_pace``): would the idle worker run the ``left`` roots of the group not started
    yet (this one included) as soon as the busy one runs this one (within ``IDLE_TIE`` of
    a load), its shorter known sample against the idle one's longer? As
    :func:`leaves_slower`'s bit 2 for a worker clearly slower, read here below SLOWER, for
    an idle worker only (``IDLE_TAIL`` bit 1). Why: twin anomaly 2 x 1, every load of one
    worker 2.5x slower (bench/twin_slow_worker.py --mode worker): the fast worker idled
    1.30-2.73 s while the slow one ran the last group's three loads
    in series (the 2.5x of clearly_slower an exact tie): 1.083x queuing's makespan; taken
    (7 / 5), 1.015x at 0.971x its peak."""
    if not IDLE_TAIL & 1 or busy_pace is None or idle_pace is None or left < 1:
        return False
    busy = [x for x in busy_pace if x == x]
    idle = [x for x in idle_pace if x == x]
    # (within IDLE_TIE of the idle one's load: an exact tie, the loads 3x slower, goes to it)
    return bool(busy and idle) and left * max(idle) <= min(busy) + IDLE_TIE * max(idle)


def reads_slower(busy_read, idle_read) -> bool:
    """Are a busy worker's readers of a root group (``busy_read``: the compute seconds of its
    last ones, newest first; the anomaly's chunk-means) slower than an idle worker's
    (``idle_read``) by more than ``LAG`` times, the busy one's shorter against the idle one's
    longer, one sample each enough? Then the busy process lags throughout, not at its loads
    alone, and :func:`idle_tail`'s take (``IDLE_TAIL`` bit 4) is not made: twin anomaly
    3 x 1, every task of one worker 2x slower (--mode all), the take put the mean beside the
    idle worker's 5 loads, 1.154x queuing's peak (the lag not found yet at the take)."""
    busy = [x for x in busy_read or () if x == x]
    idle = [x for x in idle_read or () if x == x]
    return bool(busy and idle) and min(busy) > LAG * max(idle)


LAG = 1.25  # lags: times the other worker's pace, at a root group's loads and their readers


def lags(pace, other, read_pace, read_other) -> float:
    """How many times slower than another worker is a process lagging throughout, or 0.0?
    ``pace``, ``other``: the last two compute seconds of a root group's roots on the worker
    and on the other (as :func:`clearly_slower` reads them); ``read_pace``, ``read_other``:
    the same of the group's readers (the tasks taking a root's output on: the anomaly's
    chunk-means). Lagging when both of the worker's last two at each took more than
    ``LAG`` times the longer of the other's; its measure, the smaller of the two ratios
    (the slow one's shorter against the fast one's longer). Both are asked because each
    alone misleads: a reduction group whose loads are slow wherever they run, or slow
    loads on a worker computing at full speed, slow the loads only; there the tasks after
    the loads run as fast on either worker and must not be moved for it."""
    if pace is None or other is None or read_pace is None or read_other is None:
        return 0.0
    a, b = pace
    c, d = other
    e, f = read_pace
    g, h = read_other
    if b != b or d != d or f != f or h != h:
        return 0.0  # (not two of each known)
    slow, fast, rslow, rfast = min(a, b), max(c, d), min(e, f), max(g, h)
    if not (slow > LAG * fast and rslow > LAG * rfast) or fast <= 0 or rfast <= 0:
        return 0.0  # (a duration of 0: a clock too coarse to compare by)
    return min(slow / fast, rslow / rfast)


# lags holds only when it holds over each worker's last LAG_SAMPLES samples too, each side's
# most extreme LAG_TRIM dropped (lags_persist; Plugin._lag_seen). 2: main's (the pairs).
# Off: on a loaded LocalCluster 6 lost a real lag main found (9 of 11 runs against 10); 4
# answered as main in all 46 recorded runs; neither measured on quiet equal workers.
LAG_SAMPLES = 2
LAG_TRIM = 1


def lags_persist(pace, other, read_pace, read_other) -> bool:
    """Does a lag found by :func:`lags` (its pairs: each worker's last two) persist over
    the last ``LAG_SAMPLES`` samples of each (newest first: compute seconds of the group's
    roots on the worker and on the other, then of its readers)? Each side's
    ``LAG_TRIM`` most extreme dropped (the slow one's shortest, the fast one's longest),
    the slow one's next shortest must still take more than ``LAG`` times the fast one's
    next longest, at the roots and at the readers. Until every window holds
    ``2 * LAG_TRIM + 2`` samples, the pairs' answer stands (True). Why: on a LocalCluster
    two samples a worker scatter as much as a lag: equal workers (seed anomaly 2 x 1,
    quiet) were found lagging 1.45-2.42x in 3 of 6 runs (lead39-findings.txt), the scatter
    of one worker's samples was 1.5-6x at a load average of 30 (lag40-findings.txt); a
    lag that noise made holds in two samples, not in six. The twin's samples of a group on
    one worker are equal: its answers are the pairs'. Not the windows' extremes alone: a
    worker really 3x slower (reniced) at a load of 30 was then found in 1 of 3 runs, not
    3 of 3; nor each pair's own spread: 0 of 3."""
    if LAG_SAMPLES <= 2 or not LAG_TRIM:
        return True
    t = LAG_TRIM
    least = 2 * t + 2
    if len(pace) < least or len(other) < least or len(read_pace) < least \
            or len(read_other) < least:  # fmt: skip
        return True
    return sorted(pace)[t] > LAG * sorted(other)[-1 - t] \
        and sorted(read_pace)[t] > LAG * sorted(read_other)[-1 - t]  # fmt: skip


# A worker lagging (lags) more than LAG_ROOTS times, while the other does not, is clearly
# slower at its roots too (lags_clearly: Plugin._slower, as for clearly_slower). 0: never.
LAG_ROOTS = 2.4


def lags_clearly(lag: float, other_lag: float = 0.0) -> bool:
    """Is a worker lagging ``lag`` times (:func:`lags`; 0.0: not found lagging) clearly
    slower at a root group's roots than another (``other_lag``: 0.0 unless that one lags
    too), as :func:`clearly_slower` answers (a root then does not wait for it, and at the
    group's tail goes to the other: :func:`leaves_slower`)? When it lags more than
    ``LAG_ROOTS`` times, just below clearly_slower's ``SLOWER``: found slower at two
    groups (its loads and their readers), which a slow reduction group or slow loads
    alone never are (those keep SLOWER: one slow group must not move the balance), so a
    process lagging 2.5x counts (clearly_slower's "more than 2.5x" misses it). Why: twin
    anomaly 2 x 1, every task of one worker 2.5x slower (twin_slow_worker.py --mode all):
    the fast worker waited for the slow one's loads (6 / 6, the mean at 3.05 s against
    queuing's 1.95): 1.110x queuing's makespan over five namings with the stores moved
    (LAG_CONSUMERS); placed as any root, 8 / 4: 0.933x, peak 0.91x. Not lower: at 2.2-2.4x
    8 / 4 peaks 1.06-1.24x queuing's (whose split there is 7 / 5 or 8 / 4, holding less
    than tidegate's 8 / 4), while 6 / 6 with the stores moved is 0.91-1.03x its makespan
    (LAG_ROOTS 2.0 and 2.2 measured: bench/results/slow39-findings.txt)."""
    return bool(LAG_ROOTS) and lag > LAG_ROOTS and not other_lag


# A task that is not a root, placed on a worker found lagging (lags), goes to another
# holder of its inputs that would end it sooner at the measured paces (ends_sooner_elsewhere;
# Placement._off_lagging). 0: main's.
LAG_CONSUMERS = 1


def ends_sooner_elsewhere(wait: float, lag: float, other_wait: float, other_lag: float,
                          duration: float, comm: float, other_comm: float) -> bool:
    """Does a task that is not a root, placed on a lagging worker (``lag`` times slower:
    :func:`lags`), end sooner on another worker (``other_lag``: 1.0 unless it lags too)?
    ``wait``, ``other_wait``: each worker's queued work per thread (dask's occupancy over
    its threads: seconds at the cluster's average pace); ``duration``: the task's (dask's
    estimate); ``comm``, ``other_comm``: seconds to copy the inputs it lacks there (dask's
    comm cost). Each worker's work is stretched by its lag, the copies are not: dask's own
    objective (the soonest start) at the measured paces. Why: twin anomaly 2 x 1
    (bench/twin_slow_worker.py --mode all), every task of the second worker 2-4x slower:
    each store followed its load (its one input not read by many), so the worker that
    loaded half the data ran half the stores at half the pace: 2x 1.288x queuing's
    makespan (summed over the tests' five namings), 2.5x 1.514x, 3x 1.313x, 4x 1.185x."""
    if not LAG_CONSUMERS:
        return False
    return (other_wait + duration) * other_lag + other_comm < (wait + duration) * lag + comm


# A root does not queue behind the busy threads of a worker lagging throughout (lags) and
# found clearly slower than another (Placement._faster: OFF_SLOWER's bit 1 for such a
# worker alone). 0: main's.
LAG_LEAVES = 1


def leaves_lagging(in_flight: int, threads: int) -> bool:
    """Does a root on its way to a worker lagging throughout (:func:`lags`) and clearly
    slower than another running worker (:func:`clearly_slower` or :func:`lags_clearly`)
    go to that other worker when the lagging one's ``in_flight`` roots fill its
    ``threads`` (it would queue behind them)? Yes (switch ``LAG_LEAVES``): what kept
    :func:`leaves_slower`'s bit 1 off (the loads' stores follow them, 9 / 3 put 9 stores
    on the fast worker) does not hold here: a lagging worker's consumers are placed by
    pace (:func:`ends_sooner_elsewhere`). Why: twin anomaly 2 x 1, every task of one
    worker 3x slower (--mode all), the last group's second load queued behind the slow
    worker's first and the mean waited for both: over five namings 1.092 -> 1.016x
    queuing's makespan, 2.5x 0.933 -> 0.901x; peak 0.91 -> 1.00x queuing's (9 / 3, as
    queuing's split)."""
    return bool(LAG_LEAVES) and in_flight >= threads


# While a worker is found lagging (lags) and its consumers go by pace (LAG_CONSUMERS),
# SLOW_STEAL's lift of keeps_its_worker is withdrawn (steals_while_lagging). 1: kept.
LAG_STEAL = 0


def steals_while_lagging(lagging: bool) -> bool:
    """May work stealing move non-roots beside a slow worker (:func:`steals_beside_slower`)
    while a worker is found lagging throughout (``lagging``: :func:`lags`)? Not while
    LAG_CONSUMERS places the consumers by the workers' paces (switch ``LAG_STEAL`` 0):
    dask's stealing does not know them and undoes it, taking a store onto the idle
    lagging worker that then runs it 4x slower. Why: twin anomaly 2 x 1, every task of
    one worker 4x slower (--mode all), a store stolen onto the slow worker at the 3 s
    stealing tick ended the run 0.9 s after the fast worker: over five namings 1.145x ->
    1.000x queuing's makespan, 5x 1.222 -> 0.968x, 2.5x 0.992 -> 0.901x; 3x 1.016 either
    way."""
    return not lagging or bool(LAG_STEAL) or not LAG_CONSUMERS


def meets_further(meetings, dependents, dependencies, fanout: int = MEETING_FANOUT) -> bool:
    """Does the output of one of a root's meetings (``meetings``: :func:`_meetings`')
    meet other data again, in its one dependent with 2 to ``fanout`` inputs (rechunk-add:
    the merge of u's halves is added to v's merge; a tree reduction's combine is combined
    again)? Then the meeting's output is held until that further data is loaded too, so
    a root opening it commits its worker to all the roots it lacks: they count as in
    flight when it asks to start (``books.Books.place``'s ``commits``). A pair whose
    meeting ends the pipeline (vorticity's u and v: their task stores) does not: its
    data is used as soon as the pair is loaded."""
    for m, _ in meetings:
        ds = dependents(m)
        if len(ds) == 1:
            (m2,) = ds
            if 1 < len(dependencies(m2)) <= fanout:
                return True
    return False


def meeting_partners(
    task, dependents, dependencies, where, depth: int = 4, fanout: int = MEETING_FANOUT,
    lacks: set | None = None, shared: dict | None = None, constant=None,
    complete: set | None = None, nbytes=None, spread: list | None = None,
    plan: MeetingPlan | None = None, tops: dict | None = None,
) -> dict:
    """Where the data of root ``task`` meets other data: ``{worker: count}`` of the other
    inputs of the tasks its data meets, held or processing on each worker.

    The walk goes down through single-input chains (open -> read -> select) to the first
    tasks with several inputs, then up each other input's single-input chain to the first
    task held or processing. ``dependents(t)``/``dependencies(t)``: sequences;
    ``where(t)``: the workers holding or computing t (empty when neither). Fan-outs wider
    than ``fanout`` have no single meeting place and are skipped, on the way down and on
    the way up: an input read by many tasks (a grid, broadcast weights, a store handle) is
    copied to every worker that needs it, so where it is held says nothing about where
    this root's data should go (counted, it made every worker holding it a "partner", so
    roots passed the in-flight count and neighbours split). ``depth`` bounds each walk.
    Every single-input branch is followed, also past a meeting found on another branch:
    a load both subtracted from a mean and reduced into it (x - x.mean()) meets its
    neighbours in the mean's first combine; stopping at the subtraction (whose other input,
    the mean, is shared by all) placed neighbours apart and moved 3x the bytes.

    ``lacks``, when given, gets the roots these meetings still lack besides this one: the
    first tasks of the other inputs' chains where none of the chain is held or processing
    and it starts at a root (a task with no inputs, or reading a store handle). A root
    that opens a meeting obliges its worker to load those too before any of the meeting's
    data can be freed (:class:`tidegate.books.Books` reserves them). A set: a root lacked
    by several meetings (rechunk: a load split into three merges) is one root.

    ``shared``, when given, gets ``{worker: count}`` of the partners found through an input
    of a meeting that other tasks read too (up to ``fanout`` of them): part of the scores,
    but data that any worker using it gets a copy of (see :func:`place_root`).

    ``constant(t)``, when given: t is data embedded in the graph (a DataNode), which does
    not keep a task from being a handle (see :func:`_chain`).

    ``complete``, when given, gets the workers where this root "completes a consumer" and
    may pass the in-flight count (:func:`may_admit_root`), one rule for both bodies: a
    partner there that no other task reads (its data waits for this root's), or a meeting
    with every other input there (inputs read by more than ``fanout`` tasks and constants
    aside; at least one counted). A partner that other tasks read too (a grid of a short
    series) is no reason alone: the core counted any partner, so every open of a step
    passed the count on the grid's worker though the step's other read was nowhere; the
    plugin counted only unshared partners, so a stencil's input read by two consumers
    never let its neighbour complete one. (Requiring every meeting complete, also where
    the partner is unshared, moved anomaly's plugin trace at 20x4 1 GB/s: peak 4.75 ->
    4.94 GB, makespan 19.3 -> 20.8 s, bytes moved 20.9 -> 29.5 GB.) But not for a root
    whose data feeds more than ``MEETING_SPREAD`` meetings: a stencil's block waits for its
    9 overlaps, each for 8 other blocks, and a held halo of a neighbour let every root pass
    (twin stencil 20x4: 1.39x queuing's peak; only complete meetings count: 0.72x).
    ``spread``, when given with ``complete``, gets True appended for such a root (see
    :func:`may_load_beside`).

    ``nbytes(t)``, when given: t's known output size (NaN or < 0: unknown), for
    :func:`is_handle`'s test on the way up.

    ``plan``, when given: :func:`meeting_plan` of ``task`` with these ``depth``,
    ``fanout`` and ``constant``, made while the graph was as it is now.

    ``tops``, when given with ``complete``: ``{worker: [tasks]}``, the held or processing
    tasks whose meetings this root completes on each worker of ``complete`` (the first
    found up each other input's chain), each as ``(task, the tasks between it and the
    meeting)``, for :func:`frees_slot`.
    """
    if plan is None:
        plan = meeting_plan(task, dependents, dependencies, depth, fanout, constant)
    scores: dict = {}
    # Spread over many meetings, this root's data waits for all of them (see MEETING_SPREAD).
    spread_ = complete is not None and plan.spread
    if spread_ and spread is not None:
        spread.append(True)
    mine = tops is not None and complete is not None
    for inputs in plan.inputs:
        meet = None  # with complete: the workers holding every other input of m so far
        found_tops = [] if mine else None  # (tops: the held tasks of m's other inputs)
        for chain_tops, end, handle, inner, others, bar in inputs:
            if inner is None:  # (_top inlined: the chains of nearly every graph)
                held, r = (), end
                for c in chain_tops:
                    found = where(c)
                    if found:
                        held, r = found, None
                        break
                else:
                    if handle is not None and _sized_as_handle(handle, nbytes):
                        r = chain_tops[-1]
            else:
                held, r = _top(chain_tops, end, handle, inner, where, nbytes)
                if mine and held:
                    c = _top_task(chain_tops, inner, where, nbytes)
            if r is task:
                continue  # t's chain starts at this root: no other data
            if mine and held:
                top = _below(chain_tops, c)
            if held:  # (then r is None)
                if others == 2 and _sized_as_handle(chain_tops[0], nbytes):
                    pass  # a handle, copied to every worker reading it: no partner
                else:
                    for w in held:
                        scores[w] = scores.get(w, 0) + 1
                    if others and shared is not None:  # read by others too
                        for w in held:
                            shared[w] = shared.get(w, 0) + 1
                if not others and not spread_ and complete is not None:
                    complete.update(held)  # data that waits for this root's alone
                    if mine:
                        for w in held:
                            tops.setdefault(w, []).append(top)
                if mine and bar:
                    found_tops.append((top, held))
            elif r is not None and lacks is not None:
                lacks.add(r)
            # Once no worker holds every input so far, m completes nowhere: no more tests.
            # Inputs read by more than fanout tasks (copied wherever used) and constants
            # (embedded data) are no bar.
            if bar and complete is not None and (meet is None or meet):
                meet = set(held) if meet is None else meet.intersection(held)
        if meet:
            complete.update(meet)
            if mine:
                for top, held in found_tops:
                    for w in held:
                        if w in meet:
                            tops.setdefault(w, []).append(top)
    return scores


def partners_on_one(task, entries, w, where, nbytes=None):
    """:func:`meeting_partners`' walk of ``entries`` (a plan's inputs' entries, every
    meeting's together) when its answer is worker ``w`` alone: ``(count, lacks, tops)``, the
    partners' count on w, the roots lacked (their tasks) and the tops completing there
    (``meeting_partners``' ``tops[w]``, in another order, found again where two meetings
    complete); None when an input is read by other tasks (``shared``), has a handle read
    by 8-16 tasks inside its chain (``_top``'s case), is held or processing on another
    worker than w, or none is found on w. With no input shared or found elsewhere,
    ``meeting_partners`` gives ``{w: count}``, ``complete`` {w} (an unshared input found
    there: its data waits for task's alone), no ``shared`` and these lacks and tops (each
    found input's top; a complete meeting's adds the same again). Read by a root's meetings
    whose other inputs are on its opener's worker or nowhere: a tree reduction's group of
    4 (anomaly), a pair's second root (rechunk-add's a-side)."""
    lacks: set = set()
    tops: list = []
    count = 0
    for chain_tops, end, handle, inner, others, _ in entries:
        if inner is not None or others:
            return None
        for i, held in enumerate(map(where, chain_tops)):
            if held:
                break
        else:
            r = chain_tops[-1] if handle is not None and _sized_as_handle(handle, nbytes) \
                else end  # fmt: skip
            if r is not None and r is not task:
                lacks.add(r)
            continue
        if len(held) != 1 or held[0] != w:
            return None
        count += 1
        tops.append((chain_tops[i], chain_tops[:i]))  # (_below's, without its search)
    if not count:
        return None
    return count, lacks, tops


def mirrored_inputs(plan: MeetingPlan, dependents, dependencies,
                    fanout: int = MEETING_FANOUT, constant=None,
                    chains: dict | None = None, depth: int = 4) -> tuple | None:
    """The entries of the plans of the roots an opener's ``plan`` lacks, as the opener's
    plan mirrors them: ``(meeting, {id(t): (t, entries, input)})`` for each task t of the
    chains of the one ``meeting`` of ``plan`` with entries (its other meetings read only
    inputs read by many): that meeting's entries but the one of t's chain (from
    ``input``, an input of the meeting), with the opener's own input's chain (its ``via``)
    instead; a task of two chains: ``(t, None, None)``. None when plan is not of that form
    (or ``deep``: its chains are walked deeper than a sibling's). A root's plan is that
    when it and the opener meet in that meeting alone and its other meetings read only
    inputs read by many, as the opener's do (a tree reduction's group of 4: anomaly's
    loads, each also subtracted from the mean): :func:`mirror_holds` checks it from the
    root's own meetings. Cost: once per opener, its lacked roots then read it.

    Walked in one pass (session 41, cpu41; session 40's walk is tests/plan_reference.py's,
    the reference test_mirror_fast compares): the opener's own chain walked by
    :func:`_chain_fast`, kept chains read in place (``_chain_of`` without its call), each
    entry's first task read once."""
    if plan.deep:
        return None
    ins = via = meeting = None
    inputs = iter(plan.inputs)
    for m, v in plan.meetings:
        if len(dependencies(m)) > fanout:
            continue  # (no entry: _meeting_plan's skip)
        entries = next(inputs)
        if not entries:
            continue
        if ins is not None:
            return None
        ins, via, meeting = entries, v, m
    if ins is None:
        return None
    n = len(dependents(via))
    if n > fanout:
        return None
    kept = None if chains is None else chains.get(id(via))
    if kept is not None and kept[0] is via:
        own = kept[1]
    else:
        own = _chain_fast(via, dependents, dependencies, depth, fanout, constant)
        if chains is not None:
            chains[id(via)] = (via, own)
    own = (*own, n > 1, constant is None or not constant(via))
    out: dict = {}
    for i, e in enumerate(ins):
        rest = ins[:i] + ins[i + 1:] + (own,)
        tops = e[0]
        top = tops[0]
        for c in tops:
            k = id(c)
            out[k] = (c, None, None) if k in out else (c, rest, top)
    return meeting, out


def mirror_holds(task, meeting, via, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, group=None,
                 unique: bool = False) -> tuple | None:
    """Is root ``task``'s own :func:`meeting_plan` (``depth``, ``fanout``, ``group`` as
    the body asks it) its opener's mirrored (:func:`mirrored_inputs`: ``meeting``, where
    task's chain comes in through ``via``)? ``(further, widest)`` of task's own plan
    (:attr:`MeetingPlan.further`, its widest meeting's inputs) when it is, and the plan is
    none of the rarer kinds (spread, wide, gather, deep); else None. A proof from task's
    own meetings (:func:`_meetings`), without its chains: its plan's entries are those of
    its meetings with at most ``fanout`` inputs, each input but its ``via`` read by at
    most ``fanout`` tasks giving one; so they are the mirror's when ``(meeting, via)`` is
    one of its meetings and every other gives none (each input read by more, a mean, or
    its ``via``): then ``meeting``'s entries are the chains of its inputs but ``via``,
    which is what the mirror lists (the opener's entries, ``via``'s chain out, the
    opener's own in), as a multiset (partners_on_one's answer is order-free). Not deep:
    the opener's own chain is an entry without task (else task came into ``meeting``
    twice, found below). Not wide: ``meeting`` has at most ``fanout`` inputs. Asked of a
    root read by fewer than ``SHARED_FANOUT`` tasks only (a handle's plan is the body's
    to make). Cost: the walk down to task's meetings and one look at each input of its
    other meetings, no chain (twin anomaly: about a third of the plan's).

    Walked in one pass (session 41, cpu41; session 40's walk is tests/plan_reference.py's):
    the walk to task's meetings (:func:`_meetings`, inline) tests each meeting as it is
    found (an unlisted entry ends it at once) and answers :func:`meets_further` on the way
    (each meeting's dependents read once, until one meets further); :func:`gathers_only`
    asked only when no meeting has a dependent (else it is False). ``unique``: as
    :func:`meeting_plan`'s (an input compared with its via by identity alone)."""
    if len(dependents(task)) >= SHARED_FANOUT:
        return None
    meets: list = []
    found = further = dependent = False
    inputs = widest = 0
    frontier = [task]
    for _ in range(depth):
        nxt = []
        for t in frontier:
            ds = dependents(t)
            if len(ds) > fanout:
                continue
            for d in ds:
                ins = dependencies(d)
                n = len(ins)
                if n <= 1:
                    nxt.append(d)
                    continue
                meets.append((d, t))
                if not further:
                    after = dependents(d)
                    if after:
                        dependent = True
                        if len(after) == 1:
                            (m2,) = after
                            if 1 < len(dependencies(m2)) <= fanout:
                                further = True
                if n > widest:
                    widest = n
                if n > fanout:
                    continue  # (no entry)
                inputs += 1
                if d is meeting and t is via:
                    found = True
                    continue
                if unique:
                    for u in ins:
                        if u is not t and len(dependents(u)) <= fanout:
                            return None  # an entry the mirror does not list
                else:
                    for u in ins:
                        if not (u is t or u == t) and len(dependents(u)) <= fanout:
                            return None
        if not nxt:
            break
        frontier = nxt
    if not found or inputs > MEETING_SPREAD:
        return None
    if not dependent and gathers_only(meets, dependents, dependencies, group):
        return None
    return further, widest


def further_partners(
    task, dependents, dependencies, where, depth: int = 4, fanout: int = MEETING_FANOUT,
    constant=None, nbytes=None,
) -> dict:
    """Partners one meeting further, for a root with none at its first (nothing there is
    placed yet): where that meeting's output alone meets another (rechunk: the merge of
    u's halves added to the merge of v's). The other side is found where it is held, else
    up through its own meeting's inputs. A hint, not a reason to wait: taken when that
    worker admits (waiting for it serialised a tree reduction's loads onto few workers:
    twin anomaly 100x4, 1.19x queuing's time). Twin rechunk-add, 1,000 steps of 190 MB
    (bench/twin_workloads.py): moved 141 GB against queuing's 165 at 20x4, 45 against 186
    at 100x4."""
    return further_meeting(task, dependents, dependencies, where, depth, fanout, constant,
                           nbytes)[0]


def _further_meetings(meetings, dependents, dependencies, fanout):
    """``(meeting, further meeting, its inputs)`` for each further meeting of a root's
    ``meetings``: the one dependent of a meeting, reading 2 to ``fanout`` inputs (shared by
    :func:`_further_inputs` and :func:`gathers_further`)."""
    for m, _ in meetings:
        ds = dependents(m)
        if len(ds) != 1:
            continue
        (m2,) = ds
        inputs = dependencies(m2)
        if 1 < len(inputs) <= fanout:
            yield m, m2, inputs


def _further_inputs(meetings, dependents, dependencies, fanout):
    """The other inputs ``t`` of each further meeting of a root's ``meetings``
    (:func:`_further_meetings`; the walk shared by :func:`further_meeting`,
    :func:`further_plan` and :func:`further_tasks`)."""
    for m, _, inputs in _further_meetings(meetings, dependents, dependencies, fanout):
        for t in inputs:
            if not (t is m or t == m):  # (identity first, as in meeting_partners)
                yield t


def further_meeting(
    task, dependents, dependencies, where, depth: int = 4, fanout: int = MEETING_FANOUT,
    constant=None, nbytes=None, meetings: list | None = None, chains: dict | None = None,
    group=None,
) -> tuple[dict, bool]:
    """``(further_partners, whole)``: ``whole`` when every other input of each further
    meeting was found somewhere, so that this root's side is all that meeting still
    lacks (rechunk-add: the other side's loads are running). Such a root may go past a
    worker's in-flight count like a root that completes a consumer; a part of a wider
    meeting (a tree reduction's next level, most of whose inputs are nowhere yet) may not:
    piling those onto the first subtrees' workers raised anomaly 100x4's peak 1.24x
    (with ``whole``: 1.05x). ``meetings``, ``chains``, when given: ``task``'s
    :attr:`MeetingPlan.meetings`, the chains kept (see :func:`meeting_plan`). ``group``:
    as :func:`further_plan`'s."""
    scores: dict = {}
    whole = None
    if meetings is None:
        meetings = _meetings(task, dependents, dependencies, depth, fanout)
    if group is not None and gathers_further(meetings, dependents, dependencies, fanout,
                                             group):
        return scores, False
    for t in _further_inputs(meetings, dependents, dependencies, fanout):
        if len(dependents(t)) > fanout:
            whole = False  # a store handle, a grid: no meeting place
            continue
        if _count(where(t), scores):
            whole = whole is not False
            continue
        before = sum(scores.values())
        ins = dependencies(t)
        if len(ins) <= fanout:
            for u in ins:
                chain = _chain_of(u, dependents, dependencies, depth, fanout, constant,
                                  chains)
                _count(_top(*chain, where, nbytes)[0], scores)
        found = sum(scores.values()) > before
        whole = found and whole is not False
    return scores, bool(whole) and bool(scores)


def further_plan(meetings, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, constant=None, chains: dict | None = None,
                 unique: bool = False, group=None) -> tuple:
    """The structural part of :func:`further_meeting` (same arguments; ``meetings``
    required): per other input ``t`` of each further meeting, ``(t, chains of t's inputs)``
    (:func:`_chain`; none when t reads more than ``fanout``), or None for an input read
    by more than ``fanout`` tasks (no meeting place). It holds while the graph does, as a
    :class:`MeetingPlan`; :func:`further_by_plan` is the live part. Why: a root parked on
    its further meeting's busy worker is placed again at about every task end there
    (twin rechunk-add 100x4), each walk reading the graph's edges anew.

    ``chains``, when given, also keeps each further meeting's entries, every input's (the
    root's own meeting's too), under ``-id(meeting)`` (ids are positive: no chain's key),
    ``(meeting, ((t, entry), ...))`` in its inputs' order, on the chains' terms (they hold
    while the graph does): a root's plan is the entries of its further meetings but its
    own meetings'. Why: the roots whose meetings end in one further meeting built the same
    entries each (anomaly's openers of the four groups under one next-level combine: each
    the other three groups', 12 chains; cpu33a-findings.txt).

    ``unique``: as :func:`meeting_plan`'s (each meeting's own input passed by identity
    alone). With ``chains``, the parts are built by :func:`_further_part`. ``group(t)``,
    when given: no further meeting where each is a final gather (:func:`gathers_further`)."""
    if group is not None and gathers_further(meetings, dependents, dependencies, fanout,
                                             group):
        return ()
    if chains is None:
        return tuple(_further_entry(t, dependents, dependencies, depth, fanout, constant,
                                    None)
                     for t in _further_inputs(meetings, dependents, dependencies, fanout))
    # (_further_inputs' walk inline, with the look-up of each part kept: a generator's
    # steps and a call cost more, and most asks find every part kept)
    out: list = []
    for m, _ in meetings:
        ds = dependents(m)
        if len(ds) != 1:
            continue
        (m2,) = ds
        inputs = dependencies(m2)
        if not 1 < len(inputs) <= fanout:
            continue
        part = chains.get(-id(m2))
        if part is None or part[0] is not m2:
            part = _further_part(m2, inputs, dependents, dependencies, depth, fanout,
                                 constant, chains)
        if unique:
            for t, entry in part[1]:
                if t is not m:
                    out.append(entry)
        else:
            for t, entry in part[1]:
                if not (t is m or t == m):
                    out.append(entry)
    return tuple(out)


def gathers_further(meetings, dependents, dependencies, fanout, group,
                    always: bool = False) -> bool:
    """:data:`FURTHER_GATHER`: is every further meeting of a root's ``meetings`` (the one
    dependent of a meeting, reading 2 to ``fanout`` inputs: :func:`_further_meetings`) a
    final gather of one collection's pieces (:func:`gathers_only`: no dependents, more than
    two inputs of one task group: the ``finalize`` of a ``da.store``'s per-chunk stores)?
    Then it has no further meeting: the gather's inputs are tiny and end on its one worker
    whatever the placement, so its hint co-locates nothing, and its ``whole`` let a root
    pass its worker's count with nothing completed. Why: seed slice-add of 16 steps on
    4 x 2 (4 pairs of 32 MB loads, each pair met in its store): the first array's last
    load went where the others of its array were, past that worker's count, and its pair
    followed it: two pairs on one worker beside an idle one (1.25-1.5x queuing's peak;
    small46-findings.txt). Not where another further meeting is there too (anomaly: a
    load's tree reduction and its store, whose finalize's hint keeps the loads of one
    reduction together: without it, twin 6-12 steps, up to 1.53x queuing's time).
    FURTHER_GATHER 2: the walks' answer is False (their hint stays, found as in 0);
    ``always``: the answer 1 gives (the body then holds the hint to the workers' share of
    the gather, ``Placement._gather_share``)."""
    if not FURTHER_GATHER or FURTHER_GATHER == 2 and not always:
        return False
    found = False
    for _, m2, _ in _further_meetings(meetings, dependents, dependencies, fanout):
        if not gathers_only(((m2, None),), dependents, dependencies, group):
            return False
        found = True
    return found


def _further_entry(t, dependents, dependencies, depth, fanout, constant, chains):
    """:func:`further_plan`'s entry for further input t: None when t is read by more
    than ``fanout`` tasks, else ``(t, chains of t's inputs)`` (none when t reads more)."""
    if len(dependents(t)) > fanout:
        return None
    ins = dependencies(t)
    return (t, tuple(_chain_of(u, dependents, dependencies, depth, fanout, constant, chains)
                     for u in ins) if len(ins) <= fanout else ())


def _further_part(m2, inputs, dependents, dependencies, depth, fanout, constant,
                  chains) -> tuple:
    """:func:`further_plan`'s kept part of further meeting ``m2``: the
    entries :func:`_further_entry` gives, each built with the kept chains read in place and
    a loop for a generator; kept under ``-id(m2)``."""
    entries = []
    for t in inputs:
        if len(dependents(t)) > fanout:
            entries.append((t, None))
            continue
        ins = dependencies(t)
        if len(ins) > fanout:
            entries.append((t, (t, ())))
            continue
        found = []
        for u in ins:
            kept = chains.get(id(u))
            if kept is not None and kept[0] is u:
                found.append(kept[1])
            else:
                chain = _chain_fast(u, dependents, dependencies, depth, fanout, constant)
                chains[id(u)] = (u, chain)
                found.append(chain)
        entries.append((t, (t, tuple(found))))
    part = chains[-id(m2)] = (m2, tuple(entries))
    return part


def further_by_plan(plan: tuple, where, nbytes=None) -> tuple[dict, bool]:
    """:func:`further_meeting`'s answer from its :func:`further_plan`: where each input
    is now."""
    scores: dict = {}
    whole = None
    for entry in plan:
        if entry is None:
            whole = False  # a store handle, a grid: no meeting place
            continue
        t, chains = entry
        found = where(t)
        if found:
            for w in found:
                scores[w] = scores.get(w, 0) + 1
            whole = whole is not False
            continue
        for tops, end, handle, inner in chains:
            if inner is None:  # (_top's first part inlined: its workers only, the first
                # top held or processing somewhere, asked in order up to it, in C)
                held = next(filter(None, map(where, tops)), None)
                if held is None:
                    continue
            else:
                held = _top(tops, end, handle, inner, where, nbytes)[0]
                if not held:
                    continue
            found = True
            for w in held:
                scores[w] = scores.get(w, 0) + 1
        whole = bool(found) and whole is not False
    return scores, bool(whole) and bool(scores)


def further_plan_tasks(plan: tuple) -> tuple[list, list]:
    """:func:`further_tasks` from the meetings' :func:`further_plan` (the same lists)."""
    placed: list = []
    sized: list = []
    for entry in plan:
        if entry is None:
            continue
        t, chains = entry
        placed.append(t)
        for tops, _, handle, inner in chains:
            placed.extend(tops)
            if handle is not None:
                sized.append(handle)
            if inner is not None:
                sized.extend(tops[i] for i in inner)
    return placed, sized


def walked_tasks(plan: MeetingPlan) -> tuple[list, list]:
    """``(placed, sized)``: the tasks whose place (``where``) and whose size
    :func:`meeting_partners` may read with ``plan`` (the handles it tests). Its answer
    holds while none of them moves and each size is known: a body may keep it until
    then. Structural: it holds as long as ``plan`` does."""
    placed: list = []
    sized: list = []
    for inputs in plan.inputs:
        for tops, _, handle, inner, others, _ in inputs:
            placed.extend(tops)
            if handle is not None:
                sized.append(handle)
            if others == 2:  # (a handle by structure: no partner while handle-sized)
                sized.append(tops[0])
            if inner is not None:
                sized.extend(tops[i] for i in inner)
    return placed, sized


def further_tasks(meetings, dependents, dependencies, depth: int = 4,
                  fanout: int = MEETING_FANOUT, constant=None,
                  chains: dict | None = None, group=None) -> tuple[list, list]:
    """:func:`walked_tasks` for :func:`further_meeting` (same arguments; with ``group``,
    none where every further meeting is a final gather, as :func:`further_plan`)."""
    placed: list = []
    sized: list = []
    if group is not None and gathers_further(meetings, dependents, dependencies, fanout,
                                             group):
        return placed, sized
    for t in _further_inputs(meetings, dependents, dependencies, fanout):
        if len(dependents(t)) > fanout:
            continue
        placed.append(t)
        ins = dependencies(t)
        if len(ins) <= fanout:
            for u in ins:
                tops, _, handle, inner = _chain_of(u, dependents, dependencies, depth,
                                                   fanout, constant, chains)
                placed.extend(tops)
                if handle is not None:
                    sized.append(handle)
                if inner is not None:
                    sized.extend(tops[i] for i in inner)
    return placed, sized


def _meetings(task, dependents, dependencies, depth, fanout) -> list:
    """``[(meeting, via)]``: the first tasks with several inputs down each single-input
    branch from ``task``."""
    meets = []
    frontier = [task]
    for _ in range(depth):
        nxt = []
        for t in frontier:
            ds = dependents(t)
            if len(ds) > fanout:
                continue
            for d in ds:
                if len(dependencies(d)) > 1:
                    meets.append((d, t))
                else:
                    nxt.append(d)
        if not nxt:
            break
        frontier = nxt
    return meets


def _count(found, scores) -> bool:
    """Add one to each worker in ``found`` (where a task is held or processing)."""
    for w in found:
        scores[w] = scores.get(w, 0) + 1
    return bool(found)


def _chain_of(t, dependents, dependencies, depth, fanout, constant, chains) -> tuple:
    """:func:`_chain` of t, from ``chains`` (``{id(t): (t, chain)}``, or None) if kept
    there, else walked (and kept)."""
    kept = None if chains is None else chains.get(id(t))
    if kept is not None and kept[0] is t:
        return kept[1]
    chain = _chain(t, dependents, dependencies, depth, fanout, constant)
    if chains is not None:
        chains[id(t)] = (t, chain)
    return chain


def _chain(t, dependents, dependencies, depth, fanout, constant=None) -> tuple:
    """The structural part of a walk up t's single-input chain (:func:`_top` is the live
    part, where its tasks are now): ``(tops, end, handle, inner)``.

    ``tops``: t's single-input chain upwards, the tasks whose workers count if one is
    held or processing, in order; ``end``: the root when none is (a task with no inputs),
    or None (a task with several inputs, a fan-out wider than ``fanout``, ``depth`` steps
    without either). Handles to test by their size (:func:`_sized_as_handle`), each a
    task read by ``SHARED_FANOUT`` or more without data inputs: then the task reading it
    is the root. ``handle``: the task past the last of ``tops`` (read by more than
    ``fanout``), or None; ``inner``: None, or the indices i where ``tops[i]`` is one,
    tested before its workers (rare: a store read by 8-16 loads)."""
    tops: list = []
    inner = handle = None
    end = None
    first = 0
    for step in range(depth):
        n = len(dependents(t))
        if not step:
            first = n
        if step and n >= SHARED_FANOUT and _no_data(t, dependencies, constant):
            # A handle (a store read by 8-16 loads: a short series), so the task below is
            # a root: where the handle is held says nothing. Counted, every load had the
            # handle's worker as partner: the zarr anomaly at 2x1 (12 chunks) ran every
            # load on one worker (twin: peak 608 MB against queuing's 416).
            if n > fanout:
                handle = t
            else:
                inner = (inner or ()) + (len(tops),)
        if n > fanout:  # shared by many: no meeting place
            break
        tops.append(t)
        ins = dependencies(t)
        if len(ins) != 1:
            end = None if ins else t
            if not ins and step and n < SHARED_FANOUT and _constant_handle(
                    t, constant, first if step > 1 else 1):
                inner = (inner or ()) + (len(tops) - 1,)
            break
        (t,) = ins  # its one input, whatever the sequence type (one unpack, no calls)
    return tuple(tops), end, handle, inner


def _chain_fast(t, dependents, dependencies, depth, fanout, constant=None) -> tuple:
    """:func:`_chain`'s chain in fewer steps (the plans' walks): its first step, where no
    task is a handle (a handle is read past the first), taken before the loop; a handle
    ends the walk at once (past it, ``n > fanout`` ended it: the same chain);
    :func:`_no_data` inline, its inputs read once for both."""
    first = len(dependents(t))
    if depth <= 0 or first > fanout:
        return (), None, None, None
    ins = dependencies(t)
    if len(ins) != 1:
        return (t,), None if ins else t, None, None
    tops = [t]
    (t,) = ins
    inner = handle = end = None
    for _ in range(depth - 1):
        n = len(dependents(t))
        if n >= SHARED_FANOUT:
            ins = dependencies(t)
            if not ins or (constant is not None and all(map(constant, ins))):  # (_no_data)
                if n > fanout:
                    handle = t
                    break
                inner = (inner or ()) + (len(tops),)
            elif n > fanout:
                break
        elif n > fanout:
            break
        else:
            ins = dependencies(t)
        tops.append(t)
        if len(ins) != 1:
            end = None if ins else t
            if not ins and n < SHARED_FANOUT and _constant_handle(
                    t, constant, first if len(tops) > 2 else 1):
                inner = (inner or ()) + (len(tops) - 1,)
            break
        (t,) = ins
    return tuple(tops), end, handle, inner


def _constant_handle(t, constant, first: int = 1) -> bool:
    """Does a chain's top t, a task with no inputs read by fewer than SHARED_FANOUT
    tasks, end the chain below it (``CONSTANT_HANDLES``): is it a constant, whose readers
    are roots? ``first``: the readers of the chain's first task where t is two or more
    steps above it, else 1 (bit 4: not past a shared first task). Its size is tested
    where the chain is read (:func:`_top`, as an inner handle's). Asked once per chain,
    at its end."""
    if CONSTANT_HANDLES & 4 and first > 1:
        return False
    return bool(CONSTANT_HANDLES & 1) and constant is not None and bool(constant(t))


def _top(tops, end, handle, inner, where, nbytes) -> tuple:
    """Up a chain (:func:`_chain`) to the first task held or processing: ``(its workers,
    None)``. When none is: ``((), root)`` if the chain starts at a root (a task with no
    inputs, or whose one input is a handle, :func:`is_handle`), still to be placed; else
    ``((), None)``."""
    for i, t in enumerate(tops):
        if inner is not None and i in inner and _sized_as_handle(t, nbytes):
            return (), tops[i - 1]
        held = where(t)
        if held:
            return held, None
    if handle is not None and _sized_as_handle(handle, nbytes):
        return (), tops[-1]
    return (), end


def _top_task(tops, inner, where, nbytes):
    """The task :func:`_top` found held or processing (it found one): for
    :func:`meeting_partners`' ``tops``."""
    for i, t in enumerate(tops):
        if inner is not None and i in inner and _sized_as_handle(t, nbytes):
            return None
        if where(t):
            return t
    return None


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


def _below(chain_tops, c):
    """``(c, the tasks of its chain between it and the meeting)``: ``chain_tops`` lists
    a chain from the meeting's input up (:func:`meeting_partners`' ``tops``)."""
    for i, t in enumerate(chain_tops):
        if t is c:
            return c, tuple(chain_tops[:i])
    return None, ()


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


def reduces(returned: float, size: float, keep: float) -> bool:
    """:func:`frees_slot`'s ``reduces`` in every body: has a task kept less than ``keep``
    (``Policy.chain_keep``) of the ``size`` bytes it reads, ``returned`` being what its
    group returned on average so far (NaN unknown: no)? :func:`keeps_data`'s test turned
    round, for a task still to run."""
    return returned < keep * size


def _sized_as_handle(t, nbytes) -> bool:
    """:func:`is_handle` for t, already found read by ``SHARED_FANOUT`` or more tasks
    without data inputs (or a constant read by fewer, ``CONSTANT_HANDLES``): unless its
    size (``nbytes(t)``; NaN or < 0 unknown) is known to reach ``HANDLE_MAX_BYTES``.
    (is_handle's test, for one number without numpy: asked at each placement of a root
    whose meetings read such a chain.)"""
    return nbytes is None or not nbytes(t) >= HANDLE_MAX_BYTES


def _no_data(t, dependencies, constant) -> bool:
    """Has t no inputs besides constants (``h = open(path)``, path a DataNode), so that
    read by many it is a handle unless its size says otherwise (:func:`is_handle`)?
    Asked only of a task read by many, never on a walk's every step."""
    ins = dependencies(t)
    return not ins or (constant is not None and all(map(constant, ins)))


def format_bytes(n: float) -> str:
    """Bytes for a message, in binary units (``9.54 MiB``)."""
    for unit in ("B", "kiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.2f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return str(n)


def footprint_refused(budget: float, footprint: float, task, what: str = "chunk") -> str | None:
    """What to tell the user when a memory budget cannot hold one task's own footprint
    (``what``: ``"chunk"`` from array metadata, ``"result"`` measured), or None when it
    can. The thread runtime's core raises it before any task runs (its footprints from
    chunk metadata, :func:`largest_footprint`); the dask plugin, which learns sizes only
    as tasks finish, logs it once a root's result alone exceeds a worker's budget: such a
    root is admitted only where nothing else runs (the progress rule), one at a time, and
    the budget throttles the run without holding anything."""
    if not footprint > budget:
        return None
    return (f"memory_limit of {format_bytes(budget)} cannot hold task {task!r}: its {what} "
            f"alone is {format_bytes(footprint)}; raise memory_limit or use smaller chunks")


def largest_footprint(size) -> tuple[int, float]:
    """The task with the largest known size: ``(task, bytes)``, or ``(-1, 0.0)``.

    Sizes known before running come from array chunk metadata: the chunk a task loads or
    computes passes through it even where its output is small (a store, a fused
    load-and-reduce), so each is a lower bound on that task's footprint. They are not
    summed over inputs: an input's chunk may have been reduced on the way.
    """
    known = np.nan_to_num(np.asarray(size, dtype=float), nan=0.0)
    if not len(known):
        return -1, 0.0
    i = int(np.argmax(known))
    return i, float(known[i])


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
