/* SPDX-License-Identifier: MIT */
/*
 * symshard: reading ONNX models into graphs (sym_onnx(3)).
 */
#ifndef SYMSHARD_ONNX_H
#define SYMSHARD_ONNX_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/common.h>
#include <symshard/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an import found; SYM_ONNX_STATS_INIT sets "size". */
typedef struct sym_onnx_stats {
	size_t size;          /* sizeof(sym_onnx_stats), set by the caller */
	int64_t opset;        /* of the default domain */
	size_t nodes;         /* ONNX nodes */
	size_t folded;        /* of them, computed as shape values */
	size_t values;        /* ONNX values with a graph value */
	size_t symbolic_dims; /* dimensions of those that are not constants */
	size_t lost_dims;     /* dimensions that became fresh symbols */
} sym_onnx_stats;

/* clang-format off */
#define SYM_ONNX_STATS_INIT { sizeof(sym_onnx_stats), 0, 0, 0, 0, 0, 0 }
/* clang-format on */

SYM_EXPORT SYM_GIVE sym_graph *sym_onnx_read(SYM_KEEP sym_ctx *ctx,
    const char *path, sym_onnx_stats *stats);
SYM_EXPORT SYM_GIVE sym_graph *sym_onnx_read_mem(SYM_KEEP sym_ctx *ctx,
    const void *data, size_t size, const char *filename, sym_onnx_stats *stats);
SYM_EXPORT sym_answer sym_onnx_is_model(const void *data, size_t size);
SYM_EXPORT size_t sym_onnx_n_supported(void);
SYM_EXPORT SYM_KEEP const char *sym_onnx_supported(size_t i);
SYM_EXPORT SYM_KEEP const char *sym_node_onnx_name(SYM_KEEP const sym_node *n);
SYM_EXPORT SYM_KEEP sym_node *
sym_graph_find_onnx_node(SYM_KEEP const sym_graph *g, const char *name);

#ifdef __cplusplus
}
#endif

#endif
