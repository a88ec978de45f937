/* pprof-encode.c — tests/bench/pprof-encode.sh: the same zt_pprof tables
 * encoded by lib/pprof.c and through protobuf-c (pprof-profile.proto). */
#include "input.h"
#include "pprof.h"
#include "raw.h"
#include "symbolize.h"
#include "util.h"
#include "pprof-profile.pb-c.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <malloc.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static unsigned char *pbc(const struct zt_pprof *p, size_t *len)
{
	Perftools__Profiles__Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[2], per = PERFTOOLS__PROFILES__VALUE_TYPE__INIT, *vtp[2];
	uint32_t nstr = zt_strtab_count(p->strtab);
	for (size_t i = 0; i < p->nsample_types; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vt[i].type = p->sample_type[i][0]; vt[i].unit = p->sample_type[i][1]; vtp[i] = &vt[i];
	}
	pr.n_sample_type = p->nsample_types; pr.sample_type = vtp;
	Perftools__Profiles__Sample *S = calloc(p->nsamples, sizeof *S), **Sp = calloc(p->nsamples, sizeof *Sp);
	Perftools__Profiles__Label *L = calloc(p->nsamples * 2, sizeof *L), **Lp = calloc(p->nsamples * 2, sizeof *Lp);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct zt_pprof_sample *s = &p->samples[i];
		perftools__profiles__sample__init(&S[i]); Sp[i] = &S[i];
		S[i].n_location_id = s->nlocs; S[i].location_id = (uint64_t *)p->locids + s->first_loc;
		S[i].n_value = p->nsample_types; S[i].value = (int64_t *)s->value;
		perftools__profiles__label__init(&L[2*i]); perftools__profiles__label__init(&L[2*i+1]);
		L[2*i].key = p->key_tid; L[2*i].num = s->tid; L[2*i+1].key = p->key_thread; L[2*i+1].str = s->thread;
		Lp[2*i] = &L[2*i]; Lp[2*i+1] = &L[2*i+1];
		S[i].n_label = s->thread ? 2 : 1; S[i].label = &Lp[2*i];
	}
	pr.n_sample = p->nsamples; pr.sample = Sp;
	Perftools__Profiles__Mapping *M = calloc(p->nmappings, sizeof *M), **Mp = calloc(p->nmappings, sizeof *Mp);
	for (size_t i = 0; i < p->nmappings; i++) {
		const struct zt_pprof_mapping *m = &p->mappings[i];
		perftools__profiles__mapping__init(&M[i]); Mp[i] = &M[i];
		M[i].id = m->id; M[i].memory_start = m->start; M[i].memory_limit = m->limit; M[i].file_offset = m->offset;
		M[i].filename = m->file; M[i].build_id = m->build_id; M[i].has_functions = m->has_functions;
		M[i].has_filenames = m->has_filenames; M[i].has_line_numbers = m->has_line_numbers; M[i].has_inline_frames = m->has_inline_frames;
	}
	pr.n_mapping = p->nmappings; pr.mapping = Mp;
	Perftools__Profiles__Location *Lo = calloc(p->nlocations, sizeof *Lo), **Lop = calloc(p->nlocations, sizeof *Lop);
	Perftools__Profiles__Line *Li = calloc(p->nlines + 1, sizeof *Li), **Lip = calloc(p->nlines + 1, sizeof *Lip);
	for (size_t i = 0; i < p->nlines; i++) {
		perftools__profiles__line__init(&Li[i]); Lip[i] = &Li[i];
		Li[i].function_id = p->lines[i].function_id; Li[i].line = p->lines[i].line;
	}
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct zt_pprof_location *l = &p->locations[i];
		perftools__profiles__location__init(&Lo[i]); Lop[i] = &Lo[i];
		Lo[i].id = l->id; Lo[i].mapping_id = l->mapping_id; Lo[i].address = l->address;
		Lo[i].n_line = l->nlines; Lo[i].line = &Lip[l->first_line];
	}
	pr.n_location = p->nlocations; pr.location = Lop;
	Perftools__Profiles__Function *F = calloc(p->nfunctions, sizeof *F), **Fp = calloc(p->nfunctions, sizeof *Fp);
	for (size_t i = 0; i < p->nfunctions; i++) {
		perftools__profiles__function__init(&F[i]); Fp[i] = &F[i];
		F[i].id = p->functions[i].id; F[i].name = p->functions[i].name;
		F[i].system_name = p->functions[i].system_name; F[i].filename = p->functions[i].filename;
	}
	pr.n_function = p->nfunctions; pr.function = Fp;
	char **st = calloc(nstr, sizeof *st);
	for (uint32_t i = 0; i < nstr; i++) st[i] = (char *)zt_strtab_key(p->strtab, i, NULL);
	pr.n_string_table = nstr; pr.string_table = st;
	pr.time_nanos = p->time_nanos; pr.duration_nanos = p->duration_nanos;
	if (p->period_type[0]) { per.type = p->period_type[0]; per.unit = p->period_type[1]; pr.period_type = &per; }
	pr.period = p->period;
	pr.n_comment = p->ncomments; pr.comment = (int64_t *)p->comments;
	*len = perftools__profiles__profile__get_packed_size(&pr);
	unsigned char *out = malloc(*len);
	perftools__profiles__profile__pack(&pr, out);
	free(S); free(Sp); free(L); free(Lp); free(M); free(Mp); free(Lo); free(Lop); free(Li); free(Lip); free(F); free(Fp); free(st);
	return out;
}

int main(int argc, char **argv)
{
	struct zt_raw d = { 0 }; char err[512]; size_t n1, n2;
	zt_setprog("bench");
	struct zt_input *in = zt_input_open(argv[1], err, sizeof err);
	if (!in) zt_die(1, "%s", err);
	if (zt_raw_read(in, &d, err, sizeof err) < 0) zt_die(1, "%s", err);
	struct zt_symbolizer *s = zt_symbolizer_new(&d, NULL);
	struct zt_pprof *p = zt_pprof_build(&d, s, 0);
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	double best1 = 1e9, best2 = 1e9;
	unsigned char *a = NULL, *b = NULL;
	for (int r = 0; r < reps; r++) {
		double t = now(); free(a); a = zt_pprof_encode(p, &n1); t = now() - t; if (t < best1) best1 = t;
		t = now(); free(b); b = pbc(p, &n2); t = now() - t; if (t < best2) best2 = t;
	}
	printf("samples %zu locations %zu functions %zu strings %u\n", p->nsamples, p->nlocations, p->nfunctions, zt_strtab_count(p->strtab));
	printf("hand-written: %zu bytes, best %.1f ms\nprotobuf-c:   %zu bytes, best %.1f ms\nidentical: %s\n",
	       n1, best1 * 1e3, n2, best2 * 1e3, n1 == n2 && !memcmp(a, b, n1) ? "yes" : "NO");
	fflush(stdout);
	return 0;
}
