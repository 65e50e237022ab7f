/* SPDX-License-Identifier: MIT */
/*
 * What the fuzzers and the replay of tests/fuzz/regress/ run on one
 * input: only the public API, so that both can share them. Each
 * fuzz_*_one returns 0, or -1 after printing on stderr which property
 * the input broke.
 */
#ifndef SYM_TESTS_FUZZ_TARGETS_H
#define SYM_TESTS_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include <symshard.h>

int fuzz_graph_one(const uint8_t *data, size_t size);
int fuzz_expr_one(const uint8_t *data, size_t size);
int fuzz_pipeline_one(const uint8_t *data, size_t size);
int fuzz_inputs_one(const uint8_t *data, size_t size);
int fuzz_corpus_one(const uint8_t *data, size_t size);
int fuzz_onnx_one(const uint8_t *data, size_t size);

/* Shared by the targets (targets.c). */
char *fuzz_text_of(const uint8_t *data, size_t size);
sym_ctx *fuzz_new_ctx(void);
int fuzz_print_graph(const sym_graph *g);
int fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fuzz_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run a graph with no error through the pipeline target: shard it (on
 * "topo", may be NULL), compile, bind, check and run its plans; "seed"
 * chooses the bindings. Return 0 or -1 (target_pipeline.c). */
int fuzz_pipeline_graph(sym_ctx *ctx, sym_graph *g, const sym_topology *topo,
    uint64_t seed);

/* Printing and checking a sharded graph and its plans (pipeline_check.c):
 * each returns 0, or -1 after fuzz_fail. */
int fuzz_printed(char *text, const char *what);
int fuzz_print_sharding(const sym_graph *g);
int fuzz_print_redist(const sym_redist *r, const sym_binding *b);
int fuzz_print_comms(const sym_graph *g, const sym_binding *b);
int fuzz_check_plan(const sym_plan *p, int single);
int fuzz_check_layouts(const sym_plan *p, const sym_slices *s);
int fuzz_check_shapes(const sym_plan *p, const sym_slices *s,
    const sym_binding *b);
int fuzz_same_slices(const sym_plan *p, const sym_slices *a,
    const sym_slices *b);
int fuzz_check_bound(const sym_plan *p, const sym_slices *s,
    const sym_plan *single, const sym_slices *s1);

#endif
