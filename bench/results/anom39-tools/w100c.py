exec(open("/tmp/anom39/tools/w100.py").read().split("folder = os.path")[0])
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = P._zarr_inputs(folder)
res = {}
for nm, opts, steps, popts, store in P.configs("all"):
    if nm != name or f"{opts['workers']}x{opts['threads_per_worker']}" != shape or popts:
        continue
    model = P.config_model(nm, steps, store, paths, folder)
    extra = {} if out == "limited" else {"outgoing_bandwidth": math.inf}
    for v in vals:
        policy.BROADCAST_LEARN = int(v)
        r = simulate(model, policy="tidegate", **opts, **extra)
        xs = sorted((t for t in r.trace.transfers if t.nbytes >= 1e8), key=lambda t: (round(t.start, 3), t.key, t.dest))
        res[v] = [(str(t.key)[10:16], t.source[-4:-2], t.dest[-4:-2], round(t.start, 3), round(t.stop, 3)) for t in xs]
    break
a, b = res[vals[0]], res[vals[1]]
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        print("first diff at", i)
        for j in range(max(0, i - 3), min(len(a), i + 25)):
            print("  ", a[j], "   ", b[j])
        break
