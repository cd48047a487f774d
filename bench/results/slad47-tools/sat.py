import os, dask
dask.config.set({"tidegate.saturation": float(os.environ["SAT"])})
