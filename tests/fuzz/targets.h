/*
 * What the fuzzers and the replay of tests/fuzz/regress/ run on one
 * input: only the public API, so that both can share them.
 */
#ifndef SYM_TESTS_FUZZ_TARGETS_H
#define SYM_TESTS_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int fuzz_graph_one(const uint8_t *data, size_t size);
int fuzz_expr_one(const uint8_t *data, size_t size);

#endif
