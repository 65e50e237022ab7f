/* SPDX-License-Identifier: MIT */
/*
 * One step of a redistribution on the local blocks of one rank, done
 * generically with boxes: every rank's block under a layout is a box of
 * the global tensor, and each kind of step moves the parts where the
 * boxes before and after the step meet:
 *
 *  - slice: my box after lies inside my box before (a strided copy);
 *  - all_gather: the members' boxes before tile my box after;
 *  - all_to_all: I send member j my box before cut by j's box after and
 *    receive j's box before cut by mine after, equal chunks;
 *  - permute: the members exchange whole blocks, matched by their boxes;
 *  - all_reduce: partial sums added over the group, boxes unchanged;
 *  - reduce_scatter: member j receives the sum of every member's part in
 *    its box after;
 *  - broadcast: every member gets the block of group rank 0.
 *
 * Partial axes never move a box. Chunks are packed and unpacked with
 * strided box copies, skipped when a chunk is already contiguous where
 * the collective wants it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_private.h"
#include "kern/kern_private.h"

/* Write the printf-style "fmt" into "err" ("size" bytes; may be NULL);
 * return SYM__XSTEP_ERR. */
static int __attribute__((format(printf, 3, 4)))
xfail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!err || !size)
		return SYM__XSTEP_ERR;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return SYM__XSTEP_ERR;
}

/* Store in "split" the blocks of every one of the "ndim" dimensions of
 * "l" (NULL: whole) and in "blk" those rank "rank" holds; return 0, or
 * -1 when "l" does not fit. */
static int
blocks_of(const sym_layout *l, size_t ndim, int64_t rank, int64_t *split,
    int64_t *blk)
{
	if (l && sym_layout_ndim(l) != ndim)
		return -1;
	for (size_t d = 0; d < ndim; d++) {
		split[d] = l ? sym_layout_dim_splits(l, d) : 1;
		blk[d] = l ? sym_layout_block(l, rank, d) : 0;
		if (split[d] < 1 || blk[d] < 0 || blk[d] >= split[d])
			return -1;
	}
	return 0;
}

/* Return the box "a" of "ndim" dimensions equals "b". */
static int
box_equal(const struct sym__box *a, const struct sym__box *b, int ndim)
{
	for (int d = 0; d < ndim; d++)
		if (a->off[d] != b->off[d] || a->ext[d] != b->ext[d])
			return 0;
	return 1;
}

/* Return 1 when box "in" lies inside box "out" ("ndim" dimensions). */
static int
box_inside(const struct sym__box *in, const struct sym__box *out, int ndim)
{
	for (int d = 0; d < ndim; d++)
		if (in->off[d] < out->off[d] ||
		    in->off[d] + in->ext[d] > out->off[d] + out->ext[d])
			return 0;
	return 1;
}

/* Store in "r" the intersection of boxes "a" and "b" ("ndim"
 * dimensions); return its number of elements (0 when they do not
 * meet). */
static int64_t
box_meet(const struct sym__box *a, const struct sym__box *b, int ndim,
    struct sym__box *r)
{
	int64_t n = 1;

	for (int d = 0; d < ndim; d++) {
		int64_t lo = a->off[d] > b->off[d] ? a->off[d] : b->off[d];
		int64_t ea = a->off[d] + a->ext[d], eb = b->off[d] + b->ext[d];
		int64_t hi = ea < eb ? ea : eb;

		r->off[d] = lo;
		r->ext[d] = hi > lo ? hi - lo : 0;
		n *= r->ext[d];
	}
	return n;
}

/* Return the number of elements of box "b" ("ndim" dimensions). */
static int64_t
box_volume(const struct sym__box *b, int ndim)
{
	int64_t n = 1;

	for (int d = 0; d < ndim; d++)
		n *= b->ext[d];
	return n;
}

/* Return the element offset of box "b" in the row-major container box
 * "c" when its elements are contiguous there, else -1 ("ndim"
 * dimensions). */
static int64_t
box_contiguous(const struct sym__box *b, const struct sym__box *c, int ndim)
{
	int64_t off = 0, stride = 1;
	int whole = 1;

	for (int d = ndim - 1; d >= 0; d--) {
		if (!whole && b->ext[d] > 1)
			return -1;
		if (b->ext[d] != c->ext[d])
			whole = 0;
		off += (b->off[d] - c->off[d]) * stride;
		stride *= c->ext[d];
	}
	return off;
}

/*
 * Copy box "box" of elements of "es" bytes from "src", which holds the
 * box "sbox" row-major, to "dst", which holds "dbox"; "box" lies inside
 * both ("ndim" dimensions, at most SYM__MAX_RANK). Innermost contiguous
 * runs are copied with memcpy.
 */
void
sym__box_copy(void *dst, const struct sym__box *dbox, const void *src,
    const struct sym__box *sbox, const struct sym__box *box, int ndim,
    size_t es)
{
	int64_t ds[SYM__MAX_RANK], ss[SYM__MAX_RANK];
	int64_t dof = 0, sof = 0, dst_n = 1, src_n = 1;

	for (int d = ndim - 1; d >= 0; d--) {
		ds[d] = dst_n;
		ss[d] = src_n;
		dof += (box->off[d] - dbox->off[d]) * dst_n;
		sof += (box->off[d] - sbox->off[d]) * src_n;
		dst_n *= dbox->ext[d];
		src_n *= sbox->ext[d];
	}
	sym__kcopy((char *)dst + dof * (int64_t)es, ds,
	    (const char *)src + sof * (int64_t)es, ss, es, ndim, box->ext);
}

/* Free what "x" holds and clear it (a cleared step may be cleared
 * again). */
void
sym__xstep_clear(struct sym__xstep *x)
{
	if (!x)
		return;
	free(x->own);
	memset(x, 0, sizeof(*x));
}

/* Free the buffers of "s" and clear it. */
void
sym__xscratch_clear(struct sym__xscratch *s)
{
	if (!s)
		return;
	free(s->send);
	free(s->recv);
	free(s->members);
	memset(s, 0, sizeof(*s));
}

/* Return the communicator rank of member "j" of the group of "x". */
static int64_t
member(const struct sym__xstep *x, int j)
{
	return x->own
	    ? x->own[j]
	    : sym_redist_step_group_rank(x->r, x->step, x->k, (size_t)j);
}

/* Store in "blk" the block indices of member "j" of "x" before
 * ("after" 0) or after the step (checked by sym__xstep_init). */
static void
member_blocks(const struct sym__xstep *x, int j, int after, int64_t *blk)
{
	int64_t split[SYM__MAX_RANK];

	blocks_of(after ? x->after : x->before, (size_t)x->ndim, member(x, j),
	    split, blk);
}

/* Store in "b" the box of member "j" of "x" before ("after" 0) or after
 * the step for a tensor of "nd" (x->ndim) global sizes "global". */
static void
member_box(const struct sym__xstep *x, int nd, int j, int after,
    const int64_t *global, struct sym__box *b)
{
	const int64_t *split = after ? x->asplit : x->bsplit;
	int64_t blk[SYM__MAX_RANK];

	member_blocks(x, j, after, blk);
	for (int d = 0; d < nd; d++) {
		b->ext[d] = global[d] / split[d];
		b->off[d] = blk[d] * b->ext[d];
	}
}

/*
 * Return the communicator ranks of the group of "x" in group order: the
 * caller's list, or one made in the buffer of "s"; NULL when memory runs
 * out.
 */
const int *
sym__xstep_group(const struct sym__xstep *x, struct sym__xscratch *s)
{
	int *g;

	if (x->own)
		return x->own;
	if (sym__kbuf_grow(&s->members, &s->members_cap, &s->grows,
	        (size_t)x->n * sizeof(int)) < 0)
		return NULL;
	g = s->members;
	for (int j = 0; j < x->n; j++)
		g[j] = (int)member(x, j);
	return g;
}

/* Return 1 when the groups of "a" and "b" have the same ranks in the
 * same order. */
int
sym__xstep_same_group(const struct sym__xstep *a, const struct sym__xstep *b)
{
	if (a->n != b->n)
		return 0;
	for (int j = 0; j < a->n; j++)
		if (member(a, j) != member(b, j))
			return 0;
	return 1;
}

/* Return 1 when member "j" of "x" holds the same block before as member
 * "k" after the step. */
static int
same_block(const struct sym__xstep *x, int j, int k)
{
	int64_t bj[SYM__MAX_RANK], ak[SYM__MAX_RANK];

	member_blocks(x, j, 0, bj);
	member_blocks(x, k, 1, ak);
	for (int d = 0; d < x->ndim; d++)
		if (x->bsplit[d] != x->asplit[d] || bj[d] != ak[d])
			return 0;
	return 1;
}

/* Pair the members of the permute "x": each member takes the block of a
 * member holding before what it holds after, itself when it can, else
 * the first such member not taken (every rank computes the same
 * matching); set x->dest and x->source. Return 0, or -1 when some member
 * finds no block or memory runs out. */
static int
pair_permute(struct sym__xstep *x)
{
	int *from = calloc(2 * (size_t)x->n, sizeof(*from)), *taken;

	if (!from)
		return -1;
	taken = from + x->n;
	for (int j = 0; j < x->n; j++) {
		taken[j] = same_block(x, j, j);
		from[j] = taken[j] ? j : -1;
	}
	for (int j = 0; j < x->n; j++) {
		if (from[j] >= 0)
			continue;
		for (int k = 0; k < x->n && from[j] < 0; k++)
			if (!taken[k] && same_block(x, k, j)) {
				taken[k] = 1;
				from[j] = k;
			}
		if (from[j] < 0) {
			free(from);
			return -1;
		}
	}
	x->source = from[x->me] == x->me ? SYM_COMM_NONE : from[x->me];
	x->dest = SYM_COMM_NONE;
	for (int j = 0; j < x->n; j++)
		if (from[j] == x->me && j != x->me)
			x->dest = j;
	free(from);
	return 0;
}

/*
 * Finish preparing "x", whose kind, dimensions, layouts, group ("n"
 * members: "own" or "r", "step", "k") and rank are set: the blocks of
 * every dimension, the caller's place in the group, every member's
 * blocks checked, a permute's pairs. Return 0, or SYM__XSTEP_ERR with a
 * message in "err" ("err_size" bytes) and "x" cleared.
 */
static int
prepare(struct sym__xstep *x, char *err, size_t err_size)
{
	const char *kind = sym_redist_kind_name(x->kind);
	int64_t blk[SYM__MAX_RANK];

	x->me = -1;
	x->dest = x->source = SYM_COMM_NONE;
	for (int j = 0; j < x->n; j++) {
		int64_t rank = member(x, j);

		if (rank < 0 || rank > INT32_MAX ||
		    blocks_of(x->before, (size_t)x->ndim, rank, x->bsplit,
		        blk) < 0 ||
		    blocks_of(x->after, (size_t)x->ndim, rank, x->asplit, blk) <
		        0) {
			sym__xstep_clear(x);
			return xfail(err, err_size,
			    "%s: no block of rank %lld under the layouts of "
			    "the step",
			    kind, (long long)rank);
		}
		if (rank == x->rank)
			x->me = j;
	}
	if (x->me < 0) {
		int64_t rank = x->rank;

		sym__xstep_clear(x);
		return xfail(err, err_size, "%s: rank %lld is not in its group",
		    kind, (long long)rank);
	}
	if (x->kind == SYM_REDIST_PERMUTE && pair_permute(x) < 0) {
		sym__xstep_clear(x);
		return xfail(err, err_size,
		    "permute: the blocks of the group before and after the "
		    "step do not match one to one");
	}
	return 0;
}

/*
 * Prepare in "x" step "kind" from layout "before" to layout "after"
 * (either NULL: whole on every rank; both borrowed while "x" is used)
 * of a tensor of "ndim" dimensions (at most SYM__MAX_RANK) for rank
 * "rank", member of the group "group" ("n" ranks in group order,
 * copied). Return 0, or SYM__XSTEP_ERR with a message in "err"
 * ("err_size" bytes) and "x" cleared.
 */
int
sym__xstep_init(struct sym__xstep *x, sym_redist_kind kind,
    const sym_layout *before, const sym_layout *after, size_t ndim,
    const int64_t *group, int n, int64_t rank, char *err, size_t err_size)
{
	memset(x, 0, sizeof(*x));
	if (ndim > SYM__MAX_RANK)
		return xfail(err, err_size,
		    "%s: tensors of %zu dimensions (at most %d)",
		    sym_redist_kind_name(kind), ndim, SYM__MAX_RANK);
	if (n < 1 || !group)
		return xfail(err, err_size, "%s: empty group",
		    sym_redist_kind_name(kind));
	x->kind = kind;
	x->ndim = (int)ndim;
	x->n = n;
	x->rank = rank;
	x->before = before;
	x->after = after;
	x->own = malloc((size_t)n * sizeof(*x->own));
	if (!x->own)
		return xfail(err, err_size, "%s: out of memory",
		    sym_redist_kind_name(kind));
	for (int j = 0; j < n; j++) {
		if (group[j] < 0 || group[j] > INT32_MAX) {
			sym__xstep_clear(x);
			return xfail(err, err_size,
			    "%s: no block of rank %lld under the layouts of "
			    "the step",
			    sym_redist_kind_name(kind), (long long)group[j]);
		}
		x->own[j] = (int)group[j];
	}
	return prepare(x, err, err_size);
}

/*
 * Prepare in "x" step "i" of "r" for rank "rank" of a tensor of "ndim"
 * dimensions, laid out by "before" before the step (the layout after
 * step i - 1, or the layout the redistribution starts from); "r" and
 * "before" are borrowed while "x" is used. Return 0, or SYM__XSTEP_ERR
 * with a message in "err" ("err_size" bytes).
 */
int
sym__xstep_from_redist(struct sym__xstep *x, const sym_redist *r, size_t i,
    const sym_layout *before, size_t ndim, int64_t rank, char *err,
    size_t err_size)
{
	size_t size = 0, ng;
	sym_redist_kind kind;

	memset(x, 0, sizeof(*x));
	if (!r || i >= sym_redist_n_steps(r))
		return xfail(err, err_size, "no step %zu in the redistribution",
		    i);
	kind = sym_redist_step_kind(r, i);
	if (ndim > SYM__MAX_RANK)
		return xfail(err, err_size,
		    "%s: tensors of %zu dimensions (at most %d)",
		    sym_redist_kind_name(kind), ndim, SYM__MAX_RANK);
	ng = sym_redist_step_groups(r, i, &size);
	if (size < 1 || size > INT32_MAX)
		return xfail(err, err_size, "step %zu: groups of %zu ranks", i,
		    size);
	for (size_t k = 0; k < ng; k++)
		for (size_t j = 0; j < size; j++) {
			if (sym_redist_step_group_rank(r, i, k, j) != rank)
				continue;
			x->kind = kind;
			x->ndim = (int)ndim;
			x->n = (int)size;
			x->rank = rank;
			x->r = r;
			x->step = i;
			x->k = k;
			x->before = before;
			x->after = sym_redist_step_layout(r, i);
			return prepare(x, err, err_size);
		}
	return xfail(err, err_size, "%s: rank %lld is in no group of the step",
	    sym_redist_kind_name(kind), (long long)rank);
}

/* Make "*buf" (of capacity "*cap") hold at least "bytes", counting a
 * new allocation in "*grows" (sym__kbuf_grow); return it, or NULL when
 * memory runs out. */
static void *
reserve(void **buf, size_t *cap, size_t *grows, size_t bytes)
{
	return sym__kbuf_grow(buf, cap, grows, bytes) < 0 ? NULL : *buf;
}

/* The sizes and boxes of one run of a step. */
struct run {
	const struct sym__xstep *x;
	sym_comm_endpoint *ep;
	const int *group; /* the communicator ranks of x's members */
	const int64_t *global;
	sym_dtype dt;
	size_t es;
	const void *in;
	void *out;
	struct sym__xscratch *s;
	char *err;
	size_t err_size;
	int nd;                        /* x->ndim */
	struct sym__box before, after; /* mine */
};

/* Return the result "r" of a call of the communicator. */
static int
comm_result(int r)
{
	return r < 0 ? SYM__XSTEP_COMM_ERR : 0;
}

/* Run a slice: copy my box after from my box before. */
static int
run_slice(struct run *r)
{
	int nd = r->nd;

	if (!box_inside(&r->after, &r->before, nd))
		return xfail(r->err, r->err_size,
		    "slice: the block of rank %lld after the step is not "
		    "inside its block before",
		    (long long)r->x->rank);
	sym__box_copy(r->out, &r->after, r->in, &r->before, &r->after, nd,
	    r->es);
	return 0;
}

/* Return 1 when every member's box before of the all_gather "r" lies
 * contiguous at its place in my box after (received in place). */
static int
gather_direct(const struct run *r)
{
	int64_t vol = box_volume(&r->before, r->nd);
	struct sym__box b;
	int direct = 1;

	for (int j = 0; j < r->x->n; j++) {
		member_box(r->x, r->nd, j, 0, r->global, &b);
		direct &= box_contiguous(&b, &r->after, r->nd) == j * vol;
	}
	return direct;
}

/* Run an all_gather: every member's box before, placed in my box after
 * (which they tile). */
static int
run_all_gather(struct run *r)
{
	const struct sym__xstep *x = r->x;
	int nd = r->nd, direct;
	int64_t vol = box_volume(&r->before, nd), total = 0;
	size_t bytes = (size_t)vol * r->es;
	struct sym__box b;
	char *recv;

	for (int j = 0; j < x->n; j++) {
		member_box(x, r->nd, j, 0, r->global, &b);
		if (!box_inside(&b, &r->after, nd))
			return xfail(r->err, r->err_size,
			    "all_gather: the block of rank %d before the step "
			    "is not inside the block of rank %lld after it",
			    r->group[j], (long long)x->rank);
		total += vol;
	}
	direct = gather_direct(r);
	if (total != box_volume(&r->after, nd))
		return xfail(r->err, r->err_size,
		    "all_gather: the blocks of the group do not tile the "
		    "block of rank %lld after the step",
		    (long long)x->rank);
	if (direct)
		return comm_result(sym_comm_all_gather(r->ep, r->group, x->n,
		    r->in, r->out, bytes));
	recv = reserve(&r->s->recv, &r->s->recv_cap, &r->s->grows,
	    bytes * (size_t)x->n);
	if (!recv)
		return xfail(r->err, r->err_size, "all_gather: out of memory");
	if (sym_comm_all_gather(r->ep, r->group, x->n, r->in, recv, bytes) < 0)
		return SYM__XSTEP_COMM_ERR;
	for (int j = 0; j < x->n; j++) {
		member_box(x, r->nd, j, 0, r->global, &b);
		sym__box_copy(r->out, &r->after, recv + (size_t)j * bytes, &b,
		    &b, nd, r->es);
	}
	return 0;
}

/* Store in "c" the chunk of member "j" of "r"'s step: my box before cut
 * by j's box after ("send" 1), or j's box before cut by my box after;
 * return its number of elements. */
static int64_t
chunk(const struct run *r, int j, int send, struct sym__box *c)
{
	struct sym__box b;

	member_box(r->x, r->nd, j, send, r->global, &b);
	return box_meet(send ? &r->before : &b, send ? &b : &r->after, r->nd,
	    c);
}

/* Return 1 when every chunk of "r" ("send" as for chunk) of "vol"
 * elements lies contiguous at its place j * vol in my block before
 * ("send" 1) or after; set "*bad" to a member whose chunk has not "vol"
 * elements (else leave it). */
static int
chunks_direct(const struct run *r, int send, int64_t vol, int *bad)
{
	const struct sym__box *mine = send ? &r->before : &r->after;
	struct sym__box c;
	int direct = 1;

	for (int j = 0; j < r->x->n; j++) {
		if (chunk(r, j, send, &c) != vol)
			*bad = j;
		direct &= box_contiguous(&c, mine, r->nd) == j * vol;
	}
	return direct;
}

/* Pack (send 1: from my block before into "buf") or unpack (send 0:
 * from "buf" into my block after) the chunks of "r", "vol" elements
 * each. */
static void
pack(const struct run *r, int send, char *buf, int64_t vol)
{
	size_t bytes = (size_t)vol * r->es;
	struct sym__box c;

	for (int j = 0; j < r->x->n; j++) {
		chunk(r, j, send, &c);
		if (send)
			sym__box_copy(buf + (size_t)j * bytes, &c, r->in,
			    &r->before, &c, r->nd, r->es);
		else
			sym__box_copy(r->out, &r->after,
			    buf + (size_t)j * bytes, &c, &c, r->nd, r->es);
	}
}

/* Run an all_to_all: member j gets my box before cut by its box after;
 * I get its box before cut by mine after; equal chunks. */
static int
run_all_to_all(struct run *r)
{
	const struct sym__xstep *x = r->x;
	int64_t vol = box_volume(&r->before, r->nd) / x->n;
	size_t bytes = (size_t)vol * r->es;
	int bad = -1, dsend, drecv;
	const void *send = r->in;
	void *recv = r->out;

	dsend = chunks_direct(r, 1, vol, &bad);
	drecv = chunks_direct(r, 0, vol, &bad);
	if (bad >= 0 || vol * x->n != box_volume(&r->after, r->nd))
		return xfail(r->err, r->err_size,
		    "all_to_all: the blocks of ranks %lld and %d do not "
		    "exchange equal chunks",
		    (long long)x->rank, r->group[bad >= 0 ? bad : 0]);
	if (!dsend) {
		send = reserve(&r->s->send, &r->s->send_cap, &r->s->grows,
		    bytes * (size_t)x->n);
		if (!send)
			return xfail(r->err, r->err_size,
			    "all_to_all: out of memory");
		pack(r, 1, (char *)send, vol);
	}
	if (!drecv &&
	    !(recv = reserve(&r->s->recv, &r->s->recv_cap, &r->s->grows,
	          bytes * (size_t)x->n)))
		return xfail(r->err, r->err_size, "all_to_all: out of memory");
	if (sym_comm_all_to_all(r->ep, r->group, x->n, send, recv, bytes) < 0)
		return SYM__XSTEP_COMM_ERR;
	if (!drecv)
		pack(r, 0, recv, vol);
	return 0;
}

/* Run a permute: send my block to the member that takes it, receive
 * mine from the member that holds it (or keep it). */
static int
run_permute(struct run *r)
{
	const struct sym__xstep *x = r->x;
	int64_t vol = box_volume(&r->before, r->nd);
	size_t bytes = (size_t)vol * r->es;

	if (vol != box_volume(&r->after, r->nd))
		return xfail(r->err, r->err_size,
		    "permute: rank %lld holds blocks of different sizes "
		    "before and after the step",
		    (long long)x->rank);
	if (x->source == SYM_COMM_NONE)
		memcpy(r->out, r->in, bytes);
	return comm_result(sym_comm_permute(r->ep, r->group, x->n, r->in,
	    r->out, bytes, x->dest, x->source));
}

/* Return the dtype the communicator reduces elements of "dt" as: the
 * storage of the executor (f32 for floating dtypes, f64 kept, int32 for
 * integers), or SYM_DT_INVALID (bool). */
sym_dtype
sym__exec_reduce_dtype(sym_dtype dt)
{
	switch (sym__kst(dt)) {
	case SYM__KST_F32:
		return SYM_DT_F32;
	case SYM__KST_F64:
		return SYM_DT_F64;
	case SYM__KST_I32:
		return SYM_DT_I32;
	default:
		return SYM_DT_INVALID;
	}
}

/* Run an all_reduce or a reduce_scatter: the partial sums of the group
 * added, all of them ("scatter" 0) or member j's box after to member
 * j; integer sums wrap to the width of their dtype, as the kernels'. */
static int
run_reduce(struct run *r, int scatter)
{
	const struct sym__xstep *x = r->x;
	const char *name = scatter ? "reduce_scatter" : "all_reduce";
	sym_dtype rdt = sym__exec_reduce_dtype(r->dt);
	int64_t vol = box_volume(&r->after, r->nd);
	int bad = -1, rc;
	const void *send = r->in;

	if (rdt == SYM_DT_INVALID)
		return xfail(r->err, r->err_size,
		    "%s: partial sums of %s cannot be added", name,
		    sym_dtype_name(r->dt));
	if (!scatter) {
		if (!box_equal(&r->before, &r->after, r->nd))
			return xfail(r->err, r->err_size,
			    "all_reduce: rank %lld holds different blocks "
			    "before and after the step",
			    (long long)x->rank);
		rc = comm_result(sym_comm_all_reduce(r->ep, r->group, x->n,
		    r->in, r->out, vol, rdt, SYM_REDUCE_SUM));
		if (rc == 0)
			sym__kwrap(r->out, r->dt, vol);
		return rc;
	}
	if (!chunks_direct(r, 1, vol, &bad)) {
		send = reserve(&r->s->send, &r->s->send_cap, &r->s->grows,
		    (size_t)vol * r->es * (size_t)x->n);
		if (!send)
			return xfail(r->err, r->err_size,
			    "reduce_scatter: out of memory");
		if (bad < 0)
			pack(r, 1, (char *)send, vol);
	}
	if (bad >= 0 || vol * x->n != box_volume(&r->before, r->nd))
		return xfail(r->err, r->err_size,
		    "reduce_scatter: the block of rank %lld before the step "
		    "is not cut into the blocks of the group after it",
		    (long long)x->rank);
	rc = comm_result(sym_comm_reduce_scatter(r->ep, r->group, x->n, send,
	    r->out, vol, rdt, SYM_REDUCE_SUM));
	if (rc == 0)
		sym__kwrap(r->out, r->dt, vol);
	return rc;
}

/*
 * Store in "*send", "*recv" and "*members" the bytes of the buffers of a
 * struct sym__xscratch that a run of step "x" (sym__xstep_run) takes on
 * a tensor of global sizes "global" and dtype "dt", 0 for a buffer it
 * does not take: the packed blocks of an all_gather, an all_to_all or a
 * reduce_scatter whose chunks do not lie in place, and the list of the
 * group's ranks. All 0 for a step that would fail. The executor grows
 * its buffers to these before the run, so that the run grows none.
 */
void
sym__xstep_scratch(const struct sym__xstep *x, const int64_t *global,
    sym_dtype dt, size_t *send, size_t *recv, size_t *members)
{
	struct run r = { .x = x, .global = global, .dt = dt };
	int64_t vol;
	int bad = -1;

	*send = *recv = *members = 0;
	r.es = sym__tensor_elem_size(dt);
	if (x->ndim < 0 || x->ndim > SYM__MAX_RANK || x->me < 0 || !r.es ||
	    x->n < 1)
		return;
	for (int d = 0; d < x->ndim; d++)
		if (global[d] < 0 || global[d] % x->bsplit[d] ||
		    global[d] % x->asplit[d])
			return;
	r.nd = x->ndim;
	member_box(x, r.nd, x->me, 0, global, &r.before);
	member_box(x, r.nd, x->me, 1, global, &r.after);
	*members = x->own ? 0 : (size_t)x->n * sizeof(int);
	switch (x->kind) {
	case SYM_REDIST_ALL_GATHER:
		if (!gather_direct(&r))
			*recv = (size_t)box_volume(&r.before, r.nd) * r.es *
			    (size_t)x->n;
		break;
	case SYM_REDIST_ALL_TO_ALL:
		vol = box_volume(&r.before, r.nd) / x->n;
		if (!chunks_direct(&r, 1, vol, &bad))
			*send = (size_t)vol * r.es * (size_t)x->n;
		if (!chunks_direct(&r, 0, vol, &bad))
			*recv = (size_t)vol * r.es * (size_t)x->n;
		break;
	case SYM_REDIST_REDUCE_SCATTER:
		vol = box_volume(&r.after, r.nd);
		if (!chunks_direct(&r, 1, vol, &bad))
			*send = (size_t)vol * r.es * (size_t)x->n;
		break;
	default:
		break;
	}
}

/*
 * Pack this rank's block before the reduce_scatter "x" of a tensor of
 * global sizes "global" (elements of "es" bytes, at "in") for a fused
 * bucket (exec_fuse.c): the chunk of member j, row-major in j's block
 * after, goes to "buf" + j * "stride" bytes. Return the elements of one
 * chunk, or -1 when the step is not prepared or my block before is not
 * cut into the group's blocks after.
 */
int64_t
sym__xstep_scatter_pack(const struct sym__xstep *x, const int64_t *global,
    size_t es, const void *in, char *buf, size_t stride)
{
	struct run r;
	struct sym__box c;
	int64_t vol;

	if (x->kind != SYM_REDIST_REDUCE_SCATTER || x->ndim < 0 ||
	    x->ndim > SYM__MAX_RANK || x->me < 0 || !es)
		return -1;
	memset(&r, 0, sizeof(r));
	r.x = x;
	r.global = global;
	r.es = es;
	r.in = in;
	r.nd = x->ndim;
	for (int d = 0; d < r.nd; d++)
		if (global[d] < 0 || global[d] % x->bsplit[d] ||
		    global[d] % x->asplit[d])
			return -1;
	member_box(x, r.nd, x->me, 0, global, &r.before);
	member_box(x, r.nd, x->me, 1, global, &r.after);
	vol = box_volume(&r.after, r.nd);
	if (vol * x->n != box_volume(&r.before, r.nd))
		return -1;
	for (int j = 0; j < x->n; j++)
		if (chunk(&r, j, 1, &c) != vol)
			return -1;
	for (int j = 0; j < x->n; j++) {
		chunk(&r, j, 1, &c);
		sym__box_copy(buf + (size_t)j * stride, &c, in, &r.before, &c,
		    r.nd, es);
	}
	return vol;
}

/* Run a broadcast: the root copies its box after from its block before,
 * then sends it to every member, whose box after must be the same. */
static int
run_broadcast(struct run *r)
{
	const struct sym__xstep *x = r->x;
	struct sym__box rb, ra;

	member_box(x, r->nd, x->root, 0, r->global, &rb);
	member_box(x, r->nd, x->root, 1, r->global, &ra);
	if (!box_equal(&ra, &r->after, r->nd) || !box_inside(&ra, &rb, r->nd))
		return xfail(r->err, r->err_size,
		    "broadcast: rank %lld does not get a block that rank %d "
		    "holds",
		    (long long)x->rank, r->group[x->root]);
	if (x->me == x->root)
		sym__box_copy(r->out, &r->after, r->in, &r->before, &r->after,
		    r->nd, r->es);
	return comm_result(sym_comm_broadcast(r->ep, r->group, x->n, r->out,
	    (size_t)box_volume(&r->after, r->nd) * r->es, x->root));
}

/* Run the prepared step of "r"; return as sym__xstep_run. */
static int
run_kind(struct run *r)
{
	switch (r->x->kind) {
	case SYM_REDIST_SLICE:
		return run_slice(r);
	case SYM_REDIST_ALL_GATHER:
		return run_all_gather(r);
	case SYM_REDIST_ALL_TO_ALL:
		return run_all_to_all(r);
	case SYM_REDIST_PERMUTE:
		return run_permute(r);
	case SYM_REDIST_ALL_REDUCE:
		return run_reduce(r, 0);
	case SYM_REDIST_REDUCE_SCATTER:
		return run_reduce(r, 1);
	case SYM_REDIST_BROADCAST:
		return run_broadcast(r);
	case SYM_REDIST_INVALID:
		break;
	}
	return xfail(r->err, r->err_size, "unknown step kind %d",
	    (int)r->x->kind);
}

/* Return "rc"; when it is this rank's own failure of a step that
 * communicates, first call a barrier on the step's group ("group", the
 * ranks of the members of "x") through "ep": the members waiting in the
 * step's collective then fail at once (the collectives differ) instead
 * of waiting for this rank, and when every member failed alike the
 * barrier just passes. */
static int
release(const struct sym__xstep *x, const int *group, sym_comm_endpoint *ep,
    int rc)
{
	if (rc == SYM__XSTEP_ERR && ep && group && x->kind != SYM_REDIST_SLICE)
		sym_comm_barrier(ep, group, x->n);
	return rc;
}

/*
 * Run the step "x" through "ep" for a tensor of global sizes "global"
 * (x->ndim of them, each divisible by its blocks) of elements of "dt"
 * (stored as in struct sym__tensor): read this rank's block before the
 * step from "in", write its block after the step to "out" (distinct
 * buffers), packing in the buffers of "s". Return 0; SYM__XSTEP_ERR with
 * a message in "err" ("err_size" bytes), after releasing the other
 * members (see release); or SYM__XSTEP_COMM_ERR, the error on the
 * endpoint's context.
 */
int
sym__xstep_run(const struct sym__xstep *x, sym_comm_endpoint *ep,
    const int64_t *global, sym_dtype dt, const void *in, void *out,
    struct sym__xscratch *s, char *err, size_t err_size)
{
	struct run r;

	r.x = x;
	r.ep = ep;
	r.global = global;
	r.dt = dt;
	r.es = sym__tensor_elem_size(dt);
	r.in = in;
	r.out = out;
	r.s = s;
	r.err = err;
	r.err_size = err_size;
	if (x->ndim < 0 || x->ndim > SYM__MAX_RANK || x->me < 0)
		return xfail(err, err_size, "%s: the step is not prepared",
		    sym_redist_kind_name(x->kind));
	r.group = sym__xstep_group(x, s);
	if (!r.group)
		return xfail(err, err_size,
		    "%s: out of memory for a group of %d ranks",
		    sym_redist_kind_name(x->kind), x->n);
	if (!r.es)
		return release(x, r.group, ep,
		    xfail(err, err_size, "%s: invalid dtype",
		        sym_redist_kind_name(x->kind)));
	for (int d = 0; d < x->ndim; d++)
		if (global[d] < 0 || global[d] % x->bsplit[d] ||
		    global[d] % x->asplit[d])
			return release(x, r.group, ep,
			    xfail(err, err_size,
			        "%s: dimension %d of size %lld is not cut into "
			        "%lld and %lld equal blocks",
			        sym_redist_kind_name(x->kind), d,
			        (long long)global[d], (long long)x->bsplit[d],
			        (long long)x->asplit[d]));
	r.nd = x->ndim;
	member_box(x, r.nd, x->me, 0, global, &r.before);
	member_box(x, r.nd, x->me, 1, global, &r.after);
	return release(x, r.group, ep, run_kind(&r));
}
