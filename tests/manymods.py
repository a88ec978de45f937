#!/usr/bin/env python3
"""manymods.py — a raw dump that names many real shared libraries of this
machine, and readelf's names for its samples (tests/0243, the fuzz seed).

    manymods.py make N DUMP EXPECT   a v2 dump of N libraries of the machine's
                                     multiarch directory, each mapped as the
                                     loader maps it (one line per PT_LOAD) at
                                     its own base, with its build-id, one
                                     sample per library at a function and one
                                     stack through all of them; EXPECT gets
                                     "ADDRESS NAME..." per sampled address:
                                     the names readelf -sW lists at it
    manymods.py check EXPECT SYM     every frame of zt-symbolize's output SYM
                                     at an address of EXPECT is named by one of
                                     readelf's names for it, offset included

The oracle is readelf (binutils), never zt. Libraries with a separate debug
file under /usr/lib/debug are left out (their names could come from it), and
so are C++ symbols (zt demangles them).
"""
import os
import re
import subprocess
import sys


def readelf(path, opts):
    return subprocess.run(["readelf", "-W"] + opts + [path], capture_output=True,
                          text=True, check=False).stdout


def libdir():
    arch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True,
                          text=True, check=False).stdout.strip() or "x86_64-linux-gnu"
    return "/usr/lib/" + arch


def describe(path):
    """(loads, buildid, func address -> names) of one ELF shared object, or None."""
    hdr = readelf(path, ["-h"])
    if "DYN (Shared object file)" not in hdr:
        return None
    loads = []
    for line in readelf(path, ["-l"]).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            off, vaddr, filesz, memsz = (int(f[i], 16) for i in (1, 2, 4, 5))
            flags = " ".join(f[6:-1])
            loads.append((off, vaddr, filesz, memsz, "E" in flags))
    m = re.search(r"Build ID: ([0-9a-f]+)", readelf(path, ["-n"]))
    if not loads or not m:
        return None
    bid = m.group(1)
    if os.path.exists("/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:])):
        return None
    names = {}
    funcs = set()
    for line in readelf(path, ["-s"]).splitlines():
        f = line.split()
        if len(f) < 8 or not re.match(r"[0-9]+:$", f[0]) or f[6] in ("UND", "ABS"):
            continue
        value = int(f[1], 16)
        name = re.sub(r"@.*", "", f[7])
        names.setdefault(value, set()).add(name)
        if f[3] == "FUNC" and int(f[2], 0) >= 8 and value:
            funcs.add(value)
    # A function whose every name is a plain C one, inside an executable load.
    for value in sorted(funcs):
        if any(n.startswith("_Z") or n.startswith("_R") for n in names[value]):
            continue
        if any(l[4] and l[1] <= value < l[1] + l[2] for l in loads):
            return loads, bid, value, names[value]
    return None


def make(n, dump, expect):
    d = libdir()
    picked = []
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if not re.match(r"lib.*\.so\.", name) or os.path.islink(path) or \
           not os.path.isfile(path) or os.path.getsize(path) > 8 << 20:
            continue
        desc = describe(path)
        if desc:
            picked.append((path,) + desc)
        if len(picked) == n:
            break
    if len(picked) < n:
        sys.exit("manymods.py: only %d usable libraries in %s" % (len(picked), d))
    maps, bids, samples, exp = [], [], [], []
    stack = []
    for i, (path, loads, bid, value, names) in enumerate(picked):
        base = 0x7f0000000000 + i * 0x10000000
        for off, vaddr, filesz, memsz, x in loads:
            start = base + (vaddr & ~0xfff)
            end = base + ((vaddr + memsz + 0xfff) & ~0xfff)
            maps.append("%x-%x r%sp %08x 08:01 %d   %s" %
                        (start, end, "-x" if x else "--", off & ~0xfff, 1000 + i, path))
        bids.append("%x %s %s" % (base + (loads[0][1] & ~0xfff), bid, path))
        pc = base + value + 4
        samples.append("1 1 %x" % pc)
        stack.append(pc)
        exp.append("%x %s" % (pc, " ".join(sorted(names))))
    # One stack through every library: leaf exact, the rest return addresses
    # (looked up at address - 1, still inside the function).
    samples.append("1 1 " + " ".join("%x" % a for a in stack))
    with open(dump, "w") as f:
        f.write("zt-prof 2\npid 1\nexe /bin/true\nhz 997\ntimer perf-task-clock\n")
        f.write("samples\n" + "\n".join(samples) + "\n")
        f.write("maps\n" + "\n".join(maps) + "\n")
        f.write("buildids\n" + "\n".join(bids) + "\n")
        f.write("threads\n1 manymods\nsummary\nsamples %d\nlost 0\nend\n" % (n + 1))
    with open(expect, "w") as f:
        f.write("\n".join(exp) + "\n")


def check(expect, sym):
    want = {}
    for line in open(expect):
        f = line.split()
        want[int(f[0], 16)] = set(f[1:])
    seen, bad = 0, 0
    for line in open(sym):
        m = re.match(r"^\t *([0-9a-f]+) (\S+)\+0x([0-9a-f]+) \((.*)\)$", line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        if addr not in want:
            continue
        seen += 1
        if m.group(2) not in want[addr] or int(m.group(3), 16) != 4:
            bad += 1
            print("0x%x: zt says %s+0x%s, readelf says %s+0x4" %
                  (addr, m.group(2), m.group(3), "|".join(sorted(want[addr]))))
    print("frames checked: %d, wrong: %d" % (seen, bad))
    sys.exit(1 if bad or seen == 0 else 0)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "make":
        make(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: manymods.py make N DUMP EXPECT | check EXPECT SYM")
