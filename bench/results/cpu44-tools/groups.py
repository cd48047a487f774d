"""(cpu44) tops.py's function rows summed by the part of the plugin's work they serve.
    python groups.py TOPS_OUTPUT.txt [OTHER.txt]   (the second: its sums beside, and the change)"""
import re
import sys

GROUPS = [  # (part, substrings of the row's "file:line qualname"; first match wins)
    ("occupancy checks (trim)", ["trim.py"]),
    ("transition hook, stealing fold", ["Plugin.transition", "Plugin._moving",
                                        "_steal_transition", "_inputs_all_here",
                                        "keeps_its_worker"]),
    ("finish (P->M): books", ["_left_processing", "on_finished", "_one_data_input", "_landed",
                              "_joined", "_drop_carrier", "_loaded", "_read_on_key",
                              "root_holds_data", "_note_combine", "keeps_data", "joins_pieces",
                              "read_on", "_unpass", "on_released", "_derived_from", "_chained",
                              "join_slot", "keeps_read_on", "_consumer_left", "_forgotten"]),
    ("start (->processing): books", ["_began", "on_run", "on_consuming", "_consume",
                                     "estimate_output", "_pieces"]),
    ("dask's placement hooks", ["_is_rootish", "_structural_root", "Broadcast.shared",
                                "_guard", "_decide_worker_non_rootish", "sole_holder",
                                "Placement._decide_worker", "_constant", "is_root"]),
    ("replicas, messages", ["stamped", "addresses"]),
    ("poke, queue, open/free sets", ["poke", "_poke", "_update", "_refresh", "may_take_some",
                                     "_set_free", "_set_count", "_still_blocked", "lines.py",
                                     "_park", "_unpark", "_free_iter", "_start", "_end_batch",
                                     "_flush_starts", "_wake_lacked", "_in_wave", "_split"]),
    ("parks' wakes", ["Admission._wake", "refusal_inputs", "refuses_further", "_still_waits",
                      "passes_for_further"]),
    ("root placement", ["Placement._place", "_region", "Placement._decide", "Books.place",
                        "_admits", "may_admit_root", "backlogged", "opens", "_still_withheld",
                        "_kept_walk", "_waits_again", "_owed_place", "partners_on_one",
                        "restrict", "may_fit_count", "may_load_beside", "may_take_spread",
                        "committed", "_queues_behind", "may_progress", "_placed", "_reserve",
                        "_owe", "Placement._kept", "pass_cap", "spread_cap", "_mirrored",
                        "mirror", "_commits", "_hint_share", "within_share", "loads_at_once",
                        "_third", "_beside", "_holds_least", "_splits", "free_thread",
                        "_free_slot", "_unreserve", "counts_own_group", "pair_waits",
                        "estimate", "_caps_summed"]),
    ("walks, plans", ["policy.py", "_plan", "_looked_at", "_walk", "_further", "_keep_walk",
                      "_where", "_size", "_widest", "_keys", "_partners", "_chain"]),
]


def read(path):
    rows = {}
    for line in open(path):
        m = re.match(r"\s+([\d.]+) ops/task\s+([\d.]+) calls/task\s+(.*)$", line)
        if m:
            rows[m.group(3)] = (float(m.group(1)), float(m.group(2)))
    return rows


def sums(rows):
    out = {g: [0.0, 0.0] for g, _ in GROUPS}
    out["other"] = [0.0, 0.0]
    for name, (ops, calls) in rows.items():
        for g, subs in GROUPS:
            if any(s in name for s in subs):
                break
        else:
            g = "other"
        out[g][0] += ops
        out[g][1] += calls
    return out


a = sums(read(sys.argv[1]))
b = sums(read(sys.argv[2])) if len(sys.argv) > 2 else None
for g in a:
    line = f"  {g:32s} {a[g][0]:8.1f} ({a[g][1]:5.2f} calls)"
    if b is not None:
        line += f"   {b[g][0]:8.1f} ({b[g][1]:5.2f})  {b[g][0] - a[g][0]:+7.1f}"
    print(line)
ta = sum(v[0] for v in a.values())
tb = f"   {sum(v[0] for v in b.values()):8.1f}" if b else ""
print(f"  {'listed rows':32s} {ta:8.1f}" + tb)
