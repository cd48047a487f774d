"""Which tasks are roots (by structure, shared handles, targets) and how many a worker
may run at once (:class:`Policy`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

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
