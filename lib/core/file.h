/* SPDX-License-Identifier: MIT */
/*
 * Whole-file reading with a size limit and the NUL rule applied while
 * reading, for every text input of the library.
 */
#ifndef SYM_CORE_FILE_H
#define SYM_CORE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include <symshard/ctx.h>

/* The largest input file the library reads (graph files, topology files,
 * rank tables): 64 MiB, documented in shape-check(1) and
 * symshard-graph(5). */
#define SYM__FILE_LIMIT ((size_t)64 << 20)

char *sym__read_file(sym_ctx *ctx, const char *path, size_t limit, size_t *len,
    size_t *nul_at);
char *sym__read_stream(sym_ctx *ctx, FILE *f, const char *name, size_t limit,
    size_t *len, size_t *nul_at);

#endif
