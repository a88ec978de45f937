#!/usr/bin/env python3
"""heapcheck.py — zt's allocation profile against heaptrack's of the same
program (tests/0780): the top allocation sites by bytes allocated, from
heaptrack's interpreted data (zstd -dc FILE.zst) and from a zt raw dump's
"$a" lines (formats/raw.md, version 6), each site's share of the bytes.

Both runs are made with address randomization off (setarch -R), so that the
executable's code is at one address in both. A site is the allocator's
caller: in the executable, the call's return address; in a library, the
library (heaptrack and zt load different libraries beside the program, so
a library's addresses differ between the runs, and a stripped one's
functions have no names to match on).

    heapcheck.py HEAPTRACK-DATA ZT-DUMP EXE [N [POINTS]]

prints each of heaptrack's top N sites (default 10) with both shares, and
exits 1 when one differs by more than POINTS (default 3).
"""
import collections
import os
import sys


def site_of_module(path, exe, addr):
    if os.path.realpath(path) == exe:
        return "%s@%x" % (os.path.basename(exe), addr)
    base = os.path.basename(path)
    # libz.so.1.2.13 and libz.so.1 are one library.
    return base.split(".so")[0] + ".so" if ".so" in base else base


def heaptrack(f, exe):
    strings, ips, traces, allocs = [None], [None], [(0, 0)], []
    by, total = collections.Counter(), 0
    for line in f:
        k = line[:1]
        if k == "s":
            rest = line[2:].rstrip("\n")
            strings.append(rest.split(" ", 1)[1] if " " in rest else "")
        elif k == "i":
            ips.append(line.split())
        elif k == "t":
            x = line.split()
            traces.append((int(x[1], 16), int(x[2], 16)))
        elif k == "a":
            x = line.split()
            allocs.append((int(x[1], 16), int(x[2], 16)))
        elif k == "+":
            size, t = allocs[int(line.split()[1], 16)]
            total += size
            ip = ips[traces[t][0]] if t else None
            if not ip:
                by["?"] += size
                continue
            by[site_of_module(strings[int(ip[2], 16)], exe, int(ip[1], 16))] += size
    return by, total


def zt(path, exe):
    maps, by, total, in_maps, cur = [], collections.Counter(), 0, False, []
    lines = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("maps"):
                in_maps, cur = True, []
                maps.append(cur)
                continue
            if in_maps:
                x = line.split()
                if len(x) >= 5 and "-" in x[0]:
                    lo, hi = (int(v, 16) for v in x[0].split("-"))
                    cur.append((lo, hi, x[5] if len(x) >= 6 else "[anon]"))
                    continue
                in_maps = False
            if " $a" in line:
                lines.append(line.split())
    table = [m for snap in maps for m in snap]
    for x in lines:
        w = next(int(v[1:]) for v in x if v.startswith("^"))
        leaf = next(v for v in x[2:] if v[0] in "0123456789abcdef" and not v.startswith("@"))
        a = int(leaf, 16)    # less one than the return address, as heaptrack has it
        path = next((p for lo, hi, p in table if lo <= a < hi), "?")
        total += w
        by[site_of_module(path, exe, a) if path != "?" else "?"] += w
    return by, total


def main():
    ht, dump, exe = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    points = float(sys.argv[5]) if len(sys.argv) > 5 else 3.0
    with open(ht, errors="replace") as f:
        hby, htotal = heaptrack(f, exe)
    zby, ztotal = zt(dump, exe)
    if not htotal or not ztotal:
        print("heapcheck: no allocations: heaptrack %d bytes, zt %d" % (htotal, ztotal))
        return 1
    bad = 0
    print("heaptrack %d bytes, zt %d bytes estimated" % (htotal, ztotal))
    for site, b in hby.most_common(n):
        h = 100.0 * b / htotal
        z = 100.0 * zby.get(site, 0) / ztotal
        off = abs(h - z) > points
        bad |= off
        print("%-40s heaptrack %6.2f%%  zt %6.2f%%%s" % (site, h, z, "  OFF" if off else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
