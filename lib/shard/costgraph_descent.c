/* SPDX-License-Identifier: MIT */
/*
 * The cost graph's descent (costgraph_private.h): greedy plans
 * propagated breadth first from each candidate of the owners with the
 * most, coordinate descent (one owner at a time, reading only its term
 * and its edges'), moves of two neighbouring owners, and sym__cg_best,
 * which takes the dynamic programming's optimum when it fits the cap and
 * otherwise descends from the caller's plans, the greedy ones and the
 * dynamic programming's optima of time plus a price per byte.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "shard/costgraph_private.h"

/* The edge terms the greedy plans may read, about; the most sweeps of
 * descent and rounds of pair moves. */
#define POOL_WORK 4000000
#define MAX_SWEEPS 20
#define MAX_PAIR_ROUNDS 4

/* Complete the plan "ch" greedily in the order "order" (every owner):
 * every owner not in "set" takes its best candidate given the owners set
 * before it. */
static void
greedy(sym_search *s, struct sym__cg *cg, size_t *ch, unsigned char *set,
    const size_t *order)
{
	for (size_t i = 0; i < cg->n_owner; i++) {
		size_t o = order[i];
		struct sym__cg_tot best = { 0, 0, 0 };

		if (set[o])
			continue;
		for (size_t c = 0; c < cg->n_cand[o]; c++) {
			struct sym__cg_tot t =
			    sym__cg_local(s, cg, ch, o, c, set, SIZE_MAX);

			if (c == 0 || sym__cg_tot_better(t, best, s->cap)) {
				best = t;
				ch[o] = c;
			}
		}
		set[o] = 1;
	}
}

/* Store in "order" the owners of "cg" breadth first from "root" through
 * their edges (sharding propagation's order: each owner decided next to
 * one decided before it), the unreached ones after in their order. */
static void
bfs_order(const struct sym__cg *cg, size_t root, size_t *order,
    unsigned char *seen)
{
	size_t n = 0, head = 0;

	memset(seen, 0, cg->n_owner);
	for (size_t k = 0; k <= cg->n_owner; k++) {
		size_t start = k == 0 ? root : k - 1;

		if (seen[start])
			continue;
		seen[start] = 1;
		order[n++] = start;
		while (head < n) {
			size_t o = order[head++];

			for (size_t j = 0; j < cg->n_adj[o]; j++) {
				const struct sym__cg_edge *e =
				    &cg->edge[cg->adj[o][j]];
				size_t other = e->a == o ? e->b : e->a;

				if (!seen[other]) {
					seen[other] = 1;
					order[n++] = other;
				}
			}
		}
	}
}

/* Improve the plan "ch" of value "*t" one owner at a time, each taking
 * its best candidate with the others fixed, until none changes; after
 * the first sweep only the owners next to one that changed are tried
 * again (the others' best cannot have moved). */
static void
descend(sym_search *s, struct sym__cg *cg, size_t *ch, struct sym__cg_tot *t)
{
	unsigned char *look = cg->set;
	int changed = 1;

	memset(look, 1, cg->n_owner);
	for (int sweep = 0; changed && sweep < MAX_SWEEPS; sweep++) {
		changed = 0;
		for (size_t o = 0; o + 1 < cg->n_owner; o++) {
			struct sym__cg_tot cur, best = *t;
			size_t bc = ch[o];

			if (!look[o])
				continue;
			look[o] = 0;
			cur =
			    sym__cg_local(s, cg, ch, o, ch[o], NULL, SIZE_MAX);
			for (size_t c = 0; c < cg->n_cand[o]; c++) {
				struct sym__cg_tot l, n;

				if (c == ch[o])
					continue;
				l = sym__cg_local(s, cg, ch, o, c, NULL,
				    SIZE_MAX);
				n = sym__cg_tot_shift(*t, l, cur);
				if (sym__cg_tot_better(n, best, s->cap)) {
					best = n;
					bc = c;
				}
			}
			if (bc == ch[o])
				continue;
			ch[o] = bc;
			*t = best;
			changed = 1;
			for (size_t k = 0; k < cg->n_adj[o]; k++) {
				const struct sym__cg_edge *e =
				    &cg->edge[cg->adj[o][k]];

				look[e->a] = look[e->b] = 1;
			}
		}
		*t = sym__cg_total(s, cg,
		    ch); /* no drift from the differences */
	}
}

/* Improve the plan "ch" of value "*t" two neighbouring owners at a
 * time: each pair of owners joined by edges takes its best pair of
 * candidates with the others fixed (what one owner at a time cannot
 * reach when both must change together); 1 when a pair changed. */
static int
pair_sweep(sym_search *s, struct sym__cg *cg, size_t *ch, struct sym__cg_tot *t)
{
	int changed = 0;

	for (size_t p = 0; p < cg->n_pair && !cg->failed; p++) {
		const struct sym__cg_pair *q = &cg->pair[p];
		size_t a = q->a, b = q->b, ba = ch[a], bb = ch[b];
		struct sym__cg_tot cur, best = *t;

		for (size_t c = 0; c < cg->n_cand[a]; c++)
			cg->ta[c] = sym__cg_local(s, cg, ch, a, c, NULL, b);
		for (size_t c = 0; c < cg->n_cand[b]; c++)
			cg->tb[c] = sym__cg_local(s, cg, ch, b, c, NULL, a);
		cur = cg->ta[ch[a]];
		sym__cg_tot_add(&cur, cg->tb[ch[b]]);
		sym__cg_pair_terms(s, cg, q, ch[a], ch[b], &cur);
		for (size_t ca = 0; ca < cg->n_cand[a]; ca++)
			for (size_t cb = 0; cb < cg->n_cand[b]; cb++) {
				struct sym__cg_tot l = cg->ta[ca], n;

				sym__cg_tot_add(&l, cg->tb[cb]);
				sym__cg_pair_terms(s, cg, q, ca, cb, &l);
				n = sym__cg_tot_shift(*t, l, cur);
				if (sym__cg_tot_better(n, best, s->cap)) {
					best = n;
					ba = ca;
					bb = cb;
				}
			}
		if (ba != ch[a] || bb != ch[b]) {
			ch[a] = ba;
			ch[b] = bb;
			*t = best;
			changed = 1;
		}
	}
	*t = sym__cg_total(s, cg, ch);
	return changed;
}

/* Find the pairs of searched owners of "cg" joined by edges, and their
 * edges; 0 or -1. */
int
sym__cg_make_pairs(struct sym__cg *cg)
{
	size_t most = sym__cg_most_candidates(cg);

	cg->pedge = sym__calloc(cg->ctx, cg->n_edge + 1, sizeof(*cg->pedge));
	cg->pair = sym__calloc(cg->ctx, cg->n_edge + 1, sizeof(*cg->pair));
	cg->ta = sym__calloc(cg->ctx, most, sizeof(*cg->ta));
	cg->tb = sym__calloc(cg->ctx, most, sizeof(*cg->tb));
	if (!cg->pedge || !cg->pair || !cg->ta || !cg->tb)
		return -1;
	/* by owner a, its edges to later owners b, grouped by b */
	for (size_t a = 0; a + 1 < cg->n_owner; a++) {
		size_t first = cg->n_pair; /* a's pairs */

		for (size_t k = 0; k < cg->n_adj[a]; k++) {
			const struct sym__cg_edge *e = &cg->edge[cg->adj[a][k]];
			size_t b = e->a == a ? e->b : e->a, m, q;

			if (b <= a || b + 1 == cg->n_owner)
				continue;
			for (q = first; q < cg->n_pair; q++)
				if (cg->pair[q].a == a && cg->pair[q].b == b)
					break;
			if (q < cg->n_pair)
				continue; /* grouped when first met */
			cg->pair[q] =
			    (struct sym__cg_pair){ a, b, cg->n_pedge, 0 };
			for (m = k; m < cg->n_adj[a]; m++) {
				const struct sym__cg_edge *f =
				    &cg->edge[cg->adj[a][m]];

				if ((f->a == a && f->b == b) ||
				    (f->a == b && f->b == a)) {
					cg->pedge[cg->n_pedge++] =
					    cg->adj[a][m];
					cg->pair[q].n++;
				}
			}
			cg->n_pair++;
		}
	}
	return 0;
}

/* Make the greedy plans of "cg" at the size bound in s->b, kept for
 * every later size: one from each candidate of a pivot, propagated
 * breadth first from it; the pivots are the owners with the most
 * candidates first, as many as about POOL_WORK edge terms allow (at
 * least the first). 0 or -1. */
static int
make_pool(sym_search *s, struct sym__cg *cg)
{
	size_t no = cg->n_owner, work = 1, most, *order, *piv;
	int rc = 0;

	for (size_t o = 0; o < no; o++)
		work += cg->n_cand[o] * (1 + cg->n_adj[o]);
	order = sym__calloc(cg->ctx, no, sizeof(*order));
	piv = sym__calloc(cg->ctx, no, sizeof(*piv));
	if (!order || !piv) {
		free(order);
		free(piv);
		return -1;
	}
	/* the searched owners by decreasing candidates */
	for (size_t o = 0; o < no; o++)
		piv[o] = o;
	for (size_t i = 1; i + 1 < no; i++)
		for (size_t j = i;
		     j > 0 && cg->n_cand[piv[j]] > cg->n_cand[piv[j - 1]];
		     j--) {
			size_t t = piv[j];

			piv[j] = piv[j - 1];
			piv[j - 1] = t;
		}
	most = POOL_WORK / work;
	if (most < cg->n_cand[piv[0]])
		most = cg->n_cand[piv[0]];
	cg->pool = sym__calloc(cg->ctx, most * no, sizeof(*cg->pool));
	if (!cg->pool)
		rc = -1;
	for (size_t p = 0; rc == 0 && p + 1 < no; p++) {
		size_t pivot = piv[p];

		if (cg->n_pool + cg->n_cand[pivot] > most)
			break;
		bfs_order(cg, pivot, order, cg->set);
		for (size_t k = 0; k < cg->n_cand[pivot]; k++) {
			size_t *ch = cg->pool + cg->n_pool++ * no;

			memset(cg->set, 0, no);
			cg->set[no - 1] = 1;
			ch[pivot] = k;
			cg->set[pivot] = 1;
			greedy(s, cg, ch, cg->set, order);
			for (size_t m = 0; m + 1 < cg->n_pool; m++)
				if (!memcmp(cg->pool + m * no, ch,
				        no * sizeof(*ch))) {
					cg->n_pool--; /* a plan made before */
					memset(ch, 0, no * sizeof(*ch));
					break;
				}
		}
	}
	free(order);
	free(piv);
	return rc;
}

/* Add to the plans "kept" ("*n_keep") of "cg" the optimum of its model
 * in time alone, "t0" (in cg->best), over the memory cap, and the
 * optima of the time plus a price per byte, rising until a plan fits
 * (at most SYM__CG_MAX_LAMBDAS), by dynamic programming; 0 or -1 when out of
 * memory. */
static int
dp_starts(sym_search *s, struct sym__cg *cg, struct sym__cg_tot t0,
    struct sym__cg_tot *kept, size_t *n_keep)
{
	struct sym__cg_tot t = t0;
	double lambda = 0;

	memcpy(cg->keep + *n_keep * cg->n_owner, cg->best,
	    cg->n_owner * sizeof(*cg->best));
	kept[(*n_keep)++] = t0;
	for (int k = 0; k < SYM__CG_MAX_LAMBDAS && *n_keep < SYM__CG_KEEP_MAX;
	     k++) {
		size_t *ch = cg->keep + *n_keep * cg->n_owner;
		int rc;

		if (s->cap <= 0 || t.mem <= (double)s->cap || t.mem <= 0)
			return 0;
		lambda = lambda > 0 ? 8 * lambda : t.fs / t.mem;
		rc = sym__cg_dp_solve(s, cg, lambda, ch);
		if (rc != 0)
			return rc < 0 ? -1 : 0;
		t = sym__cg_total(s, cg, ch);
		kept[(*n_keep)++] = t;
	}
	return 0;
}

/* Store into "out" (a candidate by searched operator) the best plan the
 * model of "s" finds at the size bound in s->b: the "n_start" plans
 * "start" and the best SYM__CG_KEEP_GREEDY of the greedy plans (made at the
 * first size) are descended, and the best kept. 0, or -1 when out of
 * memory. */
int
sym__cg_best(sym_search *s, struct sym__cg *cg, const size_t *const *start,
    size_t n_start, size_t *out)
{
	size_t no = cg->n_owner, n_keep = 0;
	struct sym__cg_tot kept[SYM__CG_KEEP_MAX], best = { 0, 0, 0 };
	int have = 0, dp;

	if (n_start > 2)
		n_start = 2;
	cg->gen++;
	/* the model's optimum, when dynamic programming can find it and
	 * it fits the cap, is the answer */
	dp = sym__cg_dp_solve(s, cg, 0, cg->best);
	if (dp < 0)
		return -1;
	if (dp == 0) {
		best = sym__cg_total(s, cg, cg->best);
		if (best.bad == 0 &&
		    (s->cap <= 0 || best.mem <= (double)s->cap)) {
			memcpy(out, cg->best, (no - 1) * sizeof(*out));
			return 0;
		}
	}
	if (!cg->pool && make_pool(s, cg) < 0)
		return -1;
	for (size_t k = 0; k < n_start + cg->n_pool && !cg->failed; k++) {
		const size_t *ch =
		    k < n_start ? start[k] : cg->pool + (k - n_start) * no;
		size_t at;
		struct sym__cg_tot t;

		memcpy(cg->ch, ch, (no - 1) * sizeof(*cg->ch));
		cg->ch[no - 1] = 0;
		t = sym__cg_total(s, cg, cg->ch);
		/* the caller's plans, and the best SYM__CG_KEEP_GREEDY others */
		if (k < n_start || n_keep < n_start + SYM__CG_KEEP_GREEDY) {
			at = n_keep++;
		} else {
			at = n_start;
			for (size_t m = n_start + 1; m < n_keep; m++)
				if (sym__cg_tot_better(kept[at], kept[m],
				        s->cap))
					at = m;
			if (!sym__cg_tot_better(t, kept[at], s->cap))
				continue;
		}
		kept[at] = t;
		memcpy(cg->keep + at * no, cg->ch, no * sizeof(*cg->ch));
	}
	if (dp == 0 && dp_starts(s, cg, best, kept, &n_keep) < 0)
		return -1;
	for (size_t m = 0; m < n_keep && !cg->failed; m++) {
		size_t *ch = cg->keep + m * no;

		descend(s, cg, ch, &kept[m]);
		if (!have || sym__cg_tot_better(kept[m], best, s->cap)) {
			best = kept[m];
			memcpy(cg->best, ch, no * sizeof(*ch));
			have = 1;
		}
	}
	for (int round = 0; have && round < MAX_PAIR_ROUNDS &&
	     pair_sweep(s, cg, cg->best, &best);
	     round++)
		descend(s, cg, cg->best, &best);
	if (cg->failed || !have)
		return -1;
	memcpy(out, cg->best, (no - 1) * sizeof(*out));
	return 0;
}
