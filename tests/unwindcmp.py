#!/usr/bin/env python3
"""unwindcmp.py — zt's stacks against perf --call-graph dwarf's, on one program.

  unwindcmp.py compare [--slack POINTS] [--top N] [--max-diff POINTS] REF OTHER
      print both profiles' numbers on stderr (samples, median depth, the
      share of samples reaching the entry, and the total share of the union
      of both top-N functions) and exit 1 unless OTHER's entry share is at
      least REF's minus POINTS (default 0) and every one of those functions'
      total shares differ by at most --max-diff points (default 3)
  unwindcmp.py row REF OTHER
      one markdown row fragment for OTHER: "samples | median depth |
      entry share | largest top-10 difference from REF"
  unwindcmp.py spread [--top N] [--object TEXT] GROUP=PROFILE...
      the run-to-run spread of several runs per group (e.g. zt=zt:... five
      times, perf=perf:... five times): for the N functions (default 5)
      with the largest mean self share over all runs, in an object whose
      path holds TEXT, each group's mean, standard deviation and range of
      the self share and of the total share, next to the standard
      deviation that sampling alone gives (binomial, sqrt(p(1-p)/n) at
      each run's n), and their ratio over all those functions (the
      dispersion: observed variance over binomial variance, about 1 when
      the runs differ by sampling alone); then the same for each thread's
      share of the samples (the main thread first, the others in tid
      order: perf script's -F must give pid and tid for the main thread to
      be told apart); then the wall-clock intervals between a thread's
      consecutive samples (zt's stream must be one record per sample, as
      zt-symbolize writes it without --merge)
  unwindcmp.py pair REF OTHER
      the same fragment for OTHER, then on a second line REF's own
      "samples | median depth | entry share", then on a third the function
      that differs most: "label | OTHER's share | REF's share" (each ELF
      file is read once)
  unwindcmp.py self [--top N] REF OTHER
      the N functions (default 5) with the largest self share (the
      sample's innermost frame) in each profile, OTHER's first then REF's
      that are not among them, one a line: "label | OTHER's self share |
      REF's self share"
  unwindcmp.py leaf TEXT FILE...
      over all the records of the perf script layout FILEs (perf's, or
      zt-symbolize's of several dumps, as zt-collect -f writes them): the
      samples, and the share of them whose innermost frame's object path
      holds TEXT: "samples | share" (no ELF file is read)

A profile is "perf:FILE", the text of `perf script --no-inline -F
comm,tid,time,event,ip,sym,dso` (no period field: every record is one
sample; periods are nanoseconds and are never used), or "zt:SYM:RAW",
zt-symbolize's output and the raw dump it came from (whose maps turn zt's
process addresses into file offsets). The tests make them; this file only
reads them. Standard library only; readelf (binutils) reads the ELF files.

What is measured, the same way for both tools:

- A sample is one perf record, or one of the N samples of a zt record
  ("N zt-samples"). Shares are of all samples.
- A stack *reaches the program's entry* when its root frame (the outermost)
  is the thread's first function: in the main thread `_start`, recognized as
  the function (the .eh_frame FDE) holding its object's ELF entry point,
  because a stripped executable (Debian's xz) has no name for it and both
  tools show it as [xz]; in another thread glibc's clone entry, named
  `clone3` by perf and `__GI___clone3` by zt (both from libc6-dbg's symbol
  table; the same address), or clone/__clone; or, for a sample taken while
  the dynamic loader runs the libraries' constructors before the program's
  _start, `_dl_start_user`, the loader's entry code, which has no FDE (perf
  shows such stacks as whole; names from libc6-dbg). A zt stack that its collector
  marked partial (the `[truncated]` root frame) never reaches it.
- A *function* is identified by address, not by name: the object file and
  the start of the .eh_frame FDE that covers the frame's pc. Each frame's pc
  becomes a file offset (perf prints frames as offsets in their mapping;
  zt's are process addresses, mapped with the dump's maps), then a link-time
  address through the PT_LOAD headers. Caller frames are looked up at pc - 1
  (a call that ends a function must not be charged to the next one; perf's
  dwarf unwinder already prints return address - 1, and pc - 2 is still
  inside the call instruction). This is why no name needs normalizing: the
  tools do name some functions differently (perf `clone3`, zt
  `__GI___clone3`; with inlined frames perf even calls
  `__libc_start_main@@GLIBC_2.34` `__libc_start_main_impl`, hence
  --no-inline), and Debian's python3 and liblzma have many functions with no
  name at all, which both print as [unknown]/[module]. Names are only
  labels: the first name either tool gave, else "module+0xSTART". A pc that
  no FDE covers (a PLT stub, the vdso) is identified by its name, or by its
  module if it has none.
- A function's *total share* is the share of samples whose stack holds it at
  least once (recursion counts once). The top N are the N largest by that
  share in each profile; both profiles' top N are compared.
- *Depth* is the number of frames of a sample, the [truncated] mark not
  counted; the median is over samples.

Limits: a pc that zt found through a signal frame (an exact pc, "=hex" in
the dump) is still looked up at pc - 1 here; none occurs in the workloads
the tests use (no signal handlers on their stacks).
"""
import bisect
import gzip
import os
import re
import subprocess
import sys

ENTRY_NAMES = {"_start", "_dl_start_user",
               "clone3", "__clone3", "__GI___clone3", "clone", "__clone", "__GI___clone"}

_elf_cache = {}


class Elf:
    """The few facts about one ELF file that identify a function: PT_LOADs,
    the sorted FDE ranges and the entry point."""

    def __init__(self, path):
        self.loads = []
        self.starts = []
        self.ends = []
        self.entry = None
        if not path.startswith("/") or not os.path.isfile(path):
            return
        hdr = subprocess.run(["readelf", "-hlW", path], capture_output=True, text=True).stdout
        for line in hdr.splitlines():
            f = line.split()
            if line.strip().startswith("Entry point address:"):
                self.entry = int(f[-1], 16)
            elif f and f[0] == "LOAD":
                self.loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
        frames = subprocess.run(["readelf", "--debug-dump=frames", path],
                                capture_output=True, text=True).stdout
        ranges = sorted((int(m.group(1), 16), int(m.group(2), 16))
                        for m in re.finditer(r" FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", frames))
        self.starts = [a for a, _ in ranges]
        self.ends = [b for _, b in ranges]

    def vaddr(self, off):
        for p_off, p_vaddr, p_filesz in self.loads:
            if p_off <= off < p_off + p_filesz:
                return p_vaddr + off - p_off
        return None

    def fde(self, vaddr):
        """The start of the FDE covering link-time address vaddr, or None."""
        i = bisect.bisect_right(self.starts, vaddr) - 1
        if i >= 0 and vaddr < self.ends[i]:
            return self.starts[i]
        return None


def elf(path):
    if path not in _elf_cache:
        _elf_cache[path] = Elf(path)
    return _elf_cache[path]


def read_maps(raw):
    """The dump's maps section: (start, end, offset, path) of file mappings."""
    with open(raw, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    maps = []
    inside = False
    for line in data.decode("utf-8", "replace").splitlines():
        if line == "maps" or line.startswith("maps @"):
            inside = True
            continue
        if inside:
            f = line.split(None, 5)
            if len(f) < 5 or "-" not in f[0]:
                if line in ("threads", "summary", "end", "builds", "build-ids"):
                    inside = False
                continue
            if len(f) == 6 and f[5].startswith("/"):
                a, b = f[0].split("-")
                path = f[5]
                if path.endswith(" (deleted)"):
                    path = path[:-len(" (deleted)")]
                maps.append((int(a, 16), int(b, 16), int(f[2], 16), path))
    return maps


HEADER = re.compile(r"^\S.*?\s+(?:(\d+)/)?(\d+)\s+([\d.]+):\s+(?:(\d+)\s+)?(\S+):\s*$")
# The object is the last parenthesized field: a demangled C++ name holds
# " (" too (zt's "RunSafely(llvm::function_ref<void ()>)+0xdd").
FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*)\s+\(([^()]*)\)\s*$")


def records(path):
    """Yield (count, frames, thread, time) from perf script layout, frames
    leaf first as (pc, name or None, object path); count is the zt-samples
    count, else 1; thread is (pid or None, tid), as the header gives them;
    time is the header's, in seconds."""
    count, frames, tid, when = None, [], None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                if count is not None:
                    yield count, frames, tid, when
                count, frames = None, []
                continue
            m = FRAME.match(line)
            if m and count is not None:
                name = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
                if name == "[unknown]" or (name.startswith("[") and name.endswith("]")
                                           and name != "[truncated]"):
                    name = None
                frames.append((int(m.group(1), 16), name, m.group(3)))
                continue
            m = HEADER.match(line)
            if not m:
                raise SystemExit("unwindcmp.py: '%s': not a record header or frame: %r" % (path, line))
            if count is not None:
                yield count, frames, tid, when
            event = m.group(5)
            count = int(m.group(4)) if event == "zt-samples" and m.group(4) else 1
            frames, tid = [], (int(m.group(1)) if m.group(1) else None, int(m.group(2)))
            when = float(m.group(3))
    if count is not None:
        yield count, frames, tid, when


class Profile:
    """Per-sample facts of one profile: depth, entry, functions."""

    def __init__(self, spec):
        kind, _, rest = spec.partition(":")
        if kind == "perf":
            self.tool, path, maps = "perf", rest, None
        elif kind == "zt":
            self.tool = "zt"
            path, _, raw = rest.partition(":")
            maps = read_maps(raw)
            map_starts = [m[0] for m in maps]
        else:
            raise SystemExit("unwindcmp.py: bad profile '%s' (perf:FILE or zt:SYM:RAW)" % spec)
        self.samples = 0
        self.entry = 0
        self.depths = {}
        self.total = {}
        self.self = {}
        self.threads = {}
        self.labels = {}
        self.misses = []
        self.times = {}
        for count, frames, tid, when in records(path):
            truncated = any(name == "[truncated]" for _, name, _ in frames)
            frames = [fr for fr in frames if fr[1] != "[truncated]"]
            keys = []
            for i, (pc, name, obj) in enumerate(frames):
                off = None
                # Anonymous executable memory (JIT code): perf names its
                # module /tmp/perf-PID.map whether or not that file exists,
                # zt //anon or the perf map; one module for both.
                if obj == "//anon" or re.match(r"/tmp/perf-\d+\.map$", obj):
                    obj = "[jit]"
                if maps is None:
                    off = pc if obj.startswith("/") else None
                else:
                    j = bisect.bisect_right(map_starts, pc) - 1
                    if j >= 0 and pc < maps[j][1] and maps[j][3] == obj:
                        off = pc - maps[j][0] + maps[j][2]
                e = elf(obj)
                va = e.vaddr(off - (1 if i > 0 else 0)) if off is not None else None
                start = e.fde(va) if va is not None else None
                base = os.path.basename(obj)
                if start is not None:
                    key = (obj, start)
                    label = name or "%s+0x%x" % (base, start)
                    if not name and e.entry is not None and e.fde(e.entry) == start:
                        label += " (entry)"
                else:
                    key = (obj, name)
                    label = name or "[%s]" % base
                self.labels.setdefault(key, label)
                keys.append((key, start, va, e, name))
            self.samples += count
            self.depths[len(frames)] = self.depths.get(len(frames), 0) + count
            at_entry = False
            if frames and not truncated:
                _, start, va, e, name = keys[-1]
                at_entry = (name in ENTRY_NAMES or
                            (start is not None and e.entry is not None and
                             e.fde(e.entry) == start))
                if at_entry:
                    self.entry += count
            if (not frames or truncated or not at_entry) and len(self.misses) < 5:
                names = ((["[truncated]"] if truncated else []) +
                         [self.labels[k[0]] for k in reversed(keys)])
                if len(names) > 10:
                    names = names[:6] + ["...%d frames..." % (len(names) - 9)] + names[-3:]
                self.misses.append((count, ";".join(names)))
            for key in {k[0] for k in keys}:
                self.total[key] = self.total.get(key, 0) + count
            if keys:
                self.self[keys[0][0]] = self.self.get(keys[0][0], 0) + count
            self.threads[tid] = self.threads.get(tid, 0) + count
            self.times.setdefault(tid, []).append(when)
        if self.samples == 0:
            raise SystemExit("unwindcmp.py: '%s': no samples" % path)

    def share(self, key):
        return 100.0 * self.total.get(key, 0) / self.samples

    def entry_share(self):
        return 100.0 * self.entry / self.samples

    def median_depth(self):
        seen = 0
        for d in sorted(self.depths):
            seen += self.depths[d]
            if 2 * seen >= self.samples:
                return d
        return 0

    def top(self, n):
        return sorted(self.total, key=lambda k: (-self.total[k], self.labels[k]))[:n]


def compared(ref, other, n):
    """The union of both top-n lists, largest (in ref) first, with each one's
    shares and their difference in points."""
    keys = ref.top(n) + [k for k in other.top(n) if k not in ref.top(n)]
    rows = []
    for k in keys:
        label = ref.labels.get(k) or other.labels.get(k)
        rows.append((label, k in ref.top(n), k in other.top(n), ref.share(k), other.share(k),
                     abs(ref.share(k) - other.share(k))))
    return rows


def cmd_compare(args):
    slack, n, max_diff = 0.0, 10, 3.0
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--slack":
            slack = float(args.pop(0))
        elif opt == "--top":
            n = int(args.pop(0))
        elif opt == "--max-diff":
            max_diff = float(args.pop(0))
        else:
            usage()
    if len(args) != 2:
        usage()
    ref, other = Profile(args[0]), Profile(args[1])
    err = sys.stderr
    a, b = ref.tool, other.tool
    print("%-44s %9s %9s %6s" % ("tool", b, a, "diff"), file=err)
    print("%-44s %9d %9d" % ("samples", other.samples, ref.samples), file=err)
    print("%-44s %9d %9d" % ("median depth", other.median_depth(), ref.median_depth()), file=err)
    print("%-44s %8.2f%% %8.2f%% %6.2f" % ("reaching the entry", other.entry_share(),
                                             ref.entry_share(), other.entry_share() - ref.entry_share()), file=err)
    print("total share of the top %d functions (* = in that tool's top %d):" % (n, n), file=err)
    worst = 0.0
    for label, in_ref, in_other, rs, os_, d in compared(ref, other, n):
        worst = max(worst, d)
        print("  %-42s %8.2f%%%s %8.2f%%%s %6.2f%s" % (label[:42], os_, "*" if in_other else " ",
                                                      rs, "*" if in_ref else " ", d,
                                                      "  <-- over %g" % max_diff if d > max_diff else ""),
              file=err)
    for p in (other, ref):
        for count, stack in p.misses:
            print("%s: not reaching the entry (%d): %s" % (p.tool, count, stack), file=err)
    ok = True
    if other.entry_share() < ref.entry_share() - slack:
        print("FAIL: %s's stacks reach the entry in %.2f%% of samples, %s's in %.2f%% (slack %g)"
              % (b, other.entry_share(), a, ref.entry_share(), slack), file=err)
        ok = False
    if worst > max_diff:
        print("FAIL: a top-%d function's total share differs by %.2f points (at most %g)"
              % (n, worst, max_diff), file=err)
        ok = False
    print("%s: entry %s %.2f%% %s %.2f%%, top-%d max diff %.2f points" %
          ("ok" if ok else "FAIL", b, other.entry_share(), a, ref.entry_share(), n, worst), file=err)
    return 0 if ok else 1


def short(label):
    """label without a C++ name's parameters (zt's names carry them, perf's
    not), keeping the " (entry)" mark of an unnamed _start."""
    if label.endswith(" (entry)"):
        return label
    return label.split("(")[0] or label


def cmd_row(args):
    if len(args) != 2:
        usage()
    ref, other = Profile(args[0]), Profile(args[1])
    worst = max(r[5] for r in compared(ref, other, 10))
    print("%d | %d | %.1f%% | %.1f" % (other.samples, other.median_depth(), other.entry_share(), worst))
    return 0


def cmd_pair(args):
    if len(args) != 2:
        usage()
    ref, other = Profile(args[0]), Profile(args[1])
    rows = compared(ref, other, 10)
    worst = max(rows, key=lambda r: r[5])
    print("%d | %d | %.1f%% | %.1f" % (other.samples, other.median_depth(), other.entry_share(), worst[5]))
    print("%d | %d | %.1f%%" % (ref.samples, ref.median_depth(), ref.entry_share()))
    print("%s | %.1f%% | %.1f%%" % (short(worst[0]).replace("|", "/"), worst[4], worst[3]))
    return 0


def cmd_self(args):
    n = 5
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--top":
            n = int(args.pop(0))
        else:
            usage()
    if len(args) != 2:
        usage()
    ref, other = Profile(args[0]), Profile(args[1])

    def top(p):
        return sorted(p.self, key=lambda k: (-p.self[k], p.labels[k]))[:n]
    keys = top(other) + [k for k in top(ref) if k not in top(other)]
    for k in keys:
        label = short(other.labels.get(k) or ref.labels.get(k))
        print("%s | %.1f%% | %.1f%%" % (label.replace("|", "/"), 100.0 * other.self.get(k, 0) / other.samples,
                                        100.0 * ref.self.get(k, 0) / ref.samples))
    return 0


def cmd_leaf(args):
    if len(args) < 2:
        usage()
    text, total, hit = args[0], 0, 0
    for path in args[1:]:
        for count, frames, _, _ in records(path):
            total += count
            if frames and text in frames[0][2]:
                hit += count
    print("%d | %.1f%%" % (total, 100.0 * hit / total if total else 0.0))
    return 0


def _stats(xs):
    m = sum(xs) / len(xs)
    sd = (sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5 if len(xs) > 1 else 0.0
    return m, sd


def _spread_table(title, names, groups, value):
    """One markdown table: a row per name, per group mean, sd, range and
    binomial sd of value(profile, name) (a fraction), then the dispersion
    of each group over all rows."""
    print("\n%s\n" % title)
    head = "| %s |" % names[0][0]
    rule = "| --- |"
    for g in groups:
        head += " %s mean | %s sd | %s range | %s sampling sd |" % (g, g, g, g)
        rule += " ---: | ---: | ---: | ---: |"
    print(head)
    print(rule)
    chi = {g: 0.0 for g in groups}
    dof = {g: 0 for g in groups}
    for label, key in names[1:]:
        line = "| %s |" % label
        for g, profs in groups.items():
            xs = [value(p, key) for p in profs]
            m, sd = _stats(xs)
            binom = [m * (1 - m) / p.samples for p in profs]
            line += " %.2f | %.2f | %.2f-%.2f | %.2f |" % (100 * m, 100 * sd, 100 * min(xs), 100 * max(xs),
                                                         100 * (sum(binom) / len(binom)) ** 0.5)
            if m > 0 and len(xs) > 1:
                chi[g] += sum((x - m) ** 2 / b for x, b in zip(xs, binom))
                dof[g] += len(xs) - 1
        print(line)
    print("\ndispersion (observed variance / sampling variance, over these rows): " +
          ", ".join("%s %.2f" % (g, chi[g] / dof[g] if dof[g] else 0.0) for g in groups))


def cmd_spread(args):
    n, obj = 5, ""
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--top":
            n = int(args.pop(0))
        elif opt == "--object":
            obj = args.pop(0)
        else:
            usage()
    groups = {}
    for a in args:
        g, eq, spec = a.partition("=")
        if not eq:
            usage()
        groups.setdefault(g, []).append(Profile(spec))
    if not groups:
        usage()
    allp = [p for profs in groups.values() for p in profs]
    keys = {k for p in allp for k in p.self if obj in k[0]}
    mean = {k: sum(p.self.get(k, 0) / p.samples for p in allp) / len(allp) for k in keys}
    labels = {}
    for p in allp:
        for k, v in p.labels.items():
            labels.setdefault(k, v)
    top = sorted(keys, key=lambda k: (-mean[k], labels[k]))[:n]
    print("runs: " + "; ".join("%s %s samples" % (g, ", ".join(str(p.samples) for p in profs))
                               for g, profs in groups.items()))
    names = [("function", None)] + [(labels[k], k) for k in top]
    _spread_table("Self share (%) of the functions with the largest mean self share:", names, groups,
                  lambda p, k: p.self.get(k, 0) / p.samples)
    _spread_table("Total share (%) of the same functions:", names, groups,
                  lambda p, k: p.total.get(k, 0) / p.samples)
    # The main thread (tid = pid) first, even without samples, then the
    # others in tid order (the order of their creation, unless tids wrapped).
    def others(p):
        return sorted(t for t in p.threads if t[0] is None or t[0] != t[1])
    nthreads = max(len(others(p)) for p in allp)
    tnames = ([("thread", None), ("main", -1)] +
              [("thread %d after it" % (i + 1), i) for i in range(nthreads)])

    def thread_share(p, i):
        if i < 0:
            return sum(v for t, v in p.threads.items() if t[0] == t[1]) / p.samples
        ts = others(p)
        return p.threads[ts[i]] / p.samples if i < len(ts) else 0.0
    _spread_table("Each thread's share (%) of the samples:", tnames, groups, thread_share)
    print("\nWall-clock time between a thread's consecutive samples (ms; the period is %.3f ms of"
          " the thread's CPU time, so a thread that waits or is preempted makes it longer):\n" % (1000 / 997))
    print("| profiler | intervals | 10th percentile | median | 90th percentile |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for g, profs in groups.items():
        gaps = sorted(b - a for p in profs for ts in p.times.values() for a, b in zip(ts, ts[1:]))
        if gaps:
            q = lambda f: 1000 * gaps[min(len(gaps) - 1, int(f * len(gaps)))]
            print("| %s | %d | %.3f | %.3f | %.3f |" % (g, len(gaps), q(0.1), q(0.5), q(0.9)))
    return 0


def usage():
    sys.stderr.write("usage: unwindcmp.py compare [--slack P] [--top N] [--max-diff P] REF OTHER\n"
                     "       unwindcmp.py row REF OTHER\n"
                     "       unwindcmp.py spread [--top N] [--object TEXT] GROUP=PROFILE...\n"
                     "       unwindcmp.py pair REF OTHER\n"
                     "       unwindcmp.py self [--top N] REF OTHER\n"
                     "       unwindcmp.py leaf TEXT FILE...\n"
                     "  REF, OTHER: perf:SCRIPT.txt or zt:SYM:RAW\n")
    sys.exit(2)


def main():
    if len(sys.argv) < 2:
        usage()
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "compare":
        return cmd_compare(args)
    if cmd == "row":
        return cmd_row(args)
    if cmd == "pair":
        return cmd_pair(args)
    if cmd == "spread":
        return cmd_spread(args)
    if cmd == "self":
        return cmd_self(args)
    if cmd == "leaf":
        return cmd_leaf(args)
    usage()


if __name__ == "__main__":
    sys.exit(main())
