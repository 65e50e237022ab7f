/* SPDX-License-Identifier: MIT */
/*
 * The transforms of shape-train's command line, --rescale
 * [COLUMN=]SCALE[,SHIFT] and --normalize [COLUMN=]MEAN[,...]/STD[,...]
 * (MindSpore's vision.Rescale and vision.Normalize mapped over a column,
 * "image" unless named): read, checked, and mapped over the datasets in
 * the order given.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

#include "args.h"

/* Store in "*x" the number written in "s" up to "end" (a decimal, or a
 * fraction N/D when "fraction"); 0, or -1 when it is not one. */
static int
number(const char *s, const char *end, int fraction, double *x)
{
	char buf[64], *stop;
	double v, d = 1;

	if (end - s <= 0 || end - s >= (long)sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	errno = 0;
	v = strtod(buf, &stop);
	if (stop == buf)
		return -1;
	if (fraction && *stop == '/') {
		char *den = stop + 1;

		d = strtod(den, &stop);
		if (stop == den || d == 0)
			return -1;
	}
	if (errno || *stop || !isfinite(v / d))
		return -1;
	*x = v / d;
	return 0;
}

/* Read the numbers "s" .. "end" separated by commas into "x" (at most
 * "cap"); return how many, or 0 when they are not numbers. */
static size_t
numbers(const char *s, const char *end, double *x, size_t cap)
{
	size_t n = 0;

	for (;;) {
		const char *c = memchr(s, ',', (size_t)(end - s));

		if (n == cap || number(s, c ? c : end, 0, &x[n]) < 0)
			return 0;
		n++;
		if (!c)
			return n;
		s = c + 1;
	}
}

/* Read the transform "spec" (a --normalize when "normalize", else a
 * --rescale) into "column" ("cap" bytes; "image" when not named) and
 * its numbers: the scale and shift in "a"[0] and "b"[0], or the "*n"
 * means in "a" and standard deviations in "b" (at most
 * TRAIN_MAX_CHANNELS). Return 0, or -1 when "spec" is not one. */
int
train_transform_parse(const char *spec, int normalize, char *column, size_t cap,
    double *a, double *b, size_t *n)
{
	const char *eq = strchr(spec, '='), *v = eq ? eq + 1 : spec;
	const char *end = v + strlen(v), *mid;

	if (eq && (eq == spec || (size_t)(eq - spec) >= cap))
		return -1;
	snprintf(column, cap, "%.*s", eq ? (int)(eq - spec) : 5,
	    eq ? spec : "image");
	if (!normalize) {
		const char *c = strchr(v, ',');

		*n = 1;
		b[0] = 0;
		return number(v, c ? c : end, 1, &a[0]) < 0 ||
		        (c && number(c + 1, end, 0, &b[0]) < 0)
		    ? -1
		    : 0;
	}
	mid = strchr(v, '/');
	if (!mid)
		return -1;
	*n = numbers(v, mid, a, TRAIN_MAX_CHANNELS);
	if (*n == 0 || numbers(mid + 1, end, b, TRAIN_MAX_CHANNELS) != *n)
		return -1;
	return 0;
}

/* Map the transforms of "o" over the dataset "d", in their order; 0, or
 * -1 with the error on the dataset's context. */
int
train_transforms_apply(const struct train_options *o, sym_dataset *d)
{
	for (size_t i = 0; i < o->n_maps; i++) {
		double a[TRAIN_MAX_CHANNELS], b[TRAIN_MAX_CHANNELS];
		char column[128];
		size_t n = 0;
		int rc;

		if (train_transform_parse(o->maps[i].spec, o->maps[i].normalize,
		        column, sizeof(column), a, b, &n) < 0)
			return -1;
		rc = o->maps[i].normalize
		    ? sym_dataset_normalize(d, column, a, b, n)
		    : sym_dataset_rescale(d, column, a[0], b[0]);
		if (rc < 0)
			return -1;
	}
	return 0;
}
