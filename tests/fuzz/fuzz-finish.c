/*
 * fuzz-finish.c — libFuzzer target for zt-collect's finishing of a dump
 * whose process died (collect/finish.c), and above all for its reading of
 * the buffers the process left, FILE.tmp.PID.bufs (collect/spill.h): the
 * program's own memory, which it may have filled with anything.
 *
 * The input is the .bufs file's bytes; byte 0's low bit chooses whether
 * the dump file is cut in the middle of a line. The temporary dump is a
 * fixed header and one sample line; after zt_finish_dump the published
 * dump must hold that line, then exactly the slots' lines that are whole
 * sample lines as the collector writes them (each taken only from a slot
 * whose head is right and whose write was not under way), then a summary
 * whose samples, finished-buffers and finished-buffers-unknown agree with
 * what was taken, and "end". It must then read back with zt_raw_read
 * or be refused with a message; never a crash.
 */
#define FUZZ_NAME "fuzz-finish"
#define ZT_SPILL_READER
#include "fuzz.h"
#include "finish.h"
#include "raw.h"
#include "rawfmt.h"
#include "spill.h"
#include "util.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>


static const char head[] =
	"zt-prof 4\npid 77\narch x86_64\nhz 997\nstart-ns 1\nsamples\n"
	"77 1 @5 401000 401100\n";

static char dir[64];

/* Whether p[0..n) is whole sample lines as finish.c takes them (its rule, again). */
static int whole_lines(const char *p, size_t n)
{
	if (!n || p[n - 1] != '\n')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((i == 0 || p[i - 1] == '\n') && (c < '0' || c > '9'))
			return 0;
		if (c != '\n' && (c < 0x20 || c > 0x7e))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[128], tmp[160], bufs[176], want[1 << 16];
	struct zt_finish u = { .gzip = 0 };
	size_t nwant = 0, taken = 0, unknown = 0, stride = 0;
	struct zt_spill_head h;
	int fd, cut = size && (data[0] & 1);

	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/fuzz-finish.%d", (int)getpid());
		mkdir(dir, 0700);
	}
	snprintf(out, sizeof out, "%s/d.raw", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp.77", out);
	snprintf(bufs, sizeof bufs, "%s" ZT_SPILL_SUFFIX, tmp);
	unlink(out);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, head, sizeof head - 1) == (ssize_t)(sizeof head - 1));
	if (cut)
		CHECK(write(fd, "77 1 @9 40", 10) == 10);	/* a line the death cut */
	close(fd);
	fd = open(bufs, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	close(fd);

	/* What finish.c must take: its rule, written again plainly. */
	memcpy(want, head, sizeof head - 1);
	nwant = sizeof head - 1;
	for (size_t off = 0; off + sizeof h <= size; off += stride) {
		memcpy(&h, data + off, sizeof h);
		if (!stride) {
			if (h.magic != ZT_SPILL_MAGIC || h.slot_size <= sizeof h ||
			    h.slot_size > ZT_SPILL_SLOT_MAX)
				break;
			stride = h.slot_size;
		}
		if (h.magic != ZT_SPILL_MAGIC || !h.len)
			continue;
		if (h.slot_size != stride || h.writing || h.len > stride - sizeof h ||
		    off + sizeof h + h.len > size ||
		    !whole_lines((const char *)data + off + sizeof h, h.len)) {
			unknown++;
			continue;
		}
		CHECK(nwant + h.len < sizeof want);
		memcpy(want + nwant, data + off + sizeof h, h.len);
		nwant += h.len;
		taken++;
	}

	if (zt_finish_dump(out, 77, &u) == 0) {
		struct zt_input *in;
		struct zt_raw d;
		char err[512];
		static char got[1 << 17];
		ssize_t n;

		fd = open(out, O_RDONLY);
		CHECK(fd >= 0);
		n = read(fd, got, sizeof got - 1);
		close(fd);
		CHECK(n >= (ssize_t)nwant);
		got[n] = '\0';
		CHECK(memcmp(got, want, nwant) == 0);
		CHECK(strncmp(got + nwant, "summary\nfinished zt-collect\n", 28) == 0);
		if (stride) {
			char keys[128];

			snprintf(keys, sizeof keys, ZT_RAW_FINISHED_BUFFERS " %zu\n"
				 ZT_RAW_FINISHED_UNKNOWN " %zu\n", taken, unknown);
			CHECK(strstr(got + nwant, keys) != NULL);
			CHECK(u.buffers_known && u.buffers == taken && u.buffers_unknown == unknown);
		} else {
			CHECK(!strstr(got + nwant, ZT_RAW_FINISHED_BUFFERS));
		}
		CHECK(n >= 4 && strcmp(got + n - 4, "end\n") == 0);
		memset(&d, 0, sizeof d);
		in = zt_input_open(out, err, sizeof err);
		CHECK(in);
		if (zt_raw_read(in, &d, err, sizeof err) < 0)
			CHECK(err[0]);
		zt_input_close(in);
		zt_raw_free(&d);
	}
	unlink(out);
	unlink(tmp);
	unlink(bufs);
	return 0;
}
