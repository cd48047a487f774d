"""Slow and lagging workers: paces compared, and where roots and consumers go instead."""

from __future__ import annotations

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
# or while a reader of its shared input moved is copying its input (consumers._moved_with):
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
