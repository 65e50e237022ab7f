/*
 * Deterministic inputs (sym_exec_fill): every element of every input and
 * parameter is a hash of the seed, the value's name and the element's
 * global row-major index, so that any sharding, and the single-device
 * run, see bit-identical numbers. Floating elements are multiples of
 * 2^-23 in [-1, 1) (exact in f32); integer elements are in [0, n), n the
 * smallest global size they index among their consumers (the classes of
 * softmax_cross_entropy, the rows of a gathered table, the depth of
 * one_hot), 4 when nothing indexes with them; booleans are 0 or 1.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_private.h"
#include "exec/kern_private.h"

#define DEFAULT_RANGE 4

/* Return "z" mixed (the finaliser of SplitMix64). */
static inline uint64_t
mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Return the FNV-1a hash of the string "s". */
static uint64_t
str_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* List in "x" the inputs and parameters of its plan's graph with their
 * home tensors; return 0, or -1 with an error. */
int
sym__exec_fill_init(sym_exec *x)
{
	sym_graph *g = sym_plan_graph(x->plan);
	size_t n = g ? sym_graph_n_values(g) : 0;

	x->fill = calloc(n ? n : 1, sizeof(*x->fill));
	if (!x->fill) {
		sym__oom(x->ctx);
		return -1;
	}
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

/* Return the range [0, n) of the integer input "v" of "x": the smallest
 * global size its consumers index with it, DEFAULT_RANGE when none. */
static int64_t
int_range(const sym_exec *x, const sym_value *v)
{
	int64_t n = -1;

	for (size_t i = 0; i < x->n_step; i++) {
		const struct sym__estep *e = &x->step[i];

		for (size_t k = 0; k < e->n_bounds; k++) {
			const struct sym__bound *b = &e->bounds[k];
			int64_t size;

			if (b->value != v ||
			    b->dim >= (int)x->tensor[b->tensor].rank)
				continue;
			size = x->tensor[b->tensor].global[b->dim];
			if (n < 0 || size < n)
				n = size;
		}
	}
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

/* Fill the local block of tensor "et" (storage "k") with the values of
 * the key "key" at each element's global index; integers in [0,
 * "range"). */
static void
fill_block(struct sym__etensor *et, enum sym__kst k, uint64_t key,
    int64_t range)
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
			put(et->data, k, i, mix(key + (uint64_t)(base + j)),
			    range);
		for (d = r - 2; d >= 0; d--) {
			if (++idx[d] < et->local[d])
				break;
			idx[d] = 0;
		}
		if (d < 0)
			return;
	}
}

/* Fill the local blocks of every input and parameter of "x" (prepared)
 * with the values of "seed"; return 0, or -1 with an error on the
 * executor's context. */
int
sym_exec_fill(sym_exec *x, uint64_t seed)
{
	if (!x)
		return -1;
	if (!x->slices) {
		sym__error(x->ctx, SYM_EINVAL, NULL,
		    "executor: fill before prepare");
		return -1;
	}
	for (size_t i = 0; i < x->n_fill; i++) {
		const struct sym__fillv *f = &x->fill[i];
		struct sym__etensor *et = &x->tensor[f->tensor];
		enum sym__kst k = sym__kst(et->dtype);
		int64_t range = k == SYM__KST_I32 ? int_range(x, f->value) : 0;

		fill_block(et, k, mix(seed ^ f->name_hash), range);
	}
	return 0;
}
