/* SPDX-License-Identifier: MIT */
/*
 * Shardings as values (sym_sharding(3), DESIGN section 16): made from a
 * graph, a strategy assignment and a topology by the sharding pass
 * (pass.c), immutable, reference counted; their allocation and
 * release; and the accessors of the graph's current sharding
 * (sym_graph_shard's), which read it.
 */
#include <stdlib.h>
#include <string.h>

#include "front/front.h"
#include "shard/shard_private.h"

/* Release the strategies and meshes of the assignment "a" read by
 * read_assignment. */
static void
assign_clear(struct sym__assign *a)
{
	for (size_t i = 0; a->strategy && i < a->n_strategy; i++)
		sym__strategy_free((struct sym__strategy *)a->strategy[i]);
	for (size_t k = 0; a->mesh && k < a->n_mesh; k++)
		sym__mesh_decl_free((struct sym__mesh_decl *)&a->mesh[k]);
	free((void *)a->strategy);
	free((void *)a->mesh);
	memset(a, 0, sizeof(*a));
}

/* Read the assignment "in" for "g" into "a" (strategies by node number,
 * meshes); 0, or -1 with a diagnostic on "g" or an error on the context.
 */
static int
read_assignment(sym_graph *g, const sym_assignment *in, struct sym__assign *a)
{
	struct sym__strategy **st;
	struct sym__mesh_decl *m;

	memset(a, 0, sizeof(*a));
	if (!in)
		return 0;
	if (sym__options_size(g->ctx, in->size, sizeof(*in), "sharding",
	        "an assignment", "SYM_ASSIGNMENT_INIT") < 0)
		return -1;
	if (in->n_strategies > g->n_node) {
		sym__error(g->ctx, SYM_EINVAL, NULL,
		    "sharding: %zu strategies for a graph of %zu nodes",
		    in->n_strategies, g->n_node);
		return -1;
	}
	st = sym__calloc(g->ctx, in->n_strategies + 1, sizeof(*st));
	m = sym__calloc(g->ctx, in->n_meshes + 1, sizeof(*m));
	a->strategy = (const struct sym__strategy *const *)st;
	a->mesh = m;
	if (!st || !m)
		return -1;
	a->n_strategy = in->n_strategies;
	for (size_t i = 0; i < in->n_strategies; i++)
		if (in->strategies[i] &&
		    !(st[i] = sym__strategy_parse(g, in->strategies[i])))
			return -1;
	for (size_t k = 0; k < in->n_meshes; k++) {
		if (!in->meshes[k] ||
		    sym__mesh_decl_parse(g, in->meshes[k], &m[k]) < 0)
			return -1;
		a->n_mesh++;
		if (sym__graph_find_mesh(g, m[k].name))
			return sym__graph_diag(g, SYM_SEV_ERROR, NULL, NULL,
			    NULL,
			    "sharding: mesh '%s' is declared in the graph",
			    m[k].name);
	}
	return 0;
}

/* Return the sharding of "g" (checked without errors, differentiated when
 * it trains) with the strategy assignment "a" (NULL: the graph's own
 * shard clauses) on "topo" (NULL: one node with the default links), a
 * caller reference, or NULL with an error on the context: the graph has
 * errors, the assignment does not read (the reason in a diagnostic of the
 * graph), or out of memory. A sharding whose strategies are invalid is
 * returned with its errors among its diagnostics. The graph is not
 * changed (its backward part aside) and must outlive the sharding. */
sym_sharding *
sym_sharding_new(sym_graph *g, const sym_assignment *a,
    const sym_topology *topo)
{
	struct sym__assign as;
	sym_sharding *sh;

	if (!g)
		return NULL;
	if (g->loss && !g->differentiated && g->n_errors == 0 &&
	    sym_graph_differentiate(g) < 0)
		return NULL;
	if (g->n_errors > 0) {
		sym__error(g->ctx, SYM_EINVAL, NULL,
		    "sharding: the graph has errors");
		return NULL;
	}
	if (read_assignment(g, a, &as) < 0) {
		if (sym_ctx_last_error(g->ctx) == SYM_OK)
			sym__error(g->ctx, SYM_EINVAL, NULL,
			    "sharding: the assignment does not read (see the "
			    "graph's diagnostics)");
		assign_clear(&as);
		return NULL;
	}
	sh = sym__shard_build(g, &as, topo);
	assign_clear(&as);
	if (sh)
		sym__obj_give(g->ctx, &sh->obj);
	return sh;
}

/* Return a new caller reference to "sh" (NULL: NULL). */
sym_sharding *
sym_sharding_ref(sym_sharding *sh)
{
	if (sh) {
		sym__obj_ref(&sh->obj);
		sym__obj_give(sh->ctx, &sh->obj);
	}
	return sh;
}

/* Release the caller reference "sh"; return NULL. */
sym_sharding *
sym_sharding_free(sym_sharding *sh)
{
	if (sh)
		sym__obj_drop(sh->ctx, &sh->obj);
	return NULL;
}

/* Return the graph "sh" shards, or NULL. */
sym_graph *
sym_sharding_graph(const sym_sharding *sh)
{
	return sh ? sh->g : NULL;
}

/* Return the current sharding of "g" (sym_graph_shard's; borrowed), or
 * NULL when it has none. */
sym_sharding *
sym_graph_sharding(const sym_graph *g)
{
	return sym__graph_sharding(g);
}

/* Return the level of optimizer sharding "sh" was made with (0: none,
 * 1 to 3): its graph's "parallel optimizer_shard=", or the level the
 * strategy search chose under a memory cap; 0 for NULL. */
int
sym_sharding_optimizer_shard(const sym_sharding *sh)
{
	return sh ? sh->optshard : 0;
}

/* Return the number of errors of "sh" (those it keeps apart from its
 * graph; 0 for NULL). */
size_t
sym_sharding_n_errors(const sym_sharding *sh)
{
	return sh ? sh->n_errors : 0;
}

/* Return the number of diagnostics "sh" keeps. */
size_t
sym_sharding_n_diagnostics(const sym_sharding *sh)
{
	return sh ? sh->n_diag : 0;
}

/* Return diagnostic "i" of "sh" (borrowed), or NULL. */
const sym_diagnostic *
sym_sharding_diagnostic(const sym_sharding *sh, size_t i)
{
	return sh && i < sh->n_diag ? &sh->diag[i].pub : NULL;
}

/* Return the number of run-time guards "sh" keeps. */
size_t
sym_sharding_n_guards(const sym_sharding *sh)
{
	return sh ? sh->n_guard : 0;
}

/* Return guard "i" of "sh" (borrowed), or NULL. */
const sym_guard *
sym_sharding_guard(const sym_sharding *sh, size_t i)
{
	return sh && i < sh->n_guard ? &sh->guard[i].pub : NULL;
}

/* Return the layout of "v" in "sh" as its producer leaves it (partial
 * sums resolved; inputs and parameters as loaded), or NULL. */
const sym_layout *
sym_sharding_value_layout(const sym_sharding *sh, const sym_value *v)
{
	return sym__vlayout(sh, v);
}

/* Return the device matrix of node "n" in "sh", or NULL. */
const sym_mesh *
sym_sharding_node_mesh(const sym_sharding *sh, const sym_node *n)
{
	const struct sym__nshard *ns = sym__nshard(sh, n);

	return ns ? ns->mesh : NULL;
}

/* Return the layout node "n" needs for its input "i" in "sh", or NULL. */
const sym_layout *
sym_sharding_input_layout(const sym_sharding *sh, const sym_node *n, size_t i)
{
	const struct sym__nshard *ns = sym__nshard(sh, n);

	return ns && ns->in_layout && i < n->n_in ? ns->in_layout[i] : NULL;
}

/* Return the layout node "n" produces for its output "i" in "sh",
 * partial sums included, or NULL. */
const sym_layout *
sym_sharding_output_layout(const sym_sharding *sh, const sym_node *n, size_t i)
{
	const struct sym__nshard *ns = sym__nshard(sh, n);

	return ns && ns->out_layout && i < n->n_out ? ns->out_layout[i] : NULL;
}

/* Return how the strategy of "n" in "sh" was chosen, or NULL. */
const char *
sym_sharding_strategy_source(const sym_sharding *sh, const sym_node *n)
{
	const struct sym__nshard *ns = sym__nshard(sh, n);

	return ns ? ns->source : NULL;
}

/* Return the strategy in force at "n" in "sh" as text (borrowed), or
 * NULL. */
const char *
sym_sharding_strategy(const sym_sharding *sh, const sym_node *n)
{
	const struct sym__nshard *ns = sym__nshard(sh, n);

	return ns ? ns->text : NULL;
}

/* Return the number of communications of "sh". */
size_t
sym_sharding_n_reshards(const sym_sharding *sh)
{
	return sh ? sh->n_comm : 0;
}

/* Return communication "i" of "sh" (borrowed), or NULL. */
const sym_reshard *
sym_sharding_reshard(const sym_sharding *sh, size_t i)
{
	return sh && i < sh->n_comm ? &sh->comm[i].pub : NULL;
}

/* Return the index of "v" among the outputs of its producer "n". */
static size_t
output_index(const sym_node *n, const sym_value *v)
{
	size_t k = 0;

	while (k < n->n_out && n->out[k] != v)
		k++;
	return k;
}

/* Where the pass records a communication: the node it serves, and the
 * input it lays out or, after the inputs, the output whose partial sums
 * it resolves. */
struct comm_place {
	size_t node, slot;
};

/* Return the place of the communication of "v" for input "input" of
 * "consumer" (NULL: the resolution of the partial sums of "v"). */
static struct comm_place
comm_place(const sym_value *v, const sym_node *consumer, size_t input)
{
	const sym_node *n = consumer ? consumer : v->producer;
	struct comm_place at = { n->index, input };

	if (!consumer)
		at.slot = n->n_in + output_index(n, v);
	return at;
}

/* Return 1 when the place "a" comes before the place "b", else 0. */
static int
place_before(struct comm_place a, struct comm_place b)
{
	return a.node < b.node || (a.node == b.node && a.slot < b.slot);
}

/* Return the communication of "sh" that lays out "v" for input "input"
 * of "consumer", or with "consumer" NULL the one that resolves the
 * partial sums of "v" ("input" is then ignored); NULL when there is
 * none. The pass records communications node by node, the inputs of a
 * node in order, then its resolutions: a binary search finds it. */
const sym_reshard *
sym_sharding_find_reshard(const sym_sharding *sh, const sym_value *v,
    const sym_node *consumer, size_t input)
{
	struct comm_place want;
	size_t lo = 0, hi;

	if (!sh || !v || (!consumer && !v->producer) ||
	    (consumer && input >= consumer->n_in))
		return NULL;
	want = comm_place(v, consumer, input);
	hi = sh->n_comm;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const sym_reshard *c = &sh->comm[mid].pub;

		if (place_before(comm_place(c->value, c->consumer, c->input),
		        want))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sh->n_comm && sh->comm[lo].pub.value == v &&
	    sh->comm[lo].pub.consumer == consumer &&
	    (!consumer || sh->comm[lo].pub.input == input))
		return &sh->comm[lo].pub;
	return NULL;
}

/* Return the sharding the communication "c" belongs to. */
static const sym_sharding *
comm_sharding(const sym_reshard *c)
{
	return ((const struct sym__comm *)c)->sh;
}

/* Return the layout the communication "c" starts from: for a resolution,
 * the output layout of the producer with its partial sums, else the
 * layout of the value; NULL for a NULL "c". */
const sym_layout *
sym_reshard_source(const sym_reshard *c)
{
	const sym_node *p;

	if (!c || !c->value)
		return NULL;
	p = c->value->producer;
	if (!c->consumer && p)
		return sym_sharding_output_layout(comm_sharding(c), p,
		    output_index(p, c->value));
	return sym__vlayout(comm_sharding(c), c->value);
}

/* Return the layout the communication "c" ends in: the resolved layout of
 * the value, or the layout its consumer needs for the input; NULL for a
 * NULL "c". */
const sym_layout *
sym_reshard_target(const sym_reshard *c)
{
	if (!c || !c->value)
		return NULL;
	if (!c->consumer)
		return sym__vlayout(comm_sharding(c), c->value);
	return sym_sharding_input_layout(comm_sharding(c), c->consumer,
	    c->input);
}

/* Return the earlier communication of the same value to the same layout
 * whose result "c" reads instead of moving the data again, or NULL when
 * "c" moves its own (or "c" is NULL). */
const sym_reshard *
sym_reshard_shares(const sym_reshard *c)
{
	const struct sym__comm *m = (const struct sym__comm *)c;

	if (!c || m->shares == SIZE_MAX)
		return NULL;
	return &m->sh->comm[m->shares].pub;
}

/* The accessors of the graph's current sharding. */

/* Return the layout of "v" in the current sharding of its graph, or
 * NULL before sharding. */
const sym_layout *
sym_value_layout(const sym_value *v)
{
	return v ? sym__vlayout(v->graph->sharding, v) : NULL;
}

/* Return the device matrix of node "n" in the current sharding of its
 * graph, or NULL before sharding. */
const sym_mesh *
sym_node_mesh(const sym_node *n)
{
	return n ? sym_sharding_node_mesh(n->graph->sharding, n) : NULL;
}

/* Return the layout node "n" needs for its input "i", or NULL. */
const sym_layout *
sym_node_input_layout(const sym_node *n, size_t i)
{
	return n ? sym_sharding_input_layout(n->graph->sharding, n, i) : NULL;
}

/* Return the layout node "n" produces for its output "i", partial sums
 * included, or NULL. */
const sym_layout *
sym_node_output_layout(const sym_node *n, size_t i)
{
	return n ? sym_sharding_output_layout(n->graph->sharding, n, i) : NULL;
}

/* Return how the strategy of node "n" was chosen ("shard clause",
 * "default: ...", "propagated from ..."), or NULL before sharding. */
const char *
sym_node_strategy_source(const sym_node *n)
{
	return n ? sym_sharding_strategy_source(n->graph->sharding, n) : NULL;
}

/* Return the strategy in force at node "n" as text (malloc'ed): its
 * shard clause as written, else the split counts of its inputs; NULL
 * before sharding. */
char *
sym_node_strategy_to_str(const sym_node *n)
{
	const char *t = n ? sym_sharding_strategy(n->graph->sharding, n) : NULL;

	return t ? strdup(t) : NULL;
}

/* Return the number of communications of the current sharding of "g". */
size_t
sym_graph_n_reshards(const sym_graph *g)
{
	return sym_sharding_n_reshards(sym__graph_sharding(g));
}

/* Return communication "i" of the current sharding of "g" (borrowed), or
 * NULL. */
const sym_reshard *
sym_graph_reshard(const sym_graph *g, size_t i)
{
	return sym_sharding_reshard(sym__graph_sharding(g), i);
}

/* As sym_sharding_find_reshard on the current sharding of "g". */
const sym_reshard *
sym_graph_find_reshard(const sym_graph *g, const sym_value *v,
    const sym_node *consumer, size_t input)
{
	return sym_sharding_find_reshard(sym__graph_sharding(g), v, consumer,
	    input);
}

/* Free the sharding whose header is "obj". */
static void
sharding_destroy(struct sym__obj *obj)
{
	sym_sharding *sh = SYM__OBJ_OF(obj, sym_sharding, obj);

	for (size_t i = 0; sh->node && i < sh->n_node; i++) {
		struct sym__nshard *ns = &sh->node[i];

		for (size_t k = 0; ns->in_layout && k < ns->n_in; k++)
			sym__layout_unref(ns->in_layout[k]);
		for (size_t k = 0; ns->out_layout && k < ns->n_out; k++)
			sym__layout_unref(ns->out_layout[k]);
		free(ns->in_layout);
		free(ns->out_layout);
		free(ns->source);
		free(ns->text);
		sym__mesh_unref(ns->mesh);
	}
	for (size_t i = 0; sh->layout && i < sh->n_value; i++)
		sym__layout_unref(sh->layout[i]);
	for (size_t i = 0; i < sh->n_comm; i++) {
		sym_redist_free(sh->comm[i].plan);
		free(sh->comm[i].reason);
	}
	free(sh->bucket_comm);
	free(sh->bucket_first);
	free(sh->comm_bucket);
	free(sh->bucket_bytes);
	for (size_t i = 0; i < sh->n_diag; i++) {
		free(sh->diag[i].message);
		free(sh->diag[i].witness);
		free(sh->diag[i].hint);
		sym_binding_free(sh->diag[i].w);
	}
	for (size_t i = 0; i < sh->n_guard; i++) {
		free(sh->guard[i].text);
		free(sh->guard[i].reason);
		sym__expr_unref(sh->guard[i].e);
	}
	free(sh->diag);
	free(sh->guard);
	free(sh->comm);
	free(sh->node);
	free(sh->layout);
	free(sh);
}

/* Return a new empty sharding of "g" (one library reference), or NULL
 * with SYM_ENOMEM on the context. */
sym_sharding *
sym__sharding_alloc(sym_graph *g)
{
	sym_sharding *sh = sym__alloc(g->ctx, sizeof(*sh));

	if (!sh)
		return NULL;
	memset(sh, 0, sizeof(*sh));
	sh->ctx = g->ctx;
	sh->g = g;
	sh->n_node = g->n_node;
	sh->n_value = g->n_value;
	sym__obj_init(&sh->obj, SYM__OBJ_SHARDING, sharding_destroy);
	sh->node = sym__calloc(g->ctx, g->n_node + 1, sizeof(*sh->node));
	sh->layout = sym__calloc(g->ctx, g->n_value + 1, sizeof(*sh->layout));
	if (!sh->node || !sh->layout) {
		sym__obj_unref(&sh->obj);
		return NULL;
	}
	return sh;
}
