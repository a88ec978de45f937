# loop.py N — a pure-Python loop with calls, as Python users profile it: the
# workload of tests/0195-collect-unwind-perf.bats and tests/bench/unwind.sh
# (Debian's python3 is built without frame pointers).
import sys

def leaf(x):
    return x * 3 + 1

def mid(n):
    s = 0
    for i in range(n):
        s += leaf(i) % 7
    return s

def top(k):
    t = 0
    for j in range(k):
        t += mid(1000)
    return t

print(top(int(sys.argv[1])))
