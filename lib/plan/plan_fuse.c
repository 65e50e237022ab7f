/* SPDX-License-Identifier: MIT */
/*
 * The buckets of fused gradient all_reduces of a plan (DESIGN section 20,
 * lib/shard/fusion.c): the steps of the communications a bucket of the
 * sharding fuses, in step order. The executor runs a bucket at its last
 * step as one all_reduce over the members' blocks packed in that order,
 * and its other steps as nothing; so no step between a bucket's first
 * and last member may touch a member's tensors, which is checked here.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan_fuse.h"
#include "plan/plan_private.h"

/* Return 1 when step "s" of "p" reads or writes the tensors of step
 * "x". */
static int
touches(const sym_plan *p, const struct sym__pstep *s,
    const struct sym__pstep *x)
{
	size_t in = p->io[x->io], out = p->io[x->io + 1];

	for (size_t k = 0; k < s->pub.n_in + s->pub.n_out; k++)
		if (p->io[s->io + k] == in || p->io[s->io + k] == out)
			return 1;
	return 0;
}

/* Check that no step of "p" after a member of bucket "b" and up to the
 * bucket's last member, other than the bucket's own, touches that
 * member's tensors; 0, or -1 with an internal error. */
static int
check_bucket(sym_plan *p, const struct sym__pbucket *b)
{
	size_t id = (size_t)(b - p->bucket), last = b->step[b->n - 1];

	for (size_t m = 0; m < b->n; m++)
		for (size_t i = b->step[m] + 1; i <= last; i++) {
			const struct sym__pstep *s = &p->step[i];

			if (s->bucket == id ||
			    !touches(p, s, &p->step[b->step[m]]))
				continue;
			sym__error(p->ctx, SYM_EINTERNAL, NULL,
			    "plan: step %zu reads a gradient of fused bucket "
			    "%zu before the bucket's all_reduce",
			    i, id);
			return -1;
		}
	return 0;
}

/* Give the steps of "p" the buckets of its sharding that fuse two
 * communications or more; 0, or -1 with an error on the context. */
int
sym__plan_fuse(sym_plan *p)
{
	const sym_sharding *sh = p->sh;
	size_t nb = sym_sharding_n_buckets(sh), *map;

	if (p->single || !nb)
		return 0;
	map = sym__calloc(p->ctx, nb, sizeof(*map));
	if (!map)
		return -1;
	for (size_t b = 0; b < nb; b++)
		map[b] = sym_sharding_bucket_size(sh, b) > 1 ? p->n_bucket++
		                                             : SIZE_MAX;
	p->bucket = sym__calloc(p->ctx, p->n_bucket + 1, sizeof(*p->bucket));
	for (size_t b = 0; p->bucket && b < nb; b++) {
		struct sym__pbucket *pb;

		if (map[b] == SIZE_MAX)
			continue;
		pb = &p->bucket[map[b]];
		pb->cap = sym_sharding_bucket_size(sh, b);
		pb->bytes = sym_sharding_bucket_bytes(sh, b);
		pb->step = sym__calloc(p->ctx, pb->cap, sizeof(*pb->step));
		if (!pb->step)
			goto fail;
	}
	if (!p->bucket)
		goto fail;
	for (size_t i = 0; i < p->n_step; i++) {
		struct sym__pstep *s = &p->step[i];
		size_t b;

		if (s->pub.kind != SYM_PLAN_COMM ||
		    s->pub.input != SYM_PLAN_NO_INPUT)
			continue;
		b = sym_reshard_bucket(sym_sharding_find_reshard(sh,
		    s->pub.value, NULL, 0));
		if (b == SIZE_MAX || map[b] == SIZE_MAX)
			continue;
		s->bucket = map[b];
		if (p->bucket[map[b]].n < p->bucket[map[b]].cap)
			p->bucket[map[b]].step[p->bucket[map[b]].n++] = i;
	}
	free(map);
	for (size_t b = 0; b < p->n_bucket; b++) {
		if (p->bucket[b].n != p->bucket[b].cap) {
			sym__error(p->ctx, SYM_EINTERNAL, NULL,
			    "plan: fused bucket %zu has %zu steps, not %zu", b,
			    p->bucket[b].n, p->bucket[b].cap);
			return -1;
		}
		if (check_bucket(p, &p->bucket[b]) < 0)
			return -1;
	}
	return 0;
fail:
	free(map);
	return -1;
}

/* Free the buckets of "p". */
void
sym__plan_fuse_clear(sym_plan *p)
{
	for (size_t b = 0; p->bucket && b < p->n_bucket; b++)
		free(p->bucket[b].step);
	free(p->bucket);
	p->bucket = NULL;
	p->n_bucket = 0;
}

/* Return the number of fused buckets of "p". */
size_t
sym__plan_n_buckets(const sym_plan *p)
{
	return p ? p->n_bucket : 0;
}

/* Return the bucket of step "i" of "p", or SIZE_MAX. */
size_t
sym__plan_step_bucket(const sym_plan *p, size_t i)
{
	return p && i < p->n_step ? p->step[i].bucket : SIZE_MAX;
}

/* Return the steps of bucket "b" of "p" in step order, their number in
 * "*n"; NULL (and 0) when out of range. */
const size_t *
sym__plan_bucket_steps(const sym_plan *p, size_t b, size_t *n)
{
	*n = p && b < p->n_bucket ? p->bucket[b].n : 0;
	return *n ? p->bucket[b].step : NULL;
}
