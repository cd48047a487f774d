# experiment: a finished root that is a shared handle (is_handle with its measured size) holds
# no data in flight: its readers are the roots (HANDLE_NO_DATA 1: on >1-thread clusters; 2: all)
import tidegate.policy as P
import tidegate.books as B
from tidegate.distributed.tasks import _constant
P.HANDLE_NO_DATA = 0
_o = B.Books.root_holds_data
def root_holds_data(self, task, group, nbytes, feeds, chained, key=None):
    r = _o(self, task, group, nbytes, feeds, chained, key)
    if r and P.HANDLE_NO_DATA and hasattr(task, "dependents"):
        if P.is_one_handle(sum(not _constant(d) for d in task.dependencies),
                            len(task.dependents), nbytes):
            mode = P.HANDLE_NO_DATA
            # threads per worker: look at books
            ws = self.workers
            thr = sum(b.threads for b in ws.values()) / max(1, len(ws))
            if mode == 2 or thr > 1:
                return False
    return r
B.Books.root_holds_data = root_holds_data
