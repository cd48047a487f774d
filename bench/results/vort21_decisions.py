"""vort21: which gate decisions differ between two codes, vorticity below its working set
(in this process, 2 threads; run once per code with PYTHONPATH=<src>).

    PYTHONPATH=src python bench/results/vort21_decisions.py LIMIT STEPS FOLDER [--json OUT]

Logs every task start (time, group, the groups running beside it, ceiling, held, and whether
it started in local._recheck), every refusal on a thread past those fitted (core._fits_after:
which clause: room now, the vort20 rule, the room after), every _recheck (ceiling before ->
after, what it started), spill writes; from the trace: seconds with 0/1/2 tasks running,
task-seconds per group, heavy pairs (seconds each group ran beside each other group), and per
step (a store's chunk) the time from its first read's start to its store's end."""
import collections, json, os, sys, time
import tidegate
from tidegate import core as C, local as L
from tidegate.trace import collecting
from tidegate.workloads import build, make_inputs

limit, steps, folder = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
out_json = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
if not os.path.exists(f"{folder}/a.zarr"):
    make_inputs(folder, steps)
T0 = [0.0]
log = {"starts": [], "refused": collections.Counter(), "refused_pairs": collections.Counter(),
       "rechecks": [], "spills": 0, "changed": [], "spill_at": []}
in_recheck = [False]


def short(name):
    return name.split("-")[0] if not name.startswith("rechunk") else "store"


def gname(core, i):
    return core.graph.group_names[core._group[i]]


transition0 = C.Scheduler._transition


def transition(self, i, finish, sid, actions=None, arg=None):
    if finish == C.PROCESSING:
        running = [gname(self, t) for t in self._needs if t != i]
        log["starts"].append((time.perf_counter() - T0[0], gname(self, i), running,
                              round(self.ceiling[0] / 1e6, 1), round(self.workers[0].held / 1e6, 1),
                              round(self._task_need(i) / 1e6, 1), in_recheck[0],
                              self.workers[0].processing, self.fit[0], round(self.after / 1e6, 1)))
    if finish == C.SPILLED:
        log["spills"] += 1
        log["spill_at"].append((round(time.perf_counter() - T0[0], 4), gname(self, i)))
    return transition0(self, i, finish, sid, actions, arg)


C.Scheduler._transition = transition
fits0 = C.Scheduler._fits_after


def fits_after(self, w, i):
    ok = fits0(self, w, i)
    if not ok:
        if self._room_short(w, i) > 0:
            why = "short now"
        elif 2 * self._running_need[w] < self._task_need(i) and (
                self._wanted(w, i) + self.after > self.ceiling[w]):
            why = "rule"
        else:
            why = "after"
        running = tuple(sorted(gname(self, t) for t in self._needs))
        if why == "rule":  # would the base (no rule) have started it? then a changed decision
            out, group = self.out, self._group
            held = self.workers[w].held + out[group[i]] + self.after
            for t in self._needs:
                if self.where[t] == w:
                    held += out[group[t]]
            if held <= self.ceiling[w] and hasattr(L, "_recheck"):
                log["changed"].append((round(time.perf_counter() - T0[0], 3), gname(self, i),
                                       running, round(self.ceiling[w] / 1e6, 1),
                                       round(self.workers[w].held / 1e6, 1),
                                       round(self._running_need[w] / 1e6, 1),
                                       round(self._task_need(i) / 1e6, 1), round(self.after / 1e6, 1)))
        log["refused"][f"{gname(self, i)} {why}"] += 1
        log["refused_pairs"][f"{gname(self, i)} beside {running} {why}"] += 1
    return ok


C.Scheduler._fits_after = fits_after
if hasattr(L, "_recheck"):
    recheck0 = L._recheck

    def recheck(core, governor, running, dispatch, cap, *a):
        before = core.ceiling[0]
        n = len(log["starts"])
        in_recheck[0] = True
        try:
            return recheck0(core, governor, running, dispatch, cap, *a)
        finally:
            in_recheck[0] = False
            log["rechecks"].append((time.perf_counter() - T0[0], round(before / 1e6, 1),
                                    round(core.ceiling[0] / 1e6, 1),
                                    [s[1] for s in log["starts"][n:]]))

    L._recheck = recheck

WL = os.environ.get("WL", "vorticity")
y = build(WL, {n: f"{folder}/{n}.zarr" for n in "ab"}, folder)
stats = tidegate.RunStats()
with collecting() as traces:
    T0[0] = t0 = time.perf_counter()
    y.compute(scheduler=tidegate.get, num_workers=2, memory_limit=limit, stats=stats)
    wall = time.perf_counter() - t0
tasks = sorted(traces[0].tasks, key=lambda t: t.start)
base_t = tasks[0].start
ev = sorted([(t.start, 1) for t in tasks] + [(t.stop, -1) for t in tasks])
conc, n, last = collections.defaultdict(float), 0, ev[0][0]
for tm, d in ev:
    conc[n] += tm - last
    n, last = n + d, tm
gsec = collections.defaultdict(float)
for t in tasks:
    gsec[t.group] += t.stop - t.start
beside = collections.defaultdict(float)
heavy = [t for t in tasks if t.stop - t.start > 0.004]
for a in heavy:
    for b in heavy:
        if a is not b and b.start < a.stop and b.stop > a.start:
            beside[f"{a.group}|{b.group}"] += min(a.stop, b.stop) - max(a.start, b.start)
starts_by = collections.Counter(s[1] for s in log["starts"])
start_beside = collections.Counter(f"{s[1]} beside {tuple(sorted(s[2]))}{' RECHECK' if s[6] else ''}"
                                   for s in log["starts"] if s[2] and s[5] > 8)
res = {"limit": limit, "wall": wall, "load": os.getloadavg()[0],
       "peak": stats.peak_memory, "written": stats.spill_file_bytes,
       "refusals": stats.gate_refusals, "fewest": stats.fewest_threads,
       "conc": {k: round(v, 3) for k, v in sorted(conc.items())},
       "task_s": {k: round(v, 3) for k, v in sorted(gsec.items(), key=lambda kv: -kv[1])},
       "beside": {k: round(v, 3) for k, v in sorted(beside.items(), key=lambda kv: -kv[1])},
       "refused": dict(log["refused"]), "refused_pairs": dict(log["refused_pairs"].most_common(20)),
       "heavy_starts_beside": dict(start_beside.most_common(30)),
       "rechecks": len(log["rechecks"]),
       "rechecks_raised": sum(1 for r in log["rechecks"] if r[2] > r[1]),
       "recheck_starts": collections.Counter(g for r in log["rechecks"] for g in r[3]),
       "recheck_raise_mb": sorted(round(r[2] - r[1], 1) for r in log["rechecks"] if r[2] > r[1]),
       "spills": log["spills"],
       # decisions the vort20 rule changed (refused where the base's check let it start)
       "rule_changed": len(log["changed"]),
       "rule_changed_last_s": max((c[0] for c in log["changed"]), default=None),
       "rule_changed_what": dict(collections.Counter(f"{c[1]} beside {c[2]}" for c in log["changed"])),
       "recheck_started_at": [r[0] for r in log["rechecks"] if r[3]],
       # spills within 50 ms after a recheck that raised the ceiling, of all spills
       "spills_after_raise": sum(1 for t, _ in log["spill_at"] if any(
           0 <= t - r[0] <= 0.05 for r in log["rechecks"] if r[2] > r[1])),
       "spills_after_recheck_start": sum(1 for t, _ in log["spill_at"] if any(
           0 <= t - r[0] <= 0.05 for r in log["rechecks"] if r[3])),
       "fit1_starts": sum(1 for s in log["starts"] if s[8] == 1),
       "fit1_last_s": max((s[0] for s in log["starts"] if s[8] == 1), default=None)}
print(json.dumps(res, indent=1, default=str))
if out_json:
    with open(out_json, "w") as f:
        json.dump({**res, "changed_log": log["changed"], "spill_at": log["spill_at"], "starts": log["starts"], "rechecks_log": log["rechecks"],
                   "trace": [(t.group, t.key, t.thread, t.start - base_t, t.stop - base_t, t.nbytes)
                             for t in tasks]}, f, default=str)
