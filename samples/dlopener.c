/*
 * dlopener.c — loads samples/libplugin.so with dlopen, runs its plugin_work,
 * closes it with dlclose, then runs main_work. The plugin's frames must
 * still be named after it is gone. The library is looked for beside the
 * program.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void main_work(void)
{
	for (unsigned long i = 0; i < 100000000; i++)
		sink += i;
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
	void *h;
	void (*work)(void);

	if (n <= 0)
		return 1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libplugin.so");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	work = (void (*)(void))dlsym(h, "plugin_work");
	if (!work)
		return 1;
	work();
	dlclose(h);
	main_work();
	printf("done\n");
	return 0;
}
