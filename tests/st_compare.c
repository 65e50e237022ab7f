/* SPDX-License-Identifier: MIT */
/*
 * st_compare: compare the tensors of two safetensors files by name, for
 * tests/check-onnx-run.sh. Every tensor of EXPECT must be in GOT with
 * the same dtype and dimensions; floats agree when |got - want| <= ATOL
 * + RTOL*|want| element by element, integers and bools exactly.
 *
 * Usage: st_compare GOT EXPECT RTOL ATOL
 * Exit status: 0 equal, 1 different (the first difference on stderr),
 * 2 usage or unreadable file. Prints "NAME: max abs D" per tensor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshard.h>

/* Return element "i" of "data" (dtype "dt": f32, f64, i32, i64, u8 or
 * bool) as a double; "*ok" cleared for another dtype. */
static double
element(const void *data, sym_dtype dt, size_t i, int *ok)
{
	float f;
	double d;
	int32_t i32;
	int64_t i64;
	const char *p = data;

	switch (dt) {
	case SYM_DT_F32:
		memcpy(&f, p + 4 * i, 4);
		return f;
	case SYM_DT_F64:
		memcpy(&d, p + 8 * i, 8);
		return d;
	case SYM_DT_I32:
		memcpy(&i32, p + 4 * i, 4);
		return i32;
	case SYM_DT_I64:
		memcpy(&i64, p + 8 * i, 8);
		return (double)i64;
	case SYM_DT_U8:
	case SYM_DT_BOOL:
		return (unsigned char)p[i];
	default:
		*ok = 0;
		return 0;
	}
}

/* Compare tensor "j" of "want" with its namesake in "got" within "rtol"
 * and "atol" (floats); return 0 when equal, else 1 after a message. */
static int
compare(const sym_checkpoint *got, const sym_checkpoint *want, size_t j,
    double rtol, double atol)
{
	const char *name = sym_checkpoint_tensor_name(want, j);
	size_t i = sym_checkpoint_find(got, name), nd, bytes, n;
	sym_dtype dt = sym_checkpoint_tensor_dtype(want, j);
	int isf = dt == SYM_DT_F32 || dt == SYM_DT_F64, ok = 1;
	double worst = 0;
	const void *a, *b;

	if (i == SIZE_MAX) {
		fprintf(stderr, "st_compare: %s: missing\n", name);
		return 1;
	}
	nd = sym_checkpoint_tensor_ndim(want, j);
	if (sym_checkpoint_tensor_dtype(got, i) != dt ||
	    sym_checkpoint_tensor_ndim(got, i) != nd) {
		fprintf(stderr, "st_compare: %s: dtype or rank differs\n",
		    name);
		return 1;
	}
	for (size_t d = 0; d < nd; d++)
		if (sym_checkpoint_tensor_dim(got, i, d) !=
		    sym_checkpoint_tensor_dim(want, j, d)) {
			fprintf(stderr,
			    "st_compare: %s: dimension %zu is %lld, "
			    "expected %lld\n",
			    name, d,
			    (long long)sym_checkpoint_tensor_dim(got, i, d),
			    (long long)sym_checkpoint_tensor_dim(want, j, d));
			return 1;
		}
	b = sym_checkpoint_tensor_data(want, j, &bytes);
	a = sym_checkpoint_tensor_data(got, i, NULL);
	n = bytes / (sym_dtype_size(dt) ? sym_dtype_size(dt) : 1);
	for (size_t k = 0; k < n; k++) {
		double x = element(a, dt, k, &ok), y = element(b, dt, k, &ok);
		double diff = fabs(x - y);

		if (!ok) {
			fprintf(stderr, "st_compare: %s: unsupported dtype\n",
			    name);
			return 1;
		}
		if (!(diff <= (isf ? atol + rtol * fabs(y) : 0))) {
			fprintf(stderr,
			    "st_compare: %s[%zu] is %.9g, expected "
			    "%.9g\n",
			    name, k, x, y);
			return 1;
		}
		worst = diff > worst ? diff : worst;
	}
	printf("%s: %zu elements, max abs %.3g\n", name, n, worst);
	return 0;
}

/* Compare the files of "argv"; return the exit status. */
int
main(int argc, char **argv)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_checkpoint *got = NULL, *want = NULL;
	int status = 2;

	if (argc != 5 || !ctx) {
		fprintf(stderr, "usage: st_compare GOT EXPECT RTOL ATOL\n");
		sym_ctx_free(ctx);
		return 2;
	}
	got = sym_checkpoint_read(ctx, argv[1]);
	want = got ? sym_checkpoint_read(ctx, argv[2]) : NULL;
	if (!want) {
		fprintf(stderr, "st_compare: %s\n", sym_ctx_last_message(ctx));
	} else {
		status = sym_checkpoint_n_tensors(want) == 0;
		for (size_t j = 0; j < sym_checkpoint_n_tensors(want); j++)
			status |=
			    compare(got, want, j, atof(argv[3]), atof(argv[4]));
	}
	sym_checkpoint_free(got);
	sym_checkpoint_free(want);
	sym_ctx_free(ctx);
	return status;
}
