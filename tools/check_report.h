/*
 * shape-check: what its two report writers (readable text, JSON) share.
 */
#ifndef SHAPE_CHECK_REPORT_H
#define SHAPE_CHECK_REPORT_H

#include <stdio.h>

#include <symshard.h>

/* A checked graph and how to report it. */
struct report {
	sym_ctx *ctx;
	sym_graph *g;
	int strict;           /* --strict: warnings count as errors */
	int overridden;       /* --devices replaced the file's devices */
	int64_t file_devices; /* what the file said (0: nothing) */
	size_t n_errors;      /* with --strict applied */
	size_t n_warnings;    /* with --strict applied */
};

/* Fill in the counts of "r" from its graph's diagnostics. */
void report_count(struct report *r);

/* Return the severity of "d" once the options of "r" are applied. */
sym_severity report_severity(const struct report *r, const sym_diagnostic *d);

/* Return the name of severity "sev": "error", "warning" or "note". */
const char *report_severity_name(sym_severity sev);

/* Return the name of the kind of value "v": "input", "param" or
 * "result". */
const char *report_kind_name(const sym_value *v);

/* Return 1 when the value "v" is an output of "g". */
int report_is_output(const sym_graph *g, const sym_value *v);

/* Return the declared shape of "v" when it differs from its unified
 * shape, else NULL. */
sym_shape *report_declared_if_different(const sym_value *v);

/* Return the malloc'ed text of "sym"'s declaration without its name
 * ("divisor=8 unique", "instance of b", "" when it has no option), or
 * NULL when out of memory. */
char *report_symbol_decl(const sym_symbol *sym);

/* Return the malloc'ed list of the first admissible values of "sym",
 * "8, 16, 24, ..." or "128, 256, 384, ..., 8192", or NULL when out of
 * memory. */
char *report_symbol_values(const sym_symbol *sym);

/* Write the readable report of "r" to "out"; 0, or -1 when out of
 * memory. */
int report_text(const struct report *r, FILE *out);

/* Write the JSON report of "r" to "out"; 0, or -1 when out of memory. */
int report_json(const struct report *r, FILE *out);

#endif
