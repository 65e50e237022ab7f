/* SPDX-License-Identifier: MIT */
/*
 * The steps the search for a redistribution plan (redist_search.c) may
 * take from one layout: reduce_scatter and all_reduce of pending partial
 * axes, all_gather of a tail group, all_to_all of a tail group to another
 * dimension, slices of the target's axes, and permutes that keep the
 * number of blocks of every dimension.
 */
#include <stdlib.h>
#include <string.h>

#include "redist/redist_search.h"

#define MAX_PARK 4

/* Decode "k" into "st" for the search "s". */
void
sym__search_decode(const struct sym__search *s, const struct sym__rkey *k,
    struct sym__sstate *st)
{
	sym__rkey_decode(k, s->mesh->n_axes, s->p->rank, st->n, st->ax,
	    &st->pending);
	st->used = st->pending | s->p->kept;
	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (k->b[2 * a] < SYM__WHERE_PENDING)
			st->used |= UINT32_C(1) << a;
}

/* Return the product of the sizes of the axes of every list of "st". */
static int64_t
splits(const struct sym__search *s, const struct sym__sstate *st)
{
	int64_t q = 1;

	for (size_t d = 0; d < s->p->rank; d++)
		for (size_t i = 0; i < st->n[d]; i++)
			q *= s->mesh->size[st->ax[d][i]];
	return q;
}

/* Copy "a" into "b" for the "rank" dimensions. */
static void
copy_state(const struct sym__search *s, const struct sym__sstate *a,
    struct sym__sstate *b)
{
	memcpy(b->n, a->n, s->p->rank * sizeof(*b->n));
	memcpy(b->ax, a->ax, s->p->rank * sizeof(*b->ax));
	b->pending = a->pending;
	b->used = a->used;
}

/* Finish the step "mv" of kind "kind" on axes "ax" ("n" of them) into
 * s->nxt and relax it from node "from"; "frac" as for
 * sym__search_relax. */
static int
emit(struct sym__search *s, int32_t from, sym_redist_kind kind,
    const int8_t *ax, size_t n, int from_dim, int to_dim, double frac)
{
	struct sym__rmove mv;

	memset(&mv, 0, sizeof(mv));
	mv.kind = kind;
	mv.n_axes = (uint8_t)n;
	memcpy(mv.axes, ax, n * sizeof(*ax));
	mv.from_dim = from_dim;
	mv.to_dim = to_dim;
	mv.after = sym__rkey_encode(s->mesh->n_axes, s->p->rank, s->nxt.n,
	    s->nxt.ax, s->nxt.pending);
	return sym__search_relax(s, from, &mv, frac);
}

/* Generate the all_gather and all_to_all steps from node "id" (state
 * s->cur, holding 1/"q" of the tensor); return 0 or -1. */
static int
expand_moves(struct sym__search *s, int32_t id, int64_t q)
{
	const struct sym__sstate *c = &s->cur;

	for (size_t ii = 0; ii < s->n_active; ii++) {
		size_t i = s->active[ii];

		for (size_t m = 1; m + s->pre[i] <= c->n[i]; m++) {
			const int8_t *g = &c->ax[i][c->n[i] - m];
			int64_t n =
			    sym__search_mask_size(s, sym__axes_mask(g, m));

			copy_state(s, c, &s->nxt);
			s->nxt.n[i] -= (uint8_t)m;
			if (emit(s, id, SYM_REDIST_ALL_GATHER, g, m, (int)i, -1,
			        (double)n / (double)q) < 0)
				return -1;
			for (size_t jj = 0; jj < s->n_active; jj++) {
				size_t j = s->active[jj];

				if (j == i)
					continue;
				copy_state(s, c, &s->nxt);
				s->nxt.n[i] -= (uint8_t)m;
				memcpy(&s->nxt.ax[j][s->nxt.n[j]], g, m);
				s->nxt.n[j] += (uint8_t)m;
				if (emit(s, id, SYM_REDIST_ALL_TO_ALL, g, m,
				        (int)i, (int)j, 1.0 / (double)q) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* Return the number of axes of the target beyond the prefixes that the
 * state "c" does not use yet. */
static int
free_targets(const struct sym__search *s, const struct sym__sstate *c)
{
	return __builtin_popcount(s->target_axes & ~c->used);
}

/* Return 1 if the list of dimension "d" in "c" is, beyond the prefix, a
 * proper prefix of the target's. */
static int
on_track(const struct sym__search *s, const struct sym__sstate *c, size_t d)
{
	if (c->n[d] >= s->p->n_to[d])
		return 0;
	return memcmp(c->ax[d], s->p->to[d], c->n[d]) == 0;
}

/* Generate the slice steps from node "id" (state s->cur); return 0 or
 * -1. */
static int
expand_slices(struct sym__search *s, int32_t id)
{
	const struct sym__sstate *c = &s->cur;
	int park = free_targets(s, c) <= MAX_PARK;

	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd];

		for (size_t a = 0; a < s->mesh->n_axes; a++) {
			int8_t ax = (int8_t)a;

			if (!(s->target_axes >> a & 1) || (c->used >> a & 1))
				continue;
			if (!park &&
			    !(on_track(s, c, d) && s->p->to[d][c->n[d]] == ax))
				continue;
			copy_state(s, c, &s->nxt);
			s->nxt.ax[d][s->nxt.n[d]++] = ax;
			if (emit(s, id, SYM_REDIST_SLICE, &ax, 1, -1, (int)d,
			        0.0) < 0)
				return -1;
		}
	}
	return 0;
}

/* Store in "ord" the "k"-th ordered selection of axes from the mask
 * "pool" (first the single axes, then every order of larger sets while
 * the pool has at most three axes, else the whole pool in order) and
 * return its length, or 0 when there is no "k"-th. */
static size_t
selection(uint32_t pool, size_t n_axes, size_t k, int8_t *ord)
{
	int8_t ax[SYM_MESH_MAX_AXES];
	size_t n = 0, count = 0;

	for (size_t a = 0; a < n_axes; a++)
		if (pool >> a & 1)
			ax[n++] = (int8_t)a;
	if (n > 3) {
		if (k < n) {
			ord[0] = ax[k];
			return 1;
		}
		if (k > n)
			return 0;
		memcpy(ord, ax, n);
		return n;
	}
	/* Every ordered selection of 1..n of at most three axes. */
	for (size_t len = 1; len <= n; len++)
		for (size_t x = 0; x < n; x++)
			for (size_t y = 0; y < (len > 1 ? n : 1); y++)
				for (size_t z = 0; z < (len > 2 ? n : 1); z++) {
					if ((len > 1 && y == x) ||
					    (len > 2 && (z == x || z == y)))
						continue;
					if (count++ != k)
						continue;
					ord[0] = ax[x];
					ord[1] = ax[y];
					ord[2] = ax[z];
					return len;
				}
	return 0;
}

/* Generate the reduce_scatter and all_reduce steps from node "id" (state
 * s->cur, holding 1/"q" of the tensor); return 0 or -1. */
static int
expand_partial(struct sym__search *s, int32_t id, int64_t q)
{
	const struct sym__sstate *c = &s->cur;
	int8_t ord[SYM_MESH_MAX_AXES];
	size_t len;

	for (size_t k = 0;
	     (len = selection(c->pending, s->mesh->n_axes, k, ord)) > 0; k++) {
		uint32_t m = sym__axes_mask(ord, len);
		int8_t sorted[SYM_MESH_MAX_AXES];
		size_t ns = 0;

		for (size_t dd = 0; dd < s->n_active; dd++) {
			size_t d = s->active[dd];

			copy_state(s, c, &s->nxt);
			s->nxt.pending &= ~m;
			memcpy(&s->nxt.ax[d][s->nxt.n[d]], ord, len);
			s->nxt.n[d] += (uint8_t)len;
			if (emit(s, id, SYM_REDIST_REDUCE_SCATTER, ord, len, -1,
			        (int)d, 1.0 / (double)q) < 0)
				return -1;
		}
		for (size_t a = 0; a < s->mesh->n_axes; a++)
			if (m >> a & 1)
				sorted[ns++] = (int8_t)a;
		if (memcmp(sorted, ord, len) != 0)
			continue;
		copy_state(s, c, &s->nxt);
		s->nxt.pending &= ~m;
		if (emit(s, id, SYM_REDIST_ALL_REDUCE, ord, len, -1, -1,
		        1.0 / (double)q) < 0)
			return -1;
	}
	return 0;
}

/* Emit the permute from node "id" (state s->cur, holding 1/"q" of the
 * tensor) to the state s->nxt over the axes that change, unless it
 * changes nothing or touches a pending axis; return 0 or -1. */
static int
emit_permute(struct sym__search *s, int32_t id, int64_t q)
{
	const struct sym__sstate *c = &s->cur;
	int8_t w[SYM_MESH_MAX_AXES];
	uint32_t mask = 0;
	size_t nw = 0;
	int same = 1;

	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd];

		for (size_t i = s->pre[d]; i < c->n[d]; i++)
			mask |= UINT32_C(1) << c->ax[d][i];
		for (size_t i = s->pre[d]; i < s->nxt.n[d]; i++)
			mask |= UINT32_C(1) << s->nxt.ax[d][i];
		same &= s->nxt.n[d] == c->n[d] &&
		    memcmp(s->nxt.ax[d], c->ax[d], c->n[d]) == 0;
	}
	if (same || (mask & c->pending))
		return 0;
	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (mask >> a & 1)
			w[nw++] = (int8_t)a;
	return emit(s, id, SYM_REDIST_PERMUTE, w, nw, -1, -1, 1.0 / (double)q);
}

/* Return the number of blocks of the list of dimension "d" of "c" beyond
 * its prefix in "s". */
static int64_t
suffix_blocks(const struct sym__search *s, const struct sym__sstate *c,
    size_t d)
{
	int64_t have = 1;

	for (size_t i = s->pre[d]; i < c->n[d]; i++)
		have *= s->mesh->size[c->ax[d][i]];
	return have;
}

/* Set s->nxt to the target with each list cut where it has as many
 * blocks as in s->cur; return 0 if there is no such cut. */
static int
permute_exact(struct sym__search *s)
{
	const struct sym__sstate *c = &s->cur;

	copy_state(s, c, &s->nxt);
	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd], t = s->pre[d];
		int64_t have = suffix_blocks(s, c, d), want = 1;

		while (want < have && t < s->p->n_to[d])
			want *= s->mesh->size[s->p->to[d][t++]];
		if (want != have)
			return 0;
		memcpy(s->nxt.ax[d], s->p->to[d], t);
		s->nxt.n[d] = (uint8_t)t;
	}
	return 1;
}

/* Return the mask of the fewest axes of "pool" whose sizes multiply to
 * "k" (the first such in order of masks; 0 for k = 1), UINT32_MAX if
 * none; only the first ten axes of "pool" are tried. */
static uint32_t
filler(const struct sym__search *s, uint32_t pool, int64_t k)
{
	int8_t ax[10];
	size_t n = 0;
	uint32_t best = 0;
	int best_n = 99;

	for (size_t a = 0; a < s->mesh->n_axes && n < 10; a++)
		if (pool >> a & 1)
			ax[n++] = (int8_t)a;
	for (uint32_t sub = 0; sub < (UINT32_C(1) << n); sub++) {
		int64_t p = 1;
		uint32_t m = 0;

		for (size_t i = 0; i < n; i++)
			if (sub >> i & 1) {
				p *= s->mesh->size[ax[i]];
				m |= UINT32_C(1) << ax[i];
			}
		if (p == k && __builtin_popcount(m) < best_n) {
			best = m;
			best_n = __builtin_popcount(m);
		}
	}
	return best_n == 99 ? UINT32_MAX : best;
}

/* Set s->nxt to the target with each list cut as far as its blocks
 * divide those in s->cur, filled up with axes the target does not use
 * (gathered later); return 0 if some dimension cannot be filled. */
static int
permute_fill(struct sym__search *s)
{
	const struct sym__sstate *c = &s->cur;
	uint32_t pool = s->spare & ~c->pending;

	copy_state(s, c, &s->nxt);
	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd], t = s->p->n_to[d] + 1;
		int64_t have = suffix_blocks(s, c, d);
		uint32_t fill = UINT32_MAX;

		while (fill == UINT32_MAX && t-- > s->pre[d]) {
			int64_t want = 1;

			for (size_t i = s->pre[d]; i < t; i++)
				want *= s->mesh->size[s->p->to[d][i]];
			if (have % want == 0)
				fill = filler(s, pool, have / want);
		}
		if (fill == UINT32_MAX)
			return 0;
		memcpy(s->nxt.ax[d], s->p->to[d], t);
		s->nxt.n[d] = (uint8_t)t;
		for (size_t a = 0; a < s->mesh->n_axes; a++)
			if (fill >> a & 1)
				s->nxt.ax[d][s->nxt.n[d]++] = (int8_t)a;
		pool &= ~fill;
	}
	return 1;
}

/* Generate the permute steps from node "id" (state s->cur, holding 1/"q"
 * of the tensor): to the target cut where each dimension keeps its
 * number of blocks, and to the target cut shorter and filled up with
 * axes it does not use; return 0 or -1. */
static int
expand_permute(struct sym__search *s, int32_t id, int64_t q)
{
	if (permute_exact(s) && emit_permute(s, id, q) < 0)
		return -1;
	if (permute_fill(s) && emit_permute(s, id, q) < 0)
		return -1;
	return 0;
}

/* Generate every step from node "id" of "s", whose layout is "key";
 * return 0 or -1. */
int
sym__search_expand(struct sym__search *s, int32_t id,
    const struct sym__rkey *key)
{
	int64_t q;

	sym__search_decode(s, key, &s->cur);
	q = splits(s, &s->cur);
	if (expand_partial(s, id, q) < 0 || expand_moves(s, id, q) < 0 ||
	    expand_slices(s, id) < 0 || expand_permute(s, id, q) < 0)
		return -1;
	return 0;
}
