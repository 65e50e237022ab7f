/* SPDX-License-Identifier: MIT */
/*
 * The exact tier's prover and its cache (prove_isl.c, "Caching"): the ISL
 * context of a sym_ctx with its operation budget, the facts in scope
 * grouped into components by the symbols they share, and the pool of the
 * components' sets, each built one fact at a time.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/options.h>
#include <isl/space.h>

#include "sym/prove_isl_private.h"

/* Components kept in the pool beyond those of the current facts. */
#define POOL_CAP 32

/* Turn a failure while working with "isl" into an answer for "ctx":
 * SYM_UNKNOWN when the operation budget ran out, SYM_ERROR with SYM_EISL
 * for another error of ISL, SYM_ERROR alone when ISL reports none (our
 * own allocation failed, already recorded). The error of "isl" is
 * cleared. */
sym_answer
sym__isl_failure(sym_ctx *ctx, isl_ctx *isl)
{
	enum isl_error e = isl_ctx_last_error(isl);
	const char *msg = isl_ctx_last_error_msg(isl);

	if (e == isl_error_none)
		return SYM_ERROR;
	if (e == isl_error_quota) {
		isl_ctx_reset_error(isl);
		return SYM_UNKNOWN;
	}
	sym__error(ctx, SYM_EISL, NULL, "integer set library: %s",
	    msg ? msg : "unknown error");
	isl_ctx_reset_error(isl);
	return SYM_ERROR;
}

/* Give the ISL context of "p" a fresh operation budget from the options
 * of "ctx". */
void
sym__isl_budget_reset(sym_ctx *ctx, struct sym__prover *p)
{
	long ops = ctx->opt_isl_max_ops;

	isl_ctx_set_max_operations(p->isl, ops > 0 ? (unsigned long)ops : 0);
	isl_ctx_reset_operations(p->isl);
	isl_ctx_reset_error(p->isl);
}

/* Give the ISL context of "p" a fresh budget of at most "cap" operations
 * (the options of "ctx" may set fewer). */
void
sym__isl_budget_cap(sym_ctx *ctx, struct sym__prover *p, long cap)
{
	long ops = ctx->opt_isl_max_ops;

	isl_ctx_set_max_operations(p->isl,
	    (unsigned long)(ops > 0 && ops < cap ? ops : cap));
	isl_ctx_reset_operations(p->isl);
}

/* Free the component "c", releasing its facts when "unref" is set (not
 * while the context is being freed: the node table may be gone). */
static void
comp_free(struct comp *c, int unref)
{
	if (!c)
		return;
	for (size_t i = 0; unref && i < c->n_fact; i++)
		sym__expr_unref(c->fact[i].e);
	free(c->fact);
	isl_set_free(c->set);
	free(c->dim);
	free(c);
}

/* Clean-up hook: free the prover of "ctx" and its ISL context. */
static void
prover_free(sym_ctx *ctx)
{
	struct sym__prover *p = ctx->prover;

	if (!p)
		return;
	for (size_t i = 0; i < p->n_pool; i++)
		comp_free(p->pool[i], 0);
	free(p->pool);
	free(p->cur);
	free(p->comp_of);
	isl_ctx_free(p->isl);
	free(p);
	ctx->prover = NULL;
}

/* Return the prover of "ctx", creating it (and its ISL context) on first
 * use; NULL with an error on "ctx". */
struct sym__prover *
sym__isl_prover_get(sym_ctx *ctx)
{
	struct sym__prover *p = ctx->prover;

	if (p)
		return p;
	if (sym__ctx_add_hook(ctx, prover_free) < 0)
		return NULL;
	p = sym__alloc(ctx, sizeof(*p));
	if (!p)
		return NULL;
	p->isl = isl_ctx_alloc();
	if (!p->isl) {
		free(p);
		sym__error(ctx, SYM_EISL, NULL,
		    "cannot create an integer set library context");
		return NULL;
	}
	isl_options_set_on_error(p->isl, ISL_ON_ERROR_CONTINUE);
	p->global = NO_DIM;
	ctx->prover = p;
	return p;
}

/* Return 1 when the "n" fact keys "a" and "b" are the same facts. */
static int
fkeys_equal(const struct fkey *a, const struct fkey *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].rel != b[i].rel || a[i].e != b[i].e ||
		    a[i].k != b[i].k)
			return 0;
	return 1;
}

/* Return a new component of "ctx" for the "n" facts "key" (references
 * taken), continuing from the built state of "from" (may be NULL), or
 * NULL. */
static struct comp *
comp_new(sym_ctx *ctx, const struct fkey *key, size_t n,
    const struct comp *from)
{
	struct comp *c = sym__alloc(ctx, sizeof(*c));

	if (!c)
		return NULL;
	c->fact = sym__alloc(ctx, n * sizeof(*c->fact));
	if (from && from->n_dim)
		c->dim = sym__alloc(ctx, from->n_dim * sizeof(*c->dim));
	if (!c->fact || (from && from->n_dim && !c->dim)) {
		free(c->fact);
		free(c);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		c->fact[i] = key[i];
		sym__expr_ref(key[i].e);
	}
	c->n_fact = n;
	if (from) {
		c->n_built = from->n_built;
		c->set = isl_set_copy(from->set);
		if (from->n_dim)
			memcpy(c->dim, from->dim,
			    from->n_dim * sizeof(*c->dim));
		c->n_dim = c->cap_dim = from->n_dim;
		c->abstracted = from->abstracted;
		c->n_minmax = from->n_minmax;
	}
	return c;
}

/* Return the component of "p" for the "n" facts "key": the pooled one
 * with exactly these facts, or a new one continuing from the pooled one
 * that built the longest prefix of them. NULL with an error on "ctx". */
static struct comp *
pool_match(sym_ctx *ctx, struct sym__prover *p, const struct fkey *key,
    size_t n)
{
	struct comp *best = NULL, *c;

	for (size_t i = 0; i < p->n_pool; i++) {
		c = p->pool[i];
		if (c->n_fact == n && fkeys_equal(c->fact, key, n))
			return c;
		if (c->n_built > 0 && c->n_built <= n &&
		    (!best || c->n_built > best->n_built) &&
		    fkeys_equal(c->fact, key, c->n_built))
			best = c;
	}
	if (SYM__RESERVE(ctx, p->pool, p->cap_pool, p->n_pool + 1) < 0)
		return NULL;
	c = comp_new(ctx, key, n, best);
	if (c)
		p->pool[p->n_pool++] = c;
	return c;
}

/* Free the least recently used components of "p" that the current facts
 * do not use, down to POOL_CAP components in all. */
static void
pool_evict(struct sym__prover *p)
{
	while (p->n_pool > POOL_CAP) {
		size_t v = NO_DIM;

		for (size_t i = 0; i < p->n_pool; i++)
			if (p->pool[i]->used < p->clock &&
			    (v == NO_DIM ||
			        p->pool[i]->used < p->pool[v]->used))
				v = i;
		if (v == NO_DIM)
			return;
		comp_free(p->pool[v], 1);
		p->pool[v] = p->pool[--p->n_pool];
	}
}

/* Return the representative of "i" in the union-find forest "parent". */
static size_t
uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

/* The symbols of one fact, merged into one class of a union-find forest. */
struct fsyms {
	size_t *parent;
	size_t first;
};

/* sym__expr_foreach_atom callback: merge the class of the symbol of the
 * atom "atom" with that of the first symbol of the fact in "user". */
static int
fact_union(struct sym_expr *atom, void *user)
{
	struct fsyms *fs = user;
	size_t a, b;

	if (atom->kind != SYM__VAR)
		return 0;
	if (fs->first == NO_DIM) {
		fs->first = atom->u.var->id;
		return 0;
	}
	a = uf_find(fs->parent, fs->first);
	b = uf_find(fs->parent, atom->u.var->id);
	if (a < b)
		fs->parent[b] = a;
	else
		fs->parent[a] = b;
	return 0;
}

/* Group the facts of "ctx" into components, numbered by their first fact,
 * and attach to each a pooled component of "p". Return 0 or -1. */
static int
sync_groups(sym_ctx *ctx, struct sym__prover *p, size_t *parent, size_t *grp,
    size_t *gid, struct fkey *key, size_t *off)
{
	size_t ns = ctx->n_sym, nf = ctx->n_fact, ng = 0;
	struct comp **cur;

	for (size_t i = 0; i <= ns; i++) {
		parent[i] = i;
		gid[i] = NO_DIM;
	}
	for (size_t i = 0; i < nf; i++) {
		struct fsyms fs = { parent, NO_DIM };

		sym__expr_foreach_atom(ctx->fact[i].e, fact_union, &fs);
		grp[i] = fs.first == NO_DIM ? ns : fs.first;
	}
	for (size_t i = 0; i < nf; i++) {
		size_t r = grp[i] == ns ? ns : uf_find(parent, grp[i]);

		if (gid[r] == NO_DIM)
			gid[r] = ng++;
		grp[i] = gid[r];
	}
	/* a stable counting sort of the facts by group into "key": group g
	 * is key[off[g] .. off[g + 1]) */
	memset(off, 0, (ng + 1) * sizeof(*off));
	for (size_t i = 0; i < nf; i++)
		off[grp[i] + 1]++;
	for (size_t g = 0; g < ng; g++)
		off[g + 1] += off[g];
	for (size_t i = 0; i < nf; i++) {
		struct fkey *k = &key[off[grp[i]]++];

		k->rel = ctx->fact[i].rel;
		k->e = ctx->fact[i].e;
		k->k = ctx->fact[i].k;
	}
	for (size_t g = ng; g > 0; g--)
		off[g] = off[g - 1];
	off[0] = 0;
	cur = sym__realloc_array(ctx, p->cur, ng ? ng : 1, sizeof(*cur));
	if (!cur)
		return -1;
	p->cur = cur;
	p->n_cur = 0;
	p->clock++;
	for (size_t g = 0; g < ng; g++) {
		struct comp *c =
		    pool_match(ctx, p, key + off[g], off[g + 1] - off[g]);

		if (!c)
			return -1;
		c->used = p->clock;
		p->cur[p->n_cur++] = c;
	}
	for (size_t s = 0; s < ns; s++)
		p->comp_of[s] = gid[uf_find(parent, s)];
	p->n_comp_of = ns;
	p->global = gid[ns];
	return 0;
}

/* Bring the components of "p" up to date with the facts of "ctx".
 * Return 0 or -1. */
int
sym__isl_sync(sym_ctx *ctx, struct sym__prover *p)
{
	size_t ns = ctx->n_sym, nf = ctx->n_fact;
	size_t *parent, *grp, *gid, *off, *co;
	struct fkey *key;
	int r = -1;

	if (p->synced && p->gen == ctx->facts_gen)
		return 0;
	p->synced = 0;
	co = sym__realloc_array(ctx, p->comp_of, ns ? ns : 1, sizeof(*co));
	if (!co)
		return -1;
	p->comp_of = co;
	parent = sym__alloc(ctx, (ns + 1) * sizeof(*parent));
	gid = sym__alloc(ctx, (ns + 1) * sizeof(*gid));
	grp = sym__alloc(ctx, (nf + 1) * sizeof(*grp));
	off = sym__alloc(ctx, (nf + 2) * sizeof(*off));
	key = sym__alloc(ctx, (nf + 1) * sizeof(*key));
	if (parent && gid && grp && off && key &&
	    sync_groups(ctx, p, parent, grp, gid, key, off) == 0) {
		pool_evict(p);
		p->gen = ctx->facts_gen;
		p->synced = 1;
		r = 0;
	}
	free(parent);
	free(gid);
	free(grp);
	free(off);
	free(key);
	return r;
}

/* isl_set_foreach_basic_set callback: store in "user" (an isl_set **)
 * the set of the only disjunct "bs" (taken) of a set; isl_stat_ok. */
static isl_stat
only_disjunct(isl_basic_set *bs, void *user)
{
	*(isl_basic_set **)user = bs;
	return isl_stat_ok;
}

/* Return the set "set" (taken) intersected with the basic set "with"
 * (taken), or NULL when ISL fails. A set of one disjunct (a component
 * without min or max) is intersected as a basic set: isl_set_intersect
 * first normalises both operands to compare them (a redundancy check of
 * every constraint, a tableau over the whole component), which made the
 * n-th fact of a component cost about n^3 and a chain of n relations n^4.
 * The set is the same either way. */
static isl_set *
meet(isl_set *set, isl_basic_set *with)
{
	isl_basic_set *only = NULL;

	if (!set || !with || isl_set_n_basic_set(set) != 1) {
		return isl_set_intersect(set, isl_set_from_basic_set(with));
	}
	if (isl_set_foreach_basic_set(set, only_disjunct, &only) < 0 || !only) {
		isl_basic_set_free(only);
		isl_set_free(set);
		isl_basic_set_free(with);
		return NULL;
	}
	isl_set_free(set);
	return isl_set_from_basic_set(isl_basic_set_intersect(only, with));
}

/* Translate the next fact of component "c" into its set. Return SYM_TRUE,
 * SYM_UNKNOWN when the budget ran out, or SYM_ERROR. On failure "c" is
 * left as it was. */
sym_answer
sym__isl_comp_step(sym_ctx *ctx, struct sym__prover *p, struct comp *c)
{
	const struct fkey *fk = &c->fact[c->n_built];
	size_t n0 = c->n_dim;
	int mm0 = c->n_minmax;
	struct tr tr;
	isl_set *set;

	sym__isl_tr_init(&tr, ctx, NULL, NULL, 0, c, 0,
	    MAX_MINMAX - c->n_minmax);
	sym__isl_tr_rel(&tr, fk->rel, fk->e, fk->k, 0);
	if (tr.err) {
		sym__isl_form_clear(&tr.f);
		c->n_dim = n0;
		c->n_minmax = mm0;
		return SYM_ERROR;
	}
	sym__isl_budget_reset(ctx, p);
	set = c->set ? isl_set_copy(c->set)
	             : isl_set_universe(isl_space_set_alloc(p->isl, 0, 0));
	set = isl_set_add_dims(set, isl_dim_set, (unsigned)(c->n_dim - n0));
	if (tr.f.n_alt)
		set = isl_set_intersect(set,
		    sym__isl_form_set(p->isl, c->n_dim, &tr.f));
	else
		set = meet(set,
		    sym__isl_form_bset(p->isl, c->n_dim, &tr.f, NULL));
	set = isl_set_coalesce(set);
	sym__isl_form_clear(&tr.f);
	if (!set) {
		c->n_dim = n0;
		c->n_minmax = mm0;
		return sym__isl_failure(ctx, p->isl);
	}
	isl_set_free(c->set);
	c->set = set;
	c->n_built++;
	c->abstracted |= tr.abstracted;
	return SYM_TRUE;
}
