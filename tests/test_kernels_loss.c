/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: the softmax cross entropy loss.
 * Each kernel is compared with a reference written in double on small random
 * inputs (seeded, so runs repeat), and every check it makes of its tensors is
 * reached by a mismatched call that must fail with -1 and its message
 * (kerntest.h).
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
#include "sce_count_expect.h"
#include "sce_vocab_expect.h"
#include "testlib.h"

/* --- loss ------------------------------------------------------------- */

/* softmax_cross_entropy with reductions none / sum / mean, and a batch
 * split in blocks whose partial means (normalizer: the global batch) add
 * up to the whole mean; bad labels and shapes. */
static void
test_loss(void **state)
{
	static const char *const reds[] = { "mean", "sum", "none", NULL };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 21;

	(void)state;
	for (int iter = 0; iter < 32; iter++) {
		const char *red = reds[iter % 4];
		int none = red && !strcmp(red, "none"),
		    blocks = 1 + iter / 4 % 2 * 3;
		int64_t nb = kt_irand(&s, 1, 5), n = nb * blocks,
		        c = kt_irand(&s, 1, 9);
		int64_t dx[] = { n, c }, dl[] = { n }, bx[] = { nb, c },
		        bl[] = { nb };
		sym_dtype dt = iter % 8 >= 4 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor x = kt_random_tensor(&s, dt, 2, dx, -10, 10);
		struct sym__tensor l =
		    kt_random_tensor(&s, SYM_DT_I32, 1, dl, 0, (double)c - 1);
		sym_attrs *at = kt_attrs(ctx);
		double *loss = kt_doubles(n), total = 0.0, got = 0.0;

		if (red)
			sym_attrs_set_string(at, "reduction", red);
		kt_set(&x, 0, 80.0);
		for (int64_t i = 0; i < n; i++) {
			double m = -INFINITY, z = 0.0;

			for (int64_t j = 0; j < c; j++)
				m = fmax(m, kt_get(&x, i * c + j));
			for (int64_t j = 0; j < c; j++)
				z += exp(kt_get(&x, i * c + j) - m);
			loss[i] = log(z) + m -
			    kt_get(&x, i * c + (int64_t)kt_get(&l, i));
			total += loss[i];
		}
		if (!red || !strcmp(red, "mean"))
			total /= (double)n;
		for (int b = 0; b < blocks; b++) {
			struct sym__tensor in[2], y;
			struct sym__kernel_args a;

			in[0] = kt_tensor(dt, 2, bx);
			in[1] = kt_tensor(SYM_DT_I32, 1, bl);
			for (int64_t i = 0; i < nb * c; i++)
				kt_set(&in[0], i, kt_get(&x, b * nb * c + i));
			for (int64_t i = 0; i < nb; i++)
				kt_set(&in[1], i, kt_get(&l, b * nb + i));
			y = kt_tensor(dt, none, bl);
			a = kt_args("softmax_cross_entropy", at, in, 2, &y, 1);
			if (blocks > 1)
				a.normalizer = n;
			kt_run_args("softmax_cross_entropy", &a);
			if (none)
				kt_check_tensor(&y, loss + b * nb,
				    kt_tol(dt, TOL_F32_FN * 4), "loss none");
			else
				got += kt_get(&y, 0);
			kt_free_all(in, 2);
			kt_free_all(&y, 1);
		}
		if (!none)
			kt_check_close(got, total, kt_tol(dt, TOL_F32_FN * 4),
			    "loss", 0);
		free(loss);
		kt_free_all(&x, 1);
		kt_free_all(&l, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 }, dl[] = { 2 }, d3[] = { 3 };
		struct sym__tensor in[2], y = kt_tensor(SYM_DT_F32, 0, NULL);
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_tensor(SYM_DT_F32, 2, dx);
		in[1] = kt_tensor(SYM_DT_I32, 1, dl);
		((int32_t *)in[1].data)[1] = 3;
		kt_fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "label 3 of row 1 is out of range [0, 3)");
		((int32_t *)in[1].data)[1] = -1;
		kt_fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "label -1 of row 1");
		sym_attrs_set_string(at, "reduction", "none");
		kt_fails("softmax_cross_entropy", at, in, 2, &y, 1,
		    "the output must be [N]");
		sym_attrs_set_string(at, "reduction", "max");
		kt_decode_fails("softmax_cross_entropy", at, in, 2, 1,
		    "must be \"mean\", \"sum\" or \"none\", not \"max\"");
		sym__tensor_free(&in[1]);
		in[1] = kt_tensor(SYM_DT_I32, 1, d3);
		kt_fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "the logits must be [N, C] and the labels [N]");
		kt_fails("softmax_cross_entropy", NULL,
		    (struct sym__tensor[]){ in[0], in[0] }, 2, &y, 1,
		    "the logits must be [N, C]");
		kt_free_all(in, 2);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* --- ignore_index --------------------------------------------------------- */

/* The logits and labels the recorded PyTorch values below come from
 * (torch 1.13, f64: torch.nn.functional.cross_entropy and its gradient
 * of the mean). */
static const double ig_x[5][4] = { { 0.5, -1.25, 2.0, 0.125 },
	{ 1.5, 0.25, -0.75, 3.0 }, { -2.0, 0.5, 0.0, 1.0 },
	{ 0.75, 0.75, -0.5, -1.5 }, { 2.5, -0.25, 1.25, 0.5 } };
static const int32_t ig_default[5] = { 2, -100, 0, 3, -100 };
static const double ig_none[5] = { 0.3473127897970557, 0.0, 3.705173162318934,
	3.1220897104598073, 0.0 };
static const double ig_mean = 2.391525220858599, ig_sum = 7.174575662575797;
static const double ig_grad[20] = { 0.05255342128421235, 0.009132415258370136,
	-0.09780523955500697, 0.03611940301242444, 0, 0, 0, 0,
	-0.3251346806980825, 0.09988003621484862, 0.06058030425751385,
	0.16467434022572003, 0.13935899197792945, 0.13935899197792945,
	0.039927019687277535, -0.31864500364313647, 0, 0, 0, 0 };
/* ignore_index=7 on the labels 1, 7, 7, 0, 2 */
static const int32_t ig_seven[5] = { 1, 7, 7, 0, 2 };
static const double ig7_mean = 2.03844475701189;
static const double ig7_grad[20] = { 0.05255342128421235, -0.32420091807496315,
	0.23552809377832634, 0.03611940301242444, 0, 0, 0, 0, 0, 0, 0, 0,
	-0.19397434135540387, 0.13935899197792945, 0.039927019687277535,
	0.014688329690196837, 0.22435087207554744, 0.0143422714116494,
	-0.2690557323039221, 0.03036258881672527 };

/* Return rows "r0" to "r1" of the logits of the recorded case in "dt". */
static struct sym__tensor
ig_logits(sym_dtype dt, int64_t r0, int64_t r1)
{
	int64_t d[] = { r1 - r0, 4 };
	struct sym__tensor x = kt_tensor(dt, 2, d);

	for (int64_t i = r0; i < r1; i++)
		for (int64_t j = 0; j < 4; j++)
			kt_set(&x, (i - r0) * 4 + j, ig_x[i][j]);
	return x;
}

/* Return the "n" labels "l" as a tensor. */
static struct sym__tensor
ig_labels(const int32_t *l, int64_t n)
{
	struct sym__tensor t = kt_tensor(SYM_DT_I32, 1, &n);

	memcpy(t.data, l, (size_t)n * sizeof(*l));
	return t;
}

/* Run softmax_cross_entropy (and, unless "red" is "none", sce_grad with
 * dloss 1) of "ctx" in "dt" on the recorded logits and the labels "l"
 * with "red" and, when "ii" is not -1, ignore_index=ii; check the loss
 * against "want" (the mean or sum, or the "none" losses) and the
 * gradient against "grad" (NULL: not checked). */
static void
ig_check(sym_ctx *ctx, sym_dtype dt, const int32_t *l, const char *red,
    int64_t ii, const double *want, const double *grad)
{
	int none = !strcmp(red, "none");
	int64_t n5 = 5;
	sym_attrs *at = kt_attrs(ctx);
	struct sym__tensor in[3] = { ig_logits(dt, 0, 5), ig_labels(l, 5) };
	struct sym__tensor y = kt_tensor(dt, none, &n5), g;
	struct sym__kernel_args a;
	double tol = kt_tol(dt, TOL_F32_FN * 4);

	sym_attrs_set_string(at, "reduction", red);
	if (ii != -1)
		sym_attrs_set_int(at, "ignore_index", ii);
	a = kt_args("softmax_cross_entropy", at, in, 2, &y, 1);
	kt_run_args("softmax_cross_entropy", &a);
	if (none)
		kt_check_tensor(&y, want, tol, "ignored none");
	else
		kt_check_close(kt_get(&y, 0), want[0], tol, red, 0);
	if (grad) {
		in[2] = kt_tensor(dt, 0, NULL);
		kt_set(&in[2], 0, 1.0);
		g = kt_tensor(dt, 2, in[0].dim);
		a = kt_args("sce_grad", at, in, 3, &g, 1);
		kt_run_args("sce_grad", &a);
		kt_check_tensor(&g, grad, tol, "ignored grad");
		kt_free_all(&g, 1);
		kt_free_all(&in[2], 1);
	}
	kt_free_all(in, 2);
	kt_free_all(&y, 1);
	sym_attrs_free(at);
}

/* Rows "r0" to "r1" of the recorded case against the whole labels
 * "l" (global offset and size given as the executor gives them): the
 * partial mean of the block, the mean of its rows over the rows that
 * count in the whole batch; return it, after checking its gradient
 * (dloss 1) against the rows of "grad". */
static double
ig_block(sym_ctx *ctx, sym_dtype dt, const int32_t *l, int64_t ii, int64_t r0,
    int64_t r1, const double *grad)
{
	sym_attrs *at = kt_attrs(ctx);
	struct sym__tensor in[3] = { ig_logits(dt, r0, r1), ig_labels(l, 5),
		kt_tensor(dt, 0, NULL) };
	struct sym__tensor y = kt_tensor(dt, 0, NULL), g;
	int64_t off[3][SYM__MAX_RANK] = { { r0 } };
	int64_t glob[3][SYM__MAX_RANK] = { { 5, 4 }, { 5 } };
	struct sym__kernel_args a;
	double got;

	sym_attrs_set_int(at, "ignore_index", ii);
	a = kt_args("softmax_cross_entropy", at, in, 2, &y, 1);
	a.offset = (const int64_t(*)[SYM__MAX_RANK])off;
	a.global_dim = (const int64_t(*)[SYM__MAX_RANK])glob;
	a.normalizer = 5;
	kt_run_args("softmax_cross_entropy", &a);
	got = kt_get(&y, 0);
	kt_set(&in[2], 0, 1.0);
	g = kt_tensor(dt, 2, in[0].dim);
	a = kt_args("sce_grad", at, in, 3, &g, 1);
	a.offset = (const int64_t(*)[SYM__MAX_RANK])off;
	a.global_dim = (const int64_t(*)[SYM__MAX_RANK])glob;
	a.normalizer = 5;
	kt_run_args("sce_grad", &a);
	kt_check_tensor(&g, grad + r0 * 4, kt_tol(dt, TOL_F32_FN * 4),
	    "block grad");
	kt_free_all(&g, 1);
	kt_free_all(in, 3);
	kt_free_all(&y, 1);
	sym_attrs_free(at);
	return got;
}

/* ignore_index against values recorded from PyTorch: the default -100
 * and an explicit one above the classes, every reduction, the gradient
 * of the mean; blocks of rows with the whole labels add up to the
 * mean over the rows that count; every row ignored gives 0 and a zero
 * gradient (PyTorch: NaN); an ignored row of a block with only its own
 * labels, and a label neither a class nor ignore_index, fail. */
static void
test_ignore_index(void **state)
{
	static const int32_t all[5] = { -100, -100, -100, -100, -100 };
	static const double zero[20] = { 0 };
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (int f = 0; f < 2; f++) {
		sym_dtype dt = f ? SYM_DT_F64 : SYM_DT_F32;
		double part = 0.0;

		ig_check(ctx, dt, ig_default, "mean", -1, &ig_mean, ig_grad);
		ig_check(ctx, dt, ig_default, "sum", -1, &ig_sum, NULL);
		ig_check(ctx, dt, ig_default, "none", -1, ig_none, NULL);
		ig_check(ctx, dt, ig_seven, "mean", 7, &ig7_mean, ig7_grad);
		ig_check(ctx, dt, all, "mean", -1, zero, zero);
		part += ig_block(ctx, dt, ig_seven, 7, 0, 2, ig7_grad);
		part += ig_block(ctx, dt, ig_seven, 7, 2, 5, ig7_grad);
		kt_check_close(part, ig7_mean, kt_tol(dt, TOL_F32_FN * 4),
		    "blocks", 0);
	}
	{
		struct sym__tensor in[2] = { ig_logits(SYM_DT_F32, 0, 2),
			ig_labels(ig_default, 2) };
		struct sym__tensor y = kt_tensor(SYM_DT_F32, 0, NULL);
		struct sym__kernel_args a;

		a = kt_args("softmax_cross_entropy", NULL, in, 2, &y, 1);
		a.normalizer = 4;
		kt_fail_args("softmax_cross_entropy", &a,
		    "write ignore_index=-100 in the graph");
		((int32_t *)in[1].data)[1] = -7;
		kt_fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "label -7 of row 1 is out of range [0, 4) and is not "
		    "ignore_index -100");
		kt_free_all(in, 2);
		kt_free_all(&y, 1);
	}
	tl_ctx_free(ctx);
}

/* An ignore_index that is a class of the logits is a located error of
 * the shape rule, at constant and (refuted with a witness) at symbolic
 * sizes; negative or at least the classes is accepted. */
static void
test_ignore_index_in_range(void **state)
{
	static const struct {
		const char *text, *part;
		int line;
	} cases[] = {
		{ "input x : f32[4, 5]\ninput y : i32[4]\n"
		  "l = softmax_cross_entropy(x, y, ignore_index=2)\n",
		    "ignore_index=2 of softmax_cross_entropy is a class of the "
		    "logits x (5 classes)",
		    3 },
		{ "symbol c\ninput x : f32[4, c]\ninput y : i32[4]\n"
		  "l = softmax_cross_entropy(x, y, ignore_index=3)\n",
		    "c = 4", 4 },
		{ "input x : f32[4, 5]\ninput y : i32[4]\n"
		  "l = softmax_cross_entropy(x, y, ignore_index=5)\n",
		    NULL, 0 },
		{ "symbol d max=8\ninput x : f32[4, d]\ninput y : i32[4]\n"
		  "l = softmax_cross_entropy(x, y, ignore_index=8)\n",
		    NULL, 0 },
	};
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sym_graph *g = sym_graph_parse(ctx, cases[i].text, "ii.sg");
		const sym_diagnostic *d = NULL;
		char *m;

		assert_non_null(g);
		for (size_t k = 0; k < sym_graph_n_diagnostics(g) && !d; k++)
			if (sym_graph_diagnostic(g, k)->severity ==
			    SYM_SEV_ERROR)
				d = sym_graph_diagnostic(g, k);
		if (!cases[i].part) {
			if (d)
				fail_msg("case %zu: unexpected error %s", i,
				    d->message);
			sym_graph_free(g);
			continue;
		}
		if (!d)
			fail_msg("case %zu: no error", i);
		m = sym_diagnostic_format(g, d);
		if (!strstr(m, cases[i].part) || d->loc.line != cases[i].line)
			fail_msg("case %zu: %s", i, m);
		free(m);
		sym_graph_free(g);
	}
	tl_ctx_free(ctx);
}

/* The labels of sce_count_expect.h: blocks of 2 rows on 8 ranks, rank 1
 * and rank 4 with every row ignored (local count 0), 9 rows counting. */
static const int32_t sc_lab[16] = { 2, -1, -1, -1, 0, 3, -1, 1, -1, -1, 3, 0, 1,
	-1, 2, 2 };

/* Run the graph of the mean with ignore_index=-1 and its gradient on 8
 * ranks with the strategy "st" of the loss ("%s" of the graph), labels
 * "lab", against one device; check both against "mean" and "grad". */
static void
sc_run(const char *st, const int32_t *lab, double mean, const double *grad)
{
	static const char text[] =
	    "devices 8\nsymbol b divisor=8\n"
	    "input x : f64[b, 4]\ninput y : i32[b]\ninput d : f64[]\n"
	    "loss = softmax_cross_entropy(x, y, ignore_index=-1) shard %s\n"
	    "c = sce_count(y, ignore_index=-1)\n"
	    "g = sce_grad(x, y, d, c, ignore_index=-1)\n"
	    "output loss, g\n";
	sym_ctx *ctx = tl_ctx_new();
	char src[512];
	sym_graph *g;
	sym_checkpoint *in = sym_checkpoint_new(ctx),
	               *out = sym_checkpoint_new(ctx);
	sym_plan *p, *single;
	sym_communicator *comm = sym_comm_threads_new(ctx, 8);
	sym_binding *b = sym_binding_new(ctx);
	sym_exec_options o = SYM_EXEC_OPTIONS_INIT;
	sym_exec_report r;
	double x[64], one = 1.0;
	int64_t dx[] = { 16, 4 }, dy[] = { 16 };
	const double *got;
	size_t bytes, k;

	for (int i = 0; i < 64; i++)
		x[i] = 2 * sin(1.3 * i + 0.5);
	snprintf(src, sizeof(src), text, st);
	g = sym_graph_parse(ctx, src, "count.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	/* the count's partial sums are all-reduced, the labels not moved */
	assert_non_null(sym_graph_find_value(g, "loss.count"));
	assert_non_null(sym_graph_find_value(g, "c"));
	assert_non_null(p = sym_plan_compile(g, 0));
	assert_non_null(single = sym_plan_compile(g, SYM_PLAN_SINGLE));
	assert_int_equal(sym_binding_set(b, sym_symbol_find(ctx, "b"), 16), 0);
	assert_int_equal(sym_checkpoint_add(in, "x", SYM_DT_F64, 2, dx, x), 0);
	assert_int_equal(sym_checkpoint_add(in, "y", SYM_DT_I32, 1, dy, lab),
	    0);
	assert_int_equal(sym_checkpoint_add(in, "d", SYM_DT_F64, 0, NULL, &one),
	    0);
	o.inputs = in;
	o.outputs = out;
	if (sym_exec_check(ctx, p, single, comm, b, &o, &r) != 0)
		fail_msg("%s: %s", st, sym_ctx_last_message(ctx));
	assert_int_equal(r.n_mismatch, 0);
	k = sym_checkpoint_find(out, "loss");
	assert_true(k < sym_checkpoint_n_tensors(out));
	got = sym_checkpoint_tensor_data(out, k, &bytes);
	kt_check_close(got[0], mean, 1e-12, "sharded mean", 0);
	k = sym_checkpoint_find(out, "g");
	assert_true(k < sym_checkpoint_n_tensors(out));
	got = sym_checkpoint_tensor_data(out, k, &bytes);
	assert_int_equal(bytes, sizeof(x));
	for (int i = 0; i < 64; i++)
		kt_check_close(got[i], grad[i], 1e-12, "sharded grad", i);
	sym_checkpoint_free(in);
	sym_checkpoint_free(out);
	sym_binding_free(b);
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The mean over the rows that count on 8 ranks, ranks whose rows are all
 * ignored among them, equals one device and PyTorch (recorded), the
 * batch split 8 ways and 4 ways (the count replicated over the repeat
 * axis, not counted twice); every row ignored gives 0 and a zero
 * gradient on every rank as on one device (PyTorch: NaN). */
static void
test_sharded_count(void **state)
{
	static const double zero[64] = { 0 };
	int32_t none[16];

	(void)state;
	sc_run("((8, 1), (8,))", sc_lab, sc_mean, sc_grad);
	sc_run("((4, 1), (4,))", sc_lab, sc_mean, sc_grad);
	for (int i = 0; i < 16; i++)
		none[i] = -1;
	sc_run("((8, 1), (8,))", none, 0.0, zero);
}

/* The labels of sce_vocab_expect.h: [16] over 16 classes, the edges of
 * blocks of 2 classes (1, 2) and of 4 (3, 4, 7, 8, 11, 12), the first and
 * last class, three rows ignored. */
static const int32_t vp_lab[16] = { 1, 2, -1, 15, 0, 3, 4, 7, -1, 8, 12, 11, 5,
	-1, 14, 9 };

/* Return output "name" of "out", checked to hold "n" doubles. */
static const double *
vp_out(sym_checkpoint *out, const char *name, size_t n)
{
	size_t k = sym_checkpoint_find(out, name), bytes;
	const double *d;

	assert_true(k < sym_checkpoint_n_tensors(out));
	d = sym_checkpoint_tensor_data(out, k, &bytes);
	assert_int_equal(bytes, n * sizeof(double));
	return d;
}

/* Run the class-split loss (vocab_parallel=1, ignore_index=-1) with the
 * reduction "red" and the gradient of its mean (from the statistics the
 * graph adds, written out) on 8 thread ranks, the batch split "nb" ways
 * and the classes "nc" ways, against one device; check the loss ("n"
 * values) against "want" and the gradient against vp_grad. */
static void
vp_run(int nb, int nc, const char *red, const double *want, size_t n)
{
	static const char text[] =
	    "devices 8\nsymbol b divisor=8\n"
	    "input x : f64[b, 16]\ninput y : i32[b]\ninput d : f64[]\n"
	    "loss = softmax_cross_entropy(x, y, ignore_index=-1, "
	    "vocab_parallel=1, reduction=\"%s\") shard ((%d, %d), (%d,))\n"
	    "c = sce_count(y, ignore_index=-1)\n"
	    "t = sce_target(x, y, ignore_index=-1) shard ((%d, %d), (%d,))\n"
	    "s = sce_sumexp(x, y, t, ignore_index=-1) shard ((%d, %d), "
	    "(%d,), (%d,))\n"
	    "g = sce_grad(x, y, d, c, t, s, ignore_index=-1) shard ((%d, "
	    "%d), (%d,), (), (), (%d,), (%d,))\n"
	    "output loss, g\n";
	const char *st = nc == 8 ? "class 8" : nc == 4 ? "2 x 4" : "batch";
	sym_ctx *ctx = tl_ctx_new();
	char src[1024];
	sym_graph *g;
	sym_checkpoint *in = sym_checkpoint_new(ctx),
	               *out = sym_checkpoint_new(ctx);
	sym_plan *p, *single;
	sym_communicator *comm = sym_comm_threads_new(ctx, 8);
	sym_binding *b = sym_binding_new(ctx);
	sym_exec_options o = SYM_EXEC_OPTIONS_INIT;
	sym_exec_report r;
	double x[256], one = 1.0;
	int64_t dx[] = { 16, 16 }, dy[] = { 16 };
	const double *got;

	for (int i = 0; i < 256; i++)
		x[i] = 3 * sin(0.7 * i + 0.2);
	snprintf(src, sizeof(src), text, red, nb, nc, nb, nb, nc, nb, nb, nc,
	    nb, nb, nb, nc, nb, nb, nb);
	g = sym_graph_parse(ctx, src, "vocab.sg");
	assert_non_null(g);
	if (sym_graph_n_errors(g) != 0)
		fail_msg("%s", sym_ctx_last_message(ctx));
	if (sym_graph_shard(g, NULL) != 0)
		fail_msg("%s: %s", st, sym_ctx_last_message(ctx));
	assert_non_null(sym_graph_find_value(g, "loss.target"));
	assert_non_null(sym_graph_find_value(g, "loss.sumexp"));
	assert_non_null(p = sym_plan_compile(g, 0));
	assert_non_null(single = sym_plan_compile(g, SYM_PLAN_SINGLE));
	assert_int_equal(sym_binding_set(b, sym_symbol_find(ctx, "b"), 16), 0);
	assert_int_equal(sym_checkpoint_add(in, "x", SYM_DT_F64, 2, dx, x), 0);
	assert_int_equal(sym_checkpoint_add(in, "y", SYM_DT_I32, 1, dy, vp_lab),
	    0);
	assert_int_equal(sym_checkpoint_add(in, "d", SYM_DT_F64, 0, NULL, &one),
	    0);
	o.inputs = in;
	o.outputs = out;
	if (sym_exec_check(ctx, p, single, comm, b, &o, &r) != 0)
		fail_msg("%s: %s", st, sym_ctx_last_message(ctx));
	assert_int_equal(r.n_mismatch, 0);
	got = vp_out(out, "loss", n);
	for (size_t i = 0; i < n; i++)
		kt_check_close(got[i], want[i], 1e-12, "class-split loss",
		    (int)i);
	got = vp_out(out, "g", 256);
	for (int i = 0; i < 256; i++)
		kt_check_close(got[i], vp_grad[i], 1e-12, "class-split grad",
		    i);
	sym_checkpoint_free(in);
	sym_checkpoint_free(out);
	sym_binding_free(b);
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(single);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* softmax_cross_entropy with its class dimension split (vocab_parallel):
 * the classes split 8 ways, and the batch 2 ways by the classes 4, equal
 * one device and PyTorch (recorded), forward (the mean over the rows that
 * count, the rows' losses) and backward, with labels on the edges of the
 * ranks' blocks of classes and ignored rows; one device too. */
static void
test_vocab_parallel(void **state)
{
	(void)state;
	vp_run(1, 8, "mean", &vp_mean, 1);
	vp_run(2, 4, "mean", &vp_mean, 1);
	vp_run(1, 8, "none", vp_rows, 16);
	vp_run(2, 4, "none", vp_rows, 16);
	vp_run(8, 1, "mean", &vp_mean, 1);
	vp_run(1, 1, "mean", &vp_mean, 1);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_ignore_index),
		cmocka_unit_test(test_ignore_index_in_range),
		cmocka_unit_test(test_sharded_count),
		cmocka_unit_test(test_vocab_parallel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
