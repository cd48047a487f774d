# trace_twin with each key's group token tail shown (which array a load/split/merge is)
import sys, os, ast, runpy
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import trace_twin
def short(key, naming):
    try:
        k = ast.literal_eval(key)
    except (ValueError, SyntaxError):
        k = key
    name = k[0] if isinstance(k, tuple) else k
    from dask.utils import key_split
    g = key_split(name)
    idx = ",".join(map(str, k[1:])) if isinstance(k, tuple) else ""
    return f"{g[:10]}{name[-3:]}({idx})"
trace_twin.short = short
trace_twin.main()
