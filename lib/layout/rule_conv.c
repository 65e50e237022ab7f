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
 */
#include "layout/rule_private.h"

/* The tuple step: "s" is the run, "split" the split counts by input. */
static int
tuple_conv2d(struct sym__shard *s, const int64_t *const *split)
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
static int
infer_conv2d(struct sym__shard *s)
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

const struct sym__shard_rule sym__shard_conv[SYM__N_OPS] = {
	[SYM__OP_CONV2D] = { 0, tuple_conv2d, infer_conv2d },
};
