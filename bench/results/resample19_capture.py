import sys, pickle
import dask.array as da, numpy as np, xarray as xr, tidegate
import tidegate.core as C
cores = []
orig = C.Scheduler.__init__
def init(self, *a, **k):
    orig(self, *a, **k); cores.append(self)
C.Scheduler.__init__ = init
x = da.random.default_rng(0).random((240, 400, 500), chunks=(12, 400, 500))
days = np.arange("2000-01-01", "2000-08-28", dtype="datetime64[D]")
t = xr.DataArray(x, dims=("time", "y", "x"), coords={"time": days})
Y = {
    "rolling": lambda: t.rolling(time=5, center=True).mean().sum("time"),
    "resample": lambda: (t.resample(time="7D").mean() - t.mean("time")).std("time"),
    "cumsum": lambda: t.cumsum("time").max("time"),
    "diff": lambda: abs(t.diff("time")).mean("time"),
    "hist": lambda: da.histogram(x, bins=50, range=(0, 1))[0],
    "topk": lambda: da.topk(x.reshape(240, -1).T.rechunk((10000, 240)), 3, axis=1).sum(0),
    "quantile": lambda: t.chunk({"time": -1, "y": 50}).quantile(0.9, "time"),
}
out = {}
for case in sys.argv[1].split(","):
    y = getattr(Y[case](), "data", Y[case]())
    cores.clear()
    y.compute(scheduler="tidegate", num_workers=2)
    c = cores[-1]
    out[case] = (c.graph, list(c.nbytes), [c.workers[0].budget])
pickle.dump(out, open(sys.argv[2], "wb"))
