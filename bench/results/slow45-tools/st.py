import sys, os
sys.argv = ["x", "worker", "5", "_off_lagging,_decide_worker_non_rootish"]
os.environ["W"] = "4"
import distributed.stealing as ST
orig = ST.WorkStealing.move_task_request
def mtr(self, ts, victim, thief):
    print(f"STEAL request {ts.key} {victim.address[-4:]} -> {thief.address[-4:]}")
    return orig(self, ts, victim, thief)
ST.WorkStealing.move_task_request = mtr
exec(open("/tmp/slow45/dec.py").read())
