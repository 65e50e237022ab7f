/* SPDX-License-Identifier: MIT */
/*
 * The strategy search's candidates (search_private.h): which operators
 * are searched, the tuple strategies their rules accept over splits that
 * divide the devices (sym__shard_candidates, choose.c), and on several
 * nodes each one's layout forms over reorderings of its device matrix cut
 * into prime factors, with the "auto_*" meshes they use, read as the
 * meshes of every assignment the search shards with. Operators with very
 * many candidates are pruned when the plans are too many to enumerate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "front/front.h"
#include "shard/search_private.h"

#define MOST_TRIES 200000
/* Above this many candidates of one operator, the cost graph keeps only
 * those over every device or none. */
#define CG_MOST_CANDIDATES 128
/* Layout candidates: the most prime factors a device matrix may have for
 * its orders to be tried (256 devices), and the most for every set of
 * factors that fills a node to be tried; beyond, a set takes the least
 * significant factors of each axis only. */
#define MAX_LAYOUT_AXES 8
#define ALL_SETS_AXES 4

/* The marks of a candidate (s->part): over some devices but not all; a
 * layout strategy (an order of a tuple strategy's device matrix). */
#define CAND_PART 1
#define CAND_LAYOUT 2

/* Add "text", a strategy over "used" devices (a layout strategy when
 * "layout"), to the candidates of searched node "j" of "s" unless it is
 * there; 0 or -1. */
static int
add_text(sym_search *s, size_t j, const char *text, int64_t used, int layout)
{
	size_t n = s->n_cand[j];
	char **c, *t;
	unsigned char *part;

	for (size_t k = 0; k < n; k++)
		if (!strcmp(s->cand[j][k], text))
			return 0;
	c = sym__realloc_array(s->ctx, s->cand[j], n + 1, sizeof(*c));
	if (c)
		s->cand[j] = c;
	part = sym__realloc_array(s->ctx, s->part[j], n + 1, 1);
	if (part)
		s->part[j] = part;
	t = c && part ? sym__strdup(s->ctx, text) : NULL;
	if (!c || !part || !t) {
		free(t);
		return -1;
	}
	c[n] = t;
	part[n] = (unsigned char)((used > 1 &&
	                                      used < (s->g->devices > 0
	                                                     ? s->g->devices
	                                                     : 1)
	                                  ? CAND_PART
	                                  : 0) |
	    (layout ? CAND_LAYOUT : 0));
	s->n_cand[j] = n + 1;
	return 0;
}

/* Record in "s" the mesh "decl" ("name = (a=2, b=4)") that layout
 * candidates use, unless recorded; 0 or -1. */
static int
add_mesh(sym_search *s, const char *decl)
{
	char *t;

	for (size_t k = 0; k < s->n_mesh; k++)
		if (!strcmp(s->mesh[k], decl))
			return 0;
	if (SYM__RESERVE(s->ctx, s->mesh, s->cap_mesh, s->n_mesh + 1) < 0 ||
	    !(t = sym__strdup(s->ctx, decl)))
		return -1;
	s->mesh[s->n_mesh++] = t;
	return 0;
}

/* The axes of a device matrix cut into prime factors: factor "f" of
 * mesh axis axis[f], of size size[f], named name[f] (the axis's name,
 * then a letter when the axis has several factors). */
struct factors {
	size_t n, axis[MAX_LAYOUT_AXES];
	size_t first[MAX_LAYOUT_AXES]; /* merged: its first factor */
	int64_t size[MAX_LAYOUT_AXES];
	char name[MAX_LAYOUT_AXES][24];
};

/* Cut the axes of size > 1 of "m" into prime factors in "f"; 0, or -1
 * when they are more than MAX_LAYOUT_AXES or a name is too long. */
static int
factor_axes(const sym_mesh *m, struct factors *f)
{
	f->n = 0;
	for (size_t a = 0; m && a < m->n_axes; a++) {
		int64_t v = m->size[a];
		size_t first = f->n;

		for (int64_t p = 2; v > 1; p++)
			while (v % p == 0) {
				if (f->n == MAX_LAYOUT_AXES ||
				    strlen(m->name[a]) + 2 > sizeof(f->name[0]))
					return -1;
				f->axis[f->n] = a;
				f->first[f->n] = f->n;
				f->size[f->n++] = p;
				v /= p;
			}
		for (size_t q = first; q < f->n; q++)
			snprintf(f->name[q], sizeof(f->name[q]), "%s%s",
			    m->name[a],
			    f->n - first > 1
			        ? (char[]){ (char)('a' + q - first), 0 }
			        : "");
	}
	return 0;
}

/* Store in "g" the factors "f" in the order "perm" with the runs of
 * factors of one axis that keep their order merged back into one axis
 * (named as the axis when it is whole). */
static void
merge_factors(const struct factors *f, const size_t *perm, struct factors *g)
{
	g->n = 0;
	for (size_t q = 0; q < f->n;) {
		size_t e = q + 1, x = g->n++, all = 0;

		while (e < f->n && f->axis[perm[e]] == f->axis[perm[q]] &&
		    perm[e] == perm[e - 1] + 1)
			e++;
		g->axis[x] = f->axis[perm[q]];
		g->first[x] = perm[q];
		g->size[x] = 1;
		for (size_t t = q; t < e; t++)
			g->size[x] *= f->size[perm[t]];
		for (size_t t = 0; t < f->n; t++)
			all += f->axis[t] == g->axis[x];
		memcpy(g->name[x], f->name[perm[q]], sizeof(g->name[x]));
		if (all == e - q) /* the whole axis: its own name */
			g->name[x][strlen(g->name[x]) - (all > 1)] = '\0';
		q = e;
	}
}

/* Append to "b" the layout over mesh "mesh" of the layout "l" of a run,
 * each of its axes written as its parts "g" (merge_factors; of "nf"
 * factors) in order. */
static void
layout_text(struct sym__str *b, const char *mesh, const sym_layout *l,
    const struct factors *g, size_t nf)
{
	sym__str_printf(b, "%s(", mesh);
	for (size_t d = 0; d < sym_layout_ndim(l); d++) {
		size_t n = 0, w = 0;

		for (size_t q = 0; q < l->n[d]; q++)
			for (size_t x = 0; x < g->n; x++)
				n += g->axis[x] == (size_t)l->axes[d][q];
		sym__str_puts(b, d ? ", " : "");
		sym__str_puts(b, n == 0 ? "None" : n > 1 ? "(" : "");
		/* an axis's parts, most significant (first factor) first */
		for (size_t q = 0; q < l->n[d]; q++)
			for (size_t t = 0; t < nf; t++)
				for (size_t x = 0; x < g->n; x++)
					if (g->first[x] == t &&
					    g->axis[x] == (size_t)l->axes[d][q])
						sym__str_printf(b, "%s%s",
						    w++ ? ", " : "",
						    g->name[x]);
		sym__str_puts(b, n > 1 ? ")" : "");
	}
	sym__str_puts(b, ")");
}

/* Return 1 when the set "set" of the factors "f" takes of each axis its
 * least significant factors only (the last ones of the axis). */
static int
minor(const struct factors *f, uint32_t set)
{
	for (size_t q = 0; q + 1 < f->n; q++)
		if ((set >> q & 1) && f->axis[q + 1] == f->axis[q] &&
		    !(set >> (q + 1) & 1))
			return 0;
	return 1;
}

/* Add to node "j" of "s" the layout strategies of the run "r" (a tuple
 * strategy over "used" devices) over other orders of its device matrix
 * cut into prime factors: the same splits with the ranks grouped
 * otherwise (a dimension split 4 ways may take two axes of 2 that are
 * not neighbours), which on several nodes decides which collectives stay
 * within a node. The orders tried are one per set of factors that fills
 * a node (s->per_node ranks), as the fastest axes (beyond ALL_SETS_AXES
 * factors, the sets that take the least significant factors of each
 * axis). Each order is a mesh
 * the search declares, "auto_rep2_n4 = (rep=2, n=4)". 0 or -1. */
static int
add_layouts(sym_search *s, size_t j, const struct sym__run *r, int64_t used)
{
	struct factors f, g;
	size_t k, perm[MAX_LAYOUT_AXES];

	if (factor_axes(r->s.mesh, &f) < 0 || f.n < 2)
		return 0;
	for (size_t i = 0; i < r->s.n_in; i++)
		if (!r->s.in[i] || sym_layout_ndim(r->s.in[i]) == 0)
			return 0;
	k = f.n;
	/* every set of factors that fills a node, moved to the end (the
	 * fastest axes, whose groups stay within a node), the others before
	 * it: orders that keep the same set within a node cost the same */
	for (uint32_t set = 1; set < (UINT32_C(1) << k); set++) {
		struct sym__str name = SYM__STR_INIT, decl = SYM__STR_INIT;
		struct sym__str text = SYM__STR_INIT;
		int64_t fill = 1;
		size_t n = 0, same = 1;
		char *dt, *tt;
		int rc;

		for (size_t q = 0; q < k; q++)
			if (set >> q & 1)
				fill *= f.size[q];
		if (fill != s->per_node ||
		    (k > ALL_SETS_AXES && !minor(&f, set)))
			continue;
		for (int last = 0; last < 2; last++)
			for (size_t q = 0; q < k; q++)
				if ((int)(set >> q & 1) == last)
					perm[n++] = q;
		for (size_t q = 0; q < k; q++)
			same &= perm[q] == q;
		if (same)
			continue;
		merge_factors(&f, perm, &g);
		sym__str_puts(&name, "auto");
		for (size_t q = 0; q < g.n; q++)
			sym__str_printf(&name, "_%s%lld", g.name[q],
			    (long long)g.size[q]);
		sym__str_printf(&decl, "%s = (", name.s ? name.s : "");
		for (size_t q = 0; q < g.n; q++)
			sym__str_printf(&decl, "%s%s=%lld", q ? ", " : "",
			    g.name[q], (long long)g.size[q]);
		sym__str_puts(&decl, ")");
		sym__str_puts(&text, "(");
		for (size_t in = 0; in < r->s.n_in; in++) {
			sym__str_puts(&text, in ? ", " : "");
			layout_text(&text, name.s ? name.s : "", r->s.in[in],
			    &g, f.n);
		}
		sym__str_puts(&text, r->s.n_in == 1 ? ",)" : ")");
		dt = sym__str_take(&decl, s->ctx);
		tt = sym__str_take(&text, s->ctx);
		sym__str_clear(&name);
		rc = !dt || !tt || add_mesh(s, dt) < 0 ||
		        add_text(s, j, tt, used, 1) < 0
		    ? -1
		    : 0;
		free(dt);
		free(tt);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Add "text", the strategy of the run "r", to the candidates of the
 * node being collected by "arg" (a sym_search), with its layout
 * strategies over the other orders of its device matrix when the search
 * tries them; 0 or -1. */
static int
add_candidate(void *arg, const char *text, const struct sym__run *r)
{
	sym_search *s = arg;
	size_t j = s->n_node - 1;
	int64_t used = sym__run_devices_used(r);

	if (add_text(s, j, text, used, 0) < 0)
		return -1;
	if (s->layouts && !strstr(text, "->"))
		return add_layouts(s, j, r, used);
	return 0;
}

/* Return 1 when node "n" of "g" is searched: a forward operator without
 * a shard clause with an input (or, for a generator, an output) of at
 * least one dimension. A batch_norm_stats or a class-split loss's
 * statistic (sce_target, sce_sumexp) is never searched on its own: the
 * pass gives it the strategy of the operator it serves, written or
 * searched (pass_init), so that it can never be laid out apart from it.
 * Nor is an update in place (batch_norm_update of the running
 * statistics): the pass lays it out like the state it updates, whose
 * buffer its result must land in. */
static int
searched(const sym_graph *g, const sym_node *n)
{
	if (n->index >= sym_graph_n_forward_nodes(g) || n->strategy ||
	    (n->op->flags & SYM__OPF_INPLACE) ||
	    sym__bn_stats_of(g, n->index) || sym__sce_stats_of(g, n->index))
		return 0;
	if (n->n_in == 0)
		return n->n_out > 0 && sym__value_shape(n->out[0])->rank > 0;
	for (size_t i = 0; i < n->n_in; i++)
		if (sym__value_shape(n->in[i])->rank > 0)
			return 1;
	return 0;
}

/* Return 1 when the mesh declaration "d" is "decl" ("name = (a=2,
 * b=4)", ranks in order). */
static int
same_mesh_decl(const struct sym__mesh_decl *d, const char *decl)
{
	struct sym__str b = SYM__STR_INIT;
	char *t;
	int same;

	sym__str_printf(&b, "%s = (", d->name);
	for (size_t a = 0; a < d->n_axes; a++)
		sym__str_printf(&b, "%s%s=%lld", a ? ", " : "",
		    d->axis_name[a] ? d->axis_name[a] : "?",
		    (long long)d->axis_size[a]);
	sym__str_puts(&b, ")");
	t = sym__str_take(&b, NULL);
	same = t && d->n_ranks == 0 && !strcmp(t, decl);
	free(t);
	return same;
}

/* Return 1 when the strategy "text" is a layout strategy over the mesh
 * whose name is the "len" bytes at "name". */
int
sym__search_over_mesh(const char *text, const char *name, size_t len)
{
	return text[0] == '(' && !strncmp(text + 1, name, len) &&
	    text[1 + len] == '(';
}

/* Drop from "s" the candidates over the mesh "name". */
static void
drop_over(sym_search *s, const char *name)
{
	size_t len = strlen(name);

	for (size_t j = 0; j < s->n_node; j++) {
		size_t m = 0;

		for (size_t k = 0; k < s->n_cand[j]; k++) {
			const char *c = s->cand[j][k];

			if (sym__search_over_mesh(c, name, len)) {
				free(s->cand[j][k]);
				continue;
			}
			s->part[j][m] = s->part[j][k];
			s->cand[j][m++] = s->cand[j][k];
		}
		s->n_cand[j] = m;
	}
}

/* Read the meshes the layout candidates of "s" use as the meshes of its
 * assignments (those the graph declares with the same axes are the
 * graph's; a name the graph declares otherwise drops the candidates over
 * it); 0 or -1. */
static int
read_meshes(sym_search *s)
{
	s->xmesh = sym__calloc(s->ctx, s->n_mesh + 1, sizeof(*s->xmesh));
	if (!s->xmesh)
		return -1;
	for (size_t k = 0; k < s->n_mesh; k++) {
		size_t len = strcspn(s->mesh[k], " ");
		char name[128];
		const struct sym__mesh_decl *d;

		if (len >= sizeof(name))
			continue;
		memcpy(name, s->mesh[k], len);
		name[len] = '\0';
		d = sym__graph_find_mesh(s->g, name);
		if (!d &&
		    sym__mesh_decl_parse(s->g, s->mesh[k],
		        &s->xmesh[s->n_xmesh++]) < 0)
			return -1;
		if (d && !same_mesh_decl(d, s->mesh[k]))
			drop_over(s, name);
	}
	return 0;
}

/* Collect the searched nodes of "s" and their candidates; 0, or -1 with
 * an error on the context. */
int
sym__search_collect(sym_search *s)
{
	sym_graph *g = s->g;
	struct sym__pass p;
	int rc = 0;

	s->node = sym__calloc(s->ctx, g->n_node + 1, sizeof(*s->node));
	s->cand = sym__calloc(s->ctx, g->n_node + 1, sizeof(*s->cand));
	s->part = sym__calloc(s->ctx, g->n_node + 1, sizeof(*s->part));
	s->n_cand = sym__calloc(s->ctx, g->n_node + 1, sizeof(*s->n_cand));
	s->cand_st = sym__calloc(s->ctx, g->n_node + 1, sizeof(*s->cand_st));
	s->over = sym__calloc(s->ctx, g->n_node + 1, sizeof(*s->over));
	if (!s->node || !s->cand || !s->part || !s->n_cand || !s->cand_st ||
	    !s->over || sym__pass_begin(&p, g, s->topo) < 0) {
		sym__oom(s->ctx);
		return -1;
	}
	for (size_t i = 0; i < g->n_node && rc == 0; i++) {
		sym_node *n = g->node[i];

		if (!searched(g, n))
			continue;
		s->node[s->n_node++] = n;
		if (sym__shard_candidates(&p, n, MOST_TRIES, add_candidate, s) <
		    0) {
			sym__oom(s->ctx);
			rc = -1;
		} else if (s->n_cand[s->n_node - 1] == 0) {
			char *label = sym__node_label(n);

			sym__error(s->ctx, SYM_EINVAL, &n->loc,
			    "search: %s has no strategy over %lld devices",
			    label ? label : n->op->name, (long long)p.devices);
			free(label);
			rc = -1;
		}
	}
	sym__pass_end(&p);
	return rc < 0 ? rc : read_meshes(s);
}

/* Return the number of plans of "s", saturated at SIZE_MAX. */
size_t
sym__search_n_plans(const sym_search *s)
{
	size_t n = 1;

	for (size_t j = 0; j < s->n_node; j++) {
		if (s->n_cand[j] && n > SIZE_MAX / s->n_cand[j])
			return SIZE_MAX;
		n *= s->n_cand[j];
	}
	return n;
}

/* Drop the candidates of operator "j" of "s" that have all the marks
 * "drop" (keep them all when none would be left). */
static void
drop_candidates(sym_search *s, size_t j, unsigned char drop)
{
	size_t m = 0;

	for (size_t k = 0; k < s->n_cand[j]; k++)
		m += (s->part[j][k] & drop) != drop;
	if (m == 0)
		return;
	m = 0;
	for (size_t k = 0; k < s->n_cand[j]; k++) {
		if ((s->part[j][k] & drop) == drop) {
			free(s->cand[j][k]);
			continue;
		}
		s->part[j][m] = s->part[j][k];
		s->cand[j][m++] = s->cand[j][k];
	}
	s->n_cand[j] = m;
}

/* When "s" has more plans than it enumerates, bring every operator with
 * more than CG_MOST_CANDIDATES candidates (many devices) within that
 * many if it can: first drop its layout strategies over some devices but
 * not all (the tuple strategies stay those a search over them alone
 * has), then its layout strategies, then, as MindSpore's
 * fully_use_devices does, its tuple strategies over some devices but
 * not all. */
void
sym__search_prune(sym_search *s)
{
	static const unsigned char drops[] = { CAND_LAYOUT | CAND_PART,
		CAND_LAYOUT, CAND_PART };

	if (sym__search_n_plans(s) <= s->max_eval)
		return;
	for (size_t j = 0; j < s->n_node; j++)
		for (size_t k = 0;
		     k < sizeof(drops) && s->n_cand[j] > CG_MOST_CANDIDATES;
		     k++)
			drop_candidates(s, j, drops[k]);
}

/* Return the strategy of candidate "k" of searched operator "j" of "s",
 * read the first time; NULL when out of memory. */
const struct sym__strategy *
sym__search_candidate(sym_search *s, size_t j, size_t k)
{
	if (!s->cand_st[j]) {
		s->cand_st[j] =
		    sym__calloc(s->ctx, s->n_cand[j] + 1, sizeof(**s->cand_st));
		if (!s->cand_st[j])
			return NULL;
	}
	if (!s->cand_st[j][k])
		s->cand_st[j][k] = sym__strategy_parse(s->g, s->cand[j][k]);
	return s->cand_st[j][k];
}
