/*
 * Unit tests of the executor. The steps of redistributions on local
 * blocks (lib/exec/exec_redist.c, compiled into this program): strided
 * box copies; a property test that plans random pairs of layouts on
 * random meshes of up to 8 ranks, runs every step on every rank of a
 * threads communicator and checks that each rank ends with its block of
 * the global tensor under the target layout (partial sums included), for
 * every kind of step the planner makes and several element types; the
 * broadcast; errors of the step and of the communicator.
 *
 * The executor through its API: the examples' graphs on 8 threads
 * (sym_exec_check, several bindings on one plan) agree with the single
 * device; a corrupted plan is caught; a binding the graph forbids runs
 * nothing; a rank that fails, or never starts, does not hang the others;
 * buffers are kept across bindings; inputs are deterministic and within
 * what indexes with them.
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

/* Check that every object handed out by "ctx" was released, then free
 * "ctx". */
static void
finish(sym_ctx *ctx)
{
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* ---- Threads: one per rank --------------------------------------------- */

struct team;

/* One rank's thread: its context (kept across runs), its handle while
 * it runs, its first failure. */
struct member {
	struct team *team;
	int rank;
	sym_ctx *ctx;
	sym_comm_endpoint *ep;
	char err[512];
};

/* The ranks 0 .. n - 1 of a threads communicator of MAX_RANKS ranks, each
 * running "fn" in its own thread. */
struct team {
	sym_communicator *comm;
	sym_ctx *ctx;
	int n;
	int (*fn)(struct member *m, void *arg);
	void *arg;
	struct member m[MAX_RANKS];
};

/* Record the failure of "m" from "fmt" unless one is recorded; return
 * -1. */
static int __attribute__((format(printf, 2, 3)))
failed(struct member *m, const char *fmt, ...)
{
	va_list ap;

	if (m->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Run the rank "p" (a struct member): attach, the team's function,
 * detach; return NULL. */
static void *
member_main(void *p)
{
	struct member *m = p;

	m->ep = sym_comm_attach(m->team->comm, m->rank, m->ctx);
	if (!m->ep) {
		failed(m, "rank %d: attach: %s", m->rank,
		    sym_ctx_last_message(m->ctx));
		return NULL;
	}
	m->team->fn(m, m->team->arg);
	sym_comm_detach(m->ep);
	m->ep = NULL;
	return NULL;
}

/* Set up "t": a threads communicator of MAX_RANKS ranks (collectives
 * time out after 20 s) and a context per rank. */
static void
team_init(struct team *t)
{
	memset(t, 0, sizeof(*t));
	t->ctx = sym_ctx_new();
	assert_non_null(t->ctx);
	t->comm = sym_comm_threads_new(t->ctx, MAX_RANKS);
	assert_non_null(t->comm);
	assert_int_equal(sym_comm_set_option(t->comm, SYM_COMM_OPT_TIMEOUT_MS,
	                     20000),
	    0);
	for (int r = 0; r < MAX_RANKS; r++) {
		t->m[r].team = t;
		t->m[r].rank = r;
		t->m[r].ctx = sym_ctx_new();
		assert_non_null(t->m[r].ctx);
	}
}

/* Release what "t" holds. */
static void
team_clear(struct team *t)
{
	for (int r = 0; r < MAX_RANKS; r++)
		finish(t->m[r].ctx);
	sym_comm_free(t->comm);
	finish(t->ctx);
}

/* Run "fn" with "arg" on ranks 0 .. n - 1 of "t" and wait for them;
 * fail with the first failure of a rank. */
static void
team_run(struct team *t, int n, int (*fn)(struct member *, void *), void *arg)
{
	pthread_t th[MAX_RANKS];

	t->n = n;
	t->fn = fn;
	t->arg = arg;
	for (int r = 0; r < n; r++) {
		t->m[r].err[0] = '\0';
		assert_int_equal(pthread_create(&th[r], NULL, member_main,
		                     &t->m[r]),
		    0);
	}
	for (int r = 0; r < n; r++)
		pthread_join(th[r], NULL);
	for (int r = 0; r < n; r++)
		if (t->m[r].err[0])
			fail_msg("rank %d: %s", r, t->m[r].err);
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
run_case_rank(struct member *m, void *arg)
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
			return failed(m, "step %zu: %s", i, err);
		out = new_block(c, after);
		if (!out) {
			sym__xstep_clear(&x);
			return failed(m, "out of memory");
		}
		rc = sym__xstep_run(&x, m->ep, c->shape, c->dt,
		    c->block[m->rank], out, &s, err, sizeof(err));
		sym__xstep_clear(&x);
		if (rc == SYM__XSTEP_COMM_ERR)
			ret = failed(m, "step %zu: %s", i,
			    sym_ctx_last_message(m->ctx));
		else if (rc < 0)
			ret = failed(m, "step %zu: %s", i, err);
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
random_case(struct team *t, struct rng *g, size_t *kinds, size_t *dts)
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
	team_run(t, c.n, run_case_rank, &c);
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
	struct team t;
	struct rng g = { 20260517u };
	size_t kinds[SYM_REDIST_BROADCAST + 1] = { 0 };
	size_t dts[SYM_DT_BOOL + 1] = { 0 };
	size_t cases = light() ? 200 : 1000;

	(void)state;
	team_init(&t);
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
	team_clear(&t);
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
run_bcase_rank(struct member *m, void *arg)
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
		return failed(m, "init: %s", c->msg[m->rank]);
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
	struct team t;
	sym_mesh *m;
	sym_layout *rows, *tiles;
	struct bcase c;

	(void)state;
	team_init(&t);
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
	team_run(&t, MAX_RANKS, run_bcase_rank, &c);
	for (int r = 0; r < MAX_RANKS; r++) {
		assert_int_equal(c.got[r], 0);
		for (int i = 0; i < 16; i++)
			assert_int_equal(c.out[r][i], r / 4 * 16 + i);
	}
	/* The root holds a quarter of what the members want. */
	c.before = tiles;
	team_run(&t, MAX_RANKS, run_bcase_rank, &c);
	for (int r = 0; r < MAX_RANKS; r++) {
		assert_int_equal(c.got[r], SYM__XSTEP_ERR);
		assert_non_null(strstr(c.msg[r], "does not get a block"));
	}
	sym_layout_free(rows);
	sym_layout_free(tiles);
	sym_mesh_free(m);
	team_clear(&t);
}

/* Errors of a step: blocks that do not fit the kind of step, sizes not
 * cut evenly, partial sums of bool, ranks outside the group; and the
 * communicator's error when members disagree on the sizes. */
static void
test_step_errors(void **state)
{
	static const int64_t size[] = { 2, 4 };
	static const int64_t all[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct team t;
	sym_mesh *m;
	sym_layout *rx, *ry, *rep;
	struct sym__xstep x;
	struct sym__xscratch s = { 0 };
	struct bcase c;
	int64_t g48[] = { 4, 8 }, g58[] = { 5, 8 };
	int32_t in[64], out[64];
	char err[256];

	(void)state;
	team_init(&t);
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
	team_run(&t, 4, run_bcase_rank, &c);
	for (int r = 0; r < 4; r++) {
		assert_int_equal(c.got[r], SYM__XSTEP_COMM_ERR);
		if (!strstr(c.msg[r], "bytes"))
			fail_msg("rank %d: '%s'", r, c.msg[r]);
	}
	/* Rank 1's sizes are not cut evenly: it fails by itself and
	 * releases the others, which fail at once instead of waiting. */
	c.global1[0] = 2;
	c.global1[1] = 6;
	team_run(&t, 4, run_bcase_rank, &c);
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
	team_clear(&t);
}

/* ---- The executor ------------------------------------------------------ */

/* Return the contents of "path" (malloc'ed), failing the test when it
 * cannot be read. */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n = -1;

	if (!f)
		fail_msg("cannot open %s (set top_srcdir)", path);
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		fail_msg("cannot read %s", path);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A graph sharded and compiled twice (sharded and single), and a threads
 * communicator of as many ranks as the sharded plan. */
struct compiled {
	sym_ctx *ctx;
	sym_graph *g;
	sym_plan *p, *single;
	sym_communicator *comm;
};

/* Parse "text" (named "file"), shard and compile it into "c". */
static void
compile_text(struct compiled *c, const char *text, const char *file)
{
	memset(c, 0, sizeof(*c));
	c->ctx = sym_ctx_new();
	assert_non_null(c->ctx);
	c->g = sym_graph_parse(c->ctx, text, file);
	assert_non_null(c->g);
	if (sym_graph_n_errors(c->g) != 0)
		fail_msg("%s: %zu errors", file, sym_graph_n_errors(c->g));
	if (sym_graph_shard(c->g, NULL) != 0)
		fail_msg("%s: %s", file, sym_ctx_last_message(c->ctx));
	c->p = sym_plan_compile(c->g, 0);
	c->single = sym_plan_compile(c->g, SYM_PLAN_SINGLE);
	if (!c->p || !c->single)
		fail_msg("%s: %s", file, sym_ctx_last_message(c->ctx));
	c->comm = sym_comm_threads_new(c->ctx, (int)sym_plan_n_ranks(c->p));
	assert_non_null(c->comm);
	assert_int_equal(sym_comm_set_option(c->comm, SYM_COMM_OPT_TIMEOUT_MS,
	                     20000),
	    0);
}

/* Compile examples/"name".sg into "c". */
static void
compile_example(struct compiled *c, const char *name)
{
	const char *top = getenv("top_srcdir");
	char path[4096], file[64], *text;

	snprintf(path, sizeof(path), "%s/examples/%s.sg", top ? top : ".",
	    name);
	snprintf(file, sizeof(file), "%s.sg", name);
	text = slurp(path);
	compile_text(c, text, file);
	free(text);
}

/* Release what "c" holds and check that nothing else is left. */
static void
compiled_clear(struct compiled *c)
{
	sym_comm_free(c->comm);
	sym_plan_free(c->p);
	sym_plan_free(c->single);
	sym_graph_free(c->g);
	finish(c->ctx);
}

/* What the progress callback saw. */
struct progress {
	size_t calls, last, n;
	int out_of_order;
};

/* The progress callback: count the calls of "arg" (a struct progress). */
static void
on_progress(void *arg, size_t step, size_t n_steps)
{
	struct progress *pr = arg;

	if (step != pr->calls)
		pr->out_of_order = 1;
	pr->calls++;
	pr->last = step;
	pr->n = n_steps;
}

/* Return a new binding of "c" parsed from "text". */
static sym_binding *
binding(struct compiled *c, const char *text)
{
	sym_binding *b = sym_binding_new(c->ctx);

	assert_non_null(b);
	if (sym_binding_parse(b, text, NULL) < 0)
		fail_msg("binding %s: %s", text, sym_ctx_last_message(c->ctx));
	return b;
}

/* Check "c" bound by "text" (seed 7) and return the report; fail unless
 * both runs ran, every rank-0 step was reported once and in order, and
 * no element differs beyond the default tolerance. */
static sym_exec_report
check_agrees(struct compiled *c, const char *text)
{
	sym_exec_options o = { .size = sizeof(o), .seed = 7 };
	struct progress pr = { 0 };
	sym_binding *b = binding(c, text);
	sym_exec_report r;

	o.progress = on_progress;
	o.progress_arg = &pr;
	if (sym_exec_check(c->p, c->single, c->comm, b, &o, &r, c->ctx) != 0)
		fail_msg("%s: %s", text, sym_ctx_last_message(c->ctx));
	sym_binding_free(b);
	if (r.n_mismatch != 0)
		fail_msg("%s: %lld mismatches, max |diff| %g at %s[%lld]", text,
		    (long long)r.n_mismatch, r.max_abs,
		    r.worst ? sym_value_name(r.worst) : "?",
		    (long long)r.worst_index);
	assert_int_equal(pr.calls, sym_plan_n_steps(c->p));
	assert_int_equal(pr.n, sym_plan_n_steps(c->p));
	assert_false(pr.out_of_order);
	assert_true(r.sharded_seconds > 0 && r.single_seconds > 0);
	printf("# %s: max |diff| %.3g, max rel %.3g, sharded %.3f ms, "
	       "single %.3f ms\n",
	    text, r.max_abs, r.max_rel, 1e3 * r.sharded_seconds,
	    1e3 * r.single_seconds);
	return r;
}

/* The network of examples/ffn.sg on 8 threads for three batch sizes on
 * one plan agrees with one device; b = 12 breaks divisor=8 and runs
 * nothing. */
static void
test_ffn(void **state)
{
	struct compiled c;
	struct progress pr = { 0 };
	sym_exec_options o = { .size = sizeof(o), .seed = 7 };
	sym_exec_report r;
	sym_binding *b;

	(void)state;
	compile_example(&c, "ffn");
	assert_int_equal(sym_plan_n_ranks(c.p), 8);
	check_agrees(&c, "b=8");
	check_agrees(&c, "b=64");
	r = check_agrees(&c, "b=40");
	assert_true(r.max_abs < 1e-3);
	b = binding(&c, "b=12");
	o.progress = on_progress;
	o.progress_arg = &pr;
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, &o, &r,
	                     c.ctx),
	    -1);
	assert_string_equal(sym_ctx_last_message(c.ctx),
	    "b = 12 violates divisor=8 declared at ffn.sg:3:8");
	assert_int_equal(pr.calls, 0);
	sym_binding_free(b);
	compiled_clear(&c);
}

/* The other examples agree with one device: the layout example (a
 * reduce_scatter), the tensor-parallel MLP (an all_reduce), a
 * Megatron-style block (two all_reduces) and a transformer block with
 * dynamic batch and sequence. */
static void
test_examples(void **state)
{
	struct compiled c;

	(void)state;
	compile_example(&c, "layout");
	check_agrees(&c, "");
	compiled_clear(&c);
	compile_example(&c, "tp_mlp");
	check_agrees(&c, "b=8");
	if (!light())
		check_agrees(&c, "b=24");
	compiled_clear(&c);
	compile_example(&c, "megatron");
	check_agrees(&c, "b=2, s=8");
	check_agrees(&c, "b=6, s=64");
	compiled_clear(&c);
	compile_example(&c, "transformer");
	if (light())
		printf("# transformer: compiled only (SYMSHARD_EXEC_LIGHT)\n");
	else
		check_agrees(&c, "b=8, s=128");
	compiled_clear(&c);
}

/* Strategies that need a permute, all_to_all over two axes, an
 * all_gather and a slice, and a mean over a split axis (partial means
 * resolved by an all_reduce). */
static const char moves[] = "devices 8\n"
                            "mesh m = (dp=2, mp=4)\n"
                            "symbol b divisor=8\n"
                            "input x : f32[b, 32]\n"
                            "a = relu(x) shard (m((dp, mp), None),)\n"
                            "p = relu(a) shard (m((mp, dp), None),)\n"
                            "c = relu(p) shard (m(None, (dp, mp)),)\n"
                            "d = exp(c) shard (m(dp, None),)\n"
                            "s = reduce_mean(d, axis=1) shard (m(dp, mp),)\n"
                            "output s\n";

/* Integer inputs that index: embedding ids (64 rows), labels for
 * one_hot (depth 16) and a gather (64 rows), a mean over a split axis. */
static const char indices[] = "devices 8\n"
                              "symbol b divisor=8\n"
                              "input ids : i32[b]\n"
                              "param table : f32[64, 16]\n"
                              "input lab : i32[b]\n"
                              "e = embedding(ids, table) shard ((8,), (1, 1))\n"
                              "h = one_hot(lab, depth=16)\n"
                              "g = gather(table, lab, axis=0)\n"
                              "m = mul(e, h)\n"
                              "n = add(m, g)\n"
                              "r = reduce_mean(n, axis=1) shard ((1, 8),)\n"
                              "output r\n";

/* Return 1 when step kind "k" of a communication occurs in "p". */
static int
has_comm(const sym_plan *p, sym_redist_kind k)
{
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *ps = sym_plan_get_step(p, i);

		if (ps->kind == SYM_PLAN_COMM && ps->comm == k)
			return 1;
	}
	return 0;
}

/* Graphs whose plans move data in every way the planner knows, and whose
 * integer inputs index tables and classes, agree with one device; the
 * integer inputs stay within what they index. */
static void
test_moves(void **state)
{
	struct compiled c;
	sym_exec *x;
	sym_slices *s;
	sym_binding *b;
	size_t bytes = 0;
	const int32_t *v;

	(void)state;
	compile_text(&c, moves, "moves.sg");
	assert_true(has_comm(c.p, SYM_REDIST_PERMUTE));
	assert_true(has_comm(c.p, SYM_REDIST_ALL_TO_ALL));
	assert_true(has_comm(c.p, SYM_REDIST_ALL_GATHER));
	assert_true(has_comm(c.p, SYM_REDIST_SLICE));
	assert_true(has_comm(c.p, SYM_REDIST_ALL_REDUCE));
	check_agrees(&c, "b=16");
	check_agrees(&c, "b=8");
	compiled_clear(&c);
	compile_text(&c, indices, "indices.sg");
	check_agrees(&c, "b=32");
	x = sym_exec_new(c.single, NULL, c.ctx);
	s = sym_slices_new(c.single);
	b = binding(&c, "b=64");
	assert_int_equal(sym_plan_bind(c.single, b, s), 0);
	assert_int_equal(sym_exec_prepare(x, s), 0);
	assert_int_equal(sym_exec_fill(x, 11), 0);
	v = sym_exec_data(x,
	    sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "ids")),
	    &bytes);
	assert_int_equal(bytes, 64 * 4);
	for (int i = 0; i < 64; i++)
		assert_true(v[i] >= 0 && v[i] < 64);
	v = sym_exec_data(x,
	    sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "lab")),
	    &bytes);
	for (int i = 0; i < 64; i++)
		assert_true(v[i] >= 0 && v[i] < 16);
	assert_int_equal(sym_exec_run(x), 0);
	sym_exec_free(x);
	sym_binding_free(b);
	sym_slices_free(s);
	compiled_clear(&c);
}

/* A small graph on 8 devices whose two unary operators take the same
 * shapes: the plan is corrupted by making the step of "a" run the kernel
 * of "n", and the check must see the difference. */
static const char two_unary[] = "devices 8\n"
                                "symbol b divisor=8\n"
                                "input x : f32[b, 16]\n"
                                "a = relu(x) shard ((8, 1),)\n"
                                "n = neg(x) shard ((8, 1),)\n"
                                "y = add(a, n)\n"
                                "output y\n";

/* Return the kernel step of "p" whose node produces "name". */
static sym_plan_step *
kernel_step(const sym_plan *p, const char *name)
{
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *ps = sym_plan_get_step(p, i);

		if (ps->kind == SYM_PLAN_KERNEL &&
		    !strcmp(sym_value_name(sym_node_output(ps->node, 0)), name))
			return (sym_plan_step *)ps;
	}
	fail_msg("no kernel step for %s", name);
	return NULL;
}

/* The comparison detects a difference: the corrupted plan mismatches
 * (every element where x > 0), the intact one does not. */
static void
test_detects(void **state)
{
	struct compiled c;
	sym_exec_options o = {
		.size = sizeof(o), .seed = 3, .rtol = 1e-6, .atol = 1e-7
	};
	sym_exec_report r;
	sym_binding *b;
	sym_plan_step *sa;
	const sym_node *keep;

	(void)state;
	compile_text(&c, two_unary, "two.sg");
	b = binding(&c, "b=16");
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, &o, &r,
	                     c.ctx),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	assert_true(r.max_abs == 0.0);
	sa = kernel_step(c.p, "a");
	keep = sa->node;
	sa->node = kernel_step(c.p, "n")->node;
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, &o, &r,
	                     c.ctx),
	    0);
	sa->node = keep;
	/* relu(x) + neg(x) is 0 or -x; neg(x) + neg(x) is -2x: they differ
	 * wherever x is not 0. */
	assert_true(r.n_mismatch > 16 * 16 * 9 / 10);
	assert_true(r.n_mismatch <= 16 * 16);
	assert_non_null(r.worst);
	assert_string_equal(sym_value_name(r.worst), "y");
	assert_true(r.max_abs > 0.5 && r.max_abs <= 2.0);
	assert_true(r.worst_index >= 0 && r.worst_index < 16 * 16);
	sym_binding_free(b);
	compiled_clear(&c);
}

/* Outputs that are infinite or NaN on both sides: x / (x - x) is +inf,
 * -inf or (where x is 0) NaN, the same on 2 ranks as on one. */
static const char infinities[] = "devices 2\n"
                                 "input x : f32[4, 2]\n"
                                 "z = sub(x, x)\n"
                                 "y = div(x, z) shard ((2, 1), (2, 1))\n"
                                 "n = div(z, z) shard ((2, 1), (2, 1))\n"
                                 "output y, n\n";

/* Equal infinities and NaNs on both sides agree: they used to count as
 * mismatches, inf - inf being NaN. */
static void
test_infinities(void **state)
{
	struct compiled c;
	sym_exec_report r;
	sym_binding *b;

	(void)state;
	compile_text(&c, infinities, "inf.sg");
	b = binding(&c, "");
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, NULL, &r,
	                     c.ctx),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	assert_true(r.max_abs == 0.0);
	assert_null(r.worst);
	assert_int_equal(r.worst_index, -1);
	sym_binding_free(b);
	compiled_clear(&c);
}

/* Options of an unknown size are refused with SYM_EINVAL by both checks
 * and nothing runs; a shorter structure (an older version's) leaves the
 * members it lacks at their defaults: the progress callback past its end
 * is never called, while the full structure's is. */
static void
test_options_size(void **state)
{
	static const size_t bad[] = { 0, sizeof(size_t) - 1,
		sizeof(sym_exec_options) + 1, SIZE_MAX };
	sym_exec_options o = SYM_EXEC_OPTIONS_INIT;
	struct progress pr = { 0 };
	sym_train_report tr;
	struct compiled c;
	sym_exec_report r;
	sym_binding *b;

	(void)state;
	compile_text(&c, infinities, "inf.sg");
	b = binding(&c, "");
	o.progress = on_progress;
	o.progress_arg = &pr;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.size = bad[i];
		sym_ctx_clear_error(c.ctx);
		assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, &o,
		                     &r, c.ctx),
		    -1);
		assert_int_equal(sym_ctx_last_error(c.ctx), SYM_EINVAL);
		assert_non_null(strstr(sym_ctx_last_message(c.ctx),
		    "check: options of an unknown size"));
		assert_non_null(strstr(sym_ctx_last_message(c.ctx),
		    "SYM_EXEC_OPTIONS_INIT"));
		sym_ctx_clear_error(c.ctx);
		assert_int_equal(sym_exec_train_check(c.p, c.single, c.comm,
		                     NULL, 0, &o, NULL, &tr, c.ctx),
		    -1);
		assert_int_equal(sym_ctx_last_error(c.ctx), SYM_EINVAL);
		assert_non_null(strstr(sym_ctx_last_message(c.ctx),
		    "train check: options of an unknown size"));
	}
	assert_int_equal(pr.calls, 0);
	o.size = offsetof(sym_exec_options, progress);
	sym_ctx_clear_error(c.ctx);
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, &o, &r,
	                     c.ctx),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	assert_int_equal(pr.calls, 0);
	o.size = sizeof(o);
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, &o, &r,
	                     c.ctx),
	    0);
	assert_int_equal(pr.calls, sym_plan_n_steps(c.p));
	sym_binding_free(b);
	compiled_clear(&c);
}

/* A rank of ffn whose labels are out of range fails its kernel with a
 * located message while the others finish without waiting for the
 * communicator's timeout. */
struct frank {
	struct compiled *c;
	sym_slices *s;
	int corrupt;
	int rc;
	char msg[512];
};

/* Run rank "m" of the ffn executor of "arg" (a struct frank), its labels
 * corrupted on rank arg->corrupt; return 0 or -1. */
static int
run_ffn_rank(struct member *m, void *arg)
{
	struct frank *f = arg;
	sym_exec *x = sym_exec_new(f[m->rank].c->p, m->ep, m->ctx);
	const sym_value *y = sym_graph_find_value(f->c->g, "y");
	size_t bytes = 0;
	int32_t *lab;

	if (!x || sym_exec_prepare(x, f->s) < 0 || sym_exec_fill(x, 5) < 0)
		return failed(m, "setup: %s", sym_ctx_last_message(m->ctx));
	assert_int_equal(sym_exec_rank(x), m->rank);
	lab = sym_exec_data(x, sym_plan_value_tensor(f->c->p, y), &bytes);
	if (!lab || bytes < 4)
		return failed(m, "no labels");
	for (size_t i = 0; i < bytes / 4; i++)
		if (lab[i] < 0 || lab[i] >= 10)
			return failed(m, "label %d out of [0, 10)", lab[i]);
	if (m->rank == f->corrupt)
		lab[0] = 1000;
	f[m->rank].rc = sym_exec_run(x);
	snprintf(f[m->rank].msg, sizeof(f->msg), "%s",
	    f[m->rank].rc ? sym_ctx_last_message(m->ctx) : "");
	sym_exec_free(x);
	return 0;
}

/* An allocation that fails says how many bytes it asked for and what for,
 * or that their number overflows. */
static void
test_oom_messages(void **state)
{
	sym_ctx *ctx = sym_ctx_new();

	(void)state;
	assert_non_null(ctx);
	sym__oom_bytes(ctx, 3, 8, "check: output y");
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ENOMEM);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "out of memory: cannot allocate 24 bytes for check: output y");
	sym__oom_bytes(ctx, SIZE_MAX, 2, "check: output y");
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ENOMEM);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "times 2 bytes for check: output y overflow"));
	sym_ctx_free(ctx);
}

/* A failing rank lets the others finish; a rank that cannot start (its
 * handle is held elsewhere) makes sym_exec_check fail at once. */
static void
test_failing_rank(void **state)
{
	struct compiled c;
	struct team t;
	struct frank f[MAX_RANKS];
	sym_binding *b;
	sym_slices *s;
	sym_exec_report r;
	sym_comm_endpoint *held;
	double t0;
	int n_failed = 0;

	(void)state;
	compile_example(&c, "ffn");
	team_init(&t);
	s = sym_slices_new(c.p);
	b = binding(&c, "b=16");
	assert_int_equal(sym_plan_bind(c.p, b, s), 0);
	for (int k = 0; k < MAX_RANKS; k++)
		f[k] = (struct frank){ .c = &c, .s = s, .corrupt = 3 };
	t0 = (double)time(NULL);
	team_run(&t, MAX_RANKS, run_ffn_rank, f);
	assert_true((double)time(NULL) - t0 < 10);
	assert_int_equal(f[3].rc, -1);
	for (int k = 0; k < MAX_RANKS; k++) {
		if (!f[k].rc)
			continue;
		n_failed++;
		if (!strstr(f[k].msg, "ffn.sg:17:10: ") ||
		    !strstr(f[k].msg, "softmax_cross_entropy loss (step ") ||
		    !strstr(f[k].msg, "label 1000 of row"))
			fail_msg("rank %d: '%s'", k, f[k].msg);
	}
	printf("# %d of 8 ranks saw the bad label: %s\n", n_failed, f[3].msg);
	/* Rank 5 is held by this thread: its job cannot attach, nobody
	 * runs, the check fails at once. */
	held = sym_comm_attach(c.comm, 5, c.ctx);
	assert_non_null(held);
	t0 = (double)time(NULL);
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, NULL, &r,
	                     c.ctx),
	    -1);
	assert_true((double)time(NULL) - t0 < 10);
	assert_non_null(strstr(sym_ctx_last_message(c.ctx),
	    "rank 5: attach: rank 5 is already attached"));
	sym_comm_detach(held);
	assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, NULL, &r,
	                     c.ctx),
	    0);
	assert_int_equal(r.n_mismatch, 0);
	sym_binding_free(b);
	sym_slices_free(s);
	team_clear(&t);
	compiled_clear(&c);
}

/* What one rank of the narrow-sum test computes: the plan and slices,
 * the dtype, the input value, and the first output element it got. */
struct wrank {
	struct compiled *c;
	sym_slices *s;
	int32_t in, out;
};

/* Run rank "m" of the graph of "arg" (a struct wrank per rank): every
 * element of its block of x set to arg->in, y's first element kept;
 * return 0 or -1. */
static int
run_wrap_rank(struct member *m, void *arg)
{
	struct wrank *w = &((struct wrank *)arg)[m->rank];
	const sym_plan *p = w->c->p;
	sym_exec *x = sym_exec_new(p, m->ep, m->ctx);
	size_t bytes = 0, yb = 0;
	int32_t *xv, *yv;

	if (!x || sym_exec_prepare(x, w->s) < 0)
		return failed(m, "setup: %s", sym_ctx_last_message(m->ctx));
	xv = sym_exec_data(x,
	    sym_plan_value_tensor(p, sym_graph_find_value(w->c->g, "x")),
	    &bytes);
	for (size_t i = 0; xv && i < bytes / 4; i++)
		xv[i] = w->in;
	if (!xv || sym_exec_run(x) < 0) {
		sym_exec_free(x);
		return failed(m, "run: %s", sym_ctx_last_message(m->ctx));
	}
	yv = sym_exec_data(x,
	    sym_plan_value_tensor(p, sym_graph_find_value(w->c->g, "y")), &yb);
	w->out = yv && yb >= 4 ? yv[0] : INT32_MAX;
	sym_exec_free(x);
	return 0;
}

/* Integer partial sums added across ranks wrap to the width of their
 * dtype like the kernels' sums: an i8 row of eight 25s summed on two
 * ranks (100 each, then an all_reduce) is 200 - 256 = -56 on every rank,
 * as NumPy's sum in int8; a u8 row of 250s gives 8 * 250 mod 256 = 208
 * and an i16 row of 5000s 40000 - 65536 = -25536. */
static void
test_narrow_partial_sums(void **state)
{
	static const struct {
		const char *dt;
		int32_t in, want;
	} cases[] = { { "i8", 25, -56 }, { "u8", 250, 208 },
		{ "i16", 5000, -25536 } };
	struct team t;

	(void)state;
	team_init(&t);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct compiled c;
		struct wrank w[2];
		sym_binding *b;
		char text[256];

		snprintf(text, sizeof(text),
		    "devices 2\ninput x : %s[1, 8]\n"
		    "y = reduce_sum(x, axis=[1]) shard ((1, 2),)\noutput y\n",
		    cases[k].dt);
		compile_text(&c, text, "wrap.sg");
		b = binding(&c, "");
		w[0] = (struct wrank){
			.c = &c, .s = sym_slices_new(c.p), .in = cases[k].in
		};
		assert_non_null(w[0].s);
		assert_int_equal(sym_plan_bind(c.p, b, w[0].s), 0);
		w[1] = w[0];
		team_run(&t, 2, run_wrap_rank, w);
		for (int r = 0; r < 2; r++)
			if (w[r].out != cases[k].want)
				fail_msg("%s: rank %d has %d, not %d",
				    cases[k].dt, r, w[r].out, cases[k].want);
		sym_slices_free(w[0].s);
		sym_binding_free(b);
		compiled_clear(&c);
	}
	team_clear(&t);
}

/* The executor's API on one rank: errors before prepare and with
 * unbound slices, buffers kept across bindings (none reallocated for a
 * smaller or equal batch), deterministic inputs within their ranges. */
static void
test_exec_api(void **state)
{
	struct compiled c;
	sym_exec *x, *x2;
	sym_slices *s;
	sym_binding *b64, *b8, *b12;
	size_t n, bytes = 0, ty, tx;
	void **ptr;
	float *xv;
	int32_t *yv;

	(void)state;
	compile_example(&c, "ffn");
	x = sym_exec_new(c.single, NULL, c.ctx);
	assert_non_null(x);
	assert_int_equal(sym_exec_rank(x), 0);
	assert_int_equal(sym_exec_run(x), -1);
	assert_string_equal(sym_ctx_last_message(c.ctx),
	    "executor: run before prepare");
	assert_int_equal(sym_exec_fill(x, 1), -1);
	assert_null(sym_exec_data(x, 0, NULL));
	s = sym_slices_new(c.single);
	b12 = binding(&c, "b=12");
	assert_int_equal(sym_plan_bind(c.single, b12, s), -1);
	assert_int_equal(sym_exec_prepare(x, s), -1);
	assert_string_equal(sym_ctx_last_message(c.ctx),
	    "executor: the slices are not bound: b = 12 violates divisor=8 "
	    "declared at ffn.sg:3:8");
	b64 = binding(&c, "b=64");
	b8 = binding(&c, "b=8");
	assert_int_equal(sym_plan_bind(c.single, b64, s), 0);
	assert_int_equal(sym_exec_prepare(x, s), 0);
	n = sym_plan_n_tensors(c.single);
	ptr = calloc(n, sizeof(*ptr));
	assert_non_null(ptr);
	for (size_t t = 0; t < n; t++)
		assert_non_null(ptr[t] = sym_exec_data(x, t, NULL));
	/* x2 = reshape(x) shares the buffer of x. */
	assert_ptr_equal(ptr[sym_plan_value_tensor(c.single,
	                     sym_graph_find_value(c.g, "x2"))],
	    ptr[sym_plan_value_tensor(c.single,
	        sym_graph_find_value(c.g, "x"))]);
	assert_null(sym_exec_data(x, n, &bytes));
	assert_int_equal(bytes, 0);
	assert_int_equal(sym_exec_fill(x, 9), 0);
	assert_int_equal(sym_exec_run(x), 0);
	assert_int_equal(sym_plan_bind(c.single, b8, s), 0);
	assert_int_equal(sym_exec_prepare(x, s), 0);
	for (size_t t = 0; t < n; t++)
		assert_ptr_equal(sym_exec_data(x, t, NULL), ptr[t]);
	assert_int_equal(sym_exec_fill(x, 9), 0);
	assert_int_equal(sym_exec_run(x), 0);
	/* Inputs: floats in [-1, 1), labels in [0, 10), the same on a
	 * second executor, others with another seed. */
	tx = sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "x"));
	ty = sym_plan_value_tensor(c.single, sym_graph_find_value(c.g, "y"));
	xv = sym_exec_data(x, tx, &bytes);
	assert_int_equal(bytes, 8 * 784 * 4);
	yv = sym_exec_data(x, ty, &bytes);
	assert_int_equal(bytes, 8 * 4);
	for (int i = 0; i < 8 * 784; i++)
		assert_true(xv[i] >= -1.0f && xv[i] < 1.0f);
	for (int i = 0; i < 8; i++)
		assert_true(yv[i] >= 0 && yv[i] < 10);
	x2 = sym_exec_new(c.single, NULL, c.ctx);
	assert_non_null(x2);
	assert_int_equal(sym_exec_prepare(x2, s), 0);
	assert_int_equal(sym_exec_fill(x2, 9), 0);
	assert_memory_equal(sym_exec_data(x2, tx, NULL), xv, 8 * 784 * 4);
	assert_int_equal(sym_exec_fill(x2, 10), 0);
	assert_memory_not_equal(sym_exec_data(x2, tx, NULL), xv, 8 * 784 * 4);
	sym_exec_free(x2);
	free(ptr);
	sym_binding_free(b64);
	sym_binding_free(b8);
	sym_binding_free(b12);
	sym_slices_free(s);
	sym_exec_free(x);
	compiled_clear(&c);
}

/* Kernels that need temporary memory (conv2d by im2col, the loss, a
 * softmax along columns and a log_softmax along axes apart, sums and
 * means) after communication steps, with a dynamic batch. */
static const char scratchy[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "input img : f32[b, 2, 6, 6]\n"
    "input lab : i32[b]\n"
    "param k : f32[4, 2, 3, 3]\n"
    "param w : f32[64, 10]\n"
    "c = conv2d(img, k) shard ((8, 1, 1, 1), (1, 1, 1, 1))\n"
    "f = reshape(c, [-1, 64])\n"
    "t = softmax(f, axis=0)\n"
    "u = log_softmax(c, axis=[1, 3])\n"
    "s = reduce_sum(u, axis=[1, 2, 3])\n"
    "m = matmul(t, w) shard ((1, 8), (8, 1))\n"
    "r = reduce_mean(m, axis=1)\n"
    "loss = softmax_cross_entropy(m, lab)\n"
    "output loss\n"
    "output r\n"
    "output s\n";

/* A plan run for b = 8, 16, 8, 16 on each rank, and what each rank's
 * executor had allocated after each run. */
struct steady {
	const sym_plan *p;
	sym_slices *s[2];
	size_t allocs[MAX_RANKS][4];
	size_t kernel_grows[MAX_RANKS];
};

/* Return what "x" has allocated so far: tensor buffers and the growths
 * of the kernels' and the communication steps' scratch areas. */
static size_t
exec_allocs(const sym_exec *x)
{
	return x->buffer_allocs + x->kscratch.grows + x->scratch.grows;
}

/* Run the plan of "arg" (a struct steady) for its two bindings in turn,
 * twice, on rank "m" (NULL handle: a plan of one rank), recording what
 * its executor allocated; return 0 or -1. */
static int
run_steady_rank(struct member *m, void *arg)
{
	struct steady *st = arg;
	sym_exec *x = sym_exec_new(st->p, m->ep, m->ctx);

	if (!x)
		return failed(m, "new: %s", sym_ctx_last_message(m->ctx));
	for (int i = 0; i < 4; i++) {
		if (sym_exec_prepare(x, st->s[i % 2]) < 0 ||
		    sym_exec_fill(x, 3) < 0 || sym_exec_run(x) < 0) {
			failed(m, "run %d: %s", i,
			    sym_ctx_last_message(m->ctx));
			sym_exec_free(x);
			return -1;
		}
		st->allocs[m->rank][i] = exec_allocs(x);
	}
	st->kernel_grows[m->rank] = x->kscratch.grows;
	sym_exec_free(x);
	return 0;
}

/* Check that each of the "n" ranks of "st" allocated in its first two
 * runs (b = 8, then the larger b = 16) and nothing in the next two, of
 * sizes it had seen, and that its kernels used their scratch area. */
static void
check_steady(const struct steady *st, int n)
{
	for (int r = 0; r < n; r++) {
		const size_t *a = st->allocs[r];

		printf("# rank %d: %zu, %zu, %zu, %zu allocations after each "
		       "run (kernel scratch grown %zu times)\n",
		    r, a[0], a[1], a[2], a[3], st->kernel_grows[r]);
		assert_true(a[0] > 0);
		assert_true(a[1] > a[0]);
		assert_int_equal(a[2], a[1]);
		assert_int_equal(a[3], a[1]);
		assert_true(st->kernel_grows[r] >= 1);
	}
}

/* A dynamic-shape run allocates nothing once it has seen its sizes:
 * neither buffers nor scratch areas, on 8 ranks and on one device. */
static void
test_steady_state(void **state)
{
	static const char *const texts[2] = { "b=8", "b=16" };
	struct compiled c;
	struct team t;
	struct steady st;
	struct member one;

	(void)state;
	compile_text(&c, scratchy, "scratchy.sg");
	team_init(&t);
	for (int single = 0; single < 2; single++) {
		const sym_plan *p = single ? c.single : c.p;

		memset(&st, 0, sizeof(st));
		st.p = p;
		for (int i = 0; i < 2; i++) {
			sym_binding *b = binding(&c, texts[i]);

			st.s[i] = sym_slices_new(p);
			assert_non_null(st.s[i]);
			assert_int_equal(sym_plan_bind(p, b, st.s[i]), 0);
			sym_binding_free(b);
		}
		if (single) {
			memset(&one, 0, sizeof(one));
			one.ctx = c.ctx;
			assert_int_equal(run_steady_rank(&one, &st), 0);
			check_steady(&st, 1);
		} else {
			team_run(&t, MAX_RANKS, run_steady_rank, &st);
			check_steady(&st, MAX_RANKS);
		}
		sym_slices_free(st.s[0]);
		sym_slices_free(st.s[1]);
	}
	team_clear(&t);
	compiled_clear(&c);
}

/* A training graph: forward, backward (with the all_reduces of the
 * mirror operator), adam's updates in place. */
static const char trainer[] = "devices 8\n"
                              "symbol b divisor=8\n"
                              "input x : f32[b, 32]\n"
                              "input lab : i32[b]\n"
                              "param w1 : f32[32, 64] init=he_uniform\n"
                              "param w2 : f32[64, 10] init=xavier_uniform\n"
                              "h = matmul(x, w1) shard ((2, 1), (1, 4))\n"
                              "a = relu(h)\n"
                              "m = matmul(a, w2) shard ((2, 4), (4, 1))\n"
                              "loss = softmax_cross_entropy(m, lab)\n"
                              "output loss\n"
                              "minimize loss with adam(lr=0.01)\n";

/* Training steps allocate nothing once their sizes have been seen: on
 * each of 8 ranks and on one device, b = 8, 16, 8, 16, the backward and
 * update operators included. */
static void
test_steady_training(void **state)
{
	static const char *const texts[2] = { "b=8", "b=16" };
	struct compiled c;
	struct team t;
	struct steady st;
	struct member one;

	(void)state;
	compile_text(&c, trainer, "trainer.sg");
	assert_true(sym_graph_is_training(c.g));
	team_init(&t);
	for (int single = 0; single < 2; single++) {
		const sym_plan *p = single ? c.single : c.p;

		memset(&st, 0, sizeof(st));
		st.p = p;
		for (int i = 0; i < 2; i++) {
			sym_binding *b = binding(&c, texts[i]);

			st.s[i] = sym_slices_new(p);
			assert_non_null(st.s[i]);
			assert_int_equal(sym_plan_bind(p, b, st.s[i]), 0);
			sym_binding_free(b);
		}
		if (single) {
			memset(&one, 0, sizeof(one));
			one.ctx = c.ctx;
			assert_int_equal(run_steady_rank(&one, &st), 0);
			check_steady(&st, 1);
		} else {
			team_run(&t, MAX_RANKS, run_steady_rank, &st);
			check_steady(&st, MAX_RANKS);
		}
		sym_slices_free(st.s[0]);
		sym_slices_free(st.s[1]);
	}
	team_clear(&t);
	compiled_clear(&c);
}

/* Element counts are multiplied with overflow checks: an output of
 * 2^64 elements, a one_hot of depth 2^63 - 1 and a symbolic square bound
 * too large are refused with SYM_EOVERFLOW, named and located at the
 * output's declaration, and nothing runs. */
static void
test_overflow_sizes(void **state)
{
	static const struct {
		const char *text, *bind, *message;
		int line;
	} t[] = {
		{ "devices 1\ninput x : f32[4294967296, 4294967296]\n"
		  "y = relu(x)\noutput y\n",
		    "",
		    "check: output y is f32[4294967296, 4294967296] at "
		    "these sizes: more elements or bytes than 64 bits count",
		    3 },
		{ "devices 1\ninput i : i32[2]\n"
		  "y = one_hot(i, depth=9223372036854775807)\noutput y\n",
		    "",
		    "check: output y is f32[2, 9223372036854775807] at "
		    "these sizes: more elements or bytes than 64 bits count",
		    3 },
		{ "devices 2\nsymbol n divisor=2 unique\ninput x : f32[n, n]\n"
		  "y = relu(x)\noutput y\n",
		    "n=3037000500",
		    "check: output y is f32[3037000500, "
		    "3037000500] at these sizes: more elements "
		    "or bytes than 64 bits count",
		    4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		sym_exec_options o = { .size = sizeof(o), .seed = 1 };
		struct progress pr = { 0 };
		struct compiled c;
		sym_exec_report r;
		sym_binding *b;

		compile_text(&c, t[i].text, "big.sg");
		b = t[i].bind[0] ? binding(&c, t[i].bind)
		                 : sym_binding_new(c.ctx);
		o.progress = on_progress;
		o.progress_arg = &pr;
		assert_int_equal(sym_exec_check(c.p, c.single, c.comm, b, &o,
		                     &r, c.ctx),
		    -1);
		assert_int_equal(sym_ctx_last_error(c.ctx), SYM_EOVERFLOW);
		assert_string_equal(sym_ctx_last_message(c.ctx), t[i].message);
		assert_string_equal(sym_ctx_last_location(c.ctx).file,
		    "big.sg");
		assert_int_equal(sym_ctx_last_location(c.ctx).line, t[i].line);
		assert_int_equal(pr.calls, 0);
		sym_binding_free(b);
		compiled_clear(&c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_copy),
		cmocka_unit_test(test_redist_property),
		cmocka_unit_test(test_broadcast),
		cmocka_unit_test(test_step_errors),
		cmocka_unit_test(test_ffn),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_moves),
		cmocka_unit_test(test_detects),
		cmocka_unit_test(test_infinities),
		cmocka_unit_test(test_options_size),
		cmocka_unit_test(test_failing_rank),
		cmocka_unit_test(test_oom_messages),
		cmocka_unit_test(test_narrow_partial_sums),
		cmocka_unit_test(test_exec_api),
		cmocka_unit_test(test_steady_state),
		cmocka_unit_test(test_steady_training),
		cmocka_unit_test(test_overflow_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
