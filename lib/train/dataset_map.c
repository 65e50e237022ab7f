/* SPDX-License-Identifier: MIT */
/*
 * Transforms mapped over a column of a dataset, as MindSpore's
 * dataset.map of vision.Rescale and vision.Normalize: the elements of a
 * floating column read as x * scale + shift, or (x - mean) / std per
 * channel (the first dimension of a row: CHW). Transforms compose in
 * the order they are added, folded into one affine map per channel that
 * sym_dataset_read applies to what the format reads; the fingerprint
 * of the dataset takes them in, so that processes with other transforms
 * disagree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <symshard/dataset.h>

#include "train/dataset_private.h"

/* Return column "column" of "d" if transforms may be mapped over it
 * ("what" names the transform in the error); NULL with an error on the
 * context of "d". */
static struct sym__dcolumn *
map_column(sym_dataset *d, const char *column, const char *what)
{
	size_t c = sym_dataset_find_column(d, column);
	struct sym__dcolumn *col;

	if (c == SIZE_MAX) {
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "%s: %s has no column '%s'", what, d->name,
		    column ? column : "(null)");
		return NULL;
	}
	col = &d->col[c];
	if (col->dtype != SYM_DT_F32 && col->dtype != SYM_DT_F64) {
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "%s: column '%s' of %s is %s: only f32 and f64 columns "
		    "are transformed",
		    what, column, d->name, sym_dtype_name(col->dtype));
		return NULL;
	}
	return col;
}

/* Make column "col" of "d" hold "n" affine channels (1, or the row's
 * first dimension), spreading a single one over them; 0 or -1. */
static int
widen(sym_dataset *d, struct sym__dcolumn *col, size_t n)
{
	double *sc, *sh;

	if (col->n_affine == n && n)
		return 0;
	sc = sym__realloc_array(d->ctx, NULL, n, sizeof(*sc));
	sh = sym__realloc_array(d->ctx, NULL, n, sizeof(*sh));
	if (!sc || !sh) {
		free(sc);
		free(sh);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		sc[i] = col->n_affine ? col->scale[0] : 1.0;
		sh[i] = col->n_affine ? col->shift[0] : 0.0;
	}
	free(col->scale);
	free(col->shift);
	col->scale = sc;
	col->shift = sh;
	col->n_affine = n;
	return 0;
}

/* Compose the affine map x * "mul"[i] + "add"[i] (channel i of "n"; one
 * pair for all when "n" is 1) after the transforms of column "col" of
 * "d"; 0 or -1. */
static int
compose(sym_dataset *d, struct sym__dcolumn *col, const double *mul,
    const double *add, size_t n)
{
	size_t want = n > col->n_affine ? n : col->n_affine;

	if (widen(d, col, want ? want : 1) < 0)
		return -1;
	for (size_t i = 0; i < col->n_affine; i++) {
		size_t k = n == 1 ? 0 : i;

		col->scale[i] *= mul[k];
		col->shift[i] = col->shift[i] * mul[k] + add[k];
	}
	d->fingerprint =
	    sym__fnv1a(d->fingerprint, col->name, strlen(col->name) + 1);
	d->fingerprint = sym__fnv1a(d->fingerprint, col->scale,
	    col->n_affine * sizeof(double));
	d->fingerprint = sym__fnv1a(d->fingerprint, col->shift,
	    col->n_affine * sizeof(double));
	return 0;
}

/* Map over column "column" of "d" the rescaling x * "scale" + "shift"
 * (MindSpore's vision.Rescale), after the transforms already mapped; 0,
 * or -1 with an error on the context of "d" (the column missing or not
 * floating, a number not finite). */
int
sym_dataset_rescale(sym_dataset *d, const char *column, double scale,
    double shift)
{
	struct sym__dcolumn *col;

	if (!d)
		return -1;
	col = map_column(d, column, "rescale");
	if (!col)
		return -1;
	if (!isfinite(scale) || !isfinite(shift)) {
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "rescale: the scale %g and the shift %g must be finite",
		    scale, shift);
		return -1;
	}
	return compose(d, col, &scale, &shift, 1);
}

/* Check "n" means "mean" and standard deviations "std" for column "col"
 * of "d" (one, or one per channel); 0 or -1 with an error. */
static int
check_normalize(sym_dataset *d, const struct sym__dcolumn *col,
    const double *mean, const double *std, size_t n)
{
	int64_t channels = col->ndim ? col->dim[0] : 1;

	if (!mean || !std || n == 0 || (n != 1 && (int64_t)n != channels)) {
		sym__error(d->ctx, SYM_EINVAL, NULL,
		    "normalize: column '%s' of %s has %lld channel%s (the "
		    "first dimension of a row): give 1 or %lld means and "
		    "standard deviations, not %zu",
		    col->name, d->name, (long long)channels,
		    channels == 1 ? "" : "s", (long long)channels, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(mean[i]) || !isfinite(std[i]) || !(std[i] > 0)) {
			sym__error(d->ctx, SYM_EINVAL, NULL,
			    "normalize: channel %zu: the mean %g must be "
			    "finite and the standard deviation %g positive",
			    i, mean[i], std[i]);
			return -1;
		}
	return 0;
}

/* Map over column "column" of "d" the normalisation (x - "mean"[c]) /
 * "std"[c] of every channel c ("n" of each: 1 for all channels, or one
 * per channel, the first dimension of a row), MindSpore's
 * vision.Normalize on CHW rows, after the transforms already mapped; 0,
 * or -1 with an error on the context of "d". */
int
sym_dataset_normalize(sym_dataset *d, const char *column, const double *mean,
    const double *std, size_t n)
{
	struct sym__dcolumn *col;
	double *mul, *add;
	int rc;

	if (!d)
		return -1;
	col = map_column(d, column, "normalize");
	if (!col || check_normalize(d, col, mean, std, n) < 0)
		return -1;
	mul = sym__realloc_array(d->ctx, NULL, n, sizeof(*mul));
	add = sym__realloc_array(d->ctx, NULL, n, sizeof(*add));
	rc = mul && add ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		mul[i] = 1.0 / std[i];
		add[i] = -mean[i] / std[i];
	}
	if (rc == 0)
		rc = compose(d, col, mul, add, n);
	free(mul);
	free(add);
	return rc;
}

/* Apply the transforms of column "c" of "d" to elements ["start",
 * "start" + "count") of a row, as read into "dst". */
void
sym__dataset_map_apply(const sym_dataset *d, size_t c, int64_t start,
    int64_t count, void *dst)
{
	const struct sym__dcolumn *col = &d->col[c];
	int64_t per = col->n_affine > 1
	    ? col->row_numel / (int64_t)col->n_affine
	    : col->row_numel + 1;

	for (int64_t i = 0; i < count; i++) {
		size_t k = (size_t)((start + i) / (per ? per : 1));

		if (col->dtype == SYM_DT_F32) {
			float *x = (float *)dst + i;

			*x =
			    (float)((double)*x * col->scale[k] + col->shift[k]);
		} else {
			double *x = (double *)dst + i;

			*x = *x * col->scale[k] + col->shift[k];
		}
	}
}
