/* SPDX-License-Identifier: MIT */
/*
 * The sharding pass of a graph (sym_graph_shard), shared by its files:
 * pass.c (the driver, validation, redistribution and the accessors),
 * clause.c (shard clauses and output strategies), choose.c (the
 * default strategy, propagation and their costs), intern.c and memo.c.
 */
#ifndef SYM_SHARD_SHARD_PRIVATE_H
#define SYM_SHARD_SHARD_PRIVATE_H

#include "core/hash.h"
#include "core/htab.h"
#include "graph/graph_private.h"
#include "redist/redist_private.h"
#include "rules/rule_private.h"
#include "shard/sharding_private.h"

/* The number of tensor strategies of node "n": one per input, or, for a
 * generator (an operator without inputs: arange, full, ...), one for its
 * output. */
static inline size_t
sym__n_strategies(const sym_node *n)
{
	return n->n_in ? n->n_in : n->n_out;
}

/* The value that tensor strategy "i" of node "n" splits: input "i", or
 * output "i" of a generator. */
static inline sym_value *
sym__strategy_value(const sym_node *n, size_t i)
{
	return n->n_in ? n->in[i] : n->out[i];
}

/* One way of sharding a node: a run of its rule, and its outputs with
 * their partial sums resolved. */
struct sym__run {
	struct sym__shard s;
	/* The arrays are in the scratch memory of "s". */
	sym_shape **in_shape, **out_shape; /* borrowed from the values */
	const char **in_name;
	int ok;             /* "s" holds input and output layouts */
	sym_layout **value; /* by output: resolved layout (internal) */
	int *scatter;       /* by output: resolved by a ReduceScatter */
	char *source;       /* how the strategy was chosen */
	char *text;         /* the strategy in force */
};

/* The dimensions of a value already validated (each refuted split is
 * reported once): up to 8 (dimension, split) pairs. */
struct sym__seen {
	uint8_t n;
	uint8_t d[8];
	int64_t k[8];
};

/* A use of a value: input "input" of node number "node". */
struct sym__use {
	size_t node, input;
};

/* A redistribution planned once in a pass (memo.c): of a tensor
 * of shape "shape" from layout "from" to layout "to" (the key, internal
 * references). */
struct sym__memo {
	sym_layout *from, *to;
	sym_shape *shape;
	sym_redist *plan; /* owned by the pass; NULL: it cannot be planned */
	char *error;      /* why not (NULL: out of memory) */
	double cost;      /* bytes at the least sizes; -1: not known */
	char *steps;      /* "all_gather over d0, ...", once needed
	                   * (sym__memo_steps); NULL: none or not yet */
	char *from_text, *to_text; /* layout_text, once needed */
};

/* What a candidate strategy communicates: the memos (indices) of its
 * redistributions that have steps, in the order they were priced. */
struct sym__desc {
	size_t *memo;
	size_t n, cap;
};

/* A hash table of the distinct meshes or layouts of a pass: items are
 * internal references, cast to uintptr_t. */
struct sym__intern {
	struct sym__htab t;
};

/* What a sharding is computed from besides its graph and topology (the
 * strategy assignment): strategies by node number that replace the
 * graph's shard clauses (NULL entries: the node's own clause, or none),
 * meshes declared beside the graph's, the pass whose redistribution plans
 * to reuse (a search's, on the same topology), whether the pass's
 * diagnostics and guards stay on the graph (sym_graph_shard) or go with
 * the sharding, and the level of optimizer sharding. */
struct sym__assign {
	const struct sym__strategy *const *strategy;
	size_t n_strategy;
	const struct sym__mesh_decl *mesh;
	size_t n_mesh;
	struct sym__pass *memos;
	int keep_reports;
	/* The level of optimizer sharding in force when "set_optshard"
	 * (the search's choice, 0 to 3), else the graph's own. */
	int set_optshard, optshard;
};

/* The optimizer sharding of a trained param in a pass (optshard.c):
 * the layout of its update (an internal reference; NULL: whole), the
 * mesh axes it is split over (bits), and whether it was decided. */
struct sym__optshard {
	sym_layout *layout;
	uint32_t axes;
	int decided;
};

/* The state of one sharding pass over "g". */
struct sym__pass {
	sym_graph *g;
	const sym_topology *topo;
	sym_sharding *sh; /* what it builds (NULL: it shards nothing) */
	/* by node: the strategy in force (the graph's or the assignment's) */
	const struct sym__strategy **strategy;
	const struct sym__mesh_decl *xmesh; /* the assignment's meshes */
	size_t n_xmesh;
	struct sym__pass *memos; /* whose memos to use, or NULL */
	size_t guard0;           /* the graph's guards before the pass */
	int64_t devices;
	int64_t *divisor; /* of "devices", increasing, once needed */
	size_t n_divisor;
	struct sym__run *run; /* of the nodes with clauses, then the current */
	size_t n_run;         /* node without a clause: its run, run[n_run] */
	size_t *run_of;       /* by node: its index in "run" */
	sym_mesh **decl_mesh; /* by mesh declaration (the graph's, then the
	                       * assignment's; internal), or NULL */
	sym_binding *least;   /* every symbol at its least value */
	char *least_txt;      /* "b = 8" */
	char *least_words;    /* "; bytes at the least sizes b = 8" or "" */
	struct sym__seen *seen; /* by value */
	size_t *use0;           /* by value: its first use in "use" */
	struct sym__use *use;   /* uses grouped by value, nodes in order */
	struct sym__memo *memo; /* the redistributions planned so far */
	size_t n_memo, cap_memo;
	struct sym__htab memo_index;        /* hash of a memo's key -> index */
	struct sym__intern meshes, layouts; /* those given to the graph */
	struct sym__optshard *optshard;     /* by value, once needed */
};

/* The run of node number "i" in the pass "p": its own when it has a
 * shard clause, else the one of the node being sharded. */
static inline struct sym__run *
sym__pass_run(struct sym__pass *p, size_t i)
{
	return &p->run[p->run_of[i]];
}

/* A run for node "n"; 0 or -1 (out of memory). */
int sym__run_init(struct sym__pass *p, sym_node *n, struct sym__run *r);
void sym__run_clear(struct sym__run *r);
/* Resolve the partial sums of every output of the successful run "r"
 * that has no resolved layout yet by an AllReduce; 0 or -1. */
int sym__run_resolve(struct sym__run *r);
/* 1 when output "k" of "r" holds partial sums over an axis of size > 1.
 */
int sym__run_partial(const struct sym__run *r, size_t k);
/* The strategy of "r" as a tuple of split counts, "((8, 1), (1, 1))". */
char *sym__run_tuple_text(const struct sym__run *r);

/* Write the decimal digits of "v" at "t" (room for 21); their number. */
size_t sym__put_int(char *t, int64_t v);
/* The concatenation of the "n" strings "part" (malloc'ed). */
char *sym__concat(const char *const *part, size_t n);

/* The label of node "n" for messages, "matmul h1" (malloc'ed). */
char *sym__node_label(const sym_node *n);

/* 1 when node "i" of "g" is the batch_norm_stats read by the batch_norm
 * after it, whose shard clause it follows (pass.c). */
int sym__bn_stats_of(const sym_graph *g, size_t i);
/* The index of the class-split softmax_cross_entropy whose statistic
 * node "i" of "g" is, or 0 (pass.c). */
size_t sym__sce_stats_of(const sym_graph *g, size_t i);

/* Optimizer sharding (optshard.c): adjust the run "r" of node "n"
 * before it is committed (a gradient resolved into its update's layout,
 * a sharded update); 0 or -1. */
int sym__optshard_node(struct sym__pass *p, sym_node *n, struct sym__run *r);
/* 1 when the trained param "v" has its update sharded in "p". */
int sym__optshard_is(const struct sym__pass *p, const sym_value *v);
/* The communications of node "n" (pass_comm.c), in the order the pass
 * records them: its inputs laid out as it needs them (redistributions);
 * the partial sums of its run "r" resolved; the param an update on a
 * shard wrote, gathered back. Each returns 0 or -1; "p" is the pass. */
int sym__pass_redistribute(struct sym__pass *p, sym_node *n);
int sym__pass_resolve_partials(struct sym__pass *p, sym_node *n,
    struct sym__run *r);
int sym__pass_gather_updated(struct sym__pass *p, sym_node *n,
    struct sym__run *r);
/* Keep the param "v" as its shard "shard" from node "n" on, its earlier
 * uses gathered from it (optimizer_shard=3, pass_comm.c); 0 or -1. */
int sym__pass_keep_sharded(struct sym__pass *p, sym_value *v,
    const sym_layout *shard, const sym_node *n);
void sym__optshard_clear(struct sym__pass *p);

/* Shard clauses: the run of node "n" from its clause, recorded as an
 * error diagnostic when invalid; 0 or -1. */
int sym__shard_clause(struct sym__pass *p, sym_node *n);
/* Nodes without a clause: choose between the default strategy and
 * propagation; 0 or -1. */
int sym__shard_choose(struct sym__pass *p, sym_node *n);
/* A node of the backward pass (n->fwd set): the run whose input layouts
 * mirror those of its forward node, as n->mirror says; 0, or -1 when
 * that cannot be done (then the node's strategy is chosen as any
 * other's). */
int sym__shard_derive(struct sym__pass *p, sym_node *n);

/* Shard "g" with the assignment "a" (NULL: the graph's clauses) on
 * "topo" (NULL: the default); the new sharding (a caller reference,
 * possibly with errors), or NULL when out of memory. */
sym_sharding *sym__shard_build(sym_graph *g, const struct sym__assign *a,
    const sym_topology *topo);
/* The declaration of the mesh "name" in the pass "p" (the graph's, then
 * the assignment's) and its index in p->decl_mesh, or NULL. */
const struct sym__mesh_decl *sym__pass_find_mesh(const struct sym__pass *p,
    const char *name, size_t *index);
/* The layout of "v" and the layouts node "n" has in the sharding the pass
 * "p" builds. */
static inline sym_layout *
sym__pass_vlayout(const struct sym__pass *p, const sym_value *v)
{
	return p->sh ? p->sh->layout[v->index] : NULL;
}

static inline const struct sym__nshard *
sym__pass_nshard(const struct sym__pass *p, const sym_node *n)
{
	return p->sh ? &p->sh->node[n->index] : NULL;
}

/* As sym_graph_shard, with the strategies and meshes of the assignment
 * "a" (its keep_reports ignored): the graph's current sharding; 0 or
 * -1. */
int sym__graph_shard_with(sym_graph *g, const struct sym__assign *a,
    const sym_topology *topo);

/* A pass that shards nothing, for trying runs of single nodes (the
 * strategy search); 0 or -1. */
int sym__pass_begin(struct sym__pass *p, sym_graph *g,
    const sym_topology *topo);
void sym__pass_end(struct sym__pass *p);
/* Call "fn" with "arg", the text and the run of every tuple strategy of
 * node "n"
 * its rule accepts over splits that divide the devices, none refuted
 * divisible ("((2, 4), (4, 1))"; the same text may come twice), up to
 * "most" tries; return the number of strategies, or -1 (out of memory,
 * or "fn" returned -1). */
long sym__shard_candidates(struct sym__pass *p, sym_node *n, size_t most,
    int (*fn)(void *arg, const char *text, const struct sym__run *r),
    void *arg);
/* The devices the run "r" splits its work over: its mesh's without the
 * axis of repeats. */
int64_t sym__run_devices_used(const struct sym__run *r);

/* Interning (intern.c): a new reference to the pass's mesh or
 * layout equal to "m" or "l"; exact equality of layouts (axes of size 1
 * included) and their hash, mixed into "h". */
sym_mesh *sym__intern_mesh(struct sym__pass *p, sym_mesh *m);
sym_layout *sym__intern_layout(struct sym__pass *p, sym_layout *l);
void sym__intern_clear(struct sym__pass *p);
int sym__layout_same(const sym_layout *a, const sym_layout *b);
uint64_t sym__layout_hash(uint64_t h, const sym_layout *l);

/* The memo of the redistribution of a tensor of shape "shape" from
 * "from" to "to", planned the first time (borrowed until the next call);
 * NULL when out of memory. */
struct sym__memo *sym__pass_redist(struct sym__pass *p, const sym_layout *from,
    const sym_layout *to, const sym_shape *shape);
void sym__pass_redist_clear(struct sym__pass *p);
/* The text of the steps of memo "m", made once; NULL: none, or out of
 * memory. */
const char *sym__memo_steps(struct sym__memo *m);
/* The pass whose memos "p" uses: its assignment's (a search's, on the
 * same topology) or "p". */
struct sym__pass *sym__pass_memos(struct sym__pass *p);

/* The cost model's parts (cost.c), for the cost graph of the search:
 * the bytes of the block of a tensor of shape "global" laid out as
 * "layout" (NULL: whole); the operations of node "n" on its blocks;
 * whether output "k" of "n" shares an input's block; operations at
 * "rate" per second in femtoseconds ("flops" consumed). New references,
 * NULL on failure. */
sym_expr *sym__cost_block_bytes(const sym_layout *layout,
    const sym_shape *global);
sym_expr *sym__cost_node_flops(const sym_sharding *sh, const sym_node *n);
int sym__cost_shares_block(const sym_node *n, size_t k);
int sym__cost_resolution_kept(const sym_sharding *sh,
    const struct sym__comm *m);
sym_expr *sym__cost_written_bytes(const sym_sharding *sh,
    const struct sym__comm *m);
sym_expr *sym__cost_flops_fs(sym_expr *flops, double rate);
#endif
