/* SPDX-License-Identifier: MIT */
/*
 * Datasets: a table of named columns, each row of a column a small
 * tensor of a fixed shape, read row by row (a rank reads only the rows
 * and the elements of each row that its block of an input holds), or
 * a ragged sequence padded past its length. The formats: MNIST/IDX
 * files (dataset_mnist.c), text and token corpora (dataset_text.c) and
 * tensors in memory (here).
 */
#include <stdlib.h>
#include <string.h>

#include <symshard/dataset.h>

#include "train/dataset_private.h"

/* Free the dataset whose link is "link" (at sym_ctx_free too). */
static void
dataset_destroy(struct sym__obj *obj)
{
	sym_dataset *d = SYM__OBJ_OF(obj, sym_dataset, obj);

	if (d->ops && d->ops->destroy)
		d->ops->destroy(d);
	for (size_t c = 0; d->col && c < d->n_col; c++) {
		free(d->col[c].name);
		free(d->col[c].scale);
		free(d->col[c].shift);
	}
	free(d->col);
	free(d->name);
	free(d->notice);
	free(d);
}

/* Return a new dataset of "ctx" called "name" with "n_col" columns read
 * by "ops" from "state"; NULL when out of memory. */
sym_dataset *
sym__dataset_new(sym_ctx *ctx, const char *name,
    const struct sym__dataset_ops *ops, void *state, size_t n_col)
{
	sym_dataset *d = sym__alloc(ctx, sizeof(*d));

	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	d->name = sym__strdup(ctx, name);
	d->col =
	    sym__realloc_array(ctx, NULL, n_col ? n_col : 1, sizeof(*d->col));
	if (!d->name || !d->col) {
		free(d->name);
		free(d->col);
		free(d);
		return NULL;
	}
	memset(d->col, 0, (n_col ? n_col : 1) * sizeof(*d->col));
	d->n_col = n_col;
	d->ops = ops;
	d->state = state;
	d->fingerprint = sym__fnv1a(SYM__FNV_BASIS, name, strlen(name));
	sym__obj_init(&d->obj, SYM__OBJ_DATASET, dataset_destroy);
	sym__obj_give(ctx, &d->obj);
	return d;
}

/* Set column "c" of "d" to "name", "dtype" and the row shape "dim"
 * ("ndim" sizes); 0, or -1 with an error on the context of "d". */
int
sym__dataset_set_column(sym_dataset *d, size_t c, const char *name,
    sym_dtype dtype, size_t ndim, const int64_t *dim)
{
	struct sym__dcolumn *col = &d->col[c];
	int64_t n = 1;

	if (ndim > SYM__DATASET_MAX_NDIM) {
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "%s: column '%s' has %zu dimensions per row, more than %d",
		    d->name, name, ndim, SYM__DATASET_MAX_NDIM);
		return -1;
	}
	for (size_t i = 0; i < ndim; i++) {
		if (dim[i] < 0 || (dim[i] > 0 && n > INT64_MAX / dim[i])) {
			sym__error(d->ctx, SYM_EINVAL, NULL,
			    "%s: column '%s': size %lld of dimension %zu "
			    "is negative or too large",
			    d->name, name, (long long)dim[i], i);
			return -1;
		}
		n *= dim[i];
		col->dim[i] = dim[i];
	}
	col->name = sym__strdup(d->ctx, name);
	if (!col->name)
		return -1;
	col->dtype = dtype;
	col->ndim = ndim;
	col->row_numel = n;
	d->fingerprint = sym__fnv1a(d->fingerprint, name, strlen(name) + 1);
	d->fingerprint = sym__fnv1a(d->fingerprint, &dtype, sizeof(dtype));
	d->fingerprint = sym__fnv1a(d->fingerprint, dim, ndim * sizeof(*dim));
	return 0;
}

/* Free "d" (NULL: nothing). */
void
sym_dataset_free(sym_dataset *d)
{
	if (!d)
		return;
	sym__obj_drop(d->ctx, &d->obj);
}

/* Open the dataset "spec" ("mnist:DIR") of "ctx", its split "split";
 * NULL with an error on "ctx". */
sym_dataset *
sym_dataset_open(sym_ctx *ctx, const char *spec, sym_dataset_split split)
{
	if (!ctx)
		return NULL;
	if (!spec) {
		sym__error(ctx, SYM_EINVAL, NULL, "dataset: no specification");
		return NULL;
	}
	if (!strncmp(spec, "mnist:", 6))
		return sym_dataset_mnist_open(ctx, spec + 6, split);
	if (!strncmp(spec, "text:", 5) || !strncmp(spec, "tokens:", 7))
		return sym__dataset_seq_open(ctx, spec, split);
	sym__error(ctx, SYM_EINVAL, NULL,
	    "dataset '%s': unknown format (expected mnist:DIR, text:FILE or "
	    "tokens:FILE.safetensors)",
	    spec);
	return NULL;
}

/* Return the name of "d", NULL for NULL. */
const char *
sym_dataset_name(const sym_dataset *d)
{
	return d ? d->name : NULL;
}

/* Return the number of rows of "d", -1 for NULL. */
int64_t
sym_dataset_n_rows(const sym_dataset *d)
{
	return d ? d->n_rows : -1;
}

/* Return the number of columns of "d", 0 for NULL. */
size_t
sym_dataset_n_columns(const sym_dataset *d)
{
	return d ? d->n_col : 0;
}

/* Return the column of "d" called "name", SIZE_MAX when none. */
size_t
sym_dataset_find_column(const sym_dataset *d, const char *name)
{
	for (size_t c = 0; d && name && c < d->n_col; c++)
		if (!strcmp(d->col[c].name, name))
			return c;
	return SIZE_MAX;
}

/* Return column "c" of "d", NULL when out of range. */
static const struct sym__dcolumn *
column(const sym_dataset *d, size_t c)
{
	return d && c < d->n_col ? &d->col[c] : NULL;
}

/* Return the name of column "c" of "d", NULL when out of range. */
const char *
sym_dataset_column_name(const sym_dataset *d, size_t c)
{
	return column(d, c) ? column(d, c)->name : NULL;
}

/* Return the dtype of column "c" of "d", SYM_DT_INVALID when out of
 * range. */
sym_dtype
sym_dataset_column_dtype(const sym_dataset *d, size_t c)
{
	return column(d, c) ? column(d, c)->dtype : SYM_DT_INVALID;
}

/* Return the number of dimensions of one row of column "c" of "d". */
size_t
sym_dataset_column_ndim(const sym_dataset *d, size_t c)
{
	return column(d, c) ? column(d, c)->ndim : 0;
}

/* Return size "i" of one row of column "c" of "d", -1 out of range. */
int64_t
sym_dataset_column_dim(const sym_dataset *d, size_t c, size_t i)
{
	const struct sym__dcolumn *col = column(d, c);

	return col && i < col->ndim ? col->dim[i] : -1;
}

/* Record on the context of "d" why elements ["start", "start" +
 * "count") of row "row" of column "c" of "d" cannot be read into "dst";
 * return 0 when they can. */
static int
read_args(const sym_dataset *d, size_t c, int64_t row, int64_t start,
    int64_t count, const void *dst)
{
	const struct sym__dcolumn *col = column(d, c);

	if (!col)
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "%s: no column %zu (%zu columns)", d->name, c, d->n_col);
	else if (row < 0 || row >= d->n_rows)
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "%s: no row %lld in column '%s' (rows 0 to %lld)", d->name,
		    (long long)row, col->name, (long long)d->n_rows - 1);
	else if (start < 0 || count < 0 ||
	    (!d->ops->length &&
	        (start > col->row_numel || count > col->row_numel - start)) ||
	    (d->ops->length && count > INT64_MAX - start))
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "%s: %lld element%s from element %lld of a row of "
		    "column '%s', which has %lld",
		    d->name, (long long)count, count == 1 ? "" : "s",
		    (long long)start, col->name, (long long)col->row_numel);
	else if (count && !dst)
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "%s: no destination to read column '%s' into", d->name,
		    col->name);
	else
		return 0;
	return -1;
}

/* Read elements ["start", "start" + "count") of row "row" of column "c"
 * of "d" (row-major within the row) into "dst", in the column's dtype;
 * 0, or -1 with an error on the context of "d". */
int
sym_dataset_read(const sym_dataset *d, size_t c, int64_t row, int64_t start,
    int64_t count, void *dst)
{
	if (!d)
		return -1;
	if (read_args(d, c, row, start, count, dst) < 0)
		return -1;
	if (count)
		d->ops->read(d, c, row, start, count, dst);
	if (count && d->col[c].n_affine)
		sym__dataset_map_apply(d, c, start, count, dst);
	return 0;
}

/* Write "count" pads of column "c" of "d" to "dst". */
void
sym__dataset_pad(const sym_dataset *d, size_t c, int64_t count, void *dst)
{
	const struct sym__dcolumn *col = &d->col[c];

	for (int64_t i = 0; i < count; i++)
		if (col->dtype == SYM_DT_I64)
			((int64_t *)dst)[i] = col->pad;
		else if (col->dtype == SYM_DT_I32)
			((int32_t *)dst)[i] = (int32_t)col->pad;
		else if (col->dtype == SYM_DT_F32)
			((float *)dst)[i] = (float)col->pad;
		else
			memset((char *)dst +
			        (size_t)i * sym_dtype_size(col->dtype),
			    0, sym_dtype_size(col->dtype));
}

/* Return the length of row "row" of "d" when its rows are sequences of
 * different lengths (text and token corpora), -1 when its rows have a
 * fixed shape or "row" is out of range. */
int64_t
sym_dataset_row_length(const sym_dataset *d, int64_t row)
{
	if (!d || !d->ops->length || row < 0 || row >= d->n_rows)
		return -1;
	return d->ops->length(d, row);
}

/* Return what the format of "d" dropped or cut when it was opened
 * (records counted), NULL when nothing. */
const char *
sym_dataset_notice(const sym_dataset *d)
{
	return d ? d->notice : NULL;
}

/* Return a hash of the name, columns and contents of "d" (equal on two
 * processes that read the same files), 0 for NULL. */
uint64_t
sym_dataset_fingerprint(const sym_dataset *d)
{
	return d ? d->fingerprint : 0;
}

/* --- In memory ------------------------------------------------------- */

/* The state of a dataset in memory: a copy of every column's data. */
struct memory {
	char **data;
	size_t n;
};

/* Read from a dataset in memory (see struct sym__dataset_ops). */
static void
memory_read(const sym_dataset *d, size_t c, int64_t row, int64_t start,
    int64_t count, void *dst)
{
	const struct memory *m = d->state;
	const struct sym__dcolumn *col = &d->col[c];
	size_t es = sym_dtype_size(col->dtype);

	memcpy(dst,
	    m->data[c] +
	        ((size_t)row * (size_t)col->row_numel + (size_t)start) * es,
	    (size_t)count * es);
}

/* Free the state of a dataset in memory. */
static void
memory_destroy(sym_dataset *d)
{
	struct memory *m = d->state;

	for (size_t c = 0; m && c < m->n; c++)
		free(m->data[c]);
	if (m)
		free(m->data);
	free(m);
}

static const struct sym__dataset_ops memory_ops = { memory_read, memory_destroy,
	NULL };

/* Store in "*bytes" the byte count of "n_rows" rows of "col" (set as
 * "set"); 0, or -1 with an error on "ctx" when it does not fit. */
static int
column_bytes(sym_ctx *ctx, int64_t n_rows, const sym_dataset_column *col,
    const struct sym__dcolumn *set, size_t *bytes)
{
	size_t es = sym_dtype_size(col->dtype);
	int64_t n = set->row_numel;

	if (es == 0 || (n && n_rows > INT64_MAX / n) ||
	    (size_t)(n * n_rows) > SIZE_MAX / es) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "dataset in memory: column '%s': %s",
		    col->name ? col->name : "?",
		    es == 0 ? "no dtype" : "too many bytes");
		return -1;
	}
	*bytes = (size_t)(n * n_rows) * es;
	return 0;
}

/* Check column "c" of "col" as given to sym_dataset_from_memory; 0, or
 * -1 with an error on "ctx". */
static int
memory_column_check(sym_ctx *ctx, const sym_dataset_column *col, size_t c)
{
	if (!col[c].name) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "dataset in memory: column %zu has no name", c);
		return -1;
	}
	if (col[c].ndim && !col[c].dim) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "dataset in memory: column '%s' has %zu dimension%s but "
		    "no sizes",
		    col[c].name, col[c].ndim, col[c].ndim > 1 ? "s" : "");
		return -1;
	}
	for (size_t i = 0; i < c; i++)
		if (!strcmp(col[i].name, col[c].name)) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "dataset in memory: columns %zu and %zu are both "
			    "called '%s'",
			    i, c, col[c].name);
			return -1;
		}
	return 0;
}

/* Set column "c" of the dataset in memory "d" from "col" ("n_rows"
 * rows), copying its data; 0, or -1 with an error on "ctx". */
static int
memory_column(sym_ctx *ctx, sym_dataset *d, int64_t n_rows,
    const sym_dataset_column *col, size_t c)
{
	struct memory *m = d->state;
	size_t bytes = 0;

	if (memory_column_check(ctx, col, c) < 0 ||
	    sym__dataset_set_column(d, c, col[c].name, col[c].dtype,
	        col[c].ndim, col[c].dim) < 0 ||
	    column_bytes(ctx, n_rows, &col[c], &d->col[c], &bytes) < 0 ||
	    !(m->data[c] = sym__alloc(ctx, bytes ? bytes : 1)))
		return -1;
	m->n = c + 1;
	if (col[c].data)
		memcpy(m->data[c], col[c].data, bytes);
	d->fingerprint = sym__fnv1a(d->fingerprint, m->data[c], bytes);
	return 0;
}

/* Return a new dataset of "ctx" of "n_rows" rows and the "n_col" columns
 * "col", whose data it copies; NULL with an error on "ctx". */
sym_dataset *
sym_dataset_from_memory(sym_ctx *ctx, int64_t n_rows,
    const sym_dataset_column *col, size_t n_col)
{
	struct memory *m;
	sym_dataset *d;

	if (!ctx)
		return NULL;
	if (n_rows < 0 || !col || n_col == 0) {
		sym__error(ctx, SYM_EINVAL, NULL, "dataset in memory: %s",
		    n_rows < 0 ? "a negative number of rows" : "no columns");
		return NULL;
	}
	m = sym__alloc(ctx, sizeof(*m));
	if (m) {
		m->n = 0;
		m->data = sym__realloc_array(ctx, NULL, n_col, sizeof(char *));
	}
	if (!m || !m->data) {
		free(m);
		return NULL;
	}
	d = sym__dataset_new(ctx, "memory", &memory_ops, m, n_col);
	if (!d) {
		memory_destroy(&(sym_dataset){ .state = m });
		return NULL;
	}
	d->n_rows = n_rows;
	for (size_t c = 0; c < n_col; c++)
		if (memory_column(ctx, d, n_rows, col, c) < 0) {
			sym_dataset_free(d);
			return NULL;
		}
	return d;
}
