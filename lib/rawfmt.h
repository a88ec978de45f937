/*
 * rawfmt.h — the raw dump (formats/raw.md, zt-raw(5)) and the `# zt` facts
 * (formats/symbolized.md) as names: the magic line and its version, the
 * header and summary keys, the sections, the marks of a sample line, the
 * values the collector writes, and the sampling-rate limits. The writer
 * (collect/dump.c, collect/store.c) and the readers (lib/raw.c,
 * lib/factlines.c) spell a key only through these, so that a key cannot be
 * renamed on one side alone.
 *
 * Only macros: collect/ includes it into the sampler, which links no libc
 * beyond system calls, and strings are written as literals so that they
 * join others at compile time ("zt-prof " "3" "\n").
 */
#ifndef ZT_RAWFMT_H
#define ZT_RAWFMT_H

/* A macro's value as a string literal: ZT_STR(ZT_HZ_MAX) is "10000". */
#define ZT_STR_(x) #x
#define ZT_STR(x) ZT_STR_(x)

/* Sampling rate, in samples per CPU-second (zt-collect -F, ZT_HZ, "hz"). */
#define ZT_HZ_DEFAULT 997	/* prime, as perf users pick: no lockstep with periodic work */
#define ZT_HZ_MAX 10000		/* the highest rate zt-collect accepts and readers take */
/* The off-CPU sampler's wall-clock ticks per second (--off-cpu-hz, "off-cpu-hz", v5). */
#define ZT_OFF_CPU_HZ_DEFAULT 97	/* prime, like ZT_HZ_DEFAULT */
#define ZT_OFF_CPU_HZ_MAX 1000
/* Mean bytes between allocation samples (zt-collect --alloc, "alloc-rate"). */
#define ZT_ALLOC_RATE_DEFAULT 524288
#define ZT_ALLOC_RATE_MAX (1ull << 40)
/* Frames kept per sample (zt-collect --max-depth, ZT_MAX_DEPTH, "max-depth"). */
#define ZT_DEPTH_DEFAULT 128
#define ZT_DEPTH_MIN 16
#define ZT_DEPTH_MAX 4096

/* The first line: "zt-prof N". The collector writes ZT_RAW_VERSION. */
#define ZT_RAW_MAGIC "zt-prof"
#define ZT_RAW_VERSION 4
#define ZT_RAW_VERSION_MAX 6	/* readers read 1 to this */
#define ZT_RAW_VERSION_WALL 5	/* what --clock=wall writes: weights and waits (issue 20) */
#define ZT_RAW_VERSION_ALLOC 6	/* what --alloc writes: allocation samples (issue 31) */

/* Sections: a line holding only the name starts one. */
#define ZT_RAW_SAMPLES "samples"
#define ZT_RAW_MAPS "maps"
#define ZT_RAW_BUILDIDS "buildids"
#define ZT_RAW_THREADS "threads"
#define ZT_RAW_SUMMARY "summary"
#define ZT_RAW_PERFMAP "perfmap"	/* v4: the program's /tmp/perf-PID.map */
/* v4: the vDSO's ELF image, "ADDR SIZE" then its bytes in hex; the collector
   writes it after the header keys, where older readers skip its lines as
   header keys they do not know. */
#define ZT_RAW_VDSO "vdso"
#define ZT_RAW_VDSO_LINE 64		/* bytes per line the collector writes */
#define ZT_RAW_VDSO_MAX (1 << 20)	/* the largest image written and read */
#define ZT_RAW_END "end"	/* the last line of a whole dump (v2 and later) */

/* A sample line: "tid count [@ns] [=]hex... [-|+]". */
#define ZT_RAW_TIME_MARK '@'	/* before the time of the sample (v3) */
#define ZT_RAW_EXACT_MARK '='	/* before an exact pc that is not the first address */
#define ZT_RAW_PARTIAL_MARK '-'	/* the last word: the stack did not reach the entry (v3) */
#define ZT_RAW_DEPTH_MARK '+'	/* the last word: cut at max-depth, more frames above (v3) */
#define ZT_RAW_SAME_MARK '='	/* a maps section's only line "= @ns": the maps of that snapshot (v4) */
#define ZT_RAW_WEIGHT_MARK '^'	/* before the ns each of the line's samples stands for (v5) */
#define ZT_RAW_WAIT_MARK '!'	/* before an off-CPU sample's wait, escaped text (v5) */
#define ZT_RAW_ALLOC_MARK '$'	/* before an allocation sample's kind and size (v6) */
#define ZT_RAW_ALLOC_NEW 'a'	/* "$aSIZE": an allocation sampled when it was made */
#define ZT_RAW_ALLOC_INUSE 'i'	/* "$iSIZE": a sampled block live when the dump was written */
#define ZT_RAW_ALLOC_PEAK 'p'	/* "$pSIZE": a sampled block live at the peak */

/*
 * The root frame zt-symbolize gives a partial stack (formats/symbolized.md):
 * the unwinder stopped short ("-"), or the collector cut it at max-depth ("+").
 */
#define ZT_ROOT_TRUNCATED "[truncated]"
#define ZT_ROOT_DEPTH "[depth limit]"

/*
 * Labels (zt-collect --label KEY=VALUE, and the host name): a key of 1 to
 * ZT_LABEL_KEY_MAX letters, digits, '_', '.' and '-', starting with a
 * letter or '_'; a value of at most ZT_LABEL_VALUE_MAX bytes, none a
 * control character or a backslash (so a value is the same text in a
 * dump, a stream, a folded root frame and a database row); at most
 * ZT_LABELS_MAX of them. The writer and every reader check the same rules.
 */
#define ZT_LABEL_KEY_MAX 64
#define ZT_LABEL_VALUE_MAX 256
#define ZT_LABELS_MAX 32

static inline int zt_label_key_ok(const char *k, unsigned long n)
{
	if (n == 0 || n > ZT_LABEL_KEY_MAX ||
	    !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_'))
		return 0;
	for (unsigned long i = 0; i < n; i++) {
		char c = k[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

static inline int zt_label_value_ok(const char *v, unsigned long n)
{
	if (n > ZT_LABEL_VALUE_MAX)
		return 0;
	for (unsigned long i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			return 0;
	}
	return 1;
}

/* Header keys. */
#define ZT_RAW_PID "pid"
#define ZT_RAW_EXE "exe"		/* escaped text */
#define ZT_RAW_HZ "hz"			/* 0 to ZT_HZ_MAX; 0 is unknown */
#define ZT_RAW_TIMER "timer"
#define ZT_RAW_RATE_CAP "rate-cap"
#define ZT_RAW_MAX_DEPTH "max-depth"
#define ZT_RAW_UNWIND "unwind"
#define ZT_RAW_CLOCK "clock"
#define ZT_RAW_START_NS "start-ns"
#define ZT_RAW_START_TIME_NS "start-time-ns"
#define ZT_RAW_HOST "host"		/* the machine's host name, a label value */
#define ZT_RAW_LABEL "label"		/* "KEY VALUE": zt-collect --label KEY=VALUE */
#define ZT_RAW_DROPPED "dropped"	/* version 1's "lost" */
#define ZT_RAW_SIGNAL "signal"		/* zt's sampling signal, a real-time one */
#define ZT_RAW_ARCH "arch"		/* the machine's architecture; absent: x86_64 */
#define ZT_RAW_PROFILE_CLOCK "profile-clock"	/* "cpu" (or absent) or "wall" (v5) */
#define ZT_RAW_OFF_CPU_HZ "off-cpu-hz"	/* the wall-clock sampler's rate (v5) */
#define ZT_RAW_ALLOC_RATE "alloc-rate"	/* v6: mean bytes between allocation samples */
/* v6: the object whose malloc the program reaches when it is not zt's (escaped text) */
#define ZT_RAW_ALLOC_ALLOCATOR "alloc-allocator"
#define ZT_RAW_ZT_CODE "zt-code"	/* "START-END", hex: libzt-prof.so's own extent */
#define ZT_RAW_ZT_HANDOVER "zt-handover"	/* "START-END": its interposers (zt_handover) */

/* Summary keys. */
#define ZT_RAW_NSAMPLES "samples"	/* the key, not the section */
#define ZT_RAW_LOST "lost"		/* "lost N reason=N..." */
#define ZT_RAW_TRUNCATED "truncated"
#define ZT_RAW_PARTIAL "partial"
#define ZT_RAW_CFI_OBJECTS "cfi-objects"
#define ZT_RAW_CFI_ROWS "cfi-rows"
#define ZT_RAW_CFI_BYTES "cfi-bytes"
#define ZT_RAW_CFI_BUILD_NS "cfi-build-ns"
#define ZT_RAW_ZT_MINFLT "zt-minflt"	/* minor page faults the collector took itself */
#define ZT_RAW_CFI_SKIPPED "cfi-skipped"
#define ZT_RAW_CFI_LAZY "cfi-lazy"
#define ZT_RAW_MAPS_SNAPSHOTS "maps-snapshots"
#define ZT_RAW_MAPS_LOST "maps-lost"
#define ZT_RAW_PERFMAP_LINES "perfmap-lines"
#define ZT_RAW_PERFMAP_SKIPPED "perfmap-skipped"
#define ZT_RAW_PERFMAP_TRUNCATED "perfmap-truncated"
#define ZT_RAW_PERFMAP_REFUSED "perfmap-refused"
#define ZT_RAW_UNSAMPLED "unsampled-threads"
#define ZT_RAW_SIGPROF_BLOCKED "sigprof-blocked"
#define ZT_RAW_UNSAMPLED_CPU_NS "unsampled-cpu-ns"	/* CPU time no sample covers */
#define ZT_RAW_UNSAMPLED_BLOCKED_NS "unsampled-blocked-ns"	/* of it, with zt's signal blocked */
#define ZT_RAW_TIMERS_LOST "timers-lost"
#define ZT_RAW_TIMER_FALLBACK "timer-fallback"
#define ZT_RAW_DUMP_REOPENED "dump-reopened"
#define ZT_RAW_PROGRAM_SIGPROF "program-sigprof"	/* read only: before zt had its own signal */
#define ZT_RAW_SIGNAL_TAKEN "signal-taken"	/* "FROM moved TO" or "FROM shared" */
#define ZT_RAW_EXEC "exec"		/* escaped text */
#define ZT_RAW_UNREACHED "unreached"	/* PID WHY PATH (escaped): a vforked child's exec */
#define ZT_RAW_UNREACHED_STATIC "static"
#define ZT_RAW_UNREACHED_SETUID "set-user-id"
#define ZT_RAW_UNREACHED_SETGID "set-group-id"
#define ZT_RAW_SECCOMP "seccomp"	/* "seccomp WHAT [CALL]" */
#define ZT_RAW_OFF_CPU_SAMPLES "off-cpu-samples"	/* v5 */
#define ZT_RAW_OFF_CPU_REPEATED "off-cpu-repeated"
#define ZT_RAW_OFF_CPU_TORN "off-cpu-torn"
#define ZT_RAW_OFF_CPU_FOREIGN "off-cpu-foreign"	/* threads without a zt record, visited */
#define ZT_RAW_OFF_CPU_BLIND "off-cpu-blind"	/* threads whose off-CPU stacks could not be read */
#define ZT_RAW_SAMPLER_CPU_NS "sampler-cpu-ns"
#define ZT_RAW_WALL_NS "wall-ns"
#define ZT_RAW_CPU_NS "cpu-ns"
/* v6, zt-collect --alloc: the allocation calls zt saw and their bytes
   (exact), the sampled ones, the estimated bytes live at the peak of
   sampled live bytes and when, and at the end; sampled blocks the table
   of live ones had no room for, and samples not recorded. */
#define ZT_RAW_ALLOC_CALLS "alloc-calls"
#define ZT_RAW_ALLOC_BYTES "alloc-bytes"
#define ZT_RAW_ALLOC_SAMPLES "alloc-samples"
#define ZT_RAW_ALLOC_PEAK_BYTES "alloc-peak-bytes"
#define ZT_RAW_ALLOC_PEAK_NS "alloc-peak-ns"
#define ZT_RAW_ALLOC_INUSE_BYTES "alloc-inuse-bytes"
#define ZT_RAW_ALLOC_UNTRACKED "alloc-untracked"
#define ZT_RAW_ALLOC_LOST "alloc-lost"
/* Sampling windows (zt-collect --paused, zt-ctl, zt_start/zt_stop): windows
   opened in this dump, their wall-clock time; a snapshot's number N (its file
   is FILE.N), or in the end's dump the snapshots written before it. */
#define ZT_RAW_WINDOWS "windows"
#define ZT_RAW_WINDOW_NS "window-ns"
#define ZT_RAW_SNAPSHOT "snapshot"
#define ZT_RAW_SNAPSHOTS "snapshots"
#define ZT_RAW_CPU_USER_NS "cpu-user-ns"
#define ZT_RAW_CPU_SYS_NS "cpu-sys-ns"
#define ZT_RAW_SAMPLED_USER_NS "sampled-user-ns"	/* sampled threads' user time, by their clocks */
#define ZT_RAW_SAMPLED_SYS_NS "sampled-sys-ns"	/* and their system time */
#define ZT_RAW_CPU_USER_START_NS "cpu-user-start-ns"	/* before this image's sampling */
#define ZT_RAW_CPU_SYS_START_NS "cpu-sys-start-ns"
#define ZT_RAW_ZT_SETUP_NS "zt-setup-ns"	/* of the start values: zt's own constructor's */
#define ZT_RAW_ZT_EXIT_NS "zt-exit-ns"	/* of the end values: zt's own exit work's */
#define ZT_RAW_CPU_CHILDREN_NS "cpu-children-ns"	/* RUSAGE_CHILDREN, user + system, at the end */
#define ZT_RAW_REAPED "reaped"	/* PID NS: a child reaped, its CPU time as the kernel accounts it */
#define ZT_RAW_REAPED_UNRECORDED "reaped-unrecorded"	/* children reaped past the recorded ones */
/* "finished zt-collect": the process died without the collector's end and
   zt-collect finished its dump from what reached the file (formats/raw.md,
   "Finished by zt-collect"). */
#define ZT_RAW_FINISHED "finished"
#define ZT_RAW_FINISHED_LAUNCHER "zt-collect"
/* In such a dump: the buffers the process left that it took, and those it
   could not know (their write was under way); absent when it found none. */
#define ZT_RAW_FINISHED_BUFFERS "finished-buffers"
#define ZT_RAW_FINISHED_UNKNOWN "finished-buffers-unknown"

/* Values the collector writes. */
#define ZT_RAW_TIMER_PERF "perf-task-clock"
#define ZT_RAW_TIMER_POSIX "posix-cpu"
#define ZT_RAW_TIMER_NONE "none"	/* unreachable: the timer starts before the dump opens */
#define ZT_RAW_CAP_KERNEL_TICK "kernel-tick"
#define ZT_RAW_UNWIND_AUTO "auto"
#define ZT_RAW_UNWIND_CFI "cfi"
#define ZT_RAW_UNWIND_FP "fp"
#define ZT_RAW_CLOCK_MONOTONIC "monotonic"
#define ZT_RAW_PROFILE_CPU "cpu"
#define ZT_RAW_PROFILE_WALL "wall"
#define ZT_RAW_ARCH_X86_64 "x86_64"
#define ZT_RAW_ARCH_AARCH64 "aarch64"
#define ZT_RAW_LOST_WRITE "write-error"
#define ZT_RAW_LOST_FD "descriptor-lost"
#define ZT_RAW_LOST_WAIT "sigwait"	/* zt's signal taken by a sigwait of the program's */
#define ZT_RAW_LOST_DEFERRED "deferred"	/* overflows a runtime (TSan) kept from zt's handler */
#define ZT_RAW_SIGPROF_HANDLER "handler"
#define ZT_RAW_SIGNAL_MOVED "moved"
#define ZT_RAW_SIGNAL_SHARED "shared"
#define ZT_RAW_SECCOMP_ALLOWED "allowed"
#define ZT_RAW_SECCOMP_FALLBACK "posix-timer"
#define ZT_RAW_SECCOMP_NO_TIMERS "no-new-threads"
#define ZT_RAW_SECCOMP_STOPPED "stopped"
#define ZT_RAW_SIGPROF_ITIMER "itimer-prof"
#define ZT_RAW_NO_NAME "?"		/* a thread whose name is unknown */
#define ZT_RAW_MAIN_PROGRAM "-"		/* a build-id line's name for the executable */

/*
 * `# zt KEY VALUE` lines in the symbolized stream (lib/factlines.c writes and
 * reads them). Most carry the dump's key of the same name.
 */
#define ZT_FACT_PREFIX "# zt "
#define ZT_FACT_VERSION "version"
#define ZT_FACT_HZ ZT_RAW_HZ
#define ZT_FACT_TIMER ZT_RAW_TIMER
#define ZT_FACT_RATE_CAP ZT_RAW_RATE_CAP
#define ZT_FACT_SAMPLES ZT_RAW_NSAMPLES
#define ZT_FACT_LOST ZT_RAW_LOST
#define ZT_FACT_TRUNCATED ZT_RAW_TRUNCATED
#define ZT_FACT_UNWIND ZT_RAW_UNWIND
#define ZT_FACT_PARTIAL ZT_RAW_PARTIAL
#define ZT_FACT_MAX_DEPTH ZT_RAW_MAX_DEPTH
#define ZT_FACT_UNSAMPLED ZT_RAW_UNSAMPLED
#define ZT_FACT_UNSAMPLED_CPU_NS ZT_RAW_UNSAMPLED_CPU_NS
#define ZT_FACT_PROGRAM_SIGPROF ZT_RAW_PROGRAM_SIGPROF
#define ZT_FACT_EXEC ZT_RAW_EXEC
#define ZT_FACT_CPU_NS ZT_RAW_CPU_NS
#define ZT_FACT_CPU_USER_NS ZT_RAW_CPU_USER_NS
#define ZT_FACT_CPU_SYS_NS ZT_RAW_CPU_SYS_NS
#define ZT_FACT_CPU_BEFORE_NS "cpu-before-ns"	/* user + system before sampling began */
#define ZT_FACT_PID ZT_RAW_PID
#define ZT_FACT_EXE ZT_RAW_EXE
#define ZT_FACT_HOST ZT_RAW_HOST
#define ZT_FACT_LABEL ZT_RAW_LABEL
#define ZT_FACT_PROFILE_CLOCK ZT_RAW_PROFILE_CLOCK	/* v5: "wall" */
#define ZT_FACT_OFF_CPU_HZ ZT_RAW_OFF_CPU_HZ
#define ZT_FACT_OFF_CPU_SAMPLES ZT_RAW_OFF_CPU_SAMPLES
#define ZT_FACT_OFF_CPU_REPEATED ZT_RAW_OFF_CPU_REPEATED
#define ZT_FACT_OFF_CPU_TORN ZT_RAW_OFF_CPU_TORN
#define ZT_FACT_SAMPLER_CPU_NS ZT_RAW_SAMPLER_CPU_NS
#define ZT_FACT_WALL_NS ZT_RAW_WALL_NS
/* v6: the header's and summary's alloc-* keys, and what the reader summed
   over the "$a" lines: their sizes, and their weights (estimated bytes). */
#define ZT_FACT_ALLOC_RATE ZT_RAW_ALLOC_RATE
#define ZT_FACT_ALLOC_ALLOCATOR ZT_RAW_ALLOC_ALLOCATOR	/* escaped text */
#define ZT_FACT_ALLOC_CALLS ZT_RAW_ALLOC_CALLS
#define ZT_FACT_ALLOC_BYTES ZT_RAW_ALLOC_BYTES
#define ZT_FACT_ALLOC_SAMPLES ZT_RAW_ALLOC_SAMPLES
#define ZT_FACT_ALLOC_PEAK_BYTES ZT_RAW_ALLOC_PEAK_BYTES
#define ZT_FACT_ALLOC_PEAK_NS ZT_RAW_ALLOC_PEAK_NS
#define ZT_FACT_ALLOC_INUSE_BYTES ZT_RAW_ALLOC_INUSE_BYTES
#define ZT_FACT_ALLOC_UNTRACKED ZT_RAW_ALLOC_UNTRACKED
#define ZT_FACT_ALLOC_LOST ZT_RAW_ALLOC_LOST
#define ZT_FACT_ALLOC_SAMPLED_BYTES "alloc-sampled-bytes"	/* "$a" sizes summed */
#define ZT_FACT_ALLOC_ESTIMATED_BYTES "alloc-estimated-bytes"	/* "$a" weights summed */
#define ZT_FACT_THREAD "thread"		/* "# zt thread TID NAME" */
#define ZT_FACT_WARNING "warning"
#define ZT_FACT_TIMER_UNKNOWN "unknown"	/* the timer of a version 1 dump */

/*
 * The event of zt-symbolize's records: their period is a number of
 * samples, or in a wall-clock profile (v5) the nanoseconds they stand for.
 * An off-CPU record's leaf frame names its wait, "[futex]", with this
 * module (formats/symbolized.md).
 */
#define ZT_EVENT_SAMPLES "zt-samples"
#define ZT_EVENT_WALL "zt-wall-ns"
/*
 * v6: an allocation sample's records, two per "$" line: its estimated
 * bytes and its objects, of the allocations ("$a"), of the blocks live at
 * the end ("$i") or at the peak ("$p") (formats/symbolized.md,
 * "Allocation profiles"). The tools' --event names them by pprof's names
 * (lib/event.h).
 */
#define ZT_EVENT_ALLOC_BYTES "zt-alloc-bytes"
#define ZT_EVENT_ALLOC_OBJECTS "zt-alloc-objects"
#define ZT_EVENT_INUSE_BYTES "zt-inuse-bytes"
#define ZT_EVENT_INUSE_OBJECTS "zt-inuse-objects"
#define ZT_EVENT_PEAK_BYTES "zt-peak-bytes"
#define ZT_EVENT_PEAK_OBJECTS "zt-peak-objects"
#define ZT_WAIT_MODULE "[off-cpu]"

#endif
