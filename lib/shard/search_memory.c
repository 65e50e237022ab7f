/* SPDX-License-Identifier: MIT */
/*
 * The strategy search's memory cap (search_private.h): the floor the
 * parameters alone set, the error naming the first sizes where no plan
 * fits, and the proof that each piece's plan stays within the cap for
 * every size the piece covers (the prover under the piece's bounds on
 * both searched symbols, else every size evaluated when they are few).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "shard/search_private.h"

/* The most sizes of a piece whose memory is checked at each when the
 * prover cannot decide it. */
#define MAX_EXHAUST 65536

/* Return, malloc'ed, the sizes of the second searched symbol of "s" the
 * piece "p" covers as a clause, " and s in [8, 24]" (" and s >= 32",
 * " and s = 8"), "" when there is none; NULL when out of memory. */
static char *
second_text(const sym_search *s, const struct sym__spiece *p)
{
	const char *n = s->n_var > 1 ? sym_symbol_name(s->var[1].sym) : NULL;

	if (!n)
		return sym__strdup(s->ctx, "");
	if (p->hi[1] < 0)
		return sym__asprintf(" and %s >= %lld", n, (long long)p->lo[1]);
	if (p->hi[1] == p->lo[1])
		return sym__asprintf(" and %s = %lld", n, (long long)p->lo[1]);
	return sym__asprintf(" and %s in [%lld, %lld]", n, (long long)p->lo[1],
	    (long long)p->hi[1]);
}

/* Record on the context the error of the first piece of "s" where no
 * plan fits the cap; return -1. */
static int
no_fit(sym_search *s, const struct sym__spiece *p)
{
	int64_t least = INT64_MAX;
	const char *n = s->n_var ? sym_symbol_name(s->var[0].sym) : "?";
	char *cell = second_text(s, p), *range, at2[96] = "";
	const char *lv = s->n_level > 1
	    ? " at any level of optimizer_shard (0, 1, 2, 3)"
	    : "";

	sym__search_bind_at(s, p->lo[0]);
	if (s->n_var > 1)
		sym__search_bind(s, s->var[1].sym, p->lo[1]);
	for (size_t e = 0; e < s->n_entry; e++) {
		struct sym__sval v = sym__search_value(s, e);

		if (v.bad < 2 && v.mem < least)
			least = v.mem;
	}
	if (!cell)
		return -1;
	if (s->n_var > 1)
		snprintf(at2, sizeof(at2), ", %s = %lld",
		    sym_symbol_name(s->var[1].sym), (long long)p->lo[1]);
	range = p->hi[0] < 0
	    ? sym__asprintf("%s >= %lld", n, (long long)p->lo[0])
	    : sym__asprintf("%s in [%lld, %lld]", n, (long long)p->lo[0],
	          (long long)p->hi[0]);
	if (!range) {
		free(cell);
		sym__oom(s->ctx);
		return -1;
	}
	sym__error(s->ctx, SYM_EINVAL,
	    s->g->auto_parallel ? &s->g->auto_loc : NULL,
	    "search: no plan fits memory=%lld bytes%s for %s%s: the least "
	    "memory of the plans it priced at %s = %lld%s is %lld bytes",
	    (long long)s->cap, lv, range, cell, n, (long long)p->lo[0], at2,
	    (long long)least);
	free(range);
	free(cell);
	return -1;
}

/* Check that some piece of "s" fits; else record the error of the
 * first sizes where no plan fits the cap (the consecutive pieces of one
 * cell), or of the first where none can be priced. 0 or -1. */
int
sym__search_some_fit(sym_search *s)
{
	size_t i;
	struct sym__spiece p;

	for (i = 0; i < s->n_piece; i++)
		if (s->piece[i].bad == 0)
			return 0;
	for (i = 0; i < s->n_piece && s->piece[i].bad != 1; i++)
		;
	if (i < s->n_piece) {
		p = s->piece[i];
		while (i + 1 < s->n_piece && s->piece[i + 1].bad &&
		    s->piece[i + 1].lo[1] == p.lo[1])
			p.hi[0] = s->piece[++i].hi[0];
		return no_fit(s, &p);
	}
	sym__error(s->ctx, SYM_EINVAL,
	    s->g->auto_parallel ? &s->g->auto_loc : NULL,
	    "search: no plan can be priced at %s = %lld: the time or memory "
	    "of every plan overflows 64 bits",
	    s->n_var ? sym_symbol_name(s->var[0].sym) : "?",
	    (long long)(s->n_piece ? s->piece[0].lo[0] : s->var[0].lo));
	return -1;
}

/* Assume in the context of "s" that the symbol "x" lies in ["lo", "hi"]
 * ("hi" -1: no bound); 0 or -1. */
static int
assume_range(sym_search *s, sym_symbol *x, int64_t lo, int64_t hi)
{
	sym_expr *y = sym_expr_symbol(x), *l = sym_expr_const(s->ctx, lo);
	sym_expr *h = hi >= 0 ? sym_expr_const(s->ctx, hi) : NULL;
	int rc = !y || !l || (hi >= 0 && !h) ||
	        sym_ctx_assume(s->ctx, y, SYM_GE, l, NULL) < 0 ||
	        (h && sym_ctx_assume(s->ctx, y, SYM_LE, h, NULL) < 0)
	    ? -1
	    : 0;

	sym_expr_free(y);
	sym_expr_free(l);
	sym_expr_free(h);
	return rc;
}

/* Decide whether the memory of piece "p" of "s" stays within the cap by
 * evaluating it at every admissible size it covers, when they are at
 * most MAX_EXHAUST (every searched symbol bounded); SYM_TRUE, SYM_FALSE
 * with the first sizes that break it in "at" (by searched symbol, the
 * first one varying fastest), or SYM_UNKNOWN. */
static sym_answer
exhaust_memory(sym_search *s, const struct sym__spiece *p, int64_t *at)
{
	int64_t d[SYM__SEARCH_MAX_SYM], n[SYM__SEARCH_MAX_SYM], total = 1, mem;
	int64_t k[SYM__SEARCH_MAX_SYM] = { 0 };
	const sym_expr *e = s->entry[p->entry].mem;
	size_t j;

	for (j = 0; j < s->n_var; j++) {
		d[j] = s->var[j].info.divisor > 0 ? s->var[j].info.divisor : 1;
		n[j] = p->hi[j] < 0 ? -1 : (p->hi[j] - p->lo[j]) / d[j] + 1;
		if (n[j] < 0 || n[j] > MAX_EXHAUST / total)
			return SYM_UNKNOWN;
		total *= n[j];
	}
	for (int64_t c = 0; c < total; c++) {
		for (j = 0; j < s->n_var; j++)
			sym__search_bind(s, s->var[j].sym,
			    p->lo[j] + k[j] * d[j]);
		if (sym_expr_eval(e, s->b, &mem) < 0) {
			sym_ctx_clear_error(s->ctx);
			return SYM_UNKNOWN;
		}
		if (mem > s->cap) {
			for (j = 0; j < s->n_var; j++)
				at[j] = p->lo[j] + k[j] * d[j];
			return SYM_FALSE;
		}
		for (j = 0; j < s->n_var && ++k[j] == n[j]; j++)
			k[j] = 0;
	}
	return SYM_TRUE;
}

/* Prove that the memory of every piece of "s" that fits stays within
 * the cap for every size it covers (the prover, under the piece's
 * bounds on both searched symbols); 0, or -1 with an error naming the
 * piece and the size that breaks it. */
int
sym__search_prove_memory(sym_search *s)
{
	int rc = 0;

	for (size_t i = 0; i < s->n_piece && rc == 0 && s->cap > 0; i++) {
		const struct sym__spiece *p = &s->piece[i];
		sym_expr *cap;
		sym_binding *w = NULL;
		sym_answer a = SYM_UNKNOWN;
		int64_t at[SYM__SEARCH_MAX_SYM];
		char *cell, where[96] = "";

		if (p->bad || !s->n_var)
			continue;
		for (size_t k = 0; k < s->n_var; k++)
			at[k] = p->lo[k];
		cap = sym_expr_const(s->ctx, s->cap);
		if (!cap || sym_ctx_push(s->ctx) < 0) {
			sym_expr_free(cap);
			return -1;
		}
		for (size_t k = 0; k < s->n_var && rc == 0; k++)
			if (assume_range(s, s->var[k].sym, p->lo[k], p->hi[k]) <
			    0)
				rc = -1;
		if (rc == 0)
			a = sym_prove_cmp(s->ctx, s->entry[p->entry].mem,
			    SYM_LE, cap, &w);
		sym_ctx_pop(s->ctx);
		sym_expr_free(cap);
		if (rc == 0 && a != SYM_TRUE && a != SYM_FALSE) {
			sym_binding_free(w);
			w = NULL;
			a = exhaust_memory(s, p, at);
		}
		if (rc < 0 || a == SYM_TRUE) {
			sym_binding_free(w);
			continue;
		}
		for (size_t k = 0; w && k < s->n_var; k++)
			sym_binding_get(w, s->var[k].sym, &at[k]);
		sym_binding_free(w);
		cell = second_text(s, p);
		if (!cell)
			return -1;
		if (s->n_var > 1)
			snprintf(where, sizeof(where), ", %s = %lld",
			    sym_symbol_name(s->var[1].sym), (long long)at[1]);
		sym__error(s->ctx, SYM_EINVAL,
		    s->g->auto_parallel ? &s->g->auto_loc : NULL,
		    "search: the memory of the plan for %s in [%lld, %lld]%s "
		    "is not proven within memory=%lld bytes (%s at %s = "
		    "%lld%s)",
		    sym_symbol_name(s->var[0].sym), (long long)p->lo[0],
		    (long long)p->hi[0], cell, (long long)s->cap,
		    a == SYM_FALSE ? "exceeded" : "undecided",
		    sym_symbol_name(s->var[0].sym), (long long)at[0], where);
		free(cell);
		rc = -1;
	}
	return rc;
}

/* Check that the cap of "s" leaves room for the parameters alone, each
 * split over every device (no plan can do better), at the least sizes;
 * 0, or -1 with an error located at the statement. */
int
sym__search_params_fit(sym_search *s)
{
	int64_t devices = s->g->devices > 0 ? s->g->devices : 1, total = 0;

	if (s->cap <= 0)
		return 0;
	for (size_t i = 0; i < s->g->n_value; i++) {
		sym_value *v = s->g->value[i];
		sym_expr *n;
		int64_t e = 0;

		if (v->kind != SYM_VALUE_PARAM || v->state || v->failed)
			continue;
		n = sym_shape_numel(sym__value_shape(v));
		if (!n || sym_expr_eval(n, s->b, &e) < 0) {
			sym_expr_free(n);
			sym_ctx_clear_error(s->ctx);
			continue;
		}
		sym_expr_free(n);
		total += e *
		    (int64_t)
		        sym_dtype_size(sym_shape_dtype(sym__value_shape(v)));
	}
	if ((total + devices - 1) / devices <= s->cap)
		return 0;
	sym__error(s->ctx, SYM_EINVAL,
	    s->g->auto_parallel ? &s->g->auto_loc : NULL,
	    "search: memory=%lld bytes is below what the parameters alone "
	    "need: %lld bytes per device with every parameter split over all "
	    "%lld devices",
	    (long long)s->cap, (long long)((total + devices - 1) / devices),
	    (long long)devices);
	return -1;
}
