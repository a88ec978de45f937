#!/usr/bin/env python3
# flamecmp.py — compare the frames of two flame graph SVGs, as
# tests/data/flamegraph/README.md asks: the same set of frames, each with
# the same <title> text, the same y, and x and width within 0.1 px. With
# --fills, the same fill too for every frame whose name is not "[module]".
#
#   python3 tests/flamecmp.py [--fills] reference.svg ours.svg
#
# Prints "frames: N in reference, N in ours, N matched" and each difference
# (at most 20); exits 0 when every frame matches, 1 otherwise.
import re
import sys

FRAME = re.compile(r'<title>(.*?)</title><rect x="([^"]*)" y="([^"]*)" '
                   r'width="([^"]*)" height="[^"]*" fill="([^"]*)"', re.S)


def frames(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = text[text.rfind("]]>") + 1:]     # the frames, after any script
    out = {}
    for title, x, y, w, fill in FRAME.findall(text):
        out.setdefault((title, int(float(y))), []).append((float(x), float(w), fill))
    for v in out.values():
        v.sort()
    return out


def main(argv):
    fills = "--fills" in argv
    args = [a for a in argv if a != "--fills"]
    if len(args) != 2:
        print("usage: flamecmp.py [--fills] reference.svg ours.svg", file=sys.stderr)
        return 2
    ref, ours = frames(args[0]), frames(args[1])
    nref = sum(len(v) for v in ref.values())
    nours = sum(len(v) for v in ours.values())
    matched, problems = 0, []
    for key in sorted(set(ref) | set(ours)):
        a, b = ref.get(key, []), ours.get(key, [])
        if len(a) != len(b):
            problems.append("%r at y=%d: %d in reference, %d in ours" % (key[0][:200], key[1], len(a), len(b)))
            continue
        for (x1, w1, f1), (x2, w2, f2) in zip(a, b):
            name = key[0].rsplit(" (", 1)[0]
            if abs(x1 - x2) > 0.1 + 1e-9 or abs(w1 - w2) > 0.1 + 1e-9:
                problems.append("%r at y=%d: x %.1f width %.1f in reference, x %.1f width %.1f in ours"
                                % (key[0], key[1], x1, w1, x2, w2))
            elif fills and f1 != f2 and not (name.startswith("[") and name.endswith("]")):
                problems.append("%r at y=%d: fill %s in reference, %s in ours" % (key[0], key[1], f1, f2))
            else:
                matched += 1
    print("frames: %d in reference, %d in ours, %d matched" % (nref, nours, matched))
    for p in problems[:20]:
        print(p)
    return 0 if not problems and matched == nref == nours else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
