#!/usr/bin/env python3
"""symcompare.py — zt-symbolize --lines against addr2line and llvm-symbolizer.

  symcompare.py dump FILE SYMFILE N SEED
      write a v1 dump (stdout) of N random pcs inside the functions that
      SYMFILE's symbol table sizes (as sampled pcs are: not in the padding
      between functions), with FILE's PT_LOADs mapped at their link-time
      addresses, one pc per sample; and the pcs, one per line, to pcs.txt
  symcompare.py onepc FILE PATH PC
      a v1 dump of the one exact pc PC (hex), FILE's PT_LOADs mapped at
      their link-time addresses under the name PATH
  symcompare.py compare ZT.sym A2L.txt LLVM.txt SYMFILE [nofiles]
      print the share of pcs on which zt's chain (function names and
      file:line, innermost first) agrees with addr2line's and with
      llvm-symbolizer's, and the first disagreements on stderr

A chain is compared frame by frame: names, then file:line. A name or file
that a tool does not know ("??", "[unknown]", a [basename]) counts as
unknown. The outermost frame is zt's symbol-table name: it agrees with the
other tool's name when both name the same address in SYMFILE's symbol
table (aliases such as __GI_memcpy and memcpy; zt's name without its
version, glob64 for glob64@@GLIBC_2.27, names every version's address), or
the other has no name.
With "nofiles", addr2line's lines are compared by number only: binutils
2.40's addr2line starts a DWARF 5 line program's file register at 0, not 1
(as libdwarf 20210528 does, which zt corrects), so it names the wrong file
for rows that never set one; readelf -wL and llvm-symbolizer name the
right one.
"""
import random
import re
import subprocess
import sys


def loads(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    segs = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            off, vaddr, filesz, flags = int(f[1], 16), int(f[2], 16), int(f[4], 16), " ".join(f[6:-1])
            segs.append((off, vaddr, filesz, "E" in flags))
    return segs


def maps(path, name):
    for off, vaddr, filesz, x in loads(path):
        start = vaddr & ~4095
        end = (vaddr + filesz + 4095) & ~4095
        print("%08x-%08x r-%sp %08x 08:01 1 %s" % (start, end, "-x"[x], off & ~4095, name))


def onepc(path, name, pc):
    print("zt-prof 1\nmaps")
    maps(path, name)
    print("samples\n%s" % pc)


def functions(path):
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True).stdout
    funcs = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwWiI" and int(f[1], 16) > 0:
            funcs.add((int(f[0], 16), int(f[1], 16)))
    return sorted(funcs)


def dump(path, symfile, n, seed):
    rnd = random.Random(seed)
    segs = loads(path)
    print("zt-prof 1\nhz 997\ndropped 0\nmaps")
    maps(path, path)
    funcs = functions(symfile)
    weights = [size for _, size in funcs]
    pcs = []
    for start, size in rnd.choices(funcs, weights=weights, k=n):
        pcs.append(start + rnd.randrange(size))
    print("samples")
    with open("pcs.txt", "w") as f:
        for pc in pcs:
            print("%x" % pc)
            f.write("0x%x\n" % pc)


def norm_name(s):
    s = s.strip()
    if s in ("??", "[unknown]") or s.startswith("["):
        return None
    return s


def norm_line(s):
    s = s.strip()
    m = re.match(r"^(.*?):(\d+)(?::\d+)?(?: \(discriminator \d+\))?$", s)
    if not m or m.group(1) in ("??", "") or m.group(2) == "0":
        return None
    return (m.group(1), int(m.group(2)))


def read_zt(path):
    """pc -> [(name, line)] innermost first."""
    res = {}
    frames = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        if line.startswith("\t"):
            m = re.match(r"^\t\s*([0-9a-f]+) (.*) \(([^()]*)\)$", line)
            pc = int(m.group(1), 16)
            name = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
            frames = res.setdefault(pc, [])
            frames.append([norm_name(name), None])
        elif line.startswith("  ") and frames:
            frames[-1][1] = norm_line(line)
    return res


def read_gnu(path):
    """addr2line -a -f -i, or llvm-symbolizer --output-style=GNU -a -f."""
    res = {}
    cur = None
    lines = [l.rstrip("\n") for l in open(path, errors="replace")]
    i = 0
    while i < len(lines):
        l = lines[i]
        if re.match(r"^0x[0-9a-f]+$", l):
            cur = res[int(l, 16)] = []     # a pc may repeat
            i += 1
            continue
        if l == "":
            i += 1
            continue
        if i + 1 < len(lines) and cur is not None:
            cur.append([norm_name(l), norm_line(lines[i + 1])])
            i += 2
        else:
            i += 1
    return res


ADDR = {}


def symbols(path):
    out = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split(" ", 2)
        if len(f) == 3:
            ADDR.setdefault(f[2], set()).add(int(f[0], 16))
            # zt prints a name without its version (glob64@@GLIBC_2.27 is
            # glob64): that name holds every version's address.
            if "@" in f[2][1:]:
                ADDR.setdefault(f[2].split("@")[0], set()).add(int(f[0], 16))


def base(name):
    """A symbol-table name without a version or a GCC clone suffix, as
    libiberty (" [clone .isra.0]") and llvm (" (.isra.0)") print them."""
    name = name.split("@")[0]
    name = re.sub(r"( \[clone [^]]*\]| \(\.[a-z_]+(\.\d+)?\))+$", "", name)
    return re.sub(r"(\.(cold|part|isra|constprop|lto_priv|localalias)(\.\d+)?)+$", "", name)


DEMANGLED = {}


def demangle_all(chains):
    """llvm-symbolizer 14 leaves some libstdc++ names mangled that libiberty
    demangles: demangle those with c++filt (libiberty), to compare functions."""
    names = sorted({n for ch in chains for n, _ in ch if n and n.startswith("_Z")})
    if names:
        out = subprocess.run(["c++filt"], input="\n".join(names) + "\n",
                             capture_output=True, text=True).stdout.splitlines()
        DEMANGLED.update(zip(names, out))


def lambdas(name):
    """One spelling for both demanglers: libiberty's {lambda(...)#1} is
    llvm's 'lambda'(...), and llvm writes "operator<<char" where libiberty
    writes "operator< <char"."""
    if name is None:
        return None
    name = DEMANGLED.get(name, name)
    name = re.sub(r"\{lambda(\(.*?\))#\d+\}", r"'lambda'\1", name)
    return name.replace(" ", "")


def same(a, b):
    if a == b or base(a) == base(b):
        return True
    return bool(ADDR.get(a, set()) & ADDR.get(b, set()))


def agree(z, o, nofiles=False):
    if len(z) != len(o):
        return False
    for i, ((zn, zl), (on, ol)) in enumerate(zip(z, o)):
        if nofiles:
            zl = zl and zl[1]
            ol = ol and ol[1]
        if zl != ol:
            return False
        if i + 1 < len(z):
            if lambdas(zn) != lambdas(on):
                return False
        elif on is not None and not same(zn, on) and \
                lambdas(base(zn or "")) != lambdas(base(DEMANGLED.get(on, on))):
            return False
    return True


def compare(ztf, a2lf, llvmf, symfile, nofiles=False):
    symbols(symfile)
    zt = read_zt(ztf)
    shown = 0
    for label, f in (("addr2line", a2lf), ("llvm-symbolizer", llvmf)):
        other = read_gnu(f)
        demangle_all(other.values())
        ok = n = shown = 0
        for pc, chain in other.items():
            n += 1
            z = zt.get(pc, [])
            if agree(z, chain, nofiles and label == "addr2line"):
                ok += 1
            elif shown < 6:
                shown += 1
                print(("%s %x: zt %s / %s" % (label, pc, z, chain))[:600], file=sys.stderr)
        print("%s %d %d %.4f" % (label, ok, n, ok / n if n else 0))


if __name__ == "__main__":
    if sys.argv[1] == "onepc":
        onepc(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        compare(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5],
                len(sys.argv) > 6 and sys.argv[6] == "nofiles")
