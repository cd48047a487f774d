# anom51 probe A: Placement._first_share asks the share even where its partners' worker's
# count is full (flight >= cap returned None: the books then admitted the root anyway).
import inspect, textwrap
from tidegate.distributed import placement as P
src = textwrap.dedent(inspect.getsource(P.Placement._first_share))
old = "if flight >= book.cap or not over_first_share(flight, 0, size, running):"
assert old in src
src = src.replace(old, "if not over_first_share(flight, 0, size, running):")
ns = {}
exec(compile(src, P.__file__, "exec"), P.__dict__, ns)
P.Placement._first_share = ns["_first_share"]
