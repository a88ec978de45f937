/*
 * raw.h — reading the raw dump (formats/raw.md): version 1, as the seed
 * writes it, versions 2 and 3, version 4, as libzt-prof.so writes it, and
 * version 5, its wall-clock profiles (weights in ns, off-CPU waits), and
 * version 6, allocation samples ("$aSIZE", "$iSIZE", "$pSIZE"). The
 * format's keys and limits are named in rawfmt.h, shared with the writer.
 */
#ifndef ZT_RAW_H
#define ZT_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "maps.h"

struct zt_input;

/* How a partial stack ended (struct zt_stack's partial). */
enum { ZT_STACK_PARTIAL = 1, ZT_STACK_DEPTH = 2 };

/*
 * What an allocation stack's records weigh (v6, struct zt_stack's alloc):
 * each "$" line of kind a, i or p is counted into two stacks, one of
 * bytes (its weight, the estimated bytes) and, next to it, one of objects
 * (weight / SIZE, rounded per stack: zt_raw_objects). 0: not an allocation.
 * The order is that of enum zt_view's allocation views (lib/view.h).
 */
enum zt_alloc_kind {
	ZT_ALLOC_NONE,
	ZT_ALLOC_SPACE, ZT_ALLOC_OBJECTS,	/* "$a": allocated */
	ZT_INUSE_SPACE, ZT_INUSE_OBJECTS,	/* "$i": live at the end */
	ZT_PEAK_SPACE, ZT_PEAK_OBJECTS,		/* "$p": live at the peak */
	ZT_ALLOC_KINDS
};

/* A stack's gen when its samples are named from all the maps at once. */
#define ZT_RAW_GEN_ANY UINT32_MAX

/*
 * Identical samples (same thread, same addresses, taken while the same
 * maps were mapped) are kept once, counted.
 */
struct zt_stack {
	uint32_t tid;
	uint32_t naddr;
	/*
	 * 0: whole. Else it did not reach the thread's entry: ZT_STACK_PARTIAL,
	 * the unwinder stopped (v3 "-"); ZT_STACK_DEPTH, cut at max-depth ("+").
	 */
	int partial;
	int own;		/* the collector's own work: its leaf is "[zt]", and its
				   addresses are the program's frames below (zt_raw_own) */
	uint32_t gen;		/* which maps name it (zt_raw_map_at), or ZT_RAW_GEN_ANY */
	size_t first;		/* index of the first address in the pool */
	uint64_t count;
	uint32_t wait;		/* v5: 1 + its wait's index in waits (off-CPU), 0 on-CPU */
	uint64_t weight;	/* v5: the ns its samples stand for, summed; 0 before v5;
				   v6 allocation stacks: their bytes or objects */
	int alloc;		/* v6: enum zt_alloc_kind, ZT_ALLOC_NONE for CPU samples */
	uint64_t size;		/* v6: the allocation's size, "$aSIZE"; 0 for CPU samples */
};

/* One sample line with its time (version 3 "@ns"), in file order. */
struct zt_timed {
	uint64_t ns;		/* since the dump's start-ns */
	size_t stack;		/* index into stacks */
	uint64_t count;
	uint64_t weight;	/* v5: the ns the line's samples stand for, 0 before v5;
				   v6: its bytes, or its objects (struct zt_stack's) */
};

struct zt_buildid {
	uint64_t addr;		/* an address inside the object's first mapping */
	uint64_t ns;		/* v4: when the object was seen, since start-ns */
	int timed;
	char *hex;
	char *path;		/* as the loader named it, informational */
};

/* One mapping of a snapshot, for the lookup (ranges.h). */
struct zt_snapmap {
	uint64_t start, end;
	uint32_t up;
	size_t map;		/* index into maps */
};

/* A maps section: one snapshot of the maps (v4 "maps @ns"). */
struct zt_snapshot {
	uint64_t ns;		/* when it was read, since start-ns */
	int timed;		/* it has a time (v4) */
	struct zt_snapmap *sm;	/* its mappings, by start */
	size_t n;
	size_t first;		/* while reading: its first mapping's index in maps */
	int same;		/* it was "= @ns": a copy of an earlier snapshot */
};

/* A "perfmap" line: JIT code as the program named it for perf (v4). */
struct zt_jitsym {
	uint64_t start, end;	/* [start, end) */
	uint32_t up;		/* ranges.h's link */
	size_t seq;		/* order in the dump: a later line wins */
	char *name;
};

/* A "threads" line: the thread's last name wins (zt_raw_thread_name). */
struct zt_tname {
	uint32_t tid;
	char *name;
};

struct zt_raw {
	int version;		/* 1 to 6 */
	int arch;		/* enum zt_arch (arch.h): the machine the run was on;
				   ZT_ARCH_X86_64 when the dump has no "arch" key */
	int complete;		/* an "end" line was read (v2) */
	unsigned hz;
	char *timer;		/* "perf-task-clock", "posix-cpu"; NULL if unknown */
	char *rate_cap;		/* e.g. "kernel-tick"; NULL when not capped */
	uint64_t pid;
	int have_pid;
	char *exe;
	char *host;		/* the host name ("host"), NULL if not given */
	struct zt_raw_label { char *key, *value; } *labels;	/* "label" lines, in order */
	size_t nlabels, caplabels;
	uint64_t lost;		/* samples lost, v1's "dropped" */
	char *lost_detail;	/* "write-error=3 ..." or NULL */
	uint64_t truncated;	/* stacks cut at max_depth (counted in partial too) */
	uint64_t max_depth;	/* frames kept per sample ("max-depth"); 0 when not given */
	char *unwind;		/* "auto", "cfi", "fp"; NULL before version 3 */
	uint64_t partial;	/* stacks that did not reach the thread's entry, cut ones too */
	int have_partial;
	uint64_t unsampled;	/* threads that were not sampled */
	uint64_t sigprof_blocked;	/* threads that ended with SIGPROF blocked */
	uint64_t unsampled_cpu_ns;	/* CPU time no sample covers: threads zt could not sample */
	uint64_t unsampled_blocked_ns;	/* of it, with zt's signal blocked (when signo is given) */
	uint64_t timers_lost;	/* sampling counters the program closed */
	uint64_t timer_fallback;	/* threads on the POSIX timer beside perf ones */
	uint64_t dump_reopened;	/* times the program closed the dump's descriptor */
	/* Sampling windows (zt-ctl, zt_start): have_windows when the dump says. */
	int have_windows;
	uint64_t windows;	/* windows opened in this dump */
	uint64_t window_ns;	/* their wall-clock time */
	uint64_t snapshot;	/* this dump is snapshot N (FILE.N); 0 if not one */
	uint64_t snapshots;	/* the end's dump: snapshots written before it */
	char *conflict;		/* "handler", "itimer-prof": the program's own SIGPROF use */
	unsigned signo;		/* zt's sampling signal ("signal"); 0 if not given (SIGPROF then) */
	char *signal_taken;	/* "FROM moved TO", "FROM shared", joined by ", "; NULL if none */
	char *exec;		/* the program exec'd this, after which the dump ends */
	char *finished;		/* who finished the dump, if not its collector: "zt-collect" */
	/* Such a dump's buffers the process left: taken, and not knowable
	   (finished-buffers-unknown); finished_known when it says. */
	int finished_known;
	uint64_t finished_buffers, finished_unknown;
	char **unreached;	/* "PID WHY PATH": what vforked children exec'd that zt cannot reach */
	size_t nunreached, capunreached;
	char *seccomp;		/* "stopped CALL", "no-new-threads CALL", "posix-timer CALL", "allowed" */
	uint64_t cpu_ns, cpu_user_ns, cpu_sys_ns;
	/* user and system time before this image's sampling began (0 if unknown) */
	uint64_t cpu_user_start_ns, cpu_sys_start_ns;
	uint64_t zt_setup_ns;	/* of those, zt's own set-up (its constructor) */
	uint64_t zt_exit_ns;	/* of the end values, zt's own exit work (0: not said) */
	/* The children it reaped: all (RUSAGE_CHILDREN), and each ("reaped PID NS"). */
	int have_cpu_children;
	uint64_t cpu_children_ns, reaped_unrecorded;
	struct zt_raw_reaped { uint64_t pid, ns; } *reaped;
	size_t nreaped, capreaped;
	/* The collector's own code ("zt-code", "zt-handover"): [lo, hi) each. */
	int have_zt_code, have_zt_handover;
	uint64_t zt_code_lo, zt_code_hi, zt_handover_lo, zt_handover_hi;
	uint64_t own_samples;	/* samples whose stack became zt's own ([zt]) */
	/* The sampled threads' own user and system time while their timers ran;
	 * have_sampled is 3 when the dump gives both (collectors since issue 26). */
	uint64_t sampled_user_ns, sampled_sys_ns;
	int have_sampled;
	uint64_t start_ns;	/* CLOCK_MONOTONIC at the start (v3 "start-ns"), 0 if unknown */
	uint64_t start_time_ns;	/* CLOCK_REALTIME at the start, 0 if unknown */
	struct zt_timed *timed;	/* the sample lines that had a time */
	size_t ntimed, captimed;
	uint64_t nuntimed;	/* samples whose line had no time */
	int have_cpu;
	uint64_t nsamples;	/* sum of the counts */
	uint64_t nwaiting;	/* of those, the off-CPU lines' (a wait) */
	/* Version 5 (formats/raw.md "Version 5"): a wall-clock profile. */
	int wall;		/* "profile-clock wall": weights are wall-clock ns */
	unsigned off_cpu_hz;	/* the off-CPU sampler's rate, 0 if not given */
	uint64_t off_cpu_samples, off_cpu_repeated, off_cpu_torn, off_cpu_foreign, off_cpu_blind;
	uint64_t sampler_cpu_ns, wall_ns;
	int have_off_cpu, have_wall_ns;
	uint64_t weight;	/* the ns of every sample, summed (v5) */
	char **waits;		/* the distinct waits, decoded ("futex", "read fd 3 pipe") */
	size_t nwaits, capwaits;
	/* Version 6 (formats/raw.md "Version 6"): allocation samples. */
	uint64_t alloc_rate;	/* "alloc-rate": mean bytes between samples; 0 if not given */
	char *alloc_allocator;	/* "alloc-allocator": the program's malloc is not zt's, but
				   this object's (decoded); NULL when not said */
	/* The summary's alloc-* keys; have_alloc_summary bit i: key i was given
	   (ZT_RAW_ALLOC_CALLS ... ZT_RAW_ALLOC_LOST in that order). */
	uint64_t alloc_calls, alloc_bytes, alloc_samples, alloc_peak_bytes, alloc_peak_ns,
		 alloc_inuse_bytes, alloc_untracked, alloc_lost;
	unsigned have_alloc_summary;
	/* What the "$" lines held, per kind (0 "$a", 1 "$i", 2 "$p"): their
	   samples (counts summed), sizes (SIZE x count) and weights (the
	   estimated bytes). */
	uint64_t alloc_lines[3], alloc_sized[3], alloc_weighed[3];

	struct zt_map *maps;	/* every snapshot's mappings, sorted by start */
	size_t nmaps, capmaps;
	struct zt_snapshot *snaps;	/* in the dump's order */
	size_t nsnaps, capsnaps;
	size_t *bytime;		/* the timed snapshots' indices, by time */
	size_t nbytime;
	struct zt_buildid *buildids;
	size_t nbuildids, capbuildids;
	struct zt_tname *threads;
	size_t nthreads, capthreads;
	int have_perfmap;	/* the dump has a perfmap section (v4) */
	uint64_t perfmap_lines, perfmap_skipped;	/* its summary keys */
	int perfmap_truncated, perfmap_refused;
	struct zt_jitsym *jit;	/* its lines, by start */
	size_t njit, capjit;
	/* The vDSO's ELF image from a "vdso" section (v4), to name its frames. */
	unsigned char *vdso;	/* NULL: no section, or one that was dropped */
	size_t vdso_size;	/* its bytes */
	uint64_t vdso_addr;	/* where it was: the start of its [vdso] mapping */
	unsigned long vdso_line;	/* the section's first line */
	char *vdso_where;	/* its place for messages: "'f': line N: vdso" */
	char *vdso_problem;	/* why a malformed section was dropped, place
				   first ("'f': line N: vdso: ..."); NULL if none.
				   Not an error: its frames stay "[vdso]" */

	struct zt_stack *stacks;	/* in order of first appearance */
	size_t nstacks, capstacks;
	uint64_t *addr;			/* the address pool */
	uint8_t *exact;			/* per address: 1 if an exact pc */
	size_t naddr, capaddr;
	struct zt_hash_index index;		/* stacks by content */
};

/*
 * Read a whole dump from in into d (zeroed by the caller). Returns 0, or -1
 * with the whole message in err, place first ("'f': line N: problem", on
 * stdin "line N: problem"; util.h's error policy). Maps come out sorted by
 * start, with their build-ids attached. The caller frees d with
 * zt_raw_free, also after a failure.
 */
int zt_raw_read(struct zt_input *in, struct zt_raw *d, char *err, size_t errlen);

/*
 * Like zt_raw_read, but samples are only counted, not stored: for readers
 * that need the header and the summary only.
 */
int zt_raw_read_summary(struct zt_input *in, struct zt_raw *d, char *err,
			size_t errlen);

/*
 * zt_raw_read from the file at path (NULL or "-": stdin; plain or gzip),
 * opened and closed here: what the tools that take one dump do. Returns 0,
 * or -1 with the whole message in err ("cannot open 'f': ...", "'f': line
 * 3: ..."). The caller frees d with zt_raw_free, also after a failure.
 */
int zt_raw_load(const char *path, struct zt_raw *d, char *err, size_t errlen);

void zt_raw_free(struct zt_raw *d);

/*
 * The mapping that held addr when the samples of a stack with this gen
 * were taken: in the last snapshot read before them, else in the first
 * one read after them (a library's constructor runs before its dlopen
 * returns). With ZT_RAW_GEN_ANY, or a dump without timed snapshots, the
 * last mapping read that holds addr (zt_maps_find). NULL if none.
 */
const struct zt_map *zt_raw_map_at(const struct zt_raw *d, uint64_t addr, uint32_t gen);

/*
 * The JIT symbol of the dump's perfmap that holds addr (the one listed
 * last, where entries overlap), or NULL.
 */
const struct zt_jitsym *zt_raw_jit_at(const struct zt_raw *d, uint64_t addr);

/* The wait of stack st (its off-CPU frame's text, "futex"), or NULL on-CPU. */
const char *zt_raw_wait(const struct zt_raw *d, const struct zt_stack *st);

/*
 * The frame that stands for the collector's own work, the leaf of a stack
 * with own set: its symbol and its module, as zt-symbolize prints it.
 */
#define ZT_OWN_FRAME "[zt]"

/*
 * An allocation's objects, rounded: bytes / size to the nearest whole
 * number (halves up). A stack's objects are zt_raw_objects of its bytes
 * summed; each line adds what it moves that up by, so that the lines of a
 * stack add up to its rounded total exactly.
 */
uint64_t zt_raw_objects(uint64_t bytes, uint64_t size);

/* Whether d has allocation samples ("$" lines). */
int zt_raw_has_alloc(const struct zt_raw *d);

/* The name of thread tid from the dump, or NULL. */
const char *zt_raw_thread_name(const struct zt_raw *d, uint32_t tid);

#endif
