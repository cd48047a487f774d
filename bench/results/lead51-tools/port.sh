#!/bin/bash
# port.sh BRANCH: apply BRANCH's changes to src/tidegate/policy.py (against its merge base with
# main's pre-split HEAD 9b8221d) to the policy package parts in the current directory, hunk by hunk.
set -e
B=$1
git -C /work/main diff 9b8221d $B -- src/tidegate/policy.py > /tmp/lead51/port-$B.diff
python - "$B" <<'PY'
import re, subprocess, sys
B = sys.argv[1]
text = open(f"/tmp/lead51/port-{B}.diff").read()
if not text.strip():
    print("no policy.py changes"); sys.exit()
head, *hunks = re.split(r"(?m)^(?=@@ )", text)
parts = ["roots", "sizes", "place", "pace", "spread", "meetings", "partners", "further", "admit", "broadcast"]
for i, h in enumerate(hunks):
    one = "--- a/x.py\n+++ b/x.py\n" + h
    ok = []
    for p in parts:
        f = f"src/tidegate/policy/{p}.py"
        r = subprocess.run(["patch", "--dry-run", "-F", "0", f], input=one, text=True, capture_output=True)
        if r.returncode == 0:
            ok.append(f)
    if len(ok) == 1:
        subprocess.run(["patch", "-F", "0", ok[0]], input=one, text=True, check=True, capture_output=True)
        print(f"hunk {i}: -> {ok[0]}")
    else:
        print(f"hunk {i}: {'no part' if not ok else 'several: ' + ' '.join(ok)}; by hand:\n{h}")
PY
