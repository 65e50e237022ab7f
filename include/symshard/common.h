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

/* Error codes left on a context by a failing call. */
typedef enum sym_error {
	SYM_OK = 0,
	SYM_ENOMEM,    /* out of memory */
	SYM_EINVAL,    /* invalid argument */
	SYM_EPARSE,    /* syntax error in input text */
	SYM_EDECL,     /* invalid declaration */
	SYM_EOVERFLOW, /* 64-bit overflow during evaluation */
	SYM_EDIVZERO,  /* division or modulo by zero or a negative number */
	SYM_EUNBOUND,  /* symbol without a value in a binding */
	SYM_EDOMAIN,   /* value outside a symbol's admissible set */
	SYM_EUNSAT,    /* facts contradict each other */
	SYM_ESCOPE,    /* scope misuse (pop without push, ...) */
	SYM_EINTERNAL, /* internal error (a bug: please report it) */
	SYM_EISL,      /* error reported by the integer set library */
	SYM_ESHAPE,    /* shape or operator rule violated */
	SYM_ELAYOUT,   /* invalid mesh, layout or strategy */
	SYM_EIO        /* input/output error */
} sym_error;

/* Three-valued answer of a query; SYM_ERROR when the call failed. */
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
