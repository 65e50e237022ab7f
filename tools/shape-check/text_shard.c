/* SPDX-License-Identifier: MIT */
/*
 * shape-check: the sharding sections of the readable report. "layouts":
 * per value its layout on its mesh, local shape and MindSpore tensor map;
 * "strategies": per operator the strategy in force, its device matrix and
 * how it was chosen; "communication": the topology, then every
 * communication (what it connects, from which layout to which) and the
 * steps of its plan with their kind, axes, rank groups, bytes and
 * estimated time at the least admissible sizes, and a total.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The text of a section when sym_graph_shard did not run. */
#define NOT_SHARDED "not computed: the graph has errors before sharding"

/* Add the rows of the layouts of the values of "r" to "t": name, layout
 * on its mesh, local shape and tensor map, or "not sharded" (a value
 * whose producer or first consumer has an invalid strategy). */
static void
layout_rows(const struct report *r, struct table *t)
{
	size_t n = sym_graph_n_values(r->g);

	for (size_t i = 0; i < n && !t->oom; i++) {
		const sym_value *v = sym_graph_value(r->g, i);
		const sym_layout *l = sym_value_layout(v);
		char *map = l ? report_tensor_map_text(l) : NULL;
		char *c[4] = { text_dup(sym_value_name(v)),
			l ? report_layout_text(l) : text_dup("not sharded"),
			l ? report_local_shape_text(v, l) : text_dup(""),
			map ? report_format("tensor map %s", map) : NULL };

		free(map);
		if (!l)
			c[3] = text_dup("");
		if (!c[0] || !c[1] || !c[2] || !c[3])
			t->oom = 1;
		table_row(t, 2, 4, c);
	}
}

/* Add the rows of the strategies of the operators of "r" to "t": the
 * names of its outputs, its operator, its strategy, its device matrix and
 * how the strategy was chosen. */
static void
strategy_rows(const struct report *r, struct table *t)
{
	size_t n = sym_graph_n_nodes(r->g);

	for (size_t i = 0; i < n && !t->oom; i++) {
		const sym_node *nd = sym_graph_node(r->g, i);
		const sym_mesh *m = sym_node_mesh(nd);
		const char *src = sym_node_strategy_source(nd);
		char *st = sym_node_strategy_to_str(nd);
		char *ms = m ? sym_mesh_to_str(m) : NULL;
		char *c[5] = { report_node_name(nd),
			text_dup(sym_node_op_name(nd)), st ? st : text_dup("-"),
			ms ? report_format("on %s", ms) : text_dup(""),
			text_dup(src ? src : "not sharded (see the errors)") };

		free(ms);
		for (int k = 0; k < 5; k++)
			if (!c[k])
				t->oom = 1;
		table_row(t, 2, 5, c);
	}
}

/* Return the malloc'ed "from A to B on MESH" of the layouts "a" and "b",
 * "from A on M1 to B on M2" when their meshes differ. */
static char *
layouts_text(const sym_layout *a, const sym_layout *b)
{
	char *sa, *sb, *s;

	if (a && b &&
	    sym_mesh_is_equal(sym_layout_mesh(a), sym_layout_mesh(b))) {
		char *m = sym_mesh_to_str(sym_layout_mesh(b));

		sa = sym_layout_to_str(a);
		sb = sym_layout_to_str(b);
		s = sa && sb && m
		    ? report_format("from %s to %s on %s", sa, sb, m)
		    : NULL;
		free(m);
	} else {
		sa = report_layout_text(a);
		sb = report_layout_text(b);
		s = sa && sb ? report_format("from %s to %s", sa, sb) : NULL;
	}
	free(sa);
	free(sb);
	return s;
}

/* Return the param of the graph of "r" whose gradient is "v", or NULL. */
static const sym_value *
mirrored_param(const struct report *r, const sym_value *v)
{
	for (size_t i = 0; i < sym_graph_n_trained(r->g); i++)
		if (sym_value_grad(sym_graph_trained(r->g, i)) == v)
			return sym_graph_trained(r->g, i);
	return NULL;
}

/* Return 1 when "v" is the result of an optimizer's update. */
static int
update_result(const sym_value *v)
{
	const sym_node *n = sym_value_producer(v);
	const char *op = n ? sym_op_name(sym_node_op(n)) : "";

	return !strcmp(op, "sgd_update") || !strcmp(op, "momentum_update") ||
	    !strcmp(op, "adam_update") || !strcmp(op, "adamw_update");
}

/* Return 1 when the communication "c" of the graph of "r" gathers a
 * param kept as its shard (optimizer_shard=3) for its consumer, not
 * reading another's copy. */
static int
param_gather(const struct report *r, const sym_reshard *c)
{
	return c->consumer && !sym_reshard_shares(c) &&
	    sym_value_get_kind(c->value) == SYM_VALUE_PARAM &&
	    sym_sharding_optimizer_shard(sym_graph_sharding(r->g)) >= 3;
}

/* Return 1 when "n" is a node of the forward part of the graph of "r". */
static int
forward_node(const struct report *r, const sym_node *n)
{
	for (size_t i = 0; i < sym_graph_n_forward_nodes(r->g); i++)
		if (sym_graph_node(r->g, i) == n)
			return 1;
	return 0;
}

/* Count the collectives optimizer sharding puts in place of the
 * all_reduce of a gradient: the reduce_scatters of gradients into
 * "*rs", the all_gathers of updated params (at level 3: of the params
 * kept sharded, for their uses) into "*ag", their time at the least
 * sizes (or the binding) into "*seconds" (-1: unknown). */
void
report_optshard_comms(const struct report *r, size_t *rs, size_t *ag,
    double *seconds)
{
	*rs = *ag = 0;
	*seconds = 0;
	for (size_t i = 0; i < sym_graph_n_reshards(r->g); i++) {
		const sym_reshard *c = sym_graph_reshard(r->g, i);
		size_t k = sym_redist_n_steps(c->plan);
		int grad = mirrored_param(r, c->value) != NULL;
		int upd = update_result(c->value) || param_gather(r, c);

		if ((c->consumer && !param_gather(r, c)) ||
		    sym_reshard_shares(c) || (!grad && !upd))
			continue;
		for (size_t s = 0; s < k; s++) {
			sym_redist_kind kd = sym_redist_step_kind(c->plan, s);
			double t;

			if (grad && kd == SYM_REDIST_REDUCE_SCATTER)
				++*rs;
			else if (upd && kd == SYM_REDIST_ALL_GATHER)
				++*ag;
			else
				continue;
			t = report_step_seconds(r, c->plan, s);
			if (t > 0 && *seconds >= 0)
				*seconds += t;
			else if (t < 0)
				*seconds = -1;
		}
	}
}

/* Return the malloc'ed heading of the communication "c": what it
 * connects, "x2 -> matmul h1 (input 0)" or "h1 after matmul h1 (partial
 * sums)", and its layouts. */
/* Return 1 when "l" (may be NULL) holds partial sums over some axis. */
static int
has_partial(const sym_layout *l)
{
	const sym_mesh *m = l ? sym_layout_mesh(l) : NULL;

	for (size_t a = 0; m && a < sym_mesh_n_axes(m); a++)
		if (sym_layout_is_partial(l, a) == 1)
			return 1;
	return 0;
}

static char *
comm_heading(const sym_reshard *c)
{
	const sym_node *n =
	    c->consumer ? c->consumer : sym_value_producer(c->value);
	char *name = n ? report_node_name(n) : text_dup("?");
	char *lay = layouts_text(sym_reshard_source(c), sym_reshard_target(c));
	const char *v = sym_value_name(c->value);
	const char *op = n ? sym_node_op_name(n) : "?";
	char *s = NULL;

	if (name && lay && c->consumer)
		s = report_format("%s -> %s %s (input %zu): %s", v, op, name,
		    c->input, lay);
	else if (name && lay && has_partial(sym_reshard_source(c)))
		s = report_format("%s after %s %s (partial sums): %s", v, op,
		    name, lay);
	else if (name && lay)
		s = report_format("%s after %s %s: %s", v, op, name, lay);
	free(name);
	free(lay);
	return s;
}

/* Return the malloc'ed line of a communication whose result is that of
 * the earlier one "c": "shares the one for matmul a1.grad (input 0): the
 * same value to the same layout is moved once". */
static char *
shared_line(const sym_reshard *c)
{
	char *name = report_node_name(c->consumer);
	char *s = name ? report_format("shares the one for %s %s (input %zu): "
	                               "the same value to the same layout "
	                               "is moved once",
	                     sym_node_op_name(c->consumer), name, c->input)
	               : NULL;

	free(name);
	return s;
}

/* Add to "t" the row of step "i" of the plan "p": kind, axes, dimensions,
 * rank groups, bytes and time; add the time to "*total". "r" is the
 * report. */
static void
step_row(const struct report *r, struct table *t, const sym_redist *p, size_t i,
    double *total)
{
	sym_redist_kind kind = sym_redist_step_kind(p, i);
	char *axes = report_step_axes(p, i), *bytes, buf[64];
	double s = report_step_seconds(r, p, i);
	char *c[6];

	bytes = sym_expr_to_str(sym_redist_step_bytes(p, i));
	c[0] = text_dup(sym_redist_kind_name(kind));
	c[1] = axes ? report_format("over %s", axes) : NULL;
	c[2] = report_step_dims(p, i);
	c[3] = report_step_groups(r, p, i, 2);
	if (kind == SYM_REDIST_SLICE) {
		c[4] = text_dup("local, no communication");
		c[5] = NULL;
	} else {
		c[4] = bytes ? report_format("S = %s bytes", bytes) : NULL;
		c[5] = text_dup(report_seconds_text(buf, sizeof(buf), s));
		if (!c[5])
			t->oom = 1;
	}
	for (int k = 0; k < 5; k++)
		if (!c[k])
			t->oom = 1;
	if (s > 0 && *total >= 0)
		*total += s;
	else if (s < 0)
		*total = -1;
	free(axes);
	free(bytes);
	table_row(t, 4, 6, c);
}

/* Return 1 when "v" is the statistics of a batch_norm (the output of
 * batch_norm_stats). */
static int
bn_stats(const sym_value *v)
{
	const sym_node *n = sym_value_producer(v);

	return n && !strcmp(sym_op_name(sym_node_op(n)), "batch_norm_stats");
}

/* Return the kind of the collective bucket "b" of "sh" fuses. */
static sym_redist_kind
bucket_kind(const sym_sharding *sh, size_t b)
{
	const sym_reshard *c = sym_sharding_bucket_reshard(sh, b, 0);

	return c ? sym_redist_step_kind(c->plan, 0) : SYM_REDIST_INVALID;
}

/* Add to "t" the fused buckets of "r" (parallel fusion_bytes): a line
 * counting the fused gradient collectives by kind, then one line per
 * bucket with its bytes and gradients; return the collectives the
 * fusion saves (a bucket of k collectives runs one). */
static size_t
fusion_rows(const struct report *r, struct table *t)
{
	const sym_sharding *sh = sym_graph_sharding(r->g);
	size_t nb = sym_sharding_n_buckets(sh), saved = 0, ar = 0, rs = 0;
	char what[160];

	if (sym_graph_fusion_bytes(r->g) <= 0)
		return 0;
	for (size_t b = 0; b < nb; b++) {
		size_t k = sym_sharding_bucket_size(sh, b);

		saved += k - 1;
		if (bucket_kind(sh, b) == SYM_REDIST_REDUCE_SCATTER)
			rs += k;
		else
			ar += k;
	}
	if (!rs)
		snprintf(what, sizeof(what), "%zu gradient all_reduce%s", ar,
		    ar == 1 ? "" : "s");
	else if (!ar)
		snprintf(what, sizeof(what), "%zu gradient reduce_scatter%s",
		    rs, rs == 1 ? "" : "s");
	else
		snprintf(what, sizeof(what),
		    "%zu gradient all_reduce%s and %zu reduce_scatter%s", ar,
		    ar == 1 ? "" : "s", rs, rs == 1 ? "" : "s");
	table_line(t, 2,
	    report_format("fusion: %s in %zu bucket%s of at most %lld bytes",
	        what, nb, nb == 1 ? "" : "s",
	        (long long)sym_graph_fusion_bytes(r->g)));
	for (size_t b = 0; b < nb && !t->oom; b++) {
		char names[1024] = "";
		size_t len = 0;

		for (size_t k = 0; k < sym_sharding_bucket_size(sh, b); k++) {
			const sym_reshard *c =
			    sym_sharding_bucket_reshard(sh, b, k);
			int w = snprintf(names + len, sizeof(names) - len,
			    "%s%s", k ? ", " : "", sym_value_name(c->value));

			if (w < 0 || (size_t)w >= sizeof(names) - len)
				break;
			len += (size_t)w;
		}
		table_line(t, 4,
		    report_format("bucket %zu: %lld bytes, one %s of %s", b,
		        (long long)sym_sharding_bucket_bytes(sh, b),
		        sym_redist_kind_name(bucket_kind(sh, b)), names));
	}
	return saved;
}

/* Return 1 when "c" is a member of a fused bucket of "r" after its
 * first, whose collective pays the latency of the bucket's one call. */
static int
fused_later(const struct report *r, const sym_reshard *c)
{
	const sym_sharding *sh = sym_graph_sharding(r->g);
	size_t b = sym_reshard_bucket(c);

	return sh && b < sym_sharding_n_buckets(sh) &&
	    sym_sharding_bucket_reshard(sh, b, 0) != c;
}

/* Return 1 when "v" is the count of the rows that count of a mean
 * softmax_cross_entropy (the output of sce_count). */
static int
sce_count(const sym_value *v)
{
	const sym_node *n = sym_value_producer(v);

	return n && !strcmp(sym_op_name(sym_node_op(n)), "sce_count");
}

/* Return 1 when "v" is a statistic of a class-split softmax_cross_entropy
 * (the output of sce_target or sce_sumexp). */
static int
sce_split_stat(const sym_value *v)
{
	const sym_node *n = sym_value_producer(v);

	return n &&
	    (!strcmp(sym_op_name(sym_node_op(n)), "sce_target") ||
	        !strcmp(sym_op_name(sym_node_op(n)), "sce_sumexp"));
}

/* Add the communication of "r" to "t": the topology and the sizes the
 * times are estimated at, then each communication, a heading line and
 * one row per step of its plan, then the total. */
static void
comm_rows(const struct report *r, struct table *t)
{
	size_t n = sym_graph_n_reshards(r->g), steps = 0, shared = 0;
	double total = 0;
	char buf[64], more[64] = "";

	if (n == 0)
		return;
	table_line(t, 2, report_format("topology: %s", r->topo_text));
	if (*r->least_text)
		table_line(t, 2,
		    report_format("estimated times at the least sizes: %s",
		        r->least_text));
	for (size_t i = 0; i < n && !t->oom; i++) {
		const sym_reshard *c = sym_graph_reshard(r->g, i);
		size_t k = sym_redist_n_steps(c->plan);

		table_line(t, 2, comm_heading(c));
		if (sym_reshard_shares(c)) {
			table_line(t, 4, shared_line(sym_reshard_shares(c)));
			shared++;
			continue;
		}
		for (size_t s = 0; s < k; s++) {
			step_row(r, t, c->plan, s, &total);
			steps += sym_redist_step_kind(c->plan, s) !=
			    SYM_REDIST_SLICE;
		}
		if (k && total >= 0 && fused_later(r, c))
			total -= sym_redist_step_latency(c->plan, 0);
		if (sym_redist_full_gather(c->plan) == 1)
			table_line(t, 4,
			    text_dup("full gather: every rank holds the whole "
			             "tensor at some step of this plan"));
		if (!c->consumer && mirrored_param(r, c->value))
			table_line(t, 4,
			    report_format(
			        "why: %s is replicated over these "
			        "axes; its gradient is the sum of its "
			        "replicas' partial gradients "
			        "(MindSpore's mirror operator)",
			        sym_value_name(mirrored_param(r, c->value))));
		if (param_gather(r, c))
			table_line(t, 4,
			    report_format(
			        "why: %s is kept as its shard between steps "
			        "(optimizer_shard=3), gathered whole for the "
			        "%s pass and released after its last use "
			        "there",
			        sym_value_name(c->value),
			        forward_node(r, c->consumer) ? "forward"
			                                     : "backward"));
		if (!c->consumer && bn_stats(c->value))
			table_line(t, 4,
			    text_dup(
			        "why: batch_norm's statistics are those of "
			        "the whole batch, the sums of every block's "
			        "(sharded training equals one device; "
			        "PyTorch and MindSpore keep per-device "
			        "statistics)"));
		if (!c->consumer && !has_partial(sym_reshard_source(c)) &&
		    c->reason)
			table_line(t, 4, report_format("why: %s", c->reason));
		if (!c->consumer && sce_count(c->value))
			table_line(t, 4,
			    text_dup("why: the mean of softmax_cross_entropy "
			             "divides by the rows whose label is not "
			             "ignore_index over the whole batch, the "
			             "sum of every block's count (the labels "
			             "stay split)"));
		if (!c->consumer && sce_split_stat(c->value))
			table_line(t, 4,
			    text_dup(
			        "why: softmax_cross_entropy's classes are "
			        "split (vocab_parallel): each row's label "
			        "logit and sum of exp(logit - label logit) "
			        "are the sums of every block of classes'"));
	}
	steps -= fusion_rows(r, t);
	n -= shared;
	if (shared)
		snprintf(more, sizeof(more), " (%zu more use%s shar%s one)",
		    shared, shared == 1 ? "" : "s", shared == 1 ? "es" : "e");
	table_line(t, 2,
	    report_format("total: %zu communication%s%s, %zu collective%s, %s",
	        n, n == 1 ? "" : "s", more, steps, steps == 1 ? "" : "s",
	        report_seconds_text(buf, sizeof(buf), total)));
	if (sym_sharding_optimizer_shard(sym_graph_sharding(r->g)) >= 1) {
		size_t rs, ag;
		double os;
		int level =
		    sym_sharding_optimizer_shard(sym_graph_sharding(r->g));

		report_optshard_comms(r, &rs, &ag, &os);
		table_line(t, 2,
		    report_format("optimizer_shard: %zu reduce_scatter%s of "
		                  "gradients and %zu all_gather%s of %s "
		                  "in place of %zu all_reduce%s, %s%s%s",
		        rs, rs == 1 ? "" : "s", ag, ag == 1 ? "" : "s",
		        level >= 3 ? "params kept sharded, for their uses"
		                   : "updated params",
		        rs, rs == 1 ? "" : "s",
		        report_seconds_text(buf, sizeof(buf), os),
		        level >= 2
		            ? "; level 2: the whole partial gradients share "
		              "one buffer, not kept after their reduce_scatter"
		            : "",
		        level >= 3 ? "; level 3: params kept as their shards "
		                     "between steps, gathered whole for the "
		                     "forward and again for the backward pass"
		                   : ""));
	}
}

/* Print the section "title" of "r" to "out", its rows added by "rows",
 * or a line saying that sharding did not run; 0, or -1 when out of
 * memory. */
static int
section(const struct report *r, FILE *out, const char *title,
    void (*rows)(const struct report *, struct table *))
{
	struct table t = { NULL, 0, 0, 0 };

	fprintf(out, "\n%s\n", title);
	if (r->sharded)
		rows(r, &t);
	else
		table_line(&t, 2, text_dup(NOT_SHARDED));
	return table_print(&t, out);
}

/* Print the sections "layouts", "strategies" and "communication" of "r"
 * to "out"; 0, or -1 when out of memory. */
int
report_text_sharding(const struct report *r, FILE *out)
{
	int res = 0;

	res |= section(r, out, "layouts", layout_rows);
	res |= section(r, out, "strategies", strategy_rows);
	res |= section(r, out, "communication", comm_rows);
	return res ? -1 : 0;
}
