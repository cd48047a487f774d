"""anomtwin25: peak / makespan / bytes moved of plugin_fingerprints' configurations whose
names contain one of ``--only`` (comma-separated), tidegate and queue, for this code and
another (``--against OTHER/src``), each code in its own process (PYTHONHASHSEED=0).

    python bench/anomtwin25_plugin_moved.py --against /tmp/base/src --only anomaly,stencil
"""
import argparse, json, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]


def child(only):
    sys.path.append(here)
    import plugin_fingerprints as pf
    from tidegate.sim import simulate

    folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
    paths = pf._zarr_inputs(folder)
    out = {}
    for name, opts, steps, popts, store in pf.configs("all"):
        if not any(o in name for o in only):
            continue
        model = pf.config_model(name, steps, store, paths, folder)
        label = f"{name}|{opts}|{steps}|{popts}"
        row = {}
        for p in ("queue", "tidegate"):
            r = simulate(model, policy=p, **opts, **(popts if p == "tidegate" else {}))
            row[p] = (max(r.peak_memory_per_worker), r.makespan, r.bytes_transferred)
        out[label] = row
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", required=True)
    ap.add_argument("--only", default="anomaly,stencil")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    only = a.only.split(",")
    if a.child:
        print(json.dumps(child(only)))
        return
    res = {}
    for label, path in (("new", os.path.join(os.path.dirname(here), "src")), ("base", a.against)):
        env = dict(os.environ, PYTHONPATH=path, PYTHONHASHSEED="0")
        p = subprocess.run([sys.executable, __file__, "--child", "--against", "-", "--only",
                            a.only], env=env, check=True, capture_output=True, text=True)
        res[label] = json.loads(p.stdout.strip().splitlines()[-1])
    for k, row in res["new"].items():
        b = res["base"][k]
        print(k[:110])
        for p in ("queue", "tidegate"):
            (bp, bm, bb), (np_, nm, nb) = b[p], row[p]
            print(f"   {p:9} peak {bp / 1e6:9.1f} -> {np_ / 1e6:9.1f} MB  makespan {bm:7.2f} -> "
                  f"{nm:7.2f} s  moved {bb / 1e6:9.1f} -> {nb / 1e6:9.1f} MB")
        tq = lambda r, i: r["tidegate"][i] / r["queue"][i] if r["queue"][i] else float("nan")
        print(f"   tidegate/queue peak {tq(b, 0):.2f} -> {tq(row, 0):.2f}, makespan "
              f"{tq(b, 1):.2f} -> {tq(row, 1):.2f}, moved {tq(b, 2):.2f} -> {tq(row, 2):.2f}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"command": "python bench/anomtwin25_plugin_moved.py " + " ".join(sys.argv[1:]),
                       **res}, f, indent=1)


if __name__ == "__main__":
    main()
