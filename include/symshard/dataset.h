/* SPDX-License-Identifier: MIT */
/*
 * symshard: datasets, the rows a training loop reads (sym_dataset(3)).
 */
#ifndef SYMSHARD_DATASET_H
#define SYMSHARD_DATASET_H

#include <symshard/common.h>
#include <symshard/shape.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_dataset sym_dataset;

typedef enum sym_dataset_split {
	SYM_SPLIT_TRAIN,
	SYM_SPLIT_TEST
} sym_dataset_split;

/* A column given to sym_dataset_from_memory: "n_rows" rows of "dim"
 * ("ndim" sizes: one row's shape), row-major, dtype "dtype". */
typedef struct sym_dataset_column {
	const char *name;
	sym_dtype dtype;
	size_t ndim;
	const int64_t *dim;
	const void *data;
} sym_dataset_column;

SYM_EXPORT SYM_GIVE sym_dataset *sym_dataset_open(SYM_KEEP sym_ctx *ctx,
    const char *spec, sym_dataset_split split);
SYM_EXPORT SYM_GIVE sym_dataset *sym_dataset_mnist_open(SYM_KEEP sym_ctx *ctx,
    const char *dir, sym_dataset_split split);
SYM_EXPORT SYM_GIVE sym_dataset *sym_dataset_from_memory(SYM_KEEP sym_ctx *ctx,
    int64_t n_rows, SYM_KEEP const sym_dataset_column *col, size_t n_col);
SYM_EXPORT void sym_dataset_free(SYM_TAKE sym_dataset *d);

SYM_EXPORT SYM_KEEP const char *sym_dataset_name(SYM_KEEP const sym_dataset *d);
SYM_EXPORT int64_t sym_dataset_n_rows(SYM_KEEP const sym_dataset *d);
SYM_EXPORT size_t sym_dataset_n_columns(SYM_KEEP const sym_dataset *d);
SYM_EXPORT size_t sym_dataset_find_column(SYM_KEEP const sym_dataset *d,
    const char *name);
SYM_EXPORT SYM_KEEP const char *
sym_dataset_column_name(SYM_KEEP const sym_dataset *d, size_t c);
SYM_EXPORT sym_dtype sym_dataset_column_dtype(SYM_KEEP const sym_dataset *d,
    size_t c);
SYM_EXPORT size_t sym_dataset_column_ndim(SYM_KEEP const sym_dataset *d,
    size_t c);
SYM_EXPORT int64_t sym_dataset_column_dim(SYM_KEEP const sym_dataset *d,
    size_t c, size_t i);
SYM_EXPORT int sym_dataset_read(SYM_KEEP const sym_dataset *d, size_t c,
    int64_t row, int64_t start, int64_t count, void *dst);
SYM_EXPORT uint64_t sym_dataset_fingerprint(SYM_KEEP const sym_dataset *d);
SYM_EXPORT int64_t sym_dataset_row_length(SYM_KEEP const sym_dataset *d,
    int64_t row);
SYM_EXPORT SYM_KEEP const char *
sym_dataset_notice(SYM_KEEP const sym_dataset *d);
SYM_EXPORT int sym_dataset_rescale(SYM_KEEP sym_dataset *d, const char *column,
    double scale, double shift);
SYM_EXPORT int sym_dataset_normalize(SYM_KEEP sym_dataset *d,
    const char *column, const double *mean, const double *std, size_t n);

#ifdef __cplusplus
}
#endif

#endif
