/*
 * Command-line helpers shared by the tools: numbers, tolerances, options
 * that take a value, whether MPI must start before the arguments are
 * read.
 */
#ifndef SYM_TOOLS_TOOL_ARGS_H
#define SYM_TOOLS_TOOL_ARGS_H

#include <stddef.h>
#include <stdint.h>

int tool_parse_number(const char *s, uint64_t least, uint64_t *n);
int tool_parse_tolerance(const char *s, double *x);
const char *tool_valued_option(const char *arg, const char *const *names,
    size_t n);
int tool_wants_mpi(int argc, char **argv);

#endif
