/* SPDX-License-Identifier: MIT */
/*
 * Compiler-style diagnostics: "file:line:col: error: message", the source
 * line and a caret under the column.
 */
#ifndef SYM_CORE_DIAG_H
#define SYM_CORE_DIAG_H

#include <symshard/common.h>

/* The longest part of a source line a diagnostic echoes: longer lines are
 * clipped around the column (documented in symshard-graph(5)). */
#define SYM__DIAG_CLIP 120

char *sym__diag_format(const sym_loc *loc, const char *severity,
    const char *message, const char *source, const char *witness,
    const char *hint);

#endif
