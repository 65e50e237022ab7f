/* SPDX-License-Identifier: MIT */
/*
 * Sharding rule of the convolution family: conv2d(x [N, C, H, W], weight
 * [O, C / group, kh, kw]) in NCHW (MindSpore's Conv2DInfo without
 * spatial splits). The device matrix is (n, c, h, w, o): x's strategy
 * then the output channels of the weight's.
 *
 * The batch N and the output channels O may be split; splitting the
 * input channels C (alike in x and in the weight, and only with group=1)
 * leaves the output holding partial sums over their axes; the spatial
 * dimensions of x and of the kernel are unsplit (no halo exchange). The
 * output [N, O, Ho, Wo] is split like N and O.
 *
 * Its gradients conv2d_input_grad(dy, weight, x) and
 * conv2d_weight_grad(dy, x, weight) use the same device matrix and the
 * same constraints on their operands, dy [N, O, Ho, Wo] being split like
 * the forward output: dx is laid out like x and holds partial sums over
 * the axes that split O, which it sums over; dw is laid out like the
 * weight and holds partial sums over the axes that split N.
 */
#include "rules/rule_private.h"

/* The tuple step: "s" is the run, "split" the split counts by input. */
int
sym__shard_tuple_conv2d(struct sym__shard *s, const int64_t *const *split)
{
	const int64_t *x = split[0], *w = split[1];
	int64_t sizes[5] = { 1, 1, 1, 1, 1 };
	const char *names[5] = { "n", "c", "h", "w", "o" };
	int x_axes[4] = { 0, 1, 2, 3 }, w_axes[4] = { 4, 1, -1, -1 };

	if (x && w && x[1] != w[1])
		return sym__shard_fail(s, 1, 1,
		    "the input channels are split %lld way%s in %s but "
		    "%lld way%s in %s: they must be equal",
		    (long long)x[1], SYM__WAYS(x[1]), sym__shard_in_name(s, 0),
		    (long long)w[1], SYM__WAYS(w[1]), sym__shard_in_name(s, 1));
	for (size_t d = 0; x && d < 4; d++)
		sizes[d] = x[d];
	if (w) {
		sizes[1] = w[1];
		sizes[4] = w[0];
	}
	if (sym__shard_set_mesh(s, 5, sizes, names) < 0)
		return -1;
	if (x && sym__shard_map(s, 0, x, x_axes) < 0)
		return -1;
	return w ? sym__shard_map(s, 1, w, w_axes) : 0;
}

/* The layout step (see the top of the file); "s" is the run. */
int
sym__shard_infer_conv2d(struct sym__shard *s)
{
	int64_t group = s->at->conv.group;
	struct sym__lb b;

	if (!s->in[0] && !s->in[1] && sym__shard_default_replicated(s, 0) < 0)
		return -1;
	if (!s->in[0] || !s->in[1]) {
		size_t i = s->in[0] ? 1 : 0;

		if (sym__lb_init(s, &b, 4) < 0)
			return -1;
		sym__lb_copy(&b, 1, s->in[1 - i], 1);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t d = 2; d < 4; d++)
		if (sym__shard_unsplit(s, 0, d,
		        "it is a spatial dimension, which") < 0 ||
		    sym__shard_unsplit(s, 1, d,
		        "it is a spatial dimension of the kernel, which") < 0)
			return -1;
	if (!sym__shard_same_dim(s->in[0], 1, s->in[1], 1))
		return sym__shard_fail(s, 1, 1,
		    "the input channels are split by %s in %s but by %s in %s: "
		    "they must be split alike",
		    sym__shard_axes_txt(s, s->in[0], 1),
		    sym__shard_in_name(s, 0),
		    sym__shard_axes_txt(s, s->in[1], 1),
		    sym__shard_in_name(s, 1));
	if (group > 1 &&
	    sym__shard_unsplit(s, 0, 1,
	        "conv2d has group > 1, so its input channel dimension") < 0)
		return -1;
	if (sym__lb_init(s, &b, 4) < 0)
		return -1;
	sym__lb_copy(&b, 0, s->in[0], 0);
	sym__lb_copy(&b, 1, s->in[1], 0);
	sym__lb_partial_dim(&b, s->in[0], 1);
	return sym__shard_set_out(s, 0, &b);
}

/* Return the input that holds the weight in the gradient run "s": 1 in
 * conv2d_input_grad(dy, weight, x), 2 in conv2d_weight_grad(dy, x,
 * weight); x is the other of 1 and 2. */
static size_t
weight_input(const struct sym__shard *s)
{
	return s->op->id == SYM__OP_CONV2D_WEIGHT_GRAD ? 2 : 1;
}

/* The tuple step of conv2d_input_grad and conv2d_weight_grad: x is
 * input "ix" and the weight input "iw", dy input 0; the device matrix is
 * (n, c, h, w, o) from the strategies of x, the weight and dy, which
 * must agree where they split the same dimension. "s" is the run,
 * "split" the split counts by input. */
int
sym__shard_tuple_conv2d_grad(struct sym__shard *s, const int64_t *const *split)
{
	size_t iw = weight_input(s), ix = 3 - iw;
	const int64_t *dy = split[0], *x = split[ix], *w = split[iw];
	int64_t sizes[5] = { 1, 1, 1, 1, 1 };
	const char *names[5] = { "n", "c", "h", "w", "o" };
	int x_axes[4] = { 0, 1, 2, 3 }, w_axes[4] = { 4, 1, -1, -1 };
	int dy_axes[4] = { 0, 4, -1, -1 };
	/* by axis: the input and dimension that set it */
	static const struct {
		int input; /* 0 dy, 1 x, 2 w */
		int dim;
	} from[][2] = { { { 1, 0 }, { 0, 0 } }, { { 1, 1 }, { 2, 1 } },
		{ { 1, 2 }, { 1, 2 } }, { { 1, 3 }, { 1, 3 } },
		{ { 2, 0 }, { 0, 1 } } };
	const int64_t *by[3] = { dy, x, w };
	size_t idx[3] = { 0, ix, iw };

	for (size_t a = 0; a < 5; a++) {
		const int64_t *p = by[from[a][0].input];
		const int64_t *q = by[from[a][1].input];
		int dp = from[a][0].dim, dq = from[a][1].dim;

		if (p && q && p[dp] != q[dq])
			return sym__shard_fail(s, (int)idx[from[a][1].input],
			    dq,
			    "dimension %d of %s is split %lld way%s, but "
			    "dimension %d of %s %lld way%s: they must be split "
			    "alike",
			    dq, sym__shard_in_name(s, idx[from[a][1].input]),
			    (long long)q[dq], SYM__WAYS(q[dq]), dp,
			    sym__shard_in_name(s, idx[from[a][0].input]),
			    (long long)p[dp], SYM__WAYS(p[dp]));
		sizes[a] = p ? p[dp] : q ? q[dq] : 1;
	}
	if (sym__shard_set_mesh(s, 5, sizes, names) < 0)
		return -1;
	if (dy && sym__shard_map(s, 0, dy, dy_axes) < 0)
		return -1;
	if (x && sym__shard_map(s, ix, x, x_axes) < 0)
		return -1;
	return w ? sym__shard_map(s, iw, w, w_axes) : 0;
}

/* Give input "i" of "s", which has none, the layout whose dimension "d"
 * is split like dimension "ad" of input "a" and dimension "e" like
 * dimension "be" of input "b" (inputs without a layout give nothing),
 * of rank 4; 0 or -1. */
static int
complete4(struct sym__shard *s, size_t i, size_t d, size_t a, size_t ad,
    size_t e, size_t b, size_t be)
{
	struct sym__lb lb;

	if (s->in[i])
		return 0;
	if (sym__lb_init(s, &lb, 4) < 0)
		return -1;
	if (s->in[a])
		sym__lb_copy(&lb, d, s->in[a], ad);
	if (s->in[b])
		sym__lb_copy(&lb, e, s->in[b], be);
	return sym__shard_set_in(s, i, &lb);
}

/* Fail in "s" unless dimension "da" of input "a" and dimension "db" of
 * input "b" are split alike ("what" names the dimension); 0 or -1. */
static int
alike(struct sym__shard *s, size_t a, size_t da, size_t b, size_t db,
    const char *what)
{
	if (sym__shard_same_dim(s->in[a], da, s->in[b], db))
		return 0;
	return sym__shard_fail(s, (int)b, (int)db,
	    "dimension %zu of %s (%s) is split by %s, but dimension %zu of "
	    "%s by %s: they must be split alike",
	    db, sym__shard_in_name(s, b), what,
	    sym__shard_axes_txt(s, s->in[b], db), da, sym__shard_in_name(s, a),
	    sym__shard_axes_txt(s, s->in[a], da));
}

/* The layout step of conv2d_input_grad and conv2d_weight_grad (see the
 * top of the file): x is input "ix", the weight input "iw", dy input 0;
 * "s" is the run. */
int
sym__shard_infer_conv2d_grad(struct sym__shard *s)
{
	size_t iw = weight_input(s), ix = 3 - iw;
	int64_t group = s->at->conv.group;
	int weight = iw == 2;
	struct sym__lb b;

	if (!s->in[0] && !s->in[ix] && !s->in[iw] &&
	    sym__shard_default_replicated(s, 0) < 0)
		return -1;
	if (complete4(s, 0, 0, ix, 0, 1, iw, 0) < 0 ||
	    complete4(s, ix, 0, 0, 0, 1, iw, 1) < 0 ||
	    complete4(s, iw, 0, 0, 1, 1, ix, 1) < 0)
		return -1;
	for (size_t d = 2; d < 4; d++)
		if (sym__shard_unsplit(s, ix, d,
		        "it is a spatial dimension, which") < 0 ||
		    sym__shard_unsplit(s, iw, d,
		        "it is a spatial dimension of the kernel, which") < 0 ||
		    sym__shard_unsplit(s, 0, d,
		        "it is a spatial dimension of dy, which") < 0)
			return -1;
	if (alike(s, ix, 0, 0, 0, "the batch") < 0 ||
	    alike(s, iw, 0, 0, 1, "the output channels") < 0 ||
	    alike(s, ix, 1, iw, 1, "the input channels") < 0)
		return -1;
	if (group > 1 &&
	    sym__shard_unsplit(s, ix, 1,
	        "conv2d has group > 1, so its input channel dimension") < 0)
		return -1;
	if (sym__lb_init(s, &b, 4) < 0)
		return -1;
	for (size_t d = 0; d < 4; d++)
		sym__lb_copy(&b, d, s->in[weight ? iw : ix], d);
	sym__lb_partial_dim(&b, s->in[weight ? ix : iw], 0);
	return sym__shard_set_out(s, 0, &b);
}
