/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the sharding members of the --json report: the layout and
 * local shape of values, the operators with their strategies, and the
 * communication with the steps of its plans (shape-check(1)).
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Return the mesh "m" as {sizes, names}, with "ranks" when its rank list
 * is not 0, 1, ... */
static json_t *
mesh_obj(struct doc *d, const sym_mesh *m)
{
	size_t n = sym_mesh_n_axes(m);
	int64_t nd = sym_mesh_n_devices(m);
	json_t *o = doc_chk(d, json_object());
	json_t *sizes = doc_chk(d, json_array());
	json_t *names = doc_chk(d, json_array());

	for (size_t a = 0; a < n; a++) {
		doc_push(d, sizes, doc_num(d, sym_mesh_axis_size(m, a)));
		doc_push(d, names, doc_str(d, sym_mesh_axis_name(m, a)));
	}
	doc_set(d, o, "sizes", sizes);
	doc_set(d, o, "names", names);
	if (sym_mesh_has_rank_list(m)) {
		json_t *ranks = doc_chk(d, json_array());

		for (int64_t i = 0; i < nd; i++)
			doc_push(d, ranks, doc_num(d, sym_mesh_rank(m, i)));
		doc_set(d, o, "ranks", ranks);
	}
	return o;
}

/* Return the MindSpore tensor map of dimension "dim" of "l": -1, an axis
 * number counted from the last axis, or an array of them. */
static json_t *
tensor_map(struct doc *d, const sym_layout *l, size_t dim)
{
	int map[SYM_MESH_MAX_AXES];
	int n = sym_layout_tensor_map(l, dim, SYM_MESH_MAX_AXES, map);
	json_t *arr;

	if (n <= 1)
		return doc_num(d, n == 1 ? map[0] : -1);
	arr = doc_chk(d, json_array());
	for (int i = 0; i < n && i < SYM_MESH_MAX_AXES; i++)
		doc_push(d, arr, doc_num(d, map[i]));
	return arr;
}

/* Return the layout "l" as {text, mesh, dims, partial, tensor_map}, or
 * null for NULL. */
json_t *
json_layout(struct doc *d, const sym_layout *l)
{
	const sym_mesh *m;
	size_t rank;
	json_t *o, *dims, *partial, *map;

	if (!l)
		return doc_chk(d, json_null());
	m = sym_layout_mesh(l);
	rank = sym_layout_ndim(l);
	o = doc_chk(d, json_object());
	dims = doc_chk(d, json_array());
	partial = doc_chk(d, json_array());
	map = doc_chk(d, json_array());
	for (size_t dim = 0; dim < rank; dim++) {
		size_t n = sym_layout_dim_n_axes(l, dim);
		json_t *axes = doc_chk(d, json_array());

		for (size_t i = 0; i < n; i++)
			doc_push(d, axes,
			    doc_str(d,
			        sym_mesh_axis_name(m,
			            (size_t)sym_layout_dim_axis(l, dim, i))));
		doc_push(d, dims, axes);
		doc_push(d, map, tensor_map(d, l, dim));
	}
	for (size_t a = 0; a < sym_mesh_n_axes(m); a++)
		if (sym_layout_is_partial(l, a) == 1)
			doc_push(d, partial,
			    doc_str(d, sym_mesh_axis_name(m, a)));
	doc_set(d, o, "text", doc_str_take(d, sym_layout_to_str(l)));
	doc_set(d, o, "mesh", mesh_obj(d, m));
	doc_set(d, o, "dims", dims);
	doc_set(d, o, "partial", partial);
	doc_set(d, o, "tensor_map", map);
	return o;
}

/* Return the local shape of "v" under "l" as an array of expression
 * strings, or null when the shape or the layout is unknown. */
json_t *
json_local_shape(struct doc *d, const sym_value *v, const sym_layout *l)
{
	const sym_shape *global = sym_value_shape(v);
	sym_shape *local;
	json_t *arr;

	if (!l || !global)
		return doc_chk(d, json_null());
	local = sym_layout_local_shape(l, global);
	if (!local) {
		sym_ctx_clear_error(d->r->ctx);
		return doc_chk(d, json_null());
	}
	arr = doc_dims(d, local);
	sym_shape_free(local);
	return arr;
}

/* Return the object of the least value of every declared symbol, the
 * sizes at which "seconds_at_least" is estimated. */
json_t *
json_sizes_at_least(struct doc *d)
{
	sym_ctx *ctx = d->r->ctx;
	size_t n = sym_ctx_n_symbols(ctx);
	json_t *o = doc_chk(d, json_object());

	for (size_t i = 0; i < n; i++) {
		sym_symbol *s = sym_ctx_symbol(ctx, i);

		if (sym_symbol_origin(s) && sym_symbol_origin(s) != s)
			continue;
		doc_set(d, o, sym_symbol_name(s),
		    doc_num(d, sym_symbol_least(s)));
	}
	return o;
}

/* Return the array of {value, layout} of the inputs (when "out" is 0) or
 * the outputs of node "n", with the layouts it needs or produces. */
static json_t *
node_tensors(struct doc *d, const sym_node *n, int out)
{
	size_t k = out ? sym_node_n_outputs(n) : sym_node_n_inputs(n);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < k; i++) {
		json_t *o = doc_chk(d, json_object());
		const sym_value *v =
		    out ? sym_node_output(n, i) : sym_node_input(n, i);

		doc_set(d, o, "value", doc_str(d, sym_value_name(v)));
		doc_set(d, o, "layout",
		    json_layout(d,
		        out ? sym_node_output_layout(n, i)
		            : sym_node_input_layout(n, i)));
		doc_push(d, arr, o);
	}
	return arr;
}

/* Return the name by which the JSON report names node "n": its first
 * output's, or its operator's when it has none. */
static const char *
node_name(const sym_node *n)
{
	return sym_node_n_outputs(n) > 0 ? sym_value_name(sym_node_output(n, 0))
	                                 : sym_node_op_name(n);
}

/* Return the array of the operators in the order of the file: name,
 * operator, strategy, how it was chosen, device matrix, the layouts of
 * its inputs and outputs, location. */
json_t *
json_operators(struct doc *d)
{
	const sym_graph *g = d->r->g;
	size_t n = sym_graph_n_nodes(g);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++) {
		const sym_node *nd = sym_graph_node(g, i);
		const sym_mesh *m = sym_node_mesh(nd);
		char *st = sym_node_strategy_to_str(nd);
		json_t *o = doc_chk(d, json_object());

		doc_set(d, o, "name", doc_str(d, node_name(nd)));
		doc_set(d, o, "op", doc_str(d, sym_node_op_name(nd)));
		if (sym_node_onnx_name(nd))
			doc_set(d, o, "onnx_node",
			    doc_str(d, sym_node_onnx_name(nd)));
		doc_set(d, o, "strategy",
		    st ? doc_str_take(d, st) : doc_chk(d, json_null()));
		doc_set(d, o, "strategy_source",
		    doc_str(d, sym_node_strategy_source(nd)));
		doc_set(d, o, "mesh",
		    m ? mesh_obj(d, m) : doc_chk(d, json_null()));
		doc_set(d, o, "inputs", node_tensors(d, nd, 0));
		doc_set(d, o, "outputs", node_tensors(d, nd, 1));
		doc_set(d, o, "location", doc_loc(d, sym_node_location(nd)));
		doc_push(d, arr, o);
	}
	return arr;
}

/* The most ranks the groups of a step list (shape-check(1)). */
#define MAX_GROUP_RANKS 4096

/* Set "groups" on "o": the rank groups of step "i" of "plan" as arrays of
 * ranks, the first ones only when they hold more than MAX_GROUP_RANKS
 * ranks in all (then also "groups_truncated", "n_groups" and
 * "group_size"). */
static void
groups(struct doc *d, json_t *o, const sym_redist *plan, size_t i)
{
	size_t size = 0, n = sym_redist_step_groups(plan, i, &size);
	size_t shown = n;
	json_t *arr = doc_chk(d, json_array());

	if (size > 0 && n > MAX_GROUP_RANKS / size)
		shown = MAX_GROUP_RANKS / size;
	for (size_t g = 0; g < shown; g++) {
		json_t *grp = doc_chk(d, json_array());

		for (size_t k = 0; k < size; k++)
			doc_push(d, grp,
			    doc_num(d,
			        sym_redist_step_group_rank(plan, i, g, k)));
		doc_push(d, arr, grp);
	}
	doc_set(d, o, "groups", arr);
	if (shown == n)
		return;
	doc_set(d, o, "groups_truncated", json_true());
	doc_set(d, o, "n_groups", doc_num(d, (int64_t)n));
	doc_set(d, o, "group_size", doc_num(d, (int64_t)size));
}

/* Return the names of the axes of step "i" of "plan", on the mesh of its
 * layout. */
static json_t *
axes(struct doc *d, const sym_redist *plan, size_t i)
{
	const sym_layout *l = sym_redist_step_layout(plan, i);
	const sym_mesh *m = l ? sym_layout_mesh(l) : NULL;
	int ax[SYM_MESH_MAX_AXES];
	size_t n = sym_redist_step_axes(plan, i, SYM_MESH_MAX_AXES, ax);
	json_t *arr = doc_chk(d, json_array());

	for (size_t k = 0; k < n && k < SYM_MESH_MAX_AXES && m; k++)
		doc_push(d, arr,
		    doc_str(d, sym_mesh_axis_name(m, (size_t)ax[k])));
	return arr;
}

/* Return the time "s" in seconds, null when it is unknown (negative). */
static json_t *
seconds(struct doc *d, double s)
{
	return doc_chk(d, s < 0 ? json_null() : json_real(s));
}

/* Return a dimension number "dim", null when it is -1. */
static json_t *
dim_num(struct doc *d, int dim)
{
	return dim < 0 ? doc_chk(d, json_null()) : doc_num(d, dim);
}

/* Set the members of step "i" of "plan" on "o": kind, axes, dimensions,
 * groups, bytes, time, whether a group spans nodes, and (when "layout")
 * the layout after it. */
static void
step_members(struct doc *d, json_t *o, const sym_redist *plan, size_t i,
    int layout)
{
	int from = -1, to = -1;

	sym_redist_step_dims(plan, i, &from, &to);
	doc_set(d, o, "kind",
	    doc_str(d, sym_redist_kind_name(sym_redist_step_kind(plan, i))));
	doc_set(d, o, "axes", axes(d, plan, i));
	doc_set(d, o, "from_dim", dim_num(d, from));
	doc_set(d, o, "to_dim", dim_num(d, to));
	groups(d, o, plan, i);
	doc_set(d, o, "across_nodes",
	    json_boolean(report_step_across_nodes(d->r, plan, i)));
	doc_set(d, o, "bytes",
	    doc_str_take(d, sym_expr_to_str(sym_redist_step_bytes(plan, i))));
	doc_set(d, o, "seconds_at_least",
	    seconds(d, report_step_seconds(d->r, plan, i)));
	if (layout)
		doc_set(d, o, "layout",
		    json_layout(d, sym_redist_step_layout(plan, i)));
}

/* Set the totals of "plan" on "o": the sum of the bytes of its steps as
 * an expression and of their times. */
static void
totals(struct doc *d, json_t *o, const sym_redist *plan)
{
	size_t n = sym_redist_n_steps(plan);
	sym_expr *sum = sym_expr_const(d->r->ctx, 0);
	double t = 0;

	for (size_t i = 0; i < n; i++) {
		double s = report_step_seconds(d->r, plan, i);

		sum = sym_expr_add(sum,
		    sym_expr_copy(sym_redist_step_bytes(plan, i)));
		t = s < 0 || t < 0 ? -1 : t + s;
	}
	doc_set(d, o, "total_bytes",
	    sum ? doc_str_take(d, sym_expr_to_str(sum))
	        : doc_chk(d, json_null()));
	doc_set(d, o, "total_seconds_at_least", seconds(d, t));
	sym_expr_free(sum);
}

/* Return the index of the communication "c" in the report of "d". */
static size_t
comm_number(const struct doc *d, const sym_reshard *c)
{
	size_t n = sym_graph_n_reshards(d->r->g), i = 0;

	while (i < n && sym_graph_reshard(d->r->g, i) != c)
		i++;
	return i;
}

/* Return the communication "c" as an object: what it connects, why,
 * its layouts, its principal step, totals and every step. */
static json_t *
communication(struct doc *d, const sym_reshard *c)
{
	size_t n = sym_redist_n_steps(c->plan);
	json_t *o = doc_chk(d, json_object());
	json_t *steps = doc_chk(d, json_array());

	doc_set(d, o, "after", doc_str(d, sym_value_name(c->value)));
	doc_set(d, o, "to",
	    c->consumer ? doc_str(d, node_name(c->consumer))
	                : doc_chk(d, json_null()));
	doc_set(d, o, "input",
	    c->consumer ? doc_num(d, (int64_t)c->input)
	                : doc_chk(d, json_null()));
	doc_set(d, o, "reason", doc_str(d, c->reason));
	doc_set(d, o, "shares",
	    sym_reshard_shares(c)
	        ? doc_num(d, (int64_t)comm_number(d, sym_reshard_shares(c)))
	        : doc_chk(d, json_null()));
	doc_set(d, o, "from_layout", json_layout(d, sym_reshard_source(c)));
	doc_set(d, o, "to_layout", json_layout(d, sym_reshard_target(c)));
	step_members(d, o, c->plan, report_principal_step(c->plan), 0);
	totals(d, o, c->plan);
	doc_set(d, o, "full_gather",
	    json_boolean(sym_redist_full_gather(c->plan) == 1));
	for (size_t i = 0; i < n; i++) {
		json_t *s = doc_chk(d, json_object());

		step_members(d, s, c->plan, i, 1);
		doc_push(d, steps, s);
	}
	doc_set(d, o, "steps", steps);
	return o;
}

/* Return the array of the communications of the sharded graph, in the
 * order of the operators they follow or precede. */
json_t *
json_communication(struct doc *d)
{
	size_t n = sym_graph_n_reshards(d->r->g);
	json_t *arr = doc_chk(d, json_array());

	for (size_t i = 0; i < n; i++)
		doc_push(d, arr,
		    communication(d, sym_graph_reshard(d->r->g, i)));
	return arr;
}

/* Return the fused buckets of the sharded graph (parallel fusion_bytes):
 * the bucket size asked for and, per bucket, its collective's kind, its
 * bytes per device, the gradients it packs in order and their
 * communications' numbers. */
json_t *
json_fusion(struct doc *d)
{
	const sym_sharding *sh = sym_graph_sharding(d->r->g);
	json_t *o = doc_chk(d, json_object()), *arr = doc_chk(d, json_array());

	doc_set(d, o, "bytes", doc_num(d, sym_graph_fusion_bytes(d->r->g)));
	for (size_t b = 0; b < sym_sharding_n_buckets(sh); b++) {
		json_t *k = doc_chk(d, json_object());
		json_t *vals = doc_chk(d, json_array());
		json_t *nums = doc_chk(d, json_array());

		for (size_t m = 0; m < sym_sharding_bucket_size(sh, b); m++) {
			const sym_reshard *c =
			    sym_sharding_bucket_reshard(sh, b, m);

			doc_push(d, vals, doc_str(d, sym_value_name(c->value)));
			doc_push(d, nums,
			    doc_num(d, (int64_t)comm_number(d, c)));
		}
		doc_set(d, k, "bytes",
		    doc_num(d, sym_sharding_bucket_bytes(sh, b)));
		doc_set(d, k, "kind",
		    doc_str(d,
		        sym_redist_kind_name(sym_redist_step_kind(
		            sym_sharding_bucket_reshard(sh, b, 0)->plan, 0))));
		doc_set(d, k, "values", vals);
		doc_set(d, k, "communications", nums);
		doc_push(d, arr, k);
	}
	doc_set(d, o, "buckets", arr);
	return o;
}
