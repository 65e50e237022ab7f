/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the gradient family. Each is chosen so that a
 * gradient operator laid out like the forward operator it comes from
 * needs no communication of its own:
 *
 *  - gelu_grad, sigmoid_grad, tanh_grad, sqrt_grad, softmax_grad and
 *    log_softmax_grad: the device matrix is the strategy of dy ("d0",
 *    "d1", ...); both operands are split alike and the gradient is laid
 *    out like them; the softmax axes are unsplit, as for the forward
 *    operator;
 *  - sce_grad(logits, labels, dloss[, count]): ("batch", "class") as
 *    softmax_cross_entropy: the class dimension unsplit, the labels (and
 *    dloss [N] for reduction "none") split like the batch, a scalar
 *    dloss and the count of a mean (sce_count's, all-reduced)
 *    replicated; the gradient is laid out like the logits (the mean
 *    divides by the global count, so nothing is partial); with the
 *    statistics of a class-split loss (sce_target's and sce_sumexp's,
 *    all-reduced, the last two operands, split like the batch) the
 *    class dimension may be split too;
 *  - reduce_sum_grad, reduce_mean_grad, reduce_max_grad(dy, x[, y]): the
 *    device matrix is the strategy of x; the gradient is laid out like
 *    x, dy (and y) like the dimensions x keeps. A reduced dimension may
 *    stay split, the broadcast being local (the mean divides by the
 *    global count), except for reduce_max_grad, which counts the ties
 *    along it;
 *  - layer_norm_grad(dy, x, gamma): the device matrix is the strategy of
 *    x, dy split alike, the normalised dimensions unsplit and gamma
 *    split like the dimensions of x it spans, as layer_norm; dx is laid
 *    out like x, dgamma and dbeta like gamma, holding partial sums over
 *    the axes that split the dimensions of x before begin_params_axis.
 */
#include "rules/rule_private.h"

/* The layout step of the unary gradients, softmax_grad and
 * log_softmax_grad: operands split alike, the softmax axes unsplit, the
 * gradient laid out like the operands; "s" is the run. */
int
sym__shard_infer_alike(struct sym__shard *s)
{
	int first = sym__shard_complete_alike(s);
	int soft = s->op->id == SYM__OP_SOFTMAX_GRAD ||
	    s->op->id == SYM__OP_LOG_SOFTMAX_GRAD;
	const unsigned char *mark = soft ? s->at->norm.mark : NULL;

	if (first < 0)
		return -1;
	for (size_t d = 0; mark && d < sym__shard_in_rank(s, 0); d++)
		if (mark[d] &&
		    sym__shard_unsplit(s, (size_t)first, d,
		        "it is a softmax axis, which") < 0)
			return -1;
	return sym__shard_out_same(s, 0, (size_t)first);
}

/* The tuple step of sce_grad(logits, labels, dloss): the device matrix
 * is ("batch", "class"), the strategy of the logits or, without one, the
 * batch split of the labels or of dloss; "s" is the run, "split" the
 * split counts by input. */
int
sym__shard_tuple_sce_grad(struct sym__shard *s, const int64_t *const *split)
{
	int none = s->at->loss.reduction == SYM__RED_NONE;

	if (sym__shard_loss_mesh(s, split, none ? 2 : -1) < 0)
		return -1;
	for (size_t i = 0; i < 3; i++)
		if (sym__shard_map_from(s, i, split[i], 0) < 0)
			return -1;
	for (size_t i = s->n_in >= 5 ? s->n_in - 2 : s->n_in; i < s->n_in; i++)
		if (sym__shard_map_from(s, i, split[i], 0) < 0)
			return -1;
	return 0;
}

/* The layout step of sce_grad: the class dimension unsplit, the labels
 * (and dloss [N] for reduction "none") split like the batch, a scalar
 * dloss replicated; the gradient laid out like the logits. "s" is the
 * run. */
int
sym__shard_infer_sce_grad(struct sym__shard *s)
{
	int none = s->at->loss.reduction == SYM__RED_NONE;
	size_t from = s->in[0] ? 0 : s->in[1] ? 1 : none && s->in[2] ? 2 : 0;

	if (sym__shard_default_replicated(s, from) < 0 ||
	    sym__shard_complete_from(s, 0, from, 0, 2) < 0 ||
	    sym__shard_complete_from(s, 1, 0, 0, 1) < 0 ||
	    sym__shard_complete_from(s, 2, 0, 0, none ? 1 : 0) < 0 ||
	    (s->n_in < 5 &&
	        sym__shard_unsplit(s, 0, 1,
	            "it is the class dimension, which (without "
	            "vocab_parallel=1)") < 0))
		return -1;
	if ((s->n_in == 4 || s->n_in == 6) &&
	    sym__shard_complete_from(s, 3, 0, 0, 0) < 0)
		return -1;
	for (size_t i = s->n_in >= 5 ? s->n_in - 2 : s->n_in; i < s->n_in; i++)
		if (sym__shard_sce_stat(s, i) < 0)
			return -1;
	for (size_t i = 1; i < (none ? 3u : 2u); i++)
		if (sym__shard_sce_stat(s, i) < 0)
			return -1;
	return sym__shard_out_same(s, 0, 0);
}

/* Store in "kept" (room for the rank of x) the dimension of dy that each
 * dimension of x, input 1 of the reduce gradient of "s", becomes (-1:
 * reduced away). */
static void
kept_dims(const struct sym__shard *s, int *kept)
{
	const unsigned char *mark = s->at->reduce.mark;
	int keep = s->at->reduce.keep_dims, k = 0;

	for (size_t d = 0; d < sym__shard_in_rank(s, 1); d++)
		kept[d] = mark[d] && !keep ? -1 : k++;
}

/* The tuple step of the reduce gradients: the device matrix is the
 * strategy of x ("d0", "d1", ...) or, without one, that of dy (or y) on
 * the dimensions x keeps; dy and y are split like those dimensions of
 * x. "s" is the run, "split" the split counts by input. */
int
sym__shard_tuple_reduce_grad(struct sym__shard *s, const int64_t *const *split)
{
	size_t r = sym__shard_in_rank(s, 1), ry = sym__shard_in_rank(s, 0);
	const unsigned char *mark = s->at->reduce.mark;
	int64_t *sizes = sym__shard_scratch(s, r, sizeof(*sizes));
	int *kept = sym__shard_scratch(s, r, sizeof(*kept));
	int *axis_of = sym__shard_scratch(s, ry, sizeof(*axis_of));
	const int64_t *dy = split[0] ? split[0] : s->n_in > 2 ? split[2] : NULL;

	if (!sizes || !kept || !axis_of)
		return sym__shard_nomem(s);
	kept_dims(s, kept);
	for (size_t d = 0; d < r; d++) {
		sizes[d] = split[1] ? split[1][d] : 1;
		if (!split[1] && dy && kept[d] >= 0 && !mark[d])
			sizes[d] = dy[kept[d]];
		if (kept[d] >= 0)
			axis_of[kept[d]] = mark[d] ? -1 : (int)d;
	}
	if (sym__shard_tuple_input(s, sizes, 1, "d") < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++)
		if (i != 1 && split[i] &&
		    sym__shard_map(s, i, split[i], axis_of) < 0)
			return -1;
	return 0;
}

/* The layout step of the reduce gradients: the gradient is laid out
 * like x, whose reduced dimensions may stay split (the broadcast is
 * local) except for reduce_max_grad, which needs them whole to count
 * the ties; dy and y are split like the dimensions x keeps, their
 * kept dimensions of size 1 unsplit. "s" is the run. */
int
sym__shard_infer_reduce_grad(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 1), ry = sym__shard_in_rank(s, 0);
	const unsigned char *mark = s->at->reduce.mark;
	int *kept = sym__shard_scratch(s, r, sizeof(*kept));
	size_t g = s->in[0] ? 0 : s->n_in > 2 && s->in[2] ? 2 : 0;
	struct sym__lb b;

	if (!kept)
		return sym__shard_nomem(s);
	if (!mark)
		return sym__shard_fail(s, -1, -1,
		    "internal error: %s has no decoded axes",
		    sym_op_name(s->op));
	kept_dims(s, kept);
	if (!s->in[1] && s->in[g]) {
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t d = 0; d < r; d++)
			if (kept[d] >= 0 && !mark[d])
				sym__lb_copy(&b, d, s->in[g], (size_t)kept[d]);
		if (sym__shard_set_in(s, 1, &b) < 0)
			return -1;
	}
	if (sym__shard_default_replicated(s, 1) < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++) {
		if (i == 1 || s->in[i])
			continue;
		if (sym__lb_init(s, &b, ry) < 0)
			return -1;
		for (size_t d = 0; d < r; d++)
			if (kept[d] >= 0 && !mark[d])
				sym__lb_copy(&b, (size_t)kept[d], s->in[1], d);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t d = 0; d < r; d++) {
		if (mark[d] && s->op->id == SYM__OP_REDUCE_MAX_GRAD &&
		    sym__shard_unsplit(s, 1, d,
		        "reduce_max_grad counts the ties of the maximum "
		        "along it, so it") < 0)
			return -1;
		if (mark[d] && s->op->id == SYM__OP_REDUCE_PROD_GRAD &&
		    sym__shard_unsplit(s, 1, d,
		        "reduce_prod_grad multiplies the other elements "
		        "along it, so it") < 0)
			return -1;
		for (size_t i = 0; i < s->n_in && kept[d] >= 0; i++) {
			size_t k = (size_t)kept[d];

			if (i == 1)
				continue;
			if (mark[d] &&
			    sym__shard_unsplit(s, i, k,
			        "it is a reduced dimension of size 1, which") <
			        0)
				return -1;
			if (!mark[d] &&
			    !sym__shard_same_dim(s->in[i], k, s->in[1], d))
				return sym__shard_fail(s, (int)i, (int)k,
				    "dimension %zu of %s is split by %s, but "
				    "dimension %zu of %s by %s: they must be "
				    "split alike",
				    k, sym__shard_in_name(s, i),
				    sym__shard_axes_txt(s, s->in[i], k), d,
				    sym__shard_in_name(s, 1),
				    sym__shard_axes_txt(s, s->in[1], d));
		}
	}
	return sym__shard_out_same(s, 0, 1);
}

/* The tuple step of layer_norm_grad(dy, x, gamma): the device matrix is
 * the strategy of x, or of dy without one ("d0", ...); dy is split like
 * x and gamma like the dimensions of x it spans. "s" is the run, "split"
 * the split counts by input. */
int
sym__shard_tuple_layer_norm_grad(struct sym__shard *s,
    const int64_t *const *split)
{
	size_t params = s->at->norm.begin_params;
	size_t first = split[1] || !split[0] ? 1 : 0;

	if (sym__shard_tuple_input(s, split[first], first, "d") < 0)
		return -1;
	if (first == 1 && sym__shard_map_from(s, 0, split[0], 0) < 0)
		return -1;
	return sym__shard_map_from(s, 2, split[2], params);
}

/* The layout step of layer_norm_grad: dy and x split alike, the
 * normalised dimensions unsplit, gamma split like the dimensions of x
 * it spans; dx is laid out like x, dgamma and dbeta like gamma with
 * partial sums over the axes that split the dimensions of x before
 * begin_params_axis, which they sum over. "s" is the run. */
int
sym__shard_infer_layer_norm_grad(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 1);
	size_t norm = s->at->norm.begin_norm;
	size_t params = s->at->norm.begin_params;
	size_t x = s->in[1] || !s->in[0] ? 1 : 0;
	struct sym__lb b;

	if (!s->in[x] && s->in[2]) {
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t j = 0; j + params < r; j++)
			sym__lb_copy(&b, params + j, s->in[2], j);
		if (sym__shard_set_in(s, x, &b) < 0)
			return -1;
	}
	if (sym__shard_default_replicated(s, x) < 0)
		return -1;
	if (!s->in[1 - x]) {
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t d = 0; d < r; d++)
			sym__lb_copy(&b, d, s->in[x], d);
		if (sym__shard_set_in(s, 1 - x, &b) < 0)
			return -1;
	}
	if (!s->in[2]) {
		if (sym__lb_init(s, &b, r - params) < 0)
			return -1;
		for (size_t j = 0; j + params < r; j++)
			sym__lb_copy(&b, j, s->in[x], params + j);
		if (sym__shard_set_in(s, 2, &b) < 0)
			return -1;
	}
	for (size_t d = 0; d < r; d++)
		if (!sym__shard_same_dim(s->in[0], d, s->in[1], d))
			return sym__shard_fail(s, 0, (int)d,
			    "dimension %zu of %s is split by %s, but the same "
			    "dimension of %s by %s: dy and x must be split "
			    "alike",
			    d, sym__shard_in_name(s, 0),
			    sym__shard_axes_txt(s, s->in[0], d),
			    sym__shard_in_name(s, 1),
			    sym__shard_axes_txt(s, s->in[1], d));
	for (size_t d = norm; d < r; d++)
		if (sym__shard_unsplit(s, 1, d,
		        "it is normalised by layer_norm, so it") < 0)
			return -1;
	for (size_t j = 0; j + params < r; j++)
		if (!sym__shard_same_dim(s->in[2], j, s->in[1], params + j))
			return sym__shard_fail(s, 2, (int)j,
			    "dimension %zu of %s is split by %s, but dimension "
			    "%zu of %s by %s: gamma must be split like the "
			    "dimensions of x it spans",
			    j, sym__shard_in_name(s, 2),
			    sym__shard_axes_txt(s, s->in[2], j), params + j,
			    sym__shard_in_name(s, 1),
			    sym__shard_axes_txt(s, s->in[1], params + j));
	if (sym__shard_out_same(s, 0, 1) < 0)
		return -1;
	for (size_t k = 1; k < s->n_out; k++) {
		if (sym__lb_init(s, &b, r - params) < 0)
			return -1;
		for (size_t j = 0; j + params < r; j++)
			sym__lb_copy(&b, j, s->in[2], j);
		for (size_t d = 0; d < params; d++)
			sym__lb_partial_dim(&b, s->in[1], d);
		if (sym__shard_set_out(s, k, &b) < 0)
			return -1;
	}
	return 0;
}

/* Return the dimension of input "i" of "s" aligned (from the right)
 * with dimension "j" of dy, input 0 of rank "n", or -1 when it has
 * none. */
static int
aligned_dy(const struct sym__shard *s, size_t i, size_t j, size_t n)
{
	size_t r = sym__shard_in_rank(s, i);

	return j + r >= n ? (int)(j + r - n) : -1;
}

/* Return 1 when dimension "d" of input "i" of "s" is broadcast against
 * dimension "j" of dy (input 0): it is the constant 1 and dy's is
 * not. */
static int
broadcast_dy(const struct sym__shard *s, size_t i, size_t d, size_t j)
{
	int64_t a, o;

	if (i == 0 || sym_expr_get_const(s->in_shape[i]->dim[d], &a) < 0 ||
	    a != 1)
		return 0;
	return sym_expr_get_const(s->in_shape[0]->dim[j], &o) < 0 || o != 1;
}

/* The tuple step of maximum_grad and minimum_grad(dy, a, b): the device
 * matrix is the strategy of dy or, without one, that of the operands
 * on the dimensions they do not broadcast; "s" is the run, "split" the
 * split counts by input. */
int
sym__shard_tuple_extremum(struct sym__shard *s, const int64_t *const *split)
{
	return sym__shard_tuple_broadcast(s, split, 3, s->in_shape[0]);
}

/* Give dy, input 0 of "s" of rank "n", which has no layout, the splits
 * of the operands on the dimensions they do not broadcast; 0 or -1. */
static int
complete_dy(struct sym__shard *s, size_t n)
{
	struct sym__lb b;

	if (sym__lb_init(s, &b, n) < 0)
		return -1;
	for (size_t j = 0; j < n; j++)
		for (size_t i = 1; i < 3; i++) {
			int d = aligned_dy(s, i, j, n);

			if (d >= 0 && s->in[i] &&
			    !broadcast_dy(s, i, (size_t)d, j)) {
				sym__lb_copy(&b, j, s->in[i], (size_t)d);
				break;
			}
		}
	return sym__shard_set_in(s, 0, &b);
}

/* The layout step of maximum_grad and minimum_grad: a and b split like
 * the dimensions of dy they are aligned with, broadcast dimensions
 * unsplit; both gradients laid out like dy. "s" is the run. */
int
sym__shard_infer_extremum(struct sym__shard *s)
{
	size_t n = sym__shard_in_rank(s, 0);
	struct sym__lb b;

	if (!s->in[0] && !s->in[1] && !s->in[2] &&
	    sym__shard_default_replicated(s, 0) < 0)
		return -1;
	if (!s->in[0] && complete_dy(s, n) < 0)
		return -1;
	for (size_t i = 1; i < 3; i++) {
		size_t r = sym__shard_in_rank(s, i);

		if (s->in[i])
			continue;
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t d = 0; d < r; d++)
			if (!broadcast_dy(s, i, d, d + n - r))
				sym__lb_copy(&b, d, s->in[0], d + n - r);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t i = 1; i < 3; i++) {
		size_t r = sym__shard_in_rank(s, i);

		for (size_t d = 0; d < r; d++) {
			size_t j = d + n - r;

			if (broadcast_dy(s, i, d, j)) {
				if (sym__shard_unsplit(s, i, d,
				        "it has size 1 and is broadcast, so "
				        "it") < 0)
					return -1;
			} else if (!sym__shard_same_dim(s->in[i], d, s->in[0],
			               j)) {
				return sym__shard_fail(s, (int)i, (int)d,
				    "dimension %zu of %s is split by %s, but "
				    "the matching dimension %zu of dy %s by "
				    "%s: they must be split alike",
				    d, sym__shard_in_name(s, i),
				    sym__shard_axes_txt(s, s->in[i], d), j,
				    sym__shard_in_name(s, 0),
				    sym__shard_axes_txt(s, s->in[0], j));
			}
		}
	}
	if (sym__shard_out_same(s, 0, 0) < 0)
		return -1;
	return sym__shard_out_same(s, 1, 0);
}

/* Store in "src" and "dim", for each dimension of dy of gather_grad or
 * embedding_grad ("emb") in "s" (rank of the table - 1 + rank of the
 * indices), the input it is split like (2 the table, 1 the indices) and
 * that input's dimension: gather's output, params' dimensions around
 * the indices'; embedding's, the ids' then the embedding dimension. */
static void
dy_sources(const struct sym__shard *s, int emb, size_t *src, size_t *dim)
{
	size_t rp = sym__shard_in_rank(s, 2), ri = sym__shard_in_rank(s, 1);
	size_t ax = emb ? 0 : s->at->gather.axis, k = 0;

	for (size_t d = 0; d < rp; d++) {
		if (d != ax) {
			src[k] = 2;
			dim[k++] = d;
			continue;
		}
		for (size_t j = 0; j < ri; j++) {
			src[k] = 1;
			dim[k++] = j;
		}
	}
}

/* The tuple step of gather_grad ("emb" 0) and embedding_grad ("emb"
 * 1): the device matrix of the forward operator, (p0, ..., i0, ...) or
 * (i0, ..., vocab, embed), from the strategies of the table and of the
 * indices, or of dy where they have none; "s" is the run, "split" the
 * split counts by input. */
int
sym__shard_tuple_scatter(struct sym__shard *s, const int64_t *const *split)
{
	int emb = s->op->id == SYM__OP_EMBEDDING_GRAD;
	size_t rp = sym__shard_in_rank(s, 2), ri = sym__shard_in_rank(s, 1);
	size_t ry = sym__shard_in_rank(s, 0);
	size_t pb = emb ? ri : 0, ib = emb ? 0 : rp;
	static const char *const table[] = { "vocab", "embed" };
	const char **pn, **in;
	size_t src[SYM_MESH_MAX_AXES], dim[SYM_MESH_MAX_AXES];
	int64_t sizes[SYM_MESH_MAX_AXES];
	const char *names[SYM_MESH_MAX_AXES];
	int axis_of[SYM_MESH_MAX_AXES];

	if (sym__shard_gather_axes(s, rp, ri, &pn, &in) < 0)
		return -1;
	dy_sources(s, emb, src, dim);
	sym__shard_axes_put(sizes, names, pb, rp, split[2], emb ? table : pn);
	sym__shard_axes_put(sizes, names, ib, ri, split[1], in);
	for (size_t k = 0; k < ry; k++) {
		axis_of[k] = (int)((src[k] == 2 ? pb : ib) + dim[k]);
		if (split[0] && !split[src[k]])
			sizes[axis_of[k]] = split[0][k];
	}
	if (sym__shard_set_mesh(s, rp + ri, sizes, names) < 0 ||
	    (split[0] && sym__shard_map(s, 0, split[0], axis_of) < 0))
		return -1;
	if (sym__shard_map_from(s, 1, split[1], ib) < 0)
		return -1;
	return sym__shard_map_from(s, 2, split[2], pb);
}

/* The layout step of gather_grad ("emb" 0) and embedding_grad ("emb"
 * 1): the table and the indices completed from dy (the gathered
 * dimension, and the vocabulary of the table, unsplit), dy from them,
 * dy split like the dimensions it comes from; the gradient laid out
 * like the table, partial over the axes of the indices. "s" is the run.
 */
int
sym__shard_infer_scatter(struct sym__shard *s)
{
	int emb = s->op->id == SYM__OP_EMBEDDING_GRAD;
	size_t rp = sym__shard_in_rank(s, 2), ri = sym__shard_in_rank(s, 1);
	size_t ry = sym__shard_in_rank(s, 0);
	size_t src[SYM_MESH_MAX_AXES], dim[SYM_MESH_MAX_AXES];
	struct sym__lb b;

	if (ry > SYM_MESH_MAX_AXES)
		return sym__shard_fail(s, 0, -1,
		    "%s of %zu dimensions is not supported", sym_op_name(s->op),
		    ry);
	dy_sources(s, emb, src, dim);
	if (!s->in[0] && !s->in[1] && !s->in[2] &&
	    sym__shard_default_replicated(s, 2) < 0)
		return -1;
	for (size_t i = 1; i < 3; i++) {
		if (s->in[i])
			continue;
		if (sym__lb_init(s, &b, i == 2 ? rp : ri) < 0)
			return -1;
		for (size_t k = 0; k < ry && s->in[0]; k++)
			if (src[k] == i)
				sym__lb_copy(&b, dim[k], s->in[0], k);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	if (!s->in[0]) {
		if (sym__lb_init(s, &b, ry) < 0)
			return -1;
		for (size_t k = 0; k < ry; k++)
			sym__lb_copy(&b, k, s->in[src[k]], dim[k]);
		if (sym__shard_set_in(s, 0, &b) < 0)
			return -1;
	}
	for (size_t k = 0; k < ry; k++)
		if (sym__shard_dy_like(s, k, src[k], dim[k]) < 0)
			return -1;
	if (sym__lb_init(s, &b, rp) < 0)
		return -1;
	for (size_t d = 0; d < rp; d++)
		sym__lb_copy(&b, d, s->in[2], d);
	for (size_t j = 0; j < ri; j++)
		sym__lb_partial_dim(&b, s->in[1], j);
	return sym__shard_set_out(s, 0, &b);
}
