/*
 * zt-ingest — dumps of any stage into ClickHouse, as rows of folded stacks
 * (formats/clickhouse.md, the table formats/clickhouse.sql makes).
 *
 *   zt-ingest --url http://db1:8123 dumps/run.raw.gz ...
 *   clickhouse-client --query "SELECT arrayStringConcat(stack, ';') AS s,
 *       sum(weight) FROM zt.samples_all WHERE ... GROUP BY s" | zt-flame > a.svg
 *
 * Each input is read through lib/stage.c as zt-fold reads it (a raw dump
 * symbolized in process, with -d, the archive and debuginfod), a raw
 * dump's records one per time bucket and stack (zt_stage_buckets). They are folded
 * per time bucket, thread and stack by lib/fold.c, with the thread in the
 * root frame (zt-fold --tid); each folded line becomes one row whose stack
 * has the thread's name for root, as zt-fold's root frame is, so that the
 * stacks a query sums are exactly zt-fold's. Rows go to the server's HTTP interface with libcurl,
 * several dumps to an INSERT (one block of MergeTree: a batch is stored
 * whole or not at all), retried, then reported.
 *
 * A dump's id is a hash of its text (gzip or not, the same id), so a dump
 * already stored is found and skipped: running again, or from many hosts
 * at once on their own dumps, stores nothing twice. (The same dump given
 * to two runs at the same moment can be stored by both: the look and the
 * INSERT are two requests.) The id is hashed from the lines as the one
 * read that folds them reads them, and the server asked after it; after
 * a dump the server held, the next one's id is read first, alone, so that
 * a run again does not fold what it throws away (ingest).
 */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chreply.h"
#include "folded.h"
#include "input.h"
#include "out.h"
#include "perfscriptfold.h"
#include "progress.h"
#include "raw.h"
#include "rawfmt.h"
#include "stage.h"
#include "symargs.h"
#include "usage.h"
#include "util.h"
#include "weight.h"

enum {
	OPT_URL = ZT_SYMARGS_NEXT, OPT_TABLE, OPT_BUCKET, OPT_TIMEOUT, OPT_INSECURE,
};

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	{ OPT_URL, "url", required_argument, "URL",
	  "the server's HTTP interface, http[s]://HOST:PORT\n"
	  "(a user and password in it, or in CLICKHOUSE_USER\n"
	  "and CLICKHOUSE_PASSWORD, are never printed)" },
	{ OPT_TABLE, "table", required_argument, "DB.TABLE",
	  "the table (default zt.samples_all)" },
	{ OPT_BUCKET, "bucket", required_argument, "SECONDS",
	  "the time bucket of a row (default 60)" },
	{ OPT_TIMEOUT, "timeout", required_argument, "SECONDS",
	  "the most one request may take (default 30)" },
	{ OPT_INSECURE, "insecure", no_argument, NULL,
	  "https without checking the server's certificate" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-ingest --url URL [--table DB.TABLE] [--bucket SECONDS] [--timeout SECONDS]\n"
	"                 [--insecure] [-l] [-d DIR]... [--sysroot=DIR] [--no-demangle] file...",
	"Store raw dumps, zt-symbolize's streams, perf script text or folded stacks\n"
	"in ClickHouse: one row per dump, time bucket, thread and stack, whose\n"
	"stack (root first) and weight are what zt-fold prints for those samples.\n"
	"A dump already stored is skipped; a file that is not a profile is named\n"
	"and skipped.",
	options,
	"The table is made by formats/clickhouse.sql (clickhouse-client\n"
	"--multiquery < formats/clickhouse.sql). Exit status 1 when a file could\n"
	"not be read or stored; the others are stored.",
};

/* What the command line asks for. */
struct asked {
	char *url;		/* as given, with its password */
	char *shown;		/* as printed: no user or password */
	const char *table;
	long bucket, timeout;
	int insecure;
	struct zt_symargs sym;
};

/* One dump of a batch: its rows are body[start..end). */
struct member {
	char *name;		/* the file, for messages */
	char id[17];
	size_t start, end;
	uint64_t rows, samples;
};

/* One batch of rows on its way: the INSERT's body, and the dumps in it. */
struct batch {
	struct zt_out body;
	struct member *m;
	size_t n, cap;
	uint64_t rows, samples;
};

/* The run's tally, for the last line. */
struct tally {
	unsigned long stored, skipped, failed, notdump, empty;
	uint64_t rows, samples, bytes;
};

static char *strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *strdupf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = zt_vstrdupf(fmt, ap);
	va_end(ap);
	return s;
}

/* ------------------------------------------------------------------ */
/* The server. */

static size_t take_reply(char *p, size_t size, size_t n, void *ctx)
{
	zt_ch_reply_take(ctx, p, size * n);
	return size * n;
}

/*
 * POST body (n bytes) to the server with query in the URL (NULL: the body
 * is the query). Returns 0 with the reply, or -1 with the message in err
 * (what curl said, or the server's status and first line).
 */
static int post(CURL *c, const struct asked *a, const char *query, const char *body, size_t n,
		struct zt_ch_reply *r, char *err, size_t errlen)
{
	char cerr[CURL_ERROR_SIZE] = "", *q = NULL, *url;
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: text/plain");
	const char *user = getenv("CLICKHOUSE_USER"), *pass = getenv("CLICKHOUSE_PASSWORD");
	long status = 0;
	CURLcode rc;
	char line[320];

	zt_ch_reply_reset(r);
	if (query) {
		q = curl_easy_escape(c, query, 0);
		if (!q)
			zt_out_of_memory("the query");
	}
	/* Stored at once in each shard (insert_distributed_sync): counted
	   only when it is. */
	url = strdupf("%s%s" "insert_distributed_sync=1%s%s", a->url,
			 strchr(a->url, '?') ? "&" : a->url[strlen(a->url) - 1] == '/' ? "?" : "/?",
			 q ? "&query=" : "", q ? q : "");
	curl_free(q);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, take_reply);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, a->timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, a->timeout < 10 ? a->timeout : 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	/*
	 * An INSERT on a connection of its own: libcurl sends a request again,
	 * unasked, when a connection it reused closes before the answer, and
	 * the server may have stored the first (its answer lost): the batch
	 * would be stored twice. flush alone decides what is sent again.
	 */
	if (query) {
		curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
	}
	if (user)
		curl_easy_setopt(c, CURLOPT_USERNAME, user);
	if (pass)
		curl_easy_setopt(c, CURLOPT_PASSWORD, pass);
	if (a->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	rc = curl_easy_perform(c);
	curl_slist_free_all(hdr);
	free(url);
	if (rc != CURLE_OK) {
		/* Say our URL, without its password; curl's own detail ("SSL
		   certificate problem: self-signed certificate") unless it could
		   hold a user's part of a URL. */
		if (cerr[0] && !strchr(cerr, '@'))
			zt_errf(err, errlen, "%s: %s (%s)", a->shown, curl_easy_strerror(rc), cerr);
		else
			zt_errf(err, errlen, "%s: %s", a->shown, curl_easy_strerror(rc));
		return -1;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		zt_ch_reply_said(r, line, sizeof line);
		zt_errf(err, errlen, "%s: the server answered %ld: %s", a->shown, status,
			line[0] ? line : "(nothing)");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rows. */

/* s as a TabSeparated field: backslash, tab and newline escaped. */
static void tsv_text(struct zt_out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			zt_out_str(o, "\\\\");
		else if (s[i] == '\t')
			zt_out_str(o, "\\t");
		else if (s[i] == '\n')
			zt_out_str(o, "\\n");
		else
			zt_out_byte(o, s[i]);
	}
}

/* s as a quoted element of an array in a TabSeparated field. */
static void tsv_quoted(struct zt_out *o, const char *s, size_t n)
{
	zt_out_byte(o, '\'');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' || s[i] == '\'')
			zt_out_byte(o, '\\');
		if (s[i] == '\t')
			zt_out_str(o, "\\t");
		else if (s[i] == '\n')
			zt_out_str(o, "\\n");
		else
			zt_out_byte(o, s[i]);
	}
	zt_out_byte(o, '\'');
}

/* What every row of one input shares. */
struct dump {
	char id[17];		/* 16 digits; a stand-in until the text is read (stamp_id) */
	const char *name;
	const char *host;
	const struct zt_raw_label *labels;
	size_t nlabels;
	const char *command;
	char event[64], unit[32];
};

/*
 * One row: a folded line "ROOT;frame;... COUNT" of the thread pid/tid
 * (0/0 when unknown) whose name is thread, in bucket (Unix seconds).
 */
static void add_row(struct batch *b, const struct dump *d, uint64_t bucket, uint64_t pid,
		    uint64_t tid, const char *thread, size_t threadlen, const char *stack,
		    size_t n, uint64_t weight)
{
	struct zt_out *o = &b->body;
	const char *semi;

	zt_out_str(o, d->id);
	zt_out_byte(o, '\t');
	tsv_text(o, d->host, strlen(d->host));
	zt_out_str(o, "\t[");
	for (size_t i = 0; i < d->nlabels; i++) {
		if (i)
			zt_out_byte(o, ',');
		tsv_quoted(o, d->labels[i].key, strlen(d->labels[i].key));
	}
	zt_out_str(o, "]\t[");
	for (size_t i = 0; i < d->nlabels; i++) {
		if (i)
			zt_out_byte(o, ',');
		tsv_quoted(o, d->labels[i].value, strlen(d->labels[i].value));
	}
	/* Ten digits: ClickHouse reads a DateTime of ten digits as Unix seconds. */
	zt_out_str(o, "]\t");
	zt_out_dec(o, bucket, 10);
	zt_out_byte(o, '\t');
	tsv_text(o, d->event, strlen(d->event));
	zt_out_byte(o, '\t');
	tsv_text(o, d->unit, strlen(d->unit));
	zt_out_byte(o, '\t');
	zt_out_dec(o, pid, 0);
	zt_out_byte(o, '\t');
	zt_out_dec(o, tid, 0);
	zt_out_byte(o, '\t');
	tsv_text(o, thread, threadlen);
	zt_out_byte(o, '\t');
	tsv_text(o, d->command, strlen(d->command));
	zt_out_str(o, "\t[");
	for (;;) {
		semi = memchr(stack, ';', n);
		tsv_quoted(o, stack, semi ? (size_t)(semi - stack) : n);
		if (!semi)
			break;
		zt_out_byte(o, ',');
		n -= (size_t)(semi - stack) + 1;
		stack = semi + 1;
	}
	zt_out_str(o, "]\t");
	zt_out_dec(o, weight, 0);
	zt_out_byte(o, '\n');
	b->rows++;
}

/* ------------------------------------------------------------------ */
/* One input. */

/* The folds of one input's records, one per time bucket. */
struct buckets {
	uint64_t *at;		/* Unix seconds */
	struct zt_perfscriptfold **fold;
	size_t n, cap, capf;
};

static struct zt_perfscriptfold *fold_of(struct buckets *bk, uint64_t at,
			       const struct zt_framenames_opts *o)
{
	for (size_t i = bk->n; i-- > 0;)
		if (bk->at[i] == at)
			return bk->fold[i];
	zt_grow(&bk->at, &bk->cap, bk->n + 1, sizeof *bk->at);
	zt_grow(&bk->fold, &bk->capf, bk->n + 1, sizeof *bk->fold);
	bk->at[bk->n] = at;
	bk->fold[bk->n] = zt_perfscriptfold_new(o);
	return bk->fold[bk->n++];
}

/* The Unix second of a record at stream time t ("S.FFFFFF") of raw dump d. */
static uint64_t second_of(const struct zt_raw *d, struct zt_span t)
{
	uint64_t s = 0, frac = 0, scale = 1000000000u, ns;
	size_t i = 0;

	for (; i < t.n && t.p[i] != '.'; i++)
		s = s * 10 + (uint64_t)(t.p[i] - '0');
	for (i++; i < t.n && scale > 1; i++) {
		scale /= 10;
		frac += (uint64_t)(t.p[i] - '0') * scale;
	}
	if (!d || !d->start_time_ns || s > UINT64_MAX / 1000000000u / 2)
		return 0;
	ns = s * 1000000000u + frac;
	ns = ns >= d->start_ns ? d->start_time_ns + (ns - d->start_ns)
			       : (d->start_time_ns > d->start_ns - ns ?
				  d->start_time_ns - (d->start_ns - ns) : 0);
	return ns / 1000000000u;
}

/*
 * The rows of the records of st (a raw dump, a stream or perf script
 * text; zt_stage_records called) into b. Returns 0, or -1 with the
 * message in err.
 */
static int record_rows(struct zt_stage *st, struct dump *d, const struct asked *a,
		       struct batch *b, char *err, size_t errlen)
{
	const struct zt_framenames_opts o = { .tid = 1 };
	struct buckets bk = { 0 };
	struct zt_perfscriptfold *f = NULL;
	const struct zt_raw *raw;
	struct zt_ps_item it;
	const char *problem, *ev;
	int got, rc = 0;

	raw = zt_stage_raw(st);
	while ((got = zt_stage_next(st, &it, err, errlen)) > 0) {
		if (it.kind == ZT_PS_HEADER) {
			uint64_t sec = second_of(raw, it.header.time);

			f = fold_of(&bk, sec - sec % (uint64_t)a->bucket, &o);
		}
		if (!f)
			continue;	/* the facts before the first record */
		if ((problem = zt_perfscriptfold_item(f, &it))) {
			zt_err_at(err, errlen, zt_stage_name(st), it.lineno, "%s", problem);
			rc = -1;
			break;
		}
		if (it.kind == ZT_PS_END)
			f = NULL;
	}
	if (got < 0)
		rc = -1;
	ev = zt_ps_reader_event(zt_stage_reader(st));
	snprintf(d->event, sizeof d->event, "%s", ev ? ev : "");
	for (size_t i = 0; i < bk.n && rc == 0; i++) {
		const struct zt_weight *w = zt_perfscriptfold_weight(bk.fold[i]);
		struct zt_folded_stacks fs;

		snprintf(d->unit, sizeof d->unit, "%s",
			 zt_perfscriptfold_wall(bk.fold[i]) ? "ns" :
			 w->kind == ZT_WEIGHT_SAMPLES ? "samples" : zt_weight_unit(w));
		zt_perfscriptfold_stacks(bk.fold[i], &fs);
		for (size_t k = 0; k < fs.n && rc == 0; k++) {
			const char *line = fs.text + fs.line[k].off, *semi, *dash, *slash;
			const char *end = line + fs.line[k].len;
			uint64_t pid = 0, tid = 0, count = fs.line[k].count;
			size_t rootlen;

			/* "comm-PID/TID;frames", as lib/framenames.c made it. */
			semi = memchr(line, ';', (size_t)(end - line));
			rootlen = (size_t)((semi ? semi : end) - line);
			slash = memrchr(line, '/', rootlen);
			dash = slash ? memrchr(line, '-', (size_t)(slash - line)) : NULL;
			if (!dash) {
				zt_errf(err, errlen, "%s: a folded stack zt could not take apart: "
					"%.*s", zt_stage_name(st), (int)(end - line > 200 ? 200 :
					end - line), line);
				rc = -1;
				break;
			}
			if (zt_ch_decimal(dash + 1, (size_t)(slash - dash - 1), &pid) < 0)
				pid = 0;	/* "comm-?/TID": a header without a pid */
			zt_ch_decimal(slash + 1, (size_t)(line + rootlen - slash - 1), &tid);
			/* The root is the command's name, as zt-fold prints it. */
			{
				size_t n = (size_t)(dash - line) + (size_t)(end - (line + rootlen));
				char *stack = zt_malloc(n + 1);

				memcpy(stack, line, (size_t)(dash - line));
				memcpy(stack + (dash - line), line + rootlen,
				       (size_t)(end - (line + rootlen)));
				add_row(b, d, bk.at[i], pid, tid, line, (size_t)(dash - line),
					stack, n, count);
				free(stack);
			}
			b->samples += strcmp(d->unit, "samples") == 0 ? count : 0;
		}
		zt_folded_stacks_free(&fs);
	}
	for (size_t i = 0; i < bk.n; i++)
		zt_perfscriptfold_free(bk.fold[i]);
	free(bk.at);
	free(bk.fold);
	return rc;
}

/* The rows of folded stacks: no time, thread or process to say. */
static int folded_rows(struct zt_stage *st, struct dump *d, struct batch *b, char *err,
		       size_t errlen)
{
	struct zt_folded_reader r;
	struct zt_folded_item it;
	int got;

	zt_folded_reader_init(&r, zt_stage_input(st));
	r.weighed = 1;
	r.none_ok = 1;
	snprintf(d->event, sizeof d->event, "folded");
	while ((got = zt_folded_read(&r, &it, err, errlen)) > 0) {
		/* The declaration comes before the stacks it weighs. */
		snprintf(d->unit, sizeof d->unit, "%s", r.wall ? "ns" :
			 r.w.kind == ZT_WEIGHT_PERIOD ? zt_weight_unit(&r.w) : "samples");
		add_row(b, d, 0, 0, 0, "", 0, it.stack, it.stacklen, it.count);
		if (strcmp(d->unit, "samples") == 0)
			b->samples += it.count;
	}
	return got < 0 ? -1 : 0;
}

/*
 * A dump's id is a hash of its lines, each with its NUL (so that lines are
 * told apart), chained from this seed ("zt"), as 16 hex digits: the hash
 * zt_input_hash keeps of the lines an input hands out. The rows stored
 * carry it, so neither the function nor its input may change.
 */
enum { ID_SEED = 0x7a74 };

/*
 * The id of in, whose lines were hashed from the first (zt_input_hash_start),
 * into id after reading what its reader left: 0, or -1 when in ended in an
 * error or its hash is not the id's.
 */
static int id_of_rest(struct zt_input *in, char id[17])
{
	uint64_t h;
	size_t n;

	while (zt_input_line(in, &n))
		;
	if (zt_input_error(in) || zt_input_hash(in, &h) < 0)
		return -1;
	snprintf(id, 17, "%016" PRIx64, h);
	return 0;
}

/* The id of the input at path, read for it alone: 0, or -1 with err. */
static int dump_id(const char *path, char id[17], char *err, size_t errlen)
{
	struct zt_input *in = zt_input_open(path, err, errlen);
	const char *e;

	if (!in)
		return -1;
	zt_input_hash_start(in, ID_SEED);
	if (id_of_rest(in, id) < 0) {
		if ((e = zt_input_error(in)))
			zt_errf(err, errlen, "%s", e);
		else
			zt_errf(err, errlen, "%s: its id could not be hashed", zt_input_name(in));
		zt_input_close(in);
		return -1;
	}
	zt_input_close(in);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Batches. */

enum { BATCH_BYTES = 8 << 20, BATCH_ROWS = 500000, TRIES = 3 };

/* The rows the table holds of dump id into *n: 0, or -1 with err. */
static int stored_rows(CURL *c, const struct asked *a, const char *id, uint64_t *n, char *err,
		       size_t errlen)
{
	struct zt_ch_reply r = { 0 };
	char *q = strdupf("SELECT count() FROM %s WHERE dump_id = '%s'", a->table, id);
	int rc = post(c, a, NULL, q, strlen(q), &r, err, errlen);
	char line[320];

	free(q);
	if (rc == 0 && zt_ch_reply_count(&r, n) < 0) {
		zt_ch_reply_said(&r, line, sizeof line);
		zt_errf(err, errlen, "%s: the server answered '%s' to a count", a->shown, line);
		rc = -1;
	}
	free(r.buf);
	return rc;
}

/* Whether the dump id is stored already: 1, 0, or -1 with err. */
static int stored(CURL *c, const struct asked *a, const char *id, char *err, size_t errlen)
{
	uint64_t n;

	if (stored_rows(c, a, id, &n, err, errlen) < 0)
		return -1;
	return n > 0;
}

/* Member i of b leaves the batch: its rows out of the body. */
static void leave(struct batch *b, size_t i)
{
	struct member *m = &b->m[i];
	size_t len = m->end - m->start;

	memmove(b->body.buf + m->start, b->body.buf + m->end, b->body.len - m->end);
	b->body.len -= len;
	for (size_t j = i + 1; j < b->n; j++) {
		b->m[j].start -= len;
		b->m[j].end -= len;
	}
	b->rows -= m->rows;
	b->samples -= m->samples;
	free(m->name);
	memmove(m, m + 1, (b->n - i - 1) * sizeof *m);
	b->n--;
}

/*
 * After an INSERT that failed (the server died, the connection broke, a
 * shard refused), it may have stored some of the batch's dumps all the
 * same: one shard's while another's failed, or the whole batch with the
 * answer lost. Each dump the table now holds whole leaves the batch,
 * counted as stored; one it holds in part (an INSERT cut between the
 * blocks of a dump's months) leaves it, named, as failed. Returns 0 when
 * every other dump is known to be absent, so that sending the batch again
 * stores nothing twice; -1 (err) when the server could not say.
 */
static int settle(CURL *c, const struct asked *a, struct batch *b, struct tally *t,
		  char *err, size_t errlen)
{
	for (size_t i = 0; i < b->n;) {
		struct member *m = &b->m[i];
		uint64_t n;

		if (stored_rows(c, a, m->id, &n, err, errlen) < 0)
			return -1;
		if (n == 0) {
			i++;
			continue;
		}
		if (n == m->rows) {
			t->stored++;
			t->rows += m->rows;
			t->samples += m->samples;
		} else {
			zt_warn("%s: the table holds %" PRIu64 " of its %" PRIu64 " rows (an "
				"INSERT cut short); not stored whole: remove them (ALTER TABLE "
				"... DELETE WHERE dump_id = '%s', on each shard) and run again",
				m->name, n, m->rows, m->id);
			t->failed++;
		}
		leave(b, i);
	}
	return 0;
}

/*
 * Send batch b (each of its dumps whole or not at all: one INSERT, one
 * block a shard and month), trying TRIES times; count what it stored.
 * Before another try, and after the last, the dumps a failed INSERT
 * stored are taken out (settle): a try never stores a dump twice, and
 * only the dumps not stored are named.
 */
static void flush(CURL *c, const struct asked *a, struct batch *b, struct tally *t)
{
	char err[ZT_ERR_MAX] = "", why[ZT_ERR_MAX] = "";
	struct zt_ch_reply r = { 0 };
	char *query;
	int ok = -1, tries = 0, known = 1;

	if (b->n == 0)
		return;
	query = strdupf("INSERT INTO %s (dump_id, host, label_keys, label_values, bucket, "
			   "event, unit, pid, tid, thread, command, stack, weight) "
			   "FORMAT TabSeparated", a->table);
	while (tries < TRIES && ok < 0 && b->n > 0) {
		if (tries) {
			sleep((unsigned)tries);
			if (settle(c, a, b, t, why, sizeof why) < 0) {
				known = 0;	/* another try could store a dump twice */
				break;
			}
			if (b->n == 0)
				break;
		}
		ok = post(c, a, query, b->body.buf, b->body.len, &r, err, sizeof err);
		t->bytes += b->body.len;
		tries++;
	}
	/* What the last failed try may have stored. */
	if (ok < 0 && known && b->n > 0 && settle(c, a, b, t, why, sizeof why) < 0)
		known = 0;
	free(query);
	free(r.buf);
	if (ok == 0) {
		t->stored += b->n;
		t->rows += b->rows;
		t->samples += b->samples;
	} else if (b->n > 0) {
		char more[64] = "";

		t->failed += b->n;
		if (b->n > 1)
			snprintf(more, sizeof more, " and %zu more", b->n - 1);
		if (known)
			zt_warn("%s (after %d tr%s); not stored: %s%s", err, tries,
				tries == 1 ? "y" : "ies", b->m[0].name, more);
		else
			zt_warn("%s (after %d tr%s), and whether it stored them could not be "
				"asked (%s); not stored, or not known to be: %s%s (a run again "
				"stores each that is not)", err, tries, tries == 1 ? "y" : "ies",
				why, b->m[0].name, more);
		/* Each of the others named too, a line each. */
		for (size_t i = 1; i < b->n; i++)
			zt_warn("not stored: %s", b->m[i].name);
	}
	while (b->n > 0)
		leave(b, b->n - 1);
	b->rows = b->samples = 0;
	b->body.len = 0;
}

/*
 * The ids of this run's dumps, so that one given twice is stored once, and
 * whether the server held the last dump it was asked about (ingest).
 */
struct seen {
	char (*id)[17];
	size_t n, cap;
	int held_last;
};

static int seen_before(struct seen *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->id[i], id) == 0)
			return 1;
	zt_grow(&s->id, &s->cap, s->n + 1, sizeof *s->id);
	memcpy(s->id[s->n++], id, 17);
	return 0;
}

/*
 * What reading st had to say without stopping, as zt-fold says it: the
 * symbolizer's warnings (a binary not found), the records of other events
 * left out.
 */
static void say_warnings(struct zt_stage *st)
{
	const char *const *w, *skipped;
	unsigned long n;
	size_t nw;

	w = zt_stage_warnings(st, &nw);
	for (size_t i = 0; i < nw; i++)
		zt_warn("%s", w[i]);
	n = zt_ps_reader_skipped(zt_stage_reader(st), &skipped);
	if (n)
		zt_warn("%s: skipped %lu records of other events than '%s' (the first was '%s')",
			zt_stage_name(st), n, zt_ps_reader_event(zt_stage_reader(st)), skipped);
}

/*
 * The rows of st, a profile, into b: 0, or -1 with the message in err
 * (the rows from before the call on are then not whole).
 */
static int rows_of(struct zt_stage *st, struct dump *d, const struct asked *a,
		   struct batch *b, char *err, size_t errlen)
{
	const struct zt_raw *raw;
	int rc;

	if (zt_stage_kind(st) == ZT_STAGE_FOLDED)
		return folded_rows(st, d, b, err, errlen);
	if (zt_stage_kind(st) == ZT_STAGE_RAW)
		zt_stage_buckets(st, (uint64_t)a->bucket * 1000000000u);
	rc = zt_stage_records(st, &a->sym.opts, err, errlen);
	raw = rc == 0 ? zt_stage_raw(st) : NULL;
	if (raw) {
		if (raw->host)
			d->host = raw->host;
		d->labels = raw->labels;
		d->nlabels = raw->nlabels;
		if (raw->exe)
			d->command = strrchr(raw->exe, '/') ? strrchr(raw->exe, '/') + 1 : raw->exe;
	}
	if (rc == 0)
		rc = record_rows(st, d, a, b, err, errlen);
	return rc;
}

/*
 * Each row of b from offset mark on starts with the dump's id, written
 * while the id was not known yet (the rows are made as the text is read
 * and hashed): the id over it. A row is one line (TabSeparated escapes
 * every '\n' in its fields).
 */
static void stamp_id(struct batch *b, size_t mark, const char id[17])
{
	char *p = b->body.buf + mark, *end = b->body.buf + b->body.len, *nl;

	for (; p < end; p = nl + 1) {
		memcpy(p, id, 16);
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			break;
	}
}

/*
 * Whether the dump id of the file path is to be stored: 1; 0 when it was
 * given earlier in the run or the server holds it (counted as stored
 * before), or when the server could not say (named, counted as failed).
 */
static int wanted(CURL *c, const struct asked *a, const char *path, const char *id,
		  struct seen *seen, struct tally *t)
{
	char err[ZT_ERR_MAX] = "";
	int held;

	if (seen_before(seen, id)) {
		t->skipped++;
		return 0;
	}
	if ((held = stored(c, a, id, err, sizeof err)) < 0) {
		zt_warn("%s; not stored: %s", err, path);
		t->failed++;
		return 0;
	}
	seen->held_last = held;
	if (held)
		t->skipped++;
	return !held;
}

/*
 * One file: read once, folded into rows of b as its id is hashed from the
 * lines read (zt_input_hash), then b sent when it is full. Only then is
 * the server asked whether it holds the id, and what the reading found
 * said after the answer, as when the id was read first in a pass of its
 * own: a dump stored before is skipped in silence, the messages and
 * counts are the same. A file whose reading did not give the whole id
 * (not a profile, an error in its data) is read again for the id alone
 * (dump_id), which names what stopped it as before.
 *
 * Folding a dump the server holds is work thrown away: after a dump it
 * held (a run again over the same files, or a directory whose older
 * dumps are stored), the next file's id is read first, alone, as
 * before, and the dump read again to be folded only if it is not held.
 */
static void ingest(CURL *c, const struct asked *a, const char *path, struct batch *b,
		   struct seen *seen, struct tally *t, const char *host)
{
	char err[ZT_ERR_MAX] = "", why[ZT_ERR_MAX] = "";
	struct dump d = { .id = "................", .name = path, .host = host, .command = "" };
	struct zt_input *in;
	struct zt_stage *st = NULL;
	size_t mark = b->body.len;
	uint64_t rows = b->rows, samples = b->samples;
	int got = -1, kind = -1, whole = 0, known = 0;

	if (seen->held_last) {
		if (dump_id(path, d.id, err, sizeof err) < 0) {
			zt_warn("%s; skipped", err);
			t->notdump++;
			return;
		}
		if (!wanted(c, a, path, d.id, seen, t))
			return;
		known = 1;
	}
	if (!(in = zt_input_open(path, err, sizeof err))) {
		zt_warn("%s; skipped", err);
		t->notdump++;
		return;
	}
	zt_input_hash_start(in, ID_SEED);
	/* got: 0 when the rows from mark on are the dump's; else why says why. */
	if ((st = zt_stage_open_input(in, why, sizeof why))) {
		kind = zt_stage_kind(st);
		if (kind != ZT_STAGE_DIFF)
			got = rows_of(st, &d, a, b, why, sizeof why);
		whole = known || id_of_rest(zt_stage_input(st), d.id) == 0;
	}
	if (!known && !whole && dump_id(path, d.id, err, sizeof err) < 0) {
		zt_warn("%s; skipped", err);
		t->notdump++;
		got = -1;
	} else if (!known && !wanted(c, a, path, d.id, seen, t)) {
		got = -1;
	} else if (!st) {
		zt_warn("%s; skipped", why);
		t->notdump++;
	} else if (kind == ZT_STAGE_DIFF) {
		zt_warn("%s: differential folded stacks are a comparison, not a profile; skipped",
			zt_stage_name(st));
		t->notdump++;
	} else if (got < 0) {
		zt_warn("%s; skipped", why);
		t->notdump++;
	} else {
		stamp_id(b, mark, d.id);
		if (kind != ZT_STAGE_FOLDED)
			say_warnings(st);
		if (b->rows == rows) {
			/* Nothing to store, so nothing that says it was: every run says so. */
			zt_warn("no samples in %s; nothing stored", zt_stage_name(st));
			t->empty++;
		} else {
			struct member *m;

			zt_grow(&b->m, &b->cap, b->n + 1, sizeof *b->m);
			m = &b->m[b->n++];
			m->name = zt_strdup(path);
			memcpy(m->id, d.id, sizeof m->id);
			m->start = mark;
			m->end = b->body.len;
			m->rows = b->rows - rows;
			m->samples = b->samples - samples;
		}
	}
	if (got < 0) {
		/* Its rows go: a dump is stored whole or not at all, and once. */
		b->body.len = mark;
		b->rows = rows;
		b->samples = samples;
	}
	zt_stage_close(st);
	if (b->body.len >= BATCH_BYTES || b->rows >= BATCH_ROWS)
		flush(c, a, b, t);
}

/* ------------------------------------------------------------------ */

/* A whole number of seconds from lo to hi for option name, into *v. */
static int seconds(const char *name, const char *arg, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *v < lo || *v > hi)
		return zt_usage_error(&usage, "--%s wants a whole number of seconds from %ld "
				      "to %ld, not '%s'", name, lo, hi, arg);
	return 0;
}

/* Whether name is DB.TABLE of letters, digits and '_' (nothing to quote). */
static int table_ok(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t n = strlen(name);

	if (!dot || dot == name || dot == name + n - 1 || strchr(dot + 1, '.') || n > 128)
		return 0;
	for (const char *p = name; *p; p++)
		if (p != dot && !(*p == '_' || (*p >= '0' && *p <= '9') ||
				  (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return 0;
	return 1;
}

/*
 * The options, into a. Returns 0, or -1 when main is to end at once with
 * *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct asked *a, int *status)
{
	char err[ZT_ERR_MAX];
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_symargs_getopt(argc, argv, &usage, &a->sym, err, sizeof err)) != -1) {
		switch (c) {
		case OPT_URL: a->url = optarg; break;
		case OPT_TABLE: a->table = optarg; break;
		case OPT_BUCKET:
			if (seconds("bucket", optarg, 1, 366L * 86400, &a->bucket) < 0)
				return -1;
			break;
		case OPT_TIMEOUT:
			if (seconds("timeout", optarg, 1, 3600, &a->timeout) < 0)
				return -1;
			break;
		case OPT_INSECURE: a->insecure = 1; break;
		default: return zt_usage_end(&usage, c, err, status);
		}
	}
	if (!a->url)
		return zt_usage_error(&usage, "--url names the server: http://HOST:8123");
	if (strncmp(a->url, "http://", 7) != 0 && strncmp(a->url, "https://", 8) != 0) {
		a->shown = zt_ch_shown_url(a->url);
		return zt_usage_error(&usage, "--url wants http://HOST:PORT or https://HOST:PORT, "
				      "not '%s'", a->shown);
	}
	if (!table_ok(a->table))
		return zt_usage_error(&usage, "--table wants DB.TABLE, letters, digits and '_', "
				      "not '%s'", a->table);
	if (optind == argc)
		return zt_usage_error(&usage, "no files: a dump's id is a hash of its text, read "
				      "before it is stored, so standard input is not taken");
	for (int i = optind; i < argc; i++)
		if (strcmp(argv[i], "-") == 0)
			return zt_usage_error(&usage, "'-': standard input is not taken; give files");
	*status = ZT_EXIT_OK;
	return 0;
}

int main(int argc, char **argv)
{
	struct asked a = { .table = "zt.samples_all", .bucket = 60, .timeout = 30 };
	struct batch b = { 0 };
	struct tally t = { 0 };
	struct seen seen = { 0 };
	CURL *c;
	int status;

	zt_setprog(argv[0]);
	zt_progress_start(isatty(STDERR_FILENO) ? stderr : NULL);
	zt_symargs_init(&a.sym, argc);
	if (parse_options(argc, argv, &a, &status) < 0)
		goto out;
	a.shown = zt_ch_shown_url(a.url);
	if (a.insecure && strncmp(a.url, "https://", 8) == 0)
		zt_warn("--insecure: the server's certificate is not checked: anyone on the way "
			"can read and change what is sent");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || !(c = curl_easy_init())) {
		zt_warn("libcurl could not start");
		status = ZT_EXIT_DATA;
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (zt_progress_due())
			zt_progress_show("%d of %d files, %lu dumps stored", i - optind,
					 argc - optind, t.stored);
		ingest(c, &a, argv[i], &b, &seen, &t, "");
	}
	flush(c, &a, &b, &t);
	zt_progress_clear();
	curl_easy_cleanup(c);
	curl_global_cleanup();
	fprintf(stderr, "%s: %lu dumps stored, %lu stored before, %lu failed, %lu not read, "
		"%lu without samples; %" PRIu64 " rows, %" PRIu64 " samples, %" PRIu64
		" bytes sent\n", zt_prog, t.stored, t.skipped, t.failed, t.notdump, t.empty,
		t.rows, t.samples, t.bytes);
	status = t.failed || t.notdump ? ZT_EXIT_DATA : ZT_EXIT_OK;
out:
	zt_out_free(&b.body);
	free(b.m);
	free(seen.id);
	free(a.shown);
	zt_symargs_free(&a.sym);
	return status;
}
