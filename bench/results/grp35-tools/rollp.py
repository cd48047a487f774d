import sys, runpy
p = sys.argv[1]
sys.argv = [sys.argv[0]] + sys.argv[2:]
if p != "none":
    exec(open(p).read())
sys.path.insert(0, "/tmp/grp35/bench")
import grp27_twin
grp27_twin.main()
