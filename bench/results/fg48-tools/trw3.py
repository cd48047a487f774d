import sys, runpy
if "--hint" in sys.argv:
    sys.argv.remove("--hint")
    exec(open("/tmp/fg48/peekhint3.py").read())
sys.argv = ["tr.py"] + sys.argv[1:]
runpy.run_path("/work/wt/fg48/bench/results/small46-tools/tr.py", run_name="__main__")
