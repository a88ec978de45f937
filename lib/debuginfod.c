/*
 * debuginfod.c — libdebuginfod behind the symbolizer (debuginfod.h): each
 * build-id asked once, every file checked by its build-id before it is
 * used, and one line for the user on what came from where.
 */
#include "debuginfod.h"
#include "maps.h"
#include "progress.h"
#include "util.h"

#include <elfutils/debuginfod.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	ASK_NONE,	/* not asked yet */
	ASK_FOUND,	/* path holds it, with the right build-id */
	ASK_MISSING,	/* the servers have no such file */
	ASK_WRONG,	/* a file came, but not of this build-id: ignored */
	ASK_FAILED,	/* the servers failed (problem): nothing more is asked */
	ASK_SKIPPED,	/* not asked, after a failure */
};

static const char *const kind_name[] = { "executable", "debug file" };

/*
 * libdebuginfod, loaded at the first question, as elfutils' libdwfl loads
 * it: linked, it would bring libcurl and its TLS stack (29 more shared
 * objects, 27 ms of CPU at every start) into every run of every tool, most
 * of which never fetch anything. Only its header is needed at build time.
 */
static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	const char *(*get_url)(debuginfod_client *);
} lib;

#define LIBDEBUGINFOD "libdebuginfod.so.1"

/* Load libdebuginfod's functions: NULL, or why they could not be. */
static const char *load_lib(char *why, size_t cap)
{
	static void *h;
	const char *e;

	if (lib.begin)
		return NULL;
	if (!h && !(h = dlopen(LIBDEBUGINFOD, RTLD_NOW | RTLD_LOCAL))) {
		e = dlerror();
		snprintf(why, cap, "cannot load %s (package libdebuginfod1): %s", LIBDEBUGINFOD,
			 e ? e : "not found");
		return why;
	}
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	*(void **)&lib.find_executable = dlsym(h, "debuginfod_find_executable");
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.set_user_data = dlsym(h, "debuginfod_set_user_data");
	*(void **)&lib.get_user_data = dlsym(h, "debuginfod_get_user_data");
	*(void **)&lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&lib.get_url = dlsym(h, "debuginfod_get_url");
	if (!lib.end || !lib.find_executable || !lib.find_debuginfo || !lib.set_user_data ||
	    !lib.get_user_data || !lib.set_progressfn || !lib.get_url) {
		snprintf(why, cap, "%s lacks functions zt calls (an elfutils before 0.179?)",
			 LIBDEBUGINFOD);
		return why;
	}
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	if (!lib.begin) {
		snprintf(why, cap, "%s has no debuginfod_begin", LIBDEBUGINFOD);
		return why;
	}
	return NULL;
}

struct answer {
	int state;
	int reported;	/* said in a report already */
	char *path;	/* ASK_FOUND: the file in libdebuginfod's cache */
	char *from;	/* ASK_FOUND, ASK_WRONG: "'URL'" or "the cache 'DIR'" */
	char *problem;	/* ASK_WRONG: what the file is; ASK_FAILED: the error */
};

struct ask {
	char *buildid;
	char *name;	/* the binary's base name */
	struct answer a[2];
};

struct zt_debuginfod {
	debuginfod_client *client;	/* made at the first question */
	char *urls;			/* DEBUGINFOD_URLS as shown: no passwords */
	/* The questions asked, searched in turn: a dump maps tens of files,
	 * and only those without a local copy get here. A hash index
	 * (lib/hash.h) would lift the quadratic cost for thousands. */
	struct ask *asks;
	size_t nasks, capasks;
	int failed;
	const char *cur_name, *cur_kind;	/* for the progress line */
};

/*
 * url as it may be shown: without a "user:password@" part, and cut before
 * "/buildid/" when cut is set (the server, not the file).
 */
static char *shown_url(const char *url, size_t len, int cut)
{
	const char *scheme = memmem(url, len, "://", 3), *host, *at, *slash, *b;
	char *out;

	if (cut && (b = memmem(url, len, "/buildid/", 9)))
		len = (size_t)(b - url);
	host = scheme ? scheme + 3 : url;
	slash = memchr(host, '/', len - (size_t)(host - url));
	/* The last '@' of the authority: a password may hold one too. */
	at = memrchr(host, '@', (size_t)((slash ? slash : url + len) - host));
	if (!at)
		return zt_strndup(url, len);
	out = zt_malloc(len + 1);
	snprintf(out, len + 1, "%.*s%.*s", (int)(host - url), url,
		 (int)(url + len - (at + 1)), at + 1);
	return out;
}

/* DEBUGINFOD_URLS as shown: each of its words by shown_url. */
static char *shown_urls(const char *urls)
{
	size_t cap = strlen(urls) + 1, n = 0;
	char *out = zt_malloc(cap);
	const char *p = urls;

	while (*p) {
		size_t w = strcspn(p, " \t\n");
		char *u;

		if (w) {
			u = shown_url(p, w, 0);
			n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " " : "", u);
			free(u);
		}
		p += w;
		p += strspn(p, " \t\n");
	}
	out[n] = '\0';
	return out;
}

struct zt_debuginfod *zt_debuginfod_new(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	struct zt_debuginfod *df;

	if (!urls || urls[strspn(urls, " \t\n")] == '\0')
		return NULL;
	df = zt_calloc(1, sizeof *df);
	df->urls = shown_urls(urls);
	return df;
}

void zt_debuginfod_free(struct zt_debuginfod *df)
{
	if (!df)
		return;
	for (size_t i = 0; i < df->nasks; i++) {
		for (int k = 0; k < 2; k++) {
			free(df->asks[i].a[k].path);
			free(df->asks[i].a[k].from);
			free(df->asks[i].a[k].problem);
		}
		free(df->asks[i].buildid);
		free(df->asks[i].name);
	}
	free(df->asks);
	free(df->urls);
	if (df->client)
		lib.end(df->client);
	free(df);
}

/* A build-id as a server takes it: lowercase hex bytes, nothing else. */
static int buildid_ok(const char *id)
{
	size_t n = strlen(id);

	return n >= 2 && n <= 128 && n % 2 == 0 && strspn(id, "0123456789abcdef") == n;
}

static struct ask *ask_for(struct zt_debuginfod *df, const char *buildid, const char *name)
{
	struct ask *k;

	for (size_t i = 0; i < df->nasks; i++)
		if (strcmp(df->asks[i].buildid, buildid) == 0)
			return &df->asks[i];
	zt_grow(&df->asks, &df->capasks, df->nasks + 1, sizeof *df->asks);
	k = &df->asks[df->nasks++];
	*k = (struct ask){ 0 };
	k->buildid = zt_strdup(buildid);
	k->name = zt_strdup(zt_maps_basename(name));
	return k;
}

/* libdebuginfod's progress callback: a transfer under way, on a terminal. */
static int progress(debuginfod_client *c, long a, long b)
{
	struct zt_debuginfod *df = lib.get_user_data(c);

	if (!zt_progress_due())
		return 0;
	if (a <= 0)
		zt_progress_show("debuginfod: %s of '%s': waiting for the server",
				 df->cur_kind, df->cur_name);
	else if (b > 0)
		zt_progress_show("debuginfod: %s of '%s': %ld of %ld KiB", df->cur_kind,
				 df->cur_name, a / 1024, b / 1024);
	else
		zt_progress_show("debuginfod: %s of '%s': %ld KiB", df->cur_kind, df->cur_name,
				 a / 1024);
	return 0;
}

/* The directory of libdebuginfod's cache that holds path (DIR/ID/kind). */
static char *cache_of(const char *path)
{
	const char *end = path + strlen(path);
	int slashes = 0;

	while (end > path && slashes < 2)
		if (*--end == '/')
			slashes++;
	return zt_strndup(path, slashes == 2 ? (size_t)(end - path) : strlen(path));
}

/* Ask the servers for k's file of kind, into k->a[kind]. */
static void ask(struct zt_debuginfod *df, struct ask *k, enum zt_debuginfod_kind kind)
{
	struct answer *a = &k->a[kind];
	const unsigned char *id = (const unsigned char *)k->buildid;
	struct zt_elf e = { 0 };
	char *path = NULL, err[512];
	const char *url;
	int fd;

	if (df->failed) {
		a->state = ASK_SKIPPED;
		return;
	}
	if (!df->client) {
		/* One attempt a question: a dead server costs one time-out,
		 * not three (libdebuginfod retries twice by default). */
		char why[512];
		const char *problem = load_lib(why, sizeof why);

		setenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR, "0", 0);
		if (problem || !(df->client = lib.begin())) {
			a->state = ASK_FAILED;
			a->problem = zt_strdup(problem ? problem : "cannot start libdebuginfod's client");
			df->failed = 1;
			return;
		}
		lib.set_user_data(df->client, df);
		lib.set_progressfn(df->client, progress);
	}
	df->cur_name = k->name;
	df->cur_kind = kind_name[kind];
	fd = kind == ZT_DEBUGINFOD_EXECUTABLE
		     ? lib.find_executable(df->client, id, 0, &path)
		     : lib.find_debuginfo(df->client, id, 0, &path);
	zt_progress_clear();
	if (fd < 0) {
		free(path);
		if (fd == -ENOENT) {
			a->state = ASK_MISSING;
		} else {
			a->state = ASK_FAILED;
			a->problem = zt_strdup(strerror(-fd));
			df->failed = 1;
		}
		return;
	}
	close(fd);
	url = lib.get_url(df->client);
	if (url) {
		char *u = shown_url(url, strlen(url), 1);

		a->from = zt_malloc(strlen(u) + 3);
		sprintf(a->from, "'%s'", u);
		free(u);
	} else {
		char *dir = cache_of(path);

		a->from = zt_malloc(strlen(dir) + 13);
		sprintf(a->from, "the cache '%s'", dir);
		free(dir);
	}
	/* A server may answer with any file: only this build-id's is used. */
	if (zt_elf_open(path, &e, err, sizeof err) < 0) {
		a->state = ASK_WRONG;
		a->problem = zt_strdup(err);
	} else if (strcmp(e.buildid, k->buildid) != 0) {
		a->state = ASK_WRONG;
		a->problem = zt_malloc(strlen(e.buildid) + 32);
		sprintf(a->problem, e.buildid[0] ? "its build-id is %s" : "it has no build-id",
			e.buildid);
	} else {
		a->state = ASK_FOUND;
		a->path = path;
		path = NULL;
	}
	zt_elf_close(&e);
	free(path);
}

int zt_debuginfod_open(struct zt_debuginfod *df, const char *buildid,
		       enum zt_debuginfod_kind kind, const char *name, struct zt_elf *out)
{
	struct answer *a;
	char err[512];
	struct ask *k;

	if (!df || !buildid || !buildid_ok(buildid))
		return -1;
	k = ask_for(df, buildid, name);
	a = &k->a[kind];
	if (a->state == ASK_NONE)
		ask(df, k, kind);
	if (a->state != ASK_FOUND)
		return -1;
	if (zt_elf_open(a->path, out, err, sizeof err) < 0 ||
	    strcmp(out->buildid, buildid) != 0) {
		zt_elf_close(out);
		return -1;
	}
	return 0;
}

void zt_debuginfod_refuse(struct zt_debuginfod *df, const char *buildid,
			  enum zt_debuginfod_kind kind, const char *why)
{
	struct answer *a;

	for (size_t i = 0; df && i < df->nasks; i++) {
		if (strcmp(df->asks[i].buildid, buildid) != 0)
			continue;
		a = &df->asks[i].a[kind];
		if (a->state != ASK_FOUND)
			return;
		a->state = ASK_WRONG;
		a->problem = zt_strdup(why);
		free(a->path);
		a->path = NULL;
		return;
	}
}

/* What one answer says, for the report. */
static void say(FILE *f, const struct answer *a, int kind)
{
	switch (a->state) {
	case ASK_FOUND:
		fprintf(f, "%s from %s", kind_name[kind], a->from);
		break;
	case ASK_MISSING:
		fprintf(f, "no %s", kind_name[kind]);
		break;
	case ASK_WRONG:
		fprintf(f, "%s from %s ignored (%s)", kind_name[kind], a->from, a->problem);
		break;
	case ASK_FAILED:
	case ASK_SKIPPED:
		fprintf(f, "%s not fetched", kind_name[kind]);
		break;
	}
}

/* Whether the answers x and d, both new, say the same thing. */
static int same(const struct answer *x, const struct answer *d)
{
	if (x->state == ASK_FOUND && d->state == ASK_FOUND)
		return strcmp(x->from, d->from) == 0;
	return (x->state == ASK_MISSING && d->state == ASK_MISSING) ||
	       ((x->state == ASK_FAILED || x->state == ASK_SKIPPED) &&
		(d->state == ASK_FAILED || d->state == ASK_SKIPPED));
}

char *zt_debuginfod_report(struct zt_debuginfod *df)
{
	const char *failure = NULL;
	char *line = NULL;
	size_t len = 0, said = 0;
	int skipped = 0;
	FILE *f;

	if (!df)
		return NULL;
	if (!(f = open_memstream(&line, &len)))
		zt_out_of_memory("debuginfod report");
	fputs("debuginfod: ", f);
	for (size_t i = 0; i < df->nasks; i++) {
		struct answer *x = &df->asks[i].a[0], *d = &df->asks[i].a[1];
		int newx = x->state != ASK_NONE && !x->reported;
		int newd = d->state != ASK_NONE && !d->reported;

		if (!newx && !newd)
			continue;
		fprintf(f, "%s'%s': ", said++ ? "; " : "", df->asks[i].name);
		if (newx && newd && same(x, d)) {
			if (x->state == ASK_FOUND)
				fprintf(f, "executable and debug file from %s", x->from);
			else
				fputs(x->state == ASK_MISSING ? "not found" : "not fetched", f);
		} else {
			if (newx)
				say(f, x, 0);
			if (newx && newd)
				fputs(", ", f);
			if (newd)
				say(f, d, 1);
		}
		for (int k = 0; k < 2; k++) {
			if (df->asks[i].a[k].state == ASK_FAILED && !df->asks[i].a[k].reported)
				failure = df->asks[i].a[k].problem;
			skipped |= df->asks[i].a[k].state == ASK_SKIPPED &&
				   !df->asks[i].a[k].reported;
		}
		x->reported |= newx;
		d->reported |= newd;
	}
	/* The servers failed once; every question after it was not asked. */
	if (failure)
		fprintf(f, "; no answer from '%s' (%s): nothing more asked", df->urls, failure);
	else if (skipped)
		fputs("; the servers failed before: nothing more asked", f);
	if (fclose(f) != 0 || !line)
		zt_out_of_memory("debuginfod report");
	if (!said) {
		free(line);
		return NULL;
	}
	return line;
}
