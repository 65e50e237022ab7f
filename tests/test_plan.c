/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of slice plans (sym_plan(3)): plans of small graphs built
 * through the C API and parsed (one device, the feed-forward network on 8
 * devices, the layout example of HACKING.md section 8), their steps, tensors and
 * layouts; local sizes and offsets for several bindings, and a randomized
 * cross-check of every slice against sym_layout_local_dim and
 * sym_layout_offset evaluated with sym_expr_eval; every kind of run-time
 * check failing with its exact message; overflow; missing symbols;
 * slices bound again and again; single-device plans; the program's
 * common subexpressions.
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

#include "testlib.h"

/* The seed network (HACKING.md section 8, examples/ffn.sg). */
static const char ffn[] = "devices 8\n"
                          "symbol b divisor=8\n"
                          "\n"
                          "input  x  : f32[b, 1, 28, 28]\n"
                          "input  y  : i32[b]\n"
                          "param  w1 : f32[784, 512]\n"
                          "param  w2 : f32[512, 512]\n"
                          "param  w3 : f32[512, 10]\n"
                          "\n"
                          "x2     = reshape(x, [-1, 784])\n"
                          "h1     = matmul(x2, w1)  shard ((2, 4), (4, 1))\n"
                          "a1     = relu(h1)        shard ((4, 1),)\n"
                          "h2     = matmul(a1, w2)  shard ((1, 8), (8, 1))\n"
                          "a2     = relu(h2)        shard ((8, 1),)\n"
                          "logits = matmul(a2, w3)\n"
                          "loss   = softmax_cross_entropy(logits, y)\n"
                          "output loss\n";

/* The layout example (HACKING.md section 8, examples/layout.sg). */
static const char layout_example[] =
    "devices 8\n"
    "mesh m = (dp=2, sp=2, mp=2)\n"
    "input x : f32[8, 4]\n"
    "input w : f32[4, 16]\n"
    "y = matmul(x, w) shard (m(mp, (sp, dp)), m((sp, dp), None)) -> "
    "(m((mp, sp, dp), None),)\n"
    "output y\n";

/* One transformer block with a dynamic batch and sequence. */
static const char transformer[] =
    "devices 8\n"
    "symbol b divisor=8\n"
    "symbol s min=128 max=8192 divisor=128\n"
    "input x : f32[b, s, 768]\n"
    "param g : f32[768]\n"
    "param be : f32[768]\n"
    "param wq : f32[768, 768]\n"
    "param wo : f32[768, 768]\n"
    "param w1 : f32[768, 3072]\n"
    "param w2 : f32[3072, 768]\n"
    "h = layer_norm(x, g, be, begin_norm_axis=2, begin_params_axis=2)\n"
    "h2 = reshape(h, [-1, 768])\n"
    "q = matmul(h2, wq) shard ((1, 1), (1, 8))\n"
    "q4 = reshape(q, [b, s, 12, 64])\n"
    "qh = transpose(q4, [0, 2, 1, 3])\n"
    "sc = batch_matmul(qh, qh, transpose_b=true)\n"
    "pr = softmax(sc, axis=-1)\n"
    "c = batch_matmul(pr, qh)\n"
    "c2 = transpose(c, [0, 2, 1, 3])\n"
    "c3 = reshape(c2, [-1, 768])\n"
    "o = matmul(c3, wo) shard ((1, 8), (8, 1))\n"
    "f = matmul(o, w1) shard ((1, 1), (1, 8))\n"
    "gl = gelu(f)\n"
    "f2 = matmul(gl, w2) shard ((1, 8), (8, 1))\n"
    "y = add(h2, f2)\n"
    "output y\n";

/* Every kind of run-time check: a declared relation, a derived relation
 * that b's declaration does not keep in c's class, a guard, the size of
 * an input the prover cannot show positive, ceildiv, min, max and mod. */
static const char checks[] =
    "devices 2\n"
    "symbol b divisor=2 unique\n"
    "symbol c divisor=3\n"
    "symbol s min=128 max=4096 divisor=128 unique\n"
    "symbol t unique\n"
    "symbol u unique\n"
    "relation t = s + 128\n"
    "input x : f32[b, 8]\n"
    "input v : f32[c + 1, 8]\n"
    "input w : f32[t, s]\n"
    "input g : f32[200*u - s*u + 1]\n"
    "input m : f32[b ceildiv u, min(b, u), max(s, 2*b), b mod 3 + 1]\n"
    "y = add(x, v)\n"
    "w2 = relu(w)\n"
    "g2 = slice(g, begin=[0], size=[1])\n"
    "m2 = relu(m)\n"
    "output y\n"
    "output w2\n"
    "output g2\n"
    "output m2\n";

/* Return the graph of "text" parsed as "t.sg" in "ctx", without errors,
 * sharded. */
static sym_graph *
sharded(sym_ctx *ctx, const char *text)
{
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");

	assert_non_null(g);
	for (size_t i = 0; i < sym_graph_n_diagnostics(g); i++) {
		const sym_diagnostic *d = sym_graph_diagnostic(g, i);

		if (d->severity == SYM_SEV_ERROR)
			fail_msg("t.sg:%d:%d: %s", d->loc.line, d->loc.col,
			    d->message);
	}
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	return g;
}

/* Return the plan of "g" compiled with "flags", failing when there is
 * none. */
static sym_plan *
compiled(sym_graph *g, unsigned flags)
{
	sym_plan *p = sym_plan_compile(g, flags);

	if (!p)
		fail_msg("sym_plan_compile: %s",
		    sym_ctx_last_message(sym_graph_ctx(g)));
	return p;
}

/* Bind the symbol values "text" ("b=40, s=256") to "s" of "p"; return
 * what sym_plan_bind returned. */
static int
bind_text(const sym_plan *p, sym_slices *s, const char *text)
{
	sym_ctx *ctx = sym_graph_ctx(sym_plan_graph(p));
	sym_binding *b = sym_binding_new(ctx);
	int r;

	assert_int_equal(sym_binding_parse(b, text, NULL), 0);
	r = sym_plan_bind(p, b, s);
	sym_binding_free(b);
	return r;
}

/* Bind "text" to "s" of "p", failing with the message when it is
 * rejected. */
static void
bind_ok(const sym_plan *p, sym_slices *s, const char *text)
{
	if (bind_text(p, s, text) < 0)
		fail_msg("%s: %s", text, sym_slices_error(s));
	assert_int_equal(sym_slices_is_bound(s), 1);
}

/* Assert that binding "text" to "p" fails with "code" and the message
 * "want", both on the context and in the slices, which are unbound. */
static void
assert_rejected(const sym_plan *p, sym_slices *s, const char *text,
    sym_error code, const char *want)
{
	sym_ctx *ctx = sym_graph_ctx(sym_plan_graph(p));
	int64_t v[4];

	assert_int_equal(bind_text(p, s, text), -1);
	assert_int_equal(sym_ctx_last_error(ctx), code);
	assert_string_equal(sym_ctx_last_message(ctx), want);
	assert_string_equal(sym_slices_error(s), want);
	assert_int_equal(sym_slices_is_bound(s), 0);
	assert_int_equal(sym_slices_local(s, 0, v), -1);
	assert_int_equal(sym_slices_offset(s, 0, 0, v), -1);
	assert_null(sym_slices_offsets(s, 0));
	assert_null(sym_slices_local_sizes(s, 0));
	assert_int_equal(sym_slices_step_bytes(s, 0), -1);
	sym_ctx_clear_error(ctx);
}

/* Assert that the "n" integers "got" are "want". */
static void
assert_ints(const int64_t *got, const int64_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("element %zu is %lld, not %lld", i,
			    (long long)got[i], (long long)want[i]);
}

/* Return the home tensor of the value "name" of the graph of "p". */
static size_t
home(const sym_plan *p, const char *name)
{
	sym_value *v = sym_graph_find_value(sym_plan_graph(p), name);

	assert_non_null(v);
	return sym_plan_value_tensor(p, v);
}

/* Assert the local sizes and the offsets on "rank" of tensor "t" of
 * "s" ("n" dimensions). */
static void
assert_slice(const sym_slices *s, size_t t, int64_t rank, const int64_t *offset,
    const int64_t *size, size_t n)
{
	int64_t v[8];

	assert_int_equal(sym_slices_local(s, t, v), 0);
	assert_ints(v, size, n);
	assert_int_equal(sym_slices_offset(s, t, rank, v), 0);
	assert_ints(v, offset, n);
}

/* A graph of one device through the C API: x[b, 16] -> matmul -> relu;
 * a plan with two kernel steps over whole tensors, for any b. */
static void
test_one_device(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol_info bi = SYM_SYMBOL_INFO_INIT;
	sym_graph *g = sym_graph_new(ctx);
	sym_expr *d[2];
	sym_shape *sh;
	sym_value *x, *w, *in[2];
	sym_node *n1, *n2;
	sym_plan *p;
	sym_slices *s;
	int64_t v[2];
	const sym_plan_step *st;

	(void)state;
	bi.min = 2;
	assert_non_null(sym_symbol_new(ctx, "b", &bi, NULL));
	d[0] = sym_expr_parse(ctx, "b", NULL);
	d[1] = sym_expr_const(ctx, 16);
	sh = sym_shape_new(ctx, SYM_DT_F32, 2, d);
	x = sym_graph_add_input(g, "x", SYM_VALUE_INPUT, sh, NULL);
	sym_shape_free(sh);
	sym_expr_free(d[0]);
	d[0] = sym_expr_const(ctx, 16);
	sym_expr_free(d[1]);
	d[1] = sym_expr_const(ctx, 8);
	sh = sym_shape_new(ctx, SYM_DT_F32, 2, d);
	w = sym_graph_add_input(g, "w", SYM_VALUE_PARAM, sh, NULL);
	sym_shape_free(sh);
	sym_expr_free(d[0]);
	sym_expr_free(d[1]);
	in[0] = x;
	in[1] = w;
	n1 = sym_graph_add_op(g, "matmul", 1, (const char *[]){ "h" }, 2, in,
	    NULL, NULL);
	in[0] = sym_node_output(n1, 0);
	n2 = sym_graph_add_op(g, "relu", 1, (const char *[]){ "a" }, 1, in,
	    NULL, NULL);
	assert_int_equal(sym_graph_n_errors(g), 0);

	p = compiled(g, 0); /* one device, not sharded: whole tensors */
	assert_int_equal(sym_plan_n_ranks(p), 1);
	assert_int_equal(sym_plan_n_symbols(p), 1);
	assert_string_equal(sym_symbol_name(sym_plan_symbol(p, 0)), "b");
	assert_null(sym_plan_symbol(p, 1));
	assert_int_equal(sym_plan_n_steps(p), 2);
	assert_int_equal(sym_plan_n_tensors(p), 4);
	st = sym_plan_get_step(p, 0);
	assert_int_equal(st->kind, SYM_PLAN_KERNEL);
	assert_ptr_equal(st->node, n1);
	assert_int_equal(st->n_in, 2);
	assert_int_equal(st->n_out, 1);
	assert_int_equal(st->in[0], sym_plan_value_tensor(p, x));
	assert_int_equal(st->in[1], sym_plan_value_tensor(p, w));
	assert_int_equal(st->out[0],
	    sym_plan_value_tensor(p, sym_node_output(n1, 0)));
	st = sym_plan_get_step(p, 1);
	assert_ptr_equal(st->node, n2);
	assert_int_equal(st->in[0],
	    sym_plan_value_tensor(p, sym_node_output(n1, 0)));
	assert_null(sym_plan_get_step(p, 2));
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		assert_null(sym_plan_tensor_layout(p, t));
		assert_int_equal(sym_plan_tensor_ndim(p, t), 2);
	}
	assert_ptr_equal(sym_plan_tensor_value(p, 0), x);

	s = sym_slices_new(p);
	assert_non_null(s);
	assert_int_equal(sym_slices_is_bound(s), 0);
	assert_string_equal(sym_slices_error(s), "not bound");
	assert_int_equal(sym_plan_bind_values(p, (int64_t[]){ 5 }, s), 0);
	assert_int_equal(sym_slices_is_bound(s), 1);
	assert_string_equal(sym_slices_error(s), "");
	assert_int_equal(sym_slices_global(s, sym_plan_value_tensor(p, x), v),
	    0);
	assert_ints(v, (int64_t[]){ 5, 16 }, 2);
	assert_slice(s, sym_plan_value_tensor(p, sym_node_output(n2, 0)), 0,
	    (int64_t[]){ 0, 0 }, (int64_t[]){ 5, 8 }, 2);
	assert_int_equal(sym_slices_offset(s, 0, 1, v), -1); /* one rank */
	assert_int_equal(sym_slices_step_bytes(s, 0), 0);
	assert_int_equal(sym_slices_symbol(s, sym_plan_symbol(p, 0)), 5);
	assert_rejected(p, s, "b=1", SYM_EDOMAIN, "b = 1 violates min=2");
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The kind and the communication of each step of the feed-forward
 * network's plan. */
static const struct {
	sym_plan_step_kind kind;
	sym_redist_kind comm;
	const char *value;
} ffn_steps[] = {
	{ SYM_PLAN_KERNEL, 0, "x2" },
	{ SYM_PLAN_COMM, SYM_REDIST_ALL_TO_ALL, "x2" },
	{ SYM_PLAN_KERNEL, 0, "h1" },
	{ SYM_PLAN_COMM, SYM_REDIST_ALL_REDUCE, "h1" },
	{ SYM_PLAN_COMM, SYM_REDIST_SLICE, "h1" },
	{ SYM_PLAN_KERNEL, 0, "a1" },
	{ SYM_PLAN_COMM, SYM_REDIST_SLICE, "a1" },
	{ SYM_PLAN_COMM, SYM_REDIST_ALL_TO_ALL, "a1" },
	{ SYM_PLAN_KERNEL, 0, "h2" },
	{ SYM_PLAN_COMM, SYM_REDIST_ALL_REDUCE, "h2" },
	{ SYM_PLAN_COMM, SYM_REDIST_SLICE, "h2" },
	{ SYM_PLAN_KERNEL, 0, "a2" },
	{ SYM_PLAN_KERNEL, 0, "logits" },
	{ SYM_PLAN_KERNEL, 0, "loss" },
	{ SYM_PLAN_COMM, SYM_REDIST_ALL_REDUCE, "loss" },
};

/* Assert that the layouts "a" and "b" are equal (both may be NULL). */
static void
assert_same_layout(const sym_layout *a, const sym_layout *b)
{
	if (a == b)
		return;
	assert_non_null(a);
	assert_non_null(b);
	assert_true(sym_layout_is_equal(a, b));
}

/* Assert that the layouts "a" and "b" (of "n" dimensions, on 8 ranks)
 * place the same block of each dimension on every rank. */
static void
assert_same_blocks(const sym_layout *a, const sym_layout *b, size_t n)
{
	for (size_t d = 0; d < n; d++) {
		assert_int_equal(sym_layout_dim_splits(a, d),
		    sym_layout_dim_splits(b, d));
		for (int64_t r = 0; r < 8; r++)
			assert_int_equal(sym_layout_block(a, r, d),
			    sym_layout_block(b, r, d));
	}
}

/* The feed-forward network on 8 devices: the steps in order, each kernel
 * reading the layouts its node needs and writing those it produces, each
 * communication step one step of the graph's redistribution, in the
 * layout after it; home tensors in the values' layouts. */
static void
test_ffn_steps(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, ffn);
	sym_plan *p = compiled(g, 0);
	size_t n = sym_plan_n_steps(p);

	(void)state;
	assert_int_equal(sym_plan_n_ranks(p), 8);
	assert_int_equal(n, sizeof(ffn_steps) / sizeof(*ffn_steps));
	assert_int_equal(sym_plan_n_symbols(p), 1);
	for (size_t i = 0; i < n; i++) {
		const sym_plan_step *s = sym_plan_get_step(p, i);
		const sym_node *nd = s->node;

		assert_int_equal(s->kind, ffn_steps[i].kind);
		if (s->kind == SYM_PLAN_KERNEL) {
			assert_string_equal(sym_value_name(sym_node_output(nd,
			                        0)),
			    ffn_steps[i].value);
			assert_int_equal(s->n_in, sym_node_n_inputs(nd));
			assert_int_equal(s->n_out, 1);
			for (size_t k = 0; k < s->n_in; k++) {
				const sym_layout *l =
				    sym_plan_tensor_layout(p, s->in[k]);

				assert_ptr_equal(sym_plan_tensor_value(p,
				                     s->in[k]),
				    sym_node_input(nd, k));
				/* logits and loss read their inputs where
				 * the producer left them: equivalent layouts
				 * over other meshes, no communication */
				if (i >= 12)
					assert_same_blocks(l,
					    sym_node_input_layout(nd, k),
					    sym_plan_tensor_ndim(p, s->in[k]));
				else
					assert_same_layout(l,
					    sym_node_input_layout(nd, k));
			}
			assert_same_layout(sym_plan_tensor_layout(p, s->out[0]),
			    sym_node_output_layout(nd, 0));
			continue;
		}
		assert_int_equal(s->comm, ffn_steps[i].comm);
		assert_string_equal(sym_value_name(s->value),
		    ffn_steps[i].value);
		assert_int_equal(s->n_in, 1);
		assert_int_equal(s->n_out, 1);
		assert_int_equal(sym_redist_step_kind(s->redist,
		                     s->redist_step),
		    s->comm);
		assert_ptr_equal(sym_plan_tensor_value(p, s->in[0]), s->value);
		assert_ptr_equal(sym_plan_tensor_value(p, s->out[0]), s->value);
		if (s->redist_step + 1 < sym_redist_n_steps(s->redist))
			assert_same_layout(sym_plan_tensor_layout(p, s->out[0]),
			    sym_redist_step_layout(s->redist, s->redist_step));
		else if (s->input == SYM_PLAN_NO_INPUT)
			assert_same_layout(sym_plan_tensor_layout(p, s->out[0]),
			    sym_value_layout(s->value));
		else
			assert_same_layout(sym_plan_tensor_layout(p, s->out[0]),
			    sym_node_input_layout(nd, s->input));
		if (s->input == SYM_PLAN_NO_INPUT)
			assert_ptr_equal(sym_value_producer(s->value), nd);
		else
			assert_ptr_equal(sym_node_input(nd, s->input),
			    s->value);
	}
	/* the input of relu a1 arrives from h1's home by a slice */
	assert_int_equal(sym_plan_get_step(p, 4)->in[0], home(p, "h1"));
	assert_int_equal(sym_plan_get_step(p, 4)->input, 0);
	assert_int_equal(sym_plan_get_step(p, 3)->input, SYM_PLAN_NO_INPUT);
	for (size_t i = 0; i < sym_graph_n_values(g); i++) {
		sym_value *v = sym_graph_value(g, i);

		assert_same_layout(sym_plan_tensor_layout(p,
		                       sym_plan_value_tensor(p, v)),
		    sym_value_layout(v));
	}
	assert_int_equal(sym_plan_value_tensor(p, NULL), (size_t)-1);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The feed-forward network's slices at b = 8, 64 and 40 on ranks 0, 3
 * and 7: x and x2 split 8 ways by rows, x2 as matmul h1 needs it, h1's
 * partial sums and its home, a1 on the repeat mesh, the bytes of the
 * all_to_all. */
static void
test_ffn_numbers(void **state)
{
	static const int64_t bs[] = { 8, 64, 40 };
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, ffn);
	sym_plan *p = compiled(g, 0);
	sym_slices *s = sym_slices_new(p);
	const sym_plan_step *mm = sym_plan_get_step(p, 2);
	size_t x = home(p, "x"), h1 = home(p, "h1"), a1 = home(p, "a1");
	const int64_t *xl = NULL, *xo = NULL;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		int64_t b = bs[i], q = b / 8;

		assert_int_equal(sym_plan_bind_values(p, &b, s), 0);
		/* the borrowed arrays stay put from binding to binding, and
		 * each binding rewrites them in place */
		if (i == 0) {
			xl = sym_slices_local_sizes(s, x);
			xo = sym_slices_offsets(s, x);
		}
		assert_ptr_equal(sym_slices_local_sizes(s, x), xl);
		assert_ptr_equal(sym_slices_offsets(s, x), xo);
		assert_int_equal(xl[0], q);
		assert_int_equal(xo[7 * 4], 7 * q);
		assert_slice(s, x, 0, (int64_t[]){ 0, 0, 0, 0 },
		    (int64_t[]){ q, 1, 28, 28 }, 4);
		assert_slice(s, x, 7, (int64_t[]){ 7 * q, 0, 0, 0 },
		    (int64_t[]){ q, 1, 28, 28 }, 4);
		/* (m, k) on (m=2, k=4, n=1): rank 3 is m=0, k=3 */
		assert_slice(s, mm->in[0], 3, (int64_t[]){ 0, 588 },
		    (int64_t[]){ b / 2, 196 }, 2);
		assert_slice(s, mm->in[0], 7, (int64_t[]){ b / 2, 588 },
		    (int64_t[]){ b / 2, 196 }, 2);
		assert_slice(s, mm->in[1], 3, (int64_t[]){ 588, 0 },
		    (int64_t[]){ 196, 512 }, 2);
		assert_slice(s, mm->out[0], 5, (int64_t[]){ b / 2, 0 },
		    (int64_t[]){ b / 2, 512 }, 2);
		assert_slice(s, h1, 5, (int64_t[]){ b / 2, 0 },
		    (int64_t[]){ b / 2, 512 }, 2);
		/* (d0, d1) on (d0=4, d1=1, rep=2): rank 3 is d0=1 */
		assert_slice(s, a1, 3, (int64_t[]){ b / 4, 0 },
		    (int64_t[]){ b / 4, 512 }, 2);
		assert_int_equal(sym_slices_step_bytes(s, 1), 392 * b);
		assert_int_equal(sym_slices_step_bytes(s, 3), 1024 * b);
		assert_int_equal(sym_slices_step_bytes(s, 4), 0);
		assert_int_equal(sym_slices_step_bytes(s, 14), 4);
		assert_int_equal(sym_slices_step_bytes(s, 15), -1);
		/* b' was eliminated (b' = b): derived, not bound */
		assert_int_equal(sym_slices_symbol(s,
		                     sym_symbol_find(ctx, "b'")),
		    b);
	}
	assert_int_equal(sym_slices_symbol(s, NULL), -1);
	assert_int_equal(sym_plan_bind_values(p, (int64_t[]){ 12 }, s), -1);
	assert_null(sym_slices_local_sizes(s, x));
	assert_int_equal(sym_plan_bind_values(p, (int64_t[]){ 16 }, s), 0);
	assert_ptr_equal(sym_slices_local_sizes(s, x), xl);
	assert_ptr_equal(sym_slices_offsets(s, x), xo);
	assert_int_equal(xl[0], 2);
	assert_int_equal(xo[7 * 4], 14);
	assert_rejected(p, s, "b=1152921504606846976", SYM_EOVERFLOW,
	    "64-bit overflow computing the bytes of step 1 (all_to_all of x2 "
	    "for matmul h1 (input 0)) with b = 1152921504606846976");
	assert_rejected(p, s, "b'=16, b=8", SYM_EDOMAIN,
	    "b' = 16, b = 8 violate the derived relation b' = b at t.sg:16:10 "
	    "(dimension 0 of labels y (b') must equal dimension 0 of logits "
	    "logits (b))");
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Expressions of one tensor evaluated by the library's own functions:
 * global sizes, local sizes and offsets on every rank. */
struct reference {
	size_t rank;
	sym_expr **global, **local, **offset; /* offset: by rank, then dim */
};

/* Build the references of every tensor of "p" (in "ref"). */
static void
references(const sym_plan *p, struct reference *ref)
{
	int64_t nr = sym_plan_n_ranks(p);

	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		const sym_layout *l = sym_plan_tensor_layout(p, t);
		const sym_shape *sh =
		    sym_value_shape(sym_plan_tensor_value(p, t));
		size_t n = sym_shape_ndim(sh);

		ref[t].rank = n;
		ref[t].global = calloc(n + 1, sizeof(sym_expr *));
		ref[t].local = calloc(n + 1, sizeof(sym_expr *));
		ref[t].offset = calloc((size_t)nr * n + 1, sizeof(sym_expr *));
		assert_non_null(ref[t].offset);
		for (size_t d = 0; d < n; d++) {
			const sym_expr *e = sym_shape_dim(sh, d);

			ref[t].global[d] = sym_expr_copy(e);
			ref[t].local[d] = l ? sym_layout_local_dim(l, e, d)
			                    : sym_expr_copy(e);
			for (int64_t r = 0; r < nr; r++)
				ref[t].offset[(size_t)r * n + d] = l
				    ? sym_layout_offset(l, e, d, r)
				    : sym_expr_const(sym_expr_ctx(e), 0);
		}
	}
}

/* Free the references of the "n" tensors "ref" on "nr" ranks. */
static void
free_references(struct reference *ref, size_t n, int64_t nr)
{
	for (size_t t = 0; t < n; t++) {
		for (size_t d = 0; d < ref[t].rank; d++) {
			sym_expr_free(ref[t].global[d]);
			sym_expr_free(ref[t].local[d]);
		}
		for (size_t i = 0; i < (size_t)nr * ref[t].rank; i++)
			sym_expr_free(ref[t].offset[i]);
		free(ref[t].global);
		free(ref[t].local);
		free(ref[t].offset);
	}
}

/* Return the value of "e" at "b". */
static int64_t
eval(const sym_expr *e, const sym_binding *b)
{
	int64_t v;

	if (sym_expr_eval(e, b, &v) < 0)
		fail_msg("sym_expr_eval: %s",
		    sym_ctx_last_message(sym_expr_ctx(e)));
	return v;
}

/* A random admissible value of "sym" below "cap" (a simple generator
 * over "seed"). */
static int64_t
random_value(const sym_symbol *sym, uint64_t *seed, int64_t cap)
{
	sym_symbol_info in;
	int64_t lo = sym_symbol_least(sym), hi = sym_symbol_greatest(sym), k;

	sym_symbol_get_info(sym, &in);
	if (hi == 0 || hi > cap)
		hi = cap;
	*seed = *seed * 6364136223846793005u + 1442695040888963407u;
	k = (int64_t)((*seed >> 33) % (uint64_t)((hi - lo) / in.divisor + 1));
	return lo + k * in.divisor;
}

/* Check every slice of the plan of "text" (sharded) against the
 * library's layout functions at "n" random bindings. */
static void
cross_check(const char *text, int n)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, text);
	sym_plan *p = compiled(g, 0);
	sym_slices *s = sym_slices_new(p);
	size_t nt = sym_plan_n_tensors(p), ns = sym_plan_n_symbols(p);
	int64_t nr = sym_plan_n_ranks(p), vals[8], got[8];
	struct reference *ref = calloc(nt, sizeof(*ref));
	const int64_t *all;
	uint64_t seed = 42;

	assert_true(ns <= 8);
	references(p, ref);
	for (int it = 0; it < n; it++) {
		sym_binding *b = sym_binding_new(ctx);

		for (size_t i = 0; i < ns; i++) {
			vals[i] = random_value(sym_plan_symbol(p, i), &seed,
			    it < n / 2 ? 4096 : 1 << 20);
			sym_binding_set(b, sym_plan_symbol(p, i), vals[i]);
		}
		if (sym_plan_bind_values(p, vals, s) < 0)
			fail_msg("binding: %s", sym_slices_error(s));
		for (size_t t = 0; t < nt; t++) {
			size_t k = ref[t].rank;

			assert_int_equal(sym_slices_global(s, t, got), 0);
			for (size_t d = 0; d < k; d++)
				assert_int_equal(got[d],
				    eval(ref[t].global[d], b));
			assert_int_equal(sym_slices_local(s, t, got), 0);
			all = sym_slices_local_sizes(s, t);
			assert_non_null(all);
			for (size_t d = 0; d < k; d++) {
				assert_int_equal(got[d],
				    eval(ref[t].local[d], b));
				assert_int_equal(all[d], got[d]);
			}
			all = sym_slices_offsets(s, t);
			assert_non_null(all);
			for (int64_t r = 0; r < nr; r++) {
				int64_t want;

				assert_int_equal(sym_slices_offset(s, t, r,
				                     got),
				    0);
				for (size_t d = 0; d < k; d++) {
					want =
					    eval(ref[t]
					             .offset[(size_t)r * k + d],
					        b);
					assert_int_equal(got[d], want);
					assert_int_equal(all[(size_t)r * k + d],
					    want);
				}
			}
		}
		for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
			const sym_plan_step *st = sym_plan_get_step(p, i);

			if (st->kind == SYM_PLAN_COMM)
				assert_int_equal(sym_slices_step_bytes(s, i),
				    eval(sym_redist_step_bytes(st->redist,
				             st->redist_step),
				        b));
		}
		sym_binding_free(b);
	}
	free_references(ref, nt, nr);
	free(ref);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Randomized cross-check of every global size, local size, offset and
 * byte count against the layout functions and sym_expr_eval, on the
 * graphs above and on the examples of the source tree (every kind of
 * redistribution step among them). */
static void
test_cross_check(void **state)
{
	static const char *files[] = { "tp_mlp.sg", "megatron.sg", "seqpar.sg",
		"redist_all.sg", "transformer.sg" };

	(void)state;
	cross_check(ffn, 60);
	cross_check(transformer, 40);
	cross_check(layout_example, 2);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char path[256], *text;

		snprintf(path, sizeof(path), "examples/%s", files[i]);
		text = tl_read_source(path, NULL);
		cross_check(text, 20);
		free(text);
	}
}

/* The layout example (HACKING.md section 8): x laid out as (mp, (sp, dp)) on
 * (dp=2, sp=2, mp=2) puts row block 0 on ranks 0, 4, 2, 6 (columns 0 to
 * 3); the product's partial sums are resolved by a reduce_scatter along
 * dimension 0 in the order (mp, sp, dp). */
static void
test_layout_example(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, layout_example);
	sym_plan *p = compiled(g, 0);
	sym_slices *s = sym_slices_new(p);
	size_t x = home(p, "x"), y = home(p, "y");
	const sym_plan_step *st;

	(void)state;
	assert_int_equal(sym_plan_n_symbols(p), 0);
	assert_int_equal(sym_plan_bind_values(p, NULL, s), 0);
	/* reduce_scatter over sp, then over dp */
	assert_int_equal(sym_plan_n_steps(p), 3);
	for (size_t i = 1; i < 3; i++) {
		st = sym_plan_get_step(p, i);
		assert_int_equal(st->kind, SYM_PLAN_COMM);
		assert_int_equal(st->comm, SYM_REDIST_REDUCE_SCATTER);
		assert_int_equal(st->input, SYM_PLAN_NO_INPUT);
	}
	assert_int_equal(st->out[0], y);
	assert_int_equal(sym_plan_get_step(p, 2)->in[0],
	    sym_plan_get_step(p, 1)->out[0]);
	assert_int_equal(sym_slices_step_bytes(s, 1), 4 * 16 * 4);
	assert_int_equal(sym_slices_step_bytes(s, 2), 2 * 16 * 4);
	/* x is [8, 4]: 2 row blocks of 4 (mp), 4 column blocks of 1 */
	assert_slice(s, x, 0, (int64_t[]){ 0, 0 }, (int64_t[]){ 4, 1 }, 2);
	assert_slice(s, x, 4, (int64_t[]){ 0, 1 }, (int64_t[]){ 4, 1 }, 2);
	assert_slice(s, x, 2, (int64_t[]){ 0, 2 }, (int64_t[]){ 4, 1 }, 2);
	assert_slice(s, x, 6, (int64_t[]){ 0, 3 }, (int64_t[]){ 4, 1 }, 2);
	assert_slice(s, x, 1, (int64_t[]){ 4, 0 }, (int64_t[]){ 4, 1 }, 2);
	/* y is [8, 16] in 8 row blocks, (mp, sp, dp): rank 1 (mp=1) holds
	 * block 4 */
	assert_slice(s, y, 1, (int64_t[]){ 4, 0 }, (int64_t[]){ 1, 16 }, 2);
	assert_slice(s, y, 2, (int64_t[]){ 2, 0 }, (int64_t[]){ 1, 16 }, 2);
	assert_slice(s, y, 4, (int64_t[]){ 1, 0 }, (int64_t[]){ 1, 16 }, 2);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* SYM_PLAN_SINGLE ignores the sharding: one rank, the kernels only,
 * whole tensors, one per value. */
static void
test_single(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, ffn);
	sym_plan *p = compiled(g, SYM_PLAN_SINGLE);
	sym_slices *s = sym_slices_new(p);
	int64_t b = 40;

	(void)state;
	assert_int_equal(sym_plan_n_ranks(p), 1);
	assert_int_equal(sym_plan_n_steps(p), 7);
	assert_int_equal(sym_plan_n_tensors(p), sym_graph_n_values(g));
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(sym_plan_get_step(p, i)->kind,
		    SYM_PLAN_KERNEL);
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++)
		assert_null(sym_plan_tensor_layout(p, t));
	assert_int_equal(sym_plan_bind_values(p, &b, s), 0);
	assert_slice(s, home(p, "x2"), 0, (int64_t[]){ 0, 0 },
	    (int64_t[]){ 40, 784 }, 2);
	assert_slice(s, home(p, "loss"), 0, NULL, NULL, 0);
	assert_int_equal(sym_slices_offset(s, home(p, "x2"), 1, &b), -1);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A value two consumers need in the same layout is redistributed once,
 * and both read the same tensor. */
static void
test_reuse(void **state)
{
	static const char text[] = "devices 8\n"
	                           "symbol b divisor=8\n"
	                           "input x : f32[b, 64]\n"
	                           "param w : f32[64, 64]\n"
	                           "param v : f32[64, 64]\n"
	                           "r = relu(x) shard ((8, 1),)\n"
	                           "h = matmul(r, w) shard ((1, 8), (8, 1))\n"
	                           "k = matmul(r, v) shard ((1, 8), (8, 1))\n"
	                           "y = add(h, k)\n"
	                           "output y\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, text);
	sym_plan *p = compiled(g, 0);
	const sym_value *r = sym_graph_find_value(g, "r");
	size_t moved = 0, comms = 0, in_h = 0, in_k = 0;

	(void)state;
	for (size_t i = 0; i < sym_graph_n_reshards(g); i++)
		comms += sym_graph_reshard(g, i)->value == r;
	assert_int_equal(comms, 2); /* the graph plans one per consumer */
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *s = sym_plan_get_step(p, i);
		const char *out = sym_value_name(sym_node_output(s->node, 0));

		if (s->kind == SYM_PLAN_COMM && s->value == r)
			moved++;
		if (s->kind == SYM_PLAN_KERNEL && !strcmp(out, "h"))
			in_h = s->in[0];
		if (s->kind == SYM_PLAN_KERNEL && !strcmp(out, "k"))
			in_k = s->in[0];
	}
	assert_int_equal(moved,
	    sym_redist_n_steps(sym_graph_reshard(g, 0)->value == r
	            ? sym_graph_reshard(g, 0)->plan
	            : sym_graph_reshard(g, 1)->plan));
	assert_true(moved > 0);
	assert_int_equal(in_h, in_k);
	assert_int_not_equal(in_h, home(p, "r"));
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Every kind of check failing, with its exact message; skipped optional
 * checks; bound values of eliminated variables. */
static void
test_check_messages(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, checks);
	sym_plan *p = compiled(g, 0);
	sym_slices *s = sym_slices_new(p);
	int64_t v[4];
	char *text;

	(void)state;
	assert_int_equal(sym_plan_n_symbols(p), 4);
	assert_string_equal(sym_symbol_name(sym_plan_symbol(p, 0)), "b");
	assert_string_equal(sym_symbol_name(sym_plan_symbol(p, 1)), "t");
	assert_string_equal(sym_symbol_name(sym_plan_symbol(p, 2)), "s");
	assert_string_equal(sym_symbol_name(sym_plan_symbol(p, 3)), "u");
	/* unification's fact c == b - 1 is checked once, as derived */
	text = sym_plan_to_str(p);
	assert_non_null(text);
	assert_non_null(strstr(text,
	    "  derived   derived relation c = b - 1 "
	    "at t.sg:13:5 ("));
	assert_non_null(strstr(text,
	    "  given     derived relation c = b - 1 "
	    "at t.sg:13:5 ("));
	assert_null(strstr(text, "  relation  relation c"));
	assert_non_null(strstr(text,
	    "  relation  relation t = s + 128 "
	    "declared at t.sg:7:10\n"));
	assert_non_null(strstr(text,
	    "  guard     guard 200*u - s*u + 1 >= 1 "
	    "required at t.sg:15:6 ("));
	/* the input's dimension the prover cannot show positive */
	assert_non_null(strstr(text,
	    "  guard     guard 200*u - s*u + 1 >= 1 "
	    "required at t.sg:11:7 (dimension 0 of g)\n"));
	assert_non_null(strstr(text,
	    "  size      dimension 0 of g declared at "
	    "t.sg:11:7\n"));
	free(text);
	bind_ok(p, s, "b=4, s=128, t=256, u=3");
	assert_int_equal(sym_slices_symbol(s, sym_symbol_find(ctx, "c")), 3);
	assert_int_equal(sym_slices_global(s, home(p, "m"), v), 0);
	/* b ceildiv u, min(b, u), max(s, 2*b), b mod 3 + 1 */
	assert_ints(v, (int64_t[]){ 2, 3, 128, 2 }, 4);
	bind_ok(p, s, "b=10, s=128, t=256, u=3, c=9");
	assert_int_equal(sym_slices_global(s, home(p, "m"), v), 0);
	assert_ints(v, (int64_t[]){ 4, 3, 128, 2 }, 4);

	assert_rejected(p, s, "b=7, s=128, t=256, u=1", SYM_EDOMAIN,
	    "b = 7 violates divisor=2 declared at t.sg:2:8");
	assert_rejected(p, s, "b=4, s=64, t=192, u=1", SYM_EDOMAIN,
	    "s = 64 violates min=128 declared at t.sg:4:8");
	assert_rejected(p, s, "b=4, s=8192, t=8320, u=1", SYM_EDOMAIN,
	    "s = 8192 violates max=4096 declared at t.sg:4:8");
	assert_rejected(p, s, "b=4, s=200, t=328, u=1", SYM_EDOMAIN,
	    "s = 200 violates divisor=128 declared at t.sg:4:8");
	assert_rejected(p, s, "b=6, s=128, t=256, u=1", SYM_EDOMAIN,
	    "b = 6 gives c = 5 by the derived relation c = b - 1 at "
	    "t.sg:13:5 (dimension 0 of x (b) must equal dimension 0 of v "
	    "(c + 1), or one of them must be 1 (broadcasting)), which "
	    "violates divisor=3 declared at t.sg:3:8");
	assert_rejected(p, s, "b=4, s=128, t=256, u=1, c=6", SYM_EDOMAIN,
	    "c = 6, b = 4 violate the derived relation c = b - 1 at "
	    "t.sg:13:5 (dimension 0 of x (b) must equal dimension 0 of v "
	    "(c + 1), or one of them must be 1 (broadcasting))");
	assert_rejected(p, s, "b=4, s=128, t=300, u=1", SYM_EDOMAIN,
	    "t = 300, s = 128 violate relation t = s + 128 declared at "
	    "t.sg:7:10");
	/* the input's guard comes before the slice's, which says the same */
	assert_rejected(p, s, "b=4, s=256, t=384, u=1", SYM_EDOMAIN,
	    "u = 1, s = 256 violate guard 200*u - s*u + 1 >= 1 required at "
	    "t.sg:11:7 (dimension 0 of g)");
	assert_rejected(p, s, "b=4, s=128", SYM_EUNBOUND,
	    "no value for symbol t (declared at t.sg:5:8)");
	assert_rejected(p, s, "b=4, s=128, t=256, u=4611686018427387904",
	    SYM_EOVERFLOW,
	    "64-bit overflow computing guard 200*u - s*u + 1 >= 1 required "
	    "at t.sg:11:7 (dimension 0 of g) with u = 4611686018427387904, "
	    "s = 128");
	/* the slices bind again after failures */
	bind_ok(p, s, "b=10, s=128, t=256, u=3");
	assert_int_equal(sym_slices_global(s, home(p, "x"), v), 0);
	assert_ints(v, (int64_t[]){ 10, 8 }, 2);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The size of an input the prover cannot show positive is checked: by
 * the guard the graph records for it (the plan's own size check, a last
 * line of defence, comes after it). */
static void
test_size_check(void **state)
{
	static const char text[] =
	    "symbol s min=128 max=4096 divisor=128 unique\n"
	    "symbol t unique\n"
	    "symbol u unique\n"
	    "relation t = s + 128\n"
	    "input g : f32[200*u - s*u + 1, t]\n"
	    "h = relu(g)\n"
	    "output h\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, text);
	sym_plan *p = compiled(g, 0);
	sym_slices *s = sym_slices_new(p);

	(void)state;
	bind_ok(p, s, "s=128, t=256, u=5");
	assert_int_equal(sym_graph_n_guards(g), 1);
	assert_string_equal(sym_graph_guard(g, 0)->text,
	    "200*u - s*u + 1 >= 1");
	assert_rejected(p, s, "s=256, t=384, u=5", SYM_EDOMAIN,
	    "u = 5, s = 256 violate guard 200*u - s*u + 1 >= 1 required at "
	    "t.sg:5:7 (dimension 0 of g)");
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Instances (issue 14, item 1): y : f32[b] tied to x by no operator gets
 * the instance b'; a binding of b gives b' its value unless it names b'
 * itself. Where b is derived from b' (b = 2*b'), it cannot, and the
 * message says which dimension is b' and how to bind it. */
static void
test_instance_binding(void **state)
{
	static const char text[] = "devices 2\n"
	                           "symbol b divisor=2\n"
	                           "input x : f32[b, 4]\n"
	                           "input y : f32[b]\n"
	                           "output x, y\n";
	static const char derived[] = "symbol b\n"
	                              "input x : f32[b]\n"
	                              "input y : f32[2*b]\n"
	                              "z = add(y, x)\n"
	                              "output z\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, text);
	sym_plan *p = compiled(g, 0);
	sym_slices *s = sym_slices_new(p);
	int64_t v[2];

	(void)state;
	assert_int_equal(sym_plan_n_symbols(p), 2);
	bind_ok(p, s, "b=8");
	assert_int_equal(sym_slices_global(s, home(p, "x"), v), 0);
	assert_int_equal(v[0], 8);
	assert_int_equal(sym_slices_global(s, home(p, "y"), v), 0);
	assert_int_equal(v[0], 8);
	bind_ok(p, s, "b=8, b'=6");
	assert_int_equal(sym_slices_global(s, home(p, "y"), v), 0);
	assert_int_equal(v[0], 6);
	assert_rejected(p, s, "b'=6", SYM_EUNBOUND,
	    "no value for symbol b (declared at t.sg:2:8)");
	assert_rejected(p, s, "b=8, b'=5", SYM_EDOMAIN,
	    "b' = 5 violates divisor=2 declared at t.sg:2:8");
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);

	ctx = tl_ctx_new();
	g = sharded(ctx, derived);
	p = compiled(g, 0);
	s = sym_slices_new(p);
	assert_rejected(p, s, "b=8", SYM_EUNBOUND,
	    "no value for symbol b', the instance of b in dimension 0 of y "
	    "(declared at t.sg:1:8): bind b' itself (b is derived from "
	    "other symbols, so it gives its instances no value)");
	bind_ok(p, s, "b'=4");
	bind_ok(p, s, "b=8, b'=4");
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* A redistribution from a 4-way split of b to an 8-way split of the
 * other dimension, with b a multiple of 4 only: the planner passes through
 * layouts that divide every admissible b (all_to_all, then a slice), so
 * every such b binds and the divisibility of every split dimension, the
 * plan's last line of defence, holds; b = 6 violates the declaration. */
static void
test_split_check(void **state)
{
	static const char text[] =
	    "devices 8\n"
	    "symbol b divisor=4\n"
	    "input  x  : f32[b, 512]\n"
	    "param  w2 : f32[512, 512]\n"
	    "a1     = relu(x)        shard ((4, 1),)\n"
	    "h2     = matmul(a1, w2)  shard ((1, 8), (8, 1))\n"
	    "output h2\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, text);
	sym_plan *p = compiled(g, 0);
	sym_slices *s = sym_slices_new(p);
	size_t n_comm = 0;

	(void)state;
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *st = sym_plan_get_step(p, i);

		if (st->kind != SYM_PLAN_COMM || st->input != 0 ||
		    strcmp(sym_value_name(st->value), "a1") != 0)
			continue;
		assert_int_equal(st->comm,
		    n_comm == 0 ? SYM_REDIST_ALL_TO_ALL : SYM_REDIST_SLICE);
		n_comm++;
	}
	assert_int_equal(n_comm, 2);
	bind_ok(p, s, "b=4");
	bind_ok(p, s, "b=8");
	bind_ok(p, s, "b=12");
	assert_rejected(p, s, "b=6", SYM_EDOMAIN,
	    "b = 6 violates divisor=4 declared at t.sg:2:8");
	bind_ok(p, s, "b=16");
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Overflow of a size and of a byte count, division by zero, a remainder
 * class, and symbols only a declared relation names (optional). */
static void
test_overflow_and_optional(void **state)
{
	static const char text[] = "symbol b divisor=8 remainder=3\n"
	                           "symbol s min=128 unique\n"
	                           "symbol t unique\n"
	                           "relation t = s + 128\n"
	                           "input x : f32[b, 4]\n"
	                           "h = relu(x)\n"
	                           "output h\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sharded(ctx, text);
	sym_plan *p, *f;
	sym_slices *s;
	sym_symbol *sy, *ty;
	sym_expr *lhs, *rhs;

	(void)state;
	p = compiled(g, 0);
	s = sym_slices_new(p);
	assert_int_equal(sym_plan_n_symbols(p), 1);
	bind_ok(p, s, "b=11");
	bind_ok(p, s, "b=11, s=128, t=256");
	assert_int_equal(sym_plan_bind_values(p, (int64_t[]){ 19 }, s), 0);
	assert_rejected(p, s, "b=12", SYM_EDOMAIN,
	    "b = 12 violates divisor=8 remainder=3 declared at t.sg:1:8");
	assert_rejected(p, s, "b=3", SYM_EDOMAIN,
	    "b = 3 violates divisor=8 remainder=3 declared at t.sg:1:8");
	assert_rejected(p, s, "b=11, s=128, t=255", SYM_EDOMAIN,
	    "t = 255, s = 128 violate relation t = s + 128 declared at "
	    "t.sg:4:10");
	assert_rejected(p, s, "b=11, s=100", SYM_EDOMAIN,
	    "s = 100 violates min=128 declared at t.sg:2:8");
	/* only s given: the relation cannot be checked, and is skipped */
	bind_ok(p, s, "b=11, s=256");
	sym_slices_free(s);
	sym_plan_free(p);

	/* a relation dividing by s - 128 (0 at s = 128), and a size whose
	 * bytes overflow */
	sy = sym_symbol_find(ctx, "s");
	ty = sym_symbol_find(ctx, "t");
	lhs = sym_expr_symbol(ty);
	rhs = sym_expr_floordiv(sym_expr_const(ctx, 1000),
	    sym_expr_add_si(sym_expr_symbol(sy), -128));
	assert_int_equal(sym_graph_add_relation(g, lhs, SYM_GE, rhs, NULL), 0);
	sym_expr_free(lhs);
	sym_expr_free(rhs);
	f = compiled(g, 0);
	s = sym_slices_new(f);
	bind_ok(f, s, "b=11, s=256, t=384");
	assert_rejected(f, s, "b=11, s=128, t=256", SYM_EDIVZERO,
	    "division by 0 computing relation t >= 1000 floordiv (s - 128) "
	    "with t = 256, s = 128");
	sym_slices_free(s);
	sym_plan_free(f);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* Compiling refuses graphs with errors and unsharded graphs of several
 * devices; the listing of a plan and of its slices. */
static void
test_refusals_and_text(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, ffn, "t.sg");
	sym_plan *p;
	sym_slices *s;
	char *text;

	(void)state;
	assert_null(sym_plan_compile(g, 0));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "cannot compile a plan: the graph of several devices is not "
	    "sharded (call sym_graph_shard, or compile with "
	    "SYM_PLAN_SINGLE)");
	p = compiled(g, SYM_PLAN_SINGLE);
	sym_plan_free(p);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	p = compiled(g, 0);
	text = sym_plan_to_str(p);
	assert_non_null(text);
	assert_non_null(strstr(text, "plan: 8 ranks, 15 steps, 20 tensors"));
	assert_non_null(strstr(text,
	    "  1  comm all_to_all of x2 for matmul "
	    "h1 (input 0): t5 -> t6  S = 392*b "
	    "bytes\n"));
	assert_non_null(strstr(text,
	    "  t6  x2  (m, k) on (m=2, k=4, n=1)  "
	    "global [b, 784]  local [b floordiv 2, "
	    "196]\n"));
	assert_non_null(strstr(text,
	    "  symbol b divisor=8 declared at "
	    "t.sg:2:8\n"));
	free(text);
	s = sym_slices_new(p);
	text = sym_slices_to_str(s, 0);
	assert_string_equal(text, "not bound: not bound\n");
	free(text);
	assert_int_equal(sym_plan_bind_values(p, (int64_t[]){ 16 }, s), 0);
	assert_null(sym_slices_to_str(s, 8));
	text = sym_slices_to_str(s, -1);
	assert_non_null(text);
	assert_non_null(strstr(text, "b = 16\nrank 0\n"));
	assert_non_null(strstr(text,
	    "rank 7\n  0  kernel reshape x2\n"
	    "    in  x (t0)  offset [14, 0, 0, 0]  "
	    "size [2, 1, 28, 28]\n"));
	assert_non_null(strstr(text,
	    "  1  comm all_to_all of x2 for matmul "
	    "h1 (input 0)  6272 bytes\n"));
	free(text);
	sym_slices_free(s);
	sym_plan_free(p);
	/* slices of another plan */
	p = compiled(g, 0);
	s = sym_slices_new(p);
	{
		sym_plan *q = compiled(g, 0);

		assert_int_equal(sym_plan_bind_values(q, (int64_t[]){ 8 }, s),
		    -1);
		assert_string_equal(sym_slices_error(s),
		    "slices of another plan");
		sym_plan_free(q);
	}
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_error(g, NULL, "an error");
	assert_null(sym_plan_compile(g, 0));
	assert_string_equal(sym_ctx_last_message(ctx),
	    "cannot compile a plan: the graph has errors");
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

/* The program shares common subexpressions: b*s + 1 used by two values
 * and twice by one costs one product, one constant and one sum. */
/* Return the number of instructions of the single-device plan of a
 * graph with the inputs x1..x40 of sizes b*s*(i + 2) + i, and an input
 * of size b*s after them when "with_bs". */
static size_t
many_sizes_instructions(int with_bs)
{
	char text[4096];
	size_t len = 0, n;
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g;
	sym_plan *p;

	len += (size_t)snprintf(text + len, sizeof(text) - len,
	    "symbol b unique\nsymbol s unique\n");
	for (int i = 1; i <= 40; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		    "input x%d : f32[b*s*%d + %d]\n", i, i + 2, i);
	if (with_bs)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		    "input y : f32[b*s]\n");
	snprintf(text + len, sizeof(text) - len, "z = relu(x1)\noutput z\n");
	g = sym_graph_parse(ctx, text, "t.sg");
	p = compiled(g, SYM_PLAN_SINGLE);
	n = sym_plan_n_instructions(p);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
	return n;
}

/* Equal instructions are emitted once however large the program grows:
 * its table of common subexpressions keeps finding them after it has
 * grown (it lost them once it passed 32 entries). */
static void
test_program_cse_large(void **state)
{
	(void)state;
	/* b, s, b*s; the constants 1..42; 40 products and 40 sums */
	assert_int_equal(many_sizes_instructions(0), 2 + 1 + 42 + 40 + 40);
	/* b*s is already an instruction */
	assert_int_equal(many_sizes_instructions(1), 125);
}

static void
test_program_cse(void **state)
{
	static const char text[] = "symbol b unique\n"
	                           "symbol s unique\n"
	                           "input x : f32[b*s + 1, b*s + 1, s]\n"
	                           "y = relu(x)\n"
	                           "z = exp(y)\n"
	                           "output z\n";
	sym_ctx *ctx = tl_ctx_new();
	sym_graph *g = sym_graph_parse(ctx, text, "t.sg");
	sym_plan *p = compiled(g, SYM_PLAN_SINGLE);
	sym_slices *s = sym_slices_new(p);
	int64_t v[3];

	(void)state;
	/* b, s; b*s, 1, b*s + 1 */
	assert_int_equal(sym_plan_n_instructions(p), 5);
	assert_int_equal(sym_plan_n_checks(p), 2);
	assert_int_equal(sym_plan_bind_values(p, (int64_t[]){ 3, 7 }, s), 0);
	assert_int_equal(sym_slices_global(s, home(p, "z"), v), 0);
	assert_ints(v, (int64_t[]){ 22, 22, 7 }, 3);
	assert_rejected(p, s, "b=4294967296, s=4294967296", SYM_EOVERFLOW,
	    "64-bit overflow computing dimension 0 of x (size b*s + 1) with "
	    "b = 4294967296, s = 4294967296");
	sym_slices_free(s);
	sym_plan_free(p);
	sym_graph_free(g);
	tl_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_device),
		cmocka_unit_test(test_ffn_steps),
		cmocka_unit_test(test_ffn_numbers),
		cmocka_unit_test(test_cross_check),
		cmocka_unit_test(test_layout_example),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_check_messages),
		cmocka_unit_test(test_size_check),
		cmocka_unit_test(test_split_check),
		cmocka_unit_test(test_overflow_and_optional),
		cmocka_unit_test(test_refusals_and_text),
		cmocka_unit_test(test_program_cse),
		cmocka_unit_test(test_program_cse_large),
		cmocka_unit_test(test_instance_binding),
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
