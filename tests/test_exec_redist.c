/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's redistribution steps on local blocks
 * (lib/exec/exec_redist.c, internal: this program links the convenience
 * library): strided box copies; a property test that plans random pairs
 * of layouts on random meshes of up to 8 ranks, runs every step on every
 * rank of a threads communicator and checks that each rank ends with its
 * block of the global tensor under the target layout (partial sums
 * included), for every kind of step the planner makes and several
 * element types; the broadcast; errors of the step and of the
 * communicator.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <symshard.h>

#include "exec/exec_private.h"
#include "testlib.h"

#define MAX_RANKS 8
#define MAX_DIMS 3
/* Return 1 when the environment asks for a lighter run
 * (SYMSHARD_EXEC_LIGHT=1, set by make check-valgrind, where BLAS is
 * hundreds of times slower): fewer random cases, no transformer. */
static int
light(void)
{
	const char *v = getenv("SYMSHARD_EXEC_LIGHT");

	return v && *v && strcmp(v, "0") != 0;
}

/* ---- Elements ---------------------------------------------------------- */

/* Store "v" as element "i" of "buf" of dtype "dt" (f32, f64, i32,
 * bool). */
static void
put(void *buf, sym_dtype dt, int64_t i, int64_t v)
{
	switch (dt) {
	case SYM_DT_F32:
		((float *)buf)[i] = (float)v;
		break;
	case SYM_DT_F64:
		((double *)buf)[i] = (double)v;
		break;
	case SYM_DT_BOOL:
		((uint8_t *)buf)[i] = (uint8_t)v;
		break;
	default:
		((int32_t *)buf)[i] = (int32_t)v;
		break;
	}
}

/* Return element "i" of "buf" of dtype "dt" as an integer. */
static int64_t
get(const void *buf, sym_dtype dt, int64_t i)
{
	switch (dt) {
	case SYM_DT_F32:
		return (int64_t)((const float *)buf)[i];
	case SYM_DT_F64:
		return (int64_t)((const double *)buf)[i];
	case SYM_DT_BOOL:
		return ((const uint8_t *)buf)[i];
	default:
		return ((const int32_t *)buf)[i];
	}
}

/* Return the value of the global element "gi" for dtype "dt". */
static int64_t
global_value(sym_dtype dt, int64_t gi)
{
	return dt == SYM_DT_BOOL ? gi & 0xff : gi;
}

/* Return the share "k" of "p" of the value "v": small numbers, the last
 * making the sum "v". */
static int64_t
share(int64_t v, int64_t k, int64_t p)
{
	int64_t sum = 0;

	if (k < p - 1)
		return (v + 3 * k) % 5 - 2;
	for (int64_t j = 0; j < p - 1; j++)
		sum += (v + 3 * j) % 5 - 2;
	return v - sum;
}

/* ---- Box copies -------------------------------------------------------- */

/* Check sym__box_copy on a box of a 3-d tensor between two containers,
 * and on contiguous and single-element boxes. */
static void
test_box_copy(void **state)
{
	struct sym__box src = { { 2, 0, 4 }, { 4, 3, 5 } };
	struct sym__box dst = { { 3, 1, 5 }, { 2, 2, 4 } };
	struct sym__box box = { { 3, 1, 5 }, { 2, 2, 3 } };
	struct sym__box one = { { 4, 2, 8 }, { 1, 1, 1 } };
	int32_t s[60], d[16];

	(void)state;
	for (int i = 0; i < 60; i++)
		s[i] = i;
	memset(d, 0xff, sizeof(d));
	sym__box_copy(d, &dst, s, &src, &box, 3, 4);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			for (int k = 0; k < 4; k++) {
				int32_t want = k < 3
				    ? ((1 + i) * 3 + (1 + j)) * 5 + 1 + k
				    : -1;

				assert_int_equal(d[(i * 2 + j) * 4 + k], want);
			}
	sym__box_copy(d, &dst, s, &src, &one, 3, 4);
	assert_int_equal(d[(1 * 2 + 1) * 4 + 3], (2 * 3 + 2) * 5 + 4);
	/* Whole rows: one memcpy. */
	memset(d, 0, sizeof(d));
	struct sym__box rows = { { 0, 0, 0 }, { 1, 3, 5 } };
	struct sym__box whole = { { 0, 0, 0 }, { 4, 3, 5 } };
	struct sym__box at1 = { { 1, 0, 0 }, { 1, 3, 5 } };

	sym__box_copy(d, &rows, s, &whole, &rows, 3, 4);
	for (int i = 0; i < 15; i++)
		assert_int_equal(d[i], i);
	sym__box_copy(d, &at1, s, &whole, &at1, 3, 4);
	for (int i = 0; i < 15; i++)
		assert_int_equal(d[i], 15 + i);
}

/* ---- The property test ------------------------------------------------- */

/* A case: a tensor of "dims" global sizes "shape" of "dt", laid out by
 * "from" on "n" ranks and redistributed by "r" to "to"; every rank's
 * block (its share of the partial sums) before and after. */
struct rcase {
	size_t dims;
	int64_t shape[MAX_DIMS];
	sym_dtype dt;
	int n;
	const sym_layout *from, *to;
	const sym_redist *r;
	void *block[MAX_RANKS];
	size_t steps_run[MAX_RANKS];
};

/* Return the number of elements of the blocks of "l" for "c". */
static int64_t
block_numel(const struct rcase *c, const sym_layout *l)
{
	int64_t n = 1;

	for (size_t d = 0; d < c->dims; d++)
		n *= c->shape[d] / sym_layout_dim_splits(l, d);
	return n;
}

/* Return a new zeroed block of "l" for "c". */
static void *
new_block(const struct rcase *c, const sym_layout *l)
{
	return calloc((size_t)block_numel(c, l) ? (size_t)block_numel(c, l) : 1,
	    sym__tensor_elem_size(c->dt));
}

/* Store in "off"/"ext" the box of rank "r" under "l" for "c". */
static void
box_of(const struct rcase *c, const sym_layout *l, int64_t r, int64_t *off,
    int64_t *ext)
{
	for (size_t d = 0; d < c->dims; d++) {
		ext[d] = c->shape[d] / sym_layout_dim_splits(l, d);
		off[d] = sym_layout_block(l, r, d) * ext[d];
	}
}

/* Return the row-major global index of the element "i" of the box
 * "off"/"ext" of "c". */
static int64_t
global_index(const struct rcase *c, const int64_t *off, const int64_t *ext,
    int64_t i)
{
	int64_t idx[MAX_DIMS] = { 0 }, g = 0;

	for (size_t d = c->dims; d-- > 0;) {
		idx[d] = i % ext[d];
		i /= ext[d];
	}
	for (size_t d = 0; d < c->dims; d++)
		g = g * c->shape[d] + off[d] + idx[d];
	return g;
}

/* Store in "k" and "p" the position of rank "r" in its group of partial
 * sums under "l" (mixed radix of its coordinates along the partial
 * axes) and the group's size. */
static void
partial_of(const sym_layout *l, int64_t r, int64_t *k, int64_t *p)
{
	const sym_mesh *m = sym_layout_mesh(l);
	int64_t co[SYM_MESH_MAX_AXES];

	assert_int_equal(sym_mesh_coords(m, r, co), 0);
	*k = 0;
	*p = 1;
	for (size_t a = 0; a < sym_mesh_n_axes(m); a++)
		if (sym_layout_is_partial(l, a)) {
			*k = *k * sym_mesh_axis_size(m, a) + co[a];
			*p *= sym_mesh_axis_size(m, a);
		}
}

/* Return 1 when ranks "a" and "b" have the same coordinates along the
 * axes of the mesh of "l" that are not partial. */
static int
same_partial_group(const sym_layout *l, int64_t a, int64_t b)
{
	const sym_mesh *m = sym_layout_mesh(l);
	int64_t ca[SYM_MESH_MAX_AXES], cb[SYM_MESH_MAX_AXES];

	assert_int_equal(sym_mesh_coords(m, a, ca), 0);
	assert_int_equal(sym_mesh_coords(m, b, cb), 0);
	for (size_t i = 0; i < sym_mesh_n_axes(m); i++)
		if (!sym_layout_is_partial(l, i) && ca[i] != cb[i])
			return 0;
	return 1;
}

/* Run every step of the case "arg" on rank "m", its block replaced by
 * the block after each step; return 0 or -1. */
static int
run_case_rank(struct tl_member *m, void *arg)
{
	struct rcase *c = arg;
	struct sym__xscratch s = { 0 };
	const sym_layout *before = c->from;
	char err[256];
	int ret = 0;

	for (size_t i = 0; i < sym_redist_n_steps(c->r) && ret == 0; i++) {
		const sym_layout *after = sym_redist_step_layout(c->r, i);
		struct sym__xstep x;
		void *out;
		int rc;

		if (sym__xstep_from_redist(&x, c->r, i, before, c->dims,
		        m->rank, err, sizeof(err)) < 0)
			return tl_failed(m, "step %zu: %s", i, err);
		out = new_block(c, after);
		if (!out) {
			sym__xstep_clear(&x);
			return tl_failed(m, "out of memory");
		}
		rc = sym__xstep_run(&x, m->ep, c->shape, c->dt,
		    c->block[m->rank], out, &s, err, sizeof(err));
		sym__xstep_clear(&x);
		if (rc == SYM__XSTEP_COMM_ERR)
			ret = tl_failed(m, "step %zu: %s", i,
			    sym_ctx_last_message(m->ctx));
		else if (rc < 0)
			ret = tl_failed(m, "step %zu: %s", i, err);
		free(c->block[m->rank]);
		c->block[m->rank] = out;
		before = after;
		c->steps_run[m->rank]++;
	}
	sym__xscratch_clear(&s);
	return ret;
}

/* Fill the blocks of "c" under c->from: each rank's share of the global
 * tensor whose elements are their global index. */
static void
fill_from(struct rcase *c)
{
	int64_t off[MAX_DIMS], ext[MAX_DIMS], k, p;
	int64_t n = block_numel(c, c->from);

	for (int r = 0; r < c->n; r++) {
		c->block[r] = new_block(c, c->from);
		assert_non_null(c->block[r]);
		box_of(c, c->from, r, off, ext);
		partial_of(c->from, r, &k, &p);
		for (int64_t i = 0; i < n; i++)
			put(c->block[r], c->dt, i,
			    share(global_value(c->dt,
			              global_index(c, off, ext, i)),
			        k, p));
	}
}

/* Check that the blocks of "c" are those of c->to: for every rank, the
 * sum over the ranks that hold partial sums of its block under c->to
 * (itself alone when c->to has none) is its block of the global
 * tensor; describe the case with "what" on failure. */
static void
check_to(const struct rcase *c, const char *what)
{
	int64_t off[MAX_DIMS], ext[MAX_DIMS];
	int64_t n = block_numel(c, c->to);

	for (int r = 0; r < c->n; r++) {
		box_of(c, c->to, r, off, ext);
		for (int64_t i = 0; i < n; i++) {
			int64_t want = global_value(c->dt,
			            global_index(c, off, ext, i)),
			        got = 0;

			for (int q = 0; q < c->n; q++)
				if (same_partial_group(c->to, r, q))
					got += get(c->block[q], c->dt, i);
			if (got != want)
				fail_msg("%s: rank %d element %lld: got %lld, "
				         "want %lld",
				    what, r, (long long)i, (long long)got,
				    (long long)want);
		}
	}
}

/* A pseudo-random generator. */
struct rng {
	uint64_t s;
};

/* Return a pseudo-random number below "n" from "g". */
static int64_t
rnd(struct rng *g, int64_t n)
{
	g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int64_t)((g->s >> 33) % (uint64_t)n);
}

/* Return a random mesh of up to 3 axes over "n" devices (0: any number
 * up to MAX_RANKS), listing its ranks in the order "ranks" (NULL: the
 * identity). */
static sym_mesh *
random_mesh(sym_ctx *ctx, struct rng *g, int64_t n, const int64_t *ranks)
{
	static const int64_t sizes[] = { 2, 2, 2, 4, 3, 1 };
	int64_t size[3], p[3], total = 1;
	size_t k = 0, np = 0;

	if (n == 0) {
		while (k < 3 && (k == 0 || rnd(g, 4))) {
			int64_t s = sizes[rnd(g, 6)];

			if (total * s > MAX_RANKS)
				break;
			size[k++] = s;
			total *= s;
		}
		return sym_mesh_new(ctx, k, size, NULL, 0, NULL);
	}
	/* The prime factors of n (at most 3 of them up to 8), shuffled and
	 * grouped into axes. */
	for (int64_t left = n, f = 2; left > 1;)
		if (left % f == 0) {
			p[np++] = f;
			left /= f;
		} else
			f++;
	for (size_t i = np; i > 1; i--) {
		size_t j = (size_t)rnd(g, (int64_t)i);
		int64_t t = p[i - 1];

		p[i - 1] = p[j];
		p[j] = t;
	}
	for (size_t i = 0; i < np;) {
		int64_t s = p[i++];

		while (i < np && rnd(g, 2))
			s *= p[i++];
		size[k++] = s;
	}
	if (k == 0)
		size[k++] = 1;
	return sym_mesh_new(ctx, k, size, NULL, ranks ? (size_t)n : 0, ranks);
}

/* Store in "perm" a random permutation of "n" ranks. */
static void
random_ranks(struct rng *g, int64_t n, int64_t *perm)
{
	for (int64_t i = 0; i < n; i++)
		perm[i] = i;
	for (int64_t i = n; i > 1; i--) {
		int64_t j = rnd(g, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

/* Return a random layout over "m" of a tensor of "dims" dimensions,
 * partial only over axes in "may_partial"; store its partial axes in
 * "*partial". */
static sym_layout *
random_layout(struct rng *g, sym_mesh *m, size_t dims, uint32_t may_partial,
    uint32_t *partial)
{
	int ax[MAX_DIMS][SYM_MESH_MAX_AXES], pa[SYM_MESH_MAX_AXES];
	const int *rows[MAX_DIMS];
	size_t n[MAX_DIMS] = { 0 }, np = 0;

	*partial = 0;
	for (size_t a = 0; a < sym_mesh_n_axes(m); a++) {
		int64_t c = rnd(g, (int64_t)dims + 2);
		size_t pos;

		if (c == 0)
			continue;
		if (c == 1) {
			if (may_partial >> a & 1) {
				pa[np++] = (int)a;
				*partial |= UINT32_C(1) << a;
			}
			continue;
		}
		c -= 2;
		pos = (size_t)rnd(g, (int64_t)n[c] + 1);
		memmove(&ax[c][pos + 1], &ax[c][pos],
		    (n[c] - pos) * sizeof(ax[c][0]));
		ax[c][pos] = (int)a;
		n[c]++;
	}
	for (size_t d = 0; d < dims; d++)
		rows[d] = ax[d];
	return sym_layout_new(m, dims, n, rows, np, pa);
}

/* Run one random case of the property test on "t"; count the kinds of
 * its steps in "kinds" and the cases of each dtype in "dts". */
static void
random_case(struct tl_team *t, struct rng *g, size_t *kinds, size_t *dts)
{
	static const sym_dtype types[] = { SYM_DT_F32, SYM_DT_I32, SYM_DT_F32,
		SYM_DT_I32, SYM_DT_F64, SYM_DT_BOOL };
	sym_ctx *ctx = t->ctx;
	sym_mesh *ma, *mb;
	sym_layout *la, *lb;
	sym_expr *dims[MAX_DIMS];
	sym_shape *shape;
	sym_redist *r;
	uint32_t pa, pb;
	int64_t perm[MAX_RANKS];
	struct rcase c;
	int same;
	char *what;

	memset(&c, 0, sizeof(c));
	ma = random_mesh(ctx, g, 0, NULL);
	assert_non_null(ma);
	c.n = (int)sym_mesh_n_devices(ma);
	random_ranks(g, c.n, perm);
	same = rnd(g, 3) != 0;
	mb = same ? sym_mesh_copy(ma)
	          : random_mesh(ctx, g, c.n, rnd(g, 2) ? perm : NULL);
	assert_non_null(mb);
	c.dims = 1 + (size_t)rnd(g, MAX_DIMS);
	for (size_t d = 0; d < c.dims; d++) {
		c.shape[d] = c.n * (1 + rnd(g, 2));
		dims[d] = sym_expr_const(ctx, c.shape[d]);
	}
	shape = sym_shape_new(ctx, SYM_DT_F32, c.dims, dims);
	for (size_t d = 0; d < c.dims; d++)
		sym_expr_free(dims[d]);
	la = random_layout(g, ma, c.dims, ~UINT32_C(0), &pa);
	lb = random_layout(g, mb, c.dims, same ? pa : 0, &pb);
	assert_non_null(la);
	assert_non_null(lb);
	c.dt = types[rnd(g, pa ? 5 : 6)];
	r = sym_redist_plan(la, lb, shape, NULL);
	if (!r)
		fail_msg("no plan: %s", sym_ctx_last_message(ctx));
	c.from = la;
	c.to = lb;
	c.r = r;
	what = sym_redist_to_str(r);
	assert_non_null(what);
	fill_from(&c);
	tl_team_run(t, c.n, run_case_rank, &c);
	for (int k = 0; k < c.n; k++)
		assert_int_equal(c.steps_run[k], sym_redist_n_steps(r));
	check_to(&c, what);
	for (size_t i = 0; i < sym_redist_n_steps(r); i++)
		kinds[sym_redist_step_kind(r, i)]++;
	dts[c.dt]++;
	for (int k = 0; k < c.n; k++)
		free(c.block[k]);
	free(what);
	sym_redist_free(r);
	sym_layout_free(la);
	sym_layout_free(lb);
	sym_shape_free(shape);
	sym_mesh_free(ma);
	sym_mesh_free(mb);
}

/* The property test: random layouts of random shapes on random meshes of
 * up to 8 ranks; every step of every plan run on every rank leaves each
 * rank with its block of the target layout. */
static void
test_redist_property(void **state)
{
	struct tl_team t;
	struct rng g = { 20260517u };
	size_t kinds[SYM_REDIST_BROADCAST + 1] = { 0 };
	size_t dts[SYM_DT_BOOL + 1] = { 0 };
	size_t cases = light() ? 200 : 1000;

	(void)state;
	tl_team_init(&t, MAX_RANKS, 20000);
	for (size_t i = 0; i < cases; i++)
		random_case(&t, &g, kinds, dts);
	printf("# redistribution steps run:");
	for (int k = 0; k <= SYM_REDIST_BROADCAST; k++)
		printf(" %s %zu", sym_redist_kind_name((sym_redist_kind)k),
		    kinds[k]);
	printf("\n");
	/* The planner makes every kind but broadcast (test_broadcast). */
	for (int k = 0; k < SYM_REDIST_BROADCAST; k++)
		if (!kinds[k])
			fail_msg("no %s step in %zu cases",
			    sym_redist_kind_name((sym_redist_kind)k), cases);
	assert_true(dts[SYM_DT_F32] > 0 && dts[SYM_DT_I32] > 0 &&
	    dts[SYM_DT_F64] > 0 && dts[SYM_DT_BOOL] > 0);
	tl_team_clear(&t);
}

/* ---- Broadcast and errors ---------------------------------------------- */

/* A step every rank of a team prepares from "before" to "after" on its
 * group along the last axis of a 2 x 4 mesh, for a [4, 8] tensor whose
 * elements are their index; "got" says what each rank's run returned
 * and its message. */
struct bcase {
	sym_redist_kind kind;
	sym_dtype dt;
	const sym_layout *before, *after;
	int64_t global[2];
	int64_t global1[2]; /* rank 1's sizes when they differ */
	int got[MAX_RANKS];
	char msg[MAX_RANKS][256];
	int32_t out[MAX_RANKS][32];
};

/* Run the step of the case "arg" on rank "m": rank 0 of each group
 * starts with its block before the step, the others with -1; return 0
 * or -1. */
static int
run_bcase_rank(struct tl_member *m, void *arg)
{
	struct bcase *c = arg;
	struct sym__xscratch s = { 0 };
	struct sym__xstep x;
	int64_t group[4], base = m->rank / 4 * 4, off[2], ext[2];
	const int64_t *global =
	    m->rank == 1 && c->global1[0] ? c->global1 : c->global;
	int32_t in[32];

	for (int j = 0; j < 4; j++)
		group[j] = base + j;
	if (sym__xstep_init(&x, c->kind, c->before, c->after, 2, group, 4,
	        m->rank, c->msg[m->rank], sizeof(c->msg[0])) < 0)
		return tl_failed(m, "init: %s", c->msg[m->rank]);
	for (int d = 0; d < 2; d++) {
		ext[d] =
		    global[d] / sym_layout_dim_splits(c->before, (size_t)d);
		off[d] =
		    sym_layout_block(c->before, m->rank, (size_t)d) * ext[d];
	}
	for (int i = 0; i < 32; i++)
		in[i] = m->rank % 4
		    ? -1
		    : (int32_t)((off[0] + i / ext[1]) * global[1] + off[1] +
		          i % ext[1]);
	memset(c->out[m->rank], 0, sizeof(c->out[0]));
	c->got[m->rank] = sym__xstep_run(&x, m->ep, global, c->dt, in,
	    c->out[m->rank], &s, c->msg[m->rank], sizeof(c->msg[0]));
	if (c->got[m->rank] == SYM__XSTEP_COMM_ERR)
		snprintf(c->msg[m->rank], sizeof(c->msg[0]), "%s",
		    sym_ctx_last_message(m->ctx));
	sym__xstep_clear(&x);
	sym__xscratch_clear(&s);
	return 0;
}

/* Broadcast from group rank 0: every member ends with its block, which
 * only the root held; a broadcast of a block the root does not hold
 * fails on every member without communicating. */
static void
test_broadcast(void **state)
{
	static const int64_t size[] = { 2, 4 };
	struct tl_team t;
	sym_mesh *m;
	sym_layout *rows, *tiles;
	struct bcase c;

	(void)state;
	tl_team_init(&t, MAX_RANKS, 20000);
	m = sym_mesh_new(t.ctx, 2, size, NULL, 0, NULL);
	rows = sym_layout_parse(m, "(a0, None)", NULL);
	tiles = sym_layout_parse(m, "(a0, a1)", NULL);
	assert_non_null(rows);
	assert_non_null(tiles);
	memset(&c, 0, sizeof(c));
	c.kind = SYM_REDIST_BROADCAST;
	c.dt = SYM_DT_I32;
	c.before = c.after = rows;
	c.global[0] = 4;
	c.global[1] = 8;
	tl_team_run(&t, MAX_RANKS, run_bcase_rank, &c);
	for (int r = 0; r < MAX_RANKS; r++) {
		assert_int_equal(c.got[r], 0);
		for (int i = 0; i < 16; i++)
			assert_int_equal(c.out[r][i], r / 4 * 16 + i);
	}
	/* The root holds a quarter of what the members want. */
	c.before = tiles;
	tl_team_run(&t, MAX_RANKS, run_bcase_rank, &c);
	for (int r = 0; r < MAX_RANKS; r++) {
		assert_int_equal(c.got[r], SYM__XSTEP_ERR);
		assert_non_null(strstr(c.msg[r], "does not get a block"));
	}
	sym_layout_free(rows);
	sym_layout_free(tiles);
	sym_mesh_free(m);
	tl_team_clear(&t);
}

/* Errors of a step: blocks that do not fit the kind of step, sizes not
 * cut evenly, partial sums of bool, ranks outside the group; and the
 * communicator's error when members disagree on the sizes. */
static void
test_step_errors(void **state)
{
	static const int64_t size[] = { 2, 4 };
	static const int64_t all[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct tl_team t;
	sym_mesh *m;
	sym_layout *rx, *ry, *rep;
	struct sym__xstep x;
	struct sym__xscratch s = { 0 };
	struct bcase c;
	int64_t g48[] = { 4, 8 }, g58[] = { 5, 8 };
	int32_t in[64], out[64];
	char err[256];

	(void)state;
	tl_team_init(&t, MAX_RANKS, 20000);
	m = sym_mesh_new(t.ctx, 2, size, NULL, 0, NULL);
	rx = sym_layout_parse(m, "(a0, None)", NULL);
	ry = sym_layout_parse(m, "(a1, None)", NULL);
	rep = sym_layout_parse(m, "(None, None)", NULL);
	assert_non_null(rx);
	assert_non_null(ry);
	assert_non_null(rep);
	memset(in, 0, sizeof(in));
	/* Rank 5 is in the lower half under rx but holds row 1 under ry. */
	assert_int_equal(sym__xstep_init(&x, SYM_REDIST_SLICE, rx, ry, 2,
	                     all + 5, 1, 5, err, sizeof(err)),
	    0);
	assert_int_equal(sym__xstep_run(&x, NULL, g48, SYM_DT_F32, in, out, &s,
	                     err, sizeof(err)),
	    SYM__XSTEP_ERR);
	assert_string_equal(err,
	    "slice: the block of rank 5 after the step is not inside its "
	    "block before");
	assert_int_equal(sym__xstep_run(&x, NULL, g58, SYM_DT_F32, in, out, &s,
	                     err, sizeof(err)),
	    SYM__XSTEP_ERR);
	assert_string_equal(err,
	    "slice: dimension 0 of size 5 is not cut into 2 and 4 equal "
	    "blocks");
	sym__xstep_clear(&x);
	assert_int_equal(sym__xstep_init(&x, SYM_REDIST_ALL_REDUCE, rep, rep, 2,
	                     all + 4, 4, 4, err, sizeof(err)),
	    0);
	assert_int_equal(sym__xstep_run(&x, NULL, g48, SYM_DT_BOOL, in, out, &s,
	                     err, sizeof(err)),
	    SYM__XSTEP_ERR);
	assert_string_equal(err,
	    "all_reduce: partial sums of bool cannot be added");
	sym__xstep_clear(&x);
	assert_int_equal(sym__xstep_init(&x, SYM_REDIST_ALL_GATHER, rx, rep, 2,
	                     all, 4, 5, err, sizeof(err)),
	    SYM__XSTEP_ERR);
	assert_string_equal(err, "all_gather: rank 5 is not in its group");
	assert_int_equal(sym__xstep_init(&x, SYM_REDIST_PERMUTE, rx, ry, 2, all,
	                     8, 0, err, sizeof(err)),
	    SYM__XSTEP_ERR);
	assert_string_equal(err,
	    "permute: the blocks of the group before and after the step do "
	    "not match one to one");
	assert_int_equal(sym__xstep_init(&x, SYM_REDIST_SLICE, rx, rx, 9, all,
	                     8, 0, err, sizeof(err)),
	    SYM__XSTEP_ERR);
	assert_string_equal(err, "slice: tensors of 9 dimensions (at most 8)");
	/* Every member gathers along a1, but rank 1 has other sizes: the
	 * communicator reports the mismatch on every member. */
	memset(&c, 0, sizeof(c));
	c.kind = SYM_REDIST_ALL_GATHER;
	c.dt = SYM_DT_I32;
	c.before = sym_layout_parse(m, "(None, a1)", NULL);
	c.after = rep;
	assert_non_null(c.before);
	c.global[0] = 2;
	c.global[1] = 8;
	c.global1[0] = 1;
	c.global1[1] = 8;
	tl_team_run(&t, 4, run_bcase_rank, &c);
	for (int r = 0; r < 4; r++) {
		assert_int_equal(c.got[r], SYM__XSTEP_COMM_ERR);
		if (!strstr(c.msg[r], "bytes"))
			fail_msg("rank %d: '%s'", r, c.msg[r]);
	}
	/* Rank 1's sizes are not cut evenly: it fails by itself and
	 * releases the others, which fail at once instead of waiting. */
	c.global1[0] = 2;
	c.global1[1] = 6;
	tl_team_run(&t, 4, run_bcase_rank, &c);
	assert_int_equal(c.got[1], SYM__XSTEP_ERR);
	assert_string_equal(c.msg[1],
	    "all_gather: dimension 1 of size 6 is not cut into 4 and 1 equal "
	    "blocks");
	for (int r = 0; r < 4; r++) {
		if (r == 1)
			continue;
		assert_int_equal(c.got[r], SYM__XSTEP_COMM_ERR);
		if (!strstr(c.msg[r], "barrier"))
			fail_msg("rank %d: '%s'", r, c.msg[r]);
	}
	sym_layout_free((sym_layout *)c.before);
	sym__xscratch_clear(&s);
	sym_layout_free(rx);
	sym_layout_free(ry);
	sym_layout_free(rep);
	sym_mesh_free(m);
	tl_team_clear(&t);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_copy),
		cmocka_unit_test(test_redist_property),
		cmocka_unit_test(test_broadcast),
		cmocka_unit_test(test_step_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
