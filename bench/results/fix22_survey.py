# rereadable counts over typical graphs, and the non-function callables dask puts in producers
import sys, tempfile, warnings, collections, types, numpy as np, dask, dask.array as da, zarr, xarray as xr
warnings.simplefilter("ignore")
from dask._task_spec import Task, DataNode, GraphNode
import tidegate.bridge as b
d = tempfile.mkdtemp()
zarr.open_array(d + "/a.zarr", mode="w", shape=(16, 20), chunks=(4, 10), dtype="f8")[:] = 1.0
zarr.open_array(d + "/o.zarr", mode="w", shape=(16, 20), chunks=(4, 10), dtype="f8")
xr.Dataset({"v": (("t", "x"), np.ones((16, 20))), "w": (("t", "x"), np.ones((16, 20)))},
           coords={"t": np.arange(16), "x": np.arange(20)}).chunk({"t": 4}).to_zarr(d + "/x.zarr", mode="w")
base = da.from_zarr(d + "/a.zarr")
ds = xr.open_zarr(d + "/x.zarr")
cases = {
  "from_zarr": lambda: base, "arith": lambda: base * 2 + 1, "sum": lambda: base.sum(axis=0),
  "mean": lambda: base.mean(), "rechunk": lambda: base.rechunk((16, 5)), "std": lambda: base.std(axis=1),
  "overlap": lambda: base.map_overlap(np.negative, depth=1, boundary="reflect"),
  "sin": lambda: da.sin(base), "where": lambda: da.where(base > 0, base, 0), "astype": lambda: base.astype("f4"),
  "transpose": lambda: base.T.sum(0), "cumsum": lambda: base.cumsum(axis=0), "argmax": lambda: base.argmax(axis=0),
  "clip": lambda: base.clip(0, 1), "isnan": lambda: da.isnan(base).sum(), "nanmean": lambda: da.nanmean(base, axis=0),
  "diff": lambda: da.diff(base, axis=0), "stack": lambda: da.stack([base, base]).sum(0), "percentile": lambda: da.percentile(base.ravel(), 50),
  "store_other": lambda: da.store(base * 2, zarr.open_array(d + "/o.zarr", mode="r+"), lock=False, compute=False),
  "xr_mean": lambda: ds.v.mean("t"), "xr_anom": lambda: ds.v - ds.v.mean("t"),
  "xr_groupby": lambda: ds.v.groupby(ds.t % 2).mean(), "xr_rolling": lambda: ds.v.rolling(t=3).mean(),
  "xr_shift": lambda: ds.v.shift(t=1).fillna(0) + ds.v, "xr_diff": lambda: ds.v.diff("t"),
  "xr_resample_like": lambda: ds.v.coarsen(t=2).mean(), "xr_where": lambda: ds.v.where(ds.v > 0),
  "xr_to_other": lambda: (ds + 1).to_zarr(d + "/y.zarr", mode="w", compute=False),
  "xr_interp_like": lambda: ds.v.isel(t=slice(0, 8)) * ds.w.isel(t=slice(8, 16)).values,
}
odd = collections.Counter()
def walk(node):
    stack=[node]
    while stack:
        x=stack.pop()
        if isinstance(x, Task):
            f=x.func; stack.extend(x.args); stack.extend(x.kwargs.values())
        elif isinstance(x, DataNode): stack.append(x.value); continue
        elif isinstance(x,(list,tuple,set,frozenset)): stack.extend(x); continue
        elif isinstance(x, dict): stack.extend(x.values()); continue
        elif isinstance(x, GraphNode): stack.extend(getattr(x,"args",()) or ()); continue
        elif callable(x) and not isinstance(x, type): f=x
        else: continue
        if not isinstance(f, (types.FunctionType, types.BuiltinFunctionType)):
            odd[f"{type(f).__module__}.{type(f).__qualname__}"] += 1
out = {}
for name, make in cases.items():
    x = make()
    if hasattr(x, "__dask_graph__"):
        (x,) = dask.optimize(x)
        dsk = dask._task_spec.convert_legacy_graph(dict(dask.base.collections_to_expr([x]).__dask_graph__()))
        keys = list(dask.core.flatten(x.__dask_keys__()))
    g = b.to_taskgraph(dsk, keys)
    r = g.root & ~g.constant
    out[name] = (int(g.rereadable.sum()), int(r.sum()))
    for k in g.keys:
        n = dsk[k]
        if isinstance(n, Task) and n.data_producer: walk(n)
for k, v in out.items(): print(f"{k:18s} rereadable {v[0]:3d} of roots {v[1]:3d}")
print(dict(odd))
