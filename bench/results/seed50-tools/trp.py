import sys, runpy
exec(open(sys.argv[1]).read())
sys.argv = ["tr.py"] + sys.argv[2:]
runpy.run_path("/work/wt/seed50/bench/results/small46-tools/tr.py", run_name="__main__")
