/*
 * Compiler-style diagnostics: "file:line:col: error: message", the source
 * line and a caret under the column.
 */
#ifndef SYM_CORE_DIAG_H
#define SYM_CORE_DIAG_H

#include <symshard/common.h>

char *sym__diag_format(const sym_loc *loc, const char *severity,
    const char *message, const char *source);

#endif
