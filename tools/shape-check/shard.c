/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the sharding facts that the readable and JSON reports, the
 * --draw picture and the --dot graph present the same way: layouts as
 * text, MindSpore tensor maps, local shapes, which communication is
 * where, and the steps of a plan (axes, rank groups, estimated time at
 * the least admissible sizes).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Fill in the binding of "r" to the least value of every symbol, its
 * declared symbols' text, "b = 8, s = 128", and the text of the topology
 * of "r" (the library's default without one); 0, or -1 when out of
 * memory. */
int
report_shard_prepare(struct report *r)
{
	size_t n = sym_ctx_n_symbols(r->ctx);
	struct strbuf b = { NULL, 0, 0, 0 };
	sym_topology *own = NULL;

	if (!r->topo)
		own = sym_topology_new(r->ctx, 0, 0, 0, 0, 0);
	r->topo_text = sym_topology_to_str(r->topo ? r->topo : own);
	sym_topology_free(own);
	if (!r->topo_text)
		return -1;

	r->least = sym_binding_new(r->ctx);
	if (!r->least)
		return -1;
	for (size_t i = 0; i < n; i++) {
		sym_symbol *s = sym_ctx_symbol(r->ctx, i);
		int64_t v = sym_symbol_least(s);

		if (sym_binding_set(r->least, s, v) < 0)
			return -1;
		if (sym_symbol_origin(s) && sym_symbol_origin(s) != s)
			continue;
		strbuf_add(&b, "%s%s = %lld", b.len ? ", " : "",
		    sym_symbol_name(s), (long long)v);
	}
	r->least_text = strbuf_take(&b);
	return r->least_text ? 0 : -1;
}

/* Release the binding and the text report_shard_prepare gave "r". */
void
report_shard_release(struct report *r)
{
	sym_binding_free(r->least);
	free(r->least_text);
	free(r->topo_text);
	r->least = NULL;
	r->least_text = NULL;
	r->topo_text = NULL;
}

/* Return the malloc'ed text of "l" and its mesh, "(d0, None) on (d0=8,
 * d1=1)", "?" for NULL; NULL when out of memory. */
char *
report_layout_text(const sym_layout *l)
{
	char *a, *m, *s;

	if (!l)
		return strdup("?");
	a = sym_layout_to_str(l);
	m = sym_mesh_to_str(sym_layout_mesh(l));
	s = a && m ? report_format("%s on %s", a, m) : NULL;
	free(a);
	free(m);
	return s;
}

/* Return the malloc'ed MindSpore tensor map of "l": per dimension -1
 * (not split), the number of its axis counted from the last one, or a
 * tuple of them for several axes, "(0, (1, 2))"; "?" for NULL. */
char *
report_tensor_map_text(const sym_layout *l)
{
	size_t rank = l ? sym_layout_ndim(l) : 0;
	struct strbuf b = { NULL, 0, 0, 0 };
	int map[SYM_MESH_MAX_AXES];

	if (!l)
		return strdup("?");
	strbuf_add(&b, "(");
	for (size_t d = 0; d < rank; d++) {
		int n = sym_layout_tensor_map(l, d, SYM_MESH_MAX_AXES, map);

		strbuf_add(&b, "%s%s", d ? ", " : "", n > 1 ? "(" : "");
		for (int i = 0; i < n && i < SYM_MESH_MAX_AXES; i++)
			strbuf_add(&b, "%s%d", i ? ", " : "", map[i]);
		strbuf_add(&b, "%s", n > 1 ? ")" : "");
	}
	strbuf_add(&b, "%s)", rank == 1 ? "," : "");
	return strbuf_take(&b);
}

/* Return the malloc'ed local shape of "v" under "l" (NULL: the layout of
 * "v"), "?" when the shape or the layout is unknown. */
char *
report_local_shape_text(const sym_value *v, const sym_layout *l)
{
	const sym_shape *global = sym_value_shape(v);
	sym_shape *local;
	char *s;

	if (!l)
		l = sym_value_layout(v);
	if (!l || !global)
		return strdup("?");
	local = sym_layout_local_shape(l, global);
	if (!local)
		return strdup("?");
	s = sym_shape_to_str(local);
	sym_shape_free(local);
	return s;
}

/* Return the malloc'ed names of the outputs of "n", comma-separated, or
 * its operator's name when it has none. */
char *
report_node_name(const sym_node *n)
{
	size_t k = sym_node_n_outputs(n);
	struct strbuf b = { NULL, 0, 0, 0 };

	for (size_t i = 0; i < k; i++)
		strbuf_add(&b, "%s%s", i ? ", " : "",
		    sym_value_name(sym_node_output(n, i)));
	if (k == 0)
		strbuf_add(&b, "%s", sym_node_op_name(n));
	return strbuf_take(&b);
}

/* Return the first step of "plan" that is not a slice, else 0. */
size_t
report_principal_step(const sym_redist *plan)
{
	size_t n = sym_redist_n_steps(plan);

	for (size_t i = 0; i < n; i++)
		if (sym_redist_step_kind(plan, i) != SYM_REDIST_SLICE)
			return i;
	return 0;
}

/* Return the malloc'ed names of the axes of step "i" of "plan", named on
 * the mesh of the step's layout: "k", or "(d0, rep)" for several. */
char *
report_step_axes(const sym_redist *plan, size_t i)
{
	const sym_layout *l = sym_redist_step_layout(plan, i);
	const sym_mesh *m = l ? sym_layout_mesh(l) : NULL;
	int axes[SYM_MESH_MAX_AXES];
	size_t n = sym_redist_step_axes(plan, i, SYM_MESH_MAX_AXES, axes);
	struct strbuf b = { NULL, 0, 0, 0 };

	if (n > SYM_MESH_MAX_AXES)
		n = SYM_MESH_MAX_AXES;
	strbuf_add(&b, "%s", n > 1 ? "(" : "");
	for (size_t k = 0; k < n; k++)
		strbuf_add(&b, "%s%s", k ? ", " : "",
		    m ? sym_mesh_axis_name(m, (size_t)axes[k]) : "?");
	strbuf_add(&b, "%s", n > 1 ? ")" : "");
	return strbuf_take(&b);
}

/* Return the malloc'ed dimensions step "i" of "plan" takes axes from and
 * gives them to: "dim 0 -> dim 1", "from dim 0", "to dim 0", or "". */
char *
report_step_dims(const sym_redist *plan, size_t i)
{
	int from = -1, to = -1;

	sym_redist_step_dims(plan, i, &from, &to);
	if (from >= 0 && to >= 0)
		return report_format("dim %d -> dim %d", from, to);
	if (from >= 0)
		return report_format("from dim %d", from);
	if (to >= 0)
		return report_format("to dim %d", to);
	return strdup("");
}

/* Append the members of group "g" of step "i" of "plan" to "b", "{0,1,2,3}",
 * or "{0,8,...,56}" for a long arithmetic progression, "{0,5,...,62} (12
 * ranks)" for another long group. "size" is the size of a group. */
static void
add_group(struct strbuf *b, const sym_redist *plan, size_t i, size_t g,
    size_t size)
{
	int64_t first = sym_redist_step_group_rank(plan, i, g, 0);
	int64_t step =
	    size > 1 ? sym_redist_step_group_rank(plan, i, g, 1) - first : 0;
	int progression = step > 0;

	for (size_t k = 1; k < size && progression; k++)
		progression = sym_redist_step_group_rank(plan, i, g, k) ==
		    first + (int64_t)k * step;
	if (size > 8 && progression) {
		strbuf_add(b, "{%lld,%lld,...,%lld}", (long long)first,
		    (long long)(first + step),
		    (long long)sym_redist_step_group_rank(plan, i, g,
		        size - 1));
		return;
	}
	strbuf_add(b, "{");
	for (size_t k = 0; k < size; k++) {
		if (size > 8 && k == 6) {
			strbuf_add(b, ",...");
			k = size - 1;
		}
		strbuf_add(b, "%s%lld", k ? "," : "",
		    (long long)sym_redist_step_group_rank(plan, i, g, k));
	}
	strbuf_add(b, "}");
}

/* Return 1 when some group of step "i" of "plan" has members on two
 * nodes of the topology of "r" (never without a topology, nor for a
 * slice, which does not communicate). */
int
report_step_across_nodes(const struct report *r, const sym_redist *plan,
    size_t i)
{
	size_t size = 0, n = sym_redist_step_groups(plan, i, &size);

	if (!r->topo || sym_redist_step_kind(plan, i) == SYM_REDIST_SLICE)
		return 0;
	for (size_t g = 0; g < n; g++) {
		int64_t node = sym_topology_node_of(r->topo,
		    sym_redist_step_group_rank(plan, i, g, 0));

		for (size_t k = 1; k < size; k++)
			if (sym_topology_node_of(r->topo,
			        sym_redist_step_group_rank(plan, i, g, k)) !=
			    node)
				return 1;
	}
	return 0;
}

/* Return the malloc'ed rank groups of step "i" of "plan": their number
 * and size, then the first "max" of them and "..." when there are more,
 * then " across nodes" when some group spans nodes of the topology of
 * "r". */
char *
report_step_groups(const struct report *r, const sym_redist *plan, size_t i,
    size_t max)
{
	size_t size = 0, n = sym_redist_step_groups(plan, i, &size);
	struct strbuf b = { NULL, 0, 0, 0 };

	strbuf_add(&b, "%zu group%s of %zu:", n, n == 1 ? "" : "s", size);
	for (size_t g = 0; g < n && g < max; g++) {
		strbuf_add(&b, " ");
		add_group(&b, plan, i, g, size);
	}
	if (n > max)
		strbuf_add(&b, " ...");
	if (report_step_across_nodes(r, plan, i))
		strbuf_add(&b, " across nodes");
	return strbuf_take(&b);
}

/* Return the estimated time in seconds of step "i" of "plan" with every
 * symbol of "r" at its least value, -1 when it cannot be evaluated. */
double
report_step_seconds(const struct report *r, const sym_redist *plan, size_t i)
{
	double s = sym_redist_step_seconds(plan, i, r->least);

	if (s < 0)
		sym_ctx_clear_error(r->ctx);
	return s;
}

/* Return the duration "s" in seconds as text in "buf" ("size" bytes):
 * three significant digits in ns, us, ms or s; "0 s" for nothing; "?"
 * when negative (unknown). */
const char *
report_seconds_text(char *buf, size_t size, double s)
{
	if (s < 0)
		snprintf(buf, size, "?");
	else if (s == 0)
		snprintf(buf, size, "0 s");
	else if (s < 1e-6)
		snprintf(buf, size, "%.3g ns", s * 1e9);
	else if (s < 1e-3)
		snprintf(buf, size, "%.3g us", s * 1e6);
	else if (s < 1)
		snprintf(buf, size, "%.3g ms", s * 1e3);
	else
		snprintf(buf, size, "%.3g s", s);
	return buf;
}
