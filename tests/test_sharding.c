/* SPDX-License-Identifier: MIT */
/*
 * Shardings as values (sym_sharding(3), DESIGN section 16): two
 * shardings of one graph side by side, each compiled and run against one
 * device; a searched graph left as it was (its text printed before and
 * after the search); and the params of one sharding moved into the
 * layouts of the other through the redistribution planner, the moved
 * blocks checked element by element.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#include "exec/exec_private.h"
#include "graph/graph_private.h"
#include "testlib.h"

#define RANKS 8

/* The seed network (examples/ffn.sg) read from the source tree into a
 * new graph of "ctx". */
static sym_graph *
seed_graph(sym_ctx *ctx)
{
	char *text = tl_read_source("examples/ffn.sg", NULL);
	sym_graph *g = sym_graph_parse(ctx, text, "ffn.sg");

	free(text);
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	return g;
}

/* Return the node of "g" whose first output is named "name". */
static sym_node *
node_of(sym_graph *g, const char *name)
{
	for (size_t i = 0; i < sym_graph_n_nodes(g); i++) {
		sym_node *n = sym_graph_node(g, i);

		if (!strcmp(sym_value_name(sym_node_output(n, 0)), name))
			return n;
	}
	fail_msg("no node %s", name);
	return NULL;
}

/* The data-parallel assignment of the seed network: every matmul and
 * relu split along the batch only. */
static const char *dp_text[][2] = {
	{ "h1", "((8, 1), (1, 1))" },
	{ "a1", "((8, 1),)" },
	{ "h2", "((8, 1), (1, 1))" },
	{ "a2", "((8, 1),)" },
	{ "logits", "((8, 1), (1, 1))" },
};

/* Fill "st" (room for the nodes of "g") with the data-parallel
 * assignment of the seed network and "a" with it. */
static void
dp_assignment(sym_graph *g, const char **st, sym_assignment *a)
{
	for (size_t i = 0; i < sym_graph_n_nodes(g); i++)
		st[i] = NULL;
	for (size_t k = 0; k < sizeof(dp_text) / sizeof(dp_text[0]); k++)
		st[node_of(g, dp_text[k][0])->index] = dp_text[k][1];
	a->strategies = st;
	a->n_strategies = sym_graph_n_nodes(g);
}

/* Run the plan of "sh" on RANKS threads at b = "b" against the
 * single-device plan of its graph, asserting that they agree. */
static void
check_against_one_device(sym_ctx *ctx, sym_sharding *sh, int64_t b)
{
	sym_exec_options o = { .size = sizeof(o), .seed = 11 };
	sym_plan *p = sym_plan_compile_sharding(sh, 0);
	sym_plan *one =
	    sym_plan_compile(sym_sharding_graph(sh), SYM_PLAN_SINGLE);
	sym_communicator *comm = sym_comm_threads_new(ctx, RANKS);
	sym_binding *bind = sym_binding_new(ctx);
	sym_exec_report r;
	char text[32];

	if (!p || !one)
		fail_msg("compile: %s", sym_ctx_last_message(ctx));
	assert_ptr_equal(sym_plan_sharding(p), sh);
	assert_int_equal(sym_plan_n_ranks(p), RANKS);
	assert_non_null(comm);
	snprintf(text, sizeof(text), "b = %lld", (long long)b);
	assert_int_equal(sym_binding_parse(bind, text, NULL), 0);
	if (sym_exec_check(ctx, p, one, comm, bind, &o, &r) != 0)
		fail_msg("check: %s", sym_ctx_last_message(ctx));
	assert_int_equal(r.n_mismatch, 0);
	assert_true(r.max_abs < 1e-3);
	sym_binding_free(bind);
	sym_comm_free(comm);
	sym_plan_free(p);
	sym_plan_free(one);
}

/* Two shardings of the seed network, its clauses' and the data-parallel
 * one, live side by side with different layouts and communications; each
 * runs as one device does; the graph has no sharding of its own. */
static void
test_side_by_side(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = seed_graph(ctx);
	sym_assignment a = SYM_ASSIGNMENT_INIT;
	const char *st[16];
	sym_sharding *own, *dp;
	sym_value *w1 = sym_graph_find_value(g, "w1");
	sym_value *w2 = sym_graph_find_value(g, "w2");
	sym_node *h1 = node_of(g, "h1");

	(void)state;
	assert_true(sym_graph_n_nodes(g) <= 16);
	dp_assignment(g, st, &a);
	own = sym_sharding_new(g, NULL, NULL);
	dp = sym_sharding_new(g, &a, NULL);
	assert_non_null(own);
	assert_non_null(dp);
	assert_int_equal(sym_sharding_n_errors(own), 0);
	assert_int_equal(sym_sharding_n_errors(dp), 0);
	assert_null(sym_graph_sharding(g));
	assert_null(sym_value_layout(w1));
	assert_ptr_equal(sym_sharding_graph(dp), g);
	/* the clause ((2, 4), (4, 1)) splits the rows of w1 4 ways, the
	 * clause ((1, 8), (8, 1)) those of w2 8 ways; data parallel keeps
	 * every param whole */
	assert_int_equal(sym_layout_dim_splits(sym_sharding_value_layout(own,
	                                           w1),
	                     0),
	    4);
	assert_int_equal(sym_layout_dim_splits(sym_sharding_value_layout(own,
	                                           w2),
	                     0),
	    8);
	assert_int_equal(sym_layout_dim_splits(sym_sharding_value_layout(dp,
	                                           w1),
	                     0),
	    1);
	assert_int_equal(sym_layout_dim_splits(sym_sharding_value_layout(dp,
	                                           w2),
	                     0),
	    1);
	assert_string_equal(sym_sharding_strategy(own, h1), "((2, 4), (4, 1))");
	assert_string_equal(sym_sharding_strategy(dp, h1), "((8, 1), (1, 1))");
	assert_string_equal(sym_sharding_strategy_source(dp, h1),
	    "shard clause");
	/* the clauses' h1 holds partial sums over the 4 ways of k: resolved
	 * after it; data parallel has no partial sums to resolve */
	assert_non_null(sym_sharding_find_reshard(own, sym_node_output(h1, 0),
	    NULL, 0));
	assert_null(sym_sharding_find_reshard(dp, sym_node_output(h1, 0), NULL,
	    0));
	check_against_one_device(ctx, own, 16);
	check_against_one_device(ctx, dp, 16);
	/* a reference outlives the caller's first one */
	assert_ptr_equal(sym_sharding_ref(dp), dp);
	sym_sharding_free(dp);
	check_against_one_device(ctx, dp, 8);
	sym_sharding_free(dp);
	sym_sharding_free(own);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A bad assignment is refused with a located reason, and a strategy the
 * rule refuses gives a sharding with errors that does not compile, the
 * graph left without errors. */
static void
test_bad_assignment(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = seed_graph(ctx);
	sym_assignment a = SYM_ASSIGNMENT_INIT;
	const char *st[16] = { NULL };
	const char *mesh[1] = { "m = (dp=2, mp=4)" };
	sym_sharding *sh;
	size_t h1 = node_of(g, "h1")->index;

	(void)state;
	a.strategies = st;
	a.n_strategies = 99;
	assert_null(sym_sharding_new(g, &a, NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	sym_ctx_clear_error(ctx);
	a.n_strategies = sym_graph_n_nodes(g);
	st[h1] = "((3, 1), (1, 1))";
	sh = sym_sharding_new(g, &a, NULL);
	assert_non_null(sh);
	assert_true(sym_sharding_n_errors(sh) > 0);
	assert_int_equal(sym_graph_n_errors(g), 0);
	assert_null(sym_plan_compile_sharding(sh, 0));
	sym_ctx_clear_error(ctx);
	sym_sharding_free(sh);
	/* a layout strategy over a mesh of the assignment */
	st[h1] = "(m(dp, None), m(None, mp))";
	a.meshes = mesh;
	a.n_meshes = 1;
	sh = sym_sharding_new(g, &a, NULL);
	assert_non_null(sh);
	assert_int_equal(sym_sharding_n_errors(sh), 0);
	assert_int_equal(sym_mesh_n_axes(sym_sharding_node_mesh(sh,
	                     node_of(g, "h1"))),
	    2);
	assert_null(sym__graph_find_mesh(g, "m"));
	check_against_one_device(ctx, sh, 8);
	sym_sharding_free(sh);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Return the text of "g" as its author wrote it: devices, meshes,
 * values with their shapes, nodes with their attributes and shard
 * clauses, and what the graph reports (malloc'ed). */
static char *
graph_text(sym_graph *g)
{
	size_t cap = 1 << 16, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
#define PUT(...) \
	(len +=  \
	    (size_t)snprintf(t + len, len < cap ? cap - len : 0, __VA_ARGS__))
	PUT("devices %lld\n", (long long)sym_graph_n_devices(g));
	for (size_t m = 0; m < g->n_mesh; m++)
		PUT("mesh %s\n", g->mesh[m].name);
	for (size_t i = 0; i < sym_graph_n_values(g); i++) {
		sym_value *v = sym_graph_value(g, i);
		char *s = sym_shape_to_str(sym_value_shape(v));

		PUT("%s %s : %s\n", sym_value_kind_name(sym_value_get_kind(v)),
		    sym_value_name(v), s ? s : "?");
		free(s);
	}
	for (size_t i = 0; i < sym_graph_n_nodes(g); i++) {
		sym_node *n = sym_graph_node(g, i);
		char *at = sym_attrs_to_str(sym_node_attrs(n));
		char *st =
		    n->strategy ? sym__strategy_to_str(n->strategy) : NULL;
		char *cur = sym_node_strategy_to_str(n);

		PUT("%s =", sym_value_name(sym_node_output(n, 0)));
		PUT(" %s(", sym_node_op_name(n));
		for (size_t k = 0; k < sym_node_n_inputs(n); k++)
			PUT("%s%s", k ? ", " : "",
			    sym_value_name(sym_node_input(n, k)));
		PUT(") %s shard %s in force %s\n", at ? at : "", st ? st : "-",
		    cur ? cur : "-");
		free(at);
		free(st);
		free(cur);
	}
	PUT("diagnostics %zu guards %zu sharded %d\n",
	    sym_graph_n_diagnostics(g), sym_graph_n_guards(g),
	    sym_graph_sharding(g) != NULL);
#undef PUT
	assert_true(len < cap);
	return t;
}

/* The seed network without its shard clauses. */
static const char *searched_text = "devices 8\n"
                                   "symbol b divisor=8\n"
                                   "input  x  : f32[b, 784]\n"
                                   "input  y  : i32[b]\n"
                                   "param  w1 : f32[784, 512]\n"
                                   "param  w2 : f32[512, 10]\n"
                                   "h1     = matmul(x, w1)\n"
                                   "a1     = relu(h1)\n"
                                   "logits = matmul(a1, w2)\n"
                                   "loss   = softmax_cross_entropy(logits, y)\n"
                                   "output loss\n";

/* A search leaves its graph as it found it, on one node (tuple
 * candidates) and on two (layout candidates over auto_* meshes); the
 * sharding of its first piece runs as one device does. */
static void
test_search_leaves_graph(void **state)
{
	static const int64_t per_node[] = { 8, 4 };

	(void)state;
	for (size_t t = 0; t < 2; t++) {
		sym_ctx *ctx = tl_ctx_new();
		sym_graph *g = sym_graph_parse(ctx, searched_text, "s.sg");
		sym_topology *topo =
		    sym_topology_new(ctx, per_node[t], 0, 0, 0, 0);
		sym_search_options o = SYM_SEARCH_OPTIONS_INIT;
		char *before, *after;
		sym_search *s;
		sym_sharding *sh;
		int64_t lo, hi;

		assert_non_null(g);
		assert_non_null(topo);
		o.topo = topo;
		before = graph_text(g);
		s = sym_graph_search(g, &o);
		if (!s)
			fail_msg("search: %s", sym_ctx_last_message(ctx));
		after = graph_text(g);
		assert_string_equal(before, after);
		assert_true(sym_search_n_pieces(s) > 0);
		sh = sym_search_sharding(s, 0);
		assert_non_null(sh);
		assert_int_equal(sym_sharding_n_errors(sh), 0);
		for (size_t j = 0; j < sym_search_n_nodes(s); j++)
			assert_string_equal(sym_sharding_strategy(sh,
			                        sym_search_node(s, j)),
			    sym_search_strategy(s, 0, j));
		free(after);
		after = graph_text(g);
		assert_string_equal(before, after);
		assert_int_equal(sym_search_piece_range(s, 0, 0, &lo, &hi), 0);
		check_against_one_device(ctx, sh, lo);
		sym_sharding_free(sh);
		/* applying a piece is what changes the graph, on request */
		assert_int_equal(sym_search_apply(s, 0), 0);
		assert_non_null(sym_graph_sharding(g));
		free(before);
		free(after);
		sym_search_free(s);
		sym_topology_free(topo);
		sym_graph_free(g);
		tl_ctx_free(ctx);
	}
}

/* A param moved from one layout to another. */
struct move {
	int64_t rows, cols;
	const sym_layout *from, *to;
	const sym_redist *r;
	float *block[RANKS];
};

/* Store in "off" and "ext" the box of rank "r" under "l" for "mv". */
static void
box(const struct move *mv, const sym_layout *l, int64_t r, int64_t *off,
    int64_t *ext)
{
	ext[0] = mv->rows / sym_layout_dim_splits(l, 0);
	ext[1] = mv->cols / sym_layout_dim_splits(l, 1);
	off[0] = sym_layout_block(l, r, 0) * ext[0];
	off[1] = sym_layout_block(l, r, 1) * ext[1];
}

/* Run the steps of the move "arg" on rank "m"; 0 or -1. */
static int
move_rank(struct tl_member *m, void *arg)
{
	struct move *mv = arg;
	struct sym__xscratch s = { 0 };
	const sym_layout *before = mv->from;
	int64_t shape[2] = { mv->rows, mv->cols };
	char err[256];
	int ret = 0;

	for (size_t i = 0; i < sym_redist_n_steps(mv->r) && ret == 0; i++) {
		const sym_layout *after = sym_redist_step_layout(mv->r, i);
		int64_t off[2], ext[2];
		struct sym__xstep x;
		float *out;
		int rc;

		if (sym__xstep_from_redist(&x, mv->r, i, before, 2, m->rank,
		        err, sizeof(err)) < 0)
			return tl_failed(m, "step %zu: %s", i, err);
		box(mv, after, m->rank, off, ext);
		out = calloc((size_t)(ext[0] * ext[1]), sizeof(*out));
		if (!out) {
			sym__xstep_clear(&x);
			return tl_failed(m, "out of memory");
		}
		rc = sym__xstep_run(&x, m->ep, shape, SYM_DT_F32,
		    mv->block[m->rank], out, &s, err, sizeof(err));
		sym__xstep_clear(&x);
		if (rc < 0)
			ret = tl_failed(m, "step %zu: %s", i, err);
		free(mv->block[m->rank]);
		mv->block[m->rank] = out;
		before = after;
	}
	sym__xscratch_clear(&s);
	return ret;
}

/* Move "v" (a matrix param) from its layout in "a" to its layout in "b"
 * through the redistribution planner on the ranks of "team": every
 * rank's block filled under "a" with the global indices of its elements
 * holds afterwards its block under "b". Return the number of steps. */
static size_t
move_param(struct tl_team *team, sym_sharding *a, sym_sharding *b,
    const sym_value *v)
{
	const sym_shape *shape = sym_value_shape(v);
	struct move mv;
	int64_t off[2], ext[2];
	sym_redist *r;
	size_t steps;

	memset(&mv, 0, sizeof(mv));
	assert_int_equal(sym_expr_get_const(sym_shape_dim(shape, 0), &mv.rows),
	    0);
	assert_int_equal(sym_expr_get_const(sym_shape_dim(shape, 1), &mv.cols),
	    0);
	mv.from = sym_sharding_value_layout(a, v);
	mv.to = sym_sharding_value_layout(b, v);
	r = sym_redist_plan(mv.from, mv.to, shape, NULL);
	assert_non_null(r);
	mv.r = r;
	for (int64_t k = 0; k < RANKS; k++) {
		box(&mv, mv.from, k, off, ext);
		mv.block[k] = malloc((size_t)(ext[0] * ext[1]) * sizeof(float));
		assert_non_null(mv.block[k]);
		for (int64_t i = 0; i < ext[0] * ext[1]; i++)
			mv.block[k][i] =
			    (float)((off[0] + i / ext[1]) * mv.cols + off[1] +
			        i % ext[1]);
	}
	tl_team_run(team, RANKS, move_rank, &mv);
	for (int64_t k = 0; k < RANKS; k++) {
		box(&mv, mv.to, k, off, ext);
		for (int64_t i = 0; i < ext[0] * ext[1]; i++) {
			float want = (float)((off[0] + i / ext[1]) * mv.cols +
			    off[1] + i % ext[1]);

			if (mv.block[k][i] != want)
				fail_msg("%s rank %lld element %lld: got %g, "
				         "want %g",
				    sym_value_name(v), (long long)k,
				    (long long)i, (double)mv.block[k][i],
				    (double)want);
		}
		free(mv.block[k]);
	}
	steps = sym_redist_n_steps(r);
	sym_redist_free(r);
	return steps;
}

/* The params of the seed network moved between the layouts of its
 * clauses' sharding and of the data-parallel one, both ways. */
static void
test_move_params(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = seed_graph(ctx);
	sym_assignment a = SYM_ASSIGNMENT_INIT;
	const char *st[16];
	sym_sharding *own, *dp;
	struct tl_team team;
	const char *names[] = { "w1", "w2", "w3" };

	(void)state;
	dp_assignment(g, st, &a);
	own = sym_sharding_new(g, NULL, NULL);
	dp = sym_sharding_new(g, &a, NULL);
	assert_non_null(own);
	assert_non_null(dp);
	tl_team_init(&team, RANKS, 20000);
	for (size_t k = 0; k < 3; k++) {
		const sym_value *v = sym_graph_find_value(g, names[k]);

		/* split rows to whole needs an all_gather; whole to split
		 * only a local slice: one step each way when they differ */
		if (sym_layout_is_equal(sym_sharding_value_layout(own, v),
		        sym_sharding_value_layout(dp, v))) {
			assert_int_equal(move_param(&team, own, dp, v), 0);
			continue;
		}
		assert_int_equal(move_param(&team, own, dp, v), 1);
		assert_int_equal(move_param(&team, dp, own, v), 1);
	}
	tl_team_clear(&team);
	sym_sharding_free(dp);
	sym_sharding_free(own);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A Megatron MLP in training: o's gradient, split along the batch by the
 * loss, is wanted whole along the batch (its columns split) by both
 * matmuls of o's gradient rule; and o, gathered for the loss, is wanted
 * in the same layout by the loss's gradient. */
static const char mlp_text[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "input x : f32[b, 64]\n"
    "input y : i32[b]\n"
    "param w1 : f32[64, 64]\n"
    "param w2 : f32[64, 16]\n"
    "h = matmul(x, w1) shard ((1, 1), (1, 8))\n"
    "a = relu(h)\n"
    "o = matmul(a, w2) shard ((1, 8), (8, 1))\n"
    "loss = softmax_cross_entropy(o, y) shard ((8, 1), (8,))\n"
    "output loss\n"
    "minimize loss with sgd(lr=0.1)\n";

/* One collective per value and layout: the second use of o.grad in the
 * same layout reads the first one's all_gather, which the plan runs
 * once; sharded training equals one device. */
static void
test_one_comm_per_layout(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, mlp_text, "mlp.sg");
	const sym_value *og, *o;
	const sym_reshard *first, *second;
	sym_sharding *sh;
	sym_plan *p;
	size_t gathers = 0;

	(void)state;
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	sh = sym_sharding_new(g, NULL, NULL);
	assert_non_null(sh);
	assert_int_equal(sym_sharding_n_errors(sh), 0);
	og = sym_graph_find_value(g, "o.grad");
	o = sym_graph_find_value(g, "o");
	first = sym_sharding_find_reshard(sh, og,
	    sym_value_producer(sym_graph_find_value(g, "a.grad")), 0);
	second = sym_sharding_find_reshard(sh, og,
	    sym_value_producer(sym_graph_find_value(g, "w2.grad")), 1);
	assert_non_null(first);
	assert_non_null(second);
	assert_null(sym_reshard_shares(first));
	assert_ptr_equal(sym_reshard_shares(second), first);
	assert_int_equal(sym_redist_n_steps(first->plan), 1);
	assert_int_equal(sym_redist_step_kind(first->plan, 0),
	    SYM_REDIST_ALL_GATHER);
	/* o to the loss's layout, then again for its gradient */
	first = sym_sharding_find_reshard(sh, o,
	    sym_value_producer(sym_graph_find_value(g, "loss")), 0);
	second = sym_sharding_find_reshard(sh, o,
	    sym_value_producer(sym_graph_find_value(g, "o.grad")), 0);
	assert_non_null(first);
	assert_non_null(second);
	assert_ptr_equal(sym_reshard_shares(second), first);
	/* the plan gathers o.grad once */
	p = sym_plan_compile_sharding(sh, 0);
	assert_non_null(p);
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *st = sym_plan_get_step(p, i);

		gathers += st->kind == SYM_PLAN_COMM && st->value == og &&
		    st->comm == SYM_REDIST_ALL_GATHER;
	}
	assert_int_equal(gathers, 1);
	sym_plan_free(p);
	check_against_one_device(ctx, sh, 16);
	sym_sharding_free(sh);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_bad_assignment),
		cmocka_unit_test(test_search_leaves_graph),
		cmocka_unit_test(test_move_params),
		cmocka_unit_test(test_one_comm_per_layout),
	};

	return cmocka_run_group_tests_name("sharding", tests, NULL, NULL);
}
