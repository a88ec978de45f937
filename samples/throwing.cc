// throwing.cc — exceptions thrown through three frames, caught in main's
// loop: most samples are in libgcc's unwinder, whose frames hold strings
// and copied register contexts, so a frame-pointer step there reads data.
// Built with g++ -O2 by tests/0191-collect-unwind-verify.bats (make all
// needs no C++ compiler). Usage: throwing [N], prints how many it caught.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

static volatile int sink;

__attribute__((noinline)) static void level3(int i)
{
	std::string s(48, 'l');
	s[i % 48] = 'x';
	if (i >= 0)
		throw std::runtime_error(s);
	sink += (int)s.size();
}

__attribute__((noinline)) static void level2(int i)
{
	std::string t = "level two " + std::to_string(i);
	level3(i);
	sink += (int)t.size();
}

__attribute__((noinline)) static void level1(int i)
{
	std::string u(32, 'l');
	level2(i);
	sink += (int)u.size();
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 200000, caught = 0;

	for (long i = 0; i < n; i++) {
		try {
			level1((int)i);
		} catch (const std::runtime_error &e) {
			caught += e.what()[0] == 'l' || e.what()[0] == 'x';
		}
	}
	std::printf("%ld\n", caught);
	return 0;
}
