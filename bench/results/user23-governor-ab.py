"""A/B of the thread runtime between two src trees: fresh child processes, interleaved."""
import json, os, subprocess, sys, tempfile, shutil, statistics, time
sys.path.insert(0, "/work/wt/user2323/src")
from tidegate.workloads import make_inputs
codes = {"base": "/tmp/user2323-base/src", "mine": "/work/wt/user2323/src"}
cells = [("vorticity-files", 300e6), ("vorticity-files", 200e6), ("vorticity", 170e6), ("anomaly", 150e6), ("stack-sum", 300e6)]
reps = int(sys.argv[1]); steps = int(sys.argv[2]); out = sys.argv[3]
folder = tempfile.mkdtemp(prefix="tidegate-bench-user23-", dir="/tmp/user23")
runs = []
try:
    inputs = make_inputs(folder, steps)
    for rep in range(reps):
        for wl, lim in cells:
            for name in (["base", "mine"] if rep % 2 == 0 else ["mine", "base"]):
                o = tempfile.mkdtemp(dir=folder)
                tr = os.path.join(folder, "t.jsonl")
                cmd = [sys.executable, "-m", "tidegate.compare", "--workload", wl, "--scheduler", "tidegate",
                       "--inputs", json.dumps(inputs), "--out", o, "--threads", "2", "--memory-limit", str(lim), "--trace", tr]
                load = os.getloadavg()[0]
                p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": codes[name]}, timeout=900)
                shutil.rmtree(o, ignore_errors=True)
                if p.returncode:
                    print("FAIL", name, wl, p.stderr[-2000:]); continue
                m = json.loads(p.stdout.strip().splitlines()[-1])
                st = m.get("stats") or {}
                from tidegate.trace import Trace
                tasks = Trace.load(tr).tasks
                span = max(t.stop for t in tasks) - min(t.start for t in tasks)
                at_once = sum(t.stop - t.start for t in tasks) / span
                r = dict(code=name, workload=wl, limit=lim, rep=rep, wall=m["wall_time"], peak=m["peak_rss"], written=m.get("written", 0),
                         fewest=st.get("fewest_threads"), named=st.get("limit_for_all_threads"), at_once=at_once, load=load)
                runs.append(r)
                print(f"rep {rep} {name:4} {wl:16} {lim/1e6:4.0f}MB wall {r['wall']:6.2f} peak {r['peak']/1e6:6.1f} ({r['peak']/lim:.2f}x) written {r['written']/1e6:7.1f} at_once {at_once:.2f} fewest {r['fewest']} load {load:.1f}", flush=True)
finally:
    shutil.rmtree(folder, ignore_errors=True)
    json.dump(runs, open(out, "w"), indent=1)
print("\nmedians (base | mine): wall, peak/limit, written MB, at_once")
for wl, lim in cells:
    row = []
    for name in ("base", "mine"):
        rs = [r for r in runs if r["code"] == name and r["workload"] == wl and r["limit"] == lim]
        if rs:
            row.append(f"{statistics.median(r['wall'] for r in rs):6.2f}s {statistics.median(r['peak'] for r in rs)/lim:.2f}x [{min(r['peak'] for r in rs)/lim:.2f}-{max(r['peak'] for r in rs)/lim:.2f}] {statistics.median(r['written'] for r in rs)/1e6:7.1f}MB {statistics.median(r['at_once'] for r in rs):.2f}")
    print(f"{wl:16} {lim/1e6:4.0f}MB  " + " | ".join(row))
