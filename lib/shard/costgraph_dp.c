/* SPDX-License-Identifier: MIT */
/*
 * The cost graph's dynamic programming (costgraph_private.h): owners
 * eliminated one at a time, min-sum over factors of at most MAX_SCOPE
 * owners, the order (smallest scope first) and the tables made at the
 * first size and refilled at every later one; exact for the model.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "shard/costgraph_private.h"

/* The dynamic programming: the most owners a factor spans, the most
 * factors it sums, and the most table cells its pairs have and it may
 * fill in all: DP_WORK, and DP_WORK_OWNER more by searched owner (so
 * that the graphs it solves exactly are not only the small ones: its
 * work is linear in the owners when their scopes stay narrow). */
#define MAX_SCOPE 4
#define MAX_FACTORS 64
#define DP_WORK 4e6
#define DP_WORK_OWNER 2e4

/* A factor of the elimination: a table over the candidates of its
 * owners "var" (index: the sum of candidate times stride). */
struct cg_factor {
	size_t nv;
	size_t var[MAX_SCOPE];
	size_t stride[MAX_SCOPE];
	size_t cells; /* of "val" */
	double *val;
	int dead;
};

/* An eliminated owner: the factor scope it was minimized over, the
 * factors it summed ("fo", its stride in each "so") into factor "k",
 * and, by assignment of that scope, its best candidate ("arg", at the
 * last size). */
struct cg_elim {
	size_t owner, nv, k, nf;
	size_t var[MAX_SCOPE];
	size_t stride[MAX_SCOPE];
	size_t fo[MAX_FACTORS], so[MAX_FACTORS];
	uint32_t *arg;
};

/* The dynamic programming of a cost graph. Its factors and the order of
 * elimination depend on the graph and the candidates only, so they are
 * made once (at the first size) and every size refills the tables: the
 * factor of owner o is f[o], that of pair p f[fixed + p], then those
 * the eliminations make; "rc" 1 when the scopes or the work are too
 * large (at every size). */
struct sym__cg_dp {
	struct cg_factor *f;
	size_t n_f, cap_f;
	size_t **vf, *n_vf, *cap_vf; /* by owner: its factors */
	struct cg_elim *el;
	size_t n_el;
	size_t *stamp, now;
	unsigned char *gone; /* by owner: eliminated */
	/* by owner: the cells its elimination fills (HUGE_VAL: its scope is
	 * too wide), known unless "stale" */
	double *score;
	unsigned char *stale;
	size_t *asg;
	double *acc; /* scratch: a sum by candidate of the owner eliminated */
	int rc;
};

/* The scalar value of "t" for the elimination: time plus "lambda" per
 * byte, unmeasured terms prohibitive. */
static double
scalar(struct sym__cg_tot t, double lambda)
{
	return t.bad ? 1e300 : t.fs + lambda * t.mem;
}

/* Add a factor over "nv" owners "var" to "d" with a zeroed table, listed
 * under each owner; its index, or SIZE_MAX when out of memory. */
static size_t
dp_factor(struct sym__cg *cg, struct sym__cg_dp *d, size_t nv,
    const size_t *var)
{
	struct cg_factor *f = &d->f[d->n_f];
	size_t cells = 1;

	SYM__INVARIANT(d->n_f < d->cap_f && nv <= MAX_SCOPE);
	memset(f, 0, sizeof(*f));
	f->nv = nv;
	for (size_t k = 0; k < nv; k++) {
		f->var[k] = var[k];
		f->stride[k] = cells;
		cells *= cg->n_cand[var[k]];
	}
	f->cells = cells;
	f->val = sym__calloc(cg->ctx, cells, sizeof(*f->val));
	if (!f->val)
		return SIZE_MAX;
	for (size_t k = 0; k < nv; k++) {
		size_t o = var[k];

		if (SYM__RESERVE(cg->ctx, d->vf[o], d->cap_vf[o],
		        d->n_vf[o] + 1) < 0) {
			free(f->val);
			return SIZE_MAX;
		}
		d->vf[o][d->n_vf[o]++] = d->n_f;
	}
	return d->n_f++;
}

/* Free "d" (NULL: nothing) of the cost graph "cg". */
void
sym__cg_dp_free(const struct sym__cg *cg, struct sym__cg_dp *d)
{
	if (!d)
		return;
	for (size_t k = 0; d->f && k < d->n_f; k++)
		free(d->f[k].val);
	for (size_t o = 0; d->vf && o < cg->n_owner; o++)
		free(d->vf[o]);
	for (size_t k = 0; d->el && k < d->n_el; k++)
		free(d->el[k].arg);
	free(d->f);
	free(d->vf);
	free(d->n_vf);
	free(d->cap_vf);
	free(d->el);
	free(d->stamp);
	free(d->gone);
	free(d->score);
	free(d->stale);
	free(d->asg);
	free(d->acc);
	free(d);
}

/* Return the factors of "cg" (one by searched owner, one by pair of
 * owners joined by edges) with zeroed tables; NULL when out of
 * memory. */
static struct sym__cg_dp *
dp_new(struct sym__cg *cg)
{
	size_t no = cg->n_owner, fixed = no - 1, nf = 2 * no + cg->n_pair + 1;
	struct sym__cg_dp *d = sym__calloc(cg->ctx, 1, sizeof(*d));

	if (!d)
		return NULL;
	d->f = sym__calloc(cg->ctx, nf, sizeof(*d->f));
	d->cap_f = nf;
	d->vf = sym__calloc(cg->ctx, no, sizeof(*d->vf));
	d->n_vf = sym__calloc(cg->ctx, no, sizeof(*d->n_vf));
	d->cap_vf = sym__calloc(cg->ctx, no, sizeof(*d->cap_vf));
	d->el = sym__calloc(cg->ctx, no, sizeof(*d->el));
	d->stamp = sym__calloc(cg->ctx, no, sizeof(*d->stamp));
	d->gone = sym__calloc(cg->ctx, no, 1);
	d->score = sym__calloc(cg->ctx, no, sizeof(*d->score));
	d->stale = sym__calloc(cg->ctx, no, 1);
	d->asg = sym__calloc(cg->ctx, no, sizeof(*d->asg));
	d->acc =
	    sym__calloc(cg->ctx, sym__cg_most_candidates(cg), sizeof(*d->acc));
	if (!d->f || !d->vf || !d->n_vf || !d->cap_vf || !d->el || !d->stamp ||
	    !d->gone || !d->score || !d->stale || !d->asg || !d->acc) {
		sym__cg_dp_free(cg, d);
		return NULL;
	}
	memset(d->stale, 1, no);
	for (size_t o = 0; o < fixed; o++)
		if (dp_factor(cg, d, 1, &o) == SIZE_MAX) {
			sym__cg_dp_free(cg, d);
			return NULL;
		}
	for (size_t p = 0; p < cg->n_pair; p++) {
		size_t var[2] = { cg->pair[p].a, cg->pair[p].b };

		if (dp_factor(cg, d, 2, var) == SIZE_MAX) {
			sym__cg_dp_free(cg, d);
			return NULL;
		}
	}
	return d;
}

/* Fill the tables of the factors of owners and pairs of "d" at the size
 * bound in s->b: an owner's term and its edges to itself or the fixed
 * owner; a pair's edges. */
static void
dp_fill(sym_search *s, struct sym__cg *cg, struct sym__cg_dp *d, double lambda)
{
	size_t fixed = cg->n_owner - 1;

	for (size_t o = 0; o < fixed; o++)
		for (size_t c = 0; c < cg->n_cand[o]; c++) {
			struct sym__cg_tot t = { 0, 0, 0 };

			sym__cg_add_node(s, cg, o, c, &t);
			for (size_t j = 0; j < cg->n_adj[o]; j++) {
				struct sym__cg_edge *e =
				    &cg->edge[cg->adj[o][j]];

				if ((e->a == o || e->a == fixed) &&
				    (e->b == o || e->b == fixed))
					sym__cg_add_edge(s, cg, e,
					    e->a == o ? c : 0,
					    e->b == o ? c : 0, &t);
			}
			d->f[o].val[c] = scalar(t, lambda);
		}
	for (size_t p = 0; p < cg->n_pair; p++) {
		const struct sym__cg_pair *q = &cg->pair[p];
		const struct cg_factor *f = &d->f[fixed + p];
		/* the strides of a's and b's candidates (see dp_orient) */
		size_t sa = f->var[0] == q->a ? 1 : cg->n_cand[q->b];
		size_t sb = f->var[0] == q->a ? cg->n_cand[q->a] : 1;

		for (size_t ca = 0; ca < cg->n_cand[q->a]; ca++)
			for (size_t cb = 0; cb < cg->n_cand[q->b]; cb++) {
				struct sym__cg_tot t = { 0, 0, 0 };

				sym__cg_pair_terms(s, cg, q, ca, cb, &t);
				f->val[ca * sa + cb * sb] = scalar(t, lambda);
			}
	}
}

/* The scope of owner "o" in "d": the other owners of its live factors,
 * into "var" (room for MAX_SCOPE); their number, or MAX_SCOPE + 1 when
 * more (or when the factors are more than MAX_FACTORS); the product of
 * their candidates in "*cells". */
static size_t
dp_scope(const struct sym__cg *cg, struct sym__cg_dp *d, size_t o, size_t *var,
    double *cells)
{
	size_t nv = 0, live = 0;

	d->now++;
	d->stamp[o] = d->now;
	*cells = 1;
	for (size_t j = 0; j < d->n_vf[o]; j++) {
		const struct cg_factor *f = &d->f[d->vf[o][j]];

		if (f->dead)
			continue;
		if (++live > MAX_FACTORS)
			return MAX_SCOPE + 1;
		for (size_t k = 0; k < f->nv; k++) {
			size_t u = f->var[k];

			if (d->stamp[u] == d->now)
				continue;
			d->stamp[u] = d->now;
			if (nv == MAX_SCOPE)
				return MAX_SCOPE + 1;
			var[nv++] = u;
			*cells *= (double)cg->n_cand[u];
		}
	}
	return nv;
}

/* Plan the elimination of owner "o" from "d" over the scope "var"
 * ("nv"): a new factor, the live factors of "o" it sums (marked dead),
 * and the table of best candidates; 0 or -1. */
static int
dp_plan(struct sym__cg *cg, struct sym__cg_dp *d, size_t o, size_t nv,
    const size_t *var)
{
	size_t k = dp_factor(cg, d, nv, var), cells = 1;
	struct cg_elim *el = &d->el[d->n_el];

	if (k == SIZE_MAX)
		return -1;
	SYM__INVARIANT(d->n_el < cg->n_owner);
	memset(el, 0, sizeof(*el));
	for (size_t j = 0; j < d->n_vf[o]; j++) {
		struct cg_factor *f = &d->f[d->vf[o][j]];

		if (f->dead || d->vf[o][j] == k)
			continue;
		f->dead = 1;
		SYM__INVARIANT(el->nf < MAX_FACTORS);
		el->fo[el->nf] = d->vf[o][j];
		for (size_t m = 0; m < f->nv; m++)
			if (f->var[m] == o)
				el->so[el->nf] = f->stride[m];
		el->nf++;
	}
	for (size_t m = 0; m < nv; m++)
		cells *= cg->n_cand[var[m]];
	el->owner = o;
	el->nv = nv;
	el->k = k;
	memcpy(el->var, d->f[k].var, sizeof(el->var));
	memcpy(el->stride, d->f[k].stride, sizeof(el->stride));
	el->arg = sym__calloc(cg->ctx, cells, sizeof(*el->arg));
	if (!el->arg)
		return -1;
	d->n_el++;
	return 0;
}

/* Set the "nc" sums of "acc" to 0 plus the values of "v" at stride "st"
 * when "first", else add those values to them. */
static void
acc_add(double *restrict acc, const double *restrict v, size_t st, size_t nc,
    int first)
{
	if (first)
		for (size_t c = 0; c < nc; c++)
			acc[c] = 0.0 + v[c * st];
	else if (st == 1)
		for (size_t c = 0; c < nc; c++)
			acc[c] += v[c];
	else
		for (size_t c = 0; c < nc; c++)
			acc[c] += v[c * st];
}

/* Return the first of the "nc" candidates with the least sum "acc" plus
 * the value of "v" at stride "st" (0 plus it when "acc" is NULL), that
 * sum in "*best". */
static size_t
acc_min(const double *acc, const double *v, size_t st, size_t nc, double *best)
{
	size_t bc = 0;
	double bv = 0;

	if (!acc)
		for (size_t c = 0; c < nc; c++) {
			double a = 0.0 + v[c * st];

			if (c == 0 || a < bv) {
				bv = a;
				bc = c;
			}
		}
	else
		for (size_t c = 0; c < nc; c++) {
			double a = acc[c] + v[c * st];

			if (c == 0 || a < bv) {
				bv = a;
				bc = c;
			}
		}
	*best = bv;
	return bc;
}

/* Run the elimination "el" of "d": its factor's table, the least sum of
 * the factors it sums over the candidates of its owner, and the best
 * candidate by assignment of its scope. The sums are made a factor at a
 * time in the order of "el" (the last one's pass also finds the least),
 * the same additions as candidate by candidate. */
static void
dp_run(const struct sym__cg *cg, struct sym__cg_dp *d, const struct cg_elim *el)
{
	size_t o = el->owner, nc = cg->n_cand[o], cells = 1, nf = el->nf;
	size_t base[MAX_FACTORS] = { 0 }; /* by factor, at this cell */
	struct cg_factor *g = &d->f[el->k];

	for (size_t m = 0; m < el->nv; m++) {
		cells *= cg->n_cand[el->var[m]];
		d->asg[el->var[m]] = 0;
	}
	for (size_t x = 0; x < cells; x++) {
		size_t bc = 0;
		double bv = 0;

		for (size_t j = 0; j < nf; j++) {
			const struct cg_factor *f = &d->f[el->fo[j]];

			base[j] = 0;
			for (size_t m = 0; m < f->nv; m++)
				if (f->var[m] != o)
					base[j] +=
					    d->asg[f->var[m]] * f->stride[m];
			SYM__INVARIANT(base[j] + (nc - 1) * el->so[j] <
			    f->cells);
		}
		for (size_t j = 0; j + 1 < nf; j++)
			acc_add(d->acc, d->f[el->fo[j]].val + base[j],
			    el->so[j], nc, j == 0);
		if (nf > 0)
			bc = acc_min(nf > 1 ? d->acc : NULL,
			    d->f[el->fo[nf - 1]].val + base[nf - 1],
			    el->so[nf - 1], nc, &bv);
		SYM__INVARIANT(x < g->cells);
		g->val[x] = bv;
		el->arg[x] = (uint32_t)bc;
		/* the next assignment of the scope, the first owner fastest */
		for (size_t m = 0; m < el->nv; m++) {
			if (++d->asg[el->var[m]] < cg->n_cand[el->var[m]])
				break;
			d->asg[el->var[m]] = 0;
		}
	}
}

/* Lay out the pair factors of "d" (of "cg") so that the owner each is
 * summed over when eliminated varies fastest (its table then read in
 * order, not by strides). */
static void
dp_orient(const struct sym__cg *cg, struct sym__cg_dp *d)
{
	size_t fixed = cg->n_owner - 1;

	for (size_t k = 0; k < d->n_el; k++) {
		struct cg_elim *el = &d->el[k];

		for (size_t j = 0; j < el->nf; j++) {
			struct cg_factor *f = &d->f[el->fo[j]];
			size_t v0 = f->var[0];

			if (el->fo[j] < fixed ||
			    el->fo[j] >= fixed + cg->n_pair || el->so[j] == 1)
				continue;
			f->var[0] = f->var[1];
			f->var[1] = v0;
			f->stride[0] = 1;
			f->stride[1] = cg->n_cand[f->var[0]];
			el->so[j] = 1;
		}
	}
}

/* Make the dynamic programming of "cg" (cg->dp): its factors and its
 * order of elimination, the owner with the smallest scope first, while
 * the scopes span at most MAX_SCOPE owners and the work stays within its
 * bound (else d->rc = 1); 0, or -1 when out of memory. */
static int
dp_make(struct sym__cg *cg)
{
	size_t no = cg->n_owner, fixed = no - 1;
	double work = 0, most = DP_WORK + DP_WORK_OWNER * (double)fixed;
	struct sym__cg_dp *d;

	for (size_t p = 0; p < cg->n_pair; p++)
		work += (double)cg->n_cand[cg->pair[p].a] *
		    (double)cg->n_cand[cg->pair[p].b];
	if (work > most) {
		cg->dp = sym__calloc(cg->ctx, 1, sizeof(*cg->dp));
		if (!cg->dp)
			return -1;
		cg->dp->rc = 1;
		return 0;
	}
	d = cg->dp = dp_new(cg);
	if (!d)
		return -1;
	work = 0;
	for (size_t step = 0; step < fixed; step++) {
		size_t bo = SIZE_MAX, bnv, var[MAX_SCOPE];
		double cells;

		/* a scope changes only when a neighbour is eliminated */
		for (size_t o = 0; o < fixed; o++) {
			if (d->gone[o])
				continue;
			if (d->stale[o]) {
				size_t nv = dp_scope(cg, d, o, var, &cells);

				d->score[o] = nv > MAX_SCOPE
				    ? HUGE_VAL
				    : cells * (double)cg->n_cand[o];
				d->stale[o] = 0;
			}
			if (d->score[o] < HUGE_VAL &&
			    (bo == SIZE_MAX || d->score[o] < d->score[bo]))
				bo = o;
		}
		if (bo == SIZE_MAX || (work += d->score[bo]) > most) {
			d->rc = 1;
			return 0;
		}
		bnv = dp_scope(cg, d, bo, var, &cells);
		if (dp_plan(cg, d, bo, bnv, var) < 0)
			return -1;
		d->gone[bo] = 1;
		for (size_t m = 0; m < bnv; m++)
			d->stale[var[m]] = 1;
	}
	dp_orient(cg, d);
	return 0;
}

/* Store in "ch" the plan of least time plus "lambda" per byte in the
 * model of "cg" at the bound size, by eliminating the owners one at a
 * time in the order dp_make chose (exact: dynamic programming over the
 * cost graph). Return 0, 1 when the scopes grow beyond MAX_SCOPE owners
 * or the work beyond its bound (nothing done), or -1 when out of
 * memory. */
int
sym__cg_dp_solve(sym_search *s, struct sym__cg *cg, double lambda, size_t *ch)
{
	struct sym__cg_dp *d;

	if (!cg->dp && dp_make(cg) < 0)
		return -1;
	d = cg->dp;
	if (d->rc)
		return d->rc;
	dp_fill(s, cg, d, lambda);
	for (size_t k = 0; k < d->n_el; k++)
		dp_run(cg, d, &d->el[k]);
	ch[cg->n_owner - 1] = 0;
	for (size_t k = d->n_el; k-- > 0;) {
		const struct cg_elim *el = &d->el[k];
		size_t x = 0;

		for (size_t m = 0; m < el->nv; m++)
			x += ch[el->var[m]] * el->stride[m];
		ch[el->owner] = el->arg[x];
	}
	return 0;
}
