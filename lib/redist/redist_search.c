/* SPDX-License-Identifier: MIT */
/*
 * The search for the cheapest sequence of redistribution steps between
 * two layouts on one mesh (HACKING.md section 3).
 *
 * The common major prefix of each dimension's axis lists never moves;
 * the rest is a shortest-path search (Dijkstra) over layouts, from the
 * source to the target, whose edges are the steps: reduce_scatter and
 * all_reduce resolve pending partial axes, all_gather removes a tail
 * group of a dimension, all_to_all moves a tail group to the tail of
 * another dimension, slice appends an axis, and permute jumps to the
 * target cut short, or cut shorter and filled up with axes the target
 * does not use, when every dimension keeps its number of blocks
 * (redist_steps.c generates them). A step costs its alpha-beta time for a tensor of
 * one byte (bytes are fractions of the tensor, whatever its shape):
 * bandwidth time first, then latency, then the number of steps, so the
 * plan moves the fewest bytes and, among those, uses the fewest
 * collectives. Slices go to the dimension and position the target wants
 * them at, or anywhere while at most four axes remain to slice (a slice
 * that a permute later fixes can beat gathering).
 *
 * The search is A*: a layout's place in the queue is its bandwidth so far
 * plus a lower bound of the bandwidth still to spend (lower_bound: a
 * device must receive the part of its target block it does not hold, and
 * no step costs less than what a device receives in it), which is
 * consistent, so the first plan to reach the target is still the
 * cheapest. The fallback plan (resolve every pending axis, gather beyond
 * the prefixes, slice), always valid, is priced first: a layout whose
 * bound already costs more is not kept, and when the cheapest open one
 * does the search returns the fallback. When the search would still visit
 * more than MAX_STATES layouts it falls back too. On 64 devices (six axes
 * of 2 that all move) the bound cuts the layouts visited about tenfold;
 * test_redist checks on random problems that it never changes the cost.
 */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "redist/redist_search.h"

#define MAX_STATES 40000
/* The most positions of the moving axes the lower bound looks at. */
#define MAX_POSITIONS 1024

/* A visited layout: its key, the best cost found, and the step from its
 * predecessor on that path. */
struct sym__snode {
	struct sym__rkey key;
	double beta, alpha;
	double h; /* the lower bound of the bandwidth still to spend */
	uint32_t steps;
	int32_t parent;
	uint8_t closed, reached;
	struct sym__rmove move;
};

/* An entry of the priority queue: a cost and the node it leads to, with
 * "f", its bandwidth plus the node's lower bound of what remains (the
 * order of the queue: A*). */
struct sym__qent {
	double f, beta, alpha;
	uint32_t steps;
	uint32_t seq;
	int32_t id;
};

/* Return the hash of "k". */
static uint64_t
key_hash(const struct sym__rkey *k)
{
	uint64_t h = SYM__FNV_BASIS;

	for (size_t i = 0; i < SYM__KEY_LEN; i++)
		h = sym__fnv1a_word(h, k->b[i]);
	return sym__mix64(h);
}

/* Return the key of the lists "n"/"ax" with the pending axes "pending"
 * over "n_axes" axes and "rank" dimensions. */
struct sym__rkey
sym__rkey_encode(size_t n_axes, size_t rank, const uint8_t *n,
    const int8_t (*ax)[SYM_MESH_MAX_AXES], uint32_t pending)
{
	struct sym__rkey k;

	memset(&k, SYM__WHERE_NONE, sizeof(k));
	for (size_t a = 0; a < n_axes; a++)
		if (pending >> a & 1)
			k.b[2 * a] = SYM__WHERE_PENDING;
	for (size_t d = 0; d < rank; d++)
		for (size_t i = 0; i < n[d]; i++) {
			k.b[2 * ax[d][i]] = (uint8_t)d;
			k.b[2 * ax[d][i] + 1] = (uint8_t)i;
		}
	return k;
}

/* Decode "k" (over "n_axes" axes, "rank" dimensions) into the lists
 * "n"/"axes" and, unless NULL, the pending axes "*pending". */
void
sym__rkey_decode(const struct sym__rkey *k, size_t n_axes, size_t rank,
    uint8_t *n, int8_t (*axes)[SYM_MESH_MAX_AXES], uint32_t *pending)
{
	uint32_t pend = 0;

	memset(n, 0, rank * sizeof(*n));
	for (size_t a = 0; a < n_axes; a++) {
		uint8_t w = k->b[2 * a];

		if (w == SYM__WHERE_PENDING)
			pend |= UINT32_C(1) << a;
		else if (w != SYM__WHERE_NONE) {
			axes[w][k->b[2 * a + 1]] = (int8_t)a;
			n[w]++;
		}
	}
	if (pending)
		*pending = pend;
}

/* Return 1 if entry "a" of the queue comes before entry "b". */
static int
before(const struct sym__qent *a, const struct sym__qent *b)
{
	double eb = 1e-9 * (a->f > b->f ? a->f : b->f);
	double ea = 1e-9 * (a->alpha > b->alpha ? a->alpha : b->alpha);

	if (a->f < b->f - eb || a->f > b->f + eb)
		return a->f < b->f;
	if (a->alpha < b->alpha - ea || a->alpha > b->alpha + ea)
		return a->alpha < b->alpha;
	if (a->steps != b->steps)
		return a->steps < b->steps;
	return a->seq < b->seq;
}

/* Push "e" on the queue of "s"; return 0 or -1. */
static int
push(struct sym__search *s, struct sym__qent e)
{
	size_t i;

	if (SYM__RESERVE(s->ctx, s->heap, s->cap_heap, s->n_heap + 1) < 0)
		return -1;
	i = s->n_heap++;
	while (i > 0 && before(&e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
	return 0;
}

/* Pop the first entry of the queue of "s" into "*e"; return 0, or -1
 * when it is empty. */
static int
pop(struct sym__search *s, struct sym__qent *e)
{
	struct sym__qent last;
	size_t i = 0;

	if (s->n_heap == 0)
		return -1;
	*e = s->heap[0];
	last = s->heap[--s->n_heap];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->n_heap)
			break;
		if (c + 1 < s->n_heap && before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->n_heap)
		s->heap[i] = last;
	return 0;
}

/* Return the id of the node of "k" in "s", creating it when "create";
 * -1 when absent (or on error, with s->overflow set on too many). */
static int32_t
lookup(struct sym__search *s, const struct sym__rkey *k, int create)
{
	uint64_t h = key_hash(k);

	for (size_t i = sym__htab_first(&s->table, h); i != SYM__HTAB_END;
	     i = sym__htab_next(&s->table, h, i)) {
		size_t id = s->table.slot[i].item;

		if (memcmp(&s->node[id].key, k, sizeof(*k)) == 0)
			return (int32_t)id;
	}
	if (!create)
		return -1;
	if (s->n_node >= MAX_STATES) {
		s->overflow = 1;
		return -1;
	}
	if (SYM__RESERVE(s->ctx, s->node, s->cap_node, s->n_node + 1) < 0 ||
	    sym__htab_add(s->ctx, &s->table, h, s->n_node) < 0)
		return -1;
	memset(&s->node[s->n_node], 0, sizeof(s->node[0]));
	s->node[s->n_node].key = *k;
	s->node[s->n_node].parent = -1;
	return (int32_t)s->n_node++;
}

/* Return the mask of the "n" axes "ax". */
uint32_t
sym__axes_mask(const int8_t *ax, size_t n)
{
	uint32_t m = 0;

	for (size_t i = 0; i < n; i++)
		m |= UINT32_C(1) << ax[i];
	return m;
}

/* Return the product of the sizes of the axes of "mask" in "s". */
int64_t
sym__search_mask_size(const struct sym__search *s, uint32_t mask)
{
	int64_t n = 1;

	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (mask >> a & 1)
			n *= s->mesh->size[a];
	return n;
}

/* Return 1 when the layout of "k" splits no dimension into a number of
 * blocks that fails to divide its modulus (see struct sym__rproblem). */
static int
admissible(const struct sym__search *s, const struct sym__rkey *k)
{
	int64_t split[SYM_MESH_MAX_AXES];
	uint8_t dim[SYM_MESH_MAX_AXES];
	size_t n = 0;

	if (!s->p->mod)
		return 1;
	for (size_t a = 0; a < s->mesh->n_axes; a++) {
		uint8_t d = k->b[2 * a];
		size_t i;

		if (d >= s->p->rank || s->mesh->size[a] == 1)
			continue;
		for (i = 0; i < n && dim[i] != d; i++)
			;
		if (i == n) {
			dim[n] = d;
			split[n++] = 1;
		}
		split[i] *= s->mesh->size[a];
	}
	for (size_t i = 0; i < n; i++)
		if (s->p->mod[dim[i]] % split[i] != 0)
			return 0;
	return 1;
}

/* Add to "e" the time of the step "mv" of "s", which moves the fraction
 * "frac" of the tensor: bandwidth (beta) as bytes at the intra-node
 * rate, latency (alpha) as intra-node latencies. */
static void
add_cost(const struct sym__search *s, const struct sym__rmove *mv, double frac,
    struct sym__qent *e)
{
	uint32_t mask = sym__axes_mask(mv->axes, mv->n_axes);
	int64_t n = sym__search_mask_size(s, mask);
	int spans = sym__cost_spans(s->cm, mask);
	double ac, bf, bw, lat;

	sym__cost_factors(mv->kind, n, &ac, &bf);
	bw = spans ? s->cm->inter_bw : s->cm->intra_bw;
	lat = spans ? s->cm->inter_lat : s->cm->intra_lat;
	e->beta += bf * frac * (s->cm->intra_bw / bw);
	e->alpha += ac * (lat / s->cm->intra_lat);
}

/* Return 1 when every way through "e" costs more than the fallback plan
 * of "s" in bandwidth, or as much in bandwidth and more in latency
 * (beyond the tolerance of before()): none can beat that plan. */
static int
beyond(const struct sym__search *s, const struct sym__qent *e)
{
	double eb = 1e-9 * (e->f > s->bound_beta ? e->f : s->bound_beta);
	double ea =
	    1e-9 * (e->alpha > s->bound_alpha ? e->alpha : s->bound_alpha);

	if (!s->have_bound)
		return 0;
	if (e->f > s->bound_beta + eb)
		return 1;
	return e->f >= s->bound_beta - eb && e->alpha > s->bound_alpha + ea;
}

/* Return a lower bound of the bandwidth (as sym__search_relax counts
 * it) any plan from the layout of "k" to the target of "s" spends: each
 * step costs at least the bytes a device receives in it (times the
 * cheapest rate), and a device must receive the part of its target
 * block it does not hold, whatever it holds as partial sums: the most
 * of that over the positions of the axes that move (s->rel), relative
 * to the frozen prefixes (s->prefix_frac). 0 when there are too many
 * positions to look at. */
static double
lower_bound(struct sym__search *s, const struct sym__rkey *k)
{
	struct sym__sstate *c = &s->hst;
	double *both = s->both, least = 1;

	if (!s->n_pos)
		return 0;
	sym__rkey_decode(k, s->mesh->n_axes, s->p->rank, c->n, c->ax, NULL);
	for (size_t r = 0; r < s->n_pos; r++)
		both[r] = 1;
	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd], m = c->n[d] - s->pre[d];
		const int8_t *list = c->ax[d] + s->pre[d];
		const double *tlo = s->tlo + dd * s->n_pos;
		double len = s->tlen[dd], n = 1;

		for (size_t i = 0; i < m; i++)
			n *= (double)s->mesh->size[list[i]];
		for (size_t r = 0; r < s->n_pos; r++) {
			double lo, hi;
			int64_t idx = 0;

			for (size_t i = 0; i < m; i++)
				idx = idx * s->mesh->size[list[i]] +
				    s->coord[(size_t)list[i] * s->n_pos + r];
			lo = (double)idx / n;
			hi = (double)(idx + 1) / n;
			if (tlo[r] > lo)
				lo = tlo[r];
			if (tlo[r] + len < hi)
				hi = tlo[r] + len;
			both[r] *= hi > lo ? hi - lo : 0;
		}
	}
	for (size_t r = 0; r < s->n_pos; r++)
		if (both[r] < least)
			least = both[r];
	/* below the exact bound by more than rounding can lose */
	return least < s->tvol
	    ? (s->tvol - least) * s->prefix_frac * s->min_rate * (1 - 1e-9)
	    : 0;
}

/* Record in "s" the step "mv" from node "from", which moves the fraction
 * "frac" of the tensor, as the way to the layout after it when that is
 * the cheapest known; return 0 or -1 (0 too when the search is full). */
int
sym__search_relax(struct sym__search *s, int32_t from,
    const struct sym__rmove *mv, double frac)
{
	const struct sym__snode *f = &s->node[from];
	struct sym__qent e;
	struct sym__snode *t;
	int32_t id;

	if (!admissible(s, &mv->after) &&
	    memcmp(&mv->after, &s->goal, sizeof(s->goal)) != 0)
		return 0;
	e.beta = f->beta;
	e.alpha = f->alpha;
	add_cost(s, mv, frac, &e);
	e.steps = f->steps + 1;
	e.seq = s->seq++;
	id = lookup(s, &mv->after, 0);
	if (id < 0) {
		double h = lower_bound(s, &mv->after);

		e.f = e.beta + h;
		if (beyond(s, &e))
			return 0;
		id = lookup(s, &mv->after, 1);
		if (id < 0)
			return s->overflow ? 0 : -1;
		s->node[id].h = h;
	}
	t = &s->node[id];
	e.f = e.beta + t->h;
	if (t->closed || beyond(s, &e))
		return 0;
	if (t->reached) {
		struct sym__qent best = { t->beta + t->h, t->beta, t->alpha,
			t->steps, 0, id };

		if (!before(&e, &best))
			return 0;
	}
	t->reached = 1;
	t->beta = e.beta;
	t->alpha = e.alpha;
	t->steps = e.steps;
	t->parent = from;
	t->move = *mv;
	e.id = id;
	return push(s, e);
}

/* Store in "*moves" (malloc'ed) and "*n_moves" the path of "s" to node
 * "id"; return 0 or -1. */
static int
path(struct sym__search *s, int32_t id, struct sym__rmove **moves,
    size_t *n_moves)
{
	size_t n = 0;

	for (int32_t i = id; s->node[i].parent >= 0; i = s->node[i].parent)
		n++;
	*n_moves = n;
	*moves = sym__realloc_array(s->ctx, NULL, n ? n : 1, sizeof(**moves));
	if (!*moves)
		return -1;
	for (int32_t i = id; s->node[i].parent >= 0; i = s->node[i].parent)
		(*moves)[--n] = s->node[i].move;
	return 0;
}

/* Add to "*moves" ("*n" of them, room for "cap") the step "kind" on the
 * axes "ax" ("k" of them) and dimensions "fd", "td" leading to "st". */
static void
add_move(const struct sym__search *s, struct sym__rmove *moves, size_t *n,
    sym_redist_kind kind, const int8_t *ax, size_t k, int fd, int td,
    const struct sym__sstate *st)
{
	struct sym__rmove *m = &moves[(*n)++];

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->n_axes = (uint8_t)k;
	memcpy(m->axes, ax, k);
	m->from_dim = fd;
	m->to_dim = td;
	m->after = sym__rkey_encode(s->mesh->n_axes, s->p->rank, st->n, st->ax,
	    st->pending);
}

/* Store in "*moves" and "*n_moves" the plan that resolves every pending
 * axis with one all_reduce, gathers each dimension beyond its prefix and
 * slices what the target wants; return 0 or -1. */
static int
fallback(struct sym__search *s, struct sym__rmove **moves, size_t *n_moves)
{
	struct sym__sstate *c = &s->cur;
	size_t cap = 1 + 2 * s->p->rank, n = 0;
	int8_t ax[SYM_MESH_MAX_AXES];
	size_t k = 0;

	*moves = sym__realloc_array(s->ctx, NULL, cap, sizeof(**moves));
	if (!*moves)
		return -1;
	sym__search_decode(s, &s->node[0].key, c);
	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (c->pending >> a & 1)
			ax[k++] = (int8_t)a;
	c->pending = 0;
	if (k)
		add_move(s, *moves, &n, SYM_REDIST_ALL_REDUCE, ax, k, -1, -1,
		    c);
	for (size_t d = 0; d < s->p->rank; d++)
		if (c->n[d] > s->pre[d]) {
			size_t m = c->n[d] - s->pre[d];

			c->n[d] = s->pre[d];
			add_move(s, *moves, &n, SYM_REDIST_ALL_GATHER,
			    &c->ax[d][s->pre[d]], m, (int)d, -1, c);
		}
	for (size_t d = 0; d < s->p->rank; d++)
		if (s->p->n_to[d] > s->pre[d]) {
			size_t m = s->p->n_to[d] - s->pre[d];

			memcpy(&c->ax[d][s->pre[d]], &s->p->to[d][s->pre[d]],
			    m);
			c->n[d] = s->p->n_to[d];
			add_move(s, *moves, &n, SYM_REDIST_SLICE,
			    &c->ax[d][s->pre[d]], m, -1, (int)d, c);
		}
	*n_moves = n;
	return 0;
}

/* Return the number of blocks of the layout of "k" in "s": the product
 * of the sizes of the axes in its lists. */
static int64_t
key_blocks(const struct sym__search *s, const struct sym__rkey *k)
{
	int64_t q = 1;

	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (k->b[2 * a] < SYM__WHERE_PENDING)
			q *= s->mesh->size[a];
	return q;
}

/* Price the "n" moves "mv" of the fallback plan of "s" from its first
 * node as the bound no plan worth finding exceeds. */
static void
set_bound(struct sym__search *s, const struct sym__rmove *mv, size_t n)
{
	struct sym__qent e = { 0, 0, 0, 0, 0, 0 };
	int64_t q = key_blocks(s, &s->node[0].key);

	for (size_t i = 0; i < n; i++) {
		int64_t g = sym__search_mask_size(s,
		    sym__axes_mask(mv[i].axes, mv[i].n_axes));

		if (mv[i].kind == SYM_REDIST_ALL_REDUCE)
			add_cost(s, &mv[i], 1.0 / (double)q, &e);
		else if (mv[i].kind == SYM_REDIST_ALL_GATHER)
			add_cost(s, &mv[i], (double)g / (double)q, &e);
		q = key_blocks(s, &mv[i].after);
	}
	s->bound_beta = e.beta;
	s->bound_alpha = e.alpha;
	s->have_bound = 1;
}

/* Set up the prefixes, active dimensions and target of "s"; return 0 or
 * -1. */
static int
setup(struct sym__search *s)
{
	const struct sym__rproblem *p = s->p;
	size_t k = p->rank ? p->rank : 1;

	s->pre = sym__alloc(s->ctx, k);
	s->active = sym__alloc(s->ctx, k * sizeof(*s->active));
	s->cur.n = sym__alloc(s->ctx, k);
	s->cur.ax = sym__alloc(s->ctx, k * sizeof(*s->cur.ax));
	s->nxt.n = sym__alloc(s->ctx, k);
	s->nxt.ax = sym__alloc(s->ctx, k * sizeof(*s->nxt.ax));
	if (!s->pre || !s->active || !s->cur.n || !s->cur.ax || !s->nxt.n ||
	    !s->nxt.ax)
		return -1;
	for (size_t d = 0; d < p->rank; d++) {
		size_t i = 0;

		while (i < p->n_from[d] && i < p->n_to[d] &&
		    p->from[d][i] == p->to[d][i])
			i++;
		s->pre[d] = (uint8_t)i;
		if (i < p->n_from[d] || i < p->n_to[d])
			s->active[s->n_active++] = d;
		for (; i < p->n_to[d]; i++)
			s->target_axes |= UINT32_C(1) << p->to[d][i];
	}
	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (s->mesh->size[a] > 1)
			s->spare |= UINT32_C(1) << a;
	for (size_t d = 0; d < p->rank; d++)
		for (size_t i = 0; i < p->n_to[d]; i++)
			s->spare &= ~(UINT32_C(1) << p->to[d][i]);
	s->spare &= ~p->kept;
	s->goal = sym__rkey_encode(s->mesh->n_axes, p->rank, p->n_to, p->to, 0);
	return 0;
}

/* Set up the lower bound of "s" (see lower_bound): the positions of
 * the axes that may move, and the target's block at each; 0 or -1. */
static int
setup_bound(struct sym__search *s)
{
	const struct sym__rproblem *p = s->p;
	uint32_t frozen = 0;
	size_t n = 1, k = p->rank ? p->rank : 1;

	s->prefix_frac = 1;
	for (size_t d = 0; d < p->rank; d++)
		for (size_t i = 0; i < s->pre[d]; i++) {
			frozen |= UINT32_C(1) << p->to[d][i];
			s->prefix_frac /= (double)s->mesh->size[p->to[d][i]];
		}
	for (size_t a = 0; a < s->mesh->n_axes; a++) {
		s->pos_div[a] = (int64_t)n;
		if (!(frozen >> a & 1) && n <= MAX_POSITIONS)
			n *= (size_t)s->mesh->size[a];
	}
	s->min_rate = s->cm->intra_bw < s->cm->inter_bw
	    ? s->cm->intra_bw / s->cm->inter_bw
	    : 1;
	if (n > MAX_POSITIONS || s->n_active == 0 || !s->ctx->opt_redist_bound)
		return 0; /* no bound: a plain shortest-path search */
	s->hst.n = sym__alloc(s->ctx, k);
	s->hst.ax = sym__alloc(s->ctx, k * sizeof(*s->hst.ax));
	s->tlo = sym__alloc(s->ctx, n * s->n_active * sizeof(*s->tlo));
	s->tlen = sym__alloc(s->ctx, s->n_active * sizeof(*s->tlen));
	s->both = sym__alloc(s->ctx, n * sizeof(*s->both));
	s->coord = sym__alloc(s->ctx, n * s->mesh->n_axes * sizeof(*s->coord));
	if (!s->hst.n || !s->hst.ax || !s->tlo || !s->tlen || !s->both ||
	    !s->coord)
		return -1;
	for (size_t a = 0; a < s->mesh->n_axes; a++)
		for (size_t r = 0; r < n; r++)
			s->coord[a * n + r] =
			    (uint16_t)((int64_t)(r / (size_t)s->pos_div[a]) %
			        s->mesh->size[a]);
	s->tvol = 1;
	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd];
		int64_t blocks = 1;

		for (size_t i = s->pre[d]; i < p->n_to[d]; i++)
			blocks *= s->mesh->size[p->to[d][i]];
		s->tlen[dd] = 1.0 / (double)blocks;
		s->tvol *= s->tlen[dd];
		for (size_t r = 0; r < n; r++) {
			int64_t idx = 0;

			for (size_t i = s->pre[d]; i < p->n_to[d]; i++) {
				int8_t a = p->to[d][i];

				idx = idx * s->mesh->size[a] +
				    (int64_t)(r / (size_t)s->pos_div[a]) %
				        s->mesh->size[a];
			}
			s->tlo[dd * n + r] = (double)idx / (double)blocks;
		}
	}
	s->n_pos = n;
	return 0;
}

/* Release what "s" holds. */
static void
search_clear(struct sym__search *s)
{
	free(s->hst.n);
	free(s->hst.ax);
	free(s->tlo);
	free(s->tlen);
	free(s->both);
	free(s->coord);
	free(s->pre);
	free(s->active);
	free(s->cur.n);
	free(s->cur.ax);
	free(s->nxt.n);
	free(s->nxt.ax);
	free(s->node);
	sym__htab_clear(&s->table);
	free(s->heap);
}

/* Run the search of "s" from its first node; return the id of the goal,
 * -2 when the search gave up, or -1 on error. */
static int32_t
run(struct sym__search *s)
{
	struct sym__qent e = { 0, 0, 0, 0, 0, 0 };

	if (push(s, e) < 0)
		return -1;
	while (pop(s, &e) == 0) {
		struct sym__rkey key = s->node[e.id].key;

		if (s->node[e.id].closed)
			continue;
		if (beyond(s, &e))
			return -2;
		s->node[e.id].closed = 1;
		if (memcmp(&key, &s->goal, sizeof(s->goal)) == 0)
			return e.id;
		if (sym__search_expand(s, e.id, &key) < 0)
			return -1;
		if (s->overflow)
			return -2;
	}
	return -2;
}

/* Find the cheapest steps from the source to the target of "p" with the
 * costs of "cm"; store them (malloc'ed) in "*moves" and "*n_moves".
 * Return 0, or -1 on error. */
int
sym__redist_search(const struct sym__rproblem *p, struct sym__cost_model *cm,
    struct sym__rmove **moves, size_t *n_moves)
{
	struct sym__search s;
	struct sym__rkey start;
	int32_t goal;
	int r = -1;

	memset(&s, 0, sizeof(s));
	s.ctx = p->mesh->ctx;
	s.p = p;
	s.cm = cm;
	s.mesh = p->mesh;
	*moves = NULL;
	*n_moves = 0;
	if (setup(&s) < 0 || setup_bound(&s) < 0)
		goto out;
	start = sym__rkey_encode(s.mesh->n_axes, p->rank, p->n_from, p->from,
	    p->pending);
	if (lookup(&s, &start, 1) != 0)
		goto out;
	s.node[0].reached = 1;
	/* the fallback plan bounds the search: states that cost more are
	 * not explored, and the search stops (and falls back) when the
	 * cheapest open one does */
	if (fallback(&s, moves, n_moves) < 0)
		goto out;
	if (s.ctx->opt_redist_bound)
		set_bound(&s, *moves, *n_moves);
	goal = run(&s);
	if (goal == -2) {
		r = 0; /* the fallback plan stands */
	} else {
		free(*moves);
		*moves = NULL;
		*n_moves = 0;
		if (goal >= 0)
			r = path(&s, goal, moves, n_moves);
	}
out:
	search_clear(&s);
	return r;
}
