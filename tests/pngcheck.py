#!/usr/bin/env python3
# pngcheck.py — is a screenshot of a flame graph blank? Decodes an 8-bit RGB
# or RGBA PNG (what Chromium writes) with the standard library and counts
# the pixels in flamegraph's "hot" palette (red 205-255, blue under 56; the
# background is grey to pale yellow, blue 176 and up, and text is dark).
#
#   python3 tests/pngcheck.py shot.png MIN_PERCENT MIN_COLOURS
#
# Prints "WxH: P% of pixels in frame colours, N distinct frame colours" and
# exits 0 when P >= MIN_PERCENT and N >= MIN_COLOURS, 1 otherwise.
import struct
import sys
import zlib


def pixels(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("pngcheck: '%s' is not a PNG" % path)
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit("pngcheck: only 8-bit RGB/RGBA, not interlaced")
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows = bytearray(stride), []
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main(argv):
    path, minpct, mincol = argv[0], float(argv[1]), int(argv[2])
    w, h, bpp, rows = pixels(path)
    hot, colours = 0, set()
    for line in rows:
        for i in range(0, len(line), bpp):
            r, g, b = line[i], line[i + 1], line[i + 2]
            if r >= 205 and b < 56:
                hot += 1
                colours.add((r, g, b))
    pct = 100.0 * hot / (w * h)
    print("%dx%d: %.1f%% of pixels in frame colours, %d distinct frame colours" % (w, h, pct, len(colours)))
    return 0 if pct >= minpct and len(colours) >= mincol else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
