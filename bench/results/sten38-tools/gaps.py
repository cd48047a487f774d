"""Idle gaps per thread in a trace_twin.py output: python gaps.py TRACE.txt [-v]
Sums idle time (between a thread's tasks, and at the end up to the makespan) by the kinds
of the task before and after each gap (random_sample = a root's load)."""
import re, sys, collections
txt = open(sys.argv[1]).read().splitlines()
verbose = '-v' in sys.argv
m = re.search(r'makespan ([0-9.]+)', txt[0]); span = float(m.group(1))
w = None; th = collections.defaultdict(list)
for line in txt:
    if line.startswith('== '):
        w = line.split()[1].split('//')[-1]
    m = re.match(r'\s+(t\d+) ([0-9.]+)-([0-9.]+) (\S+)', line)
    if m and w:
        th[(w, m.group(1))].append((float(m.group(2)), float(m.group(3)), m.group(4).split('(')[0]))
kinds = collections.Counter(); counts = collections.Counter(); total = 0.0; busy = 0.0
for key, tasks in sorted(th.items()):
    tasks.sort(); prev_end, prev_kind = 0.0, 'START'
    for s, e, k in tasks + [(span, span, 'END')]:
        g = s - prev_end
        if g > 0.0003:
            kinds[(prev_kind, k)] += g; counts[(prev_kind, k)] += 1; total += g
            if verbose:
                print('  %s %s %.4f-%.4f %.1f ms %s -> %s' % (key[0], key[1], prev_end, s, g * 1e3, prev_kind, k))
        busy += e - s; prev_end, prev_kind = max(prev_end, e), k
print(txt[0])
print('threads %d busy %.4f idle %.4f (gaps > 0.3 ms)' % (len(th), busy, total))
for (a, b), g in kinds.most_common():
    print('  %-14s -> %-14s %3d gaps %6.1f ms' % (a, b, counts[(a, b)], g * 1e3))
