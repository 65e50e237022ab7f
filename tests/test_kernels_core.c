/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: the kernels' tensors (allocation,
 * element sizes, counts and overflow), the registry of kernels, the checks
 * every call makes of its tensors, the helpers of the gradient kernels and the
 * kernels' scratch memory. Each kernel is compared with a reference written in
 * double on small random inputs (seeded, so runs repeat), and every check it
 * makes of its tensors is reached by a mismatched call that must fail with -1
 * and its message (kerntest.h).
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

/* --- Tensors and the registry ---------------------------------------- */

/* Allocation: alignment, element sizes, counts, and the rejection of
 * invalid dims and sizes that overflow. */
static void
test_tensor(void **state)
{
	int64_t d3[] = { 2, 3, 5 }, big[] = { INT64_MAX / 2, 4 };
	int64_t neg[] = { 2, -1 }, huge[] = { (int64_t)1 << 62, 2 };
	int64_t zero[] = { 0, (int64_t)1 << 40 };
	struct sym__tensor t = kt_tensor(SYM_DT_F32, 3, d3), u;

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
	assert_true(sym_registry_n_ops() >= 39);
	for (size_t i = 0; i < sym_registry_n_ops(); i++)
		if (!sym__kernel(sym_registry_op(i)))
			fail_msg("operator %s has no kernel",
			    sym_op_name(sym_registry_op(i)));
	assert_null(sym__kernel(NULL));
}

/* Operators that share a kernel (softmax and log_softmax, the pools and
 * their gradients, ...) are told apart by the call's operator: each
 * fails under its own name. */
static void
test_shared_kernels(void **state)
{
	static const char *const names[] = { "softmax", "log_softmax",
		"max_pool2d", "avg_pool2d", "tril", "triu", "transpose",
		"permute", "argmax", "argmin", "ones", "zeros" };
	int64_t d[] = { 2, 3 };
	struct sym__tensor x = kt_tensor(SYM_DT_F32, 2, d),
	                   y = kt_tensor(SYM_DT_F32, 2, d);
	char want[64];

	(void)state;
	assert_true(kt_kernel("softmax") == kt_kernel("log_softmax"));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(want, sizeof(want), "%s: 2 inputs given", names[i]);
		kt_fails(names[i], NULL, (const struct sym__tensor[]){ x, x },
		    2, &y, 1, want);
	}
	kt_free_all(&x, 1);
	kt_free_all(&y, 1);
}

/* The checks every kernel makes on its call: numbers of tensors, data,
 * dtypes, ranks; a message replaces the previous one. */
static void
test_call_checks(void **state)
{
	int64_t d[] = { 2, 3 };
	struct sym__tensor x = kt_tensor(SYM_DT_F32, 2, d),
	                   y = kt_tensor(SYM_DT_F32, 2, d), bad;
	struct sym__kernel_args a = kt_args("relu", NULL, &x, 1, &y, 1);

	(void)state;
	kt_fails("relu", NULL, &x, 0, &y, 1, "0 inputs given, 1 to 1 expected");
	kt_fails("relu", NULL, &x, 1, &y, 0, "0 outputs given");
	kt_fails("add", NULL, &x, 1, &y, 1, "1 input given");
	a.in = NULL;
	kt_fail_args("relu", &a, "1 input given");
	bad = x;
	bad.data = NULL;
	kt_fails("relu", NULL, &bad, 1, &y, 1, "input 0 has no data");
	bad = x;
	bad.rank = 9;
	kt_fails("relu", NULL, &bad, 1, &y, 1, "input 0 has rank 9");
	bad = x;
	bad.dtype = SYM_DT_INVALID;
	kt_fails("relu", NULL, &bad, 1, &y, 1, "invalid dtype");
	bad = y;
	bad.dim[1] = -3;
	kt_fails("relu", NULL, &x, 1, &bad, 1, "output 0 has a negative");
	bad.dim[0] = INT64_MAX / 2;
	bad.dim[1] = 3;
	kt_fails("relu", NULL, &x, 1, &bad, 1, "too many elements");
	a = kt_args("relu", NULL, &x, 1, &y, 1);
	a.error = strdup("stale");
	a.n_out = 2;
	kt_fail_args("relu", &a, "2 outputs given");
	kt_free_all(&x, 1);
	kt_free_all(&y, 1);
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
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 77;

	(void)state;
	for (int k = 0; k < 2; k++) {
		int64_t d[] = { 3, 5 }, d3[] = { 2, 3, 5 }, dt1[] = { 1, 5 };
		struct sym__tensor in[2], y = kt_tensor(dts[k], 2, d);
		struct sym__tensor x3, st = kt_tensor(dts[k], 2, dt1);
		double eps = k ? TOL_F64 : TOL_F32, *want = kt_doubles(15);
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_random_tensor(&s, dts[k], 2, d, -1, 1);
		in[1] = kt_random_tensor(&s, dts[k], 2, d, -1, 1);
		if (k)
			((double *)in[1].data)[3] = NAN;
		else
			((float *)in[1].data)[3] = NAN;
		kt_run("relu_grad", NULL, in, 2, &y, 1);
		for (int64_t i = 0; i < 15; i++)
			want[i] = kt_get(&in[1], i) > 0 ? kt_get(&in[0], i) : 0;
		kt_check_tensor(&y, want, 0.0, "relu_grad");
		sym_attrs_set_float(at, "value", 2.5);
		kt_run("fill_like", at, in, 1, &y, 1);
		for (int64_t i = 0; i < 15; i++)
			want[i] = 2.5;
		kt_check_tensor(&y, want, 0.0, "fill_like");
		x3 = kt_random_tensor(&s, dts[k], 3, d3, -1, 1);
		sym_attrs_free(at);
		at = kt_attrs(ctx);
		kt_set_ints(ctx, at, "shape", 2, dt1);
		kt_run("sum_to", at, &x3, 1, &st, 1);
		for (int64_t j = 0; j < 5; j++) {
			want[j] = 0;
			for (int64_t i = 0; i < 6; i++)
				want[j] += kt_get(&x3, i * 5 + j);
		}
		kt_check_tensor(&st, want, eps * 6, "sum_to");
		kt_fails("sum_to", at, &x3, 1, &y, 1, "the output");
		free(want);
		kt_free_all(in, 2);
		kt_free_all(&y, 1);
		kt_free_all(&x3, 1);
		kt_free_all(&st, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
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
	c->in[0] = kt_random_tensor(s, SYM_DT_F32, r0, d0, -1, 1);
	if (n_in == 2)
		c->in[1] = classes
		    ? kt_random_tensor(s, SYM_DT_I32, r1, d1, 0,
		          (double)(classes - 1))
		    : kt_random_tensor(s, SYM_DT_F32, r1, d1, -1, 1);
	c->out = kt_tensor(SYM_DT_F32, ry, dy);
	c->want = kt_tensor(SYM_DT_F32, ry, dy);
	kt_run(op, at, c->in, n_in, &c->want, 1);
}

/* Run the call "c" with the scratch area "sc" and check that its output
 * equals the one computed without, bit for bit. */
static void
scall_run(struct scall *c, struct sym__kscratch *sc)
{
	struct sym__kernel_args a =
	    kt_args(c->op, c->at, c->in, c->n_in, &c->out, 1);

	memset(c->out.data, 0, (size_t)kt_numel(&c->out) * 4);
	a.scratch = sc;
	kt_run_args(c->op, &a);
	if (memcmp(c->out.data, c->want.data, (size_t)kt_numel(&c->out) * 4))
		fail_msg("%s: another result with a scratch area", c->op);
}

/* Check that the bytes sym__kernel_scratch gives for the call "c" hold
 * what its kernel takes: a fresh area grown to them first (none when 0)
 * is not grown by the call, which gives the same bits. Return them. */
static size_t
scall_sized(struct scall *c)
{
	struct sym__kernel_args a =
	    kt_args(c->op, c->at, c->in, c->n_in, &c->out, 1);
	struct sym__kscratch sc = { 0 };
	size_t need;

	a.op = sym_op_find(c->op);
	need = sym__kernel_scratch(&a);
	if (need)
		assert_int_equal(sym__kbuf_grow(&sc.data, &sc.cap, &sc.grows,
		                     need),
		    1);
	scall_run(c, &sc);
	if (sc.grows != (need ? 1u : 0u))
		fail_msg("%s: sized %zu bytes, the call grew its area to %zu",
		    c->op, need, sc.cap);
	sym__kscratch_free(&sc);
	kt_release(&a);
	return need;
}

/* Free what "c" holds. */
static void
scall_clear(struct scall *c)
{
	kt_free_all(c->in, c->n_in);
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
	sym_ctx *ctx = tl_ctx_new();
	struct sym__kscratch sc = { 0 };
	struct scall c[7];
	sym_attrs *at[7];
	uint64_t s = 31337;
	size_t grows, cap;

	(void)state;
	for (int i = 0; i < 7; i++)
		at[i] = kt_attrs(ctx);
	assert_int_equal(sym_attrs_set_int(at[2], "axis", 0), 0);
	kt_set_ints(ctx, at[3], "axis", 2, ax02);
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
	/* Sized before the call (what the executor does when it prepares
	 * a binding): never grown by it; the loss takes none, the others
	 * some. */
	for (int i = 0; i < 7; i++)
		assert_true((scall_sized(&c[i]) == 0) == (i == 1));
	sym__kscratch_free(&sc);
	assert_null(sc.data);
	assert_int_equal(sc.cap, 0);
	for (int i = 0; i < 7; i++)
		scall_clear(&c[i]);
	tl_ctx_free(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tensor),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_shared_kernels),
		cmocka_unit_test(test_call_checks),
		cmocka_unit_test(test_grad_helpers),
		cmocka_unit_test(test_scratch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
