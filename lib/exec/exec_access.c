/* SPDX-License-Identifier: MIT */
/*
 * Values of an executor by name: this rank's block of a value, and the
 * exchange between that block and the whole tensor (global, row-major)
 * for params, optimizer state and inputs, which hold no partial sums.
 * Writing whole needs no communication: every rank takes its own block.
 * Reading whole places this rank's block; the blocks of all ranks
 * (threads sharing one buffer, or gathered by the caller) fill it.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_private.h"

/* Find value "name" of the plan of "x" for "what" (a function name),
 * check that "x" is prepared and, when "whole", that the value is a
 * param or an input; its plan tensor in "*t". Return the value, or NULL
 * with an error on the context of "x". */
static const sym_value *
find(sym_exec *x, const char *what, const char *name, int whole, size_t *t)
{
	const sym_value *v;

	if (!x)
		return NULL;
	if (!name) {
		sym__error(x->ctx, SYM_EINVAL, NULL, "%s: no name", what);
		return NULL;
	}
	if (!x->slices) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "%s: '%s': the executor is not prepared (sym_exec_prepare)",
		    what, name);
		return NULL;
	}
	v = sym_graph_find_value(sym_plan_graph(x->plan), name);
	if (!v) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "%s: the graph has no value '%s'", what, name);
		return NULL;
	}
	if (whole && sym_value_get_kind(v) == SYM_VALUE_RESULT) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "%s: '%s' is computed: only params, optimizer state and "
		    "inputs are exchanged whole",
		    what, name);
		return NULL;
	}
	*t = sym_plan_value_tensor(x->plan, v);
	if (*t >= x->n_tensor) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "%s: '%s' is not kept by the executor", what, name);
		return NULL;
	}
	return v;
}

/* This rank's block of value "name" of "x" (after prepare), its size in
 * bytes in "*bytes" (may be NULL); NULL with an error when "x" is not
 * prepared or the graph has no such value. */
void *
sym_exec_value_data(sym_exec *x, const char *name, size_t *bytes)
{
	size_t t;

	if (bytes)
		*bytes = 0;
	if (!find(x, "sym_exec_value_data", name, 0, &t))
		return NULL;
	return sym_exec_data(x, t, bytes);
}

/* The boxes of tensor "t" of "x" on this rank: the whole tensor and
 * this rank's block within it; its number of dimensions, and the whole
 * tensor's size in bytes in "*whole_bytes". */
static int
boxes(const sym_exec *x, size_t t, struct sym__box *whole,
    struct sym__box *block, size_t *whole_bytes)
{
	int nd = (int)sym_plan_tensor_ndim(x->plan, t);
	size_t n = x->tensor[t].es;

	memset(whole, 0, sizeof(*whole));
	sym_slices_global(x->slices, t, whole->ext);
	sym_slices_local(x->slices, t, block->ext);
	sym_slices_offset(x->slices, t, x->rank, block->off);
	for (int d = 0; d < nd; d++)
		n *= (size_t)whole->ext[d];
	*whole_bytes = n;
	return nd;
}

/* Copy between this rank's block of value "name" of "x" and the whole
 * tensor ("bytes" bytes, global row-major): into "out" when it is not
 * NULL, else from "in"; "what" names the function. 0 or -1. */
static int
exchange(sym_exec *x, const char *what, const char *name, void *out,
    const void *in, size_t bytes)
{
	const void *whole = out ? out : in;
	struct sym__box wbox, block;
	size_t t, need;
	int nd;

	if (!find(x, what, name, 1, &t))
		return -1;
	nd = boxes(x, t, &wbox, &block, &need);
	if (!whole || bytes != need) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "%s: '%s' has %zu bytes whole, not %zu", what, name, need,
		    whole ? bytes : 0);
		return -1;
	}
	if (need == 0 || x->tensor[t].bytes == 0)
		return 0;
	if (out)
		sym__box_copy(out, &wbox, x->tensor[t].data, &block, &block, nd,
		    x->tensor[t].es);
	else
		sym__box_copy(x->tensor[t].data, &block, in, &wbox, &block, nd,
		    x->tensor[t].es);
	return 0;
}

/* Copy this rank's block of param, state or input "name" of "x" into its
 * place in "whole" ("bytes": the whole tensor's size); 0 or -1. */
int
sym_exec_get_whole(sym_exec *x, const char *name, void *whole, size_t bytes)
{
	return exchange(x, "sym_exec_get_whole", name, whole, NULL, bytes);
}

/* Return 1 when tensor "t" of the plan of "x" holds partial sums. */
static int
is_partial(const sym_exec *x, size_t t)
{
	const sym_layout *l = sym_plan_tensor_layout(x->plan, t);
	const sym_mesh *m = l ? sym_layout_mesh(l) : NULL;

	for (size_t a = 0; m && a < sym_mesh_n_axes(m); a++)
		if (sym_layout_is_partial(l, a))
			return 1;
	return 0;
}

/* Check that value "name" of "x" can be gathered whole into "bytes"
 * bytes; its tensor in "*t", its boxes in "wbox" and "block". Return the
 * number of dimensions, or -1 with an error on the context of "x". */
static int
gather_check(sym_exec *x, const char *name, size_t bytes, size_t *t,
    struct sym__box *wbox, struct sym__box *block)
{
	const char *what = "sym_exec_gather_whole";
	size_t need;
	int nd;

	if (!find(x, what, name, 0, t))
		return -1;
	if (is_partial(x, *t)) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "%s: '%s' holds partial sums on this plan", what, name);
		return -1;
	}
	nd = boxes(x, *t, wbox, block, &need);
	if (bytes != need) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "%s: '%s' has %zu bytes whole, not %zu", what, name, need,
		    bytes);
		return -1;
	}
	return nd;
}

/* Return room for the blocks of every rank of "x", "mine" bytes each, in
 * the receive area of its communication steps' scratch (idle between
 * runs), grown only when it is too small; NULL with SYM_ENOMEM. */
static char *
gather_area(sym_exec *x, size_t mine)
{
	size_t n = x->n_ranks > 0 ? (size_t)x->n_ranks : 1, need;

	if (!mine)
		mine = 1;
	if (__builtin_mul_overflow(n, mine, &need) ||
	    sym__kbuf_grow(&x->scratch.recv, &x->scratch.recv_cap,
	        &x->scratch.grows, need) < 0) {
		sym__oom_bytes(x->ctx, n, mine, "gathering a value whole");
		return NULL;
	}
	return x->scratch.recv;
}

/* Gather value "name" of "x" whole into "whole" ("bytes" bytes) on every
 * rank of the endpoint of "x": each rank's block goes through an
 * all_gather and to its place, through the executor's scratch (so that
 * gathering a value again at sizes seen allocates nothing). A
 * collective: every rank calls it, and every rank gets the same return
 * value, 0 or -1 (the error of a rank that failed on its own is on its
 * context, the others' say a rank failed). */
int
sym_exec_gather_whole(sym_exec *x, const char *name, void *whole, size_t bytes)
{
	struct sym__box wbox, block;
	size_t t = 0, mine = 0, es;
	char *all = NULL;
	int nd, bad;

	if (!x)
		return -1;
	nd = gather_check(x, name, bytes, &t, &wbox, &block);
	bad = nd < 0 || (bytes && !whole);
	if (!bad) {
		sym_exec_data(x, t, &mine);
		all = gather_area(x, mine);
		bad = !all;
	}
	if ((x->ep && sym__check_agree(x->ep, x->ctx, bad) < 0) || bad)
		return -1;
	es = x->tensor[t].es;
	if (!x->ep)
		memcpy(all, x->tensor[t].data, mine);
	else if (sym_comm_all_gather(x->ep, NULL, 0, x->tensor[t].data, all,
	             mine) < 0)
		return -1;
	for (int64_t k = 0; mine && k < x->n_ranks; k++) {
		sym_slices_offset(x->slices, t, k, block.off);
		sym__box_copy(whole, &wbox, all + (size_t)k * mine, &block,
		    &block, nd, es);
	}
	return 0;
}

/* Set this rank's block of param, state or input "name" of "x" from the
 * whole tensor "whole" ("bytes" bytes); 0 or -1. */
int
sym_exec_set_whole(sym_exec *x, const char *name, const void *whole,
    size_t bytes)
{
	return exchange(x, "sym_exec_set_whole", name, NULL, whole, bytes);
}
