/*
 * Redistribution plans (DESIGN section 7): the steps that turn a tensor
 * laid out one way into the same tensor laid out another way, each with
 * its rank groups, its bytes as an expression and its alpha-beta time.
 * redist_mesh.c maps both layouts onto one mesh, redist_search.c finds the
 * steps and redist_cost.c prices them; this file builds the plan and
 * answers questions about it.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/redist_private.h"

/* Free the steps of "r" and "r" itself. */
static void
redist_release(sym_redist *r)
{
	for (size_t i = 0; i < r->n_step; i++) {
		sym__expr_unref(r->step[i].bytes);
		sym__layout_unref(r->step[i].after);
		free(r->step[i].groups);
	}
	free(r->step);
	free(r->note);
	free(r);
}

/* Free the plan whose link is "link" (at sym_ctx_free too). */
static void
redist_destroy(struct sym__link *link)
{
	sym_redist *r = (sym_redist *)((char *)link -
	    offsetof(sym_redist, link));

	r->ctx->live[SYM__OBJ_OTHER]--;
	redist_release(r);
}

/* Free the plan "r" (NULL is ignored). */
void
sym_redist_free(sym_redist *r)
{
	if (!r)
		return;
	sym__ctx_disown(&r->link);
	redist_destroy(&r->link);
}

/* Return the product of the sizes of the axes that split "l". */
static int64_t
layout_splits(const sym_layout *l)
{
	int64_t q = 1;

	for (size_t d = 0; d < l->rank; d++)
		for (size_t i = 0; i < l->n[d]; i++)
			q *= l->mesh->size[l->axes[d][i]];
	return q;
}

/* Store in "st" the groups of ranks of "m" that differ only along the
 * "k" axes "ax" (members in mixed radix of those axes, the first most
 * significant; groups by their first member); return 0 or -1. */
static int
fill_groups(const sym_mesh *m, const int8_t *ax, size_t k,
    struct sym__step *st)
{
	int64_t stride[SYM_MESH_MAX_AXES], s = 1, n = 1, g = 0;
	uint32_t mask = 0;

	for (size_t a = m->n_axes; a-- > 0;) {
		stride[a] = s;
		s *= m->size[a];
	}
	for (size_t i = 0; i < k; i++) {
		n *= m->size[ax[i]];
		mask |= UINT32_C(1) << ax[i];
	}
	st->group_size = n;
	st->n_groups = m->n_devices / n;
	st->groups = sym__realloc_array(m->ctx, NULL, (size_t)m->n_devices,
	    sizeof(*st->groups));
	if (!st->groups)
		return -1;
	for (int64_t p = 0; p < m->n_devices; p++) {
		int base = 1;

		for (size_t a = 0; a < m->n_axes && base; a++)
			base = !(mask >> a & 1) || p / stride[a] % m->size[a] == 0;
		if (!base)
			continue;
		for (int64_t j = 0; j < n; j++) {
			int64_t q = p, rest = j;

			for (size_t i = k; i-- > 0;) {
				q += rest % m->size[ax[i]] * stride[ax[i]];
				rest /= m->size[ax[i]];
			}
			st->groups[g * n + j] = m->ranks ? m->ranks[q] : q;
		}
		g++;
	}
	return 0;
}

/* Append to "r" a step of kind "kind" over the "k" axes "ax" of "after"'s
 * mesh, between dimensions "fd" and "td", leading to "after" (an internal
 * reference, taken) from a layout cut into "q" blocks; "total" is the
 * tensor's bytes and "cm" the cost model of the mesh. Return 0 or -1. */
static int
add_step(sym_redist *r, sym_comm_kind kind, const int8_t *ax, size_t k,
    int fd, int td, sym_layout *after, int64_t q, sym_expr *total,
    struct sym__cost_model *cm)
{
	struct sym__step *st;
	uint32_t mask = 0;

	if (!after)
		return -1;
	st = sym__realloc_array(r->ctx, r->step, r->n_step + 1, sizeof(*st));
	if (!st) {
		sym__layout_unref(after);
		return -1;
	}
	r->step = st;
	st = &r->step[r->n_step++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->n_axes = k;
	for (size_t i = 0; i < k; i++) {
		st->axes[i] = ax[i];
		mask |= UINT32_C(1) << ax[i];
	}
	st->from_dim = fd;
	st->to_dim = td;
	st->after = after;
	if (fill_groups(after->mesh, ax, k, st) < 0)
		return -1;
	if (kind == SYM_COMM_SLICE)
		st->bytes = sym__const(r->ctx, 0);
	else if (kind == SYM_COMM_ALL_GATHER || kind == SYM_COMM_BROADCAST)
		st->bytes = sym__cost_bytes(total, 1, layout_splits(after));
	else
		st->bytes = sym__cost_bytes(total, 1, q);
	if (!st->bytes)
		return -1;
	sym__cost_factors(kind, st->group_size, &st->alpha_count,
	    &st->beta_factor);
	st->inter_node = kind != SYM_COMM_SLICE && sym__cost_spans(cm, mask);
	return 0;
}

/* Return 1 if step "mv" is a slice that only appends to the slice step
 * last added to "r". */
static int
extends_slice(const sym_redist *r, const struct sym__rmove *mv)
{
	const struct sym__step *last;

	if (mv->kind != SYM_COMM_SLICE || r->n_step == 0)
		return 0;
	last = &r->step[r->n_step - 1];
	return last->kind == SYM_COMM_SLICE && last->to_dim == mv->to_dim &&
	    last->n_axes + mv->n_axes <= SYM_MESH_MAX_AXES;
}

/* Add to "r" the steps "moves" ("n" of them) found on the mesh of "p",
 * merging consecutive slices of one dimension; "total" and "cm" as for
 * add_step. Return 0 or -1. */
static int
add_moves(sym_redist *r, const struct sym__rproblem *p,
    const struct sym__rmove *moves, size_t n, sym_expr *total,
    struct sym__cost_model *cm)
{
	size_t k = p->rank ? p->rank : 1;
	uint8_t *cnt = sym__alloc(r->ctx, k);
	int8_t(*ax)[SYM_MESH_MAX_AXES] = sym__alloc(r->ctx, k * sizeof(*ax));
	int64_t q = 1;
	int ok = cnt && ax;

	for (size_t d = 0; ok && d < p->rank; d++)
		for (size_t i = 0; i < p->n_from[d]; i++)
			q *= p->mesh->size[p->from[d][i]];
	for (size_t i = 0; ok && i < n; i++) {
		const struct sym__rmove *mv = &moves[i];
		uint32_t pending;
		sym_layout *after;

		sym__rkey_decode(&mv->after, p->mesh->n_axes, p->rank, cnt, ax,
		    &pending);
		after = sym__layout_new(p->mesh, p->rank, cnt,
		    (const int8_t(*)[SYM_MESH_MAX_AXES])ax, pending | p->kept);
		if (after && extends_slice(r, mv)) {
			struct sym__step *st = &r->step[r->n_step - 1];
			int8_t all[SYM_MESH_MAX_AXES];

			for (size_t j = 0; j < st->n_axes; j++)
				all[j] = (int8_t)st->axes[j];
			memcpy(all + st->n_axes, mv->axes, mv->n_axes);
			r->n_step--;
			k = st->n_axes + mv->n_axes;
			sym__expr_unref(st->bytes);
			sym__layout_unref(st->after);
			free(st->groups);
			ok = add_step(r, SYM_COMM_SLICE, all, k, -1, mv->to_dim,
			         after, q, total, cm) == 0;
		} else
			ok = add_step(r, mv->kind, mv->axes, mv->n_axes,
			         mv->from_dim, mv->to_dim, after, q, total,
			         cm) == 0;
		q = ok ? layout_splits(after) : q;
	}
	free(cnt);
	free(ax);
	return ok ? 0 : -1;
}

/* Store in "n"/"ax" the lists of "l" without its axes of size 1. */
static void
lists_of(const sym_layout *l, uint8_t *n, int8_t (*ax)[SYM_MESH_MAX_AXES])
{
	for (size_t d = 0; d < l->rank; d++) {
		n[d] = 0;
		for (size_t i = 0; i < l->n[d]; i++)
			if (l->mesh->size[l->axes[d][i]] > 1)
				ax[d][n[d]++] = l->axes[d][i];
	}
}

/* Add to "r" the plan between layouts over meshes with no common
 * refinement: resolve the partial sums of "from" and gather every
 * dimension on its mesh, then slice on the mesh of "to". "total" as for
 * add_step. Return 0 or -1. */
static int
cross_mesh(sym_redist *r, const sym_layout *from, const sym_layout *to,
    sym_expr *total, const sym_topology *topo)
{
	struct sym__cost_model cf, ct;
	size_t k = from->rank ? from->rank : 1;
	uint8_t *n = sym__alloc(r->ctx, k);
	int8_t(*ax)[SYM_MESH_MAX_AXES] = sym__alloc(r->ctx, k * sizeof(*ax));
	int8_t part[SYM_MESH_MAX_AXES];
	size_t np = 0;
	int64_t q;
	int ok = n && ax;

	for (size_t a = 0; a < to->mesh->n_axes; a++)
		if ((to->partial >> a & 1) && to->mesh->size[a] > 1) {
			sym__error(r->ctx, SYM_ELAYOUT, NULL,
			    "the target layout keeps partial sums over axis %s "
			    "but %s",
			    to->mesh->name[a], r->note);
			ok = 0;
			break;
		}
	if (!ok || sym__cost_init(&cf, from->mesh, topo) < 0) {
		free(n);
		free(ax);
		return -1;
	}
	if (sym__cost_init(&ct, to->mesh, topo) < 0) {
		sym__cost_clear(&cf);
		free(n);
		free(ax);
		return -1;
	}
	lists_of(from, n, ax);
	for (size_t a = 0; a < from->mesh->n_axes; a++)
		if ((from->partial >> a & 1) && from->mesh->size[a] > 1)
			part[np++] = (int8_t)a;
	q = layout_splits(from);
	if (np)
		ok = add_step(r, SYM_COMM_ALL_REDUCE, part, np, -1, -1,
		         sym__layout_new(from->mesh, from->rank, n,
		             (const int8_t(*)[SYM_MESH_MAX_AXES])ax, 0),
		         q, total, &cf) == 0;
	for (size_t d = 0; ok && d < from->rank; d++) {
		int8_t g[SYM_MESH_MAX_AXES];
		size_t m = n[d];

		if (m == 0)
			continue;
		memcpy(g, ax[d], m);
		n[d] = 0;
		ok = add_step(r, SYM_COMM_ALL_GATHER, g, m, (int)d, -1,
		         sym__layout_new(from->mesh, from->rank, n,
		             (const int8_t(*)[SYM_MESH_MAX_AXES])ax, 0),
		         q, total, &cf) == 0;
		q = ok ? layout_splits(r->step[r->n_step - 1].after) : q;
	}
	if (ok)
		lists_of(to, n, ax);
	for (size_t d = 0; ok && d < to->rank; d++) {
		uint8_t keep = n[d];

		if (keep == 0)
			continue;
		for (size_t e = d + 1; e < to->rank; e++)
			n[e] = 0;
		ok = add_step(r, SYM_COMM_SLICE, ax[d], keep, -1, (int)d,
		         sym__layout_new(to->mesh, to->rank, n,
		             (const int8_t(*)[SYM_MESH_MAX_AXES])ax, 0),
		         q, total, &ct) == 0;
		lists_of(to, n, ax);
	}
	sym__cost_clear(&cf);
	sym__cost_clear(&ct);
	free(n);
	free(ax);
	return ok ? 0 : -1;
}

/* Return an internal reference to the bytes of a tensor of shape "s". */
static sym_expr *
total_bytes(const sym_shape *s)
{
	sym_expr *e = sym__const(s->ctx, (int64_t)sym_dtype_size(s->dtype));

	for (size_t d = 0; e && d < s->rank; d++) {
		sym_expr *t = sym__mul(e, s->dim[d]);

		sym__expr_unref(e);
		e = t;
	}
	return e;
}

/* Plan on the common mesh of "p" with "topo": add the steps to "r";
 * return 0 or -1. */
static int
plan_on_mesh(sym_redist *r, const struct sym__rproblem *p, sym_expr *total,
    const sym_topology *topo)
{
	struct sym__cost_model cm;
	struct sym__rmove *moves = NULL;
	size_t n = 0;
	int ok;

	if (sym__cost_init(&cm, p->mesh, topo) < 0)
		return -1;
	ok = sym__redist_search(p, &cm, &moves, &n) == 0 &&
	    add_moves(r, p, moves, n, total, &cm) == 0;
	free(moves);
	sym__cost_clear(&cm);
	return ok ? 0 : -1;
}

/* Return 1 when "r" gathers every split axis of a tensor whose target
 * layout "to" splits it. */
static int
gathers_everything(const sym_redist *r, const sym_layout *to)
{
	int64_t q = 1;

	for (size_t d = 0; d < to->rank; d++)
		for (size_t i = 0; i < to->n[d]; i++)
			q *= to->mesh->size[to->axes[d][i]];
	if (q == 1)
		return 0;
	for (size_t i = 0; i < r->n_step; i++)
		if (r->step[i].kind == SYM_COMM_ALL_GATHER &&
		    layout_splits(r->step[i].after) == 1)
			return 1;
	return 0;
}

/* Check the arguments of sym_redist_plan; return 0, or -1 with an error
 * on the context of "from". */
static int
check_args(const sym_layout *from, const sym_layout *to,
    const sym_shape *global, const sym_topology *topo)
{
	sym_ctx *ctx = from->ctx;

	if (to->ctx != ctx || global->ctx != ctx || (topo && topo->ctx != ctx))
		return sym__error(ctx, SYM_EINVAL, NULL,
		           "redistribution: the layouts, the shape and the "
		           "topology must belong to one context"),
		       -1;
	if (from->rank != global->rank || to->rank != global->rank)
		return sym__error(ctx, SYM_ELAYOUT, NULL,
		           "redistribution: layouts of rank %zu and %zu for a "
		           "tensor of rank %zu",
		           from->rank, to->rank, global->rank),
		       -1;
	if (global->rank > 200)
		return sym__error(ctx, SYM_EINVAL, NULL,
		           "redistribution: tensors of more than 200 "
		           "dimensions are not supported"),
		       -1;
	if (from->mesh->n_devices != to->mesh->n_devices)
		return sym__error(ctx, SYM_ELAYOUT, NULL,
		           "redistribution: layouts over %lld and %lld devices",
		           (long long)from->mesh->n_devices,
		           (long long)to->mesh->n_devices),
		       -1;
	return 0;
}

/* Return a new plan of the context of "from" to redistribute a tensor of
 * shape "global" from layout "from" to layout "to" (all borrowed), priced
 * with "topo" (NULL: one node, default links); NULL on error. */
sym_redist *
sym_redist_plan(const sym_layout *from, const sym_layout *to,
    const sym_shape *global, const sym_topology *topo)
{
	struct sym__rproblem p;
	sym_expr *total = NULL;
	sym_redist *r;
	int ok;

	if (!from || !to || !global) {
		sym_ctx *ctx = from ? from->ctx : to ? to->ctx : NULL;

		if (ctx)
			sym__error(ctx, SYM_EINVAL, NULL,
			    "redistribution: missing layout or shape");
		return NULL;
	}
	if (check_args(from, to, global, topo) < 0)
		return NULL;
	r = sym__alloc(from->ctx, sizeof(*r));
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->ctx = from->ctx;
	memset(&p, 0, sizeof(p));
	ok = sym__redist_map(&p, from, to, &r->note) == 0 &&
	    (total = total_bytes(global)) != NULL;
	if (ok && p.mesh)
		ok = plan_on_mesh(r, &p, total, topo) == 0;
	else if (ok)
		ok = cross_mesh(r, from, to, total, topo) == 0;
	sym__redist_problem_clear(&p);
	sym__expr_unref(total);
	if (!ok) {
		redist_release(r);
		return NULL;
	}
	r->full_gather = gathers_everything(r, to);
	r->intra_bw = topo ? topo->intra_bw : 100e9;
	r->intra_lat = topo ? topo->intra_lat : 5e-6;
	r->inter_bw = topo ? topo->inter_bw : 25e9;
	r->inter_lat = topo ? topo->inter_lat : 10e-6;
	r->ctx->live[SYM__OBJ_OTHER]++;
	sym__ctx_own(r->ctx, &r->link, redist_destroy);
	return r;
}
