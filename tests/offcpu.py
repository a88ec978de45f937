#!/usr/bin/env python3
"""offcpu.py -- read a wall-clock raw dump (version 5) the way the off-CPU
tests need, from its text alone (tests/0900-collect-offcpu.bats).

  offcpu.py shares DUMP TRUTH     per thread of samples/waits' TRUTH file:
                                  "name truth measured ticks" in percent:
                                  of the thread's life, off-CPU (blocked)
                                  time; of the sampler's ticks, the ones
                                  its samples stand for
  offcpu.py waits DUMP            "tid wait weight-ns lines" per thread and wait
  offcpu.py v4 DUMP               the dump as version 4, its off-CPU samples
                                  only, not those waiting for a CPU (weights
                                  and waits dropped), so that
                                  zt-symbolize and zt-fold name their frames
  offcpu.py check DUMP            every sample line of a wall dump has a
                                  weight; prints the number of lines
  offcpu.py life DUMP TRUTH       as shares, over the thread's whole life
                                  (its end too): "name truth measured lines
                                  gap", gap the ms from the last line's time
                                  to the thread's end
  offcpu.py waiting DUMP TRUTH    per thread of TRUTH: "name truth measured
                                  lines", in percent of its life, its time
                                  waiting for a CPU (schedstat's delay; the
                                  weights of its "waiting for a CPU" lines)
  offcpu.py states DUMP TRUTH     per thread of samples/systime's TRUTH and
                                  state: "name state truth measured
                                  split", in
                                  percent of its life: user (utime; its CPU
                                  samples), system (stime; its "in the
                                  kernel" lines), off (life - exec - delay;
                                  its waits), waiting (delay; its "waiting
                                  for a CPU" lines); split: for user and
                                  system, the uncertainty of the kernel's
                                  tick-based split of CPU time (3 sigma)

Truth: (end - start) - exec - delay of the thread's own schedstat.
Measured: the weights of its off-CPU samples (not "waiting for a CPU"),
over the span from its start to the last tick they stand for (the time
the sampler could account for).
"""
import sys

# Lines written with a wait's syntax that are not off-CPU time: a thread
# runnable but not on a CPU, and a thread's system time on a CPU.
NOT_OFF = ('waiting for a CPU', 'in the kernel')


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and i + 3 < len(s) + 1:
            out.append(chr(int(s[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)


def read(path):
    """header dict, sample lines as (tid, count, ns, weight, wait, words)."""
    header, samples, sec = {}, [], None
    with open(path) as f:
        lines = f.read().split('\n')
    if not lines[0].startswith('zt-prof '):
        sys.exit('offcpu.py: %s: not a raw dump' % path)
    header['version'] = lines[0].split()[1]
    for line in lines[1:]:
        if line in ('samples', 'maps', 'buildids', 'threads', 'summary', 'perfmap', 'end') \
                or line.startswith('maps @'):
            sec = line.split()[0]
            continue
        if sec is None or sec == 'summary':
            k, _, v = line.partition(' ')
            header[k] = v
        elif sec == 'samples' and line:
            w = line.split(' ')
            tid, count, rest = int(w[0]), int(w[1]), w[2:]
            ns = weight = None
            wait = None
            while rest and rest[0][:1] in '@^!':
                m, v = rest[0][0], rest[0][1:]
                if m == '@':
                    ns = int(v)
                elif m == '^':
                    weight = int(v)
                else:
                    wait = unescape(v)
                rest = rest[1:]
            samples.append((tid, count, ns, weight, wait, rest, line))
    return header, samples


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    header, samples = read(path)
    if cmd == 'check':
        bad = [s[6] for s in samples if s[3] is None]
        if bad:
            sys.exit('offcpu.py: a line without a weight: ' + bad[0])
        print(len(samples))
    elif cmd == 'waits':
        acc = {}
        for tid, count, ns, weight, wait, words, _ in samples:
            if wait is None or wait == 'in the kernel':
                continue
            k = (tid, wait)
            a = acc.setdefault(k, [0, 0])
            a[0] += weight * count
            a[1] += 1
        for (tid, wait), (w, n) in sorted(acc.items()):
            print('%d %s %d %d' % (tid, wait.replace(' ', '_'), w, n))
    elif cmd == 'v4':
        with open(path) as f:
            text = f.read().split('\n')
        out, sec = ['zt-prof 4'], None
        for line in text[1:]:
            if line in ('samples', 'buildids', 'threads', 'summary', 'perfmap', 'end') \
                    or line == 'maps' or line.startswith('maps @'):
                sec = line.split()[0]
                out.append(line)
                continue
            if sec is None and line.split(' ')[0] in ('profile-clock', 'off-cpu-hz'):
                continue
            if sec == 'summary' and line.split(' ')[0] in (
                    'off-cpu-samples', 'off-cpu-repeated', 'off-cpu-torn',
                    'sampler-cpu-ns', 'wall-ns'):
                continue
            if sec == 'samples' and line:
                w = line.split(' ')
                # Blocked samples only: a "waiting for a CPU" line stands at
                # a preempted thread's CPU stack, not where it waited.
                if not any(x.startswith('!') for x in w) or \
                        '!waiting\\040for\\040a\\040CPU' in w or \
                        '!in\\040the\\040kernel' in w:
                    continue
                w = [x for x in w if x[:1] not in '^!']
                # The exact pc first: v4 writes it bare.
                if len(w) > 3 and w[3].startswith('='):
                    w[3] = w[3][1:]
                line = ' '.join(w)
            out.append(line)
        sys.stdout.write('\n'.join(out))
    elif cmd == 'shares':
        start_ns = int(header['start-ns'])
        for t in open(sys.argv[3]):
            name, tid, start, end, exec_ns, delay = t.split()
            tid, start, end = int(tid), int(start), int(end)
            life = end - start
            truth = (life - int(exec_ns) - int(delay)) / life
            off, last, ticks = 0, start, 0
            for stid, count, ns, weight, wait, words, _ in samples:
                if stid != tid or wait is None or wait in NOT_OFF:
                    continue
                off += weight * count
                ticks += count
                last = max(last, start_ns + ns)
            # A line's time is the last tick it stands for: the sampler
            # accounts for a thread up to the last tick that saw it alive,
            # which on a loaded machine may come well before it ends.
            seen = min(last, end) - start if last > start else life
            hz = int(header.get('off-cpu-hz', '97'))
            print('%s %.1f %.1f %.0f' % (name, 100 * truth, 100 * off / seen,
                                         100 * ticks / (hz * seen / 1e9)))
    elif cmd == 'life':
        for t in open(sys.argv[3]):
            name, tid, start, end, exec_ns, delay = t.split()
            tid, life = int(tid), int(end) - int(start)
            truth = life - int(exec_ns) - int(delay)
            got = [s for s in samples if s[0] == tid and s[4] is not None
                   and s[4] not in NOT_OFF]
            w = sum(s[3] * s[1] for s in got)
            last = max([int(header['start-ns']) + s[2] for s in got] or [int(start)])
            print('%s %.1f %.1f %d %.0f' % (name, 100 * truth / life, 100 * w / life, len(got),
                                            (int(end) - last) / 1e6))
    elif cmd == 'waiting':
        for t in open(sys.argv[3]):
            name, tid, start, end, exec_ns, delay = t.split()
            tid, life = int(tid), int(end) - int(start)
            got = [s for s in samples if s[0] == tid and s[4] == 'waiting for a CPU']
            w = sum(s[3] * s[1] for s in got)
            print('%s %.1f %.1f %d' % (name, 100 * int(delay) / life, 100 * w / life,
                                       len(got)))
    elif cmd == 'states':
        for t in open(sys.argv[3]):
            name, tid, start, end, exec_ns, delay, utime, stime = t.split()
            tid, life = int(tid), int(end) - int(start)
            truth = {'user': int(utime), 'system': int(stime),
                     'off': life - int(exec_ns) - int(delay), 'waiting': int(delay)}
            got = dict.fromkeys(truth, 0)
            for stid, count, ns, weight, wait, words, _ in samples:
                if stid != tid:
                    continue
                k = 'user' if wait is None else 'system' if wait == 'in the kernel' \
                    else 'waiting' if wait == 'waiting for a CPU' else 'off'
                got[k] += weight * count
            # The kernel splits a thread's CPU time into utime and stime
            # by its timer ticks: N ticks of which a share p found it in
            # user space, a binomial count. Three standard deviations of
            # it, in points of the thread's life, at the lowest HZ a
            # kernel is built with (100: the widest bound).
            ticks = (int(utime) + int(stime)) / 1e7
            p = int(utime) / max(int(utime) + int(stime), 1)
            split = 100 * 3 * (ticks * p * (1 - p)) ** 0.5 * 1e7 / life
            tol = {'user': split, 'system': split, 'off': 0, 'waiting': 0}
            for k in ('user', 'system', 'off', 'waiting'):
                print('%s %s %.1f %.1f %.1f' % (name, k, 100 * truth[k] / life,
                                                100 * got[k] / life, tol[k]))
    else:
        sys.exit('offcpu.py: unknown command ' + cmd)


main()
