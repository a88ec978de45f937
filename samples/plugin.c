/* plugin.c — a library that samples/dlopener loads, uses and unloads. */
static volatile unsigned long sink;

__attribute__((noinline)) void plugin_work(void)
{
	for (unsigned long i = 0; i < 300000000; i++)
		sink += i * 7;
}
