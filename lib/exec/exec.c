/* SPDX-License-Identifier: MIT */
/*
 * The executor (sym_exec(3)): the steps of one rank of a slice plan, run
 * kernel by kernel on buffers sized by the bound slices.
 *
 * sym_exec_new resolves once what does not depend on sizes: each kernel
 * step's kernel, attributes and normalizer axes, each communication
 * step's groups and block indices (exec_redist.c), the tensors whose
 * data may alias their producer's input (reshape and its kin), and what
 * bounds every integer input. sym_exec_prepare sizes the buffers (grown,
 * never shrunk) and fills each step's kernel arguments, so that
 * sym_exec_run is a loop of calls that allocates nothing and formats
 * nothing unless a step fails. Filling the inputs is exec_fill.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef SYM_HAVE_OPENBLAS_SET_NUM_THREADS
#include <cblas.h>
#endif

#include "core/trace.h"
#include "comm/comm_private.h"
#include "exec/exec_private.h"
#include "plan/plan_fuse.h"
#include "graph/graph_private.h"

#include <symshard/expr.h>

static int exec_fail(sym_exec *x, const struct sym__estep *e, sym_error code,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Free the executor whose link is "link" (at sym_ctx_free too). */
static void
exec_destroy(struct sym__obj *obj)
{
	sym_exec *x = SYM__OBJ_OF(obj, sym_exec, obj);

	for (size_t i = 0; x->step && i < x->n_step; i++) {
		struct sym__estep *e = &x->step[i];

		sym__xstep_clear(&e->comm);
		free(e->tin);
		free(e->bounds);
	}
	for (size_t t = 0; x->tensor && t < x->n_tensor; t++)
		free(x->tensor[t].buf);
	free(x->step);
	free(x->tensor);
	free(x->fill);
	sym__xscratch_clear(&x->scratch);
	sym__kscratch_free(&x->kscratch);
	free(x->fuse_buf);
	free(x);
}

/* Free "x" and its buffers (NULL is ignored). */
void
sym_exec_free(sym_exec *x)
{
	if (!x)
		return;
	sym__obj_drop(x->ctx, &x->obj);
}

/* Return the rank "x" runs, or -1 for NULL. */
int64_t
sym_exec_rank(const sym_exec *x)
{
	return x ? x->rank : -1;
}

/* Store in "*mask" the axes (bits) that the normalizer of kernel step
 * "e" of "x" divides by, of the input its registry entry names (input 0
 * unless norm_input says otherwise), of rank "rank": the reduced axes,
 * or dimension 0, as the entry says; return 0, or -1 with an error on
 * the executor's context. */
static int
norm_axes(sym_exec *x, struct sym__estep *e, size_t rank, unsigned *mask)
{
	const sym_op *op = sym_node_op(e->ps->node);
	const struct sym__opattrs *at = sym__node_opattrs(e->ps->node);

	*mask = 0;
	if (rank > SYM__MAX_RANK)
		return exec_fail(x, e, SYM_EINVAL,
		    "tensors of more than %d dimensions are not supported",
		    SYM__MAX_RANK);
	if (op->norm == SYM__NORM_BATCH) {
		*mask = rank ? 1u : 0;
		return 0;
	}
	if (!at->reduce.mark)
		return exec_fail(x, e, SYM_EINVAL,
		    "the operator has no decoded axes");
	for (size_t d = 0; d < rank; d++)
		if (at->reduce.mark[d])
			*mask |= 1u << d;
	return 0;
}

/* Record on "e" that input "in" of its node holds indices below the
 * global size of dimension "dim" of its tensor "t" (an input when "out"
 * is 0, else an output); return 0 or -1 (out of memory, on "x"). */
static int
add_bound(sym_exec *x, struct sym__estep *e, size_t in, int out, size_t t,
    int dim)
{
	struct sym__bound *b;

	if (dim < 0)
		return 0;
	b = sym__realloc_array(x->ctx, e->bounds, e->n_bounds + 1, sizeof(*b));
	if (!b)
		return -1;
	e->bounds = b;
	b += e->n_bounds++;
	b->value = sym_node_input(e->ps->node, in);
	b->tensor = out ? e->ps->out[0] : e->ps->in[t];
	b->dim = dim;
	return 0;
}

/* Record the index operand of kernel step "e" (labels, gather and
 * embedding indices, one_hot's input), as its registry entry gives it,
 * and what bounds it; return 0 or -1. */
static int
index_bounds(sym_exec *x, struct sym__estep *e)
{
	const sym_op *op = sym_node_op(e->ps->node);
	const struct sym__index_operand *ix = &op->index;
	const sym_plan_step *ps = e->ps;
	int dim = ix->dim;

	if (ix->input < 0 || (size_t)ix->input >= ps->n_in ||
	    (ix->tensor < 0 ? ps->n_out < 1 : (size_t)ix->tensor >= ps->n_in))
		return 0;
	if (dim == SYM__INDEX_AXIS)
		dim = (int)sym__node_opattrs(ps->node)->gather.axis;
	return add_bound(x, e, (size_t)ix->input, ix->tensor < 0,
	    ix->tensor < 0 ? 0 : (size_t)ix->tensor, dim);
}

/* Prepare kernel step "e" of "x": its kernel, arguments, normalizer,
 * index bounds, and the alias of its output; return 0 or -1. */
static int
init_kernel(sym_exec *x, struct sym__estep *e)
{
	const sym_plan_step *ps = e->ps;
	const sym_op *op = sym_node_op(ps->node);
	size_t n = ps->n_in + ps->n_out;
	struct sym__kernel_args *a = &e->args;

	e->fn = sym__kernel(op);
	if (!e->fn)
		return exec_fail(x, e, SYM_EINVAL,
		    "the executor has no kernel for this operator");
	for (size_t i = 0; i < n; i++)
		if (sym_plan_tensor_ndim(x->plan,
		        i < ps->n_in ? ps->in[i] : ps->out[i - ps->n_in]) >
		    SYM__MAX_RANK)
			return exec_fail(x, e, SYM_EINVAL,
			    "tensors of more than %d dimensions are not "
			    "supported",
			    SYM__MAX_RANK);
	/* One block: the tensors, then offsets, global dims and output
	 * offsets. */
	e->tin = sym__calloc(x->ctx, n,
	    sizeof(struct sym__tensor) + 2 * sizeof(int64_t[SYM__MAX_RANK]));
	if (!e->tin)
		return -1;
	e->tout = e->tin + ps->n_in;
	e->off = (int64_t(*)[SYM__MAX_RANK])(e->tin + n);
	e->glob = e->off + ps->n_in;
	e->ooff = e->glob + ps->n_in;
	a->op = op;
	a->at = sym__node_opattrs(ps->node);
	a->n_in = (int)ps->n_in;
	a->n_out = (int)ps->n_out;
	a->in = e->tin;
	a->out = e->tout;
	a->offset = (const int64_t(*)[SYM__MAX_RANK])e->off;
	a->global_dim = (const int64_t(*)[SYM__MAX_RANK])e->glob;
	a->out_offset = (const int64_t(*)[SYM__MAX_RANK])e->ooff;
	a->scratch = &x->kscratch;
	if (op->id == SYM__OP_DROPOUT && ps->n_out >= 1)
		e->rng_key =
		    sym__exec_name_key(sym_value_name(sym_node_output(ps->node,
		        0)));
	else if (op->id == SYM__OP_DROPOUT_GRAD && ps->n_in >= 2)
		e->rng_key =
		    sym__exec_name_key(sym_value_name(sym_node_input(ps->node,
		        1)));
	if (op->norm != SYM__NORM_NONE && op->norm_input >= 0 &&
	    ps->n_in > (size_t)op->norm_input) {
		e->norm = 1;
		if (norm_axes(x, e,
		        sym_plan_tensor_ndim(x->plan, ps->in[op->norm_input]),
		        &e->norm_axes) < 0)
			return -1;
	}
	if ((op->flags & SYM__OPF_ALIAS) && ps->n_in >= 1 && ps->n_out == 1 &&
	    x->tensor[ps->out[0]].es == x->tensor[ps->in[0]].es)
		x->tensor[ps->out[0]].alias = ps->in[0];
	for (size_t k = 0;
	     (op->flags & SYM__OPF_INPLACE) && k < ps->n_out && k < ps->n_in;
	     k++)
		if (x->tensor[ps->out[k]].es == x->tensor[ps->in[k]].es)
			x->tensor[ps->out[k]].alias = ps->in[k];
	return index_bounds(x, e);
}

/* Prepare communication step "e" of "x" for its rank; return 0 or -1. */
static int
init_comm(sym_exec *x, struct sym__estep *e)
{
	const sym_plan_step *ps = e->ps;
	char err[256];

	if (ps->n_in != 1 || ps->n_out != 1)
		return exec_fail(x, e, SYM_EINVAL,
		    "a communication step needs one input and one output");
	if (!x->ep && x->n_ranks > 1)
		return exec_fail(x, e, SYM_EINVAL,
		    "no communicator endpoint for a plan of %lld ranks",
		    (long long)x->n_ranks);
	if (sym__xstep_from_redist(&e->comm, ps->redist, ps->redist_step,
	        sym_plan_tensor_layout(x->plan, ps->in[0]),
	        sym_plan_tensor_ndim(x->plan, ps->in[0]), x->rank, err,
	        sizeof(err)) < 0)
		return exec_fail(x, e, SYM_EINVAL, "%s", err);
	return 0;
}

/* Prepare the tensors of "x": element sizes and dtypes; return 0 or
 * -1. */
static int
init_tensors(sym_exec *x)
{
	const sym_plan *p = x->plan;

	x->n_tensor = sym_plan_n_tensors(p);
	x->tensor = sym__calloc(x->ctx, x->n_tensor, sizeof(*x->tensor));
	if (!x->tensor)
		return -1;
	for (size_t t = 0; t < x->n_tensor; t++) {
		struct sym__etensor *et = &x->tensor[t];
		const sym_value *v = sym_plan_tensor_value(p, t);

		et->dtype =
		    v ? sym_shape_dtype(sym_value_shape(v)) : SYM_DT_INVALID;
		et->es = sym__tensor_elem_size(et->dtype);
		et->rank = sym_plan_tensor_ndim(p, t);
		et->alias = SIZE_MAX;
		et->pool = SIZE_MAX;
		et->gather = SIZE_MAX;
		et->view = SIZE_MAX;
		if (!et->es || et->rank > SYM__MAX_RANK) {
			sym__error(x->ctx, SYM_EINVAL, NULL,
			    "executor: plan tensor %zu (%s) has %s", t,
			    v ? sym_value_name(v) : "no value",
			    et->es ? "more than 8 dimensions"
			           : "an invalid dtype");
			return -1;
		}
	}
	return 0;
}

/* Return 1 when plan tensor "t" of "x" holds the whole partial sums
 * of a trained param's gradient before they are scattered to its shard
 * (optimizer_shard=2), not the gradient's home. */
static int
partial_grad(const sym_exec *x, size_t t)
{
	const sym_graph *g = sym_plan_graph(x->plan);
	const sym_value *v = sym_plan_tensor_value(x->plan, t);

	if (!v || sym_plan_value_tensor(x->plan, v) == t)
		return 0;
	for (size_t i = 0; i < sym_graph_n_trained(g); i++)
		if (sym_value_grad(sym_graph_trained(g, i)) == v)
			return 1;
	return 0;
}

/*
 * Optimizer sharding level 2 (DESIGN section 20): the whole partial
 * gradient of a param is not kept after its reduce_scatter. Each lives
 * from the kernel that writes it to the unfused reduce_scatter steps
 * that read it; the gradients one kernel writes are a group, packed one
 * after the other. Groups whose lives do not overlap share one buffer,
 * that of the first gradient pooled, as large as the largest group (at
 * prepare); a tensor read by a kernel, another collective or a fused
 * bucket, or of a group that overlaps the pool's, keeps its own buffer.
 * 0, or -1 out of memory.
 */
static int
pool_partial_grads(sym_exec *x)
{
	size_t *first, *last, owner = SIZE_MAX, end = 0;

	if (sym_sharding_optimizer_shard(sym_plan_sharding(x->plan)) < 2)
		return 0;
	first = sym__calloc(x->ctx, 2 * x->n_tensor + 1, sizeof(*first));
	if (!first)
		return -1;
	last = first + x->n_tensor;
	for (size_t t = 0; t < x->n_tensor; t++)
		first[t] = last[t] = SIZE_MAX;
	for (size_t i = 0; i < x->n_step; i++) {
		const sym_plan_step *ps = x->step[i].ps;
		int comm = ps->kind != SYM_PLAN_KERNEL;

		for (size_t k = 0; k < ps->n_in + ps->n_out; k++) {
			size_t t =
			    k < ps->n_in ? ps->in[k] : ps->out[k - ps->n_in];
			int writes = k >= ps->n_in;

			if (first[t] == SIZE_MAX) {
				/* Written first by a kernel, else never a
				 * candidate. */
				first[t] = comm || !writes ? x->n_step : i;
			} else if (first[t] < x->n_step &&
			    (!comm || writes ||
			        ps->comm != SYM_REDIST_REDUCE_SCATTER ||
			        sym__plan_step_bucket(x->plan, i) != SIZE_MAX))
				first[t] = x->n_step;
			last[t] = i;
		}
	}
	for (size_t i = 0; i < x->n_step; i++) {
		const sym_plan_step *ps = x->step[i].ps;
		size_t group_end = 0, n = 0;

		for (size_t k = 0; ps->kind == SYM_PLAN_KERNEL && k < ps->n_out;
		     k++) {
			size_t t = ps->out[k];

			if (first[t] != i || last[t] == i ||
			    !partial_grad(x, t) ||
			    x->tensor[t].alias != SIZE_MAX)
				first[t] = x->n_step;
			else if (++n && last[t] > group_end)
				group_end = last[t];
		}
		if (!n || (owner != SIZE_MAX && i <= end))
			continue;
		for (size_t k = 0; k < ps->n_out; k++)
			if (first[ps->out[k]] == i) {
				if (owner == SIZE_MAX)
					owner = ps->out[k];
				x->tensor[ps->out[k]].pool = owner;
			}
		end = group_end;
	}
	free(first);
	return 0;
}

/* Return 1 when plan tensor "t" of "x" is a copy of a param kept as its
 * shard (optimizer_shard=3) that communication writes, not the param's
 * home. */
static int
param_copy(const sym_exec *x, size_t t)
{
	const sym_value *v = sym_plan_tensor_value(x->plan, t);

	return v && sym_value_get_kind(v) == SYM_VALUE_PARAM &&
	    sym_plan_value_tensor(x->plan, v) != t &&
	    sym_sharding_optimizer_shard(sym_plan_sharding(x->plan)) >= 3;
}

/*
 * Optimizer sharding level 3 (DESIGN section 20): the whole copies of a
 * param kept sharded live from the communication step that gathers them
 * to the last step that reads them, and copies whose lives do not
 * overlap share a buffer, as large as the largest of them (at prepare):
 * between steps only the shards stay. A copy that a kernel writes, or
 * whose block an alias reads, keeps its own buffer. Each copy takes the
 * first buffer free at its first step, in step order. 0, or -1 out of
 * memory.
 */
static int
pool_param_copies(sym_exec *x)
{
	size_t *first, *last, *slot_end, *slot_owner, n_slot = 0;

	if (sym_sharding_optimizer_shard(sym_plan_sharding(x->plan)) < 3)
		return 0;
	first = sym__calloc(x->ctx, 4 * x->n_tensor + 1, sizeof(*first));
	if (!first)
		return -1;
	last = first + x->n_tensor;
	slot_end = last + x->n_tensor;
	slot_owner = slot_end + x->n_tensor;
	for (size_t t = 0; t < x->n_tensor; t++)
		first[t] = param_copy(x, t) ? SIZE_MAX : x->n_step;
	for (size_t t = 0; t < x->n_tensor; t++)
		if (x->tensor[t].alias != SIZE_MAX)
			first[x->tensor[t].alias] = x->n_step;
	for (size_t i = 0; i < x->n_step; i++) {
		const sym_plan_step *ps = x->step[i].ps;

		for (size_t k = 0; k < ps->n_in + ps->n_out; k++) {
			size_t t =
			    k < ps->n_in ? ps->in[k] : ps->out[k - ps->n_in];

			if (first[t] == SIZE_MAX)
				first[t] =
				    k >= ps->n_in && ps->kind != SYM_PLAN_KERNEL
				    ? i
				    : x->n_step;
			else if (k >= ps->n_in)
				first[t] = x->n_step;
			last[t] = i;
		}
	}
	for (size_t i = 0; i < x->n_step; i++) {
		const sym_plan_step *ps = x->step[i].ps;

		for (size_t k = 0; k < ps->n_out; k++) {
			size_t t = ps->out[k], j = 0;

			if (first[t] != i)
				continue;
			while (j < n_slot && slot_end[j] >= i)
				j++;
			if (j == n_slot)
				slot_owner[n_slot++] = t;
			slot_end[j] = last[t];
			x->tensor[t].gather = slot_owner[j];
		}
	}
	free(first);
	return 0;
}

/* Return a new executor of rank "ep" (or 0 when "ep" is NULL) of "p",
 * its errors on "ctx" (all borrowed); NULL with an error on "ctx". */
sym_exec *
sym_exec_new(sym_ctx *ctx, const sym_plan *p, sym_comm_endpoint *ep)
{
	sym_exec *x;
	int ok;

	if (!ctx)
		return NULL;
	if (!p) {
		sym__error(ctx, SYM_EINVAL, NULL, "executor: no plan");
		return NULL;
	}
	x = sym__alloc(ctx, sizeof(*x));
	if (!x)
		return NULL;
	x->ctx = ctx;
	x->plan = p;
	x->ep = ep;
	x->rank = ep ? sym_comm_endpoint_rank(ep) : 0;
	x->n_ranks = sym_plan_n_ranks(p);
	sym__obj_init(&x->obj, SYM__OBJ_EXECUTOR, exec_destroy);
	sym__obj_give(ctx, &x->obj);
	if (x->rank >= x->n_ranks) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "executor: rank %lld of a plan of %lld ranks",
		    (long long)x->rank, (long long)x->n_ranks);
		sym_exec_free(x);
		return NULL;
	}
	ok = init_tensors(x) == 0;
	x->n_step = ok ? sym_plan_n_steps(p) : 0;
	x->step = ok ? sym__calloc(ctx, x->n_step, sizeof(*x->step)) : NULL;
	if (ok && !x->step)
		ok = 0;
	for (size_t i = 0; ok && i < x->n_step; i++) {
		struct sym__estep *e = &x->step[i];

		e->index = i;
		e->ps = sym_plan_get_step(p, i);
		ok = e->ps &&
		    (e->ps->kind == SYM_PLAN_KERNEL ? init_kernel(x, e)
		                                    : init_comm(x, e)) == 0;
	}
	if (ok)
		ok = sym__exec_fuse_init(x) == 0;
	if (ok)
		ok = pool_partial_grads(x) == 0;
	if (ok)
		ok = pool_param_copies(x) == 0;
	if (ok)
		ok = sym__exec_fuse_views(x) == 0;
	if (ok)
		ok = sym__exec_fill_init(x) == 0;
	if (!ok) {
		sym_exec_free(x);
		return NULL;
	}
	return x;
}

/* Make tensor "et" of "x" own a buffer of at least "bytes" (kept when
 * large enough, zeroed when new); return 0, or -1 out of memory. */
static int
reserve(sym_exec *x, struct sym__etensor *et, size_t bytes)
{
	int r = sym__kbuf_grow(&et->buf, &et->cap, &x->buffer_allocs, bytes);

	if (r > 0)
		memset(et->buf, 0, et->cap);
	return r < 0 ? -1 : 0;
}

/* Write into "dims" (room for SYM__MAX_RANK sizes) the local sizes of
 * tensor "t" of "x", separated by ", ". */
static void
block_dims(const sym_exec *x, size_t t, char *dims, size_t room)
{
	const struct sym__etensor *et = &x->tensor[t];
	size_t n = 0;

	dims[0] = '\0';
	for (size_t d = 0; d < et->rank && n < room; d++)
		n += (size_t)snprintf(dims + n, room - n, "%s%lld",
		    d ? ", " : "", (long long)et->local[d]);
}

/* Record SYM_ENOMEM on the context of "x" for the block of tensor "t":
 * its bytes, dtype, local sizes and value; return -1. */
static int
no_room(sym_exec *x, size_t t)
{
	const struct sym__etensor *et = &x->tensor[t];
	char dims[SYM__MAX_RANK * 22 + 1];

	block_dims(x, t, dims, sizeof(dims));
	sym__error(x->ctx, SYM_ENOMEM, NULL,
	    "out of memory: cannot allocate %zu bytes (%.1f GiB) for the "
	    "block %s[%s] of %s",
	    et->bytes, (double)et->bytes / (1024.0 * 1024.0 * 1024.0),
	    sym_dtype_name(et->dtype), dims,
	    sym_value_name(sym_plan_tensor_value(x->plan, t)));
	return -1;
}

/* Return the bytes of physical memory of this machine, or 0 when the
 * system does not say. */
static uint64_t
machine_bytes(void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages > 0 && size > 0 &&
	    (uint64_t)pages <= UINT64_MAX / (uint64_t)size)
		return (uint64_t)pages * (uint64_t)size;
#endif
	return 0;
}

/* Check, before anything is allocated, that the blocks of the rank of "x"
 * (sized for the slices, aliases counted once) fit in the physical
 * memory of this machine; 0, or -1 with SYM_ENOMEM naming the bytes
 * needed, the limit and the largest block. */
static int
check_room(sym_exec *x)
{
	const double gib = 1024.0 * 1024.0 * 1024.0;
	uint64_t need = 0, have = machine_bytes();
	size_t big = SIZE_MAX;
	char dims[SYM__MAX_RANK * 22 + 1];

	for (size_t t = 0; t < x->n_tensor; t++) {
		const struct sym__etensor *et = &x->tensor[t];

		if (et->alias != SIZE_MAX &&
		    x->tensor[et->alias].bytes == et->bytes)
			continue;
		need = et->bytes > UINT64_MAX - need ? UINT64_MAX
		                                     : need + et->bytes;
		if (big == SIZE_MAX || et->bytes > x->tensor[big].bytes)
			big = t;
	}
	if (!have || need <= have)
		return 0;
	block_dims(x, big, dims, sizeof(dims));
	sym__error(x->ctx, SYM_ENOMEM, NULL,
	    "memory limit: the blocks of this rank need %llu bytes "
	    "(%.1f GiB), more than the %.1f GiB of memory of this machine; "
	    "the largest is %s[%s] of %s, %zu bytes",
	    (unsigned long long)need, (double)need / gib, (double)have / gib,
	    sym_dtype_name(x->tensor[big].dtype), dims,
	    sym_value_name(sym_plan_tensor_value(x->plan, big)),
	    x->tensor[big].bytes);
	return -1;
}

/* Size tensor "t" of "x" for "s": its global and local sizes, this
 * rank's offsets and its bytes; return 0 or -1 with an error. */
static int
size_tensor(sym_exec *x, const sym_slices *s, size_t t)
{
	struct sym__etensor *et = &x->tensor[t];
	uint64_t n = 1;

	if (sym_slices_global(s, t, et->global) < 0 ||
	    sym_slices_local(s, t, et->local) < 0 ||
	    sym_slices_offset(s, t, x->rank, et->offset) < 0) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "executor: no sizes for plan tensor %zu", t);
		return -1;
	}
	if (sym__dims_numel(et->global, et->rank, et->es) < 0)
		return sym__exec_too_big(x->ctx,
		    "executor:", sym_plan_tensor_value(x->plan, t), et->dtype,
		    et->global, et->rank);
	for (size_t d = 0; d < et->rank; d++) {
		if (et->local[d] < 0 ||
		    (et->local[d] &&
		        n > SIZE_MAX / et->es / (uint64_t)et->local[d])) {
			sym__error(x->ctx, SYM_EOVERFLOW, NULL,
			    "executor: the local block of %s does not fit in "
			    "memory",
			    sym_value_name(sym_plan_tensor_value(x->plan, t)));
			return -1;
		}
		n *= (uint64_t)et->local[d];
	}
	et->numel = (int64_t)n;
	et->bytes = (size_t)n * et->es;
	return 0;
}

/* Store in "k" the kernel tensor of plan tensor "t" of "x". */
static void
kernel_tensor(const sym_exec *x, size_t t, struct sym__tensor *k)
{
	const struct sym__etensor *et = &x->tensor[t];

	k->data = et->data;
	k->dtype = et->dtype;
	k->rank = (int)et->rank;
	memcpy(k->dim, et->local, et->rank * sizeof(k->dim[0]));
}

/* Fill the arguments of kernel step "e" of "x" for the sizes of the
 * tensors. */
static void
prepare_kernel(sym_exec *x, struct sym__estep *e)
{
	const sym_plan_step *ps = e->ps;
	int64_t norm = 1;

	for (size_t i = 0; i < ps->n_in; i++) {
		const struct sym__etensor *et;

		SYM__INVARIANT(ps->in[i] < x->n_tensor);
		et = &x->tensor[ps->in[i]];
		kernel_tensor(x, ps->in[i], &e->tin[i]);
		memcpy(e->off[i], et->offset, et->rank * sizeof(int64_t));
		memcpy(e->glob[i], et->global, et->rank * sizeof(int64_t));
	}
	for (size_t o = 0; o < ps->n_out; o++) {
		const struct sym__etensor *et;

		SYM__INVARIANT(ps->out[o] < x->n_tensor);
		et = &x->tensor[ps->out[o]];
		kernel_tensor(x, ps->out[o], &e->tout[o]);
		memcpy(e->ooff[o], et->offset, et->rank * sizeof(int64_t));
	}
	if (e->norm) {
		const struct sym__etensor *in =
		    &x->tensor[ps->in[sym_node_op(ps->node)->norm_input]];

		for (size_t d = 0; d < in->rank; d++)
			if (e->norm_axes >> d & 1)
				norm *= in->global[d];
		e->args.normalizer = norm > 0 ? norm : 0;
	}
}

/* Give the pooled tensors of "x" (pool_partial_grads) their places in
 * the buffer of the pool, grown to the largest group; 0 or -1 out of
 * memory. */
static int
place_pool(sym_exec *x)
{
	size_t size = 0, owner = SIZE_MAX;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < x->n_step; i++) {
			const sym_plan_step *ps = x->step[i].ps;
			size_t off = 0;

			for (size_t k = 0;
			     ps->kind == SYM_PLAN_KERNEL && k < ps->n_out;
			     k++) {
				struct sym__etensor *et =
				    &x->tensor[ps->out[k]];

				if (et->pool == SIZE_MAX)
					continue;
				owner = et->pool;
				off = (off + et->es - 1) / et->es * et->es;
				if (pass)
					et->data =
					    (char *)x->tensor[owner].buf + off;
				off += et->bytes;
				if (off > size)
					size = off;
			}
		}
		if (owner == SIZE_MAX)
			return 0;
		if (!pass && reserve(x, &x->tensor[owner], size) < 0)
			return no_room(x, owner);
	}
	return 0;
}

/* Give the pooled copies of params kept sharded of "x"
 * (pool_param_copies) the buffers of their owners, each grown to its
 * largest copy; 0 or -1 out of memory. */
static int
place_param_copies(sym_exec *x)
{
	for (size_t t = 0; t < x->n_tensor; t++) {
		struct sym__etensor *et = &x->tensor[t];
		size_t size = 0;

		if (et->gather != t)
			continue;
		for (size_t u = 0; u < x->n_tensor; u++)
			if (x->tensor[u].gather == t &&
			    x->tensor[u].bytes > size)
				size = x->tensor[u].bytes;
		if (reserve(x, et, size) < 0)
			return no_room(x, t);
		for (size_t u = 0; u < x->n_tensor; u++)
			if (x->tensor[u].gather == t)
				x->tensor[u].data = et->buf;
	}
	return 0;
}

/* Make "*buf" of "*cap" bytes hold "bytes" (none: kept), counting a new
 * allocation in "*grows"; 0, or -1 with SYM_ENOMEM on the context of
 * "x" naming "what". */
static int
scratch_grow(sym_exec *x, void **buf, size_t *cap, size_t *grows, size_t bytes,
    const char *what)
{
	if (!bytes || sym__kbuf_grow(buf, cap, grows, bytes) >= 0)
		return 0;
	sym__error(x->ctx, SYM_ENOMEM, NULL,
	    "executor: out of memory for %s (%zu bytes)", what, bytes);
	return -1;
}

/* Grow the kernels' and the communication steps' scratch areas of "x"
 * to the most that its steps take at the sizes just prepared
 * (sym__kernel_scratch, sym__xstep_scratch), so that no run at these
 * sizes grows one: a trainer that prepares every size it will bind
 * before its first step allocates nothing after it (DESIGN section 19).
 * 0, or -1 out of memory. */
static int
reserve_scratch(sym_exec *x)
{
	size_t k = 0, send = 0, recv = 0, members = 0;

	for (size_t i = 0; i < x->n_step; i++) {
		const struct sym__estep *e = &x->step[i];
		const struct sym__etensor *in;
		size_t s, r, m;

		if (e->ps->kind == SYM_PLAN_KERNEL) {
			s = sym__kernel_scratch(&e->args);
			k = s > k ? s : k;
			continue;
		}
		if (!x->ep || e->ps->n_in != 1)
			continue;
		in = &x->tensor[e->ps->in[0]];
		sym__xstep_scratch(&e->comm, in->global, in->dtype, &s, &r, &m);
		send = s > send ? s : send;
		recv = r > recv ? r : recv;
		members = m > members ? m : members;
	}
	return scratch_grow(x, &x->kscratch.data, &x->kscratch.cap,
	           &x->kscratch.grows, k, "the kernels' scratch area") < 0 ||
	        scratch_grow(x, &x->scratch.send, &x->scratch.send_cap,
	            &x->scratch.grows, send, "packing blocks to send") < 0 ||
	        scratch_grow(x, &x->scratch.recv, &x->scratch.recv_cap,
	            &x->scratch.grows, recv, "receiving blocks") < 0 ||
	        scratch_grow(x, &x->scratch.members, &x->scratch.members_cap,
	            &x->scratch.grows, members, "a group's ranks") < 0
	    ? -1
	    : 0;
}

/* Size every buffer of "x" for the bound slices "s" (borrowed until the
 * next call): grow those too small, alias the outputs of reshape and its
 * kin to their input, fill the kernels' arguments. Return 0, or -1 with
 * an error on the executor's context. */
int
sym_exec_prepare(sym_exec *x, const sym_slices *s)
{
	if (!x)
		return -1;
	x->slices = NULL;
	if (!s || !sym_slices_is_bound(s)) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "executor: the slices are not bound%s%s",
		    s && sym_slices_error(s) && *sym_slices_error(s) ? ": "
		                                                     : "",
		    s && sym_slices_error(s) ? sym_slices_error(s) : "");
		return -1;
	}
	for (size_t t = 0; t < x->n_tensor; t++)
		if (size_tensor(x, s, t) < 0)
			return -1;
	if (check_room(x) < 0)
		return -1;
	for (size_t t = 0; t < x->n_tensor; t++) {
		struct sym__etensor *et = &x->tensor[t];

		et->data = NULL;
		if (et->alias != SIZE_MAX &&
		    x->tensor[et->alias].bytes == et->bytes)
			continue;
		if (et->pool != SIZE_MAX || et->gather != SIZE_MAX ||
		    et->view != SIZE_MAX)
			continue;
		if (reserve(x, et, et->bytes) < 0)
			return no_room(x, t);
		et->data = et->buf;
	}
	if (place_pool(x) < 0 || place_param_copies(x) < 0 ||
	    sym__exec_fuse_place_views(x) < 0)
		return -1;
	/* Aliases in step order: a producer's input has its data. */
	for (size_t i = 0; i < x->n_step; i++) {
		const sym_plan_step *ps = x->step[i].ps;

		for (size_t k = 0; ps->kind == SYM_PLAN_KERNEL && k < ps->n_out;
		     k++) {
			struct sym__etensor *et = &x->tensor[ps->out[k]];

			if (!et->data && et->alias != SIZE_MAX)
				et->data = x->tensor[et->alias].data;
		}
	}
	for (size_t t = 0; t < x->n_tensor; t++) {
		if (x->tensor[t].data)
			continue;
		if (reserve(x, &x->tensor[t], x->tensor[t].bytes) < 0)
			return no_room(x, t);
		x->tensor[t].data = x->tensor[t].buf;
	}
	for (size_t i = 0; i < x->n_step; i++)
		if (x->step[i].ps->kind == SYM_PLAN_KERNEL)
			prepare_kernel(x, &x->step[i]);
	if (reserve_scratch(x) < 0)
		return -1;
	if (sym__exec_fuse_prepare(x) < 0)
		return -1;
	x->slices = s;
	return 0;
}

/* Return the local block of tensor "t" of "x" (after prepare) and store
 * its bytes in "*bytes" (may be NULL); NULL when "t" is out of range or
 * "x" is not prepared. */
void *
sym_exec_data(sym_exec *x, size_t t, size_t *bytes)
{
	if (bytes)
		*bytes = 0;
	if (!x || !x->slices || t >= x->n_tensor)
		return NULL;
	if (bytes)
		*bytes = x->tensor[t].bytes;
	return x->tensor[t].data;
}

/* Write into "buf" ("size" bytes) the name of step "e" for messages:
 * "matmul h1", "all_gather of a1 for matmul h2", "all_reduce of the
 * partial sums of h1". */
static void
step_name(const struct sym__estep *e, char *buf, size_t size)
{
	const sym_plan_step *ps = e->ps;
	const sym_node *n = ps->node;
	const char *op = n ? sym_node_op_name(n) : "?";
	const sym_value *out =
	    n && sym_node_n_outputs(n) ? sym_node_output(n, 0) : NULL;
	const char *oname = out ? sym_value_name(out) : "";

	if (ps->kind == SYM_PLAN_KERNEL)
		snprintf(buf, size, "%s %s", op, oname);
	else if (ps->input == SYM_PLAN_NO_INPUT)
		snprintf(buf, size, "%s of the partial sums of %s",
		    sym_redist_kind_name(ps->comm),
		    ps->value ? sym_value_name(ps->value) : oname);
	else
		snprintf(buf, size, "%s of %s for %s %s",
		    sym_redist_kind_name(ps->comm),
		    ps->value ? sym_value_name(ps->value) : "?", op, oname);
}

/* Record on the context of "x" error "code" about step "e" (NULL: none)
 * from "fmt": "file:line:col: <step> (step i): <message>"; return -1. */
static int
exec_fail(sym_exec *x, const struct sym__estep *e, sym_error code,
    const char *fmt, ...)
{
	char msg[768], name[256], where[256] = "";
	sym_loc loc = { NULL, 0, 0 };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!e) {
		sym__error(x->ctx, code, NULL, "executor: %s", msg);
		return -1;
	}
	if (e->ps && e->ps->node)
		loc = sym_node_location(e->ps->node);
	if (loc.file)
		snprintf(where, sizeof(where), "%s:%d:%d: ", loc.file, loc.line,
		    loc.col);
	if (e->ps)
		step_name(e, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "?");
	sym__error(x->ctx, code, loc.file ? &loc : NULL, "%s%s (step %zu): %s",
	    where, name, e->index, msg);
	return -1;
}

/* Record the failure of kernel step "e" of "x" (its message taken from
 * the arguments, without the operator's name it starts with). */
static void
kernel_failed(sym_exec *x, struct sym__estep *e)
{
	const char *m = e->args.error ? e->args.error : "failed";
	const char *op = sym_node_op_name(e->ps->node);
	size_t n = strlen(op);

	if (!strncmp(m, op, n) && !strncmp(m + n, ": ", 2))
		m += n + 2;
	exec_fail(x, e, SYM_EINVAL, "%s", m);
	free(e->args.error);
	e->args.error = NULL;
}

/* Record the failure "rc" of communication step "e" of "x" with the
 * message "err" (SYM__XSTEP_ERR) or the endpoint's error. */
static void
comm_failed(sym_exec *x, struct sym__estep *e, int rc, const char *err)
{
	sym_ctx *ectx = x->ep ? x->ep->ctx : NULL;

	if (rc == SYM__XSTEP_COMM_ERR)
		exec_fail(x, e, ectx ? sym_ctx_last_error(ectx) : SYM_EINVAL,
		    "%s",
		    ectx ? sym_ctx_last_message(ectx) : "communicator error");
	else
		exec_fail(x, e, SYM_EINVAL, "%s", err);
}

/* Run communication step "e" of "x"; return 0 or the code of
 * sym__xstep_run with "err" ("size" bytes) set. */
static int
run_comm(sym_exec *x, struct sym__estep *e, char *err, size_t size)
{
	const struct sym__etensor *in = &x->tensor[e->ps->in[0]];
	struct sym__etensor *out = &x->tensor[e->ps->out[0]];

	if (!x->ep) {
		/* One rank: the step cannot move anything but a slice. */
		if (in->bytes != out->bytes) {
			snprintf(err, size,
			    "no communicator endpoint to run the step");
			return SYM__XSTEP_ERR;
		}
		memcpy(out->data, in->data, in->bytes);
		return 0;
	}
	return sym__xstep_run(&e->comm, x->ep, in->global, in->dtype, in->data,
	    out->data, &x->scratch, err, size);
}

/* An error kept aside: its code, location and message. */
struct kept_error {
	sym_error code;
	int line, col;
	char file[256];
	char msg[1024];
};

/* Store in "k" the error last recorded on "ctx". */
static void
keep_error(struct kept_error *k, const sym_ctx *ctx)
{
	sym_loc loc = sym_ctx_last_location(ctx);

	k->code = sym_ctx_last_error(ctx);
	k->line = loc.line;
	k->col = loc.col;
	snprintf(k->file, sizeof(k->file), "%s", loc.file ? loc.file : "");
	snprintf(k->msg, sizeof(k->msg), "%s", sym_ctx_last_message(ctx));
}

/* Record on "ctx" the error "k" again. */
static void
restore_error(const struct kept_error *k, sym_ctx *ctx)
{
	sym_loc loc = { k->file, k->line, k->col };

	sym__error(ctx, k->code, k->file[0] ? &loc : NULL, "%s", k->msg);
}

/* Run the steps of "x" in order, only those of the forward part when
 * "forward". After a step fails, the remaining communication steps still
 * run (on stale data) so that the other ranks never wait for this one,
 * and the kernels are skipped. Return 0, or -1 with the first error on
 * the executor's context (the communicator's errors of later steps,
 * recorded on the same context when the handle shares it, do not replace
 * it). */
static int
run_steps(sym_exec *x, int forward)
{
	struct kept_error first;
	int failed = 0, later = 0;
	char err[256];

	if (!x)
		return -1;
	if (!x->slices) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "executor: run before prepare");
		return -1;
	}
	for (size_t i = 0; i < x->n_step; i++) {
		struct sym__estep *e = &x->step[i];
		int rc = 0;

		if (forward && e->ps->derived)
			continue;
		if (e->ps->kind == SYM_PLAN_KERNEL) {
			e->args.rng = x->rng_seed ^ e->rng_key;
			e->args.eval = forward;
			if (!failed && e->fn(&e->args) < 0) {
				kernel_failed(x, e);
				rc = -1;
			}
		} else if ((rc = e->bucket != SIZE_MAX
		                   ? sym__exec_run_bucket(x, e, err,
		                         sizeof(err))
		                   : run_comm(x, e, err, sizeof(err))) < 0 &&
		    !failed) {
			comm_failed(x, e, rc, err);
		}
		if (rc < 0 && !failed)
			keep_error(&first, x->ctx);
		later |= rc < 0 && failed;
		failed |= rc < 0;
		if (x->progress)
			x->progress(x->progress_arg, i, x->n_step);
	}
	if (later)
		restore_error(&first, x->ctx);
	return failed ? -1 : 0;
}

/* Run every step of "x" in order; 0, or -1 with the first error on the
 * executor's context. */
int
sym_exec_run(sym_exec *x)
{
	return run_steps(x, 0);
}

/* Run the steps of the forward part of "x" only (all of them for a graph
 * that is not a training graph): the outputs computed, no gradient, no
 * update; 0, or -1 as sym_exec_run. */
int
sym_exec_run_forward(sym_exec *x)
{
	return run_steps(x, 1);
}

/* Have "x" call "fn" with "arg" after each step it runs (NULL: none). */
void
sym__exec_set_progress(sym_exec *x, void (*fn)(void *, size_t, size_t),
    void *arg)
{
	x->progress = fn;
	x->progress_arg = arg;
}

/* Set one BLAS thread; return the count before, 0 when it cannot be
 * set. */
int
sym__blas_one_thread(void)
{
#ifdef SYM_HAVE_OPENBLAS_SET_NUM_THREADS
	int threads = openblas_get_num_threads();

	openblas_set_num_threads(1);
	return threads;
#else
	return 0;
#endif
}

/* Give BLAS back the "threads" that sym__blas_one_thread returned. */
void
sym__blas_restore(int threads)
{
#ifdef SYM_HAVE_OPENBLAS_SET_NUM_THREADS
	if (threads > 0)
		openblas_set_num_threads(threads);
#else
	(void)threads;
#endif
}
