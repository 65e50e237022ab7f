/* SPDX-License-Identifier: MIT */
/*
 * symshard: common definitions shared by every public header.
 */
#ifndef SYMSHARD_COMMON_H
#define SYMSHARD_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SYM_BUILDING) && defined(__GNUC__)
#define SYM_EXPORT __attribute__((visibility("default")))
#else
#define SYM_EXPORT
#endif

/* Ownership annotations (see symshard(3)). */
#define SYM_GIVE
#define SYM_TAKE
#define SYM_KEEP
#define SYM_NULL

/* Error codes left on a context by a failing call, as one list: each
 * entry is X(NAME, text); the enumerator is SYM_NAME, sym_strerror gives
 * the text and sym_error_name the enumerator's name. */
#define SYM_ERROR_MAP(X)                                        \
	X(OK, "no error")                                       \
	X(ENOMEM, "out of memory")                              \
	X(EINVAL, "invalid argument")                           \
	X(EPARSE, "syntax error")                               \
	X(EDECL, "invalid declaration")                         \
	X(EOVERFLOW, "64-bit overflow")                         \
	X(EDIVZERO, "division by zero or by a negative number") \
	X(EUNBOUND, "symbol has no value")                      \
	X(EDOMAIN, "value outside the admissible set")          \
	X(EUNSAT, "contradictory facts")                        \
	X(ESCOPE, "scope misuse")                               \
	X(EINTERNAL, "internal error")                          \
	X(EISL, "error in the integer set library")             \
	X(ESHAPE, "shape error")                                \
	X(ELAYOUT, "invalid mesh, layout or strategy")          \
	X(EIO, "input/output error")

#define SYM__ERROR_ENUM(name, text) SYM_##name,
typedef enum sym_error {
	SYM_ERROR_MAP(SYM__ERROR_ENUM)
} sym_error;
#undef SYM__ERROR_ENUM

/* The position that is none: what a function that finds a position
 * returns when nothing matches (sym_checkpoint_find, ...). */
#define SYM_NPOS ((size_t)-1)

/* Three-valued answer of a query, and the answer of every predicate
 * (sym_X_is_Y, sym_X_has_Y), which is never SYM_UNKNOWN; SYM_ERROR when
 * the call failed. */
typedef enum sym_answer {
	SYM_ERROR = -1,
	SYM_FALSE = 0,
	SYM_TRUE = 1,
	SYM_UNKNOWN = 2
} sym_answer;

/* A position in an input text. Line and column count from 1. */
typedef struct sym_loc {
	const char *file;
	int line;
	int col;
} sym_loc;

typedef struct sym_ctx sym_ctx;
typedef struct sym_symbol sym_symbol;
typedef struct sym_expr sym_expr;
typedef struct sym_binding sym_binding;

SYM_EXPORT SYM_KEEP const char *sym_strerror(sym_error code);
SYM_EXPORT SYM_KEEP const char *sym_error_name(sym_error code);
SYM_EXPORT SYM_KEEP const char *sym_answer_name(sym_answer answer);
SYM_EXPORT SYM_KEEP const char *sym_version(void);

#ifdef __cplusplus
}
#endif

#endif
