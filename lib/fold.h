/*
 * fold.h — the old names of perfscriptfold.h and framenames.h, for
 * tools/zt-ingest.c alone while that file changes on another branch. Once
 * that branch is in, zt-ingest.c includes perfscriptfold.h and says
 * zt_perfscriptfold and zt_framenames_opts, and this file goes.
 */
#ifndef ZT_FOLD_H
#define ZT_FOLD_H

#include "perfscriptfold.h"

#define zt_fold zt_perfscriptfold
#define zt_fold_new zt_perfscriptfold_new
#define zt_fold_next_input zt_perfscriptfold_next_input
#define zt_fold_free zt_perfscriptfold_free
#define zt_fold_item zt_perfscriptfold_item
#define zt_fold_weight_line zt_perfscriptfold_weight_line
#define zt_fold_weight zt_perfscriptfold_weight
#define zt_fold_filter zt_perfscriptfold_filter
#define zt_fold_wall zt_perfscriptfold_wall
#define zt_fold_alloc zt_perfscriptfold_alloc
#define zt_fold_records zt_perfscriptfold_records
#define zt_fold_kept zt_perfscriptfold_kept
#define zt_fold_write zt_perfscriptfold_write
#define zt_collapse_opts zt_framenames_opts

#endif
