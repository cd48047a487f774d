"""Roots whose data feeds several meetings (stencils, overlaps, pairs of arrays): when one
may load beside the others, and the caps, regions and waves that bound them."""

from __future__ import annotations

import math

from .pace import within_share

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
