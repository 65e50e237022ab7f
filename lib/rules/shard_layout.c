/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the layout family: reshape, flatten, transpose /
 * permute, expand_dims and squeeze. Their device matrix is the strategy
 * of the input ("d0", "d1", ...).
 *
 * reshape and flatten (MindSpore's ReshapeInfo keeps a split when the
 * reshape leaves the split dimension's blocks contiguous): the input and
 * output dimensions are cut into groups of equal element count (matching
 * prefix products, e.g. [b, 1, 28, 28] -> [b, 784] gives {b} -> {b} and
 * {1, 28, 28} -> {784}). Within a group, a split of its first dimension
 * that is not 1 (the others unsplit) is kept on the output: on the merged
 * dimension when the group becomes one dimension, on the first output
 * dimension that is not 1 when it becomes several and the split provably
 * divides that dimension. Any other split cannot be kept: the reshape
 * needs its input gathered along those dimensions first (the producer's
 * layout is redistributed by an all_gather), and says so in a note.
 *
 * transpose / permute move each dimension's axes with the dimension;
 * expand_dims inserts an unsplit dimension; squeeze removes dimensions of
 * size 1, which must be unsplit.
 *
 * expand keeps the split of every dimension it does not broadcast; the
 * new leading dimensions and the broadcast ones (of size 1 in the input,
 * so unsplit) are replicated on the output. tile and pad keep the split
 * of the dimensions they leave alone (repeat count 1, no pad); a
 * dimension they tile or pad must be unsplit, since a block of the
 * result is not the tiled or padded block of the input (pad would need
 * the halo of the first and last blocks moved).
 */
#include "rules/rule_private.h"

/* Return 1 when "e" is the constant 1. */
static int
is_one(sym_expr *e)
{
	int64_t v;

	return sym_expr_get_const(e, &v) == 0 && v == 1;
}

/* Store in "p" (n + 1 entries, internal references) the prefix products
 * of the "n" dimensions "dim" of "s"; 0 or -1. */
static int
prefix(struct sym__shard *s, sym_expr *const *dim, size_t n, sym_expr **p)
{
	p[0] = sym__const(s->ctx, 1);
	for (size_t i = 0; p[i] && i < n; i++)
		p[i + 1] = sym__mul(p[i], dim[i]);
	for (size_t i = 0; i <= n; i++)
		if (!p[i])
			return sym__shard_nomem(s);
	return 0;
}

/* Release the "n" + 1 prefix products "p". */
static void
unprefix(sym_expr **p, size_t n)
{
	for (size_t i = 0; p && i <= n; i++)
		sym__expr_unref(p[i]);
}

/* Find the next group of the reshape of "p" input into "q" output
 * dimensions: the least "a" + "c" (stored through them: input and output
 * dimensions from "i" and "j") whose prefix products "pi" and "po" match;
 * the rest of both when none does. */
static void
next_group(sym_expr **pi, size_t p, sym_expr **po, size_t q, size_t i, size_t j,
    size_t *a, size_t *c)
{
	for (size_t total = 2; total <= (p - i) + (q - j); total++)
		for (size_t x = 1; x < total && x <= p - i; x++) {
			size_t y = total - x;

			if (y <= q - j &&
			    sym_expr_is_equal(pi[i + x], po[j + y]) ==
			        SYM_TRUE) {
				*a = x;
				*c = y;
				return;
			}
		}
	*a = p - i;
	*c = q - j;
}

/* Return 1 when "k" provably divides "e" in the context of "s". */
static int
divides(struct sym__shard *s, sym_expr *e, int64_t k)
{
	sym_answer a = sym_prove_divisible(s->ctx, e, k, NULL);

	if (a == SYM_ERROR)
		sym_ctx_clear_error(s->ctx);
	return a == SYM_TRUE;
}

/* The group of input dimensions "i" to "i" + "a" and output dimensions "j"
 * to "j" + "c" (exclusive) of the reshape in "s": copy the split it can
 * keep to "b", or mark its input dimensions for gathering in "gather".
 * Return 0 or -1. */
static int
group(struct sym__shard *s, size_t i, size_t a, size_t j, size_t c,
    struct sym__lb *b, unsigned char *gather)
{
	sym_expr *const *in = s->in_shape[0]->dim,
	                *const *out = s->out_shape[0]->dim;
	const sym_layout *l = s->in[0];
	size_t f = i, g = j, n_split = 0;
	int64_t k;

	for (size_t d = i; d < i + a; d++)
		n_split += (size_t)sym__shard_is_split(l, d);
	if (a == 1 && c == 1 && (n_split == 0 || !gather[i])) {
		sym__lb_copy(b, j, l, i);
		return 0;
	}
	if (n_split == 0)
		return 0;
	while (f + 1 < i + a && is_one(in[f]))
		f++;
	while (g + 1 < j + c && is_one(out[g]))
		g++;
	k = sym_layout_dim_splits(l, f);
	if (c > 0 && n_split == 1 && sym__shard_is_split(l, f) &&
	    (c == 1 || divides(s, out[g], k))) {
		sym__lb_copy(b, g, l, f);
		return 0;
	}
	for (size_t d = i; d < i + a; d++) {
		if (!sym__shard_is_split(l, d))
			continue;
		gather[d] = 1;
		if (sym__shard_note(s,
		        "%s cannot keep the split of dimension %zu of %s (by "
		        "%s): it needs %s gathered (all_gather) along that "
		        "dimension first",
		        sym_op_name(s->op), d, sym__shard_in_name(s, 0),
		        sym__shard_axes_txt(s, l, d),
		        sym__shard_in_name(s, 0)) < 0)
			return -1;
	}
	return 0;
}

/* Replace the layout of the input of "s" by one without the splits of
 * the dimensions marked in "gather"; 0 or -1. */
static int
gather_input(struct sym__shard *s, const unsigned char *gather)
{
	const sym_layout *l = s->in[0];
	struct sym__lb b;

	if (sym__lb_init(s, &b, l->rank) < 0)
		return -1;
	for (size_t d = 0; d < l->rank; d++)
		if (!gather[d])
			sym__lb_copy(&b, d, l, d);
	return sym__shard_set_in(s, 0, &b);
}

/* The layout step of reshape and flatten (see the top of the file); "s"
 * is the run. */
int
sym__shard_infer_reshape(struct sym__shard *s)
{
	size_t p = s->in_shape[0]->rank, q = s->out_shape[0]->rank;
	sym_expr **pi = sym__shard_scratch(s, p + 1, sizeof(*pi));
	sym_expr **po = sym__shard_scratch(s, q + 1, sizeof(*po));
	unsigned char *gather = sym__shard_scratch(s, p, 1);
	size_t i = 0, j = 0, any = 0;
	struct sym__lb b;
	int r = -1;

	if (!pi || !po || !gather)
		return sym__shard_nomem(s);
	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__lb_init(s, &b, q) < 0)
		return -1;
	if (prefix(s, s->in_shape[0]->dim, p, pi) < 0 ||
	    prefix(s, s->out_shape[0]->dim, q, po) < 0)
		goto out;
	while (i < p && j < q) {
		size_t a, c;

		next_group(pi, p, po, q, i, j, &a, &c);
		if (group(s, i, a, j, c, &b, gather) < 0)
			goto out;
		i += a;
		j += c;
	}
	if (i < p && group(s, i, p - i, j, 0, &b, gather) < 0)
		goto out;
	for (size_t d = 0; d < p; d++)
		any |= gather[d];
	if (any && gather_input(s, gather) < 0)
		goto out;
	r = sym__shard_set_out(s, 0, &b);
out:
	unprefix(pi, p);
	unprefix(po, q);
	return r;
}

/* The layout step of transpose and permute: output dimension i has the
 * axes of input dimension perm[i]; "s" is the run. */
int
sym__shard_infer_transpose(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0);
	const int64_t *perm = s->at->layout.perm;
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__lb_init(s, &b, r) < 0)
		return -1;
	if (!perm)
		return sym__shard_fail(s, -1, -1,
		    "internal error: %s has no decoded permutation",
		    sym_op_name(s->op));
	for (size_t i = 0; i < r; i++)
		sym__lb_copy(&b, i, s->in[0], (size_t)perm[i]);
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step of expand_dims: an unsplit dimension inserted at the
 * attribute axis; "s" is the run. */
int
sym__shard_infer_expand_dims(struct sym__shard *s)
{
	return sym__shard_out_inserted(s, s->at->layout.axis);
}

/* The layout step of squeeze: the removed dimensions (as decoded) must be
 * unsplit; "s" is the run. */
int
sym__shard_infer_squeeze(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0), k = 0;
	const unsigned char *drop = s->at->layout.mark;
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0)
		return -1;
	if (!drop)
		return sym__shard_fail(s, -1, -1,
		    "internal error: squeeze has no decoded axes");
	for (size_t d = 0; d < r; d++)
		if (drop[d] &&
		    sym__shard_unsplit(s, 0, d, "squeeze removes it, so it") <
		        0)
			return -1;
	if (sym__lb_init(s, &b, s->out_shape[0]->rank) < 0)
		return -1;
	for (size_t d = 0; d < r; d++)
		if (!drop[d] && k < b.rank)
			sym__lb_copy(&b, k++, s->in[0], d);
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step of expand: input dimension i is output dimension i +
 * the number of new leading ones; broadcast dimensions unsplit; "s" is
 * the run. */
int
sym__shard_infer_expand(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0), ro = s->out_shape[0]->rank;
	const unsigned char *mark = s->at->layout.mark;
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__lb_init(s, &b, ro) < 0)
		return -1;
	if (!mark)
		return sym__shard_fail(s, -1, -1,
		    "internal error: expand has no decoded dimensions");
	for (size_t i = 0; i < r; i++) {
		size_t j = i + (ro - r);

		if (mark[j]) {
			if (sym__shard_unsplit(s, 0, i,
			        "expand broadcasts it, so it") < 0)
				return -1;
			continue;
		}
		sym__lb_copy(&b, j, s->in[0], i);
	}
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step of tile and pad: the dimensions they change unsplit,
 * the others keep their axes; "s" is the run. */
int
sym__shard_infer_tile_pad(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0);
	const int64_t *rep = s->at->layout.repeats, *pad = s->at->layout.pads;
	int is_tile = s->op->id == SYM__OP_TILE;

	if (sym__shard_default_replicated(s, 0) < 0)
		return -1;
	if (is_tile ? !rep : !pad)
		return sym__shard_fail(s, -1, -1,
		    "internal error: %s has no decoded counts",
		    sym_op_name(s->op));
	for (size_t d = 0; d < r; d++) {
		int changed = is_tile ? rep[d] != 1
		                      : pad[2 * d] != 0 || pad[2 * d + 1] != 0;

		if (changed &&
		    sym__shard_unsplit(s, 0, d,
		        is_tile ? "tile repeats it, so it"
		                : "pad pads or crops it, so it") < 0)
			return -1;
	}
	return sym__shard_out_same(s, 0, 0);
}
