/*
 * earlystacks.c — a program linked with libearlysmall.so, whose constructor
 * starts a pthread on a small stack and a raw clone before zt's own
 * constructor runs (tests/0114). It prints how many bytes of the small
 * stack no one touched, the same with and without zt; with the argument
 * "alt" it also says whether the raw clone had an alternate signal stack
 * (zt's, when zt runs: the only trace of it a thread can see).
 */
#include <stdio.h>
#include <string.h>

long early_small_join(void);
int early_raw_join(void);

int main(int argc, char **argv)
{
	long untouched = early_small_join();
	int alt = early_raw_join();

	printf("earlystacks: %ld bytes below the small stack's headroom never touched\n", untouched);
	if (argc > 1 && strcmp(argv[1], "alt") == 0)
		printf("earlystacks: the raw clone had %s alternate signal stack\n", alt ? "an" : "no");
	return 0;
}
