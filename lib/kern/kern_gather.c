/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the gather family: gather, embedding and one_hot.
 *
 * Indices are global. When the gathered dim of the table is split
 * (args->offset and args->global_dim say which block this rank holds),
 * an index outside the local block gives zeros, so that the ranks'
 * outputs add up (a partial sum); an index outside [0, global size) is an
 * error. one_hot writes output[..., c, ...] = (index == offset + c) for
 * the block of classes starting at args->out_offset (1 / 0, the only
 * on / off values the shape rule knows); an index outside [0, depth)
 * gives a row of zeros (as TensorFlow and MindSpore).
 */
#include <string.h>

#include "kern/kern_private.h"

#include <symshard/expr.h>

/* Check, for the call "a" of "op", the gather of the table, input "ip",
 * along its axis "ax" by the indices, input "ii" (int32): "y" (called
 * "yn": the gather's output, or its gradient) has the dims table[:ax] +
 * indices + table[ax+1:], the table's local block lies inside its global
 * size and the indices inside that size; return 0 or -1. */
int
sym__kgather_check(struct sym__kernel_args *a, const char *op, int ip, int ii,
    int ax, const struct sym__tensor *y, const char *yn)
{
	const struct sym__tensor *p = &a->in[ip], *ix = &a->in[ii];
	int64_t n = p->dim[ax], off = sym__kin_offset(a, ip, ax);
	int64_t global = sym__kin_global(a, ip, ax);
	int r = 0;

	if (y->rank != p->rank - 1 + ix->rank)
		return sym__kfail(a, op, "%s has rank %d, not %d", yn, y->rank,
		    p->rank - 1 + ix->rank);
	for (int d = 0; d < p->rank; d++)
		for (int k = 0; k < (d == ax ? ix->rank : 1); k++, r++)
			if (y->dim[r] != (d == ax ? ix->dim[k] : p->dim[d]))
				return sym__kfail(a, op,
				    "dim %d of %s is %lld, %lld expected", r,
				    yn, (long long)y->dim[r],
				    (long long)(d == ax ? ix->dim[k]
				                        : p->dim[d]));
	if (off < 0 || n > global || off > global - n)
		return sym__kfail(a, op,
		    "the local block [%lld, %lld) of the table is not inside "
		    "its global size %lld",
		    (long long)off, (long long)(off + n), (long long)global);
	return sym__kin_range(a, op, ix->data, sym__tensor_numel(ix), global);
}

/*
 * Gather, for the call "a" of "op", along axis "ax" of input "ip" (the
 * table) with the indices of input "ii", into output 0 of dims
 * table[:ax] + indices + table[ax+1:] (checked); rows outside the local
 * block are zero. Return 0 or -1.
 */
static int
gather(struct sym__kernel_args *a, const char *op, int ip, int ii, int ax)
{
	const struct sym__tensor *p = &a->in[ip], *ix = &a->in[ii];
	struct sym__tensor *y = &a->out[0];
	int64_t n = p->dim[ax], off = sym__kin_offset(a, ip, ax);
	size_t es = sym__tensor_elem_size(p->dtype);
	int64_t nidx, outer, inner;

	if (sym__kindices(a, op, ix, "the indices") < 0 ||
	    sym__ksame_kst(a, op, p, "the table", y, "the output") < 0 ||
	    sym__kgather_check(a, op, ip, ii, ax, y, "the output") < 0)
		return -1;
	nidx = sym__tensor_numel(ix);
	outer = sym__kprod(p->dim, 0, ax);
	inner = sym__kprod(p->dim, ax + 1, p->rank) * (int64_t)es;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < nidx; j++) {
			int64_t l = ((const int32_t *)ix->data)[j] - off;
			char *dst = (char *)y->data + (o * nidx + j) * inner;

			if (l >= 0 && l < n)
				memcpy(dst,
				    (const char *)p->data + (o * n + l) * inner,
				    (size_t)inner);
			else
				memset(dst, 0, (size_t)inner);
		}
	return 0;
}

/* Check that the call "a" of gather or gather_grad, called "op", has
 * "n_in" inputs and one output and a decoded axis inside the rank of the
 * table, input "ip"; store the axis in "*ax" and return 0, or -1. */
int
sym__kgather_axis(struct sym__kernel_args *a, const char *op, int n_in, int ip,
    int *ax)
{
	const struct sym__opattrs *at;

	if (sym__kio(a, op, n_in, n_in, 1, 1) < 0 || !(at = sym__kat(a, op)) ||
	    sym__kaxis(a, op, "axis", at->gather.axis, a->in[ip].rank) < 0)
		return -1;
	*ax = (int)at->gather.axis;
	return 0;
}

/* Check that the call "a" of embedding or embedding_grad, called "op",
 * has "n_in" inputs and one output and that the table, input "ip", has
 * rank 2; return 0 or -1. */
int
sym__kembedding_table(struct sym__kernel_args *a, const char *op, int n_in,
    int ip)
{
	if (sym__kio(a, op, n_in, n_in, 1, 1) < 0)
		return -1;
	if (a->in[ip].rank != 2)
		return sym__kfail(a, op, "the table must have rank 2, not %d",
		    a->in[ip].rank);
	return 0;
}

/* The kernel of gather(params, indices): along the decoded axis; "a" is
 * the call. */
int
sym__kern_gather(struct sym__kernel_args *a)
{
	static const char op[] = "gather";
	int ax;

	if (sym__kgather_axis(a, op, 2, 0, &ax) < 0)
		return -1;
	return gather(a, op, 0, 1, ax);
}

/* The kernel of embedding(ids, table [V, D]): ids.shape + [D]; "a" is
 * the call. */
int
sym__kern_embedding(struct sym__kernel_args *a)
{
	static const char op[] = "embedding";

	if (sym__kembedding_table(a, op, 2, 1) < 0)
		return -1;
	return gather(a, op, 1, 0, 0);
}

/* Set element "i" of "y" (storage "k") to one. */
static void
set_one(void *y, enum sym__kst k, int64_t i)
{
	if (k == SYM__KST_F32)
		((float *)y)[i] = 1.0f;
	else if (k == SYM__KST_F64)
		((double *)y)[i] = 1.0;
	else if (k == SYM__KST_I32)
		((int32_t *)y)[i] = 1;
	else
		((uint8_t *)y)[i] = 1;
}

/* Check that the output of the call "a" of one_hot has the dims of the
 * indices with a dim inserted at "ax", in the decoded dtype, and that its
 * block of classes is inside the depth when it is a constant; return 0
 * or -1. */
static int
check_one_hot(struct sym__kernel_args *a, int ax)
{
	const struct sym__tensor *x = &a->in[0], *y = &a->out[0];
	int64_t depth = a->at->gather.depth, c0 = sym__kout_offset(a, 0, ax);

	if (a->at->gather.dtype != y->dtype)
		return sym__kfail(a, "one_hot",
		    "the output is %s but the attribute dtype says %s",
		    sym_dtype_name(y->dtype),
		    sym_dtype_name(a->at->gather.dtype));
	if (y->rank != x->rank + 1)
		return sym__kfail(a, "one_hot",
		    "the output has rank %d, not %d", y->rank, x->rank + 1);
	for (int d = 0, j = 0; d < y->rank; d++)
		if (d != ax && y->dim[d] != x->dim[j++])
			return sym__kfail(a, "one_hot",
			    "dim %d of the output is %lld, not %lld", d,
			    (long long)y->dim[d], (long long)x->dim[j - 1]);
	if (c0 < 0 || (depth >= 0 && y->dim[ax] > depth - c0))
		return sym__kfail(a, "one_hot",
		    "the %lld classes from %lld of the output are not inside "
		    "the depth %lld",
		    (long long)y->dim[ax], (long long)c0, (long long)depth);
	return 0;
}

/* The kernel of one_hot(indices): the depth (local: the output's dim)
 * inserted at the decoded axis; "a" is the call. */
int
sym__kern_one_hot(struct sym__kernel_args *a)
{
	static const char op[] = "one_hot";
	const struct sym__tensor *x;
	struct sym__tensor *y;
	const struct sym__opattrs *at;
	int64_t outer, inner, depth, c0;
	const int32_t *idx;
	int ax;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)) ||
	    sym__kaxis(a, op, "axis", at->gather.axis, a->in[0].rank + 1) < 0)
		return -1;
	ax = (int)at->gather.axis;
	if (sym__kindices(a, op, &a->in[0], "the indices") < 0 ||
	    check_one_hot(a, ax) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	idx = x->data;
	depth = y->dim[ax];
	c0 = sym__kout_offset(a, 0, ax);
	outer = sym__kprod(x->dim, 0, ax);
	inner = sym__kprod(x->dim, ax, x->rank);
	if (sym__tensor_numel(y) == 0)
		return 0;
	memset(y->data, 0,
	    (size_t)sym__tensor_numel(y) * sym__tensor_elem_size(y->dtype));
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t c = idx[o * inner + i] - c0;

			if (c >= 0 && c < depth)
				set_one(y->data, sym__kst(y->dtype),
				    (o * depth + c) * inner + i);
		}
	return 0;
}
