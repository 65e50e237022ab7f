/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the gradient operators (the grad family, and the
 * gradients that live in the concat and conv families): each kernel
 * against a naive reference written here in double on small random
 * inputs (seeded), the reference itself derived from the forward
 * function (central differences) where that is cheap; and each
 * operator through the graph API on 8 threads, sharded as its sharding
 * rule lays it out (the layouts asserted), against one device.
 *
 * Error bounds, relative to max(1, |reference|): 2e-6 for f32 results
 * of libm functions and short sums, 1e-12 for f64 results; 2e-5 (f32)
 * and 1e-7 (f64) against central differences.
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

#include "testlib.h"

#define TOL_F32 2e-6
#define TOL_F64 1e-12
#define TOL_FD_F32 2e-5
#define TOL_FD_F64 1e-7

/* --- Tensors, attributes and kernel calls ------------------------------ */

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

/* Return a zeroed tensor of dtype "dt" with the "rank" dims "dim". */
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
	return t;
}

/* Return the number of elements of "t". */
static int64_t
numel(const struct sym__tensor *t)
{
	return sym__tensor_numel(t);
}

/* Return element "i" of "t" as a double. */
static double
get(const struct sym__tensor *t, int64_t i)
{
	if (t->dtype == SYM_DT_F64)
		return ((const double *)t->data)[i];
	if (sym_dtype_is_float(t->dtype))
		return ((const float *)t->data)[i];
	return ((const int32_t *)t->data)[i];
}

/* Set element "i" of "t" to "v" (converted to its storage). */
static void
set(struct sym__tensor *t, int64_t i, double v)
{
	if (t->dtype == SYM_DT_F64)
		((double *)t->data)[i] = v;
	else if (sym_dtype_is_float(t->dtype))
		((float *)t->data)[i] = (float)v;
	else
		((int32_t *)t->data)[i] = (int32_t)v;
}

/* Return a tensor of dtype "dt" and dims "dim" filled from "s": floats
 * uniform in ["lo", "hi"), integers in [lo, hi]. */
static struct sym__tensor
random_tensor(uint64_t *s, sym_dtype dt, int rank, const int64_t *dim,
    double lo, double hi)
{
	struct sym__tensor t = tensor(dt, rank, dim);

	for (int64_t i = 0; i < numel(&t); i++)
		set(&t, i,
		    sym_dtype_is_float(dt)
		        ? urand(s, lo, hi)
		        : (double)irand(s, (int64_t)lo, (int64_t)hi));
	return t;
}

/* Return the tolerance of dtype "dt": "f32" for f32, "f64" for f64. */
static double
tol(sym_dtype dt, double f32, double f64)
{
	return dt == SYM_DT_F64 ? f64 : f32;
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

/* Check that every element of "t" is "want[i]" within "eps". */
static void
check_tensor(const struct sym__tensor *t, const double *want, double eps,
    const char *what)
{
	for (int64_t i = 0; i < numel(t); i++)
		check_close(get(t, i), want[i], eps, what, i);
}

/* Return a new array of "n" zeroed doubles. */
static double *
doubles(int64_t n)
{
	double *p = calloc(n > 0 ? (size_t)n : 1, sizeof(*p));

	assert_non_null(p);
	return p;
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

/* Return the global dims of input "i" of "a" as a new shape of "ctx"
 * (internal reference). */
static sym_shape *
input_shape(sym_ctx *ctx, const struct sym__kernel_args *a, int i)
{
	const struct sym__tensor *t = &a->in[i];
	sym_expr *e[SYM__MAX_RANK] = { NULL };
	sym_shape *sh;

	for (int d = 0; d < t->rank; d++)
		e[d] = sym__const(ctx,
		    a->global_dim ? a->global_dim[i][d] : t->dim[d]);
	sh = sym__shape_new(ctx, t->dtype, (size_t)t->rank, e);
	for (int d = 0; d < t->rank; d++)
		sym__expr_unref(e[d]);
	return sh;
}

/* Decode the attributes "at" (of "ctx", may be NULL) of operator "name"
 * for the call "a" as the shape rule does for a graph node, into a new
 * structure "a" points to; fail the test when decoding fails. */
static void
decode(sym_ctx *ctx, const char *name, const sym_attrs *at,
    struct sym__kernel_args *a)
{
	sym_shape *sh[16] = { NULL };
	struct sym__opattrs *dec = calloc(1, sizeof(*dec));
	char *error = NULL;

	assert_non_null(dec);
	assert_true(a->n_in <= 16);
	for (int i = 0; i < a->n_in; i++)
		sh[i] = input_shape(ctx, a, i);
	if (sym__opattrs_decode(ctx, sym_op_find(name), at, (size_t)a->n_in, sh,
	        (size_t)a->n_out, dec, &error) != 0)
		fail_msg("%s: decoding fails: %s", name, error ? error : "?");
	a->at = dec;
	for (int i = 0; i < a->n_in; i++)
		sym__shape_unref(sh[i]);
}

/* Return the arguments of a call of "name" on "in" ("n_in") to "out"
 * ("n_out") with the attributes "at" of "ctx" decoded. */
static struct sym__kernel_args
args(sym_ctx *ctx, const char *name, const sym_attrs *at,
    const struct sym__tensor *in, int n_in, struct sym__tensor *out, int n_out)
{
	struct sym__kernel_args a;

	memset(&a, 0, sizeof(a));
	a.op = sym_op_find(name);
	assert_non_null(a.op);
	a.in = in;
	a.n_in = n_in;
	a.out = out;
	a.n_out = n_out;
	decode(ctx, name, at, &a);
	return a;
}

/* Run the kernel of "a" and check that it succeeds; release the decoded
 * attributes. */
static void
run_args(struct sym__kernel_args *a)
{
	struct sym__opattrs *dec = (struct sym__opattrs *)a->at;
	sym__kernel_fn f = sym__kernel(a->op);
	int r;

	assert_non_null(f);
	r = f(a);
	sym__opattrs_clear(dec);
	free(dec);
	a->at = NULL;
	if (r != 0)
		fail_msg("%s failed: %s", a->op->name,
		    a->error ? a->error : "?");
	assert_null(a->error);
}

/* Run "name" with "at" (of "ctx") on "in" ("n_in") into "out"
 * ("n_out") and check that it succeeds. */
static void
run(sym_ctx *ctx, const char *name, const sym_attrs *at,
    const struct sym__tensor *in, int n_in, struct sym__tensor *out, int n_out)
{
	struct sym__kernel_args a = args(ctx, name, at, in, n_in, out, n_out);

	run_args(&a);
}

/* Run "name" on "in" ("n_in") into "out" ("n_out") without attributes,
 * and check that it fails with a message containing "want". */
static void
fails(const char *name, const struct sym__tensor *in, int n_in,
    struct sym__tensor *out, int n_out, const struct sym__opattrs *at,
    const char *want)
{
	struct sym__kernel_args a;

	memset(&a, 0, sizeof(a));
	a.op = sym_op_find(name);
	a.in = in;
	a.n_in = n_in;
	a.out = out;
	a.n_out = n_out;
	a.at = at;
	assert_int_equal(sym__kernel(a.op)(&a), -1);
	assert_non_null(a.error);
	if (!strstr(a.error, want))
		fail_msg("%s: message \"%s\" lacks \"%s\"", name, a.error,
		    want);
	free(a.error);
}

/* Free the data of the "n" tensors "t". */
static void
free_all(struct sym__tensor *t, int n)
{
	for (int i = 0; i < n; i++)
		sym__tensor_free(&t[i]);
}

/* --- Sharded runs against one device ------------------------------------ */

/* Parse "text" (named "file") and shard it; return the graph (of
 * "ctx"), failing the test with its diagnostics on any error. */
static sym_graph *
shard_text(sym_ctx *ctx, const char *text, const char *file)
{
	sym_graph *g = sym_graph_parse(ctx, text, file);

	assert_non_null(g);
	if (sym_graph_n_errors(g) == 0 && sym_graph_shard(g, NULL) == 0 &&
	    sym_graph_n_errors(g) == 0)
		return g;
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		char *m = sym_diagnostic_format(g, sym_graph_diagnostic(g, i));

		printf("# %s\n", m ? m : "?");
		free(m);
	}
	fail_msg("%s: %zu errors", file, sym_graph_n_errors(g));
	return NULL;
}

/* Assert that "l" prints as "want". */
static void
assert_layout(const sym_layout *l, const char *want)
{
	char *s = sym_layout_to_str(l);

	assert_non_null(s);
	if (strcmp(s, want))
		fail_msg("layout %s, expected %s", s, want);
	free(s);
}

/* Assert that the node of "g" producing "name" takes its inputs laid out
 * as "ins" (NULL-ended) and produces its outputs as "outs" (NULL-ended,
 * partial sums included). */
static void
assert_node(const sym_graph *g, const char *name, const char *const *ins,
    const char *const *outs)
{
	sym_value *v = sym_graph_find_value(g, name);
	sym_node *n = v ? sym_value_producer(v) : NULL;
	size_t i;

	if (!n)
		fail_msg("no node produces %s", name);
	for (i = 0; ins[i]; i++)
		assert_layout(sym_node_input_layout(n, i), ins[i]);
	assert_int_equal(i, sym_node_n_inputs(n));
	for (i = 0; outs[i]; i++)
		assert_layout(sym_node_output_layout(n, i), outs[i]);
	assert_int_equal(i, sym_node_n_outputs(n));
}

/* Compile the sharded graph "g" twice (sharded and on one device), run
 * both on a threads communicator for each binding of the NULL-ended
 * "bindings" (seed 7) and check that they agree within the default
 * tolerance. */
static void
check_agrees(sym_ctx *ctx, sym_graph *g, const char *const *bindings)
{
	sym_plan *p = sym_plan_compile(g, 0);
	sym_plan *single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	sym_communicator *comm;

	if (!p || !single)
		fail_msg("compile: %s", sym_ctx_last_message(ctx));
	assert_int_equal(sym_plan_n_ranks(p), 8);
	comm = sym_comm_threads_new(ctx, 8);
	assert_non_null(comm);
	assert_int_equal(sym_comm_set_option(comm, SYM_COMM_OPT_TIMEOUT_MS,
	                     20000),
	    0);
	for (size_t k = 0; bindings[k]; k++) {
		sym_exec_options o = { .size = sizeof(o), .seed = 7 };
		sym_binding *b = sym_binding_new(ctx);
		sym_exec_report r;

		assert_non_null(b);
		if (sym_binding_parse(b, bindings[k], NULL) < 0)
			fail_msg("binding %s: %s", bindings[k],
			    sym_ctx_last_message(ctx));
		if (sym_exec_check(ctx, p, single, comm, b, &o, &r) != 0)
			fail_msg("%s: %s", bindings[k],
			    sym_ctx_last_message(ctx));
		sym_binding_free(b);
		if (r.n_mismatch != 0)
			fail_msg("%s: %lld mismatches, max |diff| %g at "
			         "%s[%lld]",
			    bindings[k], (long long)r.n_mismatch, r.max_abs,
			    r.worst ? sym_value_name(r.worst) : "?",
			    (long long)r.worst_index);
		printf("# %s: max |diff| %.3g\n", bindings[k], r.max_abs);
	}
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
}

/* --- The unary gradients ------------------------------------------------ */

/* Return the forward function "op" (0 gelu, 1 sigmoid, 2 tanh, 3 sqrt)
 * at "x", in double. */
static double
forward(int op, double x)
{
	switch (op) {
	case 0:
		return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
	case 1:
		return 1.0 / (1.0 + exp(-x));
	case 2:
		return tanh(x);
	default:
		return sqrt(x);
	}
}

/* gelu_grad, sigmoid_grad, tanh_grad and sqrt_grad in f32 and f64
 * against dy times the central difference of the forward function, the
 * second operand being x for gelu and the forward output for the
 * others; mismatched tensors are refused. */
static void
test_unary(void **state)
{
	static const char *const ops[] = { "gelu_grad", "sigmoid_grad",
		"tanh_grad", "sqrt_grad" };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 3;

	(void)state;
	for (int iter = 0; iter < 16; iter++) {
		int op = iter % 4, r = 1 + iter % 3;
		sym_dtype dt = iter / 4 % 2 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t dim[3] = { 3, 4, 5 };
		struct sym__tensor t[3];
		double *want, h = 1e-5;

		t[0] = random_tensor(&s, dt, r, dim, -2, 2);
		t[1] = random_tensor(&s, dt, r, dim, op == 3 ? 0.1 : -4, 4);
		t[2] = tensor(dt, r, dim);
		want = doubles(numel(&t[0]));
		for (int64_t i = 0; i < numel(&t[0]); i++) {
			double x = get(&t[1], i);

			want[i] = get(&t[0], i) *
			    (forward(op, x + h) - forward(op, x - h)) / (2 * h);
			if (op > 0)
				set(&t[1], i, forward(op, x));
		}
		run(ctx, ops[op], NULL, t, 2, &t[2], 1);
		check_tensor(&t[2], want, tol(dt, TOL_FD_F32, TOL_FD_F64),
		    ops[op]);
		free(want);
		free_all(t, 3);
	}
	{
		int64_t d2[2] = { 2, 3 }, d3[2] = { 3, 2 };
		struct sym__tensor t[3] = { tensor(SYM_DT_F32, 2, d2),
			tensor(SYM_DT_F32, 2, d3), tensor(SYM_DT_F32, 2, d2) };

		fails("tanh_grad", t, 2, &t[2], 1, NULL, "must have the same");
		fails("tanh_grad", t, 1, &t[2], 1, NULL, "1 input given");
		sym__tensor_free(&t[1]);
		t[1] = tensor(SYM_DT_I32, 2, d2);
		fails("sqrt_grad", t, 2, &t[2], 1, NULL, "is i32");
		free_all(t, 3);
	}
	tl_ctx_free(ctx);
}

/* The unary gradients sharded like their forward operators, (dp, mp)
 * on both operands and the gradient, agree with one device. */
static void
test_unary_sharded(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input dy : f32[b, 16]\n"
	    "input x : f32[b, 16]\n"
	    "g = gelu_grad(dy, x) shard ((2, 4), (2, 4))\n"
	    "s = sigmoid_grad(g, x) shard ((4, 2), (4, 2))\n"
	    "t = tanh_grad(s, x) shard ((8, 1), (8, 1))\n"
	    "q = sqrt_grad(t, x)\n"
	    "output q\n";
	static const char *const bindings[] = { "b=8", "b=24", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_text(ctx, text, "unary.sg");

	(void)state;
	assert_node(g, "g",
	    (const char *const[]){ "(d0, d1)", "(d0, d1)", NULL },
	    (const char *const[]){ "(d0, d1)", NULL });
	assert_node(g, "s",
	    (const char *const[]){ "(d0, d1)", "(d0, d1)", NULL },
	    (const char *const[]){ "(d0, d1)", NULL });
	assert_node(g, "t",
	    (const char *const[]){ "(d0, d1)", "(d0, d1)", NULL },
	    (const char *const[]){ "(d0, d1)", NULL });
	check_agrees(ctx, g, bindings);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* --- sce_grad ----------------------------------------------------------- */

/* sce_grad in f32 and f64 for the three reductions against (softmax -
 * onehot) times dloss computed here, the mean dividing by the
 * normalizer when given (a block of a larger batch) and by the local
 * batch otherwise; a label out of range and a dloss of the wrong rank
 * are refused. */
static void
test_sce_grad(void **state)
{
	static const char *const reds[] = { "mean", "sum", "none" };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 5;

	(void)state;
	for (int iter = 0; iter < 12; iter++) {
		int red = iter % 4 ? iter % 3 : 0, none = red == 2;
		sym_dtype dt = iter / 3 % 2 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t n = 2 + iter % 4, c = 3 + iter % 5, dx[2] = { n, c };
		int64_t norm = iter >= 6 && red == 0 ? 3 * n : 0;
		sym_attrs *at = attrs(ctx);
		struct sym__tensor t[4];
		struct sym__kernel_args a;
		double *want = doubles(n * c);

		t[0] = random_tensor(&s, dt, 2, dx, -3, 3);
		t[1] = random_tensor(&s, SYM_DT_I32, 1, dx, 0, (double)c - 1);
		t[2] = random_tensor(&s, dt, none, dx, -2, 2);
		t[3] = tensor(dt, 2, dx);
		if (iter % 4)
			sym_attrs_set_string(at, "reduction", reds[red]);
		for (int64_t i = 0; i < n; i++) {
			double m = -INFINITY, z = 0, g;

			g = get(&t[2], none ? i : 0);
			g /= red == 0 ? (double)(norm ? norm : n) : 1.0;
			for (int64_t j = 0; j < c; j++)
				m = fmax(m, get(&t[0], i * c + j));
			for (int64_t j = 0; j < c; j++)
				z += exp(get(&t[0], i * c + j) - m);
			for (int64_t j = 0; j < c; j++)
				want[i * c + j] =
				    (exp(get(&t[0], i * c + j) - m) / z -
				        (j == get(&t[1], i))) *
				    g;
		}
		a = args(ctx, "sce_grad", at, t, 3, &t[3], 1);
		a.normalizer = norm;
		run_args(&a);
		check_tensor(&t[3], want, tol(dt, TOL_F32, TOL_F64),
		    "sce_grad");
		if (iter == 1) {
			struct sym__opattrs dec;

			memset(&dec, 0, sizeof(dec));
			dec.loss.reduction = SYM__RED_SUM;
			set(&t[1], 0, (double)c);
			fails("sce_grad", t, 3, &t[3], 1, &dec,
			    "out of range [0,");
			dec.loss.reduction = SYM__RED_NONE;
			fails("sce_grad", t, 3, &t[3], 1, &dec,
			    "dloss must be [N]");
		}
		sym_attrs_free(at);
		free(want);
		free_all(t, 4);
	}
	tl_ctx_free(ctx);
}

/* sce_grad laid out like softmax_cross_entropy, the batch split 8 ways
 * (a mean over the global batch, a scalar dloss replicated; and
 * reduction "none", dloss split like the batch), agrees with one
 * device. */
static void
test_sce_grad_sharded(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input x : f32[b, 10]\n"
	    "input l : i32[b]\n"
	    "input dl : f32[]\n"
	    "input dn : f32[b]\n"
	    "g = sce_grad(x, l, dl) shard ((8, 1), (8,), ())\n"
	    "h = sce_grad(x, l, dn, reduction=\"none\") shard ((4, 1), (4,), "
	    "(4,))\n"
	    "s = add(g, h)\n"
	    "output s\n";
	static const char *const bindings[] = { "b=8", "b=40", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_text(ctx, text, "sce.sg");

	(void)state;
	assert_node(g, "g",
	    (const char *const[]){ "(batch, class)", "(batch)", "()", NULL },
	    (const char *const[]){ "(batch, class)", NULL });
	assert_node(g, "h",
	    (const char *const[]){
	        "(batch, class)", "(batch)", "(batch)", NULL },
	    (const char *const[]){ "(batch, class)", NULL });
	check_agrees(ctx, g, bindings);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* --- The reduce gradients ----------------------------------------------- */

/* reduce_sum_grad, reduce_mean_grad and reduce_max_grad in f32 and f64
 * over random axes (negative, several, all) with and without keep_dims,
 * against a broadcast computed here: the mean divided by the normalizer
 * when given, the max routed to the elements equal to the maximum (x
 * drawn from a few values, so that ties occur) and split equally among
 * them, a NaN maximum routed to the NaN elements. */
static void
test_reduce_grad(void **state)
{
	static const char *const ops[] = { "reduce_sum_grad",
		"reduce_mean_grad", "reduce_max_grad" };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 9;
	int ties = 0;

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		int r = 1 + iter % 4, op = iter % 3, keep = iter / 3 % 2,
		    ry = 0;
		sym_dtype dt = iter / 6 % 2 ? SYM_DT_F64 : SYM_DT_F32;
		unsigned char mark[4] = { 0 };
		int64_t dx[4], dy[4], ax[4], c[4], na = 0, norm = 0;
		sym_attrs *at = attrs(ctx);
		struct sym__tensor t[4];
		struct sym__kernel_args a;
		double *want, *mx, *cnt;

		for (int d = 0; d < r; d++) {
			dx[d] = irand(&s, 1, 4);
			if (irand(&s, 0, 1)) {
				mark[d] = 1;
				ax[na++] = irand(&s, 0, 1) ? d - r : d;
			}
		}
		if (na == 0 || iter % 7 == 0)
			for (int d = 0; d < r; d++)
				mark[d] = 1;
		for (int d = 0; d < r; d++)
			if (!mark[d] || keep)
				dy[ry++] = mark[d] ? 1 : dx[d];
		if (na > 0 && iter % 7 != 0)
			set_ints(ctx, at, "axis", (size_t)na, ax);
		sym_attrs_set_bool(at, "keep_dims", keep);
		t[0] = random_tensor(&s, dt, ry, dy, -2, 2);
		t[1] = random_tensor(&s, dt, r, dx, 0, 3);
		for (int64_t i = 0; i < numel(&t[1]); i++)
			set(&t[1], i, floor(get(&t[1], i)));
		if (op == 2 && iter % 5 == 2)
			set(&t[1], numel(&t[1]) - 1, NAN);
		want = doubles(numel(&t[1]));
		mx = doubles(numel(&t[0]));
		cnt = doubles(numel(&t[0]));
		for (int64_t j = 0; j < numel(&t[0]); j++)
			mx[j] = -INFINITY;
		for (int pass = 0; pass < 3; pass++)
			for (int64_t i = 0; i < numel(&t[1]); i++) {
				int64_t cy[4], j, k = 0;
				double v = get(&t[1], i);

				unravel(i, r, dx, c);
				for (int d = 0; d < r; d++)
					if (!mark[d] || keep)
						cy[k++] = mark[d] ? 0 : c[d];
				j = ravel(ry, dy, cy);
				if (pass == 0)
					mx[j] =
					    isnan(v) || v > mx[j] ? v : mx[j];
				else if (pass == 1)
					cnt[j] += v == mx[j] ||
					    (isnan(v) && isnan(mx[j]));
				else if (op < 2)
					want[i] = get(&t[0], j);
				else
					want[i] = v == mx[j] ||
					        (isnan(v) && isnan(mx[j]))
					    ? get(&t[0], j) / cnt[j]
					    : 0.0;
			}
		for (int64_t j = 0; j < numel(&t[0]); j++)
			ties += op == 2 && cnt[j] > 1;
		if (op == 1) {
			norm = iter % 2 ? 2 * numel(&t[1]) / numel(&t[0]) : 0;
			for (int64_t i = 0; i < numel(&t[1]); i++)
				want[i] /= (double)(norm
				        ? norm
				        : numel(&t[1]) / numel(&t[0]));
		}
		if (op == 2) {
			t[2] = tensor(dt, ry, dy);
			for (int64_t j = 0; j < numel(&t[0]); j++)
				set(&t[2], j, mx[j]);
		}
		t[3] = tensor(dt, r, dx);
		a = args(ctx, ops[op], at, t, op == 2 ? 3 : 2, &t[3], 1);
		a.normalizer = norm;
		run_args(&a);
		check_tensor(&t[3], want, tol(dt, TOL_F32, TOL_F64), ops[op]);
		if (op == 2)
			sym__tensor_free(&t[2]);
		sym__tensor_free(&t[0]);
		sym__tensor_free(&t[1]);
		sym__tensor_free(&t[3]);
		sym_attrs_free(at);
		free(want);
		free(mx);
		free(cnt);
	}
	assert_true(ties > 10);
	tl_ctx_free(ctx);
}

/* The reduce gradients laid out like their forward reductions: the
 * reduced dimension split (2 ways, the sum's and the mean's broadcast
 * being local, the mean dividing by the global count), and unsplit for
 * the max; they agree with one device. */
static void
test_reduce_grad_sharded(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input x : f32[b, 6, 8]\n"
	    "input dy : f32[b, 8]\n"
	    "input dk : f32[b, 1, 1]\n"
	    "gs = reduce_sum_grad(dy, x, axis=1) shard ((2, 2), (2, 2, 2))\n"
	    "gm = reduce_mean_grad(dk, x, axis=[1, 2], keep_dims=true) "
	    "shard ((4, 1, 1), (4, 2, 1))\n"
	    "y = reduce_max(x, axis=-2) shard ((4, 1, 2),)\n"
	    "gx = reduce_max_grad(dy, x, y, axis=-2) shard ((4, 2), (4, 1, "
	    "2), (4, 2))\n"
	    "a = add(gs, gm)\n"
	    "s = add(a, gx)\n"
	    "output s\n";
	static const char *const bindings[] = { "b=8", "b=24", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_text(ctx, text, "reduce.sg");

	(void)state;
	assert_node(g, "gs",
	    (const char *const[]){ "(d0, d2)", "(d0, d1, d2)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", NULL });
	assert_node(g, "gm",
	    (const char *const[]){ "(d0, None, None)", "(d0, d1, d2)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", NULL });
	assert_node(g, "gx",
	    (const char *const[]){
	        "(d0, d2)", "(d0, d1, d2)", "(d0, d2)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", NULL });
	check_agrees(ctx, g, bindings);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* --- softmax_grad, log_softmax_grad ------------------------------------- */

/* softmax_grad and log_softmax_grad in f32 and f64 over one axis (the
 * middle one, or the last: contiguous rows) or two (not neighbours)
 * against dy times the Jacobian computed here by central differences of
 * the forward softmax of x, y being its output. */
static void
test_softmax_grad(void **state)
{
	static const char *const ops[] = { "softmax_grad", "log_softmax_grad" };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 11;

	(void)state;
	for (int iter = 0; iter < 12; iter++) {
		int lg = iter % 2, two = iter / 2 % 3 == 1,
		    last = iter / 2 % 3 == 2;
		sym_dtype dt = iter / 6 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t dim[3] = { 2, 3, 4 }, ax[2] = { 0, -1 }, n = 24;
		unsigned char mark[3] = { two, !two && !last, two || last };
		sym_attrs *at = attrs(ctx);
		struct sym__tensor t[3];
		double x[24], y[24], yp[24], ym[24], *want = doubles(n);
		double h = 1e-5;

		if (two)
			set_ints(ctx, at, "axis", 2, ax);
		else
			sym_attrs_set_int(at, "axis", last ? -1 : 1);
		t[0] = random_tensor(&s, dt, 3, dim, -1, 1);
		t[1] = tensor(dt, 3, dim);
		t[2] = tensor(dt, 3, dim);
		for (int64_t i = 0; i < n; i++)
			x[i] = urand(&s, -2, 2);
		for (int64_t i = 0; i < n; i++) {
			int64_t ci[3], cj[3];
			double z = 0;

			unravel(i, 3, dim, ci);
			for (int64_t j = 0; j < n; j++) {
				int same = 1;

				unravel(j, 3, dim, cj);
				for (int d = 0; d < 3; d++)
					same &= mark[d] || ci[d] == cj[d];
				z += same ? exp(x[j]) : 0;
			}
			y[i] = lg ? x[i] - log(z) : exp(x[i]) / z;
			set(&t[1], i, y[i]);
		}
		/* want_k = sum_i dy_i d y_i / d x_k */
		for (int64_t k = 0; k < n; k++) {
			for (int sg = -1; sg <= 1; sg += 2) {
				double *o = sg > 0 ? yp : ym;

				x[k] += sg * h;
				for (int64_t i = 0; i < n; i++) {
					int64_t ci[3], cj[3];
					double z = 0;

					unravel(i, 3, dim, ci);
					for (int64_t j = 0; j < n; j++) {
						int same = 1;

						unravel(j, 3, dim, cj);
						for (int d = 0; d < 3; d++)
							same &= mark[d] ||
							    ci[d] == cj[d];
						z += same ? exp(x[j]) : 0;
					}
					o[i] =
					    lg ? x[i] - log(z) : exp(x[i]) / z;
				}
				x[k] -= sg * h;
			}
			for (int64_t i = 0; i < n; i++)
				want[k] +=
				    get(&t[0], i) * (yp[i] - ym[i]) / (2 * h);
		}
		run(ctx, ops[lg], at, t, 2, &t[2], 1);
		check_tensor(&t[2], want, tol(dt, TOL_FD_F32, TOL_FD_F64),
		    ops[lg]);
		sym_attrs_free(at);
		free(want);
		free_all(t, 3);
	}
	tl_ctx_free(ctx);
}

/* softmax_grad and log_softmax_grad in f32 over the last axis (whole
 * rows, the kernel's fast path) equal bit for bit the same over the
 * first axis of the transposed tensors (the general walk). */
static void
test_softmax_grad_rows(void **state)
{
	static const char *const ops[] = { "softmax_grad", "log_softmax_grad" };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 29;
	int64_t R = 6, L = 37, d_rows[2] = { 6, 37 }, d_cols[2] = { 37, 6 };

	(void)state;
	for (int lg = 0; lg < 2; lg++) {
		struct sym__tensor a[3], b[3];
		sym_attrs *at_a = attrs(ctx), *at_b = attrs(ctx);

		sym_attrs_set_int(at_a, "axis", -1);
		sym_attrs_set_int(at_b, "axis", 0);
		for (int k = 0; k < 3; k++) {
			a[k] = tensor(SYM_DT_F32, 2, d_rows);
			b[k] = tensor(SYM_DT_F32, 2, d_cols);
		}
		for (int64_t r = 0; r < R; r++)
			for (int64_t j = 0; j < L; j++) {
				double g = urand(&s, -1, 1),
				       y = urand(&s, 0, 1);

				if (lg)
					y = log(y);
				set(&a[0], r * L + j, g);
				set(&a[1], r * L + j, y);
				set(&b[0], j * R + r, g);
				set(&b[1], j * R + r, y);
			}
		run(ctx, ops[lg], at_a, a, 2, &a[2], 1);
		run(ctx, ops[lg], at_b, b, 2, &b[2], 1);
		for (int64_t r = 0; r < R; r++)
			for (int64_t j = 0; j < L; j++) {
				float u = ((const float *)a[2].data)[r * L + j];
				float v = ((const float *)b[2].data)[j * R + r];

				if (memcmp(&u, &v, sizeof(u)))
					fail_msg("%s [%lld, %lld]: %.9g, the "
					         "general walk %.9g",
					    ops[lg], (long long)r, (long long)j,
					    u, v);
			}
		sym_attrs_free(at_a);
		sym_attrs_free(at_b);
		free_all(a, 3);
		free_all(b, 3);
	}
	tl_ctx_free(ctx);
}

/* --- layer_norm_grad ---------------------------------------------------- */

/* Return sum(dy * layer_norm(x, gamma, beta)) in double for x of dims
 * "dim" (3), normalised from "bn" on, gamma and beta spanning the dims
 * from "bp" on ("p" elements), epsilon "eps". */
static double
ln_loss(const double *dy, const double *x, const double *gm, const double *bt,
    const int64_t *dim, int bn, int64_t p, double eps)
{
	int64_t m = 1, n = dim[0] * dim[1] * dim[2];
	double l = 0;

	for (int d = bn; d < 3; d++)
		m *= dim[d];
	for (int64_t r = 0; r < n / m; r++) {
		double mean = 0, var = 0;

		for (int64_t j = 0; j < m; j++)
			mean += x[r * m + j] / (double)m;
		for (int64_t j = 0; j < m; j++)
			var += (x[r * m + j] - mean) * (x[r * m + j] - mean) /
			    (double)m;
		for (int64_t j = 0; j < m; j++) {
			int64_t i = r * m + j;

			l += dy[i] *
			    ((x[i] - mean) / sqrt(var + eps) * gm[i % p] +
			        bt[i % p]);
		}
	}
	return l;
}

/* layer_norm_grad in f32 and f64 for begin_norm_axis and
 * begin_params_axis equal and different, against central differences of
 * sum(dy * layer_norm(x, gamma, beta)) with respect to x, gamma and
 * beta. */
static void
test_layer_norm_grad(void **state)
{
	static const int64_t axes[][2] = { { -1, -1 }, { 1, 1 }, { 1, 2 },
		{ 2, 1 } };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 13;

	(void)state;
	for (int iter = 0; iter < 8; iter++) {
		sym_dtype dt = iter / 4 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t dim[3] = { 2, 3, 4 }, n = 24, p = 1;
		int bn = (int)(axes[iter % 4][0] + 3) % 3;
		int bp = (int)(axes[iter % 4][1] + 3) % 3;
		sym_attrs *at = attrs(ctx);
		struct sym__tensor t[6];
		double dy[24], x[24], gm[24], bt[24], h = 1e-5;
		double *w[3] = { doubles(n), doubles(n), doubles(n) };

		for (int d = bp; d < 3; d++)
			p *= dim[d];
		sym_attrs_set_int(at, "begin_norm_axis", axes[iter % 4][0]);
		sym_attrs_set_int(at, "begin_params_axis", axes[iter % 4][1]);
		sym_attrs_set_float(at, "epsilon", 1e-3);
		t[0] = random_tensor(&s, dt, 3, dim, -1, 1);
		t[1] = random_tensor(&s, dt, 3, dim, -2, 2);
		t[2] = random_tensor(&s, dt, 3 - bp, dim + bp, 0.5, 1.5);
		for (int k = 3; k < 6; k++)
			t[k] = tensor(dt, k == 3 ? 3 : 3 - bp,
			    k == 3 ? dim : dim + bp);
		for (int64_t i = 0; i < n; i++) {
			dy[i] = get(&t[0], i);
			x[i] = get(&t[1], i);
			gm[i] = i < p ? get(&t[2], i) : 0;
			bt[i] = i < p ? urand(&s, -1, 1) : 0;
		}
		for (int v = 0; v < 3; v++) {
			double *q = v == 0 ? x : v == 1 ? gm : bt;

			for (int64_t k = 0; k < (v ? p : n); k++) {
				double lp, lm;

				q[k] += h;
				lp = ln_loss(dy, x, gm, bt, dim, bn, p, 1e-3);
				q[k] -= 2 * h;
				lm = ln_loss(dy, x, gm, bt, dim, bn, p, 1e-3);
				q[k] += h;
				w[v][k] = (lp - lm) / (2 * h);
			}
		}
		run(ctx, "layer_norm_grad", at, t, 3, &t[3], 3);
		check_tensor(&t[3], w[0], tol(dt, TOL_FD_F32, TOL_FD_F64),
		    "dx");
		check_tensor(&t[4], w[1], tol(dt, TOL_FD_F32, TOL_FD_F64),
		    "dgamma");
		check_tensor(&t[5], w[2], tol(dt, TOL_FD_F32, TOL_FD_F64),
		    "dbeta");
		sym_attrs_free(at);
		for (int v = 0; v < 3; v++)
			free(w[v]);
		free_all(t, 6);
	}
	tl_ctx_free(ctx);
}

/* softmax_grad, log_softmax_grad and layer_norm_grad laid out like their
 * forward operators (the softmax axis and the normalised dimension
 * unsplit), dgamma and dbeta holding partial sums over the axes that
 * split the dimensions they sum over; they agree with one device. */
static void
test_norm_grad_sharded(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input x : f32[b, 4, 16]\n"
	    "input dy : f32[b, 4, 16]\n"
	    "param gamma : f32[16]\n"
	    "y = softmax(x) shard ((8, 1, 1),)\n"
	    "gs = softmax_grad(dy, y) shard ((4, 2, 1), (4, 2, 1))\n"
	    "z = log_softmax(x, axis=1) shard ((8, 1, 1),)\n"
	    "gl = log_softmax_grad(dy, z, axis=1) shard ((2, 1, 4), (2, 1, "
	    "4))\n"
	    "dx, dg, db = layer_norm_grad(dy, x, gamma) shard ((2, 4, 1), "
	    "(2, 4, 1), (1,))\n"
	    "a = add(gs, gl)\n"
	    "s = add(a, dx)\n"
	    "t = add(dg, db)\n"
	    "output s\n"
	    "output t\n";
	static const char *const bindings[] = { "b=8", "b=16", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_text(ctx, text, "norm.sg");

	(void)state;
	assert_node(g, "gs",
	    (const char *const[]){ "(d0, d1, d2)", "(d0, d1, d2)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", NULL });
	assert_node(g, "gl",
	    (const char *const[]){ "(d0, d1, d2)", "(d0, d1, d2)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", NULL });
	assert_node(g, "dx",
	    (const char *const[]){
	        "(d0, d1, d2)", "(d0, d1, d2)", "(d2)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", "(d2) partial(d0, d1)",
	        "(d2) partial(d0, d1)", NULL });
	check_agrees(ctx, g, bindings);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* --- maximum_grad, minimum_grad ----------------------------------------- */

/* Return the forward maximum ("is_max") or minimum of "u" and "v" as the
 * kernel computes it: u where it wins or is NaN, else v. */
static double
extremum(int is_max, double u, double v)
{
	return (is_max ? u > v : u < v) || isnan(u) ? u : v;
}

/* maximum_grad and minimum_grad in f32 and f64, b broadcast against a
 * in several ways, operands drawn from a few integers (ties occur) with
 * some NaNs, against dy times the central difference of the forward
 * function with respect to each operand (step 0.25: exactly 1 or 0 off
 * a tie and 0.5 on one) and, where an operand is NaN, dy routed to the
 * operand the forward kernel returned; an operand that does not
 * broadcast to dy is refused. */
static void
test_extremum_grad(void **state)
{
	static const int64_t shapes[][3] = { { 2, 3, 4 }, { 1, 3, 1 },
		{ 3, 4, -1 }, { 1, 1, 1 }, { 1, -1, -1 }, { 2, 1, 4 } };
	static const int ranks[] = { 3, 3, 2, 3, 1, 3 };
	static const char *const ops[] = { "minimum_grad", "maximum_grad" };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 17;
	int ties = 0, nans = 0;

	(void)state;
	for (int iter = 0; iter < 24; iter++) {
		int is_max = iter % 2, k = iter / 2 % 6, swap = iter / 12;
		sym_dtype dt = iter / 4 % 2 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t dim[3] = { 2, 3, 4 }, n = 24, ca[3], cb[3], c[3];
		const int64_t *db = shapes[k];
		int rb = ranks[k];
		struct sym__tensor t[5];
		double *want[2] = { doubles(n), doubles(n) }, h = 0.25;

		t[0] = random_tensor(&s, dt, 3, dim, -1, 1);
		t[1 + swap] = random_tensor(&s, dt, 3, dim, -2, 2);
		t[2 - swap] = random_tensor(&s, dt, rb, db, -2, 2);
		for (int i = 1; i < 3; i++)
			for (int64_t j = 0; j < numel(&t[i]); j++)
				set(&t[i], j,
				    irand(&s, 0, 9) == 0
				        ? NAN
				        : floor(get(&t[i], j)));
		t[3] = tensor(dt, 3, dim);
		t[4] = tensor(dt, 3, dim);
		for (int64_t i = 0; i < n; i++) {
			const struct sym__tensor *ta = &t[1], *tb = &t[2];
			double g = get(&t[0], i), u, v;

			unravel(i, 3, dim, c);
			for (int d = 0; d < 3; d++) {
				int da = d - (3 - ta->rank),
				    dbb = d - (3 - tb->rank);

				ca[d] = da < 0 || ta->dim[da] == 1 ? 0 : c[d];
				cb[d] = dbb < 0 || tb->dim[dbb] == 1 ? 0 : c[d];
			}
			u = get(ta,
			    ravel(ta->rank, ta->dim, ca + 3 - ta->rank));
			v = get(tb,
			    ravel(tb->rank, tb->dim, cb + 3 - tb->rank));
			ties += u == v;
			nans += isnan(u) || isnan(v);
			if (isnan(u) || isnan(v)) {
				/* the forward returns u, or v NaN */
				want[0][i] = isnan(u) ? g : 0.0;
				want[1][i] = isnan(u) ? 0.0 : g;
				continue;
			}
			want[0][i] = g *
			    (extremum(is_max, u + h, v) -
			        extremum(is_max, u - h, v)) /
			    (2 * h);
			want[1][i] = g *
			    (extremum(is_max, u, v + h) -
			        extremum(is_max, u, v - h)) /
			    (2 * h);
		}
		run(ctx, ops[is_max], NULL, t, 3, &t[3], 2);
		check_tensor(&t[3], want[0], tol(dt, TOL_F32, TOL_F64), "da");
		check_tensor(&t[4], want[1], tol(dt, TOL_F32, TOL_F64), "db");
		free(want[0]);
		free(want[1]);
		free_all(t, 5);
	}
	assert_true(ties > 20);
	assert_true(nans > 10);
	{
		int64_t dim[2] = { 2, 3 }, bad[1] = { 2 };
		struct sym__tensor t[5] = { tensor(SYM_DT_F32, 2, dim),
			tensor(SYM_DT_F32, 2, dim), tensor(SYM_DT_F32, 1, bad),
			tensor(SYM_DT_F32, 2, dim),
			tensor(SYM_DT_F32, 2, dim) };

		fails("maximum_grad", t, 3, &t[3], 2, NULL,
		    "dim 0 of b is 2, neither 1 nor dy's 3");
		free_all(t, 5);
	}
	tl_ctx_free(ctx);
}

/* maximum_grad and minimum_grad laid out like their forward operators:
 * the operands split like the dimensions of dy they are aligned with, a
 * broadcast dimension unsplit, both gradients laid out like dy; ties
 * (between the zeros of two relus) included, they agree with one
 * device. */
static void
test_extremum_grad_sharded(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input dy : f32[b, 6, 8]\n"
	    "input x : f32[b, 6, 8]\n"
	    "input y : f32[6, 1]\n"
	    "input z : f32[8]\n"
	    "a = relu(x)\n"
	    "c = relu(y)\n"
	    "e = relu(z)\n"
	    "ga, gc = maximum_grad(dy, a, c) shard ((4, 2, 1), (4, 2, 1), "
	    "(2, 1))\n"
	    "ha, he = minimum_grad(dy, a, e) shard ((2, 1, 4), (2, 1, 4), "
	    "(4,))\n"
	    "s = add(ga, gc)\n"
	    "t = add(ha, he)\n"
	    "output s\n"
	    "output t\n";
	static const char *const bindings[] = { "b=8", "b=24", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_text(ctx, text, "extremum.sg");

	(void)state;
	assert_node(g, "ga",
	    (const char *const[]){
	        "(d0, d1, d2)", "(d0, d1, d2)", "(d1, None)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", "(d0, d1, d2)", NULL });
	assert_node(g, "ha",
	    (const char *const[]){
	        "(d0, d1, d2)", "(d0, d1, d2)", "(d2)", NULL },
	    (const char *const[]){ "(d0, d1, d2)", "(d0, d1, d2)", NULL });
	check_agrees(ctx, g, bindings);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* --- conv2d_input_grad, conv2d_weight_grad ------------------------------ */

/* One convolution of the conv tests: x [n, c, h, w], weight [o, c /
 * group, kh, kw], and the attributes. */
struct conv_case {
	int64_t x[4], w[4];
	int64_t stride[2], pad[4], dil[2], group;
};

/* Return the output extent of one spatial dimension of size "size" for
 * kernel "k", pads "pa" and "pb", dilation "d" and stride "st". */
static int64_t
conv_out(int64_t size, int64_t k, int64_t pa, int64_t pb, int64_t d, int64_t st)
{
	return (size + pa + pb - d * (k - 1) - 1) / st + 1;
}

/* Return sum(dy * conv2d(x, w)) in double for the case "cc", computed
 * naively from the definition of the convolution. */
static double
conv_loss(const struct conv_case *cc, const double *dy, const double *x,
    const double *w)
{
	int64_t ho = conv_out(cc->x[2], cc->w[2], cc->pad[0], cc->pad[1],
	    cc->dil[0], cc->stride[0]);
	int64_t wo = conv_out(cc->x[3], cc->w[3], cc->pad[2], cc->pad[3],
	    cc->dil[1], cc->stride[1]);
	int64_t cg = cc->w[1], per = cc->w[0] / cc->group;
	double l = 0;

	for (int64_t n = 0; n < cc->x[0]; n++)
		for (int64_t o = 0; o < cc->w[0]; o++)
			for (int64_t p = 0; p < ho * wo; p++) {
				double y = 0;

				for (int64_t c = 0; c < cg; c++)
					for (int64_t i = 0; i < cc->w[2]; i++)
						for (int64_t j = 0;
						     j < cc->w[3]; j++) {
							int64_t ih = p / wo *
							        cc->stride[0] +
							    i * cc->dil[0] -
							    cc->pad[0];
							int64_t iw = p % wo *
							        cc->stride[1] +
							    j * cc->dil[1] -
							    cc->pad[2];
							int64_t xc =
							    o / per * cg + c;

							if (ih < 0 ||
							    ih >= cc->x[2] ||
							    iw < 0 ||
							    iw >= cc->x[3])
								continue;
							y +=
							    w[((o * cg + c) *
							              cc->w[2] +
							          i) *
							            cc->w[3] +
							        j] *
							    x[((n * cc->x[1] +
							           xc) *
							              cc->x[2] +
							          ih) *
							            cc->x[3] +
							        iw];
						}
				l += dy[(n * cc->w[0] + o) * ho * wo + p] * y;
			}
	return l;
}

/* conv2d_input_grad and conv2d_weight_grad in f32 and f64 for strides,
 * asymmetric pads, dilations and groups, against central differences
 * of sum(dy * conv2d(x, w)) computed here from the definition (the
 * loss is linear in each, so the differences are exact but for
 * rounding); a dy of the wrong shape is refused. */
static void
test_conv_grad(void **state)
{
	static const struct conv_case cases[] = {
		{ { 2, 3, 5, 6 }, { 4, 3, 3, 3 }, { 1, 1 }, { 1, 1, 1, 1 },
		    { 1, 1 }, 1 },
		{ { 2, 4, 7, 6 }, { 6, 2, 3, 2 }, { 2, 1 }, { 1, 0, 2, 1 },
		    { 1, 2 }, 2 },
		{ { 1, 6, 6, 5 }, { 3, 2, 2, 3 }, { 1, 2 }, { 0, 1, 0, 2 },
		    { 2, 1 }, 3 },
		{ { 3, 2, 4, 4 }, { 2, 2, 1, 1 }, { 1, 1 }, { 0, 0, 0, 0 },
		    { 1, 1 }, 1 },
	};
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 19;

	(void)state;
	for (int iter = 0; iter < 8; iter++) {
		const struct conv_case *cc = &cases[iter % 4];
		sym_dtype dt = iter / 4 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t ho = conv_out(cc->x[2], cc->w[2], cc->pad[0],
		    cc->pad[1], cc->dil[0], cc->stride[0]);
		int64_t wo = conv_out(cc->x[3], cc->w[3], cc->pad[2],
		    cc->pad[3], cc->dil[1], cc->stride[1]);
		int64_t dyd[4] = { cc->x[0], cc->w[0], ho, wo };
		sym_attrs *at = attrs(ctx);
		struct sym__tensor t[5], in[3];
		double *dy, *x, *w, *wx, *ww, h = 0.5;
		int64_t nx, nw, ny;

		set_ints(ctx, at, "stride", 2, cc->stride);
		set_ints(ctx, at, "pad", 4, cc->pad);
		set_ints(ctx, at, "dilation", 2, cc->dil);
		sym_attrs_set_int(at, "group", cc->group);
		t[0] = random_tensor(&s, dt, 4, dyd, -1, 1);
		t[1] = random_tensor(&s, dt, 4, cc->x, -1, 1);
		t[2] = random_tensor(&s, dt, 4, cc->w, -1, 1);
		t[3] = tensor(dt, 4, cc->x);
		t[4] = tensor(dt, 4, cc->w);
		ny = numel(&t[0]);
		nx = numel(&t[1]);
		nw = numel(&t[2]);
		dy = doubles(ny);
		x = doubles(nx);
		w = doubles(nw);
		wx = doubles(nx);
		ww = doubles(nw);
		for (int64_t i = 0; i < ny; i++)
			dy[i] = get(&t[0], i);
		for (int64_t i = 0; i < nx; i++)
			x[i] = get(&t[1], i);
		for (int64_t i = 0; i < nw; i++)
			w[i] = get(&t[2], i);
		for (int64_t i = 0; i < nx + nw; i++) {
			double *q = i < nx ? &x[i] : &w[i - nx], lp, lm;

			*q += h;
			lp = conv_loss(cc, dy, x, w);
			*q -= 2 * h;
			lm = conv_loss(cc, dy, x, w);
			*q += h;
			(i < nx ? wx : ww)[i < nx ? i : i - nx] =
			    (lp - lm) / (2 * h);
		}
		in[0] = t[0];
		in[1] = t[2];
		in[2] = t[1];
		run(ctx, "conv2d_input_grad", at, in, 3, &t[3], 1);
		check_tensor(&t[3], wx, tol(dt, TOL_FD_F32, TOL_FD_F64), "dx");
		in[1] = t[1];
		in[2] = t[2];
		run(ctx, "conv2d_weight_grad", at, in, 3, &t[4], 1);
		check_tensor(&t[4], ww, tol(dt, TOL_FD_F32, TOL_FD_F64), "dw");
		if (iter == 0) {
			struct sym__kernel_args a = args(ctx,
			    "conv2d_weight_grad", at, in, 3, &t[4], 1);
			struct sym__opattrs *dec = (struct sym__opattrs *)a.at;

			in[0] = t[1];
			fails("conv2d_weight_grad", in, 3, &t[4], 1, a.at,
			    "dy must be [2, 4, 5, 6]");
			sym__opattrs_clear(dec);
			free(dec);
		}
		sym_attrs_free(at);
		free(dy);
		free(x);
		free(w);
		free(wx);
		free(ww);
		free_all(t, 5);
	}
	tl_ctx_free(ctx);
}

/* conv2d_input_grad and conv2d_weight_grad laid out as the gradients of
 * conv2d: the batch, the input channels and the output channels split
 * (dx partial over the axes of O, dw over those of N), and with group 3
 * the output channels split into blocks that straddle groups; they
 * agree with one device. */
static void
test_conv_grad_sharded(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input x : f32[b, 6, 8, 8]\n"
	    "input w : f32[6, 6, 3, 3]\n"
	    "input wg : f32[6, 2, 3, 3]\n"
	    "input dy : f32[b, 6, 8, 8]\n"
	    "dx = conv2d_input_grad(dy, w, x, pad=1) shard ((2, 2, 1, 1), "
	    "(2, 2, 1, 1), (2, 2, 1, 1))\n"
	    "dw = conv2d_weight_grad(dy, x, w, pad=1) shard ((4, 2, 1, 1), "
	    "(4, 1, 1, 1), (2, 1, 1, 1))\n"
	    "dxg = conv2d_input_grad(dy, wg, x, pad=1, group=3) shard ((4, "
	    "2, 1, 1), (2, 1, 1, 1), (4, 1, 1, 1))\n"
	    "dwg = conv2d_weight_grad(dy, x, wg, pad=1, group=3) shard ((2, "
	    "2, 1, 1), (2, 1, 1, 1), (2, 1, 1, 1))\n"
	    "s = add(dx, dxg)\n"
	    "output s\n"
	    "output dw\n"
	    "output dwg\n";
	static const char *const bindings[] = { "b=8", "b=16", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_text(ctx, text, "conv.sg");

	(void)state;
	assert_node(g, "dx",
	    (const char *const[]){ "(n, o, None, None)", "(o, c, None, None)",
	        "(n, c, h, w)", NULL },
	    (const char *const[]){ "(n, c, h, w) partial(o)", NULL });
	assert_node(g, "dw",
	    (const char *const[]){ "(n, o, None, None)", "(n, c, h, w)",
	        "(o, c, None, None)", NULL },
	    (const char *const[]){ "(o, c, None, None) partial(n)", NULL });
	assert_node(g, "dxg",
	    (const char *const[]){ "(n, o, None, None)", "(o, c, None, None)",
	        "(n, c, h, w)", NULL },
	    (const char *const[]){ "(n, c, h, w) partial(o)", NULL });
	assert_node(g, "dwg",
	    (const char *const[]){ "(n, o, None, None)", "(n, c, h, w)",
	        "(o, c, None, None)", NULL },
	    (const char *const[]){ "(o, c, None, None) partial(n)", NULL });
	check_agrees(ctx, g, bindings);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* --- gather_grad, embedding_grad --------------------------------------- */

/* Return sum(dy * gather(p, idx, axis "ax")) in double, p of the "rp"
 * dims "pd", the "ni" indices "idx". */
static double
gather_loss(const double *dy, const double *p, int rp, const int64_t *pd,
    int ax, const int32_t *idx, int64_t ni)
{
	int64_t outer = 1, inner = 1;
	double l = 0;

	for (int d = 0; d < ax; d++)
		outer *= pd[d];
	for (int d = ax + 1; d < rp; d++)
		inner *= pd[d];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < ni; j++)
			for (int64_t i = 0; i < inner; i++)
				l += dy[(o * ni + j) * inner + i] *
				    p[(o * pd[ax] + idx[j]) * inner + i];
	return l;
}

/* gather_grad along every axis (given negative too) and embedding_grad
 * in f32 and f64, with repeated indices, against central differences
 * of sum(dy * gather(params, indices)); the same on a block of rows of
 * the table (args offset and global dims: only the block's rows are
 * added); an index out of range is refused. */
static void
test_gather_grad(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 23;

	(void)state;
	for (int iter = 0; iter < 16; iter++) {
		int emb = iter % 4 == 3, ax = emb ? 0 : iter % 3;
		int blk = iter / 4 % 2;
		sym_dtype dt = iter / 8 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t pd[3] = { 3, 5, 4 }, id[2] = { 2, 3 }, yd[4];
		int rp = emb ? 2 : 3, ry = 0;
		sym_attrs *at = attrs(ctx);
		struct sym__tensor t[4];
		struct sym__kernel_args a;
		int64_t off[3][SYM__MAX_RANK] = { { 0 } };
		int64_t glob[3][SYM__MAX_RANK] = { { 0 } };
		int64_t lo = 0, nb, np;
		double *dy, *p, *want, h = 0.5;

		if (emb) {
			pd[0] = 6;
			pd[1] = 4;
		}
		for (int d = 0; d < rp; d++)
			if (d == ax)
				for (int k = 0; k < 2; k++)
					yd[ry++] = id[k];
			else
				yd[ry++] = pd[d];
		if (!emb)
			sym_attrs_set_int(at, "axis", iter % 2 ? ax - rp : ax);
		t[0] = random_tensor(&s, dt, ry, yd, -1, 1);
		t[1] = random_tensor(&s, SYM_DT_I32, 2, id, 0, pd[ax] - 1);
		set(&t[1], 5, get(&t[1], 0));
		t[2] = random_tensor(&s, dt, rp, pd, -1, 1);
		np = numel(&t[2]);
		dy = doubles(numel(&t[0]));
		p = doubles(np);
		want = doubles(np);
		for (int64_t i = 0; i < numel(&t[0]); i++)
			dy[i] = get(&t[0], i);
		for (int64_t i = 0; i < np; i++) {
			double lp, lm;

			p[i] += h;
			lp = gather_loss(dy, p, rp, pd, ax, t[1].data, 6);
			p[i] -= 2 * h;
			lm = gather_loss(dy, p, rp, pd, ax, t[1].data, 6);
			p[i] += h;
			want[i] = (lp - lm) / (2 * h);
		}
		if (blk) {
			/* the local block: rows [lo, lo + nb) of the axis */
			int64_t bd[3] = { pd[0], pd[1], pd[2] }, inner = 1,
			        outer = 1;
			double *w2;

			lo = 1;
			nb = pd[ax] - 2;
			bd[ax] = nb;
			for (int d = 0; d < ax; d++)
				outer *= pd[d];
			for (int d = ax + 1; d < rp; d++)
				inner *= pd[d];
			w2 = doubles(outer * nb * inner);
			for (int64_t o = 0; o < outer; o++)
				for (int64_t r = 0; r < nb; r++)
					for (int64_t i = 0; i < inner; i++)
						w2[(o * nb + r) * inner + i] =
						    want[(o * pd[ax] + lo + r) *
						            inner +
						        i];
			free(want);
			want = w2;
			sym__tensor_free(&t[2]);
			t[2] = random_tensor(&s, dt, rp, bd, -1, 1);
			for (int d = 0; d < rp; d++)
				glob[2][d] = pd[d];
			off[2][ax] = lo;
		}
		t[3] = tensor(dt, rp, t[2].dim);
		a = args(ctx, emb ? "embedding_grad" : "gather_grad", at, t, 3,
		    &t[3], 1);
		if (blk) {
			a.offset = (const int64_t(*)[SYM__MAX_RANK])off;
			a.global_dim = (const int64_t(*)[SYM__MAX_RANK])glob;
		}
		run_args(&a);
		check_tensor(&t[3], want, tol(dt, TOL_FD_F32, TOL_FD_F64),
		    emb ? "embedding_grad" : "gather_grad");
		if (iter == 3) {
			set(&t[1], 2, (double)pd[0]);
			fails("embedding_grad", t, 3, &t[3], 1, NULL,
			    "index 6 (element 2) is out of range [0, 6)");
		}
		sym_attrs_free(at);
		free(dy);
		free(p);
		free(want);
		free_all(t, 4);
	}
	tl_ctx_free(ctx);
}

/* gather_grad and embedding_grad laid out like their forward operators
 * (the table replicated or split on other dimensions, the indices
 * split: partial sums over their axes) and with the gathered dimension
 * of the table split (each rank adds the rows of its block), repeated
 * indices included; they agree with one device. */
static void
test_gather_grad_sharded(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=8\n"
	    "input p : f32[4, 12, 8]\n"
	    "input ix : i32[b, 6]\n"
	    "input dy : f32[4, b, 6, 8]\n"
	    "input tab : f32[20, 8]\n"
	    "input ids : i32[b, 5]\n"
	    "input de : f32[b, 5, 8]\n"
	    "gp = gather_grad(dy, ix, p, axis=1) shard ((2, 2, 1, 2), (2, "
	    "1), (2, 1, 2))\n"
	    "gs = gather_grad(dy, ix, p, axis=1) shard ((1, 4, 1, 1), (4, "
	    "1), (1, 2, 1))\n"
	    "eg = embedding_grad(de, ids, tab) shard ((4, 1, 2), (4, 1), "
	    "(1, 2))\n"
	    "ev = embedding_grad(de, ids, tab) shard ((2, 1, 1), (2, 1), "
	    "(4, 1))\n"
	    "g = add(gp, gs)\n"
	    "e = add(eg, ev)\n"
	    "output g\n"
	    "output e\n";
	static const char *const bindings[] = { "b=8", "b=16", NULL };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = shard_text(ctx, text, "gather.sg");

	(void)state;
	assert_node(g, "gp",
	    (const char *const[]){
	        "(p0, i0, i1, p2)", "(i0, i1)", "(p0, p1, p2)", NULL },
	    (const char *const[]){ "(p0, p1, p2) partial(i0)", NULL });
	assert_node(g, "gs",
	    (const char *const[]){
	        "(p0, i0, i1, p2)", "(i0, i1)", "(p0, p1, p2)", NULL },
	    (const char *const[]){ "(p0, p1, p2) partial(i0)", NULL });
	assert_node(g, "eg",
	    (const char *const[]){
	        "(i0, i1, embed)", "(i0, i1)", "(vocab, embed)", NULL },
	    (const char *const[]){ "(vocab, embed) partial(i0)", NULL });
	assert_node(g, "ev",
	    (const char *const[]){
	        "(i0, i1, embed)", "(i0, i1)", "(vocab, embed)", NULL },
	    (const char *const[]){ "(vocab, embed) partial(i0)", NULL });
	check_agrees(ctx, g, bindings);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unary),
		cmocka_unit_test(test_unary_sharded),
		cmocka_unit_test(test_sce_grad),
		cmocka_unit_test(test_sce_grad_sharded),
		cmocka_unit_test(test_reduce_grad),
		cmocka_unit_test(test_reduce_grad_sharded),
		cmocka_unit_test(test_softmax_grad),
		cmocka_unit_test(test_softmax_grad_rows),
		cmocka_unit_test(test_layer_norm_grad),
		cmocka_unit_test(test_norm_grad_sharded),
		cmocka_unit_test(test_extremum_grad),
		cmocka_unit_test(test_extremum_grad_sharded),
		cmocka_unit_test(test_conv_grad),
		cmocka_unit_test(test_conv_grad_sharded),
		cmocka_unit_test(test_gather_grad),
		cmocka_unit_test(test_gather_grad_sharded),
	};

	return cmocka_run_group_tests_name("gradops", tests, NULL, NULL);
}
