/*
 * fold.h — the old name of perfscriptfold.h, kept for tools/zt-ingest.c
 * alone while that file changes on another branch. Once that branch is in,
 * zt-ingest.c includes perfscriptfold.h and this file goes.
 */
#ifndef ZT_FOLD_H
#define ZT_FOLD_H

#include "perfscriptfold.h"

#endif
