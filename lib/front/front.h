/* SPDX-License-Identifier: MIT */
/*
 * What the readers of lib/front offer the layers above them beside the
 * public parsing API: the strategy and mesh texts of a strategy
 * assignment (sym_sharding(3)), read without touching the graph.
 */
#ifndef SYM_FRONT_FRONT_H
#define SYM_FRONT_FRONT_H

#include "graph/graph_private.h"

/* The strategy written in "text" as after "shard" in a graph file, for
 * a node of "g", or NULL with a diagnostic on "g". */
struct sym__strategy *sym__strategy_parse(sym_graph *g, const char *text);

/* Read into "*m" the mesh declaration written in "text" as after "mesh"
 * in a graph file, without declaring it in "g"; 0, or -1 with a
 * diagnostic on "g". */
int sym__mesh_decl_parse(sym_graph *g, const char *text,
    struct sym__mesh_decl *m);

/* Import into "into" (a graph file being parsed) rather than a new
 * graph, with dimension parameters renamed (sym__onnx_import). */
struct sym__onnx_into {
	sym_graph *g;
	const char *const *from;
	sym_symbol *const *to;
	size_t n;
	int training; /* BatchNormalization in training (import ... training) */
};
int sym__onnx_import(sym_graph *g, const char *path,
    const struct sym__onnx_into *into);

/* The number of nodes of "g" a strategy for the ONNX node "name"
 * applies to, the first in "*first" (onnx_names.c). */
size_t sym__graph_onnx_nodes(const sym_graph *g, const char *name,
    sym_node **first);

#endif
