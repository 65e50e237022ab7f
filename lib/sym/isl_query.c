/* SPDX-License-Identifier: MIT */
/*
 * The set of a query of the exact tier (prove_isl.c, "Queries"): the
 * components it involves laid out as blocks, its own block, and the set
 * built as a union of basic sets (or as one set when there would be too
 * many), with the optimum of one of its dimensions.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/ilp.h>
#include <isl/space.h>

#include "sym/prove_isl_private.h"

/* The most basic sets a query is split into; beyond, set operations. */
#define MAX_PIECES 64

/* Release everything "q" holds. */
void
sym__isl_query_clear(struct query *q)
{
	free(q->blk);
	free(q->base);
	free(q->own.dim);
	free(q->sym_pos);
	free(q->sym);
	for (size_t i = 0; i < q->n_piece; i++)
		isl_basic_set_free(q->piece[i]);
	free(q->piece);
	isl_set_free(q->set);
}

/* The components a query involves, one flag per current component. */
struct marks {
	const struct sym__prover *p;
	char *mark;
};

/* sym__expr_foreach_atom callback: flag in the marks "user" the component
 * of the symbol of "atom". */
static int
mark_comp(struct sym_expr *atom, void *user)
{
	struct marks *m = user;
	size_t id;

	if (atom->kind != SYM__VAR)
		return 0;
	id = atom->u.var->id;
	if (id < m->p->n_comp_of && m->p->comp_of[id] != NO_DIM)
		m->mark[m->p->comp_of[id]] = 1;
	return 0;
}

/* Collect in "q" the components the symbols of "e" reach (every component
 * when "e" is NULL), in the order of their first fact. Return 0 or -1. */
static int
query_collect(struct query *q, sym_expr *e)
{
	struct sym__prover *p = q->p;
	size_t n = p->n_cur;
	struct marks m = { p, sym__alloc(q->ctx, n + 1) };

	if (!m.mark)
		return -1;
	memset(m.mark, e ? 0 : 1, n);
	if (e)
		sym__expr_foreach_atom(e, mark_comp, &m);
	if (p->global != NO_DIM)
		m.mark[p->global] = 1;
	q->blk = sym__alloc(q->ctx, (n + 1) * sizeof(*q->blk));
	q->base = sym__alloc(q->ctx, (n + 1) * sizeof(*q->base));
	if (q->blk && q->base)
		for (size_t i = 0; i < n; i++)
			if (m.mark[i])
				q->blk[q->n_blk++] = p->cur[i];
	free(m.mark);
	return q->blk && q->base ? 0 : -1;
}

/* Start in "q" a query of "ctx" about "e" (NULL: about all the facts):
 * synchronise the components, build those it involves and lay out their
 * blocks. Return SYM_TRUE, or SYM_UNKNOWN / SYM_ERROR. */
sym_answer
sym__isl_query_open(struct query *q, sym_ctx *ctx, sym_expr *e)
{
	size_t at = 0;

	memset(q, 0, sizeof(*q));
	q->ctx = ctx;
	q->p = sym__isl_prover_get(ctx);
	if (!q->p || sym__isl_sync(ctx, q->p) < 0 || query_collect(q, e) < 0)
		return SYM_ERROR;
	for (size_t i = 0; i < q->n_blk; i++) {
		struct comp *c = q->blk[i];

		while (c->n_built < c->n_fact) {
			sym_answer a = sym__isl_comp_step(ctx, q->p, c);

			if (a != SYM_TRUE)
				return a;
		}
		q->base[i] = at;
		at += c->n_dim;
		q->abstracted |= c->abstracted;
		q->n_minmax += c->n_minmax;
	}
	q->own_base = at;
	return SYM_TRUE;
}

/* Start in "tr" a translation into the own block of the query "q". */
void
sym__isl_query_tr(struct query *q, struct tr *tr)
{
	int mm = MAX_MINMAX - q->n_minmax;

	sym__isl_tr_init(tr, q->ctx, q->blk, q->base, q->n_blk, &q->own,
	    q->own_base, mm > 0 ? mm : 0);
}

/* Record in "q" the positions of its symbol dimensions, in order. Return
 * 0 or -1. */
static int
query_symbols(struct query *q)
{
	size_t n = q->own_base + q->own.n_dim;

	q->sym_pos = sym__alloc(q->ctx, (n + 1) * sizeof(*q->sym_pos));
	q->sym = sym__alloc(q->ctx, (n + 1) * sizeof(*q->sym));
	if (!q->sym_pos || !q->sym)
		return -1;
	for (size_t i = 0; i <= q->n_blk; i++) {
		const struct comp *c = i < q->n_blk ? q->blk[i] : &q->own;
		size_t b = i < q->n_blk ? q->base[i] : q->own_base;

		for (size_t j = 0; j < c->n_dim; j++)
			if (c->dim[j].kind == DIM_SYM) {
				q->sym_pos[q->n_sym] = b + j;
				q->sym[q->n_sym++] =
				    (sym_symbol *)c->dim[j].key;
			}
	}
	return 0;
}

/* Build in "q" its set as one set: the product of the sets of its
 * components, times its own block constrained by "f". Return 0 or -1. */
static int
query_whole(struct query *q, const struct form *f)
{
	isl_ctx *isl = q->p->isl;
	isl_set *s = NULL;

	for (size_t i = 0; i < q->n_blk; i++)
		s = s ? isl_set_flat_product(s, isl_set_copy(q->blk[i]->set))
		      : isl_set_copy(q->blk[i]->set);
	if (!s)
		s = isl_set_universe(isl_space_set_alloc(isl, 0, 0));
	s = isl_set_add_dims(s, isl_dim_set, (unsigned)q->own.n_dim);
	if (f->n_row || f->n_alt)
		s = isl_set_intersect(s,
		    sym__isl_form_set(isl, q->own_base + q->own.n_dim, f));
	q->set = s;
	return s ? 0 : -1;
}

/* Replace the pieces of "q" by their products with each basic set of
 * "set" (kept), or by those basic sets when "first" (no piece has a
 * dimension yet). Return 0 or -1. */
static int
pieces_product(struct query *q, isl_set *set, int first)
{
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_size k = isl_basic_set_list_size(l);
	size_t n = k < 0 ? 0 : q->n_piece * (size_t)k;
	isl_basic_set **next = sym__alloc(q->ctx, (n + 1) * sizeof(*next));
	size_t m = 0;
	int r = next && k >= 0 ? 0 : -1;

	for (size_t i = 0; i < q->n_piece; i++) {
		for (isl_size j = 0; j < k && r == 0; j++) {
			isl_basic_set *b = isl_basic_set_list_get_at(l, j);

			if (!first)
				b = isl_basic_set_flat_product(
				    isl_basic_set_copy(q->piece[i]), b);
			if (b)
				next[m++] = b;
			else
				r = -1;
		}
		isl_basic_set_free(q->piece[i]);
	}
	isl_basic_set_list_free(l);
	free(q->piece);
	q->piece = next;
	q->n_piece = m;
	return r;
}

/* Intersect every piece of "q" with "a" (taken), or when "b" (taken) is
 * not NULL, replace it by its intersections with "a" and with "b". Drop
 * the pieces that are plainly empty. Return 0 or -1. */
static int
pieces_meet(struct query *q, isl_basic_set *a, isl_basic_set *b)
{
	isl_basic_set **next =
	    sym__alloc(q->ctx, (2 * q->n_piece + 1) * sizeof(*next));
	size_t m = 0;
	int r = next && a ? 0 : -1;

	for (size_t i = 0; i < q->n_piece; i++) {
		for (int s = 0; s < (b ? 2 : 1) && r == 0; s++) {
			isl_basic_set *x = isl_basic_set_copy(q->piece[i]);
			isl_bool e;

			x = isl_basic_set_intersect(x,
			    isl_basic_set_copy(s ? b : a));
			e = isl_basic_set_plain_is_empty(x);

			if (e == isl_bool_false)
				next[m++] = x;
			else
				isl_basic_set_free(x);
			if (e < 0)
				r = -1;
		}
		isl_basic_set_free(q->piece[i]);
	}
	isl_basic_set_free(a);
	isl_basic_set_free(b);
	free(q->piece);
	q->piece = next;
	q->n_piece = m;
	return r;
}

/* Build in "q" its set as a union of basic sets: every combination of a
 * basic set of each component and of a side of each disjunction of "f",
 * with the rows of "f". Return 1 when there would be more than
 * MAX_PIECES, else 0 or -1. */
static int
query_pieces(struct query *q, const struct form *f)
{
	isl_ctx *isl = q->p->isl;
	size_t total = q->own_base + q->own.n_dim, n = 1;
	int r = 0;

	for (size_t i = 0; i < q->n_blk; i++) {
		isl_size k = isl_set_n_basic_set(q->blk[i]->set);

		if (k < 0)
			return -1;
		n *= (size_t)k;
		if (n > MAX_PIECES)
			return 1;
	}
	if (f->n_alt > 6 || n << f->n_alt > MAX_PIECES)
		return 1;
	q->piece = sym__alloc(q->ctx, sizeof(*q->piece));
	if (!q->piece)
		return -1;
	q->piece[0] = isl_basic_set_universe(isl_space_set_alloc(isl, 0, 0));
	q->n_piece = 1;
	for (size_t i = 0; i < q->n_blk && r == 0; i++)
		r = pieces_product(q, q->blk[i]->set, i == 0);
	for (size_t i = 0; i < q->n_piece && r == 0 && q->own.n_dim; i++) {
		q->piece[i] = isl_basic_set_add_dims(q->piece[i], isl_dim_set,
		    (unsigned)q->own.n_dim);
		r = q->piece[i] ? 0 : -1;
	}
	if (r == 0)
		r = pieces_meet(q, sym__isl_form_bset(isl, total, f, NULL),
		    NULL);
	for (size_t i = 0; i < f->n_alt && r == 0; i++)
		r = pieces_meet(q,
		    sym__isl_form_bset(isl, total, f, &f->alt[i].side[0]),
		    sym__isl_form_bset(isl, total, f, &f->alt[i].side[1]));
	return r;
}

/* Finish the translation "tr" of the query "q": build its set (the blocks
 * of the components, then its own block constrained by "tr"). Return
 * SYM_TRUE, or SYM_UNKNOWN / SYM_ERROR. */
sym_answer
sym__isl_query_build(struct query *q, struct tr *tr)
{
	int r;

	q->abstracted |= tr->abstracted;
	if (tr->err || query_symbols(q) < 0) {
		sym__isl_form_clear(&tr->f);
		return SYM_ERROR;
	}
	sym__isl_budget_reset(q->ctx, q->p);
	r = query_pieces(q, &tr->f);
	if (r == 1)
		r = query_whole(q, &tr->f);
	sym__isl_form_clear(&tr->f);
	return r == 0 ? SYM_TRUE : sym__isl_failure(q->ctx, q->p->isl);
}

/* Return 1 when the set of the query "q" is empty, 0 when not, -1 on an
 * ISL failure. */
isl_bool
sym__isl_query_is_empty(struct query *q)
{
	if (q->set)
		return isl_set_is_empty(q->set);
	for (size_t i = 0; i < q->n_piece; i++) {
		isl_bool e = isl_basic_set_is_empty(q->piece[i]);

		if (e != isl_bool_true)
			return e == isl_bool_false ? isl_bool_false : e;
	}
	return isl_bool_true;
}

/* Return the set of the query "q" (kept), made from its pieces if needed;
 * NULL on an ISL failure. */
isl_set *
sym__isl_query_set(struct query *q)
{
	size_t total = q->own_base + q->own.n_dim;

	if (q->set)
		return q->set;
	q->set =
	    isl_set_empty(isl_space_set_alloc(q->p->isl, 0, (unsigned)total));
	for (size_t i = 0; i < q->n_piece; i++)
		q->set = isl_set_union(q->set,
		    isl_set_from_basic_set(isl_basic_set_copy(q->piece[i])));
	return q->set;
}

/* Add to the query "q" a dimension x == "e" and build its set. Return
 * SYM_TRUE with x in "*x", or SYM_UNKNOWN / SYM_ERROR. */
sym_answer
sym__isl_query_value(struct query *q, sym_expr *e, size_t *x)
{
	struct tr tr;
	struct lin l;

	memset(&l, 0, sizeof(l));
	sym__isl_query_tr(q, &tr);
	if (sym__expr_foreach_atom(e, sym__isl_tr_symbol_cb, &tr) != 0 ||
	    sym__isl_tr_poly(&tr, e, &l) < 0)
		tr.err = 1;
	*x = sym__isl_new_dim(&tr, DIM_AUX, NULL);
	if (!tr.err && sym__isl_lin_add_si(q->ctx, &l, *x, -1) < 0)
		tr.err = 1;
	sym__isl_tr_row(&tr, &l, 1);
	return sym__isl_query_build(q, &tr);
}

/* Return the minimum ("want_max" 0) or maximum of dimension "x" over the
 * set of the query "q", NaN when it is empty, or NULL on an ISL failure.
 * The basic sets are taken one at a time and the empty ones skipped:
 * isl_set_dim_min_val (ISL 0.25) answers 0 for a union in which some
 * basic set is rationally but not integrally non-empty. */
isl_val *
sym__isl_query_dim_opt(struct query *q, size_t x, int want_max)
{
	isl_basic_set_list *l =
	    q->set ? isl_set_get_basic_set_list(q->set) : NULL;
	isl_size n = q->set ? isl_basic_set_list_size(l) : (isl_size)q->n_piece;
	isl_val *best = isl_val_nan(q->p->isl);

	for (isl_size i = 0; i < n && best; i++) {
		isl_basic_set *b = l ? isl_basic_set_list_get_at(l, i)
		                     : isl_basic_set_copy(q->piece[(size_t)i]);
		isl_bool e = isl_basic_set_is_empty(b);
		isl_set *set =
		    e == isl_bool_false ? isl_set_from_basic_set(b) : NULL;
		isl_val *v = NULL;

		if (e != isl_bool_false)
			isl_basic_set_free(b);
		if (e < 0) {
			best = isl_val_free(best);
			break;
		}
		if (!set)
			continue;
		v = want_max ? isl_set_dim_max_val(set, (int)x)
		             : isl_set_dim_min_val(set, (int)x);
		if (!v || isl_val_is_nan(best) ||
		    (want_max ? isl_val_gt(v, best) : isl_val_lt(v, best))) {
			isl_val_free(best);
			best = v;
		} else {
			isl_val_free(v);
		}
	}
	isl_basic_set_list_free(l);
	return n < 0 ? isl_val_free(best) : best;
}
