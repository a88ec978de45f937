# text.py FILE — 2 MB of semi-compressible text from a fixed seed (xz -9
# keeps about 37%), the input xz compresses in
# tests/0195-collect-unwind-perf.bats and tests/bench/unwind.sh.
import random, sys
r = random.Random(195)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9)))
         for _ in range(3000)]
out, n = [], 0
while n < 2000000:
    line = " ".join(r.choice(words) for _ in range(r.randint(3, 12))) + " %d\n" % r.randint(0, 99999)
    out.append(line)
    n += len(line)
open(sys.argv[1], "w").write("".join(out))
