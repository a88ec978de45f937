/*
 * fdelib.c — libfdelib.so, for samples/badfde: two functions that spin.
 * The Makefile patches the FDE of lib_bad in the built library to claim
 * 2 GiB (tests/patchfde), as a corrupt or hostile object would.
 */
unsigned long lib_good(unsigned long x, long n);
unsigned long lib_bad(unsigned long x, long n);

unsigned long lib_good(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

unsigned long lib_bad(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	return x;
}
