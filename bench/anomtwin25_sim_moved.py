"""anomtwin25: peak / makespan / bytes moved of sim_fingerprints' configurations whose
traces moved, for this code and another (``--against OTHER/src``), each in its own process.

    python bench/anomtwin25_sim_moved.py --against /tmp/base/src [--only anomaly] [--out F.json]
"""
import argparse
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]


def child(only):
    sys.path.append(here)
    import sim_fingerprints as sf
    from tidegate.sim import simulate

    built, out = {}, {}
    for name, g, opts in sf.configs():
        if only not in name:
            continue
        if g not in built:
            built[g] = sf.graph(g)
        x, keys, sizes, durations = built[g]
        r = simulate(x, keys=keys, sizes=sizes, durations=durations, **opts)
        out[name] = (max(r.peak_memory_per_worker), r.makespan, r.bytes_transferred)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", required=False)
    ap.add_argument("--only", default="anomaly")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.only)))
        return
    src = os.path.join(os.path.dirname(here), "src")
    res = {}
    for label, path in (("new", src), ("base", a.against)):
        env = dict(os.environ, PYTHONPATH=path)
        p = subprocess.run([sys.executable, __file__, "--child", "--only", a.only], env=env,
                           check=True, capture_output=True, text=True)
        res[label] = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"{'config':40} {'peak MB base -> new':>22} {'makespan s':>18} {'moved MB':>20}")
    for k, (pk, ms, mv) in res["new"].items():
        b = res["base"].get(k)
        if b is None:
            continue
        flag = "" if (pk, ms, mv) == tuple(b) else "  *"
        print(f"{k:40} {b[0]/1e6:9.0f} -> {pk/1e6:9.0f} {b[1]:7.2f} -> {ms:7.2f} "
              f"{b[2]/1e6:8.0f} -> {mv/1e6:8.0f}{flag}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"command": "python bench/anomtwin25_sim_moved.py " + " ".join(sys.argv[1:]),
                       **res}, f, indent=1)


if __name__ == "__main__":
    main()
