"""bench/twin_cells.py with --patch FILE (executed first; e.g. probe_await.py).
PYTHONPATH=src python cells_p.py --patch probe_await.py [twin_cells.py's arguments]"""
import runpy
import sys

args = sys.argv[1:]
while "--patch" in args:
    i = args.index("--patch")
    runpy.run_path(args[i + 1])
    del args[i:i + 2]
sys.argv = ["twin_cells.py"] + args
sys.path.insert(0, "bench")
import twin_cells  # noqa: E402

twin_cells.main()
