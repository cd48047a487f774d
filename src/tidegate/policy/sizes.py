"""What a task's output weighs: data or not, joins of pieces, inputs not yet run; what to
tell a user whose budget cannot hold one task."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .roots import HANDLE_MAX_BYTES


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
