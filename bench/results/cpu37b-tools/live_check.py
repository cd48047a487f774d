"""(cpu37b, session 37) Is the batch used on a live Scheduler? A tidegate LocalCluster 2 x 1
(in-process), one array sum; counts Admission._end_batch calls and the starts they send."""
import dask.array as da
from distributed import Client
from tidegate.distributed import admission
import tidegate.distributed as td
n = [0, 0]
orig = admission.Admission._end_batch
def end(self, s):
    n[0] += 1; n[1] += sum(map(len, self._batch[1].values())) if self._batch else 0
    return orig(self, s)
admission.Admission._end_batch = end
if __name__ == "__main__":
    with td.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as c, Client(c) as cl:
        x = da.random.random((4000, 4000), chunks=(250, 250))
        print(float((x + 1).sum().compute()))
        print("batches sent", n[0], "starts in them", n[1], "batchable", cl.run_on_scheduler(lambda dask_scheduler: dask_scheduler.plugins["tidegate"]._batchable))
