/* SPDX-License-Identifier: MIT */
/*
 * Shard clauses: "shard ((2, 4), (4, 1))" (split counts, turned into a
 * device matrix and layouts by the operator's rule) or "shard (m(mp, (sp,
 * dp)), m((sp, dp), None))" (layouts over a declared mesh), optionally
 * followed by "-> (OUT, ...)", the output strategy that says how partial
 * sums are resolved: the inferred output layout means an AllReduce, the
 * reduced axes appended to dimension 0 a ReduceScatter
 * (symshard-strategies(7));
 * anything else is an error naming both.
 *
 * Every problem is an error diagnostic located at the part of the clause
 * it is about. MindSpore's power-of-two rule (SYM_SHARD_OPT_POWER_OF_TWO)
 * applies to the split counts and mesh axes users write.
 */
#include <stdlib.h>
#include <string.h>

#include "shard/shard_private.h"

/* Return 1 when "v" is a power of two. */
static int
power_of_two(int64_t v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

/* Record the structural error of the run "r" of node "n" (labelled
 * "label"), located at the part of the clause "st" it is about; -1. "p" is
 * the pass. */
static int
report(struct sym__pass *p, const struct sym__strategy *st,
    const struct sym__run *r, const char *label)
{
	const sym_loc *at = &st->loc;
	int i = r->s.error_input, d = r->s.error_dim;

	if (i >= 0 && (size_t)i < st->n_in) {
		const struct sym__tensor_strategy *t = &st->in[i];

		at = t->is_layout && d >= 0 && (size_t)d < t->n
		    ? &t->dims[d].loc
		    : &t->loc;
	}
	return sym__graph_diag(p->g, SYM_SEV_ERROR, at, NULL, NULL, "%s: %s",
	    label, r->s.error ? r->s.error : "invalid strategy");
}

/* Check the tuple strategy "t" of input "i" of node "n" (labelled "label"):
 * its length is the input's rank, its counts at least 1 (and powers of two
 * when asked). Return 0 or -1 with a diagnostic. "p" is the pass. */
static int
check_tuple(struct sym__pass *p, sym_node *n, size_t i,
    const struct sym__tensor_strategy *t, const char *label)
{
	sym_value *v = sym__strategy_value(n, i);
	size_t rank = sym__value_shape(v)->rank;
	char *txt;

	if (t->is_layout)
		return sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: the strategy of %s is a layout, but the others are "
		    "split counts: a strategy cannot mix the two forms",
		    label, v->name);
	if (t->n != rank) {
		txt = sym__tensor_strategy_to_str(t);
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: the strategy %s of %s has %zu split count%s, but %s "
		    "has rank %zu",
		    label, txt ? txt : "?", v->name, t->n, t->n == 1 ? "" : "s",
		    v->name, rank);
		free(txt);
		return -1;
	}
	for (size_t d = 0; d < t->n; d++) {
		if (t->split[d] < 1)
			return sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc,
			    NULL, NULL,
			    "%s: the split count %lld of dimension %zu of %s "
			    "must be at least 1",
			    label, (long long)t->split[d], d, v->name);
		if (p->g->opt_power_of_two && !power_of_two(t->split[d]))
			return sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc,
			    NULL, NULL,
			    "%s: the split count %lld of dimension %zu of %s "
			    "is not a power of 2 (MindSpore's rule, asked for "
			    "with SYM_SHARD_OPT_POWER_OF_TWO)",
			    label, (long long)t->split[d], d, v->name);
	}
	return 0;
}

/* Run the rule of node "n" on the tuple clause "st" into "r"; 0 or -1 with
 * a diagnostic. "p" is the pass. */
static int
tuple_clause(struct sym__pass *p, sym_node *n, const struct sym__strategy *st,
    struct sym__run *r, const char *label)
{
	const int64_t **split =
	    sym__calloc(p->g->ctx, n->n_in + 1, sizeof(*split));
	int bad = 0;

	if (!split)
		return -1;
	for (size_t i = 0; i < st->n_in && !bad; i++) {
		bad = check_tuple(p, n, i, &st->in[i], label) < 0;
		split[i] = st->in[i].split;
	}
	if (!bad &&
	    (sym__shard_tuple(&r->s, split) < 0 || sym__shard_infer(&r->s) < 0))
		bad = report(p, st, r, label) < 0;
	free(split);
	return bad ? -1 : 0;
}

/* Return the mesh of the declaration "m" in the pass "p" (an internal
 * reference kept by the pass), after checking it covers the devices;
 * NULL with a diagnostic at "where" for node "label". */
static sym_mesh *
decl_mesh(struct sym__pass *p, const struct sym__mesh_decl *m, size_t k,
    const sym_loc *where, const char *label)
{
	sym_mesh *mesh = p->decl_mesh[k];
	char *txt;

	if (!mesh) {
		mesh = sym__mesh_new(p->g->ctx, m->n_axes, m->axis_size,
		    (const char *const *)m->axis_name, m->n_ranks, m->ranks);
		if (!mesh) {
			sym__graph_diag(p->g, SYM_SEV_ERROR, where, NULL, NULL,
			    "%s: mesh %s: %s", label, m->name,
			    sym_ctx_last_message(p->g->ctx));
			sym_ctx_clear_error(p->g->ctx);
			return NULL;
		}
		p->decl_mesh[k] = mesh;
	}
	if (mesh->n_devices != p->devices) {
		txt = sym_mesh_to_str(mesh);
		sym__graph_diag(p->g, SYM_SEV_ERROR, where, NULL, NULL,
		    "%s: mesh %s = %s has %lld devices, but the graph has %lld: "
		    "a layout's device matrix must multiply to the device "
		    "count",
		    label, m->name, txt ? txt : "?", (long long)mesh->n_devices,
		    (long long)p->devices);
		free(txt);
		return NULL;
	}
	for (size_t a = 0; p->g->opt_power_of_two && a < mesh->n_axes; a++)
		if (!power_of_two(mesh->size[a])) {
			sym__graph_diag(p->g, SYM_SEV_ERROR, where, NULL, NULL,
			    "%s: axis %s of mesh %s has size %lld, not a power "
			    "of 2 (MindSpore's rule, asked for with "
			    "SYM_SHARD_OPT_POWER_OF_TWO)",
			    label, mesh->name[a], m->name,
			    (long long)mesh->size[a]);
			return NULL;
		}
	return mesh;
}

/* Return the names of the axes of "mesh", "dp, sp, mp", malloc'ed. */
static char *
axis_list(const sym_mesh *mesh)
{
	char *s = NULL;

	for (size_t a = 0; a < mesh->n_axes; a++) {
		char *t = sym__asprintf("%s%s%s", s ? s : "", s ? ", " : "",
		    mesh->name[a]);

		free(s);
		s = t;
	}
	return s;
}

/* Check the axis names of the layout strategy "t" of tensor "name" (rank
 * "rank") over "mesh" called "mname": every axis exists and is used at most
 * once. Return 0 or -1 with a diagnostic for "label". "p" is the pass. */
static int
check_axes(struct sym__pass *p, const struct sym__tensor_strategy *t,
    const char *name, size_t rank, const sym_mesh *mesh, const char *label)
{
	int dim_of[SYM_MESH_MAX_AXES];
	char *txt;

	if (t->n != rank) {
		txt = sym__tensor_strategy_to_str(t);
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: the layout %s of %s has %zu dimension%s, but %s has "
		    "rank %zu",
		    label, txt ? txt : "?", name, t->n, t->n == 1 ? "" : "s",
		    name, rank);
		free(txt);
		return -1;
	}
	for (size_t a = 0; a < SYM_MESH_MAX_AXES; a++)
		dim_of[a] = -1;
	for (size_t d = 0; d < t->n; d++)
		for (size_t i = 0; i < t->dims[d].n; i++) {
			size_t a = sym_mesh_find_axis(mesh, t->dims[d].axis[i]);

			if (a == SYM_NPOS) {
				txt = axis_list(mesh);
				sym__graph_diag(p->g, SYM_SEV_ERROR,
				    &t->dims[d].loc, NULL, NULL,
				    "%s: mesh %s has no axis '%s' (its axes "
				    "are %s), in dimension %zu of the layout "
				    "of %s",
				    label, t->mesh, t->dims[d].axis[i],
				    txt ? txt : "?", d, name);
				free(txt);
				return -1;
			}
			if (dim_of[a] >= 0 && (size_t)dim_of[a] == d)
				return sym__graph_diag(p->g, SYM_SEV_ERROR,
				    &t->dims[d].loc, NULL, NULL,
				    "%s: axis %s is used twice in the layout of "
				    "%s (twice in dimension %zu)",
				    label, t->dims[d].axis[i], name, d);
			if (dim_of[a] >= 0)
				return sym__graph_diag(p->g, SYM_SEV_ERROR,
				    &t->dims[d].loc, NULL, NULL,
				    "%s: axis %s is used twice in the layout of "
				    "%s (dimensions %d and %zu): an axis splits "
				    "at most one dimension",
				    label, t->dims[d].axis[i], name, dim_of[a],
				    d);
			dim_of[a] = (int)d;
		}
	return 0;
}

/* Return an internal reference to the layout of the strategy "t" of tensor
 * "name" (rank "rank") over "mesh", or NULL with a diagnostic. "p" is the
 * pass. */
static sym_layout *
spec_layout(struct sym__pass *p, sym_mesh *mesh,
    const struct sym__tensor_strategy *t, const char *name, size_t rank,
    const char *label)
{
	char *err = NULL;
	sym_layout *l;

	if (check_axes(p, t, name, rank, mesh, label) < 0)
		return NULL;
	l = sym__layout_from_spec(mesh, t, &err);
	if (!l) {
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: the layout of %s: %s", label, name,
		    err ? err : sym_ctx_last_message(p->g->ctx));
		sym_ctx_clear_error(p->g->ctx);
		free(err);
	}
	return l;
}

/* Return the mesh the layout strategy "t" names, requiring it to be "want"
 * when that is not NULL; NULL with a diagnostic for "label". "p" is the
 * pass. */
static sym_mesh *
clause_mesh(struct sym__pass *p, const struct sym__tensor_strategy *t,
    const char *want, const char *label)
{
	const struct sym__mesh_decl *m;
	size_t k;

	if (want && strcmp(t->mesh, want) != 0) {
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: this layout uses mesh %s, but the strategy's first "
		    "uses mesh %s: all layouts of a strategy use one mesh",
		    label, t->mesh, want);
		return NULL;
	}
	m = sym__pass_find_mesh(p, t->mesh, &k);
	if (!m) {
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL,
		    "declare it first, as in 'mesh m = (dp=2, mp=4)'",
		    "%s: unknown mesh '%s'", label, t->mesh);
		return NULL;
	}
	return decl_mesh(p, m, k, &t->loc, label);
}

/* Run the rule of node "n" on the layout clause "st" into "r"; 0 or -1 with
 * a diagnostic. "p" is the pass. */
static int
layout_clause(struct sym__pass *p, sym_node *n, const struct sym__strategy *st,
    struct sym__run *r, const char *label)
{
	sym_mesh *mesh = clause_mesh(p, &st->in[0], NULL, label);

	if (!mesh)
		return -1;
	r->s.mesh = sym__mesh_ref(mesh);
	for (size_t i = 0; i < st->n_in; i++) {
		const struct sym__tensor_strategy *t = &st->in[i];

		if (!t->is_layout)
			return sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc,
			    NULL, NULL,
			    "%s: the strategy of %s is a tuple of split "
			    "counts, but the first is a layout: a strategy "
			    "cannot mix the two forms",
			    label, n->in[i]->name);
		if (i > 0 && !clause_mesh(p, t, st->in[0].mesh, label))
			return -1;
		r->s.in[i] = spec_layout(p, mesh, t, n->in[i]->name,
		    sym__value_shape(n->in[i])->rank, label);
		if (!r->s.in[i])
			return -1;
	}
	if (sym__shard_infer(&r->s) < 0)
		return report(p, st, r, label);
	return 0;
}

/* Return the split counts of "l" as "(2, 1)", malloc'ed. */
static char *
splits_text(const sym_layout *l)
{
	char *s = sym__asprintf("(");

	for (size_t d = 0; s && d < l->rank; d++) {
		char *t = sym__asprintf("%s%s%lld", s, d ? ", " : "",
		    (long long)sym_layout_dim_splits(l, d));

		free(s);
		s = t;
	}
	if (s) {
		char *t = sym__asprintf("%s%s)", s, l->rank == 1 ? "," : "");

		free(s);
		s = t;
	}
	return s;
}

/* Return the layout "l" as written in a clause over mesh "mesh",
 * "m((mp, sp, dp), None)", malloc'ed. */
static char *
clause_text(const char *mesh, const sym_layout *l)
{
	char *t = sym_layout_to_str(l), *s;

	s = t ? sym__asprintf("%s%s", mesh, t) : NULL;
	free(t);
	return s;
}

/* Return 1 when the tuple "t" gives the split counts of "l". */
static int
same_splits(const struct sym__tensor_strategy *t, const sym_layout *l)
{
	if (!l || t->n != l->rank)
		return 0;
	for (size_t d = 0; d < t->n; d++)
		if (t->split[d] != sym_layout_dim_splits(l, d))
			return 0;
	return 1;
}

/* Record that the output strategy "t" of output "k" of node "n" matches
 * neither accepted layout, "ar" (the inferred one) nor "rs" (the
 * ReduceScatter one, NULL when the output holds no partial sums); "mesh"
 * names the clause's mesh (NULL: tuple form). Return -1. "p" is the pass. */
static int
out_mismatch(struct sym__pass *p, sym_node *n, size_t k,
    const struct sym__tensor_strategy *t, const sym_layout *ar,
    const sym_layout *rs, const char *mesh, const char *label)
{
	char *given = sym__tensor_strategy_to_str(t);
	char *a = mesh ? clause_text(mesh, ar) : splits_text(ar);
	char *b = !rs ? NULL : mesh ? clause_text(mesh, rs) : splits_text(rs);
	const char *v = n->out[k]->name;

	if (rs)
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: the output strategy %s of %s is neither %s (partial "
		    "sums resolved by all_reduce) nor %s (reduce_scatter "
		    "along dimension 0)",
		    label, given ? given : "?", v, a ? a : "?", b ? b : "?");
	else
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: the output strategy %s of %s must be %s, the layout "
		    "%s produces",
		    label, given ? given : "?", v, a ? a : "?", n->op->name);
	free(given);
	free(a);
	free(b);
	return -1;
}

/* Apply the output strategy of clause "st" to output "k" of the run "r" of
 * node "n": choose the AllReduce or the ReduceScatter layout; 0 or -1 with
 * a diagnostic. "p" is the pass. */
static int
out_tensor(struct sym__pass *p, sym_node *n, const struct sym__strategy *st,
    struct sym__run *r, size_t k, const char *label)
{
	const struct sym__tensor_strategy *t = &st->out[k];
	sym_layout *ar = sym__shard_resolved(&r->s, k), *rs = NULL, *given;
	int res = -1;

	if (sym__run_partial(r, k))
		rs = sym__shard_scattered(&r->s, k);
	if (!ar)
		goto out;
	if (!t->is_layout) {
		if (same_splits(t, ar)) {
			r->value[k] = sym__layout_ref(ar);
			res = 0;
		} else if (same_splits(t, rs)) {
			r->value[k] = sym__layout_ref(rs);
			r->scatter[k] = 1;
			res = 0;
		} else {
			out_mismatch(p, n, k, t, ar, rs, NULL, label);
		}
		goto out;
	}
	if (!st->in[0].is_layout) {
		sym__graph_diag(p->g, SYM_SEV_ERROR, &t->loc, NULL, NULL,
		    "%s: an output layout needs layouts as input strategies "
		    "(over the same mesh)",
		    label);
		goto out;
	}
	if (!clause_mesh(p, t, st->in[0].mesh, label))
		goto out;
	given = spec_layout(p, r->s.mesh, t, n->out[k]->name, ar->rank, label);
	if (!given)
		goto out;
	if (sym_layout_is_equal(given, ar) == SYM_TRUE) {
		r->value[k] = sym__layout_ref(ar);
		res = 0;
	} else if (rs && sym_layout_is_equal(given, rs) == SYM_TRUE) {
		r->value[k] = sym__layout_ref(rs);
		r->scatter[k] = 1;
		res = 0;
	} else {
		out_mismatch(p, n, k, t, ar, rs, st->in[0].mesh, label);
	}
	sym__layout_unref(given);
out:
	sym__layout_unref(ar);
	sym__layout_unref(rs);
	return res;
}

/* Apply the output strategy of clause "st" to the run "r" of node "n"; 0 or
 * -1 with a diagnostic. "p" is the pass. */
static int
out_clause(struct sym__pass *p, sym_node *n, const struct sym__strategy *st,
    struct sym__run *r, const char *label)
{
	int bad = 0;

	if (!st->has_out)
		return 0;
	if (st->n_out != n->n_out)
		return sym__graph_diag(p->g, SYM_SEV_ERROR,
		    st->n_out ? &st->out[0].loc : &st->loc, NULL, NULL,
		    "%s: the output strategy has %zu tensor strateg%s, but %s "
		    "has %zu output%s",
		    label, st->n_out, st->n_out == 1 ? "y" : "ies", n->op->name,
		    n->n_out, n->n_out == 1 ? "" : "s");
	for (size_t k = 0; k < n->n_out; k++)
		bad |= out_tensor(p, n, st, r, k, label) < 0;
	return bad ? -1 : 0;
}

/* Return 1 when "st" is a strategy of the batch_norm "n" without the
 * statistics operand the graph added, or of the softmax_cross_entropy "n"
 * without its count and class-split statistics, or of sce_sumexp without
 * its target (the rule lays them out). */
static int
bn_stats_left(const sym_node *n, const struct sym__strategy *st)
{
	return (n->op->id == SYM__OP_BATCH_NORM && n->n_in == 6 &&
	           st->n_in == 5) ||
	    (n->op->id == SYM__OP_SOFTMAX_CROSS_ENTROPY && n->n_in >= 3 &&
	        st->n_in == 2) ||
	    (n->op->id == SYM__OP_SCE_SUMEXP && n->n_in == 3 && st->n_in == 2);
}

/* Give node "n" the run of its shard clause in the pass "p"; invalid
 * clauses are error diagnostics (the node then has no layouts). Return 0
 * or -1. */
int
sym__shard_clause(struct sym__pass *p, sym_node *n)
{
	const struct sym__strategy *st = p->strategy[n->index];
	struct sym__run *r = sym__pass_run(p, n->index);
	char *label = sym__node_label(n);
	struct sym__strategy x_only;
	int bad, of_bn = n->op->id == SYM__OP_BATCH_NORM_STATS && st->n_in >= 5;
	int of_sce = (n->op->id == SYM__OP_SCE_TARGET ||
	                 n->op->id == SYM__OP_SCE_SUMEXP) &&
	    sym__sce_stats_of(p->g, n->index);

	if (of_sce && st->n_in >= 2) {
		/* the loss's (logits, labels), without its other operands (a
		 * searched strategy has all of them) or its output */
		x_only = *st;
		x_only.n_in = 2;
		x_only.has_out = 0;
		x_only.n_out = 0;
		st = &x_only;
	}
	if (of_bn) {
		x_only = *st;
		x_only.n_in = 1;
		x_only.has_out = 0;
		x_only.n_out = 0;
		st = &x_only;
	}
	if (!label || sym__run_init(p, n, r) < 0) {
		free(label);
		return -1;
	}
	if (st->n_in != sym__n_strategies(n) && n->n_in == 0) {
		bad = sym__graph_diag(p->g, SYM_SEV_ERROR, &st->loc, NULL, NULL,
		    "%s: the strategy has %zu tensor strateg%s, but %s has "
		    "no input: its strategy is the split of its output, as "
		    "in shard ((8, 1))",
		    label, st->n_in, st->n_in == 1 ? "y" : "ies", n->op->name);
	} else if (n->n_in > 0 && st->n_in != n->n_in &&
	    !bn_stats_left(n, st)) {
		bad = sym__graph_diag(p->g, SYM_SEV_ERROR, &st->loc, NULL, NULL,
		    "%s: the strategy has %zu tensor strateg%s, but %s has "
		    "%zu input%s",
		    label, st->n_in, st->n_in == 1 ? "y" : "ies", n->op->name,
		    n->n_in, n->n_in == 1 ? "" : "s");
	} else if (n->n_in == 0 && st->in[0].is_layout) {
		bad = sym__graph_diag(p->g, SYM_SEV_ERROR, &st->loc, NULL, NULL,
		    "%s: %s has no input, and its strategy is written as the "
		    "split counts of its output, as in shard ((8, 1)), not as "
		    "a layout",
		    label, n->op->name);
	} else if (n->n_in > 0 && st->in[0].is_layout) {
		bad = layout_clause(p, n, st, r, label);
	} else {
		bad = tuple_clause(p, n, st, r, label);
	}
	if (bad == 0)
		bad = out_clause(p, n, st, r, label);
	if (bad == 0)
		bad = sym__run_resolve(r);
	if (bad == 0) {
		r->source = n->onnx_name && n->onnx_primary
		    ? sym__asprintf_ctx(p->g->ctx,
		          "shard clause of ONNX node '%s'", n->onnx_name)
		    : sym__strdup(p->g->ctx,
		          of_bn        ? "shard clause of its batch_norm (x's "
		                         "strategy)"
		              : of_sce ? "the strategy of its "
		                         "softmax_cross_entropy (the logits' "
		                         "and labels' parts)"
		                       : "shard clause");
		r->text = sym__strategy_to_str(st);
		r->ok = r->source && r->text;
	}
	free(label);
	return r->ok ? 0 : -1;
}
