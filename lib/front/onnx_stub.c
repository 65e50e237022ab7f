/* SPDX-License-Identifier: MIT */
/*
 * sym_onnx(3) in a library configured without ONNX support (no
 * protobuf-c): every reader fails with SYM_EINVAL and says why.
 */
#ifndef SYM_HAVE_ONNX
#include <symshard.h>

#include "core/ctx_private.h"
#include "front/front.h"

/* Record that ONNX support was not built on "ctx"; NULL. */
static sym_graph *
unsupported(sym_ctx *ctx, const char *file)
{
	sym__error(ctx, SYM_EINVAL, NULL,
	    "%s: this symshard was built without ONNX support (configure "
	    "--with-onnx, with libprotobuf-c-dev, protobuf-c-compiler and "
	    "libonnx-dev)",
	    file ? file : "(memory)");
	return NULL;
}

/* An import in a graph file: fails, ONNX support is not built. */
int
sym__onnx_import(sym_graph *g, const char *path,
    const struct sym__onnx_into *into)
{
	(void)into;
	unsupported(sym_graph_ctx(g), path);
	return -1;
}

/* As sym_onnx(3) describes: fails, ONNX support is not built. */
sym_graph *
sym_onnx_read(sym_ctx *ctx, const char *path, sym_onnx_stats *stats)
{
	(void)stats;
	return ctx ? unsupported(ctx, path) : NULL;
}

/* As sym_onnx(3) describes: fails, ONNX support is not built. */
sym_graph *
sym_onnx_read_mem(sym_ctx *ctx, const void *data, size_t size,
    const char *filename, sym_onnx_stats *stats)
{
	(void)data;
	(void)size;
	(void)stats;
	return ctx ? unsupported(ctx, filename) : NULL;
}

/* As sym_onnx(3) describes. */
sym_answer
sym_onnx_is_model(const void *data, size_t size)
{
	if (!data)
		return SYM_ERROR;
	return size >= 2 && ((const unsigned char *)data)[0] == 0x08
	    ? SYM_TRUE
	    : SYM_FALSE;
}

/* No operator is supported: 0. */
size_t
sym_onnx_n_supported(void)
{
	return 0;
}

/* No operator is supported: NULL. */
const char *
sym_onnx_supported(size_t i)
{
	(void)i;
	return NULL;
}
#else
/* ISO C forbids an empty translation unit. */
typedef int sym__onnx_stub_unused;
#endif
