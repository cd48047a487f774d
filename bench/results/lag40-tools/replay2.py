"""Replay recorded lag samples (lagrec.py / lagslow.py jsonl) under main's two samples and
windows of the last K (policy.lags on longer tuples: slow's least against fast's most).
Root sequences rebuilt from successive snapshots of their last two."""
import json, sys, math

LAG = 1.25

def lags(p, o, rp, ro):
    if not p or not o or not rp or not ro or min(map(len, (p, o, rp, ro))) < 2:
        return 0.0
    slow, fast, rslow, rfast = min(p), max(o), min(rp), max(ro)
    if not (slow > LAG * fast and rslow > LAG * rfast) or fast <= 0 or rfast <= 0:
        return 0.0
    return min(slow / fast, rslow / rfast)

def trimmed(p, o, rp, ro, t):
    """slow's (t+1)-th least against fast's (t+1)-th most, each over its window"""
    if not p or not o or not rp or not ro or min(map(len, (p, o, rp, ro))) < 2 * t + 2:
        return None  # too few for a trim: the pair's answer stands
    slow, fast = sorted(p)[t], sorted(o)[-1 - t]
    rslow, rfast = sorted(rp)[t], sorted(ro)[-1 - t]
    return slow > LAG * fast and rslow > LAG * rfast

def run_rule(rec, k):
    T = 0
    if isinstance(k, tuple):
        k, T = k
    worst, who = 0.0, set()
    reads, roots, last = {}, {}, {}
    ref = None
    for r in rec:
        for w, pr in r["roots"].items():   # rebuild root sequences
            prev = last.get(w)
            seq = roots.setdefault(w, [])
            if prev is None:
                seq.extend([x for x in reversed(pr) if x == x])
            elif pr != prev:
                if pr[1] == prev[0]:
                    seq.append(pr[0])
                else:
                    seq.extend([x for x in reversed(pr) if x == x])
            last[w] = pr
        w = r["w"]
        reads.setdefault(w, []).append(r["mine"][0])
        mine = reads[w][-k:]
        if len(mine) < 2:
            continue
        longer = max(mine)
        if ref is None or ref[0] == w or longer < ref[1]:
            ref = (w, longer); continue
        f = ref[0]
        if T:
            lag = lags(roots.get(w, [])[-2:], roots.get(f, [])[-2:], mine[-2:], reads[f][-2:])
            tr = trimmed(roots.get(w, [])[-k:], roots.get(f, [])[-k:], mine, reads[f][-k:], T)
            if tr is False:
                lag = 0.0
        else:
            lag = lags(roots.get(w, [])[-k:], roots.get(f, [])[-k:], mine, reads[f][-k:])
        if lag:
            who.add(w)
        worst = max(worst, lag)
    return worst, who

rows = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
ks = (2, 3, 4, (4, 1), (6, 1), (8, 1), (100, 1))
print("tag workers wall slow recorded | " + " ".join(f"k=%s" % (k,) for k in ks))
tot = {k: 0 for k in ks}
for d in rows:
    res = [run_rule(d["rec"], k) for k in ks]
    for k, (v, who) in zip(ks, res):
        tot[k] += v > 0
    print(d["tag"], d["workers"], d["wall"], d.get("slow", "-"), round(d["max_lag"], 2), "|",
          " ".join(f"{v:.2f}{sorted(who)}" for v, who in res))
print("runs with a lag:", tot, "of", len(rows))
