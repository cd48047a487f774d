"""The decisions, as pure code over small views of state. No I/O, no threads, no clock.

The same functions run in the thread runtime, the simulator and inside a dask.distributed
scheduler, so they take plain numbers and arrays, never a runtime's objects. One module per
concern, read bottom up:

- :mod:`.roots`: which tasks are roots, and :class:`Policy` (how many run at once);
- :mod:`.sizes`: what an output weighs (data or not, joins, inputs not yet run);
- :mod:`.place`: which worker a root or a consumer goes to; what to spill;
- :mod:`.pace`: slow and lagging workers;
- :mod:`.spread`: roots whose data feeds several meetings (stencils, pairs): caps, regions;
- :mod:`.meetings`, :mod:`.partners`, :mod:`.further`: the graph walks from a root to where
  its data meets other data, the roots it meets there, and the meeting beyond;
- :mod:`.admit`: when a worker may take another root;
- :mod:`.broadcast`: copies of a widely shared input, holder to holder.

Every name is re-exported here, and the bodies use them as ``policy.NAME``. A rule's switch
(a module constant such as ``policy.SPREAD_FANOUT``) is read at call time; set on this
package (``policy.X = v``, pytest's monkeypatch, bench/ab_twin.py's ``--switch``) it is set in
every part that reads it, as when the policy was one module.
"""

from __future__ import annotations

import sys
import types

from . import roots, sizes, place, pace, spread, meetings, partners, further, admit, broadcast
from .roots import (
    POLICIES, SHARED_FANOUT, CONSTANT_HANDLES, HANDLE_MAX_BYTES, MEETING_FANOUT, HANDLE_PLAN,
    Policy, find_roots, is_handle, is_one_handle, handle_meets, HANDLE_UNOWE,
    drops_reservations, walked_handle, handle_plan_on, OWN_GROUP, counts_own_group, is_root,
    TARGETS_NO_ROOT, targets_on, is_target, OWN_PARTNERS_FIRST, SHARED_BY_LOAD,
    HANDLES_NO_PARTNERS, by_load, reduces, _sized_as_handle, _no_data,
)
from .sizes import (
    estimate_output, NOT_DATA_RATIO, holds_data, REJUDGE_SMALL, judged_again,
    TINY_PREFIX_NO_ROOT, tiny_prefix, rejudged_on, JOIN_KEEP, joins_pieces, JOIN_SLOT_STEPS,
    JOIN_SLOT_SCALE, join_slot, second_input, SIZED_BY_PREFIX, sized_by_prefix,
    unrun_input_size, READ_ON_KEEPS, keeps_read_on, read_on, format_bytes, footprint_refused,
    largest_footprint,
)
from .place import (
    place_root, SPLIT_KEPT_ANEW, holds_share, SPLIT_HELD, split_gains, place_consumer,
    pulls_consumer, own_input, CUT_AT_HOLDER, cut_at_holder, SPREAD_FANOUT, SPREAD_COPY,
    SPREAD_FANOUT_WORKERS, spreads_from, spreads_fanout, keeps_its_worker, STEAL_SPLIT,
    thieves_only_holders, sole_holder, spill_candidates, reduced_enough, places_by_held,
    HEAVY_PARTNER, leaves_partner, UNKNOWN_PASS, loads_before_reduced, FIRST_SHARE,
    over_first_share, first_share_takes, KEPT_SHARE, KEPT_SHARE_THREADS,
    KEPT_SHARE_WORKERS, KEPT_SHARE_MOST, kept_share_on, past_kept_share, COMBINE_BY_HELD,
    combine_elsewhere,
    KEPT_WHOLE_COMBINE, combine_kept_whole, TIE_FEWER_READERS, fewest_readers, COMBINE_WHOLE,
    combines_whole, after_reduction, PARTNER_BACKLOG, partner_backlogged,
    PARTNER_BACKLOG_CUT, PARTNER_BACKLOG_FRONT, PARTNER_BACKLOG_THREADS,
    partner_backlog_leaves,
)
from .pace import (
    SLOWER, clearly_slower, _slower_by, SLOW_STEAL, steals_beside_slower, OFF_SLOWER,
    leaves_slower, OFF_FREE, PACE_SLOWER, paced_slower, PACE_HELD, paced_keeps, PACE_CONSUMERS,
    PACE_STAYS, paced_move_fits, PACE_LAST, paced_move_waits, IDLE_PACE, IDLE_HELD, IDLE_TIE,
    IDLE_NEAR, IDLE_WAKE, WAKE_SAMPLES, IDLE_TOP, idle_takes, within_share, IDLE_ALONE,
    IDLE_OVER, IDLE_COMBINE, slower_alone, IDLE_TAIL, idle_tail, reads_slower, LAG, lags,
    LAG_SAMPLES, LAG_TRIM, lags_persist, LAG_ROOTS, lags_clearly, LAG_CONSUMERS,
    ends_sooner_elsewhere, LAG_LEAVES, leaves_lagging, LAG_STEAL, steals_while_lagging,
)
from .spread import (
    MEETING_SPREAD, SPREAD_IN_ORDER, LACKED_UNBLOCK, LIGHT_AHEAD, LIGHT_THREADS, LIGHT_RATIO,
    LIGHT_SHORT, SHORT_AHEAD, SHORT_THREADS, SHORT_ONE, LIGHT_FREE, BESIDE_THIRD,
    BESIDE_THIRD_THREADS, BESIDE_BUSY, BESIDE_BUSY_THREADS, BESIDE_DEEP, BESIDE_DEEP_ALONE,
    BESIDE_DEEP_WIDE, SHORT_DEEP, SHORT_DEEP_SLACK, BESIDE_LEAST, BESIDE_LEAST_WORKERS,
    BESIDE_WIDE, BESIDE_WIDE_THREADS, BESIDE_WIDE_BUSY, BESIDE_WIDE_ALONE, SPREAD_CAP,
    SPREAD_CAP_THREADS, SPREAD_CAP_BELOW, SPREAD_REGION, SPREAD_REGION_THREADS,
    SPREAD_REGION_SHARE, REGION_LESS, REGION_WHOLE, HINT_SHARE, UNIT_STAGGER, UNIT_SHORT,
    reads_little, light_on, light_ahead, asks_short_one, holds_least, asks_third, asks_wide,
    loads_at_once, spread_cap, regions_on, hint_within_share, PAIR_SPREAD, FURTHER_GATHER,
    JOIN_SPREAD, spreads_join, spreads_pair, staggers_unit, wave_cap, wave_splits,
    unit_waits_short, region_cap, compact_regions, may_load_beside, waits_behind_short,
)
from .meetings import (
    MeetingPlan, gathers_only, HALO_DEPTH, halo_depth, meeting_plan, _tuple_new,
    _meeting_plan_fast, joins_started_fan_in, waits_for_own_reduction, _path_up, _meetings,
    _count, _chain_of, _chain, _chain_fast, _constant_handle, _top, _top_task, _below,
)
from .partners import (
    meets_further, meeting_partners, partners_on_one, mirrored_inputs, mirror_holds,
)
from .further import (
    further_partners, _further_meetings, _further_inputs, further_meeting, further_plan,
    gathers_further, _further_entry, _further_part, further_by_plan, further_plan_tasks,
    walked_tasks, further_tasks,
)
from .admit import (
    PASSES, WIDE_PASS, pass_cap, BACKLOG, BACKLOG_THREADS, BACKLOG_FLIGHT, BACKLOG_WIDE,
    BACKLOG_HELD, BACKLOG_BURST, BACKLOG_BURST_THREADS, BACKLOG_BURST_HELD, BACKLOG_BURST_CUTS,
    BACKLOG_BURST_OWN, BACKLOG_DRAINED, backlogged, may_admit_root, committed, awaits_combine,
    AWAIT_HELD, AWAIT_HELD_FEWEST, AWAIT_HELD_MOST, AWAIT_HELD_THREADS, awaits_held_on,
    opens_past_combine,
    free_thread, GROUP_SUPPLY, GROUP_BUSY, passes_for_group, WAVE_SHARE, wave_share,
    over_wave_share, WAVE_SPLIT, splits_for_wave, may_fit_count, passes_for_further,
    FURTHER_WAITS, waits_for_further, SPLIT_OPENS, SPLIT_WOKEN, SPLIT_THREADS, split_takes,
    passes_for_halo, FREES_SLOT, FREES_SLOT_THREADS, frees_slot_on, BUSY_PASS, OWED_FAST,
    passes_busy, frees_slot, keeps_data, PAIR_COMMITS, pair_commits, PAIR_BUSY, PAIR_LOADS,
    pair_waits, TAIL_THREAD_FREE, tail_wants_thread,
)
from .broadcast import (
    BROADCAST_PER_SENDER, BROADCAST_MIN_BYTES, is_broadcast, BROADCAST_LEARN, BROADCAST_PROBE,
    BROADCAST_WIDE, BROADCAST_SPREAD, BROADCAST_SLACK, BROADCAST_GROWTH, broadcast_per_sender,
    BROADCAST_KEEP, kept_level, BROADCAST_FRESH, BROADCAST_PROBE_ALONE, BROADCAST_JOIN,
    joins_group, senders_free, BROADCAST_RATE_FLOOR, copy_rate, broadcast_pairs, pairs_by_heap,
)

_PARTS = (roots, sizes, place, pace, spread, meetings, partners, further, admit, broadcast)


class _Policy(types.ModuleType):
    """The package, whose attributes set are set in every part that binds the name too: the
    parts read their switches (and each other's functions) as their own globals."""

    def __setattr__(self, name: str, value) -> None:
        for part in _PARTS:
            if name in part.__dict__:
                setattr(part, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Policy
