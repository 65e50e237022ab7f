/*
 * Unit tests of the executor's CPU kernels (lib/exec/kern_*.c, compiled
 * into this program: they are internal to the library). Every kernel is
 * compared with a naive reference written here in double on small random
 * inputs (seeded, so runs repeat), through broadcasting, transpositions,
 * negative axes, keep_dims, several outputs, split blocks (offsets,
 * global sizes, normalizers) and f64; every check of the kernels'
 * tensors is reached by a mismatched call, which must fail with -1 and a
 * message.
 *
 * Error bounds, relative to max(1, |reference|): 1e-6 for f32 results of
 * one rounding (elementwise arithmetic, copies are exact), 2e-6 for f32
 * libm functions, softmax, layer_norm and the loss, 1e-5 for f32 sums of
 * up to ~100 products (matmul, conv2d), 1e-12 for every f64 result.
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

#include "exec/kernel.h"
#include "shape/shape_private.h"

#define TOL_F32 1e-6
#define TOL_F32_FN 2e-6
#define TOL_F32_SUM 1e-5
#define TOL_F64 1e-12

/* Return the next value of the xorshift generator "s". */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Return a uniform double in ["lo", "hi") from "s". */
static double
urand(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * (double)(rnd(s) >> 11) / 9007199254740992.0;
}

/* Return a uniform integer in ["lo", "hi"] from "s". */
static int64_t
irand(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

/* Return a tensor of dtype "dt" with the "rank" dims "dim", allocated
 * (zeroed). */
static struct sym__tensor
tensor(sym_dtype dt, int rank, const int64_t *dim)
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
static int64_t
numel(const struct sym__tensor *t)
{
	int64_t n = sym__tensor_numel(t);

	assert_true(n >= 0);
	return n;
}

/* Return element "i" of "t" as a double. */
static double
get(const struct sym__tensor *t, int64_t i)
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
static void
set(struct sym__tensor *t, int64_t i, double v)
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
static void
fill(struct sym__tensor *t, uint64_t *s, double lo, double hi)
{
	for (int64_t i = 0; i < numel(t); i++)
		if (t->dtype == SYM_DT_BOOL)
			set(t, i, (double)irand(s, 0, 1));
		else if (sym_dtype_is_float(t->dtype))
			set(t, i, urand(s, lo, hi));
		else
			set(t, i, (double)irand(s, (int64_t)lo, (int64_t)hi));
}

/* Return a tensor of dtype "dt" and dims "dim" filled from "s" in ["lo",
 * "hi"). */
static struct sym__tensor
random_tensor(uint64_t *s, sym_dtype dt, int rank, const int64_t *dim,
    double lo, double hi)
{
	struct sym__tensor t = tensor(dt, rank, dim);

	fill(&t, s, lo, hi);
	return t;
}

/* Return the tolerance of results of dtype "dt": "f32" for f32, the f64
 * bound for f64, 0 (exact) for integers. */
static double
tol(sym_dtype dt, double f32)
{
	if (dt == SYM_DT_F64)
		return TOL_F64;
	return sym_dtype_is_float(dt) ? f32 : 0.0;
}

/* Check that "got" is "want" within "eps" relative to max(1, |want|)
 * (NaN equals NaN, infinities equal themselves); "what" and "i" name
 * the element in a failure. */
static void
check_close(double got, double want, double eps, const char *what, int64_t i)
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
static void
check_tensor(const struct sym__tensor *t, const double *want, double eps,
    const char *what)
{
	for (int64_t i = 0; i < numel(t); i++)
		check_close(get(t, i), want[i], eps, what, i);
}

/* Free the data of the "n" tensors "t". */
static void
free_all(struct sym__tensor *t, int n)
{
	for (int i = 0; i < n; i++)
		sym__tensor_free(&t[i]);
}

/* Return the kernel of the operator called "name" (which must exist). */
static sym__kernel_fn
kernel(const char *name)
{
	sym__kernel_fn f = sym__kernel(sym_op_find(name));

	assert_non_null(f);
	return f;
}

/* Return the global dims of input "i" of "a" as a new shape of "ctx"
 * (internal reference), or NULL. */
static sym_shape *
input_shape(sym_ctx *ctx, const struct sym__kernel_args *a, int i)
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
 * to (released by release()). When decoding fails (a call with the wrong
 * number of tensors, made to test the kernel's own checks), "a" gets
 * none. The shapes are made in the context of "at", or in a temporary
 * one.
 */
static void
decode(const char *name, const sym_attrs *at, struct sym__kernel_args *a)
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
		sh[i] = input_shape(ctx, a, i);
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
static void
release(struct sym__kernel_args *a)
{
	struct sym__opattrs *dec = (struct sym__opattrs *)a->at;

	if (dec) {
		sym__opattrs_clear(dec);
		free(dec);
	}
	a->at = NULL;
}

/* Return zeroed arguments of a call of operator "name" on "in" ("n_in")
 * to "out" ("n_out") with the attributes "at" decoded (see decode()). */
static struct sym__kernel_args
args(const char *name, const sym_attrs *at, const struct sym__tensor *in,
    int n_in, struct sym__tensor *out, int n_out)
{
	struct sym__kernel_args a;

	memset(&a, 0, sizeof(a));
	a.in = in;
	a.n_in = n_in;
	a.out = out;
	a.n_out = n_out;
	decode(name, at, &a);
	return a;
}

/* Check that decoding the attributes "at" of "name" for the inputs "in"
 * ("n_in") and "n_out" outputs fails with a message containing "want":
 * the attribute checks the kernels no longer make. */
static void
decode_fails(const char *name, const sym_attrs *at,
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
		sh[i] = input_shape(ctx, &a, i);
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
static void
run_args(const char *name, struct sym__kernel_args *a)
{
	sym__kernel_fn f = kernel(name);
	int r;

	a->op = sym_op_find(name);
	r = f(a);
	release(a);
	if (r != 0)
		fail_msg("%s failed: %s", name, a->error ? a->error : "?");
	assert_null(a->error);
}

/* Run the kernel "name" with the attributes "at" on "in" ("n_in") into
 * "out" ("n_out"), and check that it succeeds. */
static void
run(const char *name, const sym_attrs *at, const struct sym__tensor *in,
    int n_in, struct sym__tensor *out, int n_out)
{
	struct sym__kernel_args a = args(name, at, in, n_in, out, n_out);

	run_args(name, &a);
}

/* Run the kernel "name" on "a" and check that it fails with -1 and a
 * message containing "want" (which names the operator first). */
static void
fail_args(const char *name, struct sym__kernel_args *a, const char *want)
{
	sym__kernel_fn f = kernel(name);
	size_t len = strlen(name);
	int r;

	a->op = sym_op_find(name);
	r = f(a);
	release(a);
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
static void
fails(const char *name, const sym_attrs *at, const struct sym__tensor *in,
    int n_in, struct sym__tensor *out, int n_out, const char *want)
{
	struct sym__kernel_args a = args(name, at, in, n_in, out, n_out);

	fail_args(name, &a, want);
}

/* Run "name" on "in" ("n_in") into "out" ("n_out") with the decoded
 * attributes "dec", which decoding would not give these tensors, and
 * check that it fails with a message containing "want": the checks the
 * kernels make of the tensors against their attributes. */
static void
fails_at(const char *name, const struct sym__opattrs *dec,
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
	assert_int_equal(kernel(name)(&a), -1);
	assert_non_null(a.error);
	if (!strstr(a.error, want))
		fail_msg("%s: message \"%s\" lacks \"%s\"", name, a.error,
		    want);
	free(a.error);
}

/* Set the attribute depth of "at" (of "ctx") to a list of one symbolic
 * expression, "d", so that the kernel knows the depth from its output
 * only. */
static void
set_depth_symbol(sym_ctx *ctx, sym_attrs *at)
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
static sym_attrs *
attrs(sym_ctx *ctx)
{
	sym_attrs *a = sym_attrs_new(ctx);

	assert_non_null(a);
	return a;
}

/* Set the list attribute "name" of "a" (of "ctx") to the "n" integers
 * "v". */
static void
set_ints(sym_ctx *ctx, sym_attrs *a, const char *name, size_t n,
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
static void
unravel(int64_t i, int rank, const int64_t *dim, int64_t *c)
{
	for (int d = rank - 1; d >= 0; d--) {
		c[d] = i % dim[d];
		i /= dim[d];
	}
}

/* Return the flat index of the coordinates "c" in "dim" ("rank"). */
static int64_t
ravel(int rank, const int64_t *dim, const int64_t *c)
{
	int64_t i = 0;

	for (int d = 0; d < rank; d++)
		i = i * dim[d] + c[d];
	return i;
}

/* Return a new array of "n" doubles. */
static double *
doubles(int64_t n)
{
	double *p = calloc(n > 0 ? (size_t)n : 1, sizeof(*p));

	assert_non_null(p);
	return p;
}

/* Return a context for one test. */
static sym_ctx *
new_ctx(void)
{
	sym_ctx *ctx = sym_ctx_new();

	assert_non_null(ctx);
	return ctx;
}

/* Check that every object of "ctx" was released, then free it. */
static void
finish(sym_ctx *ctx)
{
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* --- Tensors and the registry ---------------------------------------- */

/* Allocation: alignment, element sizes, counts, and the rejection of
 * invalid dims and sizes that overflow. */
static void
test_tensor(void **state)
{
	int64_t d3[] = { 2, 3, 5 }, big[] = { INT64_MAX / 2, 4 };
	int64_t neg[] = { 2, -1 }, huge[] = { (int64_t)1 << 62, 2 };
	int64_t zero[] = { 0, (int64_t)1 << 40 };
	struct sym__tensor t = tensor(SYM_DT_F32, 3, d3), u;

	(void)state;
	assert_int_equal((uintptr_t)t.data % 64, 0);
	assert_int_equal(sym__tensor_numel(&t), 30);
	for (int i = 0; i < 30; i++)
		assert_true(((float *)t.data)[i] == 0.0f);
	sym__tensor_free(&t);
	assert_null(t.data);
	sym__tensor_free(&t);
	sym__tensor_free(NULL);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_F32), 4);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_F16), 4);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_BF16), 4);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_F64), 8);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_I8), 4);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_I64), 4);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_U8), 4);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_BOOL), 1);
	assert_int_equal(sym__tensor_elem_size(SYM_DT_INVALID), 0);
	memset(&u, 0, sizeof(u));
	u.dtype = SYM_DT_F64;
	assert_int_equal(sym__tensor_numel(&u), 1);
	assert_int_equal(sym__tensor_alloc(&u), 0);
	assert_int_equal((uintptr_t)u.data % 64, 0);
	sym__tensor_free(&u);
	u.rank = 2;
	memcpy(u.dim, big, sizeof(big));
	assert_int_equal(sym__tensor_numel(&u), -1);
	assert_int_equal(sym__tensor_alloc(&u), -1);
	assert_null(u.data);
	memcpy(u.dim, huge, sizeof(huge));
	assert_int_equal(sym__tensor_numel(&u), -1);
	assert_int_equal(sym__tensor_alloc(&u), -1);
	memcpy(u.dim, neg, sizeof(neg));
	assert_int_equal(sym__tensor_numel(&u), -1);
	assert_int_equal(sym__tensor_alloc(&u), -1);
	memcpy(u.dim, zero, sizeof(zero));
	assert_int_equal(sym__tensor_numel(&u), 0);
	assert_int_equal(sym__tensor_alloc(&u), 0);
	sym__tensor_free(&u);
	u.rank = SYM__MAX_RANK + 1;
	assert_int_equal(sym__tensor_numel(&u), -1);
	u.rank = 1;
	u.dim[0] = 4;
	u.dtype = SYM_DT_INVALID;
	assert_int_equal(sym__tensor_alloc(&u), -1);
	assert_int_equal(sym__tensor_alloc(NULL), -1);
}

/* Every operator of the registry has a kernel, found by its identity;
 * NULL has none. */
static void
test_registry(void **state)
{
	(void)state;
	assert_true(sym_op_n_ops() >= 39);
	for (size_t i = 0; i < sym_op_n_ops(); i++)
		if (!sym__kernel(sym_op_at(i)))
			fail_msg("operator %s has no kernel",
			    sym_op_name(sym_op_at(i)));
	assert_null(sym__kernel(NULL));
	assert_true(kernel("softmax") != kernel("log_softmax"));
}

/* The checks every kernel makes on its call: numbers of tensors, data,
 * dtypes, ranks; a message replaces the previous one. */
static void
test_call_checks(void **state)
{
	int64_t d[] = { 2, 3 };
	struct sym__tensor x = tensor(SYM_DT_F32, 2, d),
	                   y = tensor(SYM_DT_F32, 2, d), bad;
	struct sym__kernel_args a = args("relu", NULL, &x, 1, &y, 1);

	(void)state;
	fails("relu", NULL, &x, 0, &y, 1, "0 inputs given, 1 to 1 expected");
	fails("relu", NULL, &x, 1, &y, 0, "0 outputs given");
	fails("add", NULL, &x, 1, &y, 1, "1 input given");
	a.in = NULL;
	fail_args("relu", &a, "1 input given");
	bad = x;
	bad.data = NULL;
	fails("relu", NULL, &bad, 1, &y, 1, "input 0 has no data");
	bad = x;
	bad.rank = 9;
	fails("relu", NULL, &bad, 1, &y, 1, "input 0 has rank 9");
	bad = x;
	bad.dtype = SYM_DT_INVALID;
	fails("relu", NULL, &bad, 1, &y, 1, "invalid dtype");
	bad = y;
	bad.dim[1] = -3;
	fails("relu", NULL, &x, 1, &bad, 1, "output 0 has a negative");
	bad.dim[0] = INT64_MAX / 2;
	bad.dim[1] = 3;
	fails("relu", NULL, &x, 1, &bad, 1, "too many elements");
	a = args("relu", NULL, &x, 1, &y, 1);
	a.error = strdup("stale");
	a.n_out = 2;
	fail_args("relu", &a, "2 outputs given");
	free_all(&x, 1);
	free_all(&y, 1);
}

/* --- matmul ----------------------------------------------------------- */

/* Store in "c" the product of "x" and "y" (the last two dims of each,
 * transposed when "ta" / "tb"), batch offsets "ax" and "ay" (elements),
 * for [m, n] from a contraction of "k". */
static void
ref_gemm(const struct sym__tensor *x, int64_t ax, const struct sym__tensor *y,
    int64_t ay, int ta, int tb, int64_t m, int64_t n, int64_t k, double *c)
{
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			double s = 0.0;

			for (int64_t p = 0; p < k; p++)
				s += get(x, ax + (ta ? p * m + i : i * k + p)) *
				    get(y, ay + (tb ? j * k + p : p * n + j));
			c[i * n + j] = s;
		}
}

/* matmul in f32, f64 and int32 with every transposition against the
 * reference; empty contractions; mismatches. */
static void
test_matmul(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 0x9e3779b97f4a7c15u;

	(void)state;
	for (int iter = 0; iter < 48; iter++) {
		sym_dtype dt = dts[iter % 3];
		int ta = iter / 3 % 2, tb = iter / 6 % 2;
		int64_t m = irand(&s, 1, 9), n = irand(&s, 1, 9);
		int64_t k = iter % 16 == 15 ? 0 : irand(&s, 1, 40);
		int64_t da[] = { ta ? k : m, ta ? m : k };
		int64_t db[] = { tb ? n : k, tb ? k : n }, dc[] = { m, n };
		sym_attrs *at = attrs(ctx);
		struct sym__tensor in[2], out = tensor(dt, 2, dc);
		double *want = doubles(m * n);

		in[0] = random_tensor(&s, dt, 2, da, -2, 2);
		in[1] = random_tensor(&s, dt, 2, db, -2, 2);
		fill(&out, &s, -9, 9);
		if (ta)
			sym_attrs_set_bool(at, "transpose_a", 1);
		sym_attrs_set_bool(at, "transpose_b", tb);
		run("matmul", at, in, 2, &out, 1);
		ref_gemm(&in[0], 0, &in[1], 0, ta, tb, m, n, k, want);
		check_tensor(&out, want, tol(dt, TOL_F32_SUM), "matmul");
		free(want);
		free_all(in, 2);
		free_all(&out, 1);
		sym_attrs_free(at);
	}
	{
		int64_t da[] = { 3, 4 }, db[] = { 5, 2 }, dc[] = { 3, 2 };
		int64_t dd[] = { 3, 3 }, d1[] = { 3 };
		struct sym__tensor in[2], out = tensor(SYM_DT_F32, 2, dc), o2;
		sym_attrs *at = attrs(ctx);

		in[0] = tensor(SYM_DT_F32, 2, da);
		in[1] = tensor(SYM_DT_F32, 2, db);
		fails("matmul", NULL, in, 2, &out, 1,
		    "the contracted dims differ: 4 in input 0, 5 in input 1");
		sym__tensor_free(&in[1]);
		db[0] = 4;
		in[1] = tensor(SYM_DT_F64, 2, db);
		fails("matmul", NULL, in, 2, &out, 1, "input 0 is f32 but");
		sym__tensor_free(&in[1]);
		in[1] = tensor(SYM_DT_F32, 2, db);
		o2 = tensor(SYM_DT_F32, 2, dd);
		fails("matmul", NULL, in, 2, &o2, 1,
		    "the output is [3, 3], the product [3, 2]");
		sym__tensor_free(&o2);
		o2 = tensor(SYM_DT_F32, 1, d1);
		fails("matmul", NULL, in, 2, &o2, 1, "rank 2");
		sym_attrs_set_int(at, "transpose_a", 1);
		decode_fails("matmul", at, in, 2, 1,
		    "attribute transpose_a of matmul must be true or false, not an integer");
		sym__tensor_free(&o2);
		free_all(in, 2);
		free_all(&out, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* One batch_matmul case: inputs of ranks "ra" / "rb" and dims "da" /
 * "db" (the last two given as [m, k] / [k, n] before transposition). */
struct bmm_case {
	int ra, rb;
	int64_t da[5], db[5];
	int ta, tb;
};

/* batch_matmul with broadcast batch dims (missing or 1), transposes, the
 * folded path (a weight without batch), f64, and bad batch dims. */
static void
test_batch_matmul(void **state)
{
	static const struct bmm_case cases[] = {
		{ 3, 2, { 4, 3, 5 }, { 5, 6 }, 0, 0 },
		{ 4, 2, { 2, 3, 4, 5 }, { 5, 6 }, 0, 1 },
		{ 4, 4, { 1, 3, 4, 5 }, { 2, 1, 5, 6 }, 1, 0 },
		{ 3, 3, { 3, 2, 7 }, { 3, 7, 2 }, 1, 1 },
		{ 2, 4, { 4, 5 }, { 2, 3, 5, 6 }, 0, 0 },
		{ 3, 3, { 1, 4, 5 }, { 3, 5, 6 }, 0, 0 },
		{ 5, 3, { 2, 1, 2, 3, 4 }, { 2, 4, 2 }, 0, 0 },
		{ 3, 3, { 2, 3, 0 }, { 2, 0, 4 }, 0, 0 },
		{ 3, 3, { 0, 3, 4 }, { 1, 4, 4 }, 0, 0 },
	};
	uint64_t s = 12345;
	sym_ctx *ctx = new_ctx();

	(void)state;
	for (size_t ci = 0; ci < 2 * sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct bmm_case *c = &cases[ci / 2];
		sym_dtype dt = ci % 2 ? SYM_DT_F64 : SYM_DT_F32;
		int ra = c->ra, rb = c->rb, r = ra > rb ? ra : rb, nb = r - 2;
		int64_t da[5], db[5], dc[5], m = c->da[ra - 2];
		int64_t k = c->da[ra - 1], n = c->db[rb - 1], idx[5];
		sym_attrs *at = attrs(ctx);
		struct sym__tensor in[2], out;
		double *want;

		memcpy(da, c->da, sizeof(da));
		memcpy(db, c->db, sizeof(db));
		if (c->ta) {
			da[ra - 2] = k;
			da[ra - 1] = m;
		}
		if (c->tb) {
			db[rb - 2] = n;
			db[rb - 1] = k;
		}
		for (int d = 0; d < nb; d++) {
			int dx = d - (r - ra), dy = d - (r - rb);
			int64_t nx = dx < 0 ? 1 : da[dx],
			        ny = dy < 0 ? 1 : db[dy];

			dc[d] = nx == 1 ? ny : nx;
		}
		dc[nb] = m;
		dc[nb + 1] = n;
		in[0] = random_tensor(&s, dt, ra, da, -1, 1);
		in[1] = random_tensor(&s, dt, rb, db, -1, 1);
		out = tensor(dt, r, dc);
		fill(&out, &s, -5, 5);
		sym_attrs_set_bool(at, "transpose_a", c->ta);
		sym_attrs_set_bool(at, "transpose_b", c->tb);
		run("batch_matmul", at, in, 2, &out, 1);
		want = doubles(numel(&out));
		for (int64_t b = 0; b < numel(&out) / (m * n > 0 ? m * n : 1);
		     b++) {
			int64_t ox = 0, oy = 0, cx[5], cy[5];

			unravel(b, nb, dc, idx);
			for (int d = 0; d < ra - 2; d++)
				cx[d] = da[d] == 1 ? 0 : idx[d + nb - (ra - 2)];
			for (int d = 0; d < rb - 2; d++)
				cy[d] = db[d] == 1 ? 0 : idx[d + nb - (rb - 2)];
			ox = ravel(ra - 2, da, cx) * m * k;
			oy = ravel(rb - 2, db, cy) * k * n;
			ref_gemm(&in[0], ox, &in[1], oy, c->ta, c->tb, m, n, k,
			    want + b * m * n);
		}
		check_tensor(&out, want, tol(dt, TOL_F32_SUM), "batch_matmul");
		free(want);
		free_all(in, 2);
		free_all(&out, 1);
		sym_attrs_free(at);
	}
	{
		int64_t da[] = { 2, 3, 4 }, db[] = { 3, 4, 5 };
		int64_t dc[] = { 2, 3, 5 }, d1[] = { 4 };
		struct sym__tensor in[2], out = tensor(SYM_DT_F32, 3, dc);

		in[0] = tensor(SYM_DT_F32, 3, da);
		in[1] = tensor(SYM_DT_F32, 3, db);
		fails("batch_matmul", NULL, in, 2, &out, 1,
		    "batch dim 0 differs (2 and 3)");
		sym__tensor_free(&in[1]);
		db[0] = 1;
		in[1] = tensor(SYM_DT_F32, 3, db);
		dc[0] = 1;
		sym__tensor_free(&out);
		out = tensor(SYM_DT_F32, 3, dc);
		fails("batch_matmul", NULL, in, 2, &out, 1,
		    "batch dim 0 of the output is 1, the inputs broadcast to 2");
		sym__tensor_free(&in[1]);
		in[1] = tensor(SYM_DT_F32, 1, d1);
		fails("batch_matmul", NULL, in, 2, &out, 1, "rank at least 2");
		free_all(in, 2);
		free_all(&out, 1);
	}
	finish(ctx);
}

/* --- elementwise ------------------------------------------------------ */

/* Return the reference of the unary "op" at "v" (integer semantics when
 * "integer"). */
static double
ref_unary(const char *op, double v, int integer)
{
	if (!strcmp(op, "relu"))
		return v > 0 ? v : 0;
	if (!strcmp(op, "neg"))
		return integer && v == INT32_MIN ? v : -v;
	if (!strcmp(op, "gelu"))
		return 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
	if (!strcmp(op, "exp"))
		return exp(v);
	if (!strcmp(op, "log"))
		return log(v);
	if (!strcmp(op, "sqrt"))
		return sqrt(v);
	if (!strcmp(op, "tanh"))
		return tanh(v);
	return 1.0 / (1.0 + exp(-v));
}

/* Every unary operator in f32 and f64 (and int32 for relu and neg)
 * against libm in double, special values included; unsupported dtypes and
 * mismatched dims. */
static void
test_unary(void **state)
{
	static const char *const ops[] = { "relu", "neg", "gelu", "exp", "log",
		"sqrt", "tanh", "sigmoid" };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BF16 };
	int64_t dim[] = { 3, 37 }, d2[] = { 3, 36 };
	uint64_t s = 777;

	(void)state;
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (size_t t = 0; t < 4; t++) {
			sym_dtype dt = dts[t];
			int positive =
			    !strcmp(ops[o], "log") || !strcmp(ops[o], "sqrt");
			struct sym__tensor x, y;
			double *want;

			if (dt == SYM_DT_I32 && o > 1)
				continue;
			x = random_tensor(&s, dt, 2, dim, positive ? 0.01 : -6,
			    6);
			y = tensor(dt, 2, dim);
			if (dt == SYM_DT_I32) {
				set(&x, 0, INT32_MIN);
				set(&x, 1, INT32_MAX);
			} else if (!positive) {
				set(&x, 0, -100.0);
				set(&x, 1, 100.0);
			}
			run(ops[o], NULL, &x, 1, &y, 1);
			want = doubles(numel(&x));
			for (int64_t i = 0; i < numel(&x); i++)
				want[i] = ref_unary(ops[o], get(&x, i),
				    dt == SYM_DT_I32);
			if (dt != SYM_DT_F64)
				for (int64_t i = 0; i < numel(&x); i++)
					want[i] = dt == SYM_DT_I32
					    ? want[i]
					    : (double)(float)want[i];
			check_tensor(&y, want, tol(dt, TOL_F32_FN), ops[o]);
			free(want);
			free_all(&x, 1);
			free_all(&y, 1);
		}
	{
		struct sym__tensor x = tensor(SYM_DT_I32, 2, dim);
		struct sym__tensor y = tensor(SYM_DT_I32, 2, dim);
		struct sym__tensor z = tensor(SYM_DT_F32, 2, d2);
		struct sym__tensor w = tensor(SYM_DT_F32, 2, dim);
		struct sym__tensor b = tensor(SYM_DT_BOOL, 2, dim);

		fails("exp", NULL, &x, 1, &y, 1, "dtype i32 is not supported");
		fails("relu", NULL, &b, 1, &b, 1,
		    "dtype bool is not supported");
		fails("tanh", NULL, &w, 1, &z, 1,
		    "the input [3, 37] and the output [3, 36] must have the "
		    "same dims");
		fails("sigmoid", NULL, &w, 1, &x, 1,
		    "the input is f32 but the output is i32");
		free_all(&x, 1);
		free_all(&y, 1);
		free_all(&z, 1);
		free_all(&w, 1);
		free_all(&b, 1);
	}
}

/* identity and cast: conversions between every storage class, with
 * truncation, saturation, NaN, wrapping to narrow integers and bool. */
static void
test_cast(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BOOL, SYM_DT_I8, SYM_DT_U8, SYM_DT_I16, SYM_DT_F16 };
	static const double special[] = { 0.0, -0.0, 1.5, -1.5, 2.7, -2.7,
		127.0, 128.0, -129.0, 255.9, 256.0, 3e9, -3e9, 40000.0, -1.0,
		NAN, INFINITY, -INFINITY, 70000.0, 1e-3 };
	int64_t n = sizeof(special) / sizeof(special[0]), dim[] = { n };
	sym_ctx *ctx = new_ctx();

	(void)state;
	for (size_t f = 0; f < 8; f++)
		for (size_t t = 0; t < 8; t++) {
			struct sym__tensor x = tensor(dts[f], 1, dim);
			struct sym__tensor y = tensor(dts[t], 1, dim);
			sym_attrs *at = attrs(ctx);
			int fi = !sym_dtype_is_float(dts[f]);
			double *want = doubles(n);

			for (int64_t i = 0; i < n; i++) {
				double v = special[i];

				if (dts[f] == SYM_DT_BOOL)
					v = v != 0.0;
				else if (fi)
					v = isnan(v) ? 7
					             : fmax(-2e9, fmin(2e9, v));
				set(&x, i, v);
			}
			for (int64_t i = 0; i < n; i++) {
				double v = get(&x, i), lo = INT32_MIN;
				double hi = INT32_MAX;

				if (dts[t] == SYM_DT_BOOL) {
					want[i] = v != 0.0;
					continue;
				}
				if (sym_dtype_is_float(dts[t])) {
					want[i] = dts[t] == SYM_DT_F64
					    ? v
					    : (double)(float)v;
					continue;
				}
				if (dts[t] == SYM_DT_I8)
					lo = -128, hi = 127;
				else if (dts[t] == SYM_DT_U8)
					lo = 0, hi = 255;
				else if (dts[t] == SYM_DT_I16)
					lo = -32768, hi = 32767;
				if (!sym_dtype_is_float(dts[f])) {
					int32_t w = (int32_t)v;

					want[i] = dts[t] == SYM_DT_I8
					    ? (int8_t)w
					    : dts[t] == SYM_DT_U8  ? (uint8_t)w
					    : dts[t] == SYM_DT_I16 ? (int16_t)w
					                           : w;
					continue;
				}
				want[i] =
				    isnan(v) ? 0 : trunc(fmax(lo, fmin(hi, v)));
			}
			sym_attrs_set_string(at, "dtype",
			    sym_dtype_name(dts[t]));
			run("cast", at, &x, 1, &y, 1);
			check_tensor(&y, want, 0.0, "cast");
			if (dts[f] == dts[t]) {
				run("identity", NULL, &x, 1, &y, 1);
				for (int64_t i = 0; i < n; i++)
					want[i] = get(&x, i);
				check_tensor(&y, want, 0.0, "identity");
				run("identity", NULL, &x, 1, &x, 1);
			}
			free(want);
			free_all(&x, 1);
			free_all(&y, 1);
			sym_attrs_free(at);
		}
	{
		struct sym__tensor x = tensor(SYM_DT_F32, 1, dim);
		struct sym__tensor y = tensor(SYM_DT_I32, 1, dim);
		sym_attrs *at = attrs(ctx);

		sym_attrs_set_string(at, "dtype", "f64");
		fails("cast", at, &x, 1, &y, 1,
		    "the output is i32 but the attribute dtype says f64");
		fails("identity", NULL, &x, 1, &y, 1, "is f32 but");
		sym_attrs_free(at);
		at = attrs(ctx);
		sym_attrs_set_int(at, "dtype", 3);
		decode_fails("cast", at, &x, 1, 1,
		    "attribute dtype of cast must be a string, not an integer");
		sym_attrs_set_string(at, "dtype", sym_dtype_name(x.dtype));
		fails("cast", at, &x, 1, &x, 1, "may not alias");
		free_all(&x, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* Return the reference of the binary "op" on "u" and "v" of dtype "dt". */
static double
ref_binary(const char *op, double u, double v, sym_dtype dt)
{
	int integer = !sym_dtype_is_float(dt) && dt != SYM_DT_BOOL;
	double r;

	if (dt == SYM_DT_BOOL) {
		if (!strcmp(op, "add") || !strcmp(op, "maximum"))
			return u || v;
		return u && v;
	}
	if (!strcmp(op, "add"))
		r = u + v;
	else if (!strcmp(op, "sub"))
		r = u - v;
	else if (!strcmp(op, "mul"))
		r = u * v;
	else if (!strcmp(op, "div"))
		r = integer ? floor(u / v) : u / v;
	else if (!strcmp(op, "maximum"))
		r = isnan(u) || isnan(v) ? NAN : fmax(u, v);
	else
		r = isnan(u) || isnan(v) ? NAN : fmin(u, v);
	if (integer)
		return (double)(int32_t)(uint32_t)(int64_t)r;
	return dt == SYM_DT_F64 ? r : (double)(float)r;
}

/* One broadcasting case: operand ranks and dims. */
struct bc_case {
	int ra, rb;
	int64_t da[4], db[4];
};

/* The binary operators on every storage class through NumPy broadcasting
 * (scalars, missing and unit dims on either side), integer wrapping and
 * floor division, NaN in maximum / minimum, and failures. */
static void
test_binary(void **state)
{
	static const struct bc_case cases[] = {
		{ 2, 2, { 3, 5 }, { 3, 5 } },
		{ 3, 1, { 2, 3, 4 }, { 4 } },
		{ 1, 3, { 4 }, { 2, 3, 4 } },
		{ 3, 2, { 2, 1, 4 }, { 3, 1 } },
		{ 0, 2, { 0 }, { 3, 2 } },
		{ 2, 0, { 3, 2 }, { 0 } },
		{ 0, 0, { 0 }, { 0 } },
		{ 4, 4, { 2, 1, 3, 1 }, { 1, 4, 1, 5 } },
		{ 3, 3, { 1, 1, 1 }, { 2, 3, 4 } },
		{ 2, 3, { 3, 1 }, { 2, 1, 7 } },
		{ 2, 2, { 0, 3 }, { 1, 3 } },
	};
	static const char *const ops[] = { "add", "sub", "mul", "div",
		"maximum", "minimum" };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BOOL };
	uint64_t s = 4242;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (size_t o = 0; o < 6; o++)
			for (size_t t = 0; t < 4; t++) {
				const struct bc_case *bc = &cases[c];
				sym_dtype dt = dts[t];
				int r = bc->ra > bc->rb ? bc->ra : bc->rb;
				int64_t dc[4], cz[4], cx[4], cy[4], dx[4],
				    dy[4];
				struct sym__tensor x, y, z;
				double *want;

				if (dt == SYM_DT_BOOL && (o == 1 || o == 3))
					continue;
				for (int d = 0; d < r; d++) {
					int ia = d - (r - bc->ra),
					    ib = d - (r - bc->rb);
					int64_t na = ia < 0 ? 1 : bc->da[ia];
					int64_t nb = ib < 0 ? 1 : bc->db[ib];

					dc[d] = na == 1 ? nb : na;
				}
				x = random_tensor(&s, dt, bc->ra, bc->da, -50,
				    50);
				y = random_tensor(&s, dt, bc->rb, bc->db, -50,
				    50);
				if (o == 3 && dt == SYM_DT_I32)
					for (int64_t i = 0; i < numel(&y); i++)
						if (get(&y, i) == 0)
							set(&y, i, 3);
				if (o >= 4 && sym_dtype_is_float(dt) &&
				    numel(&x) > 1)
					set(&x, 1, NAN);
				if (o < 3 && dt == SYM_DT_I32 && numel(&x) > 0)
					set(&x, 0, INT32_MAX);
				z = tensor(dt, r, dc);
				run(ops[o], NULL,
				    (struct sym__tensor[]){ x, y }, 2, &z, 1);
				want = doubles(numel(&z));
				memcpy(dx, bc->da, sizeof(dx));
				memcpy(dy, bc->db, sizeof(dy));
				for (int64_t i = 0; i < numel(&z); i++) {
					unravel(i, r, dc, cz);
					for (int d = 0; d < bc->ra; d++)
						cx[d] = dx[d] == 1
						    ? 0
						    : cz[d + r - bc->ra];
					for (int d = 0; d < bc->rb; d++)
						cy[d] = dy[d] == 1
						    ? 0
						    : cz[d + r - bc->rb];
					want[i] = ref_binary(ops[o],
					    get(&x, ravel(bc->ra, dx, cx)),
					    get(&y, ravel(bc->rb, dy, cy)), dt);
				}
				check_tensor(&z, want, tol(dt, TOL_F32),
				    ops[o]);
				free(want);
				free_all(&x, 1);
				free_all(&y, 1);
				free_all(&z, 1);
			}
	{
		int64_t da[] = { 2, 3 }, db[] = { 4 }, dz[] = { 2, 4 };
		int64_t dw[] = { 2, 1 };
		struct sym__tensor in[2], z = tensor(SYM_DT_I32, 2, da);
		struct sym__tensor w = tensor(SYM_DT_I32, 2, dw);

		in[0] = tensor(SYM_DT_I32, 2, da);
		in[1] = tensor(SYM_DT_I32, 2, da);
		fails("div", NULL, in, 2, &z, 1, "integer division by zero");
		fails("add", NULL, in, 2, &w, 1,
		    "dim 1: the inputs have 3 and 3, the output 1");
		sym__tensor_free(&in[1]);
		in[1] = tensor(SYM_DT_I32, 1, db);
		sym__tensor_free(&z);
		z = tensor(SYM_DT_I32, 2, dz);
		fails("mul", NULL, in, 2, &z, 1, "(not a broadcast)");
		fails("maximum", NULL, in, 2, &z, 0, "0 outputs given");
		sym__tensor_free(&in[1]);
		in[1] = tensor(SYM_DT_F32, 2, da);
		fails("sub", NULL, in, 2, &z, 1,
		    "input 0 is i32 but input 1 is f32");
		free_all(in, 2);
		in[0] = tensor(SYM_DT_BOOL, 2, da);
		in[1] = tensor(SYM_DT_BOOL, 2, da);
		sym__tensor_free(&z);
		z = tensor(SYM_DT_BOOL, 2, da);
		fails("sub", NULL, in, 2, &z, 1, "dtype bool is not supported");
		sym__tensor_free(&z);
		z = tensor(SYM_DT_BOOL, 1, db);
		fails("add", NULL, in, 2, &z, 1,
		    "the output has rank 1, not 2");
		free_all(in, 2);
		free_all(&z, 1);
		free_all(&w, 1);
	}
}

/* bias_add in NCHW, NCDHW and NHWC (f32, f64, int32); bad formats and
 * bias sizes. */
static void
test_bias_add(void **state)
{
	static const char *const fmts[] = { "NCHW", "NHWC", "NCDHW", NULL };
	static const int64_t shapes[][5] = { { 2, 3, 4, 5 }, { 3, 4 },
		{ 2, 3, 2, 2, 3 } };
	static const int ranks[] = { 4, 2, 5 };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 99;

	(void)state;
	for (int f = 0; f < 4; f++)
		for (int sh = 0; sh < 3; sh++)
			for (int t = 0; t < 3; t++) {
				int r = ranks[sh];
				int c = fmts[f] && !strcmp(fmts[f], "NHWC")
				    ? r - 1
				    : 1;
				int64_t cd[5], bd[1] = { shapes[sh][c] };
				struct sym__tensor in[2], y;
				sym_attrs *at = attrs(ctx);
				double *want;

				if (fmts[f])
					sym_attrs_set_string(at, "data_format",
					    fmts[f]);
				in[0] = random_tensor(&s, dts[t], r, shapes[sh],
				    -9, 9);
				in[1] = random_tensor(&s, dts[t], 1, bd, -9, 9);
				y = tensor(dts[t], r, shapes[sh]);
				run("bias_add", at, in, 2, &y, 1);
				want = doubles(numel(&y));
				for (int64_t i = 0; i < numel(&y); i++) {
					unravel(i, r, shapes[sh], cd);
					want[i] =
					    get(&in[0], i) + get(&in[1], cd[c]);
					if (dts[t] == SYM_DT_F32)
						want[i] = (float)want[i];
				}
				check_tensor(&y, want, tol(dts[t], TOL_F32),
				    "bias_add");
				free(want);
				free_all(in, 2);
				free_all(&y, 1);
				sym_attrs_free(at);
			}
	{
		int64_t dx[] = { 2, 3, 4 }, db[] = { 4 };
		struct sym__tensor in[2], y = tensor(SYM_DT_F32, 3, dx);
		sym_attrs *at = attrs(ctx);

		in[0] = tensor(SYM_DT_F32, 3, dx);
		in[1] = tensor(SYM_DT_F32, 1, db);
		fails("bias_add", NULL, in, 2, &y, 1,
		    "the bias has 4 elements but dim 1 of x is 3");
		sym_attrs_set_string(at, "data_format", "HWCN");
		decode_fails("bias_add", at, in, 2, 1,
		    "must be \"NCHW\", \"NHWC\" or \"NCDHW\", not \"HWCN\"");
		decode_fails("bias_add", NULL,
		    (struct sym__tensor[]){ in[1], in[1] }, 2, 1,
		    "must have rank at least 2");
		fails_at("bias_add", &(struct sym__opattrs){ 0 },
		    (struct sym__tensor[]){ in[1], in[1] }, 2, &y, 1,
		    "x must have rank at least 2");
		free_all(in, 2);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* --- layout ----------------------------------------------------------- */

/* reshape, flatten, expand_dims and squeeze: copies, aliases and the
 * shape checks. */
static void
test_reshape_family(void **state)
{
	int64_t dx[] = { 2, 1, 3, 4 }, dr[] = { 6, 4 }, df[] = { 2, 12 };
	int64_t de[] = { 2, 1, 3, 4, 1 }, dq[] = { 2, 3, 4 };
	int64_t dq2[] = { 2, 3, 4, 1 }, ax[] = { 1, -1 };
	sym_ctx *ctx = new_ctx();
	struct sym__tensor x, y;
	struct sym__opattrs dec = { 0 };
	sym_attrs *at;
	uint64_t s = 5;
	double *want;

	(void)state;
	x = random_tensor(&s, SYM_DT_F32, 4, dx, -1, 1);
	want = doubles(numel(&x));
	for (int64_t i = 0; i < numel(&x); i++)
		want[i] = get(&x, i);
	at = attrs(ctx);
	set_ints(ctx, at, "shape", 2, (const int64_t[]){ -1, 4 });
	y = tensor(SYM_DT_F32, 2, dr);
	run("reshape", at, &x, 1, &y, 1);
	check_tensor(&y, want, 0.0, "reshape");
	sym__tensor_free(&y);
	y.data = x.data;
	run("reshape", at, &x, 1, &y, 1);
	check_tensor(&y, want, 0.0, "reshape alias");
	y.dim[0] = 5;
	fails("reshape", at, &x, 1, &y, 1,
	    "the input has 24 elements but the output 20");
	y.dim[0] = 6;
	y.dtype = SYM_DT_I32;
	fails("reshape", at, &x, 1, &y, 1, "the input is f32 but the output");
	sym_attrs_free(at);
	y = tensor(SYM_DT_F32, 2, df);
	run("flatten", NULL, &x, 1, &y, 1);
	check_tensor(&y, want, 0.0, "flatten");
	y.dim[0] = 4;
	y.dim[1] = 6;
	fails("flatten", NULL, &x, 1, &y, 1, "the output must be [dim 0");
	sym__tensor_free(&y);
	at = attrs(ctx);
	sym_attrs_set_int(at, "axis", -1);
	y = tensor(SYM_DT_F32, 5, de);
	run("expand_dims", at, &x, 1, &y, 1);
	check_tensor(&y, want, 0.0, "expand_dims");
	sym_attrs_set_int(at, "axis", 2);
	fails("expand_dims", at, &x, 1, &y, 1,
	    "the output must have rank 5 and a dim 1 at 2");
	sym_attrs_set_int(at, "axis", 1);
	fails("expand_dims", at, &x, 1, &y, 1,
	    "dim 2 of the output is 3, not 1");
	sym_attrs_set_int(at, "axis", 6);
	decode_fails("expand_dims", at, &x, 1, 1,
	    "axis=6 is out of range for input 0 of rank 4");
	decode_fails("expand_dims", NULL, &x, 1, 1,
	    "expand_dims needs the integer attribute axis");
	sym__tensor_free(&y);
	sym_attrs_free(at);
	y = tensor(SYM_DT_F32, 3, dq);
	run("squeeze", NULL, &x, 1, &y, 1);
	check_tensor(&y, want, 0.0, "squeeze");
	at = attrs(ctx);
	sym_attrs_set_int(at, "axis", -3);
	run("squeeze", at, &x, 1, &y, 1);
	check_tensor(&y, want, 0.0, "squeeze axis");
	sym_attrs_set_int(at, "axis", 0);
	decode_fails("squeeze", at, &x, 1, 1,
	    "squeeze cannot remove dimension 0 of input 0: its size is 2");
	set_ints(ctx, at, "axis", 2, ax);
	decode_fails("squeeze", at, &x, 1, 1,
	    "squeeze cannot remove dimension 3 of input 0: its size is 4");
	dec.layout.mark = (const unsigned char[]){ 1, 0, 0, 0 };
	fails_at("squeeze", &dec, &x, 1, &y, 1,
	    "dim 0 of the input is 2, not 1");
	sym__tensor_free(&y);
	y = tensor(SYM_DT_F32, 4, dq2);
	fails("squeeze", NULL, &x, 1, &y, 1,
	    "the output has rank 4, 3 expected");
	y.dim[3] = 5;
	y.dim[2] = 1;
	fails("squeeze", NULL, &x, 1, &y, 1, "the output dims are not");
	sym_attrs_free(at);
	free(want);
	free_all(&x, 1);
	free_all(&y, 1);
	finish(ctx);
}

/* transpose and permute of ranks 0 to 6 with random permutations written
 * with negative axes, in every element size; bad permutations. */
static void
test_transpose(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_BOOL,
		SYM_DT_I32 };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 31337;

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		int r = iter % 7, perm[8];
		int64_t dx[8], dy[8], p[8], cx[8], cy[8];
		sym_dtype dt = dts[iter % 4];
		sym_attrs *at = attrs(ctx);
		struct sym__tensor x, y;
		double *want;

		for (int d = 0; d < r; d++) {
			dx[d] = irand(&s, 1, 5);
			perm[d] = d;
		}
		for (int d = r - 1; d > 0; d--) {
			int j = (int)irand(&s, 0, d), t = perm[d];

			perm[d] = perm[j];
			perm[j] = t;
		}
		for (int d = 0; d < r; d++) {
			dy[d] = dx[perm[d]];
			p[d] = irand(&s, 0, 1) ? perm[d] - r : perm[d];
		}
		set_ints(ctx, at, "perm", (size_t)r, p);
		x = random_tensor(&s, dt, r, dx, -9, 9);
		y = tensor(dt, r, dy);
		run(iter % 2 ? "transpose" : "permute", at, &x, 1, &y, 1);
		want = doubles(numel(&y));
		for (int64_t i = 0; i < numel(&y); i++) {
			unravel(i, r, dy, cy);
			for (int d = 0; d < r; d++)
				cx[perm[d]] = cy[d];
			want[i] = get(&x, ravel(r, dx, cx));
		}
		check_tensor(&y, want, 0.0, "transpose");
		free(want);
		free_all(&x, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 }, dy[] = { 3, 2 };
		struct sym__tensor x = tensor(SYM_DT_F32, 2, dx);
		struct sym__tensor y = tensor(SYM_DT_F32, 2, dy);
		sym_attrs *at = attrs(ctx);

		decode_fails("transpose", NULL, &x, 1, 1,
		    "transpose needs its perm argument");
		set_ints(ctx, at, "perm", 2, (const int64_t[]){ 1, -1 });
		decode_fails("transpose", at, &x, 1, 1,
		    "is not a permutation: it names axis 1 twice");
		set_ints(ctx, at, "perm", 2, (const int64_t[]){ 0, 1 });
		fails("permute", at, &x, 1, &y, 1,
		    "dim 0 of the output is 3, dim 0 of the input 2");
		set_ints(ctx, at, "perm", 2, (const int64_t[]){ 1, 0 });
		fails("permute", at, &x, 1, &x, 1, "may not alias");
		set_ints(ctx, at, "perm", 2, (const int64_t[]){ 1, 2 });
		decode_fails("permute", at, &x, 1, 1,
		    "perm=2 is out of range for input 0 of rank 2");
		sym_attrs_free(at);
		free_all(&x, 1);
		free_all(&y, 1);
	}
	finish(ctx);
}

/* --- concat, split, slice --------------------------------------------- */

/* concat of 1 to 3 inputs along every axis (negative too) and split into
 * 1 to 3 unequal parts, checked against each other and by index. */
static void
test_concat_split(void **state)
{
	sym_ctx *ctx = new_ctx();
	uint64_t s = 2024;

	(void)state;
	for (int iter = 0; iter < 40; iter++) {
		int r = 1 + iter % 4, n = 1 + iter % 3, ax = iter % r;
		int64_t base[4], dims[3][4], dy[4], cy[4], at0;
		sym_dtype dt = iter % 5 == 4 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor in[3], y, parts[3];
		sym_attrs *at = attrs(ctx);
		double *want;

		for (int d = 0; d < r; d++)
			base[d] = irand(&s, 1, 4);
		memcpy(dy, base, sizeof(dy));
		dy[ax] = 0;
		for (int i = 0; i < n; i++) {
			memcpy(dims[i], base, sizeof(base));
			dims[i][ax] = irand(&s, iter % 7 == 6 ? 0 : 1, 4);
			dy[ax] += dims[i][ax];
			in[i] = random_tensor(&s, dt, r, dims[i], -1, 1);
		}
		sym_attrs_set_int(at, "axis", iter % 2 ? ax - r : ax);
		y = tensor(dt, r, dy);
		run("concat", at, in, n, &y, 1);
		want = doubles(numel(&y));
		for (int64_t i = 0; i < numel(&y); i++) {
			int k = 0;

			unravel(i, r, dy, cy);
			at0 = cy[ax];
			while (at0 >= dims[k][ax])
				at0 -= dims[k++][ax];
			cy[ax] = at0;
			want[i] = get(&in[k], ravel(r, dims[k], cy));
		}
		check_tensor(&y, want, 0.0, "concat");
		for (int i = 0; i < n; i++)
			parts[i] = tensor(dt, r, dims[i]);
		if (iter % 3 == 0)
			sym_attrs_set_int(at, "output_num", n);
		run("split", at, &y, 1, parts, n);
		for (int i = 0; i < n; i++) {
			double *w = doubles(numel(&in[i]));

			for (int64_t j = 0; j < numel(&in[i]); j++)
				w[j] = get(&in[i], j);
			check_tensor(&parts[i], w, 0.0, "split");
			free(w);
		}
		free(want);
		free_all(in, n);
		free_all(parts, n);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t da[] = { 2, 3 }, db[] = { 3, 3 }, dy[] = { 4, 3 };
		struct sym__tensor in[2], y = tensor(SYM_DT_F32, 2, dy);
		struct sym__opattrs dec = { 0 };
		sym_attrs *at = attrs(ctx);

		in[0] = tensor(SYM_DT_F32, 2, da);
		in[1] = tensor(SYM_DT_F32, 2, db);
		fails("concat", NULL, in, 2, &y, 1,
		    "the inputs add up to 5 along axis 0, the output has 4");
		sym_attrs_set_int(at, "axis", 1);
		fails("concat", at, in, 2, &y, 1,
		    "dim 0 of input 0 is 2, not 4");
		sym_attrs_set_int(at, "axis", 2);
		decode_fails("concat", at, in, 2, 1,
		    "axis=2 is out of range for input 0 of rank 2");
		fails("split", NULL, &y, 1, in, 2,
		    "the outputs add up to 5 along axis 0, the input has 4");
		sym_attrs_set_int(at, "axis", 0);
		sym_attrs_set_int(at, "output_num", 3);
		decode_fails("split", at, &y, 1, 2,
		    "split with output_num=3 produces 3 outputs, but 2 are");
		dec.concat.parts = 3;
		fails_at("split", &dec, &y, 1, in, 2,
		    "output_num=3 but 2 outputs");
		sym__tensor_free(&in[1]);
		in[1] = tensor(SYM_DT_I32, 2, da);
		fails("concat", NULL, in, 2, &y, 1, "input 1 is i32, not f32");
		free_all(in, 2);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* slice with begin / size (size -1: to the end), on whole tensors and on
 * split blocks (global sizes), and out-of-range bounds. */
static void
test_slice(void **state)
{
	int64_t dx[] = { 4, 5, 6 }, cx[3], cy[3];
	int64_t gdim[1][SYM__MAX_RANK] = { { 4, 10, 6 } };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 8;

	(void)state;
	for (int iter = 0; iter < 30; iter++) {
		int64_t b[3], sz[3], dy[3];
		struct sym__tensor x =
		    random_tensor(&s, SYM_DT_F64, 3, dx, -1, 1);
		struct sym__tensor y;
		struct sym__kernel_args a;
		sym_attrs *at = attrs(ctx);
		int split = iter % 3 == 2;
		double *want;

		for (int d = 0; d < 3; d++) {
			b[d] = irand(&s, 0, dx[d] - 1);
			dy[d] = irand(&s, 1, dx[d] - b[d]);
			sz[d] = dy[d] == dx[d] - b[d] && irand(&s, 0, 1)
			    ? -1
			    : dy[d];
		}
		if (split) {
			b[1] = 0;
			sz[1] = 10;
			dy[1] = dx[1];
		}
		set_ints(ctx, at, "begin", 3, b);
		set_ints(ctx, at, "size", 3, sz);
		y = tensor(SYM_DT_F64, 3, dy);
		a = args("slice", at, &x, 1, &y, 1);
		if (split)
			a.global_dim = gdim;
		run_args("slice", &a);
		want = doubles(numel(&y));
		for (int64_t i = 0; i < numel(&y); i++) {
			unravel(i, 3, dy, cy);
			for (int d = 0; d < 3; d++)
				cx[d] = cy[d] + b[d];
			want[i] = get(&x, ravel(3, dx, cx));
		}
		check_tensor(&y, want, 0.0, "slice");
		free(want);
		free_all(&x, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dy[] = { 2, 5, 6 };
		struct sym__tensor x = tensor(SYM_DT_F32, 3, dx);
		struct sym__tensor y = tensor(SYM_DT_F32, 3, dy);
		struct sym__kernel_args a;
		sym_attrs *at = attrs(ctx);

		set_ints(ctx, at, "begin", 3, (const int64_t[]){ 3, 0, 0 });
		set_ints(ctx, at, "size", 3, (const int64_t[]){ 2, -1, -1 });
		fails("slice", at, &x, 1, &y, 1,
		    "dim 0: begin 3 size 2 of a dim of 4");
		set_ints(ctx, at, "begin", 2, (const int64_t[]){ 0, 0 });
		decode_fails("slice", at, &x, 1, 1,
		    "attribute begin of slice has 2 items, but input 0 has rank 3");
		set_ints(ctx, at, "begin", 3, (const int64_t[]){ 1, 0, 0 });
		set_ints(ctx, at, "size", 3, (const int64_t[]){ 2, 3, -1 });
		sym__tensor_free(&y);
		y = tensor(SYM_DT_F32, 3, (const int64_t[]){ 2, 3, 6 });
		run("slice", at, &x, 1, &y, 1);
		a = args("slice", at, &x, 1, &y, 1);
		a.global_dim = gdim;
		fail_args("slice", &a,
		    "dim 1 is split: the slice must keep its 5 elements, not 3");
		free_all(&x, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* --- reductions ------------------------------------------------------- */

/* reduce_sum, reduce_mean and reduce_max over random axis sets (negative,
 * absent: all), keep_dims, f32 / f64 / int32, a normalizer, NaN and
 * empty reductions; bad output dims. */
static void
test_reduce(void **state)
{
	static const char *const ops[] = { "reduce_sum", "reduce_mean",
		"reduce_max" };
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32 };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 1;

	(void)state;
	for (int iter = 0; iter < 120; iter++) {
		int r = iter % 5, op = iter % 3, keep = iter / 3 % 2, ry = 0;
		sym_dtype dt = dts[iter / 6 % 3];
		unsigned char mark[5] = { 0 };
		int64_t dx[5], dy[5], ax[5], cx[5], cy[5], na = 0, norm = 0;
		sym_attrs *at = attrs(ctx);
		struct sym__tensor x, y;
		struct sym__kernel_args a;
		double *want, *cnt;
		int all = iter % 4 == 3;

		for (int d = 0; d < r; d++) {
			dx[d] = irand(&s, iter % 17 == 16 ? 0 : 1, 4);
			if (!all && irand(&s, 0, 1)) {
				mark[d] = 1;
				ax[na++] = irand(&s, 0, 1) ? d - r : d;
			}
		}
		if (all || na == 0)
			for (int d = 0; d < r; d++)
				mark[d] = 1;
		for (int d = 0; d < r; d++)
			if (!mark[d] || keep)
				dy[ry++] = mark[d] ? 1 : dx[d];
		if (na == 1 && iter % 2)
			sym_attrs_set_int(at, "axis", ax[0]);
		else if (na > 0)
			set_ints(ctx, at, "axis", (size_t)na, ax);
		if (keep || iter % 5 == 0)
			sym_attrs_set_bool(at, "keep_dims", keep);
		x = random_tensor(&s, dt, r, dx, -20, 20);
		if (dt != SYM_DT_I32 && op == 2 && numel(&x) > 3 &&
		    iter % 7 == 0)
			set(&x, 2, NAN);
		y = tensor(dt, ry, dy);
		a = args(ops[op], at, &x, 1, &y, 1);
		if (op == 1 && iter % 4 == 1) {
			norm = 7;
			a.normalizer = norm;
		}
		run_args(ops[op], &a);
		want = doubles(numel(&y));
		cnt = doubles(numel(&y));
		for (int64_t i = 0; i < numel(&y); i++)
			want[i] = op == 2 ? -INFINITY : 0.0;
		if (op == 2 && dt == SYM_DT_I32)
			for (int64_t i = 0; i < numel(&y); i++)
				want[i] = INT32_MIN;
		for (int64_t i = 0; i < numel(&x); i++) {
			int64_t k;
			double v = get(&x, i);
			int j = 0;

			unravel(i, r, dx, cx);
			for (int d = 0; d < r; d++)
				if (!mark[d] || keep)
					cy[j++] = mark[d] ? 0 : cx[d];
			k = ravel(ry, dy, cy);
			cnt[k]++;
			if (op < 2)
				want[k] += v;
			else if (isnan(v) || isnan(want[k]))
				want[k] = NAN;
			else
				want[k] = fmax(want[k], v);
		}
		for (int64_t i = 0; i < numel(&y); i++) {
			double c = norm ? (double)norm : cnt[i];

			if (op != 1)
				continue;
			if (dt == SYM_DT_I32)
				want[i] = c ? trunc(want[i] / c) : 0;
			else
				want[i] /= c;
		}
		check_tensor(&y, want, tol(dt, TOL_F32), ops[op]);
		free(want);
		free(cnt);
		free_all(&x, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3, 4 }, dy[] = { 2, 4 }, dk[] = { 2, 1, 4 };
		struct sym__tensor x = tensor(SYM_DT_F32, 3, dx);
		struct sym__tensor y = tensor(SYM_DT_F32, 2, dy);
		struct sym__tensor k = tensor(SYM_DT_F32, 3, dk);
		struct sym__tensor b = tensor(SYM_DT_BOOL, 3, dx);
		struct sym__tensor bk = tensor(SYM_DT_BOOL, 3, dk);
		sym_attrs *at = attrs(ctx);

		struct sym__tensor cnt = tensor(SYM_DT_I32, 2, dy);
		double want[8];

		sym_attrs_set_int(at, "axis", 1);
		run("reduce_sum", at, &x, 1, &y, 1);
		fails("reduce_sum", at, &x, 1, &k, 1,
		    "with the reduced ones removed");
		for (int64_t i = 0; i < 24; i++)
			set(&b, i, (double)(i % 5 == 0 || i % 7 == 0));
		for (int64_t i = 0; i < 8; i++) {
			want[i] = 0;
			for (int64_t j = 0; j < 3; j++) {
				int64_t e = (i / 4) * 12 + j * 4 + i % 4;

				want[i] += e % 5 == 0 || e % 7 == 0;
			}
		}
		run("reduce_sum", at, &b, 1, &cnt, 1);
		check_tensor(&cnt, want, 0, "reduce_sum of bool");
		fails("reduce_sum", at, &b, 1, &y, 1,
		    "the output of a sum of bool is i32, not f32");
		sym_attrs_set_bool(at, "keep_dims", 1);
		run("reduce_max", at, &x, 1, &k, 1);
		run("reduce_max", at, &b, 1, &bk, 1);
		fails("reduce_mean", at, &b, 1, &bk, 1, "dtype bool is not");
		fails("reduce_max", at, &x, 1, &y, 1,
		    "the output's dims are not the input's with the reduced "
		    "ones set to 1");
		sym_attrs_set_int(at, "axis", 3);
		decode_fails("reduce_sum", at, &x, 1, 1,
		    "axis=3 is out of range for input 0 of rank 3");
		set_ints(ctx, at, "axis", 2, (const int64_t[]){ 1, -2 });
		decode_fails("reduce_sum", at, &x, 1, 1,
		    "attribute axis of reduce_sum names axis 1 of input 0 twice");
		sym_attrs_set_string(at, "axis", "1");
		decode_fails("reduce_sum", at, &x, 1, 1,
		    "attribute axis of reduce_sum must be an integer or a list "
		    "of integers, not a string");
		free_all(&x, 1);
		free_all(&y, 1);
		free_all(&k, 1);
		free_all(&b, 1);
		free_all(&bk, 1);
		free_all(&cnt, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* Run the binary "op" on the dtype "dt" with u and v (one element each)
 * and check that it gives "want". */
static void
narrow_binary(const char *op, sym_dtype dt, double u, double v, double want)
{
	int64_t one[] = { 1 };
	struct sym__tensor in[2] = { tensor(dt, 1, one), tensor(dt, 1, one) };
	struct sym__tensor y = tensor(dt, 1, one);
	char what[64];

	set(&in[0], 0, u);
	set(&in[1], 0, v);
	run(op, NULL, in, 2, &y, 1);
	snprintf(what, sizeof(what), "%s %s", op, sym_dtype_name(dt));
	check_tensor(&y, &want, 0, what);
	free_all(in, 2);
	free_all(&y, 1);
}

/* Integer kernels compute in the width of the dtype, as NumPy and
 * PyTorch: results wrap to i8, i16 and u8 (their int32 storage holds the
 * wrapped value); i64, held in int32, is refused where a result could
 * need more bits. */
static void
test_narrow_ints(void **state)
{
	int64_t d2[] = { 1, 2 }, d21[] = { 2, 1 }, d11[] = { 1, 1 };
	int64_t d12[] = { 1, 2 }, d2c[] = { 2 }, d1[] = { 1 };
	sym_ctx *ctx = new_ctx();
	sym_attrs *at = attrs(ctx);
	struct sym__tensor a, b, y, z;
	double w2[2];

	(void)state;
	narrow_binary("add", SYM_DT_I8, 100, 100, -56);
	narrow_binary("add", SYM_DT_I8, -100, -100, 56);
	narrow_binary("sub", SYM_DT_U8, 3, 5, 254);
	narrow_binary("add", SYM_DT_U8, 200, 100, 44);
	narrow_binary("mul", SYM_DT_I16, 300, 300, 24464);
	narrow_binary("mul", SYM_DT_U8, 16, 17, 16);
	narrow_binary("div", SYM_DT_I8, -128, -1, -128);
	narrow_binary("add", SYM_DT_I32, 2147483647, 1, -2147483648.0);
	narrow_binary("maximum", SYM_DT_I64, 7, -3, 7);
	/* neg: -(-128) is -128 in i8. */
	a = tensor(SYM_DT_I8, 1, d1);
	y = tensor(SYM_DT_I8, 1, d1);
	set(&a, 0, -128);
	run("neg", NULL, &a, 1, &y, 1);
	w2[0] = -128;
	check_tensor(&y, w2, 0, "neg i8");
	free_all(&a, 1);
	free_all(&y, 1);
	/* bias_add: 250 + 10 is 4 in u8. */
	a = tensor(SYM_DT_U8, 2, d12);
	b = tensor(SYM_DT_U8, 1, d2c);
	y = tensor(SYM_DT_U8, 2, d12);
	set(&a, 0, 250);
	set(&a, 1, 1);
	set(&b, 0, 10);
	set(&b, 1, 2);
	{
		struct sym__tensor in[2] = { a, b };

		run("bias_add", NULL, in, 2, &y, 1);
	}
	w2[0] = 4;
	w2[1] = 3;
	check_tensor(&y, w2, 0, "bias_add u8");
	free_all(&a, 1);
	free_all(&b, 1);
	free_all(&y, 1);
	/* matmul: 100 * 1 + 100 * 1 is -56 in i8; batch_matmul alike. */
	for (int batch = 0; batch < 2; batch++) {
		struct sym__tensor in[2];
		const char *op = batch ? "batch_matmul" : "matmul";

		in[0] = tensor(SYM_DT_I8, 2, d2);
		in[1] = tensor(SYM_DT_I8, 2, d21);
		z = tensor(SYM_DT_I8, 2, d11);
		set(&in[0], 0, 100);
		set(&in[0], 1, 100);
		set(&in[1], 0, 1);
		set(&in[1], 1, 1);
		run(op, NULL, in, 2, &z, 1);
		w2[0] = -56;
		check_tensor(&z, w2, 0, op);
		free_all(in, 2);
		free_all(&z, 1);
	}
	/* reduce_sum: 100 + 100 is -56 in i8, 200 + 100 is 44 in u8. */
	sym_attrs_set_int(at, "axis", 1);
	for (int u = 0; u < 2; u++) {
		sym_dtype dt = u ? SYM_DT_U8 : SYM_DT_I8;

		a = tensor(dt, 2, d2);
		y = tensor(dt, 1, d1);
		set(&a, 0, u ? 200 : 100);
		set(&a, 1, 100);
		run("reduce_sum", at, &a, 1, &y, 1);
		w2[0] = u ? 44 : -56;
		check_tensor(&y, w2, 0, "reduce_sum");
		free_all(&a, 1);
		free_all(&y, 1);
	}
	/* i64 is refused where a result could need more than 32 bits. */
	a = tensor(SYM_DT_I64, 1, d1);
	b = tensor(SYM_DT_I64, 1, d1);
	y = tensor(SYM_DT_I64, 1, d1);
	{
		struct sym__tensor in[2] = { a, b };

		fails("add", NULL, in, 2, &y, 1,
		    "input 0 is i64, which is held in 32 bits");
		fails("neg", NULL, &a, 1, &y, 1,
		    "the input is i64, which is held in 32 bits");
	}
	free_all(&a, 1);
	free_all(&b, 1);
	free_all(&y, 1);
	sym_attrs_free(at);
	finish(ctx);
}

/* Return 1 when element "i" of "t" is NaN. */
static int
is_nan_at(const struct sym__tensor *t, int64_t i)
{
	return isnan(get(t, i));
}

/* NaN propagates through every floating kernel as in NumPy and PyTorch,
 * f32 and f64: relu(NaN) is NaN, every other unary function too; each
 * binary operator (maximum and minimum as np.maximum / np.minimum) and
 * bias_add give NaN when either operand is NaN; reductions and the
 * normalisations give NaN where a NaN is reduced. */
static void
test_nan(void **state)
{
	static const char *const unary_ops[] = { "relu", "gelu", "exp", "log",
		"neg", "sqrt", "tanh", "sigmoid", "identity" };
	static const char *const binary_ops[] = { "add", "sub", "mul", "div",
		"maximum", "minimum", "bias_add" };
	static const char *const norm_ops[] = { "reduce_sum", "reduce_mean",
		"reduce_max", "softmax", "log_softmax" };
	int64_t d2[] = { 2, 2 }, d1[] = { 2 };
	sym_ctx *ctx = new_ctx();

	(void)state;
	for (int f = 0; f < 2; f++) {
		sym_dtype dt = f ? SYM_DT_F64 : SYM_DT_F32;

		for (size_t k = 0; k < sizeof(unary_ops) / sizeof(*unary_ops);
		     k++) {
			struct sym__tensor x = tensor(dt, 1, d1);
			struct sym__tensor y = tensor(dt, 1, d1);

			set(&x, 0, NAN);
			set(&x, 1, 0.5);
			run(unary_ops[k], NULL, &x, 1, &y, 1);
			if (!is_nan_at(&y, 0) || is_nan_at(&y, 1))
				fail_msg("%s(NaN) is %g, (0.5) is %g",
				    unary_ops[k], get(&y, 0), get(&y, 1));
			free_all(&x, 1);
			free_all(&y, 1);
		}
		for (size_t k = 0; k < sizeof(binary_ops) / sizeof(*binary_ops);
		     k++) {
			/* [[NaN, 1], [1, 1]] op [1, NaN] (bias_add: the bias
			 * along dim 1): NaN at 0, 1 and 3, a number at 2. */
			struct sym__tensor in[2] = { tensor(dt, 2, d2),
				tensor(dt, 1, d1) };
			struct sym__tensor y = tensor(dt, 2, d2);

			set(&in[0], 0, NAN);
			for (int64_t i = 1; i < 4; i++)
				set(&in[0], i, 1.0);
			set(&in[1], 0, 1.0);
			set(&in[1], 1, NAN);
			run(binary_ops[k], NULL, in, 2, &y, 1);
			if (!is_nan_at(&y, 0) || !is_nan_at(&y, 1) ||
			    is_nan_at(&y, 2) || !is_nan_at(&y, 3))
				fail_msg("%s %s: NaN does not propagate "
				         "(%g %g %g %g)",
				    binary_ops[k], sym_dtype_name(dt),
				    get(&y, 0), get(&y, 1), get(&y, 2),
				    get(&y, 3));
			free_all(in, 2);
			free_all(&y, 1);
		}
		for (size_t k = 0; k < sizeof(norm_ops) / sizeof(*norm_ops);
		     k++) {
			/* Row 0 holds a NaN, row 1 none. */
			int red = !strncmp(norm_ops[k], "reduce", 6);
			sym_attrs *at = attrs(ctx);
			struct sym__tensor x = tensor(dt, 2, d2);
			struct sym__tensor y =
			    red ? tensor(dt, 1, d1) : tensor(dt, 2, d2);

			sym_attrs_set_int(at, "axis", 1);
			set(&x, 0, 2.0);
			set(&x, 1, NAN);
			set(&x, 2, 2.0);
			set(&x, 3, 3.0);
			run(norm_ops[k], at, &x, 1, &y, 1);
			if (!is_nan_at(&y, 0) || is_nan_at(&y, red ? 1 : 2) ||
			    (!red && (!is_nan_at(&y, 1) || is_nan_at(&y, 3))))
				fail_msg(
				    "%s %s: NaN does not propagate (%g %g)",
				    norm_ops[k], sym_dtype_name(dt), get(&y, 0),
				    get(&y, 1));
			free_all(&x, 1);
			free_all(&y, 1);
			sym_attrs_free(at);
		}
	}
	finish(ctx);
}

/* --- normalisation ---------------------------------------------------- */

/* softmax and log_softmax over random axis sets (one axis, neighbouring
 * axes, separated axes: the three code paths), f32 and f64, large
 * logits; bad axes and dtypes. */
static void
test_softmax(void **state)
{
	sym_ctx *ctx = new_ctx();
	uint64_t s = 11;

	(void)state;
	for (int iter = 0; iter < 80; iter++) {
		int r = 1 + iter % 4, lg = iter % 2, na = 0;
		sym_dtype dt = iter / 2 % 3 == 2 ? SYM_DT_F64 : SYM_DT_F32;
		unsigned char mark[4] = { 0 };
		int64_t dx[4], ax[4], cx[4];
		sym_attrs *at = attrs(ctx);
		struct sym__tensor x, y;
		double *want, *mx, *sum;

		for (int d = 0; d < r; d++) {
			dx[d] = irand(&s, 1, 5);
			if (irand(&s, 0, 2) == 0) {
				mark[d] = 1;
				ax[na++] = irand(&s, 0, 1) ? d - r : d;
			}
		}
		if (na == 0 && iter % 3) {
			mark[r - 1] = 1;
		} else if (na == 0) {
			mark[0] = 1;
			ax[na++] = 0;
		}
		if (na == 1 && iter % 4 < 2)
			sym_attrs_set_int(at, "axis", ax[0]);
		else if (na > 0)
			set_ints(ctx, at, "axis", (size_t)na, ax);
		x = random_tensor(&s, dt, r, dx, -30, 30);
		if (numel(&x) > 1)
			set(&x, 0, 500.0);
		y = tensor(dt, r, dx);
		run(lg ? "log_softmax" : "softmax", at, &x, 1, &y, 1);
		want = doubles(numel(&x));
		mx = doubles(numel(&x));
		sum = doubles(numel(&x));
		for (int64_t i = 0; i < numel(&x); i++)
			mx[i] = -INFINITY;
		for (int pass = 0; pass < 3; pass++)
			for (int64_t i = 0; i < numel(&x); i++) {
				int64_t g;

				unravel(i, r, dx, cx);
				for (int d = 0; d < r; d++)
					cx[d] = mark[d] ? 0 : cx[d];
				g = ravel(r, dx, cx);
				if (pass == 0)
					mx[g] = fmax(mx[g], get(&x, i));
				else if (pass == 1)
					sum[g] += exp(get(&x, i) - mx[g]);
				else
					want[i] = lg
					    ? get(&x, i) - mx[g] - log(sum[g])
					    : exp(get(&x, i) - mx[g]) / sum[g];
			}
		check_tensor(&y, want, tol(dt, TOL_F32_FN * 4),
		    lg ? "log_softmax" : "softmax");
		free(want);
		free(mx);
		free(sum);
		free_all(&x, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 };
		struct sym__tensor x = tensor(SYM_DT_I32, 2, dx);
		struct sym__tensor y = tensor(SYM_DT_I32, 2, dx);
		sym_attrs *at = attrs(ctx);

		fails("softmax", NULL, &x, 1, &y, 1,
		    "the input must have a floating dtype, not i32");
		set_ints(ctx, at, "axis", 0, NULL);
		decode_fails("log_softmax", at, &x, 1, 1,
		    "attribute axis of log_softmax must name at least one axis");
		sym_attrs_set_int(at, "axis", -3);
		decode_fails("softmax", at, &x, 1, 1,
		    "axis=-3 is out of range for input 0 of rank 2");
		free_all(&x, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* layer_norm with every pair of begin_norm_axis / begin_params_axis on
 * ranks 1 to 4 (negative and positive), epsilon given as a float or an
 * integer or defaulted, 1 or 3 outputs, f32 and f64; bad parameters. */
static void
test_layer_norm(void **state)
{
	sym_ctx *ctx = new_ctx();
	uint64_t s = 77;

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		int r = 1 + iter % 4, nout = iter % 2 ? 3 : 1;
		int norm = (int)irand(&s, 0, r - 1),
		    par = (int)irand(&s, 0, r - 1);
		sym_dtype dt = iter % 3 == 2 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t dx[4], ds[4];
		double eps = iter % 4 == 1 ? 0.5 : iter % 4 == 2 ? 2.0 : 1e-5;
		sym_attrs *at = attrs(ctx);
		struct sym__tensor in[3], out[3];
		double *want, *wm, *wv;
		int64_t n = 1, p = 1, rows;

		for (int d = 0; d < r; d++) {
			dx[d] = irand(&s, 1, 5);
			ds[d] = d < norm ? dx[d] : 1;
			n *= d >= norm ? dx[d] : 1;
			p *= d >= par ? dx[d] : 1;
		}
		if (iter % 4 == 1)
			sym_attrs_set_float(at, "epsilon", eps);
		else if (iter % 4 == 2)
			sym_attrs_set_int(at, "epsilon", 2);
		if (norm != r - 1 || iter % 3)
			sym_attrs_set_int(at, "begin_norm_axis",
			    iter % 2 ? norm : norm - r);
		if (par != r - 1 || iter % 3)
			sym_attrs_set_int(at, "begin_params_axis",
			    iter % 3 ? par : par - r);
		in[0] = random_tensor(&s, dt, r, dx, -3, 3);
		in[1] = random_tensor(&s, dt, r - par, dx + par, 0.5, 2);
		in[2] = random_tensor(&s, dt, r - par, dx + par, -1, 1);
		out[0] = tensor(dt, r, dx);
		out[1] = tensor(dt, r, ds);
		out[2] = tensor(dt, r, ds);
		run("layer_norm", at, in, 3, out, nout);
		rows = numel(&in[0]) / n;
		want = doubles(numel(&in[0]));
		wm = doubles(rows);
		wv = doubles(rows);
		for (int64_t row = 0; row < rows; row++) {
			double m = 0, v = 0;

			for (int64_t j = 0; j < n; j++)
				m += get(&in[0], row * n + j);
			m /= (double)n;
			for (int64_t j = 0; j < n; j++)
				v += pow(get(&in[0], row * n + j) - m, 2);
			v /= (double)n;
			wm[row] = m;
			wv[row] = v;
			for (int64_t j = 0; j < n; j++) {
				int64_t i = row * n + j;

				want[i] = (get(&in[0], i) - m) / sqrt(v + eps) *
				        get(&in[1], i % p) +
				    get(&in[2], i % p);
			}
		}
		check_tensor(&out[0], want, tol(dt, TOL_F32_FN * 4),
		    "layer_norm");
		if (nout == 3) {
			check_tensor(&out[1], wm, tol(dt, TOL_F32_FN), "mean");
			check_tensor(&out[2], wv, tol(dt, TOL_F32_FN),
			    "variance");
		}
		free(want);
		free(wm);
		free(wv);
		free_all(in, 3);
		free_all(out, 3);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 }, dg[] = { 2 }, ds[] = { 2, 3 };
		struct sym__tensor in[3], out[3];
		sym_attrs *at = attrs(ctx);

		in[0] = tensor(SYM_DT_F32, 2, dx);
		in[1] = tensor(SYM_DT_F32, 1, dg);
		in[2] = tensor(SYM_DT_F32, 1, dg);
		out[0] = tensor(SYM_DT_F32, 2, dx);
		out[1] = tensor(SYM_DT_F32, 2, ds);
		out[2] = tensor(SYM_DT_F32, 2, ds);
		fails("layer_norm", NULL, in, 3, out, 1,
		    "gamma must have the dims of x from dim 1 on");
		decode_fails("layer_norm", NULL, in, 3, 2,
		    "layer_norm produces 1 output (y) or 3 (y, mean, variance), but 2 are named");
		sym__tensor_free(&in[1]);
		sym__tensor_free(&in[2]);
		dg[0] = 3;
		in[1] = tensor(SYM_DT_F32, 1, dg);
		in[2] = tensor(SYM_DT_F64, 1, dg);
		fails("layer_norm", NULL, in, 3, out, 1,
		    "x is f32 but beta is f64");
		sym__tensor_free(&in[2]);
		in[2] = tensor(SYM_DT_F32, 1, dg);
		fails("layer_norm", NULL, in, 3, out, 3,
		    "output 1 must have the dims of x before dim 1, then 1s");
		sym_attrs_set_string(at, "epsilon", "small");
		decode_fails("layer_norm", at, in, 3, 1,
		    "attribute epsilon of layer_norm must be a number");
		free_all(in, 3);
		free_all(out, 3);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* --- gather ----------------------------------------------------------- */

/* gather along each axis with indices of ranks 0 to 2, embedding, and a
 * table split in blocks (offsets, global size) whose partial outputs add
 * up to the whole; indices out of range. */
static void
test_gather(void **state)
{
	sym_ctx *ctx = new_ctx();
	uint64_t s = 3;

	(void)state;
	for (int iter = 0; iter < 36; iter++) {
		int rp = 1 + iter % 3, ri = iter / 3 % 3, ax = iter % rp, ry;
		int emb = iter % 6 == 5, blocks = iter % 4 == 3 ? 3 : 1;
		int64_t dp[3], di[2], dy[5], cy[5], cp[3];
		sym_dtype dt = iter % 2 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor p, ix, y, part;
		sym_attrs *at = attrs(ctx);
		double *want, *acc;

		if (emb) {
			rp = 2;
			ax = 0;
		}
		for (int d = 0; d < rp; d++)
			dp[d] = irand(&s, 1, 4);
		dp[ax] = blocks * irand(&s, 1, 3);
		for (int d = 0; d < ri; d++)
			di[d] = irand(&s, 1, 4);
		ry = rp - 1 + ri;
		for (int d = 0, k = 0; d < rp; d++)
			if (d == ax)
				for (int j = 0; j < ri; j++)
					dy[k++] = di[j];
			else
				dy[k++] = dp[d];
		p = random_tensor(&s, dt, rp, dp, -1, 1);
		ix = random_tensor(&s, SYM_DT_I32, ri, di, 0,
		    (double)dp[ax] - 1);
		y = tensor(dt, ry, dy);
		if (!emb)
			sym_attrs_set_int(at, "axis", iter % 2 ? ax - rp : ax);
		want = doubles(numel(&y));
		for (int64_t i = 0; i < numel(&y); i++) {
			int64_t ci[2];

			unravel(i, ry, dy, cy);
			for (int d = 0; d < ri; d++)
				ci[d] = cy[ax + d];
			for (int d = 0, k = 0; d < rp; d++) {
				cp[d] = d == ax
				    ? (int64_t)get(&ix, ravel(ri, di, ci))
				    : cy[k];
				k += d == ax ? ri : 1;
			}
			want[i] = get(&p, ravel(rp, dp, cp));
		}
		acc = doubles(numel(&y));
		for (int b = 0; b < blocks; b++) {
			int64_t dq[3], off[2][SYM__MAX_RANK] = { { 0 } };
			int64_t glob[2][SYM__MAX_RANK] = { { 0 } }, cq[3];
			int ip = emb ? 1 : 0;
			struct sym__kernel_args a;
			struct sym__tensor in[2];

			memcpy(dq, dp, sizeof(dq));
			dq[ax] = dp[ax] / blocks;
			part = tensor(dt, rp, dq);
			for (int64_t i = 0; i < numel(&part); i++) {
				unravel(i, rp, dq, cq);
				cq[ax] += b * dq[ax];
				set(&part, i, get(&p, ravel(rp, dp, cq)));
			}
			off[ip][ax] = b * dq[ax];
			memcpy(glob[ip], dp, sizeof(dp));
			in[ip] = part;
			in[1 - ip] = ix;
			a = args(emb ? "embedding" : "gather", at, in, 2, &y,
			    1);
			if (blocks > 1 || iter % 2) {
				a.offset = off;
				a.global_dim = glob;
			}
			run_args(emb ? "embedding" : "gather", &a);
			for (int64_t i = 0; i < numel(&y); i++)
				acc[i] += get(&y, i);
			sym__tensor_free(&part);
		}
		check_tensor(&(struct sym__tensor){ .data = acc,
		                 .dtype = SYM_DT_F64,
		                 .rank = 1,
		                 .dim = { numel(&y) } },
		    want, 0.0, emb ? "embedding" : "gather");
		free(acc);
		free(want);
		free_all(&p, 1);
		free_all(&ix, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dp[] = { 4, 3 }, di[] = { 2 }, dy[] = { 2, 3 };
		struct sym__tensor in[2], y = tensor(SYM_DT_F32, 2, dy);
		int64_t off[2][SYM__MAX_RANK] = { { 3 } };
		int64_t glob[2][SYM__MAX_RANK] = { { 6, 3 } };
		struct sym__kernel_args a;

		in[0] = tensor(SYM_DT_F32, 2, dp);
		in[1] = tensor(SYM_DT_I32, 1, di);
		((int32_t *)in[1].data)[1] = 4;
		fails("gather", NULL, in, 2, &y, 1,
		    "index 4 (element 1) is out of range [0, 4)");
		a = args("gather", NULL, in, 2, &y, 1);
		a.offset = off;
		a.global_dim = glob;
		fail_args("gather", &a,
		    "the local block [3, 7) of the table is not inside its "
		    "global size 6");
		fails("embedding", NULL, (struct sym__tensor[]){ in[1], in[0] },
		    2, &y, 1, "index 4 (element 1) is out of range [0, 4)");
		fails("gather", NULL, (struct sym__tensor[]){ in[0], in[0] }, 2,
		    &y, 1, "the indices must have an integer dtype, not f32");
		fails("embedding", NULL, (struct sym__tensor[]){ in[1], in[1] },
		    2, &y, 1, "the table must have rank 2, not 1");
		y.dim[1] = 4;
		((int32_t *)in[1].data)[1] = 1;
		fails("gather", NULL, in, 2, &y, 1,
		    "dim 1 of the output is 4, 3 expected");
		y.dim[1] = 3;
		free_all(in, 2);
		free_all(&y, 1);
	}
	finish(ctx);
}

/* one_hot at every axis, into f32 / f64 / int32 / bool, with blocks of
 * classes (out_offset) that concatenate to the whole, indices outside
 * the depth (zero rows); bad dtype and depth. */
static void
test_one_hot(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64, SYM_DT_I32,
		SYM_DT_BOOL };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 6;

	(void)state;
	for (int iter = 0; iter < 32; iter++) {
		int ri = iter % 3, ax = (int)irand(&s, 0, ri),
		    blocks = 1 + iter % 2;
		int64_t di[2], dy[3], cy[3], depth = 2 * irand(&s, 1, 4);
		sym_dtype dt = dts[iter / 2 % 4];
		sym_attrs *at = attrs(ctx);
		struct sym__tensor ix, y;

		for (int d = 0; d < ri; d++)
			di[d] = irand(&s, 1, 4);
		for (int d = 0, k = 0; d < ri + 1; d++)
			dy[d] = d == ax ? depth / blocks : di[k++];
		ix = random_tensor(&s, SYM_DT_I32, ri, di, -1, (double)depth);
		if (iter % 3 == 0)
			sym_attrs_set_int(at, "depth", depth);
		else if (iter % 3 == 1)
			set_ints(ctx, at, "depth", 1, &depth);
		else
			set_depth_symbol(ctx, at);
		if (ax != ri || iter % 2)
			sym_attrs_set_int(at, "axis",
			    iter % 2 ? ax - ri - 1 : ax);
		if (dt != SYM_DT_F32 || iter % 4 == 0)
			sym_attrs_set_string(at, "dtype", sym_dtype_name(dt));
		y = tensor(dt, ri + 1, dy);
		for (int b = 0; b < blocks; b++) {
			int64_t off[1][SYM__MAX_RANK] = { { 0 } }, ci[2];
			struct sym__kernel_args a =
			    args("one_hot", at, &ix, 1, &y, 1);
			double *want = doubles(numel(&y));

			off[0][ax] = b * dy[ax];
			if (blocks > 1)
				a.out_offset = off;
			run_args("one_hot", &a);
			for (int64_t i = 0; i < numel(&y); i++) {
				unravel(i, ri + 1, dy, cy);
				for (int d = 0, k = 0; d < ri + 1; d++)
					if (d != ax)
						ci[k++] = cy[d];
				want[i] = get(&ix, ravel(ri, di, ci)) ==
				    (double)(cy[ax] + off[0][ax]);
			}
			check_tensor(&y, want, 0.0, "one_hot");
			free(want);
		}
		free_all(&ix, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t di[] = { 3 }, dy[] = { 3, 4 };
		struct sym__tensor ix = tensor(SYM_DT_I32, 1, di);
		struct sym__tensor y = tensor(SYM_DT_F64, 2, dy);
		int64_t off[1][SYM__MAX_RANK] = { { 0, 2 } };
		struct sym__kernel_args a;
		sym_attrs *at = attrs(ctx);

		sym_attrs_set_int(at, "depth", 4);
		fails("one_hot", at, &ix, 1, &y, 1,
		    "the output is f64 but the attribute dtype says f32");
		sym_attrs_set_string(at, "dtype", "f64");
		sym_attrs_set_int(at, "depth", 5);
		a = args("one_hot", at, &ix, 1, &y, 1);
		a.out_offset = off;
		fail_args("one_hot", &a,
		    "the 4 classes from 2 of the output are not inside the "
		    "depth 5");
		fails("one_hot", at, &y, 1, &y, 1,
		    "the indices must have an integer dtype");
		sym_attrs_set_int(at, "axis", 0);
		fails("one_hot", at, &ix, 1, &y, 1,
		    "dim 1 of the output is 4, not 3");
		free_all(&ix, 1);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* --- loss ------------------------------------------------------------- */

/* softmax_cross_entropy with reductions none / sum / mean, and a batch
 * split in blocks whose partial means (normalizer: the global batch) add
 * up to the whole mean; bad labels and shapes. */
static void
test_loss(void **state)
{
	static const char *const reds[] = { "mean", "sum", "none", NULL };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 21;

	(void)state;
	for (int iter = 0; iter < 32; iter++) {
		const char *red = reds[iter % 4];
		int none = red && !strcmp(red, "none"),
		    blocks = 1 + iter / 4 % 2 * 3;
		int64_t nb = irand(&s, 1, 5), n = nb * blocks,
		        c = irand(&s, 1, 9);
		int64_t dx[] = { n, c }, dl[] = { n }, bx[] = { nb, c },
		        bl[] = { nb };
		sym_dtype dt = iter % 8 >= 4 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor x = random_tensor(&s, dt, 2, dx, -10, 10);
		struct sym__tensor l =
		    random_tensor(&s, SYM_DT_I32, 1, dl, 0, (double)c - 1);
		sym_attrs *at = attrs(ctx);
		double *loss = doubles(n), total = 0.0, got = 0.0;

		if (red)
			sym_attrs_set_string(at, "reduction", red);
		set(&x, 0, 80.0);
		for (int64_t i = 0; i < n; i++) {
			double m = -INFINITY, z = 0.0;

			for (int64_t j = 0; j < c; j++)
				m = fmax(m, get(&x, i * c + j));
			for (int64_t j = 0; j < c; j++)
				z += exp(get(&x, i * c + j) - m);
			loss[i] =
			    log(z) + m - get(&x, i * c + (int64_t)get(&l, i));
			total += loss[i];
		}
		if (!red || !strcmp(red, "mean"))
			total /= (double)n;
		for (int b = 0; b < blocks; b++) {
			struct sym__tensor in[2], y;
			struct sym__kernel_args a;

			in[0] = tensor(dt, 2, bx);
			in[1] = tensor(SYM_DT_I32, 1, bl);
			for (int64_t i = 0; i < nb * c; i++)
				set(&in[0], i, get(&x, b * nb * c + i));
			for (int64_t i = 0; i < nb; i++)
				set(&in[1], i, get(&l, b * nb + i));
			y = tensor(dt, none, bl);
			a = args("softmax_cross_entropy", at, in, 2, &y, 1);
			if (blocks > 1)
				a.normalizer = n;
			run_args("softmax_cross_entropy", &a);
			if (none)
				check_tensor(&y, loss + b * nb,
				    tol(dt, TOL_F32_FN * 4), "loss none");
			else
				got += get(&y, 0);
			free_all(in, 2);
			free_all(&y, 1);
		}
		if (!none)
			check_close(got, total, tol(dt, TOL_F32_FN * 4), "loss",
			    0);
		free(loss);
		free_all(&x, 1);
		free_all(&l, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 }, dl[] = { 2 }, d3[] = { 3 };
		struct sym__tensor in[2], y = tensor(SYM_DT_F32, 0, NULL);
		sym_attrs *at = attrs(ctx);

		in[0] = tensor(SYM_DT_F32, 2, dx);
		in[1] = tensor(SYM_DT_I32, 1, dl);
		((int32_t *)in[1].data)[1] = 3;
		fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "label 3 of row 1 is out of range [0, 3)");
		((int32_t *)in[1].data)[1] = -1;
		fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "label -1 of row 1");
		sym_attrs_set_string(at, "reduction", "none");
		fails("softmax_cross_entropy", at, in, 2, &y, 1,
		    "the output must be [N]");
		sym_attrs_set_string(at, "reduction", "max");
		decode_fails("softmax_cross_entropy", at, in, 2, 1,
		    "must be \"mean\", \"sum\" or \"none\", not \"max\"");
		sym__tensor_free(&in[1]);
		in[1] = tensor(SYM_DT_I32, 1, d3);
		fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "the logits must be [N, C] and the labels [N]");
		fails("softmax_cross_entropy", NULL,
		    (struct sym__tensor[]){ in[0], in[0] }, 2, &y, 1,
		    "the logits must be [N, C]");
		free_all(in, 2);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* --- convolution ------------------------------------------------------ */

/* The parameters of one conv2d case. */
struct conv_case {
	int64_t n, c, h, w, o, kh, kw;
	int64_t sh, sw, ph0, ph1, pw0, pw1, dh, dw, group;
	int attr_form; /* 0: lists of 2 / 4, 1: integers, 2: lists of 4 */
};

/* Return the reference output at [i, o, y, x] of conv2d "cc" of "x" and
 * "w" (its "o" global). */
static double
ref_conv(const struct conv_case *cc, const struct sym__tensor *x,
    const struct sym__tensor *w, int64_t i, int64_t o, int64_t oy, int64_t ox)
{
	int64_t cg = cc->c / cc->group, g = o / (cc->o / cc->group);
	double sum = 0.0;

	for (int64_t c = 0; c < cg; c++)
		for (int64_t ky = 0; ky < cc->kh; ky++)
			for (int64_t kx = 0; kx < cc->kw; kx++) {
				int64_t iy =
				    oy * cc->sh - cc->ph0 + ky * cc->dh;
				int64_t ix =
				    ox * cc->sw - cc->pw0 + kx * cc->dw;

				if (iy < 0 || iy >= cc->h || ix < 0 ||
				    ix >= cc->w)
					continue;
				sum += get(x,
				           ((i * cc->c + g * cg + c) * cc->h +
				               iy) *
				                   cc->w +
				               ix) *
				    get(w,
				        ((o * cg + c) * cc->kh + ky) * cc->kw +
				            kx);
			}
	return sum;
}

/* Set the attributes of "cc" on "at" (of "ctx") in its attr_form. */
static void
conv_attrs(sym_ctx *ctx, sym_attrs *at, const struct conv_case *cc)
{
	if (cc->attr_form == 1) {
		sym_attrs_set_int(at, "stride", cc->sh);
		sym_attrs_set_int(at, "dilation", cc->dh);
		sym_attrs_set_int(at, "pad", cc->ph0);
	} else {
		set_ints(ctx, at, "stride", cc->attr_form ? 4 : 2,
		    cc->attr_form ? (const int64_t[]){ 1, 1, cc->sh, cc->sw }
		                  : (const int64_t[]){ cc->sh, cc->sw });
		set_ints(ctx, at, "dilation", 2,
		    (const int64_t[]){ cc->dh, cc->dw });
		if (cc->attr_form == 2)
			set_ints(ctx, at, "pad", 2,
			    (const int64_t[]){ cc->ph0, cc->pw0 });
		else
			set_ints(ctx, at, "pad", 4,
			    (const int64_t[]){
			        cc->ph0, cc->ph1, cc->pw0, cc->pw1 });
	}
	if (cc->group != 1)
		sym_attrs_set_int(at, "group", cc->group);
	if (cc->attr_form == 2)
		sym_attrs_set_string(at, "data_format", "NCHW");
}

/* Return the output extent of conv2d for one spatial dim. */
static int64_t
conv_extent(int64_t size, int64_t k, int64_t p0, int64_t p1, int64_t d,
    int64_t st)
{
	return (size + p0 + p1 - d * (k - 1) - 1) / st + 1;
}

/* conv2d on fixed and random cases (stride, asymmetric pad, dilation,
 * groups, 1x1), f32 and f64, with the output channels split in blocks
 * (offset and global size of the weight) and the input channels split
 * (partial sums); bad geometry. */
static void
test_conv2d(void **state)
{
	static const struct conv_case fixed[] = {
		{ 2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 },
		{ 1, 4, 9, 8, 6, 3, 2, 2, 3, 0, 2, 1, 0, 2, 1, 2, 0 },
		{ 2, 6, 5, 5, 6, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 3, 0 },
		{ 1, 2, 4, 4, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1 },
		{ 1, 4, 6, 7, 8, 2, 3, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2 },
		{ 3, 2, 5, 6, 2, 5, 6, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0 },
		{ 1, 1, 3, 3, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1 },
	};
	sym_ctx *ctx = new_ctx();
	uint64_t s = 2718;

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		struct conv_case cc;
		int64_t ho, wo, blocks, cblocks = 1;
		sym_dtype dt = iter % 3 == 2 ? SYM_DT_F64 : SYM_DT_F32;
		sym_attrs *at = attrs(ctx);
		struct sym__tensor x, w, y;
		double *want, *acc;

		if (iter < (int)(sizeof(fixed) / sizeof(fixed[0]))) {
			cc = fixed[iter];
		} else {
			cc.group = irand(&s, 1, 3);
			cc.n = irand(&s, 1, 2);
			cc.c = cc.group * irand(&s, 1, 3);
			cc.o = cc.group * irand(&s, 1, 3);
			cc.kh = irand(&s, 1, 3);
			cc.kw = irand(&s, 1, 3);
			cc.sh = irand(&s, 1, 3);
			cc.sw = irand(&s, 1, 3);
			cc.dh = irand(&s, 1, 2);
			cc.dw = irand(&s, 1, 2);
			cc.ph0 = irand(&s, 0, 2);
			cc.ph1 = irand(&s, 0, 2);
			cc.pw0 = irand(&s, 0, 2);
			cc.pw1 = irand(&s, 0, 2);
			cc.h = irand(&s, 1, 8) + cc.dh * (cc.kh - 1);
			cc.w = irand(&s, 1, 8) + cc.dw * (cc.kw - 1);
			cc.attr_form = iter % 3;
		}
		if (cc.attr_form == 1) {
			cc.sw = cc.sh;
			cc.dw = cc.dh;
			cc.ph1 = cc.pw0 = cc.pw1 = cc.ph0;
		} else if (cc.attr_form == 2) {
			cc.ph1 = cc.ph0;
			cc.pw1 = cc.pw0;
		}
		conv_attrs(ctx, at, &cc);
		ho = conv_extent(cc.h, cc.kh, cc.ph0, cc.ph1, cc.dh, cc.sh);
		wo = conv_extent(cc.w, cc.kw, cc.pw0, cc.pw1, cc.dw, cc.sw);
		x = random_tensor(&s, dt, 4,
		    (const int64_t[]){ cc.n, cc.c, cc.h, cc.w }, -1, 1);
		w = random_tensor(&s, dt, 4,
		    (const int64_t[]){ cc.o, cc.c / cc.group, cc.kh, cc.kw },
		    -1, 1);
		want = doubles(cc.n * cc.o * ho * wo);
		for (int64_t i = 0; i < cc.n * cc.o * ho * wo; i++)
			want[i] = ref_conv(&cc, &x, &w, i / (cc.o * ho * wo),
			    i / (ho * wo) % cc.o, i / wo % ho, i % wo);
		blocks = cc.o % 2 == 0 && iter % 2 ? 2 : 1;
		if (cc.group == 1 && cc.c % 2 == 0 && blocks == 1)
			cblocks = 2;
		acc = doubles(cc.n * cc.o * ho * wo);
		for (int64_t b = 0; b < blocks * cblocks; b++) {
			int64_t ob = cc.o / blocks, cb = cc.c / cblocks;
			int64_t o0 = b % blocks * ob, c0 = b / blocks * cb;
			int64_t off[2][SYM__MAX_RANK] = { { 0 } };
			int64_t glob[2][SYM__MAX_RANK] = { { 0 } };
			struct sym__tensor in[2];
			struct sym__kernel_args a;

			in[0] = tensor(dt, 4,
			    (const int64_t[]){ cc.n, cb, cc.h, cc.w });
			for (int64_t i = 0; i < numel(&in[0]); i++) {
				int64_t hw = cc.h * cc.w, img = i / (cb * hw);

				set(&in[0], i,
				    get(&x,
				        (img * cc.c + c0 + i / hw % cb) * hw +
				            i % hw));
			}
			in[1] = tensor(dt, 4,
			    (const int64_t[]){ ob,
			        cb / (cblocks > 1 ? 1 : cc.group), cc.kh,
			        cc.kw });
			for (int64_t i = 0; i < numel(&in[1]); i++) {
				int64_t kk = cc.kh * cc.kw, cw = in[1].dim[1];
				int64_t cwg = cc.c / cc.group;

				set(&in[1], i,
				    get(&w,
				        ((o0 + i / (cw * kk)) * cwg + c0 +
				            i / kk % cw) *
				                kk +
				            i % kk));
			}
			y = tensor(dt, 4,
			    (const int64_t[]){ cc.n, ob, ho, wo });
			a = args("conv2d", at, in, 2, &y, 1);
			off[1][0] = o0;
			off[0][1] = off[1][1] = c0;
			glob[0][1] = glob[1][1] = cc.c;
			glob[1][0] = cc.o;
			if (blocks * cblocks > 1) {
				a.offset = off;
				a.global_dim = glob;
			}
			run_args("conv2d", &a);
			for (int64_t i = 0; i < numel(&y); i++) {
				int64_t hw = ho * wo, img = i / (ob * hw);

				acc[(img * cc.o + o0 + i / hw % ob) * hw +
				    i % hw] += get(&y, i);
			}
			free_all(in, 2);
			free_all(&y, 1);
		}
		check_tensor(&(struct sym__tensor){ .data = acc,
		                 .dtype = SYM_DT_F64,
		                 .rank = 1,
		                 .dim = { cc.n * cc.o * ho * wo } },
		    want, tol(dt, TOL_F32_SUM), "conv2d");
		free(acc);
		free(want);
		free_all(&x, 1);
		free_all(&w, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 1, 4, 5, 5 }, dw[] = { 4, 2, 3, 3 };
		int64_t dy[] = { 1, 4, 3, 3 };
		struct sym__tensor in[2], y = tensor(SYM_DT_F32, 4, dy);
		sym_attrs *at = attrs(ctx);

		in[0] = tensor(SYM_DT_F32, 4, dx);
		in[1] = tensor(SYM_DT_F32, 4, dw);
		fails("conv2d", NULL, in, 2, &y, 1,
		    "x has 4 channels, the weight 2 per group");
		sym_attrs_set_int(at, "group", 2);
		run("conv2d", at, in, 2, &y, 1);
		sym_attrs_set_int(at, "stride", 2);
		fails("conv2d", at, in, 2, &y, 1,
		    "the output must be [1, 4, 2, 2]");
		set_ints(ctx, at, "stride", 3, (const int64_t[]){ 1, 2, 2 });
		decode_fails("conv2d", at, in, 2, 1,
		    "attribute stride of conv2d must be an integer, a list of 2");
		sym_attrs_set_int(at, "stride", 0);
		decode_fails("conv2d", at, in, 2, 1,
		    "attribute stride of conv2d must be at least 1");
		sym_attrs_set_int(at, "stride", 1);
		sym_attrs_set_int(at, "pad", -1);
		decode_fails("conv2d", at, in, 2, 1,
		    "attribute pad of conv2d must not be negative");
		sym_attrs_set_int(at, "pad", 0);
		sym_attrs_set_string(at, "data_format", "NHWC");
		decode_fails("conv2d", at, in, 2, 1,
		    "conv2d supports data_format=\"NCHW\" only, not \"NHWC\"");
		sym_attrs_set_string(at, "data_format", "NCHW");
		sym_attrs_set_int(at, "group", 0);
		decode_fails("conv2d", at, in, 2, 1,
		    "attribute group of conv2d must be at least 1");
		sym_attrs_set_int(at, "group", 2);
		sym_attrs_set_int(at, "dilation", 3);
		fails("conv2d", at, in, 2, &y, 1, "(output sizes at least 1)");
		sym_attrs_set_int(at, "dilation", 1);
		sym_attrs_set_int(at, "pad", INT64_MAX);
		fails("conv2d", at, in, 2, &y, 1,
		    "the output extent overflows 64 bits (stride 1, 1, pad "
		    "9223372036854775807, 9223372036854775807");
		free_all(in, 2);
		in[0] = tensor(SYM_DT_I32, 4, dx);
		in[1] = tensor(SYM_DT_I32, 4, dw);
		fails("conv2d", NULL, in, 2, &y, 1,
		    "x must have a floating dtype");
		free_all(in, 2);
		free_all(&y, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* --- Gradient helpers ------------------------------------------------- */

/* relu_grad routes dy where x > 0 (NaN and 0 get none); fill_like fills
 * its input's shape with a value; sum_to sums the leading dimensions
 * its target lacks and those it has as 1, as NumPy's broadcasting would
 * have expanded them. */
static void
test_grad_helpers(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F32, SYM_DT_F64 };
	sym_ctx *ctx = new_ctx();
	uint64_t s = 77;

	(void)state;
	for (int k = 0; k < 2; k++) {
		int64_t d[] = { 3, 5 }, d3[] = { 2, 3, 5 }, dt1[] = { 1, 5 };
		struct sym__tensor in[2], y = tensor(dts[k], 2, d);
		struct sym__tensor x3, st = tensor(dts[k], 2, dt1);
		double eps = k ? TOL_F64 : TOL_F32, *want = doubles(15);
		sym_attrs *at = attrs(ctx);

		in[0] = random_tensor(&s, dts[k], 2, d, -1, 1);
		in[1] = random_tensor(&s, dts[k], 2, d, -1, 1);
		if (k)
			((double *)in[1].data)[3] = NAN;
		else
			((float *)in[1].data)[3] = NAN;
		run("relu_grad", NULL, in, 2, &y, 1);
		for (int64_t i = 0; i < 15; i++)
			want[i] = get(&in[1], i) > 0 ? get(&in[0], i) : 0;
		check_tensor(&y, want, 0.0, "relu_grad");
		sym_attrs_set_float(at, "value", 2.5);
		run("fill_like", at, in, 1, &y, 1);
		for (int64_t i = 0; i < 15; i++)
			want[i] = 2.5;
		check_tensor(&y, want, 0.0, "fill_like");
		x3 = random_tensor(&s, dts[k], 3, d3, -1, 1);
		sym_attrs_free(at);
		at = attrs(ctx);
		set_ints(ctx, at, "shape", 2, dt1);
		run("sum_to", at, &x3, 1, &st, 1);
		for (int64_t j = 0; j < 5; j++) {
			want[j] = 0;
			for (int64_t i = 0; i < 6; i++)
				want[j] += get(&x3, i * 5 + j);
		}
		check_tensor(&st, want, eps * 6, "sum_to");
		fails("sum_to", at, &x3, 1, &y, 1, "the output");
		free(want);
		free_all(in, 2);
		free_all(&y, 1);
		free_all(&x3, 1);
		free_all(&st, 1);
		sym_attrs_free(at);
	}
	finish(ctx);
}

/* --- Scratch memory --------------------------------------------------- */

/* A call of a kernel that needs temporary memory: its inputs, its
 * output, the reference output of a call without scratch area, and its
 * attributes. */
struct scall {
	const char *op;
	struct sym__tensor in[2], out, want;
	int n_in;
	sym_attrs *at;
};

/* Make "c" a call of "op" on "n_in" random inputs of dims "d0" (rank
 * "r0") and "d1" (rank "r1"; labels in [0, "classes") when "classes" is
 * positive) into an output of dims "dy" (rank "ry"), attributes "at";
 * run it without scratch area into c->want. */
static void
scall_init(struct scall *c, uint64_t *s, const char *op, sym_attrs *at,
    int n_in, int r0, const int64_t *d0, int r1, const int64_t *d1,
    int64_t classes, int ry, const int64_t *dy)
{
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->at = at;
	c->n_in = n_in;
	c->in[0] = random_tensor(s, SYM_DT_F32, r0, d0, -1, 1);
	if (n_in == 2)
		c->in[1] = classes
		    ? random_tensor(s, SYM_DT_I32, r1, d1, 0,
		          (double)(classes - 1))
		    : random_tensor(s, SYM_DT_F32, r1, d1, -1, 1);
	c->out = tensor(SYM_DT_F32, ry, dy);
	c->want = tensor(SYM_DT_F32, ry, dy);
	run(op, at, c->in, n_in, &c->want, 1);
}

/* Run the call "c" with the scratch area "sc" and check that its output
 * equals the one computed without, bit for bit. */
static void
scall_run(struct scall *c, struct sym__kscratch *sc)
{
	struct sym__kernel_args a =
	    args(c->op, c->at, c->in, c->n_in, &c->out, 1);

	memset(c->out.data, 0, (size_t)numel(&c->out) * 4);
	a.scratch = sc;
	run_args(c->op, &a);
	if (memcmp(c->out.data, c->want.data, (size_t)numel(&c->out) * 4))
		fail_msg("%s: another result with a scratch area", c->op);
}

/* Free what "c" holds. */
static void
scall_clear(struct scall *c)
{
	free_all(c->in, c->n_in);
	sym__tensor_free(&c->out);
	sym__tensor_free(&c->want);
	sym_attrs_free(c->at);
}

/* The kernels that need temporary memory (conv2d by im2col, the loss,
 * softmax along inner columns and along axes that are not neighbours,
 * sums and means) give the same bits with a shared scratch area, whatever
 * it holds, as with their own; the area grows for the largest call and
 * then never again, and a larger call grows it once more. */
static void
test_scratch(void **state)
{
	static const int64_t x4[] = { 2, 3, 6, 6 }, w4[] = { 4, 3, 3, 3 },
	                     y4[] = { 2, 4, 4, 4 }, big4[] = { 4, 3, 9, 9 },
	                     ybig4[] = { 4, 4, 7, 7 }, l2[] = { 6, 5 },
	                     lab[] = { 6 }, m2[] = { 4, 6 }, m3[] = { 3, 4, 5 },
	                     r1[] = { 4 };
	static const int64_t ax02[] = { 0, 2 };
	sym_ctx *ctx = new_ctx();
	struct sym__kscratch sc = { 0 };
	struct scall c[7];
	sym_attrs *at[7];
	uint64_t s = 31337;
	size_t grows, cap;

	(void)state;
	for (int i = 0; i < 7; i++)
		at[i] = attrs(ctx);
	assert_int_equal(sym_attrs_set_int(at[2], "axis", 0), 0);
	set_ints(ctx, at[3], "axis", 2, ax02);
	assert_int_equal(sym_attrs_set_int(at[4], "axis", 1), 0);
	assert_int_equal(sym_attrs_set_int(at[5], "axis", 1), 0);
	scall_init(&c[0], &s, "conv2d", at[0], 2, 4, x4, 4, w4, 0, 4, y4);
	scall_init(&c[1], &s, "softmax_cross_entropy", at[1], 2, 2, l2, 1, lab,
	    5, 0, NULL);
	scall_init(&c[2], &s, "softmax", at[2], 1, 2, m2, 0, NULL, 0, 2, m2);
	scall_init(&c[3], &s, "log_softmax", at[3], 1, 3, m3, 0, NULL, 0, 3,
	    m3);
	scall_init(&c[4], &s, "reduce_sum", at[4], 1, 2, m2, 0, NULL, 0, 1, r1);
	scall_init(&c[5], &s, "reduce_mean", at[5], 1, 2, m2, 0, NULL, 0, 1,
	    r1);
	scall_init(&c[6], &s, "conv2d", at[6], 2, 4, big4, 4, w4, 0, 4, ybig4);
	for (int i = 0; i < 6; i++)
		scall_run(&c[i], &sc);
	grows = sc.grows;
	cap = sc.cap;
	assert_true(grows >= 1 && grows <= 6);
	/* im2col of conv2d is the largest: 27 rows of 16 pixels. */
	assert_true(cap >= 27 * 16 * 4);
	for (int pass = 0; pass < 3; pass++) {
		memset(sc.data, 0xff, sc.cap);
		for (int i = 5; i >= 0; i--)
			scall_run(&c[i], &sc);
	}
	assert_int_equal(sc.grows, grows);
	assert_int_equal(sc.cap, cap);
	scall_run(&c[6], &sc);
	assert_int_equal(sc.grows, grows + 1);
	assert_true(sc.cap >= 27 * 49 * 4);
	for (int i = 0; i < 7; i++)
		scall_run(&c[i], &sc);
	assert_int_equal(sc.grows, grows + 1);
	sym__kscratch_free(&sc);
	assert_null(sc.data);
	assert_int_equal(sc.cap, 0);
	for (int i = 0; i < 7; i++)
		scall_clear(&c[i]);
	finish(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tensor),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_call_checks),
		cmocka_unit_test(test_matmul),
		cmocka_unit_test(test_batch_matmul),
		cmocka_unit_test(test_unary),
		cmocka_unit_test(test_cast),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_bias_add),
		cmocka_unit_test(test_reshape_family),
		cmocka_unit_test(test_transpose),
		cmocka_unit_test(test_concat_split),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_narrow_ints),
		cmocka_unit_test(test_nan),
		cmocka_unit_test(test_softmax),
		cmocka_unit_test(test_layer_norm),
		cmocka_unit_test(test_gather),
		cmocka_unit_test(test_one_hot),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_conv2d),
		cmocka_unit_test(test_grad_helpers),
		cmocka_unit_test(test_scratch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
