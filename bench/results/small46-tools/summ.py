# small46: abra.py's lines as one line a cell: SAME / MOVED, old -> new (python summ.py FILE)
import re
import sys

pat = re.compile(r"(\S+) steps (\d+) (\S+) n=\d+ old time ([\d.]+) \(max [\d.]+\) peak ([\d.]+) "
                 r"\(max [\d.]+\) moved (\d+)MB \| new time ([\d.]+) \(max [\d.]+\) peak ([\d.]+) "
                 r"\(max [\d.]+\) moved (\d+)MB")
for line in open(sys.argv[1]):
    m = pat.match(line)
    if not m:
        continue
    n, s, sh, ot, op, om, nt, np_, nm = m.groups()
    flag = "SAME " if (ot, op, om) == (nt, np_, nm) else "MOVED"
    print(f"{n:14s} {s:>3s} {sh:4s} {flag} time {ot} -> {nt}  peak {op} -> {np_}  "
          f"moved {om} -> {nm}")
