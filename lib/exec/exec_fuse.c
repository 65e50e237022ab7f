/* SPDX-License-Identifier: MIT */
/*
 * The fused buckets of gradient all_reduces or reduce_scatters on one
 * rank (DESIGN section 20, lib/plan/plan_fuse.c): a bucket's steps
 * before its last do nothing; at its last, the members' blocks are
 * packed into one buffer, reduced over the group by one collective and
 * unpacked. An all_reduce's members are packed one after another in
 * step order. A reduce_scatter's result is cut by member of the group,
 * so the buffer is too: member j's part is the concatenation, in step
 * order, of j's chunk of each gradient (that gradient's block after
 * the step on j, row-major whatever dimension it is split along), and
 * the part this rank receives is unpacked gradient by gradient. The
 * communicator adds each element over the group in group order whatever
 * vector holds it (comm_fold.c), so every element gets bitwise the sum
 * the unfused steps give it.
 */
#include <stdio.h>
#include <string.h>

#include "exec/exec_private.h"
#include "kern/kern_private.h"
#include "plan/plan_fuse.h"

/* Give the steps of "x" their buckets and check that the members of each
 * are all_reduces, or reduce_scatters, over one group of one dtype; 0, or
 * -1 with an error on the context. */
int
sym__exec_fuse_init(sym_exec *x)
{
	const sym_plan *p = x->plan;

	for (size_t i = 0; i < x->n_step; i++)
		x->step[i].bucket = sym__plan_step_bucket(p, i);
	for (size_t b = 0; b < sym__plan_n_buckets(p); b++) {
		size_t n;
		const size_t *st = sym__plan_bucket_steps(p, b, &n);
		const struct sym__estep *e0 = &x->step[st[0]];
		sym_dtype dt = x->tensor[e0->ps->in[0]].dtype;

		for (size_t m = 0; m < n; m++) {
			const struct sym__estep *e = &x->step[st[m]];

			if (e->ps->kind == SYM_PLAN_COMM &&
			    (e->comm.kind == SYM_REDIST_ALL_REDUCE ||
			        e->comm.kind == SYM_REDIST_REDUCE_SCATTER) &&
			    e->comm.kind == e0->comm.kind &&
			    sym__xstep_same_group(&e->comm, &e0->comm) &&
			    x->tensor[e->ps->in[0]].dtype == dt &&
			    x->tensor[e->ps->out[0]].dtype == dt)
				continue;
			sym__error(x->ctx, SYM_EINTERNAL, NULL,
			    "executor: step %zu of fused bucket %zu is not a "
			    "collective of the kind, group and dtype of step "
			    "%zu",
			    st[m], b, st[0]);
			return -1;
		}
	}
	return 0;
}

/* Return the bytes of the blocks before ("out" 0) or after the steps of
 * bucket "b" of "x" (prepared sizes). */
static size_t
bucket_bytes(const sym_exec *x, size_t b, int out)
{
	size_t n, bytes = 0;
	const size_t *st = sym__plan_bucket_steps(x->plan, b, &n);

	for (size_t m = 0; m < n; m++) {
		const sym_plan_step *ps = x->step[st[m]].ps;

		bytes += x->tensor[out ? ps->out[0] : ps->in[0]].bytes;
	}
	return bytes;
}

/* Grow the packing buffer of "x" for its buckets at the prepared sizes
 * (twice the largest bucket before its steps: sent and received, a
 * reduce_scatter receiving less); 0, or -1 with
 * SYM_ENOMEM on the context. */
int
sym__exec_fuse_prepare(sym_exec *x)
{
	size_t most = 0;

	for (size_t b = 0; b < sym__plan_n_buckets(x->plan); b++) {
		size_t n = bucket_bytes(x, b, 0);

		most = n > most ? n : most;
	}
	if (!most ||
	    sym__kbuf_grow(&x->fuse_buf, &x->fuse_cap, &x->buffer_allocs,
	        2 * most) >= 0)
		return 0;
	sym__error(x->ctx, SYM_ENOMEM, NULL,
	    "executor: no room for %zu bytes of fused gradients", 2 * most);
	return -1;
}

/* Pack the members of the fused reduce_scatter "st" ("n" steps of "x")
 * into "send", member j of the group at j * "stride" bytes; return 0,
 * or -1 when a gradient's block is not cut into the group's. */
static int
scatter_pack(const sym_exec *x, const size_t *st, size_t n, char *send,
    size_t stride)
{
	size_t off = 0;

	for (size_t m = 0; m < n; m++) {
		const struct sym__estep *e = &x->step[st[m]];
		const struct sym__etensor *in = &x->tensor[e->ps->in[0]];
		const struct sym__etensor *out = &x->tensor[e->ps->out[0]];
		int64_t vol = sym__xstep_scatter_pack(&e->comm, in->global,
		    sym__tensor_elem_size(in->dtype), in->data, send + off,
		    stride);

		if (vol < 0 || (size_t)vol * in->es != out->bytes ||
		    out->bytes * (size_t)e->comm.n != in->bytes)
			return -1;
		off += out->bytes;
	}
	return 0;
}

/* Run step "e" of "x", a member of a fused bucket: nothing before the
 * bucket's last step; at it, the bucket's all_reduce or reduce_scatter.
 * Return 0, SYM__XSTEP_ERR with a message in "err" ("size" bytes) after
 * releasing the group's other members, or SYM__XSTEP_COMM_ERR. */
int
sym__exec_run_bucket(sym_exec *x, const struct sym__estep *e, char *err,
    size_t size)
{
	size_t n;
	const size_t *st = sym__plan_bucket_steps(x->plan, e->bucket, &n);
	const struct sym__xstep *c = &e->comm;
	int scatter = c->kind == SYM_REDIST_REDUCE_SCATTER;
	const char *name = scatter ? "reduce_scatter" : "all_reduce";
	sym_dtype dt = x->tensor[e->ps->in[0]].dtype,
	          rdt = sym__exec_reduce_dtype(dt);
	size_t total = bucket_bytes(x, e->bucket, 0), es, off = 0;
	size_t part = bucket_bytes(x, e->bucket, 1);
	char *send = x->fuse_buf, *recv = send + total;
	const char *bad = NULL;
	const int *group;

	if (e->index != st[n - 1])
		return 0;
	group = sym__xstep_group(c, &x->scratch);
	if (!group) {
		snprintf(err, size,
		    "fused %s: out of memory for a group of %d ranks", name,
		    c->n);
		return SYM__XSTEP_ERR;
	}
	es = x->tensor[e->ps->in[0]].es;
	for (size_t m = 0; !scatter && m < n; m++) {
		const sym_plan_step *ps = x->step[st[m]].ps;

		if (x->tensor[ps->in[0]].bytes != x->tensor[ps->out[0]].bytes)
			rdt = SYM_DT_INVALID;
	}
	if (rdt == SYM_DT_INVALID)
		bad = "partial sums that cannot be added in place";
	else if (!es || 2 * total > x->fuse_cap)
		bad = "the bucket is not prepared";
	else if (scatter && !x->ep)
		bad = "no communicator endpoint to run the step";
	else if (scatter && scatter_pack(x, st, n, send, part) < 0)
		bad = "a gradient's block is not cut into the group's blocks";
	if (bad) {
		snprintf(err, size, "fused %s: %s", name, bad);
		if (x->ep)
			sym_comm_barrier(x->ep, group, c->n);
		return SYM__XSTEP_ERR;
	}
	for (size_t m = 0; !scatter && m < n; m++) {
		const struct sym__etensor *in =
		    &x->tensor[x->step[st[m]].ps->in[0]];

		memcpy(send + off, in->data, in->bytes);
		off += in->bytes;
	}
	if (x->ep &&
	    (scatter ? sym_comm_reduce_scatter(x->ep, group, c->n, send, recv,
	                   (int64_t)(part / es), rdt, SYM_REDUCE_SUM)
	             : sym_comm_all_reduce(x->ep, group, c->n, send, recv,
	                   (int64_t)(total / es), rdt, SYM_REDUCE_SUM)) < 0)
		return SYM__XSTEP_COMM_ERR;
	off = 0;
	for (size_t m = 0; m < n; m++) {
		const sym_plan_step *ps = x->step[st[m]].ps;
		struct sym__etensor *out = &x->tensor[ps->out[0]];

		memcpy(out->data, (x->ep ? recv : send) + off, out->bytes);
		sym__kwrap(out->data, out->dtype, out->numel);
		off += out->bytes;
	}
	return 0;
}
