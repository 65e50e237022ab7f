/*
 * Sharding a checked graph: strategies to layouts, validation,
 * propagation, redistribution (DESIGN sections 6 and 7).
 */
#include <stdlib.h>

#include "graph/graph_private.h"

/* Release the layouts, meshes and communications sym_graph_shard attached
 * to "g". */
void
sym__graph_shard_clear(sym_graph *g)
{
	for (size_t i = 0; i < g->n_node; i++) {
		sym_node *n = g->node[i];

		for (size_t k = 0; n->in_layout && k < n->n_in; k++)
			sym__layout_unref(n->in_layout[k]);
		for (size_t k = 0; n->out_layout && k < n->n_out; k++)
			sym__layout_unref(n->out_layout[k]);
		free(n->in_layout);
		free(n->out_layout);
		free(n->strategy_source);
		free(n->strategy_text);
		sym__mesh_unref(n->mesh);
		n->in_layout = n->out_layout = NULL;
		n->strategy_source = n->strategy_text = NULL;
		n->mesh = NULL;
	}
	for (size_t i = 0; i < g->n_value; i++) {
		sym__layout_unref(g->value[i]->layout);
		g->value[i]->layout = NULL;
	}
	for (size_t i = 0; i < g->n_comm; i++) {
		sym_redist_free(g->comm[i].plan);
		free(g->comm[i].reason);
	}
	free(g->comm);
	g->comm = NULL;
	g->n_comm = g->cap_comm = 0;
	g->sharded = 0;
}
