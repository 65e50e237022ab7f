/* SPDX-License-Identifier: MIT */
/*
 * Kernels of batch_norm and its kin (normalisation family), f32 and f64,
 * on x of shape [N, C, ...]: the element (n, c, s) of the flattened
 * spatial dimensions is at (n * C + c) * S + s. Sums are accumulated in
 * double.
 *
 * The statistics are f64[3, C]: by channel the count of the elements,
 * their sum and the sum of their squares, local to the block (the
 * sharding pass all-reduces them over a split batch before they are
 * read). In training mode batch_norm normalises with the mean and the
 * biased variance of the statistics and batch_norm_update moves the
 * running statistics towards the mean and the unbiased variance
 * (PyTorch's formula: r = (1 - momentum) r + momentum v); in an
 * evaluation (args->eval) or with training=false, batch_norm uses the
 * running statistics and batch_norm_update leaves them alone.
 */
#include <math.h>
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* Element "i" of the f32 or f64 data "p" ("f64"), as a double. */
static inline double
ld(const void *p, int f64, int64_t i)
{
	return f64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* Store "v" as element "i" of the f32 or f64 data "p" ("f64"). */
static inline void
st(void *p, int f64, int64_t i, double v)
{
	if (f64)
		((double *)p)[i] = v;
	else
		((float *)p)[i] = (float)v;
}

/* The geometry of x: the batch "n", the channels "c", the elements of a
 * channel in one sample "s", and whether it is f64. */
struct bn {
	int64_t n, c, s;
	int f64;
	double eps, momentum;
	int use_batch; /* normalise with the statistics of the batch */
};

/* Check that input "i" of the call "a" of "op" is a vector of the "c"
 * channels stored like x ("x"); 0 or -1. */
static int
check_vec(struct sym__kernel_args *a, const char *op, int i,
    const struct sym__tensor *x, int64_t c)
{
	const struct sym__tensor *v = &a->in[i];

	if (sym__ksame_kst(a, op, x, "x", v, "a channel vector") < 0)
		return -1;
	if (v->rank != 1 || v->dim[0] != c)
		return sym__kfail(a, op,
		    "operand %d must be a vector of the %lld channels of x", i,
		    (long long)c);
	return 0;
}

/* Check that input "i" of the call "a" of "op" is the f64[3, "c"]
 * statistics; 0 or -1. */
static int
check_stats(struct sym__kernel_args *a, const char *op, int i, int64_t c)
{
	const struct sym__tensor *t = &a->in[i];

	if (sym__kst(t->dtype) != SYM__KST_F64 || t->rank != 2 ||
	    t->dim[0] != 3 || t->dim[1] != c)
		return sym__kfail(a, op,
		    "operand %d must be the f64[3, %lld] statistics", i,
		    (long long)c);
	return 0;
}

/* Fill "g" from x, input "xi" of the call "a" of "op" (floating, rank at
 * least 2), and the attributes; 0 or -1. */
static int
geometry(struct sym__kernel_args *a, const char *op, int xi, struct bn *g)
{
	const struct sym__tensor *x = &a->in[xi];
	const struct sym__opattrs *at = sym__kat(a, op);

	if (!at || sym__kfloat(a, op, x, "x") < 0)
		return -1;
	if (x->rank < 2)
		return sym__kfail(a, op, "x must have rank 2 or more, not %d",
		    x->rank);
	g->n = x->dim[0];
	g->c = x->dim[1];
	g->s = sym__kprod(x->dim, 2, x->rank);
	g->f64 = sym__kst(x->dtype) == SYM__KST_F64;
	g->eps = at->norm.epsilon;
	g->momentum = at->norm.momentum;
	g->use_batch = at->norm.training && !a->eval;
	return 0;
}

/* The mean and 1 / sqrt(variance + epsilon) of channel "c" under "g":
 * from the statistics "stats" (f64[3, C]) when "g" normalises with the
 * batch's, else from the running ones "rm" and "rv"; in "*mean" and
 * "*inv". */
static void
channel_norm(const struct bn *g, const double *stats, const void *rm,
    const void *rv, int64_t c, double *mean, double *inv)
{
	double m, v;

	if (g->use_batch) {
		double cnt = stats[c], sum = stats[g->c + c];

		m = cnt > 0 ? sum / cnt : 0;
		v = cnt > 0 ? stats[2 * g->c + c] / cnt - m * m : 0;
		if (v < 0)
			v = 0;
	} else {
		m = ld(rm, g->f64, c);
		v = ld(rv, g->f64, c);
	}
	*mean = m;
	*inv = 1 / sqrt(v + g->eps);
}

/* The kernel of batch_norm_stats(x) -> f64[3, C] (zeros in an
 * evaluation or with training=false, where nothing reads them); "a" is
 * the call. */
static int
k_stats(struct sym__kernel_args *a)
{
	static const char op[] = "batch_norm_stats";
	struct bn g;
	double *o;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || geometry(a, op, 0, &g) < 0)
		return -1;
	o = a->out[0].data;
	if (sym__kst(a->out[0].dtype) != SYM__KST_F64 || a->out[0].rank != 2 ||
	    a->out[0].dim[0] != 3 || a->out[0].dim[1] != g.c)
		return sym__kfail(a, op, "the output must be f64[3, %lld]",
		    (long long)g.c);
	memset(o, 0, (size_t)(3 * g.c) * sizeof(*o));
	if (!g.use_batch)
		return 0;
	for (int64_t c = 0; c < g.c; c++) {
		double sum = 0, sq = 0;

		for (int64_t n = 0; n < g.n; n++) {
			int64_t base = (n * g.c + c) * g.s;

			for (int64_t s = 0; s < g.s; s++) {
				double v = ld(a->in[0].data, g.f64, base + s);

				sum += v;
				sq += v * v;
			}
		}
		o[c] = (double)(g.n * g.s);
		o[g.c + c] = sum;
		o[2 * g.c + c] = sq;
	}
	return 0;
}

/* The kernel of batch_norm(x, gamma, beta, running_mean, running_var,
 * stats) -> y; "a" is the call. */
static int
k_batch_norm(struct sym__kernel_args *a)
{
	static const char op[] = "batch_norm";
	const struct sym__tensor *x = &a->in[0];
	struct bn g;

	if (sym__kio(a, op, 6, 6, 1, 1) < 0 || geometry(a, op, 0, &g) < 0 ||
	    sym__ksame_dims(a, op, x, "x", &a->out[0], "y") < 0 ||
	    sym__ksame_kst(a, op, x, "x", &a->out[0], "y") < 0)
		return -1;
	for (int i = 1; i < 5; i++)
		if (check_vec(a, op, i, x, g.c) < 0)
			return -1;
	if (check_stats(a, op, 5, g.c) < 0)
		return -1;
	for (int64_t c = 0; c < g.c; c++) {
		double mean, inv, w, b;

		channel_norm(&g, a->in[5].data, a->in[3].data, a->in[4].data, c,
		    &mean, &inv);
		w = ld(a->in[1].data, g.f64, c) * inv;
		b = ld(a->in[2].data, g.f64, c) - mean * w;
		for (int64_t n = 0; n < g.n; n++) {
			int64_t base = (n * g.c + c) * g.s;

			for (int64_t s = 0; s < g.s; s++)
				st(a->out[0].data, g.f64, base + s,
				    ld(x->data, g.f64, base + s) * w + b);
		}
	}
	return 0;
}

/* The kernel of batch_norm_update(running_mean, running_var, stats) ->
 * both updated (in place); "a" is the call. */
static int
k_update(struct sym__kernel_args *a)
{
	static const char op[] = "batch_norm_update";
	const struct sym__tensor *rm = &a->in[0];
	const double *stats;
	struct bn g;

	if (sym__kio(a, op, 3, 3, 2, 2) < 0 || !sym__kat(a, op) ||
	    sym__kfloat(a, op, rm, "running_mean") < 0)
		return -1;
	if (rm->rank != 1)
		return sym__kfail(a, op, "running_mean must be a vector");
	g.c = rm->dim[0];
	g.f64 = sym__kst(rm->dtype) == SYM__KST_F64;
	g.momentum = a->at->norm.momentum;
	if (check_vec(a, op, 1, rm, g.c) < 0 || check_stats(a, op, 2, g.c) < 0)
		return -1;
	for (int k = 0; k < 2; k++)
		if (sym__ksame_dims(a, op, &a->in[k], "a running statistic",
		        &a->out[k], "its update") < 0 ||
		    sym__ksame_kst(a, op, &a->in[k], "a running statistic",
		        &a->out[k], "its update") < 0)
			return -1;
	for (int k = 0; k < 2; k++)
		if (a->out[k].data != a->in[k].data)
			memcpy(a->out[k].data, a->in[k].data,
			    (size_t)g.c * sym__tensor_elem_size(rm->dtype));
	if (!a->at->norm.training || a->eval)
		return 0;
	stats = a->in[2].data;
	for (int64_t c = 0; c < g.c; c++)
		if (stats[c] < 2)
			return sym__kfail(a, op,
			    "channel %lld has %.0f value%s in this batch: "
			    "training needs more than 1 value per channel "
			    "(the running variance is unbiased, as PyTorch's)",
			    (long long)c, stats[c], stats[c] == 1 ? "" : "s");
	for (int64_t c = 0; c < g.c; c++) {
		double cnt = stats[c], mean = stats[g.c + c] / cnt;
		double var = stats[2 * g.c + c] / cnt - mean * mean;
		double m = g.momentum;

		if (var < 0)
			var = 0;
		st(a->out[0].data, g.f64, c,
		    (1 - m) * ld(a->out[0].data, g.f64, c) + m * mean);
		st(a->out[1].data, g.f64, c,
		    (1 - m) * ld(a->out[1].data, g.f64, c) +
		        m * var * cnt / (cnt - 1));
	}
	return 0;
}

/* Check the operands dy, x, stats, running_mean and running_var of the
 * call "a" of "op" and fill "g"; 0 or -1. */
static int
grad_operands(struct sym__kernel_args *a, const char *op, struct bn *g)
{
	const struct sym__tensor *x = &a->in[1];

	if (geometry(a, op, 1, g) < 0 ||
	    sym__ksame_dims(a, op, &a->in[0], "dy", x, "x") < 0 ||
	    sym__ksame_kst(a, op, &a->in[0], "dy", x, "x") < 0 ||
	    check_stats(a, op, 2, g->c) < 0 ||
	    check_vec(a, op, 3, x, g->c) < 0 ||
	    check_vec(a, op, 4, x, g->c) < 0)
		return -1;
	g->use_batch = a->at->norm.training;
	return 0;
}

/* The kernel of batch_norm_grad_params(dy, x, stats, running_mean,
 * running_var) -> dgamma = sum(dy * xhat), dbeta = sum(dy) over every
 * dimension but 1, local to the block; "a" is the call. */
static int
k_grad_params(struct sym__kernel_args *a)
{
	static const char op[] = "batch_norm_grad_params";
	struct bn g;

	if (sym__kio(a, op, 5, 5, 2, 2) < 0 || grad_operands(a, op, &g) < 0)
		return -1;
	for (int k = 0; k < 2; k++)
		if (a->out[k].rank != 1 || a->out[k].dim[0] != g.c ||
		    sym__ksame_kst(a, op, &a->in[1], "x", &a->out[k],
		        "the output") < 0)
			return sym__kfail(a, op,
			    "the outputs must be vectors of the %lld channels",
			    (long long)g.c);
	for (int64_t c = 0; c < g.c; c++) {
		double mean, inv, sdy = 0, sdyx = 0;

		channel_norm(&g, a->in[2].data, a->in[3].data, a->in[4].data, c,
		    &mean, &inv);
		for (int64_t n = 0; n < g.n; n++) {
			int64_t base = (n * g.c + c) * g.s;

			for (int64_t s = 0; s < g.s; s++) {
				double dy = ld(a->in[0].data, g.f64, base + s);

				sdy += dy;
				sdyx += dy *
				    (ld(a->in[1].data, g.f64, base + s) - mean);
			}
		}
		st(a->out[0].data, g.f64, c, sdyx * inv);
		st(a->out[1].data, g.f64, c, sdy);
	}
	return 0;
}

/* The kernel of batch_norm_grad(dy, x, stats, running_mean, running_var,
 * gamma, dgamma, dbeta) -> dx; in training mode gamma / sigma (dy -
 * (dbeta + xhat dgamma) / M), M the global count of a channel's
 * elements; otherwise gamma / sigma dy. "a" is the call. */
static int
k_grad(struct sym__kernel_args *a)
{
	static const char op[] = "batch_norm_grad";
	const double *stats;
	struct bn g;

	if (sym__kio(a, op, 8, 8, 1, 1) < 0 || grad_operands(a, op, &g) < 0)
		return -1;
	for (int i = 5; i < 8; i++)
		if (check_vec(a, op, i, &a->in[1], g.c) < 0)
			return -1;
	if (sym__ksame_dims(a, op, &a->in[1], "x", &a->out[0], "dx") < 0 ||
	    sym__ksame_kst(a, op, &a->in[1], "x", &a->out[0], "dx") < 0)
		return -1;
	stats = a->in[2].data;
	for (int64_t c = 0; c < g.c; c++) {
		double mean, inv, k, dg = 0, db = 0, cnt = stats[c];

		channel_norm(&g, stats, a->in[3].data, a->in[4].data, c, &mean,
		    &inv);
		k = ld(a->in[5].data, g.f64, c) * inv;
		if (g.use_batch && cnt > 0) {
			dg = ld(a->in[6].data, g.f64, c) / cnt;
			db = ld(a->in[7].data, g.f64, c) / cnt;
		}
		for (int64_t n = 0; n < g.n; n++) {
			int64_t base = (n * g.c + c) * g.s;

			for (int64_t s = 0; s < g.s; s++) {
				double xh =
				    (ld(a->in[1].data, g.f64, base + s) -
				        mean) *
				    inv;

				st(a->out[0].data, g.f64, base + s,
				    k *
				        (ld(a->in[0].data, g.f64, base + s) -
				            db - xh * dg));
			}
		}
	}
	return 0;
}

/* The kernels of batch_norm and its kin, by operator (ops.def names this
 * one for all of them). */
int
sym__kern_batch_norm(struct sym__kernel_args *a)
{
	switch (a->op ? a->op->id : SYM__N_OPS) {
	case SYM__OP_BATCH_NORM:
		return k_batch_norm(a);
	case SYM__OP_BATCH_NORM_STATS:
		return k_stats(a);
	case SYM__OP_BATCH_NORM_UPDATE:
		return k_update(a);
	case SYM__OP_BATCH_NORM_GRAD_PARAMS:
		return k_grad_params(a);
	case SYM__OP_BATCH_NORM_GRAD:
		return k_grad(a);
	default:
		return sym__kfail(a, "batch_norm", "not a batch_norm operator");
	}
}
