/* SPDX-License-Identifier: MIT */
/*
 * shape-check: what the two parts of the JSON report (json.c,
 * json_shard.c) share: the document being built and the helpers
 * that build its members, each marking the document out of memory on
 * failure instead of returning an error.
 */
#ifndef SHAPE_CHECK_JSON_H
#define SHAPE_CHECK_JSON_H

#include <jansson.h>

#include "report.h"

/* A JSON document being built; "oom" is set by the first failure. */
struct doc {
	const struct report *r;
	int oom;
};

/* Return "v", marking "d" out of memory when it is NULL. */
json_t *doc_chk(struct doc *d, json_t *v);

/* Set member "key" of "obj" to "v" (taken); a failure marks "d". */
void doc_set(struct doc *d, json_t *obj, const char *key, json_t *v);

/* Append "v" (taken) to the array "arr"; a failure marks "d". */
void doc_push(struct doc *d, json_t *arr, json_t *v);

/* Return a JSON string of "s" (null for NULL). */
json_t *doc_str(struct doc *d, const char *s);

/* Return a JSON string of the malloc'ed "s" (taken; NULL is out of
 * memory). */
json_t *doc_str_take(struct doc *d, char *s);

/* Return a JSON integer "n". */
json_t *doc_num(struct doc *d, int64_t n);

/* Return the dimensions of "s" as an array of expression strings. */
json_t *doc_dims(struct doc *d, const sym_shape *s);

/* Return the location "loc" as {file, line, col}, or null when it is
 * unknown. */
json_t *doc_loc(struct doc *d, sym_loc loc);

/* Return the layout "l" as an object (text, mesh, dims, partial,
 * tensor_map), or null for NULL. */
json_t *json_layout(struct doc *d, const sym_layout *l);

/* Return the local shape of "v" under "l" as an array of expression
 * strings, or null when unknown. */
json_t *json_local_shape(struct doc *d, const sym_value *v,
    const sym_layout *l);

/* Return the object of the least value of every declared symbol. */
json_t *json_sizes_at_least(struct doc *d);

/* Return the array of the operators: strategy, its source, mesh and
 * layouts. */
json_t *json_operators(struct doc *d);

/* Return the array of the communications and the steps of their
 * plans. */
json_t *json_communication(struct doc *d);
json_t *json_fusion(struct doc *d);

/* Return the cost of the sharded graph and the search, or null
 * (cost.c). */
json_t *json_cost(struct doc *d);
json_t *json_search(struct doc *d);

/* Return the binding of --bind as {symbol: value}, or null when the
 * slices are not bound (slices.c). */
json_t *json_binding(struct doc *d);

/* Return the slices of every input and output of every kernel step, or
 * null when they are not bound. */
json_t *json_slices(struct doc *d);

#endif
