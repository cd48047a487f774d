"""The books' admission: may a worker take a root now (``admits``), may it take
one more spread root or any at all (``may_take_spread``, ``may_take_some``), and the
refusals of further meetings (``refuses_further``).

A mixin of :class:`tidegate.books.Books`: pure, as books.py (its rules hold here).
"""

from __future__ import annotations

import math

from . import policy as policy_module  # (switches read per decision: tests set them)
from .policy import (
    WIDE_PASS, awaits_combine, committed, estimate_output, asks_third, light_on,
    asks_short_one, asks_wide, holds_least, spread_cap, waits_behind_short,
    backlogged, may_admit_root, may_load_beside, pair_waits, pass_cap, passes_for_further,
    staggers_unit, wave_cap,
)


def _queues_behind_a_load(book) -> int:
    """``may_admit_root``'s ``queued`` in the plugin's placements (``book``: a
    books.WorkerBook): 1 on a one-thread worker already loading a root, where a root
    admitted past the count by completing a consumer would wait for that load in the
    worker's queue, committed there while another worker may run dry (twin stencil 2x1, s7:
    the last two blocks queued on one worker, the other idle 137 ms, 1.072x queuing's
    makespan; now 1.017x); else 0 (see may_admit_root: ready tasks are not counted). On two
    threads or more the same test moved 42 sim fingerprints (f-vorticity 8x2 1.03 -> 1.15x
    queuing's time)."""
    return int(book.threads == 1 and book.roots_processing > 0)


class BooksAdmission:
    """Books' admission of roots."""

    def admits(self, w, task, known: float, group, completes_consumer: bool, stimulus_id=None,
               progress: bool = True, reserved: int = 0, waiting: int = 0) -> bool:  # fmt: skip
        """May root ``task`` start on worker ``w`` now? Logs a refusal. ``progress=False``:
        the body has other work for an idle worker, so the progress rule need not apply.
        ``reserved``: of w's owed roots, those reserved for task itself. ``waiting``: ready
        tasks that a free thread of w would take instead (``policy.may_admit_root``'s
        ``queued``: the core's ready tasks; the plugin's a load queued ahead on a one-thread
        worker, :meth:`place`)."""
        cuts = self.cuts_max
        if cuts >= policy_module.BACKLOG_BURST_CUTS:
            cuts = self.burst_cuts(group)
        return self._admits(self.workers[w], w, task, self.estimate(known, group),
                            completes_consumer, stimulus_id, progress, reserved,
                            waiting=waiting, cuts=cuts)

    def _admits(self, book, w, task, est, completes_consumer, stimulus_id, progress=True,
                reserved=0, spread=False, waiting=0, opens=0, awaits=None,
                pair=False, region=0, unit=0, wave=(), cuts=0) -> bool:  # fmt: skip
        """``admits`` with the root's estimate given (``place`` finds it once per root), and
        its group's cuts (policy.backlogged's: ``burst_cuts``, or ``cuts_max`` where it is
        below policy.BACKLOG_BURST_CUTS, as every group's then).
        ``spread``: see ``place`` (2: policy.SPREAD_CAP's cap too; 3: policy.region_cap's,
        a root placed by its region of ``region`` roots). ``waiting``:
        ``may_admit_root``'s ``queued``.
        ``opens``: roots task's meetings would newly reserve here (``place``'s
        ``commits``), counted as owed as far as ``policy.committed`` says. ``pair``:
        see ``place``. ``unit`` (task and its meetings' lacks not processing yet, 0: not
        asked) and ``wave``: ``policy.staggers_unit``'s (UNIT_STAGGER 4: ``policy.wave_cap``'s
        ``roots, workers``), from ``place``'s ``stagger``."""
        if pair and opens and pair_waits(book.processing, book.cap, book.threads,
                                         book.roots_untouched,
                                         book.roots_processing):  # fmt: skip
            # (a pair's opener where the tasks processing fill the cap or its loads would
            # queue behind loads: policy.pair_waits)
            self.log.append((task, "withheld", w, stimulus_id))
            return False
        if awaits and opens and self.combines is not None:
            # (before the progress rule: the combine is work on its way there)
            self.log.append((task, "withheld", w, stimulus_id))
            return False
        idle = progress and self.may_progress(book, w)
        if unit and not idle and staggers_unit(book.slots_used, unit, *wave):
            # (a fresh opener of a group loading whole at once: not beside a unit whose
            # data no consumer took yet, policy.UNIT_STAGGER)
            self.log.append((task, "withheld", w, stimulus_id))
            return False
        answer = [completes_consumer]
        if callable(completes_consumer):
            def completes_consumer(ask=completes_consumer):
                answer[0] = ask()
                return answer[0]
        if (
            self.policy.probe
            and not idle
            and est == 0
            and book.roots_processing
            and book.budget < math.inf
            and not self._roots_max
        ):
            ok = False  # nothing seen yet: one root per busy worker finds out the size
        else:
            # (committed and may_load_beside asked once, for the pass test below too;
            # committed(0, ...) is 0: not asked)
            more = committed(opens, book.processing, book.threads) if opens else 0
            beside = spread and (may_load_beside(book.threads, book.roots_processing,
                                                 book.processing, alone=self.alone) or (
                book.roots_processing == 2 and self._third(w, book, est)))  # fmt: skip
            if spread and not beside:
                # (policy.BESIDE_WIDE: asked on its workers only, past the few-thread ones)
                beside = self._beside_light(w, book, est) or book.threads >= \
                    policy_module.BESIDE_WIDE_THREADS and self._beside_wide(w, book, est)
            if beside and policy_module.BESIDE_LEAST and book.roots_processing and 2 <= \
                    book.threads < policy_module.BESIDE_BUSY_THREADS and len(self.workers) \
                    >= policy_module.BESIDE_LEAST_WORKERS and not \
                    self._holds_least(w, book, est):  # fmt: skip
                beside = False  # (policy.BESIDE_LEAST: not past the count on the fullest)
            ok = may_admit_root(
                book.roots_processing, book.roots_untouched,
                spread_cap(book.cap, book.threads, spread, region) if spread >= 2
                else wave_cap(book.cap, *wave) if wave and policy_module.UNIT_STAGGER >= 4
                else book.cap,
                completes_consumer,
                book.held + book.estimated, est, book.budget, idle,
                book.owed - reserved + more, beside, waiting, book.passes, pass_cap(book.cap),
                backlogged(book.processing, book.roots_processing, book.threads,
                           book.roots_untouched, book.held + book.estimated,
                           book.cap * self._roots_max, cuts),
            )  # fmt: skip
            if ok:
                if opens and awaits is None and self.combines is not None \
                        and w in self.noted and self.awaits(w):  # fmt: skip
                    # The body's view asked last, only where it decides (it refuses
                    # whatever the rest says, idle too): twin anomaly 100x4, 1,000 steps,
                    # 14,689 -> 3,685 asks (most were of workers refused anyway). None:
                    # refused by the combine alone (place's kept refusals tell them apart).
                    self.log.append((task, "withheld", w, stimulus_id))
                    return None
                # Came in past the count by completing a consumer (not a wide fan-in):
                # counted in book.passes from on_run until its data lands (policy.PASSES).
                if self.count_passes and not idle and book.roots_processing \
                        + book.roots_untouched + book.owed - reserved + more >= book.cap \
                        and not beside and answer[0] != WIDE_PASS:  # fmt: skip
                    if len(self._pass_ok) > 4096:
                        self._pass_ok.clear()
                    self._pass_ok.setdefault(task, set()).add(w)
        if not ok:
            self.log.append((task, "withheld", w, stimulus_id))
        return ok

    def refuses_further(self, task, group, w, lacks, commits: bool, further: bool,
                        memo: dict | None = None) -> bool:
        """Would ``place`` refuse root ``task`` on worker ``w``, the one open worker of its
        further meeting (``place(task, nan, group, {w: n}, (), lacks=lacks, complete={w},
        commits=commits, further=further)`` with n > 0), and keep it waiting for w
        (w busy)? Asked without place's side effects (no log entry, no refusal kept):
        the plugin asks it when w's books change, for a root parked there, instead of
        putting the root back in line to be placed and parked again (rechunk-add: once a
        task). Exact: the same admission (``_admits``' ``may_admit_root``) over the same
        inputs.

        ``memo``, when given: answers on w by what they read of a root besides w's book
        (its estimate, the roots it opens, whether w reserved it), kept while nothing in
        the books changes (the caller's promise: one wake of w). Roots parked on one worker
        mostly ask alike; a repeated ask skips the admission."""
        book = self.workers.get(w)
        if book is None or not book.processing:  # (busy: not idle, may_progress)
            return False
        est = estimate_output(math.nan, self._loaded_max.get(group, 0.0), self._roots_max)
        if self.policy.probe and est == 0 and book.roots_processing \
                and book.budget < math.inf and not self._roots_max:  # fmt: skip
            return True  # _admits' probe refusal
        opens = self.opens(lacks) if commits else 0
        if opens and self.combines is not None and w in self.noted and self.awaits(w):
            return True  # _admits' refusal of a new group where a combine is awaited
        reserved = int(self._owed.get(task, (None,))[0] == w)
        cuts = self.cuts_max
        if cuts >= policy_module.BACKLOG_BURST_CUTS:  # (else off for every group's roots)
            cuts = self.burst_cuts(group)
        if memo is not None:
            key = (est, opens, reserved, commits, further, cuts)
            known = memo.get(key)
            if known is not None and not self.audit:
                return known
        completes = passes_for_further(book.roots_processing) if further else True
        refused = not may_admit_root(
            book.roots_processing, book.roots_untouched, book.cap, completes,
            book.held + book.estimated, est, book.budget, False,
            book.owed - reserved + committed(opens, book.processing, book.threads),
            False, _queues_behind_a_load(book), book.passes, pass_cap(book.cap),
            backlogged(book.processing, book.roots_processing, book.threads,
                       book.roots_untouched, book.held + book.estimated,
                       book.cap * self._roots_max, cuts),
        )  # fmt: skip
        if memo is not None:
            if self.audit and known is not None:  # (tests: the remembered answer, found anew)
                assert known == refused, (task, w)
                self.audited["further memo"] = self.audited.get("further memo", 0) + 1
            memo[key] = refused
        if refused and self.audit:  # (tests: _admits refuses it too, as place would ask)
            assert not self._admits(book, w, task, est, completes, None, True, reserved,
                                    False, _queues_behind_a_load(book), opens,
                                    cuts=cuts), (task, w)
            self.log.pop()  # (_admits' refusal entry: place makes none here)
            self.audited["still waits"] = self.audited.get("still waits", 0) + 1
        return refused

    def refusal_inputs(self, w):
        """What :meth:`refuses_further` reads of worker w (None: no such worker), as far as
        its answer can tell them apart: for any one root (its estimate, the roots it would
        open, whether w reserved it, its group's cuts) the answer is the same while this
        is. From w's book:
        whether a root is processing and whether roots fill the cap (``passes_for_further``,
        ``may_admit_root``), roots processing + untouched + owed (the count, whatever mix of
        them), passes, a free thread (``committed``), idle, held bytes against a finite
        budget; whether any root size is known (the probe's refusal) and whether a combine
        is awaited there (the body's view). The plugin keeps it per wake of w, and a root
        that stayed parked there is not asked again while it holds (hooks' ``_wake``):
        w's books change at every task end there, a load ending (roots processing down,
        untouched up) mostly not at all in these terms."""
        book = self.workers.get(w)
        if book is None:
            return None
        rp = book.roots_processing
        cuts = self.cuts_max
        return (rp >= book.cap, rp > 0, rp + book.roots_untouched + book.owed, book.passes,
                book.processing < book.threads or book.threads == 1,  # (free_thread)
                book.processing == 0,
                (book.held + book.estimated, book.budget) if book.budget < math.inf else 0,
                bool(self._roots_max),
                self.combines is not None and w in self.noted and self.awaits(w),
                backlogged(book.processing, rp, book.threads, book.roots_untouched,
                           book.held + book.estimated, book.cap * self._roots_max, cuts),
                # (where some group's loads were cut up enough, a root of another sees the
                # burst clause off: BACKLOG_BURST_OWN, both answers)
                cuts >= policy_module.BACKLOG_BURST_CUTS and policy_module.BACKLOG_BURST_OWN
                and backlogged(
                    book.processing, rp, book.threads, book.roots_untouched,
                    book.held + book.estimated, book.cap * self._roots_max, 0))

    def burst_cuts(self, group) -> int:
        """policy.backlogged's ``cuts`` for a root of ``group``: the most pieces a load of
        its group was cut into (:data:`policy.BACKLOG_BURST_OWN`), else the most over the
        groups present (``cuts_max``; grp45's). Per group: a groupby's cut-up loads (or a
        persisted input of one) turned the burst clause on for every computation beside
        them until their group was forgotten (review45)."""
        if policy_module.BACKLOG_BURST_OWN:
            return self._cut_groups.get(group, 0)
        return self.cuts_max

    def awaits(self, w) -> bool:
        """Is w the place of a tree reduction's combine whose inputs are all on their way
        (policy.awaits_combine)? Then it opens no new meeting of roots (``_admits``,
        ``opens``), even idle: the combine is work on its way to it."""
        for here, most, on_their_way in self.combines(w):
            if awaits_combine(here, most, on_their_way):
                break
        else:
            return False
        workers = self.workers
        n = len(workers)
        # (policy.AWAIT_HELD: late in a long reduction, a thread free; its worker bounds
        # asked first, inlined, the upper first: most asks come from large clusters)
        if n <= policy_module.AWAIT_HELD_MOST and n >= policy_module.AWAIT_HELD_FEWEST:
            book = workers.get(w)
            if book is not None and policy_module.awaits_held_on(n, book.threads) \
                    and policy_module.opens_past_combine(
                        book.held, self._roots_max, sum(b.held for b in workers.values()) / n,
                        book.processing, book.threads):  # fmt: skip
                return False
        return True

    def may_progress(self, book, w=None) -> bool:  # (book: a books.WorkerBook)
        """Progress rule: a worker with nothing processing and nothing on its way
        (``expecting``) may start a root past its count and budget. Tried and reverted: refusing
        while twice the count of data waits there and tasks run elsewhere bounded a running total
        (selects alive per worker 14-18 -> 8 against a cap of 3) but serialised a tree reduction
        whose combines need roots not yet loaded (twin anomaly, 300 steps, 20x4: 28 s -> 163 s)."""
        return book.processing == 0 and w not in self.expecting

    def may_take_spread(self, w) -> bool:
        """May w admit a root whose data feeds many meetings (``place``'s ``spread``: a
        stencil's block) by its own books, whatever the root (its reservation on w
        aside)? Such a root passes the count otherwise only by completing a meeting, which
        takes its neighbours' data on w: the plugin wakes the spread roots parked on w
        when this holds or a neighbour is placed (admission._wake_lacked), not at every task
        end there, where each walked its meetings again to be refused (twin stencil
        6000^2, 2 x 1: 3,595 placements for 36 roots, the run's CPU 0.37 s against
        queuing's 0.10; now 447 and 0.18 s). Not woken by a halo
        copy landing on w, which may complete a meeting too (6% of these roots' admissions
        were by a completed meeting, twin stencil 2x1 and 4x1)."""
        book = self.workers[w]
        if self.may_progress(book, w):
            return True
        if book.roots_processing >= book.cap or book.held + book.estimated > book.budget:
            return False
        if may_load_beside(book.threads, book.roots_processing, book.processing,
                           alone=self.alone) or (
                book.roots_processing + book.roots_untouched + book.owed - 1 < book.cap) or (
                book.roots_processing == 2 and self._third(w, book, self._roots_max)):
            return True
        # Tasks there that read little, beside the most a root loaded so far (a root's
        # estimate, unless its size is known). Counted as may-count alone, blocks parked
        # on a one-thread worker were walked again about once a task end (twin stencil
        # 2 x 1: 1,041 walks for 36 blocks against 401).
        return self._beside_light(w, book, self._roots_max) or book.threads >= \
            policy_module.BESIDE_WIDE_THREADS and self._beside_wide(w, book, self._roots_max)

    def _third(self, w, book, est) -> bool:
        """policy.may_load_beside with its ``third`` on worker w, asked where it failed
        without: a task processing there ends soon (the body's ``light``, up to one, beside a
        root of ``est`` bytes), asked only where policy.asks_third and a thread is free (the
        second test, ``light`` 0). The callers ask it where two roots process there (the
        first of asks_third's needs: few calls)."""
        return book.processing < book.threads and self.light is not None and asks_third(
            book.threads, book.roots_processing) and self.light(w, est, 1) > 0 \
            and may_load_beside(book.threads, book.roots_processing, book.processing,
                                third=True, alone=self.alone)  # fmt: skip

    def _beside_light(self, w, book, est, wide=False) -> bool:
        """policy.may_load_beside on worker w with its tasks that read little beside a root
        of ``est`` bytes counted (``light``: the body's ``light``, asked only where the
        allowance could decide: light_on's most, then the count). ``wide``: see
        ``_beside_wide``."""
        most = light_on(book.threads) if self.light is not None else 0
        if not most or not may_load_beside(book.threads, book.roots_processing,
                                           book.processing, most, wide=wide,
                                           alone=self.alone) and not \
                waits_behind_short(book.threads, book.roots_processing, book.processing,
                                   most, wide):  # fmt: skip
            return False
        light = self.light(w, est, most)
        if may_load_beside(book.threads, book.roots_processing, book.processing, light,
                           wide=wide, alone=self.alone):
            return True
        # (policy.SHORT_DEEP: deeper behind short tasks on four threads, where w holds least)
        if waits_behind_short(book.threads, book.roots_processing, book.processing, light,
                              wide):
            slack = policy_module.SHORT_DEEP_SLACK
            return slack == math.inf or self._holds_least(w, book, slack * est)
        # (policy.SHORT_ONE: one short task reading a block counts on a one-thread worker
        # that holds least, asked only here, after the allowance without it refused)
        return light < most and asks_short_one(book.threads) and self._holds_least(
            w, book, est) and may_load_beside(book.threads, book.roots_processing,
                                              book.processing, self.light(w, est, most, True),
                                              alone=self.alone)

    def _beside_wide(self, w, book, est) -> bool:
        """policy.BESIDE_WIDE: may a spread root process beside other work on worker w of
        eight or more threads with two or more roots processing there (policy.asks_wide:
        where other tasks than roots process there, with BESIDE_WIDE_BUSY), as
        ``may_load_beside`` (or ``_beside_light``) with ``wide``? Asked after those refused
        without it. ``alone`` (a cluster of one worker): BESIDE_WIDE_BUSY 2 keeps the busy
        guard there only."""
        return asks_wide(book.threads, book.roots_processing, book.processing,
                         self.alone) and (
            may_load_beside(book.threads, book.roots_processing, book.processing, wide=True,
                            alone=self.alone)
            or self._beside_light(w, book, est, True))

    def _holds_least(self, w, book, est) -> bool:
        """policy.holds_least of w against every other worker (held and estimated bytes):
        w holds no more than the least-held other plus a root of ``est`` bytes. Stops at
        the first other that holds less."""
        held = book.held + book.estimated
        for v, other in self.workers.items():
            if v != w and not holds_least(held, other.held + other.estimated, est):
                return False
        return True

    def may_take_some(self, w) -> bool:
        """A cheap necessary condition for ``admits`` on w (any root, any size)."""
        book = self.workers[w]
        # (may_progress inlined: asked once per worker looked at, about once per task)
        return (book.processing == 0 and w not in self.expecting) or (
            book.roots_processing < book.cap and book.held + book.estimated < book.budget
        )
