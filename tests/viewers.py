#!/usr/bin/env python3
"""viewers.py — read a perf-script stream (zt-symbolize's output) as two
viewers' perf importers do, and print each leaf function's share:

  viewers.py speedscope FILE   each record weighs the time to the next record
                               of its thread (the period is ignored), as
                               speedscope's perf import does; a thread's last
                               record weighs its median gap
  viewers.py firefox FILE      each record is one sample, whatever its period,
                               as the Firefox Profiler's perf import does
  viewers.py folded FILE       shares from a folded file (zt-fold's), to
                               compare with

Output: "leaf share" lines, share in percent with 3 decimals, by name.
"""
import collections
import re
import statistics
import sys

HEADER = re.compile(r'^(\S.*?)\s+(\d+)/(\d+)\s+(\d+\.\d+):\s+(\d+)\s+(\S+):\s*$')


def records(path):
    """(tid, time, leaf) for each record."""
    rec, leaf = None, None
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#'):
                continue
            m = HEADER.match(line)
            if m:
                rec, leaf = (int(m.group(3)), float(m.group(4))), None
                continue
            if line.startswith('\t') and rec and leaf is None:
                parts = line.split()
                leaf = re.sub(r'\+0x[0-9a-f]+$', '', parts[1])
                continue
            if line == '' and rec:
                yield rec[0], rec[1], leaf
                rec = None
    if rec:
        yield rec[0], rec[1], leaf


def speedscope(path):
    by_thread = collections.defaultdict(list)
    for tid, t, leaf in records(path):
        by_thread[tid].append((t, leaf))
    w = collections.Counter()
    for recs in by_thread.values():
        recs.sort(key=lambda r: r[0])
        gaps = [b[0] - a[0] for a, b in zip(recs, recs[1:])]
        last = statistics.median(gaps) if gaps else 0.0
        for i, (t, leaf) in enumerate(recs):
            w[leaf] += gaps[i] if i < len(gaps) else last
    return w


def firefox(path):
    return collections.Counter(leaf for _, _, leaf in records(path))


def folded(path):
    w = collections.Counter()
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            stack, _, count = line.rstrip('\n').rpartition(' ')
            w[stack.split(';')[-1]] += int(count)
    return w


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('speedscope', 'firefox', 'folded'):
        sys.exit(__doc__)
    w = globals()[sys.argv[1]](sys.argv[2])
    total = sum(w.values())
    for leaf in sorted(w):
        print('%s %.3f' % (leaf, 100.0 * w[leaf] / total if total else 0.0))


main()
