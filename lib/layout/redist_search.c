/*
 * The search for the cheapest sequence of redistribution steps between
 * two layouts on one mesh (DESIGN section 7).
 *
 * The common major prefix of each dimension's axis lists never moves;
 * the rest is a shortest-path search (Dijkstra) over layouts, from the
 * source to the target, whose edges are the steps: reduce_scatter and
 * all_reduce resolve pending partial axes, all_gather removes a tail
 * group of a dimension, all_to_all moves a tail group to the tail of
 * another dimension, slice appends an axis, and permute jumps to the
 * target, or to the target with shorter lists, when every dimension keeps
 * its number of blocks. A step costs its alpha-beta time for a tensor of
 * one byte (bytes are fractions of the tensor, whatever its shape):
 * bandwidth time first, then latency, then the number of steps, so the
 * plan moves the fewest bytes and, among those, uses the fewest
 * collectives. Slices go to the dimension and position the target wants
 * them at, or anywhere while at most four axes remain to slice (a slice
 * that a permute later fixes can beat gathering). When the search would
 * visit more than MAX_STATES layouts it falls back to resolving, gathering
 * and slicing, which is always valid.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/redist_private.h"

#define MAX_STATES 40000
#define MAX_PARK 4

/* A visited layout: its key, the best cost found, and the step from its
 * predecessor on that path. */
struct snode {
	struct sym__rkey key;
	double beta, alpha;
	uint32_t steps;
	int32_t parent;
	uint8_t closed, reached;
	struct sym__rmove move;
};

/* An entry of the priority queue: a cost and the node it leads to. */
struct qent {
	double beta, alpha;
	uint32_t steps;
	uint32_t seq;
	int32_t id;
};

/* A layout decoded from its key, for generating steps. */
struct sstate {
	uint8_t *n;
	int8_t (*ax)[SYM_MESH_MAX_AXES];
	uint32_t pending;
	uint32_t used; /* axes in the lists, pending or kept */
};

/* The search. */
struct search {
	sym_ctx *ctx;
	const struct sym__rproblem *p;
	struct sym__cost_model *cm;
	const sym_mesh *mesh;
	uint8_t *pre;     /* the frozen prefix length of each dimension */
	size_t *active;   /* the dimensions whose lists may change */
	size_t n_active;
	uint32_t target_axes; /* the axes of the target beyond the prefixes */
	struct sym__rkey goal;
	struct snode *node;
	size_t n_node, cap_node;
	int32_t *table; /* open addressing: node ids, -1 empty */
	size_t cap_table;
	struct qent *heap;
	size_t n_heap, cap_heap;
	uint32_t seq;
	struct sstate cur, nxt;
	int overflow;
};

/* Return the hash of "k". */
static uint64_t
key_hash(const struct sym__rkey *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < SYM__KEY_LEN; i++)
		h = (h ^ k->b[i]) * 0x100000001b3ULL;
	return h ^ (h >> 31);
}

/* Return the key of the lists "n"/"ax" with the pending axes "pending"
 * over "n_axes" axes and "rank" dimensions. */
static struct sym__rkey
encode(size_t n_axes, size_t rank, const uint8_t *n,
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

/* Decode "k" into "st" for the search "s". */
static void
decode(const struct search *s, const struct sym__rkey *k, struct sstate *st)
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
splits(const struct search *s, const struct sstate *st)
{
	int64_t q = 1;

	for (size_t d = 0; d < s->p->rank; d++)
		for (size_t i = 0; i < st->n[d]; i++)
			q *= s->mesh->size[st->ax[d][i]];
	return q;
}

/* Return 1 if entry "a" of the queue comes before entry "b". */
static int
before(const struct qent *a, const struct qent *b)
{
	double eb = 1e-9 * (a->beta > b->beta ? a->beta : b->beta);
	double ea = 1e-9 * (a->alpha > b->alpha ? a->alpha : b->alpha);

	if (a->beta < b->beta - eb || a->beta > b->beta + eb)
		return a->beta < b->beta;
	if (a->alpha < b->alpha - ea || a->alpha > b->alpha + ea)
		return a->alpha < b->alpha;
	if (a->steps != b->steps)
		return a->steps < b->steps;
	return a->seq < b->seq;
}

/* Push "e" on the queue of "s"; return 0 or -1. */
static int
push(struct search *s, struct qent e)
{
	size_t i;

	if (s->n_heap == s->cap_heap) {
		size_t cap = s->cap_heap ? 2 * s->cap_heap : 256;
		struct qent *h = sym__realloc_array(s->ctx, s->heap, cap,
		    sizeof(*h));

		if (!h)
			return -1;
		s->heap = h;
		s->cap_heap = cap;
	}
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
pop(struct search *s, struct qent *e)
{
	struct qent last;
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

/* Grow the hash table of "s" to "cap" slots; return 0 or -1. */
static int
rehash(struct search *s, size_t cap)
{
	int32_t *t = sym__realloc_array(s->ctx, NULL, cap, sizeof(*t));

	if (!t)
		return -1;
	memset(t, -1, cap * sizeof(*t));
	for (size_t id = 0; id < s->n_node; id++) {
		size_t i = key_hash(&s->node[id].key) & (cap - 1);

		while (t[i] >= 0)
			i = (i + 1) & (cap - 1);
		t[i] = (int32_t)id;
	}
	free(s->table);
	s->table = t;
	s->cap_table = cap;
	return 0;
}

/* Return the id of the node of "k" in "s", creating it when "create";
 * -1 when absent (or on error, with s->overflow set on too many). */
static int32_t
lookup(struct search *s, const struct sym__rkey *k, int create)
{
	size_t i;

	if (2 * (s->n_node + 1) > s->cap_table &&
	    rehash(s, s->cap_table ? 2 * s->cap_table : 1024) < 0)
		return -1;
	i = key_hash(k) & (s->cap_table - 1);
	while (s->table[i] >= 0) {
		if (memcmp(&s->node[s->table[i]].key, k, sizeof(*k)) == 0)
			return s->table[i];
		i = (i + 1) & (s->cap_table - 1);
	}
	if (!create)
		return -1;
	if (s->n_node >= MAX_STATES) {
		s->overflow = 1;
		return -1;
	}
	if (s->n_node == s->cap_node) {
		size_t cap = s->cap_node ? 2 * s->cap_node : 256;
		struct snode *n = sym__realloc_array(s->ctx, s->node, cap,
		    sizeof(*n));

		if (!n)
			return -1;
		s->node = n;
		s->cap_node = cap;
	}
	memset(&s->node[s->n_node], 0, sizeof(s->node[0]));
	s->node[s->n_node].key = *k;
	s->node[s->n_node].parent = -1;
	s->table[i] = (int32_t)s->n_node;
	return (int32_t)s->n_node++;
}

/* Return the mask of the "n" axes "ax". */
static uint32_t
mask_of(const int8_t *ax, size_t n)
{
	uint32_t m = 0;

	for (size_t i = 0; i < n; i++)
		m |= UINT32_C(1) << ax[i];
	return m;
}

/* Return the product of the sizes of the axes of "mask" in "s". */
static int64_t
mask_size(const struct search *s, uint32_t mask)
{
	int64_t n = 1;

	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (mask >> a & 1)
			n *= s->mesh->size[a];
	return n;
}

/* Record in "s" the step "mv" from node "from" (state "cur", holding
 * 1/"q" of the tensor) to the state s->nxt, whose cost is that of
 * moving "frac" of the tensor; return 0 or -1. */
static int
relax(struct search *s, int32_t from, const struct sym__rmove *mv,
    double frac)
{
	const struct snode *f = &s->node[from];
	uint32_t mask = mask_of(mv->axes, mv->n_axes);
	int64_t n = mask_size(s, mask);
	int spans = sym__cost_spans(s->cm, mask);
	double ac, bf, bw, lat;
	struct qent e;
	struct snode *t;
	int32_t id;

	sym__cost_factors(mv->kind, n, &ac, &bf);
	bw = spans ? s->cm->inter_bw : s->cm->intra_bw;
	lat = spans ? s->cm->inter_lat : s->cm->intra_lat;
	e.beta = f->beta + bf * frac * (s->cm->intra_bw / bw);
	e.alpha = f->alpha + ac * (lat / s->cm->intra_lat);
	e.steps = f->steps + 1;
	e.seq = s->seq++;
	id = lookup(s, &mv->after, 1);
	if (id < 0)
		return s->overflow ? 0 : -1;
	t = &s->node[id];
	if (t->closed)
		return 0;
	if (t->reached) {
		struct qent best = { t->beta, t->alpha, t->steps, 0, id };

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

/* Copy "a" into "b" for the "rank" dimensions. */
static void
copy_state(const struct search *s, const struct sstate *a, struct sstate *b)
{
	memcpy(b->n, a->n, s->p->rank * sizeof(*b->n));
	memcpy(b->ax, a->ax, s->p->rank * sizeof(*b->ax));
	b->pending = a->pending;
	b->used = a->used;
}

/* Finish the step "mv" of kind "kind" on axes "ax" ("n" of them) into
 * s->nxt and relax it from node "from"; "frac" as for relax. */
static int
emit(struct search *s, int32_t from, sym_comm_kind kind, const int8_t *ax,
    size_t n, int from_dim, int to_dim, double frac)
{
	struct sym__rmove mv;

	memset(&mv, 0, sizeof(mv));
	mv.kind = kind;
	mv.n_axes = (uint8_t)n;
	memcpy(mv.axes, ax, n * sizeof(*ax));
	mv.from_dim = from_dim;
	mv.to_dim = to_dim;
	mv.after = encode(s->mesh->n_axes, s->p->rank, s->nxt.n, s->nxt.ax,
	    s->nxt.pending);
	return relax(s, from, &mv, frac);
}

/* Generate the all_gather and all_to_all steps from node "id" (state
 * s->cur, holding 1/"q" of the tensor); return 0 or -1. */
static int
expand_moves(struct search *s, int32_t id, int64_t q)
{
	const struct sstate *c = &s->cur;

	for (size_t ii = 0; ii < s->n_active; ii++) {
		size_t i = s->active[ii];

		for (size_t m = 1; m + s->pre[i] <= c->n[i]; m++) {
			const int8_t *g = &c->ax[i][c->n[i] - m];
			int64_t n = mask_size(s, mask_of(g, m));

			copy_state(s, c, &s->nxt);
			s->nxt.n[i] -= (uint8_t)m;
			if (emit(s, id, SYM_COMM_ALL_GATHER, g, m, (int)i, -1,
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
				if (emit(s, id, SYM_COMM_ALL_TO_ALL, g, m,
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
free_targets(const struct search *s, const struct sstate *c)
{
	return __builtin_popcount(s->target_axes & ~c->used);
}

/* Return 1 if the list of dimension "d" in "c" is, beyond the prefix, a
 * proper prefix of the target's. */
static int
on_track(const struct search *s, const struct sstate *c, size_t d)
{
	if (c->n[d] >= s->p->n_to[d])
		return 0;
	return memcmp(c->ax[d], s->p->to[d], c->n[d]) == 0;
}

/* Generate the slice steps from node "id" (state s->cur); return 0 or
 * -1. */
static int
expand_slices(struct search *s, int32_t id)
{
	const struct sstate *c = &s->cur;
	int park = free_targets(s, c) <= MAX_PARK;

	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd];

		for (size_t a = 0; a < s->mesh->n_axes; a++) {
			int8_t ax = (int8_t)a;

			if (!(s->target_axes >> a & 1) || (c->used >> a & 1))
				continue;
			if (!park && !(on_track(s, c, d) &&
			                 s->p->to[d][c->n[d]] == ax))
				continue;
			copy_state(s, c, &s->nxt);
			s->nxt.ax[d][s->nxt.n[d]++] = ax;
			if (emit(s, id, SYM_COMM_SLICE, &ax, 1, -1, (int)d,
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
expand_partial(struct search *s, int32_t id, int64_t q)
{
	const struct sstate *c = &s->cur;
	int8_t ord[SYM_MESH_MAX_AXES];
	size_t len;

	for (size_t k = 0;
	     (len = selection(c->pending, s->mesh->n_axes, k, ord)) > 0; k++) {
		uint32_t m = mask_of(ord, len);
		int8_t sorted[SYM_MESH_MAX_AXES];
		size_t ns = 0;

		for (size_t dd = 0; dd < s->n_active; dd++) {
			size_t d = s->active[dd];

			copy_state(s, c, &s->nxt);
			s->nxt.pending &= ~m;
			memcpy(&s->nxt.ax[d][s->nxt.n[d]], ord, len);
			s->nxt.n[d] += (uint8_t)len;
			if (emit(s, id, SYM_COMM_REDUCE_SCATTER, ord, len, -1,
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
		if (emit(s, id, SYM_COMM_ALL_REDUCE, ord, len, -1, -1,
		        1.0 / (double)q) < 0)
			return -1;
	}
	return 0;
}

/* Generate the permute step from node "id" (state s->cur, holding 1/"q"
 * of the tensor): to the target with each list cut where it has as many
 * blocks as now, if that exists and differs; return 0 or -1. */
static int
expand_permute(struct search *s, int32_t id, int64_t q)
{
	const struct sstate *c = &s->cur;
	int8_t w[SYM_MESH_MAX_AXES];
	uint32_t mask = 0;
	size_t nw = 0;

	copy_state(s, c, &s->nxt);
	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd], t = s->pre[d];
		int64_t have = 1, want = 1;

		for (size_t i = s->pre[d]; i < c->n[d]; i++)
			have *= s->mesh->size[c->ax[d][i]];
		while (want < have && t < s->p->n_to[d])
			want *= s->mesh->size[s->p->to[d][t++]];
		if (want != have)
			return 0;
		for (size_t i = s->pre[d]; i < c->n[d]; i++)
			mask |= UINT32_C(1) << c->ax[d][i];
		for (size_t i = s->pre[d]; i < t; i++)
			mask |= UINT32_C(1) << s->p->to[d][i];
		memcpy(s->nxt.ax[d], s->p->to[d], t);
		s->nxt.n[d] = (uint8_t)t;
	}
	if (mask & c->pending)
		return 0;
	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (mask >> a & 1)
			w[nw++] = (int8_t)a;
	for (size_t dd = 0; dd < s->n_active; dd++) {
		size_t d = s->active[dd];

		if (s->nxt.n[d] != c->n[d] ||
		    memcmp(s->nxt.ax[d], c->ax[d], c->n[d]) != 0)
			return emit(s, id, SYM_COMM_PERMUTE, w, nw, -1, -1,
			    1.0 / (double)q);
	}
	return 0;
}

/* Generate every step from node "id"; return 0 or -1. */
static int
expand(struct search *s, int32_t id)
{
	int64_t q;

	decode(s, &s->node[id].key, &s->cur);
	q = splits(s, &s->cur);
	if (expand_partial(s, id, q) < 0 || expand_moves(s, id, q) < 0 ||
	    expand_slices(s, id) < 0 || expand_permute(s, id, q) < 0)
		return -1;
	return 0;
}

/* Store in "*moves" (malloc'ed) and "*n_moves" the path of "s" to node
 * "id"; return 0 or -1. */
static int
path(struct search *s, int32_t id, struct sym__rmove **moves,
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
add_move(const struct search *s, struct sym__rmove *moves, size_t *n,
    sym_comm_kind kind, const int8_t *ax, size_t k, int fd, int td,
    const struct sstate *st)
{
	struct sym__rmove *m = &moves[(*n)++];

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->n_axes = (uint8_t)k;
	memcpy(m->axes, ax, k);
	m->from_dim = fd;
	m->to_dim = td;
	m->after = encode(s->mesh->n_axes, s->p->rank, st->n, st->ax,
	    st->pending);
}

/* Store in "*moves" and "*n_moves" the plan that resolves every pending
 * axis with one all_reduce, gathers each dimension beyond its prefix and
 * slices what the target wants; return 0 or -1. */
static int
fallback(struct search *s, struct sym__rmove **moves, size_t *n_moves)
{
	struct sstate *c = &s->cur;
	size_t cap = 1 + 2 * s->p->rank, n = 0;
	int8_t ax[SYM_MESH_MAX_AXES];
	size_t k = 0;

	*moves = sym__realloc_array(s->ctx, NULL, cap, sizeof(**moves));
	if (!*moves)
		return -1;
	decode(s, &s->node[0].key, c);
	for (size_t a = 0; a < s->mesh->n_axes; a++)
		if (c->pending >> a & 1)
			ax[k++] = (int8_t)a;
	c->pending = 0;
	if (k)
		add_move(s, *moves, &n, SYM_COMM_ALL_REDUCE, ax, k, -1, -1, c);
	for (size_t d = 0; d < s->p->rank; d++)
		if (c->n[d] > s->pre[d]) {
			size_t m = c->n[d] - s->pre[d];

			c->n[d] = s->pre[d];
			add_move(s, *moves, &n, SYM_COMM_ALL_GATHER,
			    &c->ax[d][s->pre[d]], m, (int)d, -1, c);
		}
	for (size_t d = 0; d < s->p->rank; d++)
		if (s->p->n_to[d] > s->pre[d]) {
			size_t m = s->p->n_to[d] - s->pre[d];

			memcpy(&c->ax[d][s->pre[d]], &s->p->to[d][s->pre[d]], m);
			c->n[d] = s->p->n_to[d];
			add_move(s, *moves, &n, SYM_COMM_SLICE,
			    &c->ax[d][s->pre[d]], m, -1, (int)d, c);
		}
	*n_moves = n;
	return 0;
}

/* Set up the prefixes, active dimensions and target of "s"; return 0 or
 * -1. */
static int
setup(struct search *s)
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
	s->goal = encode(s->mesh->n_axes, p->rank, p->n_to, p->to, 0);
	return 0;
}

/* Release what "s" holds. */
static void
search_clear(struct search *s)
{
	free(s->pre);
	free(s->active);
	free(s->cur.n);
	free(s->cur.ax);
	free(s->nxt.n);
	free(s->nxt.ax);
	free(s->node);
	free(s->table);
	free(s->heap);
}

/* Run the search of "s" from its first node; return the id of the goal,
 * -2 when the search gave up, or -1 on error. */
static int32_t
run(struct search *s)
{
	struct qent e = { 0, 0, 0, 0, 0 };

	if (push(s, e) < 0)
		return -1;
	while (pop(s, &e) == 0) {
		struct snode *n = &s->node[e.id];

		if (n->closed)
			continue;
		n->closed = 1;
		if (memcmp(&n->key, &s->goal, sizeof(s->goal)) == 0)
			return e.id;
		if (expand(s, e.id) < 0)
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
	struct search s;
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
	if (setup(&s) < 0)
		goto out;
	start = encode(s.mesh->n_axes, p->rank, p->n_from, p->from,
	    p->pending);
	if (lookup(&s, &start, 1) != 0)
		goto out;
	s.node[0].reached = 1;
	goal = run(&s);
	if (goal >= 0)
		r = path(&s, goal, moves, n_moves);
	else if (goal == -2)
		r = fallback(&s, moves, n_moves);
out:
	search_clear(&s);
	return r;
}
