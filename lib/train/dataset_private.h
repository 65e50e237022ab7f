/* SPDX-License-Identifier: MIT */
/*
 * The body of a dataset, shared by its formats: a table of columns and
 * one reader per format.
 */
#ifndef SYM_TRAIN_DATASET_PRIVATE_H
#define SYM_TRAIN_DATASET_PRIVATE_H

#include <symshard/dataset.h>

#include "core/ctx_private.h"
#include "core/hash.h"

#define SYM__DATASET_MAX_NDIM 8

/* A column: its name, dtype (what sym_dataset_read writes), the shape of
 * one row and its number of elements; the transforms mapped over it
 * (dataset_map.c), folded into one affine map per channel: element x of
 * channel c reads as x * scale[c] + shift[c] ("n_affine" channels: 0
 * none, 1 every element, else the row's first dimension). */
struct sym__dcolumn {
	char *name;
	sym_dtype dtype;
	size_t ndim;
	int64_t dim[SYM__DATASET_MAX_NDIM];
	int64_t row_numel;
	double *scale, *shift;
	size_t n_affine;
	int64_t pad; /* ragged data: the value of positions past a row */
};

/* What a format provides: read elements [start, start + count) of row
 * "row" of column "c" of "d" into "dst" (converted to the column's
 * dtype; the arguments are checked); free the format's state; for
 * ragged data (sequences, dataset_text.c) the length of a row, NULL for
 * rows of a fixed shape. A ragged row reads as the column's pad past
 * its length, and may be read beyond the column's size (a bucket longer
 * than the longest row). */
struct sym__dataset_ops {
	void (*read)(const sym_dataset *d, size_t c, int64_t row, int64_t start,
	    int64_t count, void *dst);
	void (*destroy)(sym_dataset *d);
	int64_t (*length)(const sym_dataset *d, int64_t row);
};

struct sym_dataset {
	struct sym__obj obj;
	sym_ctx *ctx;
	const struct sym__dataset_ops *ops;
	void *state; /* the format's */
	char *name;  /* "mnist:DIR (train)" */
	int64_t n_rows;
	struct sym__dcolumn *col;
	size_t n_col;
	uint64_t fingerprint;
	char *notice; /* what the format dropped or cut, NULL: nothing */
};

/* Return a new dataset of "ctx" called "name" with "n_col" columns (to
 * be set by the format) read by "ops" from "state"; NULL when out of
 * memory (the format's state is then the caller's). */
sym_dataset *sym__dataset_new(sym_ctx *ctx, const char *name,
    const struct sym__dataset_ops *ops, void *state, size_t n_col);
/* Set column "c" of "d"; 0, or -1 with an error on the context. */
int sym__dataset_set_column(sym_dataset *d, size_t c, const char *name,
    sym_dtype dtype, size_t ndim, const int64_t *dim);
/* Apply the transforms of column "c" of "d" to elements ["start",
 * "start" + "count") of a row, read into "dst" (dataset_map.c). */
void sym__dataset_map_apply(const sym_dataset *d, size_t c, int64_t start,
    int64_t count, void *dst);
/* Write "count" pads of column "c" of "d" to "dst" (a row of a batch
 * that no record fills). */
void sym__dataset_pad(const sym_dataset *d, size_t c, int64_t count, void *dst);
/* Open the sequence corpus "spec" ("text:FILE[,OPTION...]" or
 * "tokens:FILE[,OPTION...]"), its split "split" (dataset_text.c); NULL
 * with an error on "ctx". */
sym_dataset *sym__dataset_seq_open(sym_ctx *ctx, const char *spec,
    sym_dataset_split split);

#endif
