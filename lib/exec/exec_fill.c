/* SPDX-License-Identifier: MIT */
/*
 * Deterministic inputs (sym_exec_fill): every element of every input and
 * parameter is a hash of the seed, the value's name and the element's
 * global row-major index, so that any sharding, and the single-device
 * run, see bit-identical numbers. Floating elements are multiples of
 * 2^-23 in [-1, 1) (exact in f32); integer elements are in [0, n), n the
 * smallest global size they index among their consumers (the classes of
 * softmax_cross_entropy, the rows of a gathered table, the depth of
 * one_hot), 4 when nothing indexes with them; booleans are 0 or 1.
 * A value with an initializer (sym_grad(3)) gets it instead, drawn from
 * the same hash of its global index, so its values too are the same on
 * any number of ranks. A param that holds data (sym_value_set_data: an
 * ONNX model's weights) gets its data, element by global index.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <symshard/grad.h>

#include "exec/exec_private.h"
#include "kern/kern_private.h"
#include "ckpt/checkpoint_private.h"

#define DEFAULT_RANGE 4

/* Return "z" mixed: one step of SplitMix64 from the state "z". */
static inline uint64_t
mix(uint64_t z)
{
	return sym__mix64(z + SYM__GOLDEN);
}

/* Return the FNV-1a hash of the string "s". */
static uint64_t
str_hash(const char *s)
{
	return sym__fnv1a_str(SYM__FNV_BASIS, s);
}

/* Return the key of the value called "name" (its hash) that
 * dropout's masks mix with the step's seed. */
uint64_t
sym__exec_name_key(const char *name)
{
	return mix(str_hash(name));
}

/* Set the seed of the current step of "x" to "seed" (what keys dropout's
 * masks). */
void
sym__exec_set_rng(sym_exec *x, uint64_t seed)
{
	if (x)
		x->rng_seed = seed;
}

/* List in "x" the inputs and parameters of its plan's graph with their
 * home tensors; return 0, or -1 with an error. */
int
sym__exec_fill_init(sym_exec *x)
{
	sym_graph *g = sym_plan_graph(x->plan);
	size_t n = g ? sym_graph_n_values(g) : 0;

	x->fill = sym__calloc(x->ctx, n, sizeof(*x->fill));
	if (!x->fill)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const sym_value *v = sym_graph_value(g, i);
		sym_value_kind k = sym_value_get_kind(v);
		size_t t;

		if (k != SYM_VALUE_INPUT && k != SYM_VALUE_PARAM)
			continue;
		t = sym_plan_value_tensor(x->plan, v);
		if (t >= x->n_tensor)
			continue;
		x->fill[x->n_fill].value = v;
		x->fill[x->n_fill].tensor = t;
		x->fill[x->n_fill].name_hash = str_hash(sym_value_name(v));
		x->n_fill++;
	}
	return 0;
}

/* Return the smallest global size that a kernel of "x" (prepared)
 * indexes with the value "v", -1 when none does; store in "*by" (unless
 * NULL) the node of that kernel. */
int64_t
sym__exec_index_bound(const sym_exec *x, const sym_value *v,
    const sym_node **by)
{
	int64_t n = -1;

	for (size_t i = 0; x && i < x->n_step; i++) {
		const struct sym__estep *e = &x->step[i];

		for (size_t k = 0; k < e->n_bounds; k++) {
			const struct sym__bound *b = &e->bounds[k];
			int64_t size;

			if (b->value != v ||
			    b->dim >= (int)x->tensor[b->tensor].rank)
				continue;
			size = x->tensor[b->tensor].global[b->dim];
			if (n >= 0 && size >= n)
				continue;
			n = size;
			if (by)
				*by = e->ps->node;
		}
	}
	return n;
}

/* Return the range [0, n) of the integer input "v" of "x": the smallest
 * global size its consumers index with it, DEFAULT_RANGE when none. */
static int64_t
int_range(const sym_exec *x, const sym_value *v)
{
	int64_t n = sym__exec_index_bound(x, v, NULL);

	if (n < 0)
		return DEFAULT_RANGE;
	return n > 0 ? n : 1;
}

/* Store in element "i" of "data" (storage "k") the value of hash "h":
 * in [-1, 1) for floats, [0, "range") for integers, 0 or 1 for bool. */
static inline void
put(void *data, enum sym__kst k, int64_t i, uint64_t h, int64_t range)
{
	switch (k) {
	case SYM__KST_F32:
		((float *)data)[i] = (float)(h >> 40) * 0x1p-23f - 1.0f;
		break;
	case SYM__KST_F64:
		((double *)data)[i] = (double)(h >> 40) * 0x1p-23 - 1.0;
		break;
	case SYM__KST_I32:
		((int32_t *)data)[i] = (int32_t)(h % (uint64_t)range);
		break;
	default:
		((uint8_t *)data)[i] = (uint8_t)(h >> 63);
		break;
	}
}

/* What one element of a block gets: the seeded fill of "key" in
 * [0, "range"), the initializer "init" with the fans of the tensor, or
 * the element of "data" (dtype "dt") at its global index. */
struct elem {
	enum sym__kst k;
	uint64_t key;
	int64_t range;
	const sym_init *init; /* NULL: the seeded fill */
	double fan_in, fan_out;
	const unsigned char *data; /* NULL: no data */
	sym_dtype dt;
	int64_t too_big; /* the first element storage cannot hold, or -1 */
};

/* Return a uniform double in (0, 1] from the hash "h". */
static inline double
unit(uint64_t h)
{
	return ((double)(h >> 11) + 1.0) * 0x1p-53;
}

/* Return a standard normal deviate from the hashes "h1" and "h2" (Box
 * and Muller). */
static double
gauss(uint64_t h1, uint64_t h2)
{
	return sqrt(-2.0 * log(unit(h1))) * cos(6.283185307179586 * unit(h2));
}

/* Return the value of the initializer of "e" at the global index "g". */
static double
init_value(const struct elem *e, int64_t g)
{
	const sym_init *in = e->init;
	uint64_t h1 = mix(e->key + 2 * (uint64_t)g);
	uint64_t h2 = mix(e->key + 2 * (uint64_t)g + 1);
	double gain =
	    sqrt(2.0 / (1.0 + in->negative_slope * in->negative_slope));
	double std = gain / sqrt(e->fan_in > 0 ? e->fan_in : 1);

	switch (in->kind) {
	case SYM_INIT_ZEROS:
		return 0;
	case SYM_INIT_ONES:
		return 1;
	case SYM_INIT_CONSTANT:
		return in->value;
	case SYM_INIT_NORMAL:
		return in->mean + in->sigma * gauss(h1, h2);
	case SYM_INIT_UNIFORM:
		return (2 * unit(h1) - 1) * in->scale;
	case SYM_INIT_XAVIER_UNIFORM:
		return (2 * unit(h1) - 1) * in->gain *
		    sqrt(6.0 /
		        (e->fan_in + e->fan_out > 0 ? e->fan_in + e->fan_out
		                                    : 1));
	case SYM_INIT_HE_UNIFORM:
		return (2 * unit(h1) - 1) * sqrt(3.0) * std;
	case SYM_INIT_HE_NORMAL:
		return std * gauss(h1, h2);
	default:
		return 0;
	}
}

/* Store the value of "e" at global index "g" as element "i" of "data". */
static inline void
put_elem(const struct elem *e, void *data, int64_t i, int64_t g)
{
	double v;

	if (e->data) {
		size_t ds = sym_dtype_size(e->dt),
		       es = sym__tensor_elem_size(e->dt);

		if (sym__ckpt_to_storage(e->dt, e->data + (size_t)g * ds,
		        (char *)data + (size_t)i * es, 1) != SIZE_MAX &&
		    e->too_big < 0)
			((struct elem *)e)->too_big = g;
		return;
	}
	if (!e->init) {
		put(data, e->k, i, mix(e->key + (uint64_t)g), e->range);
		return;
	}
	v = init_value(e, g);
	switch (e->k) {
	case SYM__KST_F32:
		((float *)data)[i] = (float)v;
		break;
	case SYM__KST_F64:
		((double *)data)[i] = v;
		break;
	case SYM__KST_I32:
		((int32_t *)data)[i] = (int32_t)v;
		break;
	default:
		((uint8_t *)data)[i] = (uint8_t)(v != 0);
		break;
	}
}

/* Store in "e" the fans of a tensor of global sizes "dim" ("rank" of
 * them), as sym_grad(3) defines them. */
static void
fans(struct elem *e, const int64_t *dim, size_t rank)
{
	double rec = 1;

	for (size_t d = 2; d < rank; d++)
		rec *= (double)dim[d];
	e->fan_in = rank == 0 ? 1
	    : rank == 1       ? (double)dim[0]
	    : rank == 2       ? (double)dim[0]
	                      : (double)dim[1] * rec;
	e->fan_out = rank == 0 ? 1
	    : rank == 1        ? (double)dim[0]
	    : rank == 2        ? (double)dim[1]
	                       : (double)dim[0] * rec;
}

/* Fill the local block of tensor "et" with the elements of "e" at each
 * element's global index. */
static void
fill_block(struct sym__etensor *et, const struct elem *e)
{
	int64_t idx[SYM__MAX_RANK] = { 0 }, stride[SYM__MAX_RANK];
	int64_t inner, i = 0, s = 1;
	int r = (int)et->rank;

	if (et->numel == 0)
		return;
	for (int d = r - 1; d >= 0; d--) {
		stride[d] = s;
		s *= et->global[d];
	}
	inner = r ? et->local[r - 1] : 1;
	for (;;) {
		int64_t base = r ? et->offset[r - 1] : 0;
		int d;

		for (d = 0; d < r - 1; d++)
			base += (et->offset[d] + idx[d]) * stride[d];
		for (int64_t j = 0; j < inner; j++, i++)
			put_elem(e, et->data, i, base + j);
		for (d = r - 2; d >= 0; d--) {
			if (++idx[d] < et->local[d])
				break;
			idx[d] = 0;
		}
		if (d < 0)
			return;
	}
}

/* Point "e" at the data of the param "v" when it holds data, for its
 * tensor "et"; return 0, or -1 when its size is not that of "et". */
static int
data_of(struct elem *e, const sym_value *v, const struct sym__etensor *et)
{
	size_t bytes = 0;
	const void *d = sym_value_data(v, &bytes);
	int64_t n = 1;

	e->too_big = -1;
	if (!d || sym_value_get_kind(v) != SYM_VALUE_PARAM)
		return 0;
	e->dt = sym_shape_dtype(sym_value_shape(v));
	for (size_t k = 0; k < et->rank; k++)
		n *= et->global[k];
	if ((uint64_t)n * sym_dtype_size(e->dt) != bytes)
		return -1;
	e->data = d;
	return 0;
}

/* Record on the context of "x" that the param "v" cannot be filled
 * from its data: its size disagrees with its tensor's (when "k" < 0),
 * or its element "k" does not fit the executor's 32-bit integers;
 * return -1. */
static int
fill_error(sym_exec *x, const sym_value *v, int64_t k)
{
	size_t bytes = 0;
	sym_loc at = sym_value_location(v);

	sym_value_data(v, &bytes);
	if (k < 0)
		sym__error(x->ctx, SYM_EINVAL, at.file ? &at : NULL,
		    "executor: param '%s' holds %zu bytes of data, not the "
		    "size of its shape at these sizes",
		    sym_value_name(v), bytes);
	else
		sym__error(x->ctx, SYM_EINVAL, at.file ? &at : NULL,
		    "executor: element %lld of the data of param '%s' does "
		    "not fit the executor's 32-bit integers",
		    (long long)k, sym_value_name(v));
	return -1;
}

/* Fill the values of "x" (prepared) of kind "kind" (-1: inputs and
 * params) with "seed": their initializer when they have one, else the
 * seeded fill; return 0, or -1 with an error on the executor's context. */
static int
fill_kind(sym_exec *x, uint64_t seed, int kind)
{
	if (!x)
		return -1;
	if (!x->slices) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "executor: fill before prepare");
		return -1;
	}
	if (kind != SYM_VALUE_PARAM)
		x->rng_seed = seed;
	for (size_t i = 0; i < x->n_fill; i++) {
		const struct sym__fillv *f = &x->fill[i];
		struct sym__etensor *et = &x->tensor[f->tensor];
		struct elem e;
		sym_init init;

		if (kind >= 0 && (int)sym_value_get_kind(f->value) != kind)
			continue;
		memset(&e, 0, sizeof(e));
		e.k = sym__kst(et->dtype);
		e.key = mix(seed ^ f->name_hash);
		e.range = e.k == SYM__KST_I32 ? int_range(x, f->value) : 0;
		if (sym_value_get_init(f->value, &init) == 0 &&
		    init.kind != SYM_INIT_DEFAULT) {
			e.init = &init;
			fans(&e, et->global, et->rank);
		}
		if (data_of(&e, f->value, et) < 0)
			return fill_error(x, f->value, -1);
		fill_block(et, &e);
		if (e.too_big >= 0)
			return fill_error(x, f->value, e.too_big);
	}
	return 0;
}

/* Fill the local blocks of every input and parameter of "x" (prepared)
 * with "seed" (see the top of the file); return 0, or -1 with an error on
 * the executor's context. */
int
sym_exec_fill(sym_exec *x, uint64_t seed)
{
	return fill_kind(x, seed, -1);
}

/* Fill the local blocks of the inputs of "x" (prepared) only; 0 or -1. */
int
sym_exec_fill_inputs(sym_exec *x, uint64_t seed)
{
	return fill_kind(x, seed, SYM_VALUE_INPUT);
}

/* Initialize the local blocks of the params of "x" (prepared), optimizer
 * state included, only; 0 or -1. */
int
sym_exec_init_params(sym_exec *x, uint64_t seed)
{
	return fill_kind(x, seed, SYM_VALUE_PARAM);
}

/* The value named "name" of the graph of "x" that "what" sets: an input
 * or a param; NULL with an error on the context of "x". */
static const sym_value *
settable(sym_exec *x, const char *name)
{
	const sym_value *v =
	    sym_graph_find_value(sym_plan_graph(x->plan), name);
	sym_value_kind k = v ? sym_value_get_kind(v) : SYM_VALUE_RESULT;

	if (!v)
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "inputs: the graph has no value '%s'", name);
	else if (k != SYM_VALUE_INPUT && k != SYM_VALUE_PARAM)
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "inputs: '%s' is computed by the graph, not an input or "
		    "a param",
		    name);
	return k == SYM_VALUE_INPUT || k == SYM_VALUE_PARAM ? v : NULL;
}

/* Check that tensor "i" of "ck" has the dtype and the sizes under the
 * slices of "x" of its value "v" (plan tensor "t"); its element count in
 * "*numel". 0, or -1 with an error naming both. */
static int
same_tensor(sym_exec *x, const sym_checkpoint *ck, size_t i, const sym_value *v,
    size_t t, int64_t *numel)
{
	const char *name = sym_checkpoint_tensor_name(ck, i);
	sym_dtype dt = sym_shape_dtype(sym_value_shape(v));
	size_t nd = sym_plan_tensor_ndim(x->plan, t);
	int64_t ext[SYM__MAX_RANK];
	int same = nd <= SYM__MAX_RANK &&
	    sym_checkpoint_tensor_ndim(ck, i) == nd &&
	    sym_checkpoint_tensor_dtype(ck, i) == dt &&
	    sym_slices_global(x->slices, t, ext) == 0;

	*numel = 1;
	for (size_t d = 0; same && d < nd; d++) {
		same = sym_checkpoint_tensor_dim(ck, i, d) == ext[d];
		*numel *= ext[d];
	}
	if (same)
		return 0;
	sym__error(x->ctx, SYM_EINVAL, NULL,
	    "inputs: '%s' is %s with %zu dimensions in the file; the "
	    "graph's is %s with %zu (dimensions and dtype must be equal at "
	    "these sizes)",
	    name, sym_dtype_name(sym_checkpoint_tensor_dtype(ck, i)),
	    sym_checkpoint_tensor_ndim(ck, i), sym_dtype_name(dt), nd);
	return -1;
}

/* Set the blocks of "x" (prepared) of the inputs and params that "ck"
 * names (may be NULL: nothing) from their whole tensors in "ck"; 0, or
 * -1 with an error on the context of "x". */
int
sym__exec_set_inputs(sym_exec *x, const sym_checkpoint *ck)
{
	for (size_t i = 0; i < sym_checkpoint_n_tensors(ck); i++) {
		const char *name = sym_checkpoint_tensor_name(ck, i);
		const sym_value *v = settable(x, name);
		size_t t = v ? sym_plan_value_tensor(x->plan, v) : 0, es, bad;
		const void *data = sym_checkpoint_tensor_data(ck, i, NULL);
		sym_dtype dt;
		int64_t numel;
		void *buf;

		if (!v || same_tensor(x, ck, i, v, t, &numel) < 0)
			return -1;
		dt = sym_checkpoint_tensor_dtype(ck, i);
		es = sym__tensor_elem_size(dt);
		buf = sym__calloc(x->ctx, numel ? (size_t)numel : 1,
		    es + sym_dtype_size(dt));
		if (!buf)
			return -1;
		/* the file's offsets need not be aligned */
		memcpy((char *)buf + (size_t)numel * es, data,
		    (size_t)numel * sym_dtype_size(dt));
		bad = sym__ckpt_to_storage(dt, (char *)buf + (size_t)numel * es,
		    buf, (size_t)numel);
		if (bad != SIZE_MAX) {
			free(buf);
			sym__error(x->ctx, SYM_EINVAL, NULL,
			    "inputs: element %zu of '%s' does not fit the "
			    "executor's 32-bit integers",
			    bad, name);
			return -1;
		}
		if (sym_exec_set_whole(x, name, buf, (size_t)numel * es) < 0) {
			free(buf);
			return -1;
		}
		free(buf);
	}
	return 0;
}
