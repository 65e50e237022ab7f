/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the pooling family, NCHW. The device matrix is x's
 * strategy, axes (n, c, h, w).
 *
 *  - max_pool2d, avg_pool2d: the batch and the channels may be split.
 *    A spatial dimension may be split only where every block holds whole
 *    windows and no window needs a neighbour's rows (no halo exchange):
 *    kernel == stride, dilation 1 and no padding along it, and the size
 *    provably divisible by the split times the kernel (so that the
 *    output splits alike). Otherwise the rule refuses, explaining the
 *    halo. The output is laid out like x.
 *  - global_avg_pool: any dimension may be split; the output [N, C, 1,
 *    ...] is split like x's N and C and holds partial sums over the axes
 *    that split the pooled dimensions (the kernel divides by their
 *    global sizes), which the pass resolves.
 *  - the gradients (dy, x): dy laid out like the forward output, the
 *    result like x, under the same conditions.
 */
#include "rules/rule_private.h"

/* Return the input that holds x in the run "s": 1 in the gradients
 * (dy, x), 0 in the forward operators. */
static size_t
x_input(const struct sym__shard *s)
{
	switch (s->op->id) {
	case SYM__OP_MAX_POOL2D_GRAD:
	case SYM__OP_AVG_POOL2D_GRAD:
	case SYM__OP_GLOBAL_AVG_POOL_GRAD:
		return 1;
	default:
		return 0;
	}
}

/* The tuple step of every pooling operator: the device matrix is the
 * strategy of x (input "ix", see x_input), (n, c, h, w, ...); dy (input
 * 0 in the gradients) is laid out like x, its pooled dimensions unsplit for
 * global_avg_pool_grad. "s" is the run, "split" the split counts by
 * input. */
int
sym__shard_tuple_pool(struct sym__shard *s, const int64_t *const *split)
{
	static const char *const names4[4] = { "n", "c", "h", "w" };
	size_t ix = x_input(s), r = sym__shard_in_rank(s, ix);
	int global = s->op->id == SYM__OP_GLOBAL_AVG_POOL_GRAD;
	const int64_t *x = split[ix];
	int64_t *sizes = sym__shard_scratch(s, r, sizeof(*sizes));
	int *axis_of = sym__shard_scratch(s, r, sizeof(*axis_of));
	const char **names =
	    r == 4 ? (const char **)names4 : sym__shard_axis_names(s, "d", r);

	if (!sizes || !axis_of || !names)
		return sym__shard_nomem(s);
	for (size_t d = 0; d < r; d++) {
		sizes[d] = x                               ? x[d]
		    : ix && split[0] && (!global || d < 2) ? split[0][d]
		                                           : 1;
		axis_of[d] = (int)d;
	}
	if (sym__shard_set_mesh(s, r, sizes, names) < 0 ||
	    sym__shard_map(s, ix, x, axis_of) < 0)
		return -1;
	if (!ix || !split[0])
		return 0;
	for (size_t d = 2; global && d < r; d++)
		axis_of[d] = -1;
	return sym__shard_map(s, 0, split[0], axis_of);
}

/* Fail in "s" unless spatial dimension "d" (2 or 3) of x (input "ix"),
 * when split, holds whole windows in every block: kernel == stride,
 * dilation 1, no padding, and the size provably divisible by the split
 * times the kernel; 0 or -1. */
static int
spatial_ok(struct sym__shard *s, size_t ix, size_t d)
{
	const sym_layout *l = s->in[ix];
	size_t i = d - 2;
	int64_t k = s->at->pool.kernel[i], st = s->at->pool.stride[i];
	int64_t dil = s->at->pool.dilation[i];
	int64_t pa = s->at->pool.pad[2 * i], pb = s->at->pool.pad[2 * i + 1];
	int64_t m = sym_layout_dim_splits(l, d), mk;
	const char *dim = i ? "width" : "height";
	sym_answer ans;

	if (!sym__shard_is_split(l, d))
		return 0;
	if (k != st || (dil != 1 && k != 1) || pa || pb)
		return sym__shard_fail(s, (int)ix, (int)d,
		    "dimension %zu of %s (the %s) is split by %s, but the "
		    "windows of %s overlap or are padded along it (kernel "
		    "%lld, stride %lld, dilation %lld, pad %lld, %lld): a "
		    "block would need a halo of its neighbours' elements, "
		    "which is not exchanged; a spatial dimension may be split "
		    "only with kernel == stride, dilation 1 and no padding",
		    d, sym__shard_in_name(s, ix), dim,
		    sym__shard_axes_txt(s, l, d), s->op->name, (long long)k,
		    (long long)st, (long long)dil, (long long)pa,
		    (long long)pb);
	if (__builtin_mul_overflow(m, k, &mk))
		mk = 0;
	ans = mk
	    ? sym_prove_divisible(s->ctx, s->in_shape[ix]->dim[d], mk, NULL)
	    : SYM_FALSE;
	if (ans == SYM_ERROR)
		sym_ctx_clear_error(s->ctx);
	if (ans == SYM_TRUE)
		return 0;
	return sym__shard_fail(s, (int)ix, (int)d,
	    "dimension %zu of %s (the %s) is split %lld way%s, but its size "
	    "is not provably divisible by %lld (the split times the kernel "
	    "%lld): the blocks would not hold whole windows of %s",
	    d, sym__shard_in_name(s, ix), dim, (long long)m, SYM__WAYS(m),
	    (long long)mk, (long long)k, s->op->name);
}

/* The layout step of max_pool2d and avg_pool2d (see the top of the
 * file); "s" is the run. */
int
sym__shard_infer_pool(struct sym__shard *s)
{
	if (sym__shard_default_replicated(s, 0) < 0 ||
	    spatial_ok(s, 0, 2) < 0 || spatial_ok(s, 0, 3) < 0)
		return -1;
	return sym__shard_out_same(s, 0, 0);
}

/* Give input "i" of "s", which has none, the layout of input "j" in its
 * first "n" dimensions (the rest unsplit); 0 or -1. */
static int
complete_from(struct sym__shard *s, size_t i, size_t j, size_t n)
{
	struct sym__lb b;

	if (s->in[i])
		return 0;
	if (sym__lb_init(s, &b, sym__shard_in_rank(s, i)) < 0)
		return -1;
	for (size_t d = 0; d < n; d++)
		sym__lb_copy(&b, d, s->in[j], d);
	return sym__shard_set_in(s, i, &b);
}

/* Fail in "s" unless dimensions 0 to "n" - 1 of dy (input 0) and x
 * (input 1) are split alike; 0 or -1. */
static int
dy_alike(struct sym__shard *s, size_t n)
{
	for (size_t d = 0; d < n; d++)
		if (sym__shard_dy_like(s, d, 1, d) < 0)
			return -1;
	return 0;
}

/* The layout step of max_pool2d_grad and avg_pool2d_grad; "s" is the
 * run. */
int
sym__shard_infer_pool_grad(struct sym__shard *s)
{
	if (!s->in[0] && !s->in[1] && sym__shard_default_replicated(s, 1) < 0)
		return -1;
	if (complete_from(s, 0, 1, 4) < 0 || complete_from(s, 1, 0, 4) < 0 ||
	    dy_alike(s, 4) < 0 || spatial_ok(s, 1, 2) < 0 ||
	    spatial_ok(s, 1, 3) < 0)
		return -1;
	return sym__shard_out_same(s, 0, 1);
}

/* The layout step of global_avg_pool (see the top of the file); "s" is
 * the run. */
int
sym__shard_infer_global_avg_pool(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0);
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__lb_init(s, &b, r) < 0)
		return -1;
	sym__lb_copy(&b, 0, s->in[0], 0);
	sym__lb_copy(&b, 1, s->in[0], 1);
	for (size_t d = 2; d < r; d++)
		sym__lb_partial_dim(&b, s->in[0], d);
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step of global_avg_pool_grad(dy, x): dy split like x's N
 * and C, its pooled dimensions unsplit; the result like x. "s" is the
 * run. */
int
sym__shard_infer_global_avg_pool_grad(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 1);

	if (!s->in[0] && !s->in[1] && sym__shard_default_replicated(s, 1) < 0)
		return -1;
	if (complete_from(s, 0, 1, 2) < 0 || complete_from(s, 1, 0, 2) < 0 ||
	    dy_alike(s, 2) < 0)
		return -1;
	for (size_t d = 2; d < r; d++)
		if (sym__shard_unsplit(s, 0, d,
		        "it is a pooled dimension of dy (size 1), which") < 0)
			return -1;
	return sym__shard_out_same(s, 0, 1);
}
