/* SPDX-License-Identifier: MIT */
/*
 * What the pipeline and inputs targets print and check of a sharded graph
 * and its slice plans: every layout, strategy and communication as
 * shape-check prints them; that the steps of a plan read only tensors
 * written before them; and that bound slices agree with the layouts, the
 * shapes, the other accessors and the single-device plan.
 */
#include <stdlib.h>
#include <string.h>

#include "targets.h"

/* Plan tensors of more dimensions are not checked. */
#define MAX_DIMS 16

/* Return 0 when "text" (what a printer returned) is a string, else -1
 * after saying that "what" printed nothing. Frees "text". */
int
fuzz_printed(char *text, const char *what)
{
	if (!text)
		return fuzz_fail("%s returned NULL", what);
	free(text);
	return 0;
}

/* Print the layout, local shape and tensor map of every value of "g";
 * return 0, or -1 when a printer fails. */
static int
print_layouts(const sym_graph *g)
{
	for (size_t i = 0; i < sym_graph_n_values(g); i++) {
		const sym_value *v = sym_graph_value(g, i);
		const sym_layout *l = sym_value_layout(v);
		sym_shape *local;
		int map[64];

		if (!l)
			continue;
		if (fuzz_printed(sym_layout_to_str(l), "sym_layout_to_str") < 0)
			return -1;
		if (sym_layout_ndim(l) != sym_shape_ndim(sym_value_shape(v)))
			return fuzz_fail("value %s: layout of %zu dimensions "
			                 "for a shape of %zu",
			    sym_value_name(v), sym_layout_ndim(l),
			    sym_shape_ndim(sym_value_shape(v)));
		for (size_t d = 0; d < sym_layout_ndim(l); d++)
			if (sym_layout_tensor_map(l, d, 64, map) < 0)
				return fuzz_fail("value %s: no tensor map",
				    sym_value_name(v));
		local = sym_layout_local_shape(l, sym_value_shape(v));
		if (!local)
			return fuzz_fail("value %s: no local shape",
			    sym_value_name(v));
		free(sym_shape_to_str(local));
		sym_shape_free(local);
	}
	return 0;
}

/* Print the strategy, mesh and layouts of every node of "g"; return 0,
 * or -1 when a printer fails. */
static int
print_strategies(const sym_graph *g)
{
	for (size_t i = 0; i < sym_graph_n_nodes(g); i++) {
		const sym_node *n = sym_graph_node(g, i);
		const sym_mesh *m = sym_node_mesh(n);

		free(sym_node_strategy_to_str(n));
		if (m &&
		    fuzz_printed(sym_mesh_to_str(m), "sym_mesh_to_str") < 0)
			return -1;
		for (size_t k = 0; k < sym_node_n_inputs(n); k++) {
			const sym_layout *l = sym_node_input_layout(n, k);

			if (l &&
			    fuzz_printed(sym_layout_to_str(l),
			        "sym_layout_to_str") < 0)
				return -1;
		}
		for (size_t k = 0; k < sym_node_n_outputs(n); k++) {
			const sym_layout *l = sym_node_output_layout(n, k);

			if (l &&
			    fuzz_printed(sym_layout_to_str(l),
			        "sym_layout_to_str") < 0)
				return -1;
		}
	}
	return 0;
}

/* Print step "i" of the redistribution "r" as shape-check does, its
 * time at the binding "b" (may be NULL); return 0 or -1. */
static int
print_redist_step(const sym_redist *r, size_t i, const sym_binding *b)
{
	int axes[SYM_MESH_MAX_AXES], from, to;
	size_t n_axes = sym_redist_step_axes(r, i, SYM_MESH_MAX_AXES, axes);
	size_t size = 0, groups = sym_redist_step_groups(r, i, &size);
	const sym_layout *after = sym_redist_step_layout(r, i);

	(void)sym_redist_kind_name(sym_redist_step_kind(r, i));
	if (n_axes > SYM_MESH_MAX_AXES)
		return fuzz_fail("redistribution step %zu over %zu axes", i,
		    n_axes);
	if (sym_redist_step_dims(r, i, &from, &to) < 0)
		return fuzz_fail("redistribution step %zu has no dimensions",
		    i);
	for (size_t k = 0; k < groups && k < 4; k++)
		for (size_t m = 0; m < size && m < 8; m++)
			if (sym_redist_step_group_rank(r, i, k, m) < 0)
				return fuzz_fail("redistribution step %zu: "
				                 "member %zu of group %zu",
				    i, m, k);
	if (!sym_redist_step_bytes(r, i))
		return fuzz_fail("redistribution step %zu has no bytes", i);
	if (fuzz_printed(sym_expr_to_str(sym_redist_step_bytes(r, i)),
	        "sym_expr_to_str") < 0)
		return -1;
	if (!after)
		return fuzz_fail("redistribution step %zu has no layout", i);
	if (fuzz_printed(sym_layout_to_str(after), "sym_layout_to_str") < 0)
		return -1;
	(void)sym_redist_step_seconds(r, i, b);
	return 0;
}

/* Print the redistribution "r" and each of its steps as shape-check
 * does, with their times at the binding "b" (may be NULL); return 0, or
 * -1 when something is missing. */
int
fuzz_print_redist(const sym_redist *r, const sym_binding *b)
{
	if (fuzz_printed(sym_redist_to_str(r), "sym_redist_to_str") < 0)
		return -1;
	for (size_t k = 0; k < sym_redist_n_steps(r); k++)
		if (print_redist_step(r, k, b) < 0)
			return -1;
	(void)sym_redist_full_gather(r);
	return 0;
}

/* Print every communication of "g" and the steps of its plan, with
 * their times at the binding "b" (may be NULL); return 0 or -1. */
int
fuzz_print_comms(const sym_graph *g, const sym_binding *b)
{
	for (size_t i = 0; i < sym_graph_n_reshards(g); i++) {
		const sym_reshard *c = sym_graph_reshard(g, i);

		if (!c || !c->value || !c->plan)
			return fuzz_fail("communication %zu is incomplete", i);
		if (fuzz_print_redist(c->plan, b) < 0)
			return -1;
	}
	return 0;
}

/* Print the layouts, strategies and communications of the sharded graph
 * "g"; return 0, or -1 when something is missing. */
int
fuzz_print_sharding(const sym_graph *g)
{
	if (print_layouts(g) < 0 || print_strategies(g) < 0 ||
	    fuzz_print_comms(g, NULL) < 0)
		return -1;
	return 0;
}

/* Return 1 when "t", the home tensor of "v" in "p", is that of the
 * input its producer updates in place as "v" (an optimizer update on a
 * shard gathered back into the param's buffer: optimizer_shard). */
static int
in_place(const sym_plan *p, const sym_value *v, size_t t)
{
	const sym_node *n = sym_value_producer(v);

	for (size_t k = 0; n && k < sym_node_n_outputs(n); k++)
		if (sym_node_output(n, k) == v && k < sym_node_n_inputs(n))
			return sym_plan_value_tensor(p, sym_node_input(n, k)) ==
			    t;
	return 0;
}

/* Return 0 when the steps of "p" read only tensors written before them
 * (or the home tensors of inputs and parameters), each tensor of a step
 * holding the value the step says; else -1. "single" is 1 for a plan
 * compiled with SYM_PLAN_SINGLE. */
static int
check_steps(const sym_plan *p, int single)
{
	size_t nt = sym_plan_n_tensors(p);
	char *ready = calloc(nt + 1, 1);
	int res = 0;

	if (!ready)
		return 0;
	for (size_t i = 0; i < sym_graph_n_values(sym_plan_graph(p)); i++) {
		const sym_value *v = sym_graph_value(sym_plan_graph(p), i);
		size_t t = sym_plan_value_tensor(p, v);

		if (t >= nt) {
			res = fuzz_fail("value %s has no home tensor",
			    sym_value_name(v));
			goto out;
		}
		if (sym_plan_tensor_value(p, t) != v && !in_place(p, v, t)) {
			res = fuzz_fail("the home tensor of %s holds %s",
			    sym_value_name(v),
			    sym_value_name(sym_plan_tensor_value(p, t)));
			goto out;
		}
		if (sym_value_get_kind(v) != SYM_VALUE_RESULT)
			ready[t] = 1;
	}
	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		const sym_plan_step *st = sym_plan_get_step(p, i);

		if (!st) {
			res = fuzz_fail("step %zu is missing", i);
			goto out;
		}
		if (st->kind == SYM_PLAN_COMM &&
		    (single || st->n_in != 1 || st->n_out != 1 || !st->redist ||
		        st->redist_step >= sym_redist_n_steps(st->redist) ||
		        st->comm !=
		            sym_redist_step_kind(st->redist,
		                st->redist_step))) {
			res =
			    fuzz_fail("communication step %zu is malformed", i);
			goto out;
		}
		if (st->kind == SYM_PLAN_KERNEL &&
		    (!st->node || st->n_in != sym_node_n_inputs(st->node) ||
		        st->n_out != sym_node_n_outputs(st->node))) {
			res = fuzz_fail("kernel step %zu is malformed", i);
			goto out;
		}
		for (size_t k = 0; k < st->n_in; k++) {
			const sym_value *want = st->kind == SYM_PLAN_KERNEL
			    ? sym_node_input(st->node, k)
			    : st->value;

			if (st->in[k] >= nt || !ready[st->in[k]] ||
			    (sym_plan_tensor_value(p, st->in[k]) != want &&
			        !in_place(p, want, st->in[k]))) {
				res = fuzz_fail("step %zu reads tensor %zu "
				                "before it is written, or of "
				                "another value",
				    i, st->in[k]);
				goto out;
			}
		}
		for (size_t k = 0; k < st->n_out; k++) {
			const sym_value *want = st->kind == SYM_PLAN_KERNEL
			    ? sym_node_output(st->node, k)
			    : st->value;

			if (st->out[k] >= nt ||
			    (sym_plan_tensor_value(p, st->out[k]) != want &&
			        !in_place(p, want, st->out[k]))) {
				res = fuzz_fail("step %zu writes tensor %zu "
				                "of another value",
				    i, st->out[k]);
				goto out;
			}
			ready[st->out[k]] = 1;
		}
	}
out:
	free(ready);
	return res;
}

/* Return 0 when "p" is a well-formed plan of its graph ("single": one
 * compiled with SYM_PLAN_SINGLE) and lists, else -1. */
int
fuzz_check_plan(const sym_plan *p, int single)
{
	int64_t devices = sym_graph_n_devices(sym_plan_graph(p));

	if (single && sym_plan_n_ranks(p) != 1)
		return fuzz_fail("the single-device plan has %lld ranks",
		    (long long)sym_plan_n_ranks(p));
	if (!single && sym_plan_n_ranks(p) != (devices > 1 ? devices : 1))
		return fuzz_fail("a plan of %lld ranks for %lld devices",
		    (long long)sym_plan_n_ranks(p), (long long)devices);
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		const sym_value *v = sym_plan_tensor_value(p, t);
		const sym_layout *l = sym_plan_tensor_layout(p, t);
		size_t rank = sym_plan_tensor_ndim(p, t);

		if (!v || rank != sym_shape_ndim(sym_value_shape(v)))
			return fuzz_fail("tensor %zu: no value, or another "
			                 "rank than its value",
			    t);
		if (l && (single || sym_layout_ndim(l) != rank))
			return fuzz_fail("tensor %zu: a layout of another "
			                 "rank",
			    t);
	}
	for (size_t i = 0; i < sym_plan_n_symbols(p); i++)
		if (!sym_plan_symbol(p, i))
			return fuzz_fail("plan symbol %zu is missing", i);
	if (check_steps(p, single) < 0)
		return -1;
	return fuzz_printed(sym_plan_to_str(p), "sym_plan_to_str");
}

/* Return 0 when the bound slices "s" of "p" agree with the layouts: for
 * every tensor, its local sizes times its splits give its global sizes,
 * and every rank's offsets are its block indices times its local sizes,
 * the same through every accessor; else -1. */
int
fuzz_check_layouts(const sym_plan *p, const sym_slices *s)
{
	int64_t n_ranks = sym_plan_n_ranks(p);

	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		const sym_layout *l = sym_plan_tensor_layout(p, t);
		size_t rank = sym_plan_tensor_ndim(p, t);
		int64_t global[MAX_DIMS], local[MAX_DIMS], off[MAX_DIMS];
		const int64_t *offs = sym_slices_offsets(s, t);
		const int64_t *locs = sym_slices_local_sizes(s, t);

		if (rank > MAX_DIMS)
			continue;
		if (sym_slices_global(s, t, global) < 0 ||
		    sym_slices_local(s, t, local) < 0 || !offs || !locs)
			return fuzz_fail("tensor %zu has no sizes", t);
		for (size_t d = 0; d < rank; d++) {
			int64_t k = l ? sym_layout_dim_splits(l, d) : 1;

			if (global[d] < 0 || local[d] < 0 ||
			    locs[d] != local[d] || k < 1 ||
			    (k > 0 && local[d] > INT64_MAX / k) ||
			    local[d] * k != global[d])
				return fuzz_fail("tensor %zu, dimension %zu: "
				                 "local size %lld, split %lld, "
				                 "global size %lld",
				    t, d, (long long)local[d], (long long)k,
				    (long long)global[d]);
		}
		for (int64_t r = 0; r < n_ranks; r++) {
			if (sym_slices_offset(s, t, r, off) < 0)
				return fuzz_fail("tensor %zu has no offset on "
				                 "rank %lld",
				    t, (long long)r);
			for (size_t d = 0; d < rank; d++) {
				int64_t blk = l ? sym_layout_block(l, r, d) : 0;

				if (off[d] != offs[(size_t)r * rank + d] ||
				    blk < 0 || off[d] != blk * local[d] ||
				    off[d] + local[d] > global[d])
					return fuzz_fail(
					    "tensor %zu, dimension %zu, rank "
					    "%lld: offset %lld (block %lld of "
					    "%lld of %lld)",
					    t, d, (long long)r,
					    (long long)off[d], (long long)blk,
					    (long long)local[d],
					    (long long)global[d]);
			}
		}
	}
	return 0;
}

/* Return a new binding of the value every symbol of "p" has in "s" and
 * every value "b" gives, or NULL. */
static sym_binding *
full_binding(const sym_plan *p, const sym_slices *s, const sym_binding *b)
{
	sym_binding *all = sym_binding_dup(b);

	for (size_t i = 0; all && i < sym_plan_n_symbols(p); i++) {
		sym_symbol *sym = sym_plan_symbol(p, i);

		if (sym_binding_set(all, sym, sym_slices_symbol(s, sym)) < 0) {
			sym_binding_free(all);
			return NULL;
		}
	}
	return all;
}

/* Return 0 when the global sizes of every tensor of "p" bound in "s" by
 * "b" equal the dimensions of its value's shape evaluated at the same
 * binding (where they can be), and every value of "b" for a symbol of
 * the plan reads back; else -1. */
int
fuzz_check_shapes(const sym_plan *p, const sym_slices *s, const sym_binding *b)
{
	sym_binding *all = full_binding(p, s, b);
	int res = 0;

	if (!all)
		return 0;
	for (size_t i = 0; i < sym_plan_n_symbols(p) && !res; i++) {
		sym_symbol *sym = sym_plan_symbol(p, i);
		int64_t v;

		if (sym_binding_get(b, sym, &v) == 0 &&
		    sym_slices_symbol(s, sym) != v)
			res = fuzz_fail("symbol %s bound to %lld reads %lld",
			    sym_symbol_name(sym), (long long)v,
			    (long long)sym_slices_symbol(s, sym));
	}
	for (size_t t = 0; t < sym_plan_n_tensors(p) && !res; t++) {
		const sym_shape *sh =
		    sym_value_shape(sym_plan_tensor_value(p, t));
		size_t rank = sym_plan_tensor_ndim(p, t);
		int64_t global[MAX_DIMS], want;

		if (rank > MAX_DIMS || sym_slices_global(s, t, global) < 0)
			continue;
		for (size_t d = 0; d < rank && !res; d++)
			if (sym_expr_eval(sym_shape_dim(sh, d), all, &want) ==
			        0 &&
			    want != global[d])
				res =
				    fuzz_fail("tensor %zu (%s), dimension "
				              "%zu: size %lld, its shape says "
				              "%lld",
				        t,
				        sym_value_name(sym_plan_tensor_value(p,
				            t)),
				        d, (long long)global[d],
				        (long long)want);
	}
	sym_binding_free(all);
	return res;
}

/* Return 0 when the slices "a" and "b" of "p" hold the same sizes and
 * offsets, else -1. */
int
fuzz_same_slices(const sym_plan *p, const sym_slices *a, const sym_slices *b)
{
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		size_t n = sym_plan_tensor_ndim(p, t) *
		    (size_t)sym_plan_n_ranks(p) * sizeof(int64_t);
		const int64_t *oa = sym_slices_offsets(a, t);
		const int64_t *ob = sym_slices_offsets(b, t);

		if (!oa || !ob || memcmp(oa, ob, n) != 0)
			return fuzz_fail("tensor %zu: sym_plan_bind and "
			                 "sym_plan_bind_values give other "
			                 "offsets",
			    t);
	}
	for (size_t i = 0; i < sym_plan_n_steps(p); i++)
		if (sym_slices_step_bytes(a, i) != sym_slices_step_bytes(b, i))
			return fuzz_fail("step %zu: sym_plan_bind and "
			                 "sym_plan_bind_values give other "
			                 "bytes",
			    i);
	return 0;
}

/* Return 0 when the accepted binding "s" of "p" lists, its communication
 * steps have bytes, and the single-device binding "s1" gives every value
 * the global sizes "s" gives it; else -1. */
int
fuzz_check_bound(const sym_plan *p, const sym_slices *s, const sym_plan *single,
    const sym_slices *s1)
{
	int64_t n = sym_plan_n_ranks(p);

	for (size_t i = 0; i < sym_plan_n_steps(p); i++) {
		int64_t bytes = sym_slices_step_bytes(s, i);
		int comm = sym_plan_get_step(p, i)->kind == SYM_PLAN_COMM;

		if (bytes < 0 || (!comm && bytes != 0))
			return fuzz_fail("step %zu communicates %lld bytes", i,
			    (long long)bytes);
	}
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		size_t u =
		    sym_plan_value_tensor(single, sym_plan_tensor_value(p, t));
		int64_t a[MAX_DIMS], b[MAX_DIMS];
		size_t rank = sym_plan_tensor_ndim(p, t);

		if (rank > MAX_DIMS)
			continue;
		if (u >= sym_plan_n_tensors(single) ||
		    sym_slices_global(s, t, a) < 0 ||
		    sym_slices_global(s1, u, b) < 0 ||
		    memcmp(a, b, rank * sizeof(*a)) != 0)
			return fuzz_fail("tensor %zu: other global sizes in "
			                 "the single-device plan",
			    t);
	}
	if (fuzz_printed(sym_slices_to_str(s, 0), "sym_slices_to_str") < 0 ||
	    fuzz_printed(sym_slices_to_str(s, n - 1), "sym_slices_to_str") <
	        0 ||
	    fuzz_printed(sym_slices_to_str(s1, 0), "sym_slices_to_str") < 0)
		return -1;
	if (n <= 8 &&
	    fuzz_printed(sym_slices_to_str(s, -1), "sym_slices_to_str") < 0)
		return -1;
	if (sym_slices_to_str(s, n) != NULL)
		return fuzz_fail("sym_slices_to_str lists rank %lld of %lld",
		    (long long)n, (long long)n);
	return 0;
}
