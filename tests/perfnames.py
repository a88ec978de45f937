#!/usr/bin/python3
"""perfnames.py — perf's names for addresses, as an oracle for zt-symbolize's.

    perfnames.py dump PERF_SCRIPT > x.raw
    perfnames.py compare PERF_SCRIPT ZT_SYMBOLIZED

PERF_SCRIPT is `perf script --no-inline -F ip,sym,symoff,dso` of a
`perf record --call-graph dwarf` run: every frame is an address in its
object's link-time address space with perf's name and offset for it (perf's
callers are already return address - 1, the address looked up). `dump`
writes a zt raw dump (version 1) that maps every object named there at a base
of its own, as the loader would (its PT_LOADs), with one sample per distinct
address, so that zt-symbolize looks each one up as an exact pc. `compare`
reads zt-symbolize's output of that dump and checks that every address gets
perf's name, without the symbol version perf keeps (`__libc_start_main@@GLIBC_2.34`
is `__libc_start_main`), and perf's offset. It prints one line per mismatch,
then `compared N frames, M names, K versioned` on stderr; exit 1 on a
mismatch.
"""
import re
import struct
import sys

FRAME = re.compile(r"^\s+([0-9a-f]+) (.+)\+0x([0-9a-f]+) \((/\S+)\)$")


def perf_frames(path):
    """(object, address, name, offset) of every named frame in a file."""
    out = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = FRAME.match(line.rstrip("\n"))
            if m:
                out.add((m.group(4), int(m.group(1), 16), m.group(2), int(m.group(3), 16)))
    return sorted(out)


def loads(path):
    """The PT_LOADs of a 64-bit ELF file: (offset, vaddr, filesz)."""
    with open(path, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    out = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            out.append((p_offset, p_vaddr, p_filesz))
    return out


def plt_ranges(path):
    """[start, end) of the .plt, .plt.sec and .plt.got sections of a 64-bit ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    if shoff == 0 or shstrndx >= shnum:
        return []
    secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    out = []
    for name, _, _, addr, _, size in secs:
        end = data.index(b"\0", stroff + name)
        if data[stroff + name:end] in (b".plt", b".plt.sec", b".plt.got"):
            out.append((addr, addr + size))
    return out


def bases(frames):
    """A base address for each object, 4 GiB apart."""
    objs = sorted({f[0] for f in frames})
    return {o: 0x7f0000000000 + i * 0x100000000 for i, o in enumerate(objs)}


def dump(perf):
    frames = perf_frames(perf)
    base = bases(frames)
    print("zt-prof 1\nhz 997\ndropped 0\nmaps")
    for obj, b in sorted(base.items(), key=lambda kv: kv[1]):
        for off, vaddr, filesz in loads(obj):
            start = (b + vaddr) & ~0xfff
            end = (b + vaddr + filesz + 0xfff) & ~0xfff
            print("%x-%x r-xp %08x 08:01 42 %s" % (start, end, off & ~0xfff, obj))
    print("samples")
    for addr in sorted({base[f[0]] + f[1] for f in frames}):
        print("%x" % addr)


def unversioned(name):
    at = name.find("@")
    if at <= 0 or name.endswith("@plt"):    # a PLT entry's name, not a version
        return name
    v = name[at + 2:] if name[at + 1:at + 2] == "@" else name[at + 1:]
    return name[:at] if v and "@" not in v else name


def compare(perf, sym):
    frames = perf_frames(perf)
    base = bases(frames)
    zt = {}
    zframe = re.compile(r"^\t\s*([0-9a-f]+) (.+?)(?:\+0x([0-9a-f]+))? \((\S+)\)$")
    with open(sym, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = zframe.match(line.rstrip("\n"))
            if m:
                zt[int(m.group(1), 16)] = (m.group(2), int(m.group(3) or "0", 16))
    bad = unnamed = 0
    plts = {}
    for obj, addr, name, off in frames:
        if name == "@plt":
            # A PLT entry perf has no name for (libc's own entries for its
            # ifuncs, R_X86_64_IRELATIVE, name no symbol): nothing to
            # compare; zt names it by its FDE, [libc.so.6+0x26000].
            unnamed += 1
            continue
        want = (unversioned(name), off)
        got = zt.get(base[obj] + addr)
        if obj not in plts:
            plts[obj] = plt_ranges(obj)
        if (got and got[0].endswith("@plt") and not name.endswith("@plt") and
                any(lo <= addr < hi for lo, hi in plts[obj])):
            # A PLT entry perf names by the symbol before the section
            # (perf 6.1: `_init+0x30` for gcc -O1's qsort@plt at .plt+0x10,
            # which objdump -d calls qsort@plt): zt's name is the entry's.
            unnamed += 1
            continue
        if got != want:
            bad += 1
            print("%s+%#x: perf %s+%#x, zt %s" % (obj, addr, name, off,
                  "%s+%#x" % got if got else "nothing"))
    sys.stderr.write("compared %d frames, %d names, %d versioned, %d in PLT entries perf leaves unnamed or misnames\n" % (
        len(frames) - unnamed, len({f[2] for f in frames if f[2] != "@plt"}),
        len({f[2] for f in frames if unversioned(f[2]) != f[2]}), unnamed))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit("usage: perfnames.py dump PERF | compare PERF SYM")
