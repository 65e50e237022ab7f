/* SPDX-License-Identifier: MIT */
/*
 * The ONNX reader's fuzz target: any bytes through sym_onnx_read_mem
 * must give a graph or NULL with an error on the context, never a crash
 * or a leak; a graph's diagnostics and values must print.
 */
#include <stdlib.h>

#include "targets.h"

/* Run the bytes "data" of "size" through the ONNX reader; 0, or -1 when
 * a property broke (NULL without an error, an object left alive). */
int
fuzz_onnx_one(const uint8_t *data, size_t size)
{
	sym_ctx *ctx = fuzz_new_ctx();
	sym_graph *g;
	int r = 0;

	if (!ctx)
		return 0;
	g = sym_onnx_read_mem(ctx, data, size, "fuzz.onnx", NULL);
	if (!g && sym_ctx_last_error(ctx) == SYM_OK)
		r = fuzz_fail("the reader failed without an error");
	if (g && fuzz_print_graph(g) < 0)
		r = -1;
	sym_graph_free(g);
	if (sym_ctx_live_objects(ctx) != 0)
		r = fuzz_fail("%zu objects left alive",
		    sym_ctx_live_objects(ctx));
	sym_ctx_free(ctx);
	return r;
}
