/* SPDX-License-Identifier: MIT */
/*
 * Communication fusion ("parallel fusion_bytes=N", DESIGN section 20):
 * the gradient all_reduces of a sharding, and under optimizer_shard the
 * reduce_scatters of gradients into their updates' shards, cut into
 * buckets, each of which the plan runs as one collective over a packed
 * buffer.
 *
 * A communication is fusible when it resolves the partial sums a
 * backward node produced, in one all_reduce or reduce_scatter step, over
 * a tensor whose bytes are a constant (a gradient of a symbolic size
 * keeps its own collective). Walking the communications in the pass's
 * order (the order of the plan's steps), a fusible one joins the open
 * bucket when it is of the same kind, over the same group (the same
 * ranks in the same order) and dtype, the bucket
 * stays within N bytes (a gradient larger than N is alone in its
 * bucket), and no node between the bucket's first gradient and this one
 * reads a gradient of the bucket; otherwise it opens the next bucket.
 * A bucket is run where its last gradient is resolved, packed in bucket
 * order (a reduce_scatter's per member of the group: lib/exec/
 * exec_fuse.c); the communicator adds every element over the group in
 * group order whatever the vector it is in (comm_fold.c), so the results
 * are bitwise those of the unfused plan. A bucket's bytes are those its
 * members' steps move per device (a reduce_scatter's, its whole partial
 * gradient).
 */
#include <stdlib.h>
#include <string.h>

#include "layout/layout_private.h"
#include "shard/shard_private.h"

/* What makes two fusible communications fusible together: the kind and
 * groups of their step (the redistribution "r"'s only step) and the
 * dtype. */
struct fkey {
	const sym_redist *r;
	sym_dtype dtype;
};

/* Store in "*bytes" and "*k" the bytes and group of communication "c" of
 * "sh" and return 1 when it is fusible, else 0. */
static int
fusible(const sym_sharding *sh, const struct sym__comm *c, int64_t *bytes,
    struct fkey *k)
{
	const sym_node *n = c->pub.value ? c->pub.value->producer : NULL;
	const struct sym__step *st;

	if (c->pub.consumer || !n || c->shares != SIZE_MAX || !c->plan ||
	    c->plan->n_step != 1 || n->index < sym_graph_n_forward_nodes(sh->g))
		return 0;
	st = &c->plan->step[0];
	if ((st->kind != SYM_REDIST_ALL_REDUCE &&
	        st->kind != SYM_REDIST_REDUCE_SCATTER) ||
	    sym_expr_get_const(st->bytes, bytes) < 0 || *bytes <= 0)
		return 0;
	k->r = c->plan;
	k->dtype = sym_shape_dtype(sym_value_shape(c->pub.value));
	return 1;
}

/* Return 1 when "a" and "b" have the same dtype, step kind and groups of
 * ranks, listed alike (whatever the meshes and axes that make them). */
static int
same_key(const struct fkey *a, const struct fkey *b)
{
	size_t na, nb, sa, sb;

	if (a->dtype != b->dtype || a->r->step[0].kind != b->r->step[0].kind)
		return 0;
	na = sym_redist_step_groups(a->r, 0, &sa);
	nb = sym_redist_step_groups(b->r, 0, &sb);
	if (na != nb || sa != sb)
		return 0;
	for (size_t g = 0; g < na; g++)
		for (size_t m = 0; m < sa; m++)
			if (sym_redist_step_group_rank(a->r, 0, g, m) !=
			    sym_redist_step_group_rank(b->r, 0, g, m))
				return 0;
	return 1;
}

/* Return 1 when a node of "g" after node "from" up to node "to" reads
 * one of the values of the "n" communications "m" of "sh". */
static int
read_between(const sym_sharding *sh, const size_t *m, size_t n, size_t from,
    size_t to)
{
	const sym_graph *g = sh->g;

	for (size_t i = from + 1; i <= to && i < g->n_node; i++) {
		const sym_node *node = g->node[i];

		for (size_t j = 0; j < node->n_in; j++)
			for (size_t k = 0; k < n; k++)
				if (node->in[j] == sh->comm[m[k]].pub.value)
					return 1;
	}
	return 0;
}

/* Close the bucket of "sh" that holds its last "n" member communications
 * of "bytes" bytes; 0 or -1 (out of memory). */
static int
close_bucket(sym_sharding *sh, size_t n, int64_t bytes)
{
	size_t b = sh->n_bucket, *first;
	int64_t *by;

	if (!n)
		return 0;
	first = sym__realloc_array(sh->ctx, sh->bucket_first, b + 2,
	    sizeof(*first));
	if (!first)
		return -1;
	sh->bucket_first = first;
	by = sym__realloc_array(sh->ctx, sh->bucket_bytes, b + 1, sizeof(*by));
	if (!by)
		return -1;
	sh->bucket_bytes = by;
	if (b == 0)
		first[0] = 0;
	first[b + 1] = first[b] + n;
	by[b] = bytes;
	for (size_t k = first[b]; k < first[b + 1]; k++)
		sh->comm_bucket[sh->bucket_comm[k]] = b;
	sh->n_bucket++;
	return 0;
}

/* Cut the gradient all_reduces of "sh" into buckets of at most "limit"
 * bytes (see the top of the file); 0, or -1 out of memory (on the
 * context). */
int
sym__fusion_build(sym_sharding *sh, int64_t limit)
{
	struct fkey key, cur = { NULL, SYM_DT_INVALID };
	size_t n_open = 0, last = 0, n_total = 0;
	int64_t bytes, open_bytes = 0;

	if (limit <= 0 || !sh->n_comm)
		return 0;
	sh->comm_bucket =
	    sym__calloc(sh->ctx, sh->n_comm, sizeof(*sh->comm_bucket));
	sh->bucket_comm =
	    sym__calloc(sh->ctx, sh->n_comm, sizeof(*sh->bucket_comm));
	if (!sh->comm_bucket || !sh->bucket_comm)
		return -1;
	for (size_t i = 0; i < sh->n_comm; i++)
		sh->comm_bucket[i] = SIZE_MAX;
	for (size_t i = 0; i < sh->n_comm; i++) {
		const struct sym__comm *c = &sh->comm[i];
		size_t at;

		if (!fusible(sh, c, &bytes, &key))
			continue;
		at = c->pub.value->producer->index;
		if (n_open &&
		    (!same_key(&cur, &key) || bytes > limit - open_bytes ||
		        read_between(sh, sh->bucket_comm + n_total - n_open,
		            n_open, last, at))) {
			if (close_bucket(sh, n_open, open_bytes) < 0)
				return -1;
			n_open = 0;
			open_bytes = 0;
		}
		if (!n_open)
			cur = key;
		sh->bucket_comm[n_total++] = i;
		n_open++;
		open_bytes += bytes;
		last = at;
	}
	return close_bucket(sh, n_open, open_bytes);
}

/* Return the number of buckets of fused gradient all_reduces of "sh". */
size_t
sym_sharding_n_buckets(const sym_sharding *sh)
{
	return sh ? sh->n_bucket : 0;
}

/* Return the number of communications bucket "b" of "sh" fuses (0 when
 * out of range). */
size_t
sym_sharding_bucket_size(const sym_sharding *sh, size_t b)
{
	return sh && b < sh->n_bucket
	    ? sh->bucket_first[b + 1] - sh->bucket_first[b]
	    : 0;
}

/* Return communication "k" of bucket "b" of "sh" (borrowed), in the
 * order the bucket packs them, or NULL. */
const sym_reshard *
sym_sharding_bucket_reshard(const sym_sharding *sh, size_t b, size_t k)
{
	if (k >= sym_sharding_bucket_size(sh, b))
		return NULL;
	return &sh->comm[sh->bucket_comm[sh->bucket_first[b] + k]].pub;
}

/* Return the bytes bucket "b" of "sh" communicates per device (the sum
 * of its all_reduces'), or 0 when out of range. */
int64_t
sym_sharding_bucket_bytes(const sym_sharding *sh, size_t b)
{
	return sh && b < sh->n_bucket ? sh->bucket_bytes[b] : 0;
}

/* Return the bucket of communication "c", or SIZE_MAX when it is not
 * fused (or "c" is NULL). */
size_t
sym_reshard_bucket(const sym_reshard *c)
{
	const struct sym__comm *k = (const struct sym__comm *)c;
	const sym_sharding *sh = k ? k->sh : NULL;

	if (!sh || !sh->comm_bucket)
		return SIZE_MAX;
	return sh->comm_bucket[k - sh->comm];
}
