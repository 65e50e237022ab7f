/* SPDX-License-Identifier: MIT */
/*
 * The fused buckets of a plan as the executor reads them (plan_fuse.c):
 * no plan internals needed.
 */
#ifndef SYM_PLAN_PLAN_FUSE_H
#define SYM_PLAN_PLAN_FUSE_H

#include <symshard/plan.h>

/* The number of fused buckets of "p". */
size_t sym__plan_n_buckets(const sym_plan *p);
/* The bucket of step "i" of "p", or SIZE_MAX. */
size_t sym__plan_step_bucket(const sym_plan *p, size_t i);
/* The steps of bucket "b" of "p" in order ("*n" of them), or NULL. */
const size_t *sym__plan_bucket_steps(const sym_plan *p, size_t b, size_t *n);

#endif
