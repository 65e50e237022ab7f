/* SPDX-License-Identifier: MIT */
/*
 * The placement groups of a plan's tensors (struct sym__group): the
 * tensors whose blocks are placed alike on every rank and whose local
 * sizes are the same slots share one table of per-rank block indices, so
 * that a binding computes their offsets once (block index x local size).
 */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "plan/plan_private.h"

/* Return a hash of the "n" block indices "b" and the local slots "l" of
 * a tensor of "k" dimensions. */
static uint64_t
group_hash(const int32_t *b, size_t n, const uint32_t *l, size_t k)
{
	uint64_t h = SYM__FNV_BASIS ^ k;

	for (size_t i = 0; i < n; i++)
		h = sym__fnv1a_word(h, (uint32_t)b[i]);
	for (size_t d = 0; d < k; d++)
		h = sym__fnv1a_word(h, l[d]);
	return sym__mix64(h);
}

/* Return the block indices of tensor "x" of "p" on every rank (zeros
 * without a layout), malloc'ed, or NULL with an error. */
static int32_t *
block_table(sym_plan *p, const struct sym__tensor *x)
{
	size_t n = (size_t)p->n_ranks * x->rank;
	int32_t *b = sym__calloc(p->ctx, n + 1, sizeof(*b));

	if (!b)
		return NULL;
	for (int64_t r = 0; x->layout && r < p->n_ranks; r++)
		for (size_t d = 0; d < x->rank; d++) {
			int64_t k = sym_layout_block(x->layout, r, d);

			if (k < 0 || k > INT32_MAX) {
				free(b);
				sym__error(p->ctx, SYM_EINTERNAL,
				    &x->value->loc,
				    "plan: the layout of %s places no block on "
				    "rank %lld",
				    x->value->name, (long long)r);
				return NULL;
			}
			b[(size_t)r * x->rank + d] = (int32_t)k;
		}
	return b;
}

/* Return 1 when group "g" of "p" places tensor "x" (its blocks "b"). */
static int
same_group(const sym_plan *p, const struct sym__group *g,
    const struct sym__tensor *x, const int32_t *b)
{
	return g->rank == x->rank &&
	    !memcmp(g->local, x->local, x->rank * sizeof(*x->local)) &&
	    !memcmp(g->block, b, (size_t)p->n_ranks * x->rank * sizeof(*b));
}

/* Put every tensor of "p" in a placement group, the tensors placed alike
 * with the same local sizes together, and lay out the local sizes and
 * offsets of the groups; 0 or -1. The table "seen" finds a group by its
 * hash. */
int
sym__plan_build_groups(sym_plan *p)
{
	struct sym__htab seen = { NULL, 0, 0 };
	int r = 0;

	for (size_t t = 0; r == 0 && t < p->n_tensor; t++) {
		struct sym__tensor *x = &p->tensor[t];
		int32_t *b = block_table(p, x);
		uint64_t h;
		uint32_t g;

		if (!b) {
			r = -1;
			break;
		}
		h = group_hash(b, (size_t)p->n_ranks * x->rank, x->local,
		    x->rank);
		g = SYM__NO_SLOT;
		for (size_t i = sym__htab_first(&seen, h); i != SYM__HTAB_END;
		     i = sym__htab_next(&seen, h, i))
			if (same_group(p, &p->group[seen.slot[i].item], x, b)) {
				g = (uint32_t)seen.slot[i].item;
				break;
			}
		if (g != SYM__NO_SLOT) {
			x->group = g;
			free(b);
			continue;
		}
		if (SYM__RESERVE(p->ctx, p->group, p->cap_group,
		        p->n_group + 1) < 0 ||
		    sym__htab_add(p->ctx, &seen, h, p->n_group) < 0) {
			free(b);
			sym__oom(p->ctx);
			r = -1;
			break;
		}
		x->group = p->n_group;
		p->group[p->n_group].rank = x->rank;
		p->group[p->n_group].local = x->local;
		p->group[p->n_group].block = b;
		p->n_offsets += x->rank; /* its local sizes come first */
		p->group[p->n_group++].off = p->n_offsets;
		p->n_offsets += (size_t)p->n_ranks * x->rank;
	}
	sym__htab_clear(&seen);
	return r;
}
