#!/bin/bash
# port.sh BRANCH: apply BRANCH's changes to src/tidegate/distributed/placement.py and
# src/tidegate/books.py (against main's pre-split 2681b18) to the split modules in the current
# directory, hunk by hunk (a hunk goes to the one module that accepts it).
set -e
B=$1
mkdir -p /tmp/lead52
python - "$B" <<'PY'
import re, subprocess, sys
B = sys.argv[1]
SPLITS = {
    "src/tidegate/distributed/placement.py": [
        "src/tidegate/distributed/" + m + ".py"
        for m in ("placement", "walks", "held_choice", "regions", "consumers")],
    "src/tidegate/books.py": ["src/tidegate/" + m + ".py"
                              for m in ("books", "books_admission", "books_placement")],
}
base = subprocess.run(["git", "-C", "/work/main", "merge-base", "2681b18", B],
                      capture_output=True, text=True, check=True).stdout.strip()
for old, parts in SPLITS.items():
    text = subprocess.run(["git", "-C", "/work/main", "diff", base, B, "--", old],
                          capture_output=True, text=True, check=True).stdout
    if not text.strip():
        print(f"{old}: no changes")
        continue
    head, *hunks = re.split(r"(?m)^(?=@@ )", text)
    for i, h in enumerate(hunks):
        one = "--- a/x.py\n+++ b/x.py\n" + h
        ok = []
        for f in parts:
            r = subprocess.run(["patch", "--dry-run", "-F", "0", f], input=one, text=True,
                               capture_output=True)
            if r.returncode == 0:
                ok.append(f)
        if len(ok) == 1:
            subprocess.run(["patch", "-F", "0", ok[0]], input=one, text=True, check=True,
                           capture_output=True)
            print(f"{old} hunk {i}: -> {ok[0]}")
        else:
            print(f"{old} hunk {i}: {'no part' if not ok else 'several: ' + ' '.join(ok)};"
                  f" by hand:\n{h}")
PY
