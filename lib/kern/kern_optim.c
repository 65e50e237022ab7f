/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the optimizer family: the update operators, element by
 * element over the local block of a param, its state and its gradient
 * (laid out alike), in place: output k shares input k's data. The
 * formulas are sym_grad(3)'s, in double whatever the storage, each step
 * count t (an i32 scalar: the steps taken before this one) read once.
 */
#include <math.h>
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* A param and its state during one update: element "i" of each. */
struct upd {
	enum sym__kst k;
	void *p, *m, *v;
	const void *g;
};

/* Return element "i" of "data" stored as "k". */
static inline double
rd(const void *data, enum sym__kst k, int64_t i)
{
	return k == SYM__KST_F32 ? (double)((const float *)data)[i]
	                         : ((const double *)data)[i];
}

/* Store "x" as element "i" of "data" stored as "k". */
static inline void
wr(void *data, enum sym__kst k, int64_t i, double x)
{
	if (k == SYM__KST_F32)
		((float *)data)[i] = (float)x;
	else
		((double *)data)[i] = x;
}

/* Check the call "a" of "op": "n_same" float tensors of the param's dims
 * and storage (inputs and outputs alike), then an i32 scalar step count
 * when "with_t"; store it in "*t". Return 0 or -1. */
static int
check(struct sym__kernel_args *a, const char *op, int n_same, int with_t,
    int64_t *t)
{
	const struct sym__tensor *p = &a->in[0];

	*t = 0;
	if (!sym__kat(a, op))
		return -1;
	if (with_t) {
		if (a->in[n_same].rank != 0 ||
		    a->in[n_same].dtype != SYM_DT_I32)
			return sym__kfail(a, op,
			    "the step count must be an i32 scalar, not %s of "
			    "rank %d",
			    sym_dtype_name(a->in[n_same].dtype),
			    a->in[n_same].rank);
		*t = *(const int32_t *)a->in[n_same].data;
	}
	if (sym__kfloat(a, op, p, "the param") < 0)
		return -1;
	for (int i = 1; i < n_same; i++)
		if (sym__ksame_dims(a, op, p, "the param", &a->in[i],
		        "an operand") < 0 ||
		    sym__ksame_kst(a, op, p, "the param", &a->in[i],
		        "an operand") < 0)
			return -1;
	for (int o = 0; o < a->n_out; o++)
		if (sym__ksame_dims(a, op, p, "the param", &a->out[o],
		        "an output") < 0 ||
		    sym__ksame_kst(a, op, p, "the param", &a->out[o],
		        "an output") < 0)
			return -1;
	return 0;
}

/* Copy input "i" of "a" into output "o" unless they share their data. */
static void
same(struct sym__kernel_args *a, int i, int o)
{
	if (a->out[o].data != a->in[i].data)
		memcpy(a->out[o].data, a->in[i].data,
		    (size_t)sym__tensor_numel(&a->in[i]) *
		        sym__tensor_elem_size(a->in[i].dtype));
}

/* The kernel of sgd_update: with momentum mu, b = g' at the first step
 * (t = 0), else mu b + (1 - dampening) g'; "a" is the call. */
int
sym__kern_sgd_update(struct sym__kernel_args *a)
{
	static const char op[] = "sgd_update";
	int mom = a->n_in == 4;
	int64_t t, n;
	double lr, wd, mu, damp;
	enum sym__kst k;

	if (sym__kio(a, op, 2, 4, mom ? 2 : 1, mom ? 2 : 1) < 0 ||
	    check(a, op, mom ? 3 : 2, mom, &t) < 0)
		return -1;
	same(a, 0, 0);
	if (mom)
		same(a, 1, 1);
	lr = a->at->optim.lr;
	wd = a->at->optim.weight_decay;
	mu = a->at->optim.momentum;
	damp = a->at->optim.dampening;
	k = sym__kst(a->in[0].dtype);
	n = sym__tensor_numel(&a->in[0]);
	for (int64_t i = 0; i < n; i++) {
		double p = rd(a->out[0].data, k, i);
		double d = rd(a->in[mom ? 2 : 1].data, k, i) + wd * p;

		if (mom) {
			double b = t == 0
			    ? d
			    : mu * rd(a->out[1].data, k, i) + (1 - damp) * d;

			wr(a->out[1].data, k, i, b);
			d = a->at->optim.nesterov ? d + mu * b : b;
		}
		wr(a->out[0].data, k, i, p - lr * d);
	}
	return 0;
}

/* The loops of momentum_update over "n" elements of storage type T: the
 * param "p" and its velocity "v" updated in place from the gradient "g"
 * (in double, as every update; one loop per case of "nesterov", so that
 * each vectorizes). */
#define MOMENTUM_LOOP(name, T)                                                \
	static void name(T *restrict p, T *restrict v, const T *restrict g,   \
	    int64_t n, double lr, double wd, double mu, int nesterov)         \
	{                                                                     \
		if (nesterov) {                                               \
			SYM__SIMD                                             \
			for (int64_t i = 0; i < n; i++) {                     \
				double gi = (double)g[i] + wd * (double)p[i]; \
				double vi = mu * (double)v[i] + gi;           \
				v[i] = (T)vi;                                 \
				p[i] =                                        \
				    (T)((double)p[i] - lr * (gi + mu * vi));  \
			}                                                     \
		} else {                                                      \
			SYM__SIMD                                             \
			for (int64_t i = 0; i < n; i++) {                     \
				double gi = (double)g[i] + wd * (double)p[i]; \
				double vi = mu * (double)v[i] + gi;           \
				v[i] = (T)vi;                                 \
				p[i] = (T)((double)p[i] - lr * vi);           \
			}                                                     \
		}                                                             \
	}

MOMENTUM_LOOP(momentum_f32, float)
MOMENTUM_LOOP(momentum_f64, double)

/* The kernel of momentum_update (MindSpore's ApplyMomentum): v = mu v +
 * g'; p -= lr v, or lr (g' + mu v) with Nesterov; "a" is the call. */
int
sym__kern_momentum_update(struct sym__kernel_args *a)
{
	static const char op[] = "momentum_update";
	int64_t t, n;
	double lr, wd, mu;

	if (sym__kio(a, op, 3, 3, 2, 2) < 0 || check(a, op, 3, 0, &t) < 0)
		return -1;
	same(a, 0, 0);
	same(a, 1, 1);
	lr = a->at->optim.lr;
	wd = a->at->optim.weight_decay;
	mu = a->at->optim.momentum;
	n = sym__tensor_numel(&a->in[0]);
	if (sym__kst(a->in[0].dtype) == SYM__KST_F32)
		momentum_f32(a->out[0].data, a->out[1].data, a->in[2].data, n,
		    lr, wd, mu, a->at->optim.nesterov);
	else
		momentum_f64(a->out[0].data, a->out[1].data, a->in[2].data, n,
		    lr, wd, mu, a->at->optim.nesterov);
	return 0;
}

/* The kernels of adam_update and adamw_update ("decoupled"): the moments
 * m and v, bias-corrected at step t + 1; "a" is the call, "op" its
 * operator's name. */
int
sym__kern_adam(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int decoupled = a->op->id == SYM__OP_ADAMW_UPDATE;
	int64_t t, n;
	double lr, wd, b1, b2, eps, c1, c2;
	enum sym__kst k;

	if (sym__kio(a, op, 5, 5, 3, 3) < 0 || check(a, op, 4, 1, &t) < 0)
		return -1;
	same(a, 0, 0);
	same(a, 1, 1);
	same(a, 2, 2);
	lr = a->at->optim.lr;
	wd = a->at->optim.weight_decay;
	b1 = a->at->optim.beta1;
	b2 = a->at->optim.beta2;
	eps = a->at->optim.eps;
	c1 = 1 - pow(b1, (double)(t + 1));
	c2 = 1 - pow(b2, (double)(t + 1));
	k = sym__kst(a->in[0].dtype);
	n = sym__tensor_numel(&a->in[0]);
	for (int64_t i = 0; i < n; i++) {
		double p = rd(a->out[0].data, k, i);
		double g = rd(a->in[3].data, k, i);
		double m, v;

		if (decoupled)
			p -= lr * wd * p;
		else
			g += wd * p;
		m = b1 * rd(a->out[1].data, k, i) + (1 - b1) * g;
		v = b2 * rd(a->out[2].data, k, i) + (1 - b2) * g * g;
		wr(a->out[1].data, k, i, m);
		wr(a->out[2].data, k, i, v);
		wr(a->out[0].data, k, i,
		    p - lr * (m / c1) / (sqrt(v / c2) + eps));
	}
	return 0;
}

/* The kernel of increment: the i32 step count plus one, refused at
 * INT32_MAX rather than wrapped; "a" is the call. */
int
sym__kern_increment(struct sym__kernel_args *a)
{
	static const char op[] = "increment";

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	if (a->in[0].rank != 0 || a->in[0].dtype != SYM_DT_I32 ||
	    a->out[0].rank != 0 || a->out[0].dtype != SYM_DT_I32)
		return sym__kfail(a, op,
		    "the step count must be an i32 scalar, not %s of rank %d",
		    sym_dtype_name(a->in[0].dtype), a->in[0].rank);
	if (*(const int32_t *)a->in[0].data == INT32_MAX)
		return sym__kfail(a, op,
		    "the step count is %ld, the largest an i32 holds: no step "
		    "can follow",
		    (long)INT32_MAX);
	*(int32_t *)a->out[0].data = *(const int32_t *)a->in[0].data + 1;
	return 0;
}
