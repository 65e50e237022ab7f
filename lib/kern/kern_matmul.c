/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the matmul family: matmul [M, K] x [K, N] -> [M, N] and
 * batch_matmul with NumPy-broadcast batch dims, both with transpose_a /
 * transpose_b (defaults false). f32 and f64 call CBLAS (sgemm / dgemm);
 * integers run a plain loop in int32 whose results wrap to the width of
 * their dtype (i8, i16, u8, i32); i64, held in int32, is refused.
 */
#include <limits.h>
#include <string.h>

#include <cblas.h>

#include "kern/kern_private.h"

/* The operands of one product: C[M, N] = op(A) op(B), row-major, with
 * leading dimensions. */
struct gemm {
	enum sym__kst kst;
	int ta, tb;
	int64_t m, n, k;
	int64_t lda, ldb, ldc;
};

/* C = A^T? B^T? in int32 for "g", wrapping on overflow; "A", "B", "C" are
 * the operands. */
static void
gemm_i32(const struct gemm *g, const int32_t *restrict A,
    const int32_t *restrict B, int32_t *restrict C)
{
	int64_t as_m = g->ta ? 1 : g->lda, as_k = g->ta ? g->lda : 1;
	int64_t bs_k = g->tb ? 1 : g->ldb, bs_n = g->tb ? g->ldb : 1;

	for (int64_t i = 0; i < g->m; i++) {
		uint32_t *restrict c = (uint32_t *)(C + i * g->ldc);

		for (int64_t j = 0; j < g->n; j++)
			c[j] = 0;
		for (int64_t p = 0; p < g->k; p++) {
			uint32_t av = (uint32_t)A[i * as_m + p * as_k];
			const int32_t *b = B + p * bs_k;

			SYM__SIMD
			for (int64_t j = 0; j < g->n; j++)
				c[j] += av * (uint32_t)b[j * bs_n];
		}
	}
}

/* C = A^T? B^T? for "g" (no empty dimension), by storage class; "A", "B",
 * "C" are the operands. */
static void
gemm(const struct gemm *g, const void *A, const void *B, void *C)
{
	enum CBLAS_TRANSPOSE ta = g->ta ? CblasTrans : CblasNoTrans;
	enum CBLAS_TRANSPOSE tb = g->tb ? CblasTrans : CblasNoTrans;

	if (g->kst == SYM__KST_F32)
		cblas_sgemm(CblasRowMajor, ta, tb, (int)g->m, (int)g->n,
		    (int)g->k, 1.0f, A, (int)g->lda, B, (int)g->ldb, 0.0f, C,
		    (int)g->ldc);
	else if (g->kst == SYM__KST_F64)
		cblas_dgemm(CblasRowMajor, ta, tb, (int)g->m, (int)g->n,
		    (int)g->k, 1.0, A, (int)g->lda, B, (int)g->ldb, 0.0, C,
		    (int)g->ldc);
	else
		gemm_i32(g, A, B, C);
}

/* Fill "g" for the call "a" of "op" whose operands are its inputs 0 and
 * 1: read the transposition flags, check the dtypes, the contracted dims
 * and the sizes CBLAS takes (int); return 0 or -1. */
static int
setup(struct sym__kernel_args *a, const char *op, struct gemm *g)
{
	const struct sym__tensor *x = &a->in[0], *y = &a->in[1];
	int ra = x->rank, rb = y->rank;
	int64_t kb;

	if (!sym__kat(a, op))
		return -1;
	g->ta = a->at->matmul.transpose_a;
	g->tb = a->at->matmul.transpose_b;
	if (sym__ksame_kst(a, op, x, "input 0", y, "input 1") < 0 ||
	    sym__ksame_kst(a, op, x, "input 0", &a->out[0], "the output") < 0)
		return -1;
	g->kst = sym__kst(x->dtype);
	if (g->kst == SYM__KST_U8)
		return sym__kfail(a, op, "bool operands are not supported");
	if (sym__kno_i64(a, op, x, "input 0") < 0)
		return -1;
	g->m = x->dim[ra - (g->ta ? 1 : 2)];
	g->k = x->dim[ra - (g->ta ? 2 : 1)];
	kb = y->dim[rb - (g->tb ? 1 : 2)];
	g->n = y->dim[rb - (g->tb ? 2 : 1)];
	if (g->k != kb)
		return sym__kfail(a, op,
		    "the contracted dims differ: %lld in input 0, %lld in "
		    "input 1",
		    (long long)g->k, (long long)kb);
	g->lda = x->dim[ra - 1];
	g->ldb = y->dim[rb - 1];
	g->ldc = g->n;
	if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX)
		return sym__kfail(a, op,
		    "a matrix dim exceeds %d, the largest CBLAS takes",
		    INT_MAX);
	return 0;
}

/* The kernel of matmul: output [M, N] of inputs [M, K] (or [K, M] with
 * transpose_a) and [K, N] (or [N, K] with transpose_b); "a" is the call. */
int
sym__kern_matmul(struct sym__kernel_args *a)
{
	static const char op[] = "matmul";
	const struct sym__tensor *out;
	struct gemm g;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0)
		return -1;
	out = &a->out[0];
	if (a->in[0].rank != 2 || a->in[1].rank != 2 || out->rank != 2)
		return sym__kfail(a, op,
		    "inputs and output must have rank 2 (ranks %d, %d -> %d)",
		    a->in[0].rank, a->in[1].rank, out->rank);
	if (setup(a, op, &g) < 0)
		return -1;
	if (out->dim[0] != g.m || out->dim[1] != g.n)
		return sym__kfail(a, op,
		    "the output is [%lld, %lld], the product [%lld, %lld]",
		    (long long)out->dim[0], (long long)out->dim[1],
		    (long long)g.m, (long long)g.n);
	if (g.m == 0 || g.n == 0)
		return 0;
	if (g.k == 0) {
		memset(out->data, 0,
		    (size_t)(g.m * g.n) * sym__tensor_elem_size(out->dtype));
		return 0;
	}
	gemm(&g, a->in[0].data, a->in[1].data, out->data);
	sym__kwrap(out->data, out->dtype, g.m * g.n);
	return 0;
}

/* Store in "bs" the batch strides of "t" (in elements; its dims before
 * the last two, aligned right on "nb" batch dims), 0 along dims of size 1
 * or missing (broadcast). */
static void
batch_strides(const struct sym__tensor *t, int nb, int64_t *bs)
{
	int tb = t->rank - 2;
	int64_t s = t->dim[t->rank - 2] * t->dim[t->rank - 1];

	for (int d = nb - 1; d >= 0; d--) {
		int td = d - (nb - tb);

		if (td < 0) {
			bs[d] = 0;
			continue;
		}
		bs[d] = t->dim[td] == 1 ? 0 : s;
		s *= t->dim[td];
	}
}

/* Check that the batch dims "bd" of the output of the call "a" of "op"
 * are the broadcast of those of its inputs; return 0 or -1. */
static int
check_batch(struct sym__kernel_args *a, const char *op, int nb,
    const int64_t *bd)
{
	for (int d = 0; d < nb; d++) {
		int64_t want = 1;

		for (int i = 0; i < 2; i++) {
			const struct sym__tensor *t = &a->in[i];
			int td = d - (nb - (t->rank - 2));
			int64_t v = td < 0 ? 1 : t->dim[td];

			if (v != 1 && want != 1 && v != want)
				return sym__kfail(a, op,
				    "batch dim %d differs (%lld and %lld) and "
				    "neither is 1",
				    d, (long long)want, (long long)v);
			if (v != 1)
				want = v;
		}
		if (bd[d] != want)
			return sym__kfail(a, op,
			    "batch dim %d of the output is %lld, the inputs "
			    "broadcast to %lld",
			    d, (long long)bd[d], (long long)want);
	}
	return 0;
}

/* Run the "nbatch" products of "g" of the call "a": batch "i" (its
 * coordinates counted on the output batch dims "bd") multiplies the
 * matrices at the batch strides "as" and "bs" of the inputs. When input 1
 * is broadcast over every batch dim and input 0 is neither broadcast nor
 * transposed, one product of M * batch rows does it all. */
static void
run_batches(struct sym__kernel_args *a, struct gemm *g, int nb,
    const int64_t *bd, const int64_t *as, const int64_t *bs, int64_t nbatch)
{
	size_t es = sym__tensor_elem_size(a->out[0].dtype);
	int64_t idx[SYM__MAX_RANK] = { 0 }, mat = g->m * g->n;
	int fold = !g->ta && nbatch * g->m <= INT_MAX;

	for (int d = 0; d < nb; d++)
		fold = fold && bs[d] == 0 && (as[d] != 0 || bd[d] == 1);
	if (fold) {
		g->m *= nbatch;
		gemm(g, a->in[0].data, a->in[1].data, a->out[0].data);
		return;
	}
	for (int64_t i = 0; i < nbatch; i++) {
		int64_t ao = 0, bo = 0;

		for (int d = 0; d < nb; d++) {
			ao += idx[d] * as[d];
			bo += idx[d] * bs[d];
		}
		gemm(g, (const char *)a->in[0].data + ao * (int64_t)es,
		    (const char *)a->in[1].data + bo * (int64_t)es,
		    (char *)a->out[0].data + i * mat * (int64_t)es);
		for (int d = nb - 1; d >= 0 && ++idx[d] == bd[d]; d--)
			idx[d] = 0;
	}
}

/* The kernel of batch_matmul: [..., M, K] x [..., K, N] -> [..., M, N]
 * (with the transpositions), the batch dims broadcast NumPy style; "a"
 * is the call. */
int
sym__kern_batch_matmul(struct sym__kernel_args *a)
{
	static const char op[] = "batch_matmul";
	const struct sym__tensor *out;
	int64_t as[SYM__MAX_RANK], bs[SYM__MAX_RANK];
	int nb;
	struct gemm g;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0)
		return -1;
	out = &a->out[0];
	if (a->in[0].rank < 2 || a->in[1].rank < 2)
		return sym__kfail(a, op, "inputs must have rank at least 2");
	nb =
	    (a->in[0].rank > a->in[1].rank ? a->in[0].rank : a->in[1].rank) - 2;
	if (out->rank != nb + 2)
		return sym__kfail(a, op, "the output has rank %d, not %d",
		    out->rank, nb + 2);
	if (setup(a, op, &g) < 0 || check_batch(a, op, nb, out->dim) < 0)
		return -1;
	if (out->dim[nb] != g.m || out->dim[nb + 1] != g.n)
		return sym__kfail(a, op,
		    "the output matrices are [%lld, %lld], the products "
		    "[%lld, %lld]",
		    (long long)out->dim[nb], (long long)out->dim[nb + 1],
		    (long long)g.m, (long long)g.n);
	if (sym__tensor_numel(out) == 0)
		return 0;
	if (g.k == 0) {
		memset(out->data, 0,
		    (size_t)sym__tensor_numel(out) *
		        sym__tensor_elem_size(out->dtype));
		return 0;
	}
	batch_strides(&a->in[0], nb, as);
	batch_strides(&a->in[1], nb, bs);
	run_batches(a, &g, nb, out->dim, as, bs, sym__kprod(out->dim, 0, nb));
	sym__kwrap(out->data, out->dtype, sym__tensor_numel(out));
	return 0;
}
