/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the matmul family (MindSpore's MatMulInfo and
 * BatchMatMulInfo).
 *
 * matmul ((a, b), (b, c)): the device matrix is (m=a, k=b, n=c); A is on
 * (m, k), B on (k, n) and the output [M, N] on (m, n), holding partial
 * sums over k. With transpose_a / transpose_b the strategies follow the
 * stored dimensions ((b, a) for a transposed A, (c, b) for a transposed
 * B), as in MindSpore. batch_matmul puts the (broadcast) batch dimensions
 * first, as axes "b0", "b1", ..., then m, k and n.
 *
 * Checks: the contracted dimension is split alike on both sides (the same
 * axes, in the same order), batch dimensions are split alike or
 * broadcast (then unsplit), and no axis splits both M and N.
 */
#include "rules/rule_private.h"

/* The positions of the dimensions of one matmul run: batch dimensions of
 * the output, then M and K in A, K and N in B. */
struct mm {
	size_t nb;     /* batch dimensions of the output */
	size_t ra, rb; /* ranks of A and B */
	size_t m_a, k_a, k_b, n_b;
};

/* Fill "p" for the run "s". */
static void
positions(const struct sym__shard *s, struct mm *p)
{
	int ta = s->at->matmul.transpose_a;
	int tb = s->at->matmul.transpose_b;

	p->ra = sym__shard_in_rank(s, 0);
	p->rb = sym__shard_in_rank(s, 1);
	p->nb = (p->ra > p->rb ? p->ra : p->rb) - 2;
	p->m_a = p->ra - (ta ? 1 : 2);
	p->k_a = p->ra - (ta ? 2 : 1);
	p->k_b = p->rb - (tb ? 1 : 2);
	p->n_b = p->rb - (tb ? 2 : 1);
}

/* Return the batch dimension of an operand of rank "r" aligned with
 * output batch dimension "j" of the run positions "p", or -1 when it has
 * none. */
static int
batch_dim(const struct mm *p, size_t r, size_t j)
{
	size_t nbi = r - 2;

	return j + nbi >= p->nb ? (int)(j + nbi - p->nb) : -1;
}

/* Store in "sizes" the batch part of the device matrix of "s" (positions
 * "p") from the split counts "split"; 0 or -1 with an error when two
 * operands split a shared batch dimension differently. */
static int
batch_sizes(struct sym__shard *s, const struct mm *p,
    const int64_t *const *split, int64_t *sizes)
{
	for (size_t j = 0; j < p->nb; j++) {
		int owner = -1;

		sizes[j] = 1;
		for (size_t i = 0; i < 2; i++) {
			size_t r = i ? p->rb : p->ra;
			int d = batch_dim(p, r, j);

			if (d < 0 || !split[i] ||
			    sym__shard_broadcast(s, i, (size_t)d, j))
				continue;
			if (owner >= 0 && split[i][d] != sizes[j])
				return sym__shard_fail(s, (int)i, d,
				    "batch dimension %d of %s is split %lld way%s, but "
				    "the matching one of %s %lld way%s: they must be "
				    "equal",
				    d, sym__shard_in_name(s, i),
				    (long long)split[i][d],
				    SYM__WAYS(split[i][d]),
				    sym__shard_in_name(s, (size_t)owner),
				    (long long)sizes[j], SYM__WAYS(sizes[j]));
			sizes[j] = split[i][d];
			owner = (int)i;
		}
	}
	return 0;
}

/* Map input "i" (rank "r") of "s" (positions "p") onto the device: batch
 * dimensions on "b0".., then "row" and "col" for its last two dimensions;
 * "split" are its split counts. Return 0 or -1. */
static int
map_operand(struct sym__shard *s, const struct mm *p, size_t i, size_t r,
    const int64_t *split, int row, int col)
{
	int *axis_of = sym__shard_scratch(s, r, sizeof(*axis_of));

	if (!axis_of)
		return sym__shard_nomem(s);
	for (size_t d = 0; d + 2 < r; d++) {
		size_t j = d + p->nb - (r - 2);

		axis_of[d] = sym__shard_broadcast(s, i, d, j) ? -1 : (int)j;
	}
	axis_of[r - 2] = row;
	axis_of[r - 1] = col;
	return sym__shard_map(s, i, split, axis_of);
}

/* The tuple step of matmul and batch_matmul: device matrix (b0.., m, k,
 * n); "s" is the run, "split" the split counts by input. */
int
sym__shard_tuple_matmul(struct sym__shard *s, const int64_t *const *split)
{
	const int64_t *a = split[0], *b = split[1];
	int64_t sizes[SYM_MESH_MAX_AXES + 3];
	const char *names[SYM_MESH_MAX_AXES + 3];
	const char **bn;
	struct mm p;
	size_t nb;

	positions(s, &p);
	nb = p.nb;
	if (nb + 3 > SYM_MESH_MAX_AXES)
		return sym__shard_fail(s, -1, -1,
		    "%zu batch dimensions are more than a device matrix can "
		    "hold",
		    nb);
	bn = sym__shard_axis_names(s, "b", nb);
	if (!bn)
		return sym__shard_nomem(s);
	if (batch_sizes(s, &p, split, sizes) < 0)
		return -1;
	if (a && b && a[p.k_a] != b[p.k_b])
		return sym__shard_fail(s, 1, (int)p.k_b,
		    "the contracted dimension is split %lld way%s in %s "
		    "(dimension %zu) but %lld way%s in %s (dimension "
		    "%zu): they must be equal",
		    (long long)a[p.k_a], SYM__WAYS(a[p.k_a]),
		    sym__shard_in_name(s, 0), p.k_a, (long long)b[p.k_b],
		    SYM__WAYS(b[p.k_b]), sym__shard_in_name(s, 1), p.k_b);
	for (size_t j = 0; j < nb; j++)
		names[j] = bn[j];
	names[nb] = "m";
	names[nb + 1] = "k";
	names[nb + 2] = "n";
	sizes[nb] = a ? a[p.m_a] : 1;
	sizes[nb + 1] = a ? a[p.k_a] : b ? b[p.k_b] : 1;
	sizes[nb + 2] = b ? b[p.n_b] : 1;
	if (sym__shard_set_mesh(s, nb + 3, sizes, names) < 0)
		return -1;
	if (a &&
	    map_operand(s, &p, 0, p.ra, a, (int)(nb + (p.m_a < p.k_a ? 0 : 1)),
	        (int)(nb + (p.m_a < p.k_a ? 1 : 0))) < 0)
		return -1;
	if (b &&
	    map_operand(s, &p, 1, p.rb, b, (int)(nb + (p.k_b < p.n_b ? 1 : 2)),
	        (int)(nb + (p.k_b < p.n_b ? 2 : 1))) < 0)
		return -1;
	return 0;
}

/* Give operand "i" of "s" (positions "p"), which has none, the layout the
 * other operand implies: its batch splits where not broadcast, its
 * contracted split, nothing on M or N. Return 0 or -1. */
static int
complete(struct sym__shard *s, const struct mm *p, size_t i)
{
	size_t r = i ? p->rb : p->ra, ro = i ? p->ra : p->rb;
	const sym_layout *o = s->in[1 - i];
	struct sym__lb b;

	if (sym__lb_init(s, &b, r) < 0)
		return -1;
	for (size_t j = 0; j < p->nb; j++) {
		int d = batch_dim(p, r, j), od = batch_dim(p, ro, j);

		if (d < 0 || od < 0 ||
		    sym__shard_broadcast(s, i, (size_t)d, j) ||
		    sym__shard_broadcast(s, 1 - i, (size_t)od, j))
			continue;
		sym__lb_copy(&b, (size_t)d, o, (size_t)od);
	}
	if (i == 0)
		sym__lb_copy(&b, p->k_a, o, p->k_b);
	else
		sym__lb_copy(&b, p->k_b, o, p->k_a);
	return sym__shard_set_in(s, i, &b);
}

/* Set the batch dimensions of the output "b" of "s" (positions "p") after
 * checking the operands agree on them; 0 or -1. */
static int
batch_out(struct sym__shard *s, const struct mm *p, struct sym__lb *b)
{
	for (size_t j = 0; j < p->nb; j++) {
		int d[2] = { batch_dim(p, p->ra, j), batch_dim(p, p->rb, j) };

		if (sym__shard_align(s, d, 2, j, "batch dimension", b) < 0)
			return -1;
	}
	return 0;
}

/* Fail on "s" when an axis of size > 1 splits both M and N (the
 * dimensions of A and B the positions "p" name); return 0 or -1. */
static int
check_m_n(struct sym__shard *s, const struct mm *p)
{
	const sym_layout *a = s->in[0], *b = s->in[1];

	for (size_t i = 0; i < a->n[p->m_a]; i++)
		for (size_t j = 0; j < b->n[p->n_b]; j++) {
			int x = a->axes[p->m_a][i];

			if (x != b->axes[p->n_b][j] || a->mesh->size[x] == 1)
				continue;
			return sym__shard_fail(s, 1, (int)p->n_b,
			    "axis %s splits both M (dimension %zu of %s) and "
			    "N (dimension %zu of %s): an axis may not split "
			    "both",
			    a->mesh->name[x], p->m_a, sym__shard_in_name(s, 0),
			    p->n_b, sym__shard_in_name(s, 1));
		}
	return 0;
}

/* The layout step of matmul and batch_matmul: the output [..., M, N] is
 * split like M and N and holds partial sums over the axes of the
 * contracted dimension; "s" is the run. */
int
sym__shard_infer_matmul(struct sym__shard *s)
{
	struct sym__lb b;
	struct mm p;

	positions(s, &p);
	if (!s->in[0] && !s->in[1] && sym__shard_default_replicated(s, 0) < 0)
		return -1;
	for (size_t i = 0; i < 2; i++)
		if (!s->in[i] && complete(s, &p, i) < 0)
			return -1;
	if (!sym__shard_same_dim(s->in[0], p.k_a, s->in[1], p.k_b))
		return sym__shard_fail(s, 1, (int)p.k_b,
		    "the contracted dimension is split by %s in %s (dimension "
		    "%zu) but by %s in %s (dimension %zu): it must be split "
		    "alike on both sides",
		    sym__shard_axes_txt(s, s->in[0], p.k_a),
		    sym__shard_in_name(s, 0), p.k_a,
		    sym__shard_axes_txt(s, s->in[1], p.k_b),
		    sym__shard_in_name(s, 1), p.k_b);
	if (check_m_n(s, &p) < 0 || sym__lb_init(s, &b, p.nb + 2) < 0 ||
	    batch_out(s, &p, &b) < 0)
		return -1;
	sym__lb_copy(&b, p.nb, s->in[0], p.m_a);
	sym__lb_copy(&b, p.nb + 1, s->in[1], p.n_b);
	sym__lb_partial_dim(&b, s->in[0], p.k_a);
	return sym__shard_set_out(s, 0, &b);
}
