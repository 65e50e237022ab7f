/* SPDX-License-Identifier: MIT */
/*
 * Redistribution plans (HACKING.md section 3): the steps that turn a tensor
 * laid out one way into the same tensor laid out another way, each with
 * its rank groups, its bytes as an expression and its alpha-beta time.
 * redist_mesh.c maps both layouts onto one mesh, redist_search.c finds the
 * steps and redist_cost.c prices them; this file builds the plan and
 * answers questions about it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/factor.h"
#include "core/num.h"
#include "core/str.h"
#include "redist/planner_private.h"

/* Free the steps of "r" and "r" itself. */
static void
redist_release(sym_redist *r)
{
	for (size_t i = 0; i < r->n_step; i++) {
		sym__expr_unref(r->step[i].bytes);
		sym__layout_unref(r->step[i].after);
	}
	free(r->step);
	free(r->note);
	free(r);
}

/* Free the plan whose link is "link" (at sym_ctx_free too). */
static void
redist_destroy(struct sym__obj *obj)
{
	sym_redist *r = SYM__OBJ_OF(obj, sym_redist, obj);

	redist_release(r);
}

/* Free the plan "r" (NULL is ignored). */
void
sym_redist_free(sym_redist *r)
{
	if (!r)
		return;
	sym__obj_drop(r->ctx, &r->obj);
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

/* Set in "st" the size and number of its groups: the ranks of the mesh
 * "m" that differ only along its axes (the members are computed when
 * asked, step_rank). */
static void
size_groups(const sym_mesh *m, struct sym__step *st)
{
	int64_t n = 1;

	for (size_t i = 0; i < st->n_axes; i++)
		n *= m->size[st->axes[i]];
	st->group_size = n;
	st->n_groups = m->n_devices / n;
}

/* Return the rank of member "j" of group "g" of the step "st": groups
 * by their first member in increasing order (mixed radix of the other
 * axes of its mesh, the last fastest), members in mixed radix of the
 * step's axes, the first most significant. */
static int64_t
step_rank(const struct sym__step *st, int64_t g, int64_t j)
{
	const sym_mesh *m = st->after->mesh;
	int64_t stride[SYM_MESH_MAX_AXES] = { 0 }, s = 1, q = 0;
	uint32_t mask = 0;

	for (size_t a = m->n_axes; a-- > 0;) {
		stride[a] = s;
		s *= m->size[a];
	}
	for (size_t i = 0; i < st->n_axes; i++)
		mask |= UINT32_C(1) << st->axes[i];
	for (size_t a = m->n_axes; a-- > 0;)
		if (!(mask >> a & 1)) {
			q += g % m->size[a] * stride[a];
			g /= m->size[a];
		}
	for (size_t i = st->n_axes; i-- > 0;) {
		q += j % m->size[st->axes[i]] * stride[st->axes[i]];
		j /= m->size[st->axes[i]];
	}
	return m->ranks ? m->ranks[q] : q;
}

/* Append to "r" a step of kind "kind" over the "k" axes "ax" of "after"'s
 * mesh, between dimensions "fd" and "td", leading to "after" (an internal
 * reference, taken) from a layout cut into "q" blocks; "total" is the
 * tensor's bytes and "cm" the cost model of the mesh. Return 0 or -1. */
static int
add_step(sym_redist *r, sym_redist_kind kind, const int8_t *ax, size_t k,
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
	size_groups(after->mesh, st);
	if (kind == SYM_REDIST_SLICE)
		st->bytes = sym__const(r->ctx, 0);
	else if (kind == SYM_REDIST_ALL_GATHER || kind == SYM_REDIST_BROADCAST)
		st->bytes = sym__cost_bytes(total, 1, layout_splits(after));
	else
		st->bytes = sym__cost_bytes(total, 1, q);
	if (!st->bytes)
		return -1;
	sym__cost_factors(kind, st->group_size, &st->alpha_count,
	    &st->beta_factor);
	st->inter_node = kind != SYM_REDIST_SLICE && sym__cost_spans(cm, mask);
	return 0;
}

/* Return 1 if step "mv" is a slice that only appends to the slice step
 * last added to "r". */
static int
extends_slice(const sym_redist *r, const struct sym__rmove *mv)
{
	const struct sym__step *last;

	if (mv->kind != SYM_REDIST_SLICE || r->n_step == 0)
		return 0;
	last = &r->step[r->n_step - 1];
	return last->kind == SYM_REDIST_SLICE && last->to_dim == mv->to_dim &&
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
			size_t na = st->n_axes + mv->n_axes;

			r->n_step--;
			sym__expr_unref(st->bytes);
			sym__layout_unref(st->after);
			ok = add_step(r, SYM_REDIST_SLICE, all, na, -1,
			         mv->to_dim, after, q, total, cm) == 0;
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
		ok = add_step(r, SYM_REDIST_ALL_REDUCE, part, np, -1, -1,
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
		ok = add_step(r, SYM_REDIST_ALL_GATHER, g, m, (int)d, -1,
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
		ok = add_step(r, SYM_REDIST_SLICE, ax[d], keep, -1, (int)d,
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

/* Return a number every admissible size "e" takes is a multiple of,
 * looking only at the divisors of "devices" (the numbers of blocks a
 * layout over that many devices can make): 0 for the constant 0, the
 * constant itself, else the product, over the primes q of "devices", of
 * the largest power of q dividing "devices" that the prover shows divides
 * "e" (1 when none). A divisor of "devices" divides "e" exactly when it
 * divides that product, so only prime powers are asked about, each until
 * the first that fails. An undecided or failed query counts as "does not
 * divide"; a failure leaves no error behind. */
static int64_t
dim_modulus(sym_ctx *ctx, sym_expr *e, int64_t devices)
{
	uint64_t prime[SYM__FACTOR_MAX];
	unsigned exp[SYM__FACTOR_MAX];
	int64_t c, m = 1;
	size_t k;

	if (sym_expr_get_const(e, &c) == 0)
		return c >= 0 ? c : 1;
	k = sym__factor((uint64_t)devices, prime, exp);
	for (size_t i = 0; i < k; i++) {
		int64_t q = (int64_t)prime[i], pw = 1;

		for (unsigned j = 0; j < exp[i]; j++) {
			sym_answer a =
			    sym_prove_divisible(ctx, e, pw * q, NULL);

			if (a == SYM_ERROR)
				sym_ctx_clear_error(ctx);
			if (a != SYM_TRUE)
				break;
			pw *= q;
		}
		m *= pw;
	}
	return m;
}

/* Fill "p->mod" for the tensor of shape "global"; 0 or -1. */
static int
set_moduli(struct sym__rproblem *p, const sym_shape *global)
{
	size_t k = p->rank ? p->rank : 1;

	p->mod = sym__alloc(global->ctx, k * sizeof(*p->mod));
	if (!p->mod)
		return -1;
	for (size_t d = 0; d < p->rank; d++)
		p->mod[d] = dim_modulus(global->ctx, global->dim[d],
		    p->mesh->n_devices);
	return 0;
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
		if (r->step[i].kind == SYM_REDIST_ALL_GATHER &&
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
	sym_error code = SYM_OK;

	if (to->ctx != ctx || global->ctx != ctx || (topo && topo->ctx != ctx))
		code = sym__error(ctx, SYM_EINVAL, NULL,
		    "redistribution: the layouts, the shape and the topology "
		    "must belong to one context");
	else if (from->rank != global->rank || to->rank != global->rank)
		code = sym__error(ctx, SYM_ELAYOUT, NULL,
		    "redistribution: layouts of rank %zu and %zu for a tensor "
		    "of rank %zu",
		    from->rank, to->rank, global->rank);
	else if (global->rank > 200)
		code = sym__error(ctx, SYM_EINVAL, NULL,
		    "redistribution: tensors of more than 200 dimensions are "
		    "not supported");
	else if (from->mesh->n_devices != to->mesh->n_devices)
		code = sym__error(ctx, SYM_ELAYOUT, NULL,
		    "redistribution: layouts over %lld and %lld devices",
		    (long long)from->mesh->n_devices,
		    (long long)to->mesh->n_devices);
	return code == SYM_OK ? 0 : -1;
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
	r->ctx = from->ctx;
	memset(&p, 0, sizeof(p));
	ok = sym__redist_map(&p, from, to, &r->note) == 0 &&
	    (total = total_bytes(global)) != NULL;
	if (ok && p.mesh)
		ok = set_moduli(&p, global) == 0 &&
		    plan_on_mesh(r, &p, total, topo) == 0;
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
	sym__obj_init(&r->obj, SYM__OBJ_REDIST, redist_destroy);
	sym__obj_give(r->ctx, &r->obj);
	return r;
}

/* Return a new plan of the context of "r" with the steps of "r" (sharing
 * their expressions and layouts), owned by the context as the plans of
 * sym_redist_plan are; NULL when out of memory. */
sym_redist *
sym__redist_copy(const sym_redist *r)
{
	sym_redist *c = sym__alloc(r->ctx, sizeof(*c));

	if (!c)
		return NULL;
	*c = *r;
	memset(&c->obj, 0, sizeof(c->obj));
	c->step = NULL;
	c->n_step = 0;
	c->note = r->note ? sym__strdup(r->ctx, r->note) : NULL;
	if (r->n_step)
		c->step = sym__realloc_array(r->ctx, NULL, r->n_step,
		    sizeof(*c->step));
	if ((r->note && !c->note) || (r->n_step && !c->step)) {
		redist_release(c);
		return NULL;
	}
	for (size_t i = 0; i < r->n_step; i++) {
		const struct sym__step *from = &r->step[i];
		struct sym__step *st = &c->step[i];

		*st = *from;
		st->bytes = sym__expr_ref(from->bytes);
		st->after = sym__layout_ref(from->after);
		c->n_step++;
	}
	sym__obj_init(&c->obj, SYM__OBJ_REDIST, redist_destroy);
	sym__obj_give(c->ctx, &c->obj);
	return c;
}

/* Return step "i" of "r", or NULL when out of range (no error: the rule
 * of every accessor, symshard(3)). */
static const struct sym__step *
step_at(const sym_redist *r, size_t i)
{
	return r && i < r->n_step ? &r->step[i] : NULL;
}

/* Return the number of steps of "r" (0 for NULL). */
size_t
sym_redist_n_steps(const sym_redist *r)
{
	return r ? r->n_step : 0;
}

/* Return the kind of step "i" of "r", SYM_REDIST_INVALID when out of
 * range. */
sym_redist_kind
sym_redist_step_kind(const sym_redist *r, size_t i)
{
	const struct sym__step *st = step_at(r, i);

	return st ? st->kind : SYM_REDIST_INVALID;
}

/* Store in "axes" (room for "cap") the mesh axes of step "i" of "r", in
 * the order of the step; return their number (which may exceed "cap"),
 * or 0 when out of range. */
size_t
sym_redist_step_axes(const sym_redist *r, size_t i, size_t cap, int *axes)
{
	const struct sym__step *st = step_at(r, i);

	if (!st)
		return 0;
	for (size_t k = 0; axes && k < st->n_axes && k < cap; k++)
		axes[k] = st->axes[k];
	return st->n_axes;
}

/* Store in "*from_dim" and "*to_dim" (either may be NULL) the tensor
 * dimensions step "i" of "r" takes from and gives to (-1: none); return
 * 0, or -1 when out of range. */
int
sym_redist_step_dims(const sym_redist *r, size_t i, int *from_dim, int *to_dim)
{
	const struct sym__step *st = step_at(r, i);

	if (!st)
		return -1;
	if (from_dim)
		*from_dim = st->from_dim;
	if (to_dim)
		*to_dim = st->to_dim;
	return 0;
}

/* Return the number of rank groups of step "i" of "r" and store their
 * size in "*group_size" (may be NULL); 0 when out of range. */
size_t
sym_redist_step_groups(const sym_redist *r, size_t i, size_t *group_size)
{
	const struct sym__step *st = step_at(r, i);

	if (!st)
		return 0;
	if (group_size)
		*group_size = (size_t)st->group_size;
	return (size_t)st->n_groups;
}

/* Return the rank of member "member" of group "group" of step "i" of "r",
 * or -1 when one of them is out of range. */
int64_t
sym_redist_step_group_rank(const sym_redist *r, size_t i, size_t group,
    size_t member)
{
	const struct sym__step *st = step_at(r, i);

	if (!st)
		return -1;
	if (group >= (size_t)st->n_groups || member >= (size_t)st->group_size)
		return -1;
	return step_rank(st, (int64_t)group, (int64_t)member);
}

/* Return the bytes S of step "i" of "r", borrowed from the plan, or NULL
 * when out of range. */
const sym_expr *
sym_redist_step_bytes(const sym_redist *r, size_t i)
{
	const struct sym__step *st = step_at(r, i);

	return st ? st->bytes : NULL;
}

/* Return the alpha-beta time in seconds of step "i" of "r" with its bytes
 * evaluated at "b" (may be NULL when they are constant), or -1 with the
 * error of the evaluation. */
double
sym_redist_step_seconds(const sym_redist *r, size_t i, const sym_binding *b)
{
	const struct sym__step *st = step_at(r, i);
	double bw, lat;
	int64_t bytes;

	if (!st)
		return -1;
	if (sym_expr_get_const(st->bytes, &bytes) < 0 &&
	    sym_expr_eval(st->bytes, b, &bytes) < 0) {
		if (!b)
			sym__error(r->ctx, SYM_EUNBOUND, NULL,
			    "the bytes of step %zu depend on symbols: give a "
			    "binding",
			    i);
		return -1;
	}
	bw = st->inter_node ? r->inter_bw : r->intra_bw;
	lat = st->inter_node ? r->inter_lat : r->intra_lat;
	return st->alpha_count * lat + st->beta_factor * (double)bytes / bw;
}

/* Return the latency term in seconds of the alpha-beta time of step "i"
 * of "r" (the part that does not grow with the bytes), or -1 when out of
 * range. */
double
sym_redist_step_latency(const sym_redist *r, size_t i)
{
	const struct sym__step *st = step_at(r, i);

	if (!st)
		return -1;
	return st->alpha_count * (st->inter_node ? r->inter_lat : r->intra_lat);
}

/* Return a new expression of the alpha-beta time of step "i" of "r" in
 * femtoseconds, as sym_redist_step_seconds computes it at a binding: the
 * latency terms rounded to a whole femtosecond, the bandwidth term the
 * bytes times the step's factor over the group (n ranks) floor-divided
 * by n; NULL when out of range or out of memory. */
sym_expr *
sym_redist_step_femtoseconds(const sym_redist *r, size_t i)
{
	const struct sym__step *st = step_at(r, i);
	double bw, lat;
	int64_t n;

	if (!st)
		return NULL;
	bw = st->inter_node ? r->inter_bw : r->intra_bw;
	lat = st->inter_node ? r->inter_lat : r->intra_lat;
	n = st->group_size > 1 ? st->group_size : 1;
	return sym_expr_add_si(sym__expr_give(sym__cost_bytes(st->bytes,
	                           llround(st->beta_factor * (double)n * 1e15 /
	                               bw),
	                           n)),
	    llround(st->alpha_count * lat * 1e15));
}

/* Return the layout after step "i" of "r", borrowed from the plan, or
 * NULL when out of range. */
const sym_layout *
sym_redist_step_layout(const sym_redist *r, size_t i)
{
	const struct sym__step *st = step_at(r, i);

	return st ? st->after : NULL;
}

/* Return 1 when "r" replicates the whole tensor on every rank although
 * the target does not, 0 if not, -1 for NULL. */
int
sym_redist_full_gather(const sym_redist *r)
{
	return r ? r->full_gather : -1;
}

/* Return the name of "kind", such as "all_to_all", or "?". */
const char *
sym_redist_kind_name(sym_redist_kind kind)
{
	switch (kind) {
	case SYM_REDIST_SLICE:
		return "slice";
	case SYM_REDIST_ALL_TO_ALL:
		return "all_to_all";
	case SYM_REDIST_PERMUTE:
		return "permute";
	case SYM_REDIST_ALL_GATHER:
		return "all_gather";
	case SYM_REDIST_ALL_REDUCE:
		return "all_reduce";
	case SYM_REDIST_REDUCE_SCATTER:
		return "reduce_scatter";
	case SYM_REDIST_BROADCAST:
		return "broadcast";
	case SYM_REDIST_INVALID:
		break;
	}
	return "?";
}

/* Append the text of step "st" to "b". */
static void
put_step(struct sym__str *b, const struct sym__step *st)
{
	const sym_mesh *m = st->after->mesh;
	char *bytes;

	sym__str_puts(b, sym_redist_kind_name(st->kind));
	sym__str_puts(b, st->n_axes > 1 ? " over (" : " over ");
	for (size_t i = 0; i < st->n_axes; i++) {
		sym__str_puts(b, i ? ", " : "");
		sym__str_puts(b, m->name[st->axes[i]]);
	}
	sym__str_puts(b, st->n_axes > 1 ? "): " : ": ");
	if (st->from_dim >= 0 && st->to_dim >= 0)
		sym__str_printf(b, "dim %d -> dim %d, ", st->from_dim,
		    st->to_dim);
	else if (st->from_dim >= 0 || st->to_dim >= 0)
		sym__str_printf(b, "dim %d, ",
		    st->from_dim >= 0 ? st->from_dim : st->to_dim);
	if (st->kind == SYM_REDIST_SLICE) {
		sym__str_puts(b, "local, no communication");
		return;
	}
	sym__str_printf(b,
	    "%lld group%s of %lld%s, S = ", (long long)st->n_groups,
	    st->n_groups == 1 ? "" : "s", (long long)st->group_size,
	    st->inter_node ? " across nodes" : "");
	bytes = sym_expr_to_str(st->bytes);
	sym__str_puts(b, bytes);
	free(bytes);
	sym__str_puts(b, " bytes");
}

/* Return a malloc'ed description of "r", one line per step, such as
 * "all_to_all over mp: dim 0 -> dim 1, 4 groups of 2, S = 2048*b bytes",
 * and a last line when it gathers the whole tensor; NULL on error. */
char *
sym_redist_to_str(const sym_redist *r)
{
	struct sym__str b = SYM__STR_INIT;

	if (!r)
		return NULL;
	if (r->n_step == 0)
		sym__str_puts(&b,
		    "no communication: the layouts are equivalent");
	for (size_t i = 0; i < r->n_step; i++) {
		sym__str_puts(&b, i ? "\n" : "");
		put_step(&b, &r->step[i]);
	}
	if (r->full_gather) {
		sym__str_puts(&b,
		    "\nfull gather: every rank holds the whole tensor "
		    "after step ");
		for (size_t i = 0; i < r->n_step; i++)
			if (r->step[i].kind == SYM_REDIST_ALL_GATHER &&
			    layout_splits(r->step[i].after) == 1) {
				sym__str_printf(&b, "%zu", i);
				break;
			}
		if (r->note)
			sym__str_printf(&b, " (%s)", r->note);
	}
	return sym__str_take(&b, r->ctx);
}
