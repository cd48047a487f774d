import sys, runpy, os
# cellsp.py PATCH.py ARGS...: cells.py with a patch applied first
exec(open(sys.argv[1]).read())
sys.argv = ["cells.py"] + sys.argv[2:]
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cells.py"),
               run_name="__main__")
