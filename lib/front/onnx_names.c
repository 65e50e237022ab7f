/* SPDX-License-Identifier: MIT */
/*
 * The ONNX names of imported nodes (sym_onnx(3)): every registry node an
 * ONNX node was mapped to keeps that node's name, and one of them is the
 * node a strategy for the ONNX node applies to (the shard clauses by
 * ONNX node name of symshard-graph(5)). Built with or without the ONNX
 * reader: a graph without imported nodes has no names.
 */
#include <string.h>

#include <symshard.h>

#include "front/front.h"

/* Return the name of the ONNX node that node "n" was imported from, or
 * NULL when it was not imported (or its ONNX node had no name). */
const char *
sym_node_onnx_name(const sym_node *n)
{
	return n ? n->onnx_name : NULL;
}

/* Return the number of nodes of "g" that a strategy for the ONNX node
 * "name" applies to, the first of them in "*first" (may be NULL; NULL
 * when there is none). */
size_t
sym__graph_onnx_nodes(const sym_graph *g, const char *name, sym_node **first)
{
	size_t n = 0;

	if (first)
		*first = NULL;
	for (size_t i = 0; g && name && i < g->n_node; i++) {
		sym_node *nd = g->node[i];
		if (!nd->onnx_primary || !nd->onnx_name ||
		    strcmp(nd->onnx_name, name))
			continue;
		if (first && !n)
			*first = nd;
		n++;
	}
	return n;
}

/* Return the node of "g" that a strategy for the ONNX node "name"
 * applies to (the one sym_node_set_strategy should be given), or NULL
 * when no node or several nodes of the imported models have that name. */
sym_node *
sym_graph_find_onnx_node(const sym_graph *g, const char *name)
{
	sym_node *nd;

	return sym__graph_onnx_nodes(g, name, &nd) == 1 ? nd : NULL;
}
