/* SPDX-License-Identifier: MIT */
/*
 * The fused buckets of gradient all_reduces or reduce_scatters on one
 * rank (DESIGN section 20, lib/plan/plan_fuse.c): a bucket's steps
 * before its last do nothing; at its last, the members' blocks are
 * reduced over the group by one collective. An all_reduce bucket's
 * gradients are laid out in one buffer, one after another in step
 * order, where nothing else shares them (sym__exec_fuse_views): the
 * kernels write them there and the collective reduces the buffer in
 * place. Otherwise the members are packed into one buffer, one after
 * another in step order, reduced and unpacked. A reduce_scatter's result is cut by member of the group,
 * so the buffer is too: member j's part is the concatenation, in step
 * order, of j's chunk of each gradient (that gradient's block after
 * the step on j, row-major whatever dimension it is split along), and
 * the part this rank receives is unpacked gradient by gradient. The
 * communicator adds each element over the group in group order whatever
 * vector holds it (comm_fold.c), so every element gets bitwise the sum
 * the unfused steps give it.
 */
#include <stdio.h>
#include <stdlib.h>
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

/* Return 1 when tensor "t" of "x" may be laid out in a bucket's buffer:
 * it is no alias and shares no buffer (pool, gather), no tensor aliases
 * it ("aliased"), one step writes it ("writes") and, when "read_once",
 * one step reads it ("reads"). */
static int
viewable(const sym_exec *x, size_t t, const size_t *writes, const size_t *reads,
    const unsigned char *aliased, int read_once)
{
	const struct sym__etensor *et = &x->tensor[t];

	return et->alias == SIZE_MAX && et->pool == SIZE_MAX &&
	    et->gather == SIZE_MAX && !aliased[t] && writes[t] == 1 &&
	    (!read_once || reads[t] == 1);
}

/*
 * Gradient as bucket view (DDP's gradient_as_bucket_view): the members
 * of a fused all_reduce bucket whose partial gradient only its kernel
 * writes and only the all_reduce reads, and whose reduced gradient only
 * the all_reduce writes, all lay out both in one buffer per bucket, one
 * member after another in step order (placed at prepare): the kernels
 * write the bucket, the collective reduces it in place, and the
 * readers of the gradients read it, with no packing copies. A bucket
 * with one member that does not qualify is packed as before. 0, or -1
 * out of memory.
 */
int
sym__exec_fuse_views(sym_exec *x)
{
	size_t nb = sym__plan_n_buckets(x->plan), *writes, *reads;
	unsigned char *aliased;

	if (!nb)
		return 0;
	writes = sym__calloc(x->ctx, 2 * x->n_tensor + 1, sizeof(*writes));
	aliased = sym__calloc(x->ctx, x->n_tensor + 1, 1);
	if (!writes || !aliased) {
		free(writes);
		free(aliased);
		return -1;
	}
	reads = writes + x->n_tensor;
	for (size_t t = 0; t < x->n_tensor; t++)
		if (x->tensor[t].alias != SIZE_MAX)
			aliased[x->tensor[t].alias] = 1;
	for (size_t i = 0; i < x->n_step; i++) {
		const sym_plan_step *ps = x->step[i].ps;

		for (size_t k = 0; k < ps->n_in; k++)
			reads[ps->in[k]]++;
		for (size_t k = 0; k < ps->n_out; k++)
			writes[ps->out[k]]++;
	}
	for (size_t b = 0; b < nb; b++) {
		size_t n, ok = 1;
		const size_t *st = sym__plan_bucket_steps(x->plan, b, &n);

		for (size_t m = 0; ok && m < n; m++) {
			const struct sym__estep *e = &x->step[st[m]];
			size_t ti = e->ps->in[0], to = e->ps->out[0];

			ok = e->comm.kind == SYM_REDIST_ALL_REDUCE &&
			    ti != to &&
			    viewable(x, ti, writes, reads, aliased, 1) &&
			    viewable(x, to, writes, reads, aliased, 0);
		}
		for (size_t m = 0; ok && m < n; m++) {
			const sym_plan_step *ps = x->step[st[m]].ps;

			x->tensor[ps->in[0]].view = b;
			x->tensor[ps->out[0]].view = b;
		}
	}
	free(writes);
	free(aliased);
	return 0;
}

/* Place the gradients of "x" laid out in their buckets
 * (sym__exec_fuse_views) at the prepared sizes: the buffer of a bucket
 * is that of its first member's partial gradient, grown to the whole
 * bucket, zeroed when new. 0, or -1 with SYM_ENOMEM on the context. */
int
sym__exec_fuse_place_views(sym_exec *x)
{
	for (size_t b = 0; b < sym__plan_n_buckets(x->plan); b++) {
		size_t n, total = 0;
		const size_t *st = sym__plan_bucket_steps(x->plan, b, &n);
		struct sym__etensor *own = &x->tensor[x->step[st[0]].ps->in[0]];
		int r;

		if (own->view != b)
			continue;
		for (size_t m = 0; m < n; m++) {
			const sym_plan_step *ps = x->step[st[m]].ps;
			const struct sym__etensor *in = &x->tensor[ps->in[0]];

			total += in->bytes > x->tensor[ps->out[0]].bytes
			    ? in->bytes
			    : x->tensor[ps->out[0]].bytes;
		}
		r = sym__kbuf_grow(&own->buf, &own->cap, &x->buffer_allocs,
		    total ? total : 1);
		if (r < 0) {
			sym__error(x->ctx, SYM_ENOMEM, NULL,
			    "executor: no room for %zu bytes of bucket %zu's "
			    "gradients",
			    total, b);
			return -1;
		}
		if (r > 0)
			memset(own->buf, 0, own->cap);
		total = 0;
		for (size_t m = 0; m < n; m++) {
			const sym_plan_step *ps = x->step[st[m]].ps;
			struct sym__etensor *in = &x->tensor[ps->in[0]];
			struct sym__etensor *out = &x->tensor[ps->out[0]];

			in->data = out->data = (char *)own->buf + total;
			total +=
			    in->bytes > out->bytes ? in->bytes : out->bytes;
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
		size_t k;
		const size_t *st = sym__plan_bucket_steps(x->plan, b, &k);
		size_t n = x->tensor[x->step[st[0]].ps->in[0]].view == b
		    ? 0 /* laid out in its own buffer */
		    : bucket_bytes(x, b, 0);

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

/* Return the buffer of the all_reduce bucket of the "n" steps "st" of
 * "x" when its gradients are laid out in it (sym__exec_fuse_views), one
 * after another, each reduced in place; else NULL. */
static char *
bucket_view(const sym_exec *x, const size_t *st, size_t n)
{
	char *base = x->tensor[x->step[st[0]].ps->in[0]].data;
	size_t off = 0;

	for (size_t m = 0; m < n; m++) {
		const sym_plan_step *ps = x->step[st[m]].ps;
		const struct sym__etensor *in = &x->tensor[ps->in[0]];

		if (in->view == SIZE_MAX || in->data != base + off ||
		    x->tensor[ps->out[0]].data != in->data ||
		    x->tensor[ps->out[0]].bytes != in->bytes)
			return NULL;
		off += in->bytes;
	}
	return base;
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
	char *send = x->fuse_buf, *recv, *view = NULL;
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
	else if (!es ||
	    (2 * total > x->fuse_cap && !(view = bucket_view(x, st, n))))
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
	if (!scatter && !view)
		view = bucket_view(x, st, n);
	if (view) {
		/* the gradients are the bucket: reduced in place */
		if (x->ep &&
		    sym_comm_all_reduce(x->ep, group, c->n, view, view,
		        (int64_t)(total / es), rdt, SYM_REDUCE_SUM) < 0)
			return SYM__XSTEP_COMM_ERR;
		for (size_t m = 0; m < n; m++) {
			struct sym__etensor *out =
			    &x->tensor[x->step[st[m]].ps->out[0]];

			sym__kwrap(out->data, out->dtype, out->numel);
		}
		return 0;
	}
	for (size_t m = 0; !scatter && m < n; m++) {
		const struct sym__etensor *in =
		    &x->tensor[x->step[st[m]].ps->in[0]];

		memcpy(send + off, in->data, in->bytes);
		off += in->bytes;
	}
	recv = send + total; /* fuse_buf holds 2 * total here */
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
