/* SPDX-License-Identifier: MIT */
/*
 * The helpers of the kernel tests (kerntest.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#include "kern/kernel.h"
#include "shape/shape_private.h"

#include "kerntest.h"
#include "testlib.h"

/* Return the next value of the xorshift generator "s". */
uint64_t
kt_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Return a uniform double in ["lo", "hi") from "s". */
double
kt_urand(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * (double)(kt_rnd(s) >> 11) / 9007199254740992.0;
}

/* Return a uniform integer in ["lo", "hi"] from "s". */
int64_t
kt_irand(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(kt_rnd(s) % (uint64_t)(hi - lo + 1));
}

/* Return a tensor of dtype "dt" with the "rank" dims "dim", allocated
 * (zeroed). */
struct sym__tensor
kt_tensor(sym_dtype dt, int rank, const int64_t *dim)
{
	struct sym__tensor t;

	memset(&t, 0, sizeof(t));
	t.dtype = dt;
	t.rank = rank;
	for (int d = 0; d < rank; d++)
		t.dim[d] = dim[d];
	assert_int_equal(sym__tensor_alloc(&t), 0);
	assert_non_null(t.data);
	return t;
}

/* Return the number of elements of "t". */
int64_t
kt_numel(const struct sym__tensor *t)
{
	int64_t n = sym__tensor_numel(t);

	assert_true(n >= 0);
	return n;
}

/* Return element "i" of "t" as a double. */
double
kt_get(const struct sym__tensor *t, int64_t i)
{
	switch (t->dtype) {
	case SYM_DT_F64:
		return ((const double *)t->data)[i];
	case SYM_DT_BOOL:
		return ((const uint8_t *)t->data)[i];
	case SYM_DT_F16:
	case SYM_DT_BF16:
	case SYM_DT_F32:
		return ((const float *)t->data)[i];
	default:
		return ((const int32_t *)t->data)[i];
	}
}

/* Set element "i" of "t" to "v" (converted to its storage). */
void
kt_set(struct sym__tensor *t, int64_t i, double v)
{
	switch (t->dtype) {
	case SYM_DT_F64:
		((double *)t->data)[i] = v;
		break;
	case SYM_DT_BOOL:
		((uint8_t *)t->data)[i] = (uint8_t)v;
		break;
	case SYM_DT_F16:
	case SYM_DT_BF16:
	case SYM_DT_F32:
		((float *)t->data)[i] = (float)v;
		break;
	default:
		((int32_t *)t->data)[i] = (int32_t)v;
		break;
	}
}

/* Fill "t" from "s": floats uniform in ["lo", "hi"), integers in
 * [lo, hi], bools 0 or 1. */
void
kt_fill(struct sym__tensor *t, uint64_t *s, double lo, double hi)
{
	for (int64_t i = 0; i < kt_numel(t); i++)
		if (t->dtype == SYM_DT_BOOL)
			kt_set(t, i, (double)kt_irand(s, 0, 1));
		else if (sym_dtype_is_float(t->dtype))
			kt_set(t, i, kt_urand(s, lo, hi));
		else
			kt_set(t, i,
			    (double)kt_irand(s, (int64_t)lo, (int64_t)hi));
}

/* Return a tensor of dtype "dt" and dims "dim" filled from "s" in ["lo",
 * "hi"). */
struct sym__tensor
kt_random_tensor(uint64_t *s, sym_dtype dt, int rank, const int64_t *dim,
    double lo, double hi)
{
	struct sym__tensor t = kt_tensor(dt, rank, dim);

	kt_fill(&t, s, lo, hi);
	return t;
}

/* Return the tolerance of results of dtype "dt": "f32" for f32, the f64
 * bound for f64, 0 (exact) for integers. */
double
kt_tol(sym_dtype dt, double f32)
{
	if (dt == SYM_DT_F64)
		return TOL_F64;
	return sym_dtype_is_float(dt) ? f32 : 0.0;
}

/* Check that "got" is "want" within "eps" relative to max(1, |want|)
 * (NaN equals NaN, infinities equal themselves); "what" and "i" name
 * the element in a failure. */
void
kt_check_close(double got, double want, double eps, const char *what, int64_t i)
{
	if (isnan(want) && isnan(got))
		return;
	if (isinf(want) && got == want)
		return;
	if (fabs(got - want) <= eps * fmax(1.0, fabs(want)))
		return;
	fail_msg("%s: element %lld is %.9g, expected %.9g (tolerance %g)", what,
	    (long long)i, got, want, eps);
}

/* Check that every element of "t" is the double "want[i]" within "eps". */
void
kt_check_tensor(const struct sym__tensor *t, const double *want, double eps,
    const char *what)
{
	for (int64_t i = 0; i < kt_numel(t); i++)
		kt_check_close(kt_get(t, i), want[i], eps, what, i);
}

/* Free the data of the "n" tensors "t". */
void
kt_free_all(struct sym__tensor *t, int n)
{
	for (int i = 0; i < n; i++)
		sym__tensor_free(&t[i]);
}

/* Return the kernel of the operator called "name" (which must exist). */
sym__kernel_fn
kt_kernel(const char *name)
{
	sym__kernel_fn f = sym__kernel(sym_op_find(name));

	assert_non_null(f);
	return f;
}

/* Return the global dims of input "i" of "a" as a new shape of "ctx"
 * (internal reference), or NULL. */
sym_shape *
kt_input_shape(sym_ctx *ctx, const struct sym__kernel_args *a, int i)
{
	const struct sym__tensor *t = &a->in[i];
	sym_expr *e[SYM__MAX_RANK] = { NULL };
	sym_shape *sh;
	int r = t->rank < 0 || t->rank > SYM__MAX_RANK ? 0 : t->rank;

	for (int d = 0; d < r; d++)
		e[d] = sym__const(ctx,
		    a->global_dim ? a->global_dim[i][d] : t->dim[d]);
	sh =
	    sym__shape_new(ctx, t->dtype ? t->dtype : SYM_DT_F32, (size_t)r, e);
	for (int d = 0; d < r; d++)
		sym__expr_unref(e[d]);
	return sh;
}

/*
 * Decode the attributes "at" of operator "name" for the call "a", as the
 * shape rule does for a graph node, into a new structure that "a" points
 * to (released by kt_release()). When decoding fails (a call with the wrong
 * number of tensors, made to test the kernel's own checks), "a" gets
 * none. The shapes are made in the context of "at", or in a temporary
 * one.
 */
void
kt_decode(const char *name, const sym_attrs *at, struct sym__kernel_args *a)
{
	sym_ctx *own = at ? NULL : sym_ctx_new();
	sym_ctx *ctx = at ? at->ctx : own;
	sym_shape *sh[16] = { NULL };
	struct sym__opattrs *dec = calloc(1, sizeof(*dec));
	int n = a->in && a->n_in > 0 && a->n_in <= 16 ? a->n_in : 0;
	char *error = NULL;

	assert_non_null(ctx);
	assert_non_null(dec);
	for (int i = 0; i < n; i++)
		sh[i] = kt_input_shape(ctx, a, i);
	if (sym__opattrs_decode(ctx, sym_op_find(name), at, (size_t)n, sh,
	        a->n_out > 0 ? (size_t)a->n_out : 0, dec, &error) == 0) {
		a->at = dec;
	} else {
		free(dec);
		free(error);
	}
	for (int i = 0; i < n; i++)
		sym__shape_unref(sh[i]);
	sym_ctx_free(own);
}

/* Release the decoded attributes of "a". */
void
kt_release(struct sym__kernel_args *a)
{
	struct sym__opattrs *dec = (struct sym__opattrs *)a->at;

	if (dec) {
		sym__opattrs_clear(dec);
		free(dec);
	}
	a->at = NULL;
}

/* Return zeroed arguments of a call of operator "name" on "in" ("n_in")
 * to "out" ("n_out") with the attributes "at" decoded (see kt_decode()). */
struct sym__kernel_args
kt_args(const char *name, const sym_attrs *at, const struct sym__tensor *in,
    int n_in, struct sym__tensor *out, int n_out)
{
	struct sym__kernel_args a;

	memset(&a, 0, sizeof(a));
	a.in = in;
	a.n_in = n_in;
	a.out = out;
	a.n_out = n_out;
	kt_decode(name, at, &a);
	return a;
}

/* Check that decoding the attributes "at" of "name" for the inputs "in"
 * ("n_in") and "n_out" outputs fails with a message containing "want":
 * the attribute checks the kernels no longer make. */
void
kt_decode_fails(const char *name, const sym_attrs *at,
    const struct sym__tensor *in, int n_in, int n_out, const char *want)
{
	sym_ctx *own = at ? NULL : sym_ctx_new();
	sym_ctx *ctx = at ? at->ctx : own;
	struct sym__kernel_args a;
	sym_shape *sh[16] = { NULL };
	struct sym__opattrs dec;
	char *error = NULL;

	memset(&a, 0, sizeof(a));
	a.in = in;
	assert_true(n_in <= 16);
	for (int i = 0; i < n_in; i++)
		sh[i] = kt_input_shape(ctx, &a, i);
	assert_int_equal(sym__opattrs_decode(ctx, sym_op_find(name), at,
	                     (size_t)n_in, sh, (size_t)n_out, &dec, &error),
	    -1);
	assert_non_null(error);
	if (!strstr(error, want))
		fail_msg("%s: decoding says \"%s\", not \"%s\"", name, error,
		    want);
	free(error);
	for (int i = 0; i < n_in; i++)
		sym__shape_unref(sh[i]);
	sym_ctx_free(own);
}

/* Run the kernel "name" on "a" and check that it succeeds (0, no
 * message); release the decoded attributes of "a". */
void
kt_run_args(const char *name, struct sym__kernel_args *a)
{
	sym__kernel_fn f = kt_kernel(name);
	int r;

	a->op = sym_op_find(name);
	r = f(a);
	kt_release(a);
	if (r != 0)
		fail_msg("%s failed: %s", name, a->error ? a->error : "?");
	assert_null(a->error);
}

/* Run the kernel "name" with the attributes "at" on "in" ("n_in") into
 * "out" ("n_out"), and check that it succeeds. */
void
kt_run(const char *name, const sym_attrs *at, const struct sym__tensor *in,
    int n_in, struct sym__tensor *out, int n_out)
{
	struct sym__kernel_args a = kt_args(name, at, in, n_in, out, n_out);

	kt_run_args(name, &a);
}

/* Run the kernel "name" on "a" and check that it fails with -1 and a
 * message containing "want" (which names the operator first). */
void
kt_fail_args(const char *name, struct sym__kernel_args *a, const char *want)
{
	sym__kernel_fn f = kt_kernel(name);
	size_t len = strlen(name);
	int r;

	a->op = sym_op_find(name);
	r = f(a);
	kt_release(a);
	assert_int_equal(r, -1);
	assert_non_null(a->error);
	if (strncmp(a->error, name, len) || a->error[len] != ':' ||
	    !strstr(a->error, want))
		fail_msg("%s: message \"%s\" lacks \"%s\"", name, a->error,
		    want);
	free(a->error);
	a->error = NULL;
}

/* Run "name" with "at" on "in" ("n_in") into "out" ("n_out") and check
 * that it fails with a message containing "want". */
void
kt_fails(const char *name, const sym_attrs *at, const struct sym__tensor *in,
    int n_in, struct sym__tensor *out, int n_out, const char *want)
{
	struct sym__kernel_args a = kt_args(name, at, in, n_in, out, n_out);

	kt_fail_args(name, &a, want);
}

/* Run "name" on "in" ("n_in") into "out" ("n_out") with the decoded
 * attributes "dec", which decoding would not give these tensors, and
 * check that it fails with a message containing "want": the checks the
 * kernels make of the tensors against their attributes. */
void
kt_fails_at(const char *name, const struct sym__opattrs *dec,
    const struct sym__tensor *in, int n_in, struct sym__tensor *out, int n_out,
    const char *want)
{
	struct sym__kernel_args a;

	memset(&a, 0, sizeof(a));
	a.in = in;
	a.n_in = n_in;
	a.out = out;
	a.n_out = n_out;
	a.op = sym_op_find(name);
	a.at = dec;
	assert_int_equal(kt_kernel(name)(&a), -1);
	assert_non_null(a.error);
	if (!strstr(a.error, want))
		fail_msg("%s: message \"%s\" lacks \"%s\"", name, a.error,
		    want);
	free(a.error);
}

/* Set the attribute depth of "at" (of "ctx") to a list of one symbolic
 * expression, "d", so that the kernel knows the depth from its output
 * only. */
void
kt_set_depth_symbol(sym_ctx *ctx, sym_attrs *at)
{
	sym_expr *d = sym_expr_parse(ctx, "d", NULL);

	if (!d) {
		sym_symbol_info info = SYM_SYMBOL_INFO_INIT;

		assert_non_null(sym_symbol_new(ctx, "d", &info, NULL));
		d = sym_expr_parse(ctx, "d", NULL);
	}
	assert_non_null(d);
	assert_int_equal(sym_attrs_set_list(at, "depth", 1, &d), 0);
	sym_expr_free(d);
}

/* Return new attributes of "ctx". */
sym_attrs *
kt_attrs(sym_ctx *ctx)
{
	sym_attrs *a = sym_attrs_new(ctx);

	assert_non_null(a);
	return a;
}

/* Set the list attribute "name" of "a" (of "ctx") to the "n" integers
 * "v". */
void
kt_set_ints(sym_ctx *ctx, sym_attrs *a, const char *name, size_t n,
    const int64_t *v)
{
	sym_expr *e[16];

	assert_true(n <= 16);
	for (size_t i = 0; i < n; i++) {
		e[i] = sym_expr_const(ctx, v[i]);
		assert_non_null(e[i]);
	}
	assert_int_equal(sym_attrs_set_list(a, name, n, e), 0);
	for (size_t i = 0; i < n; i++)
		sym_expr_free(e[i]);
}

/* Store in "c" the coordinates of flat index "i" in the row-major "dim"
 * ("rank" of them). */
void
kt_unravel(int64_t i, int rank, const int64_t *dim, int64_t *c)
{
	for (int d = rank - 1; d >= 0; d--) {
		c[d] = i % dim[d];
		i /= dim[d];
	}
}

/* Return the flat index of the coordinates "c" in "dim" ("rank"). */
int64_t
kt_ravel(int rank, const int64_t *dim, const int64_t *c)
{
	int64_t i = 0;

	for (int d = 0; d < rank; d++)
		i = i * dim[d] + c[d];
	return i;
}

/* Return a new array of "n" doubles. */
double *
kt_doubles(int64_t n)
{
	double *p = calloc(n > 0 ? (size_t)n : 1, sizeof(*p));

	assert_non_null(p);
	return p;
}
