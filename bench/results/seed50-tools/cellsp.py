import sys, runpy
# cellsp.py PATCH.py ARGS...: cells.py with a patch applied first
exec(open(sys.argv[1]).read())
sys.argv = ["cells.py"] + sys.argv[2:]
runpy.run_path("/tmp/seed50/cells.py", run_name="__main__")
