/* SPDX-License-Identifier: MIT */
/*
 * The helpers the per-operator sharding rules share (their table and
 * driver are in rules.c): errors and notes, scratch memory, device
 * matrices with their repeat axis, layouts under construction,
 * standard-form queries, the common tuple and layout steps, and the
 * release of a run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule_private.h"

/* Record on "s" the structural error "fmt" about dimension "dim" of the
 * strategy of input "input" (-1 for none); return -1. */
int
sym__shard_fail(struct sym__shard *s, int input, int dim, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (s->error)
		return -1;
	va_start(ap, fmt);
	msg = sym__vasprintf(fmt, ap);
	va_end(ap);
	s->error = msg ? msg : sym__strdup(s->ctx, "out of memory");
	s->error_input = input;
	s->error_dim = dim;
	return -1;
}

/* Record on "s" that memory ran out; return -1. */
int
sym__shard_nomem(struct sym__shard *s)
{
	sym__oom(s->ctx);
	return sym__shard_fail(s, -1, -1, "out of memory");
}

/* Add the note "fmt" for the user to "s"; return 0 or -1. */
int
sym__shard_note(struct sym__shard *s, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = sym__vasprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return sym__shard_nomem(s);
	if (SYM__RESERVE(s->ctx, s->note, s->cap_note, s->n_note + 1) < 0) {
		free(msg);
		return sym__shard_nomem(s);
	}
	s->note[s->n_note++] = msg;
	return 0;
}

/* A block of scratch memory: "used" of its "size" bytes are handed out.
 */
struct sym__scratch {
	struct sym__scratch *next;
	size_t size, used;
	max_align_t data[];
};

/* The least size of a block of scratch memory: most runs need no more. */
#define SCRATCH_BLOCK 1024

/* Return "n" zeroed elements of "size" bytes that live until "s" is
 * cleared, or NULL when out of memory. */
void *
sym__shard_scratch(struct sym__shard *s, size_t n, size_t size)
{
	struct sym__scratch *b = s->scratch;
	const size_t align = sizeof(max_align_t);
	size_t bytes;
	void *p;

	n = n ? n : 1;
	size = size ? size : 1;
	if (n > (SIZE_MAX - sizeof(*b) - align) / size)
		return NULL;
	bytes = (n * size + align - 1) / align * align;
	if (!b || b->size - b->used < bytes) {
		size_t cap = bytes > SCRATCH_BLOCK ? bytes : SCRATCH_BLOCK;

		b = sym__alloc(s->ctx, sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->size = cap;
		b->next = s->scratch;
		s->scratch = b;
	}
	p = (char *)b->data + b->used;
	b->used += bytes;
	return p;
}

/* Return the dimension of input "i" of "s" aligned from the right with
 * dimension "j" of a shape of rank "n", or -1 when it has none. */
static int
aligned_right(const struct sym__shard *s, size_t i, size_t j, size_t n)
{
	size_t r = s->in_shape[i]->rank;

	return j + r >= n ? (int)(j + r - n) : -1;
}

/* Return 1 when dimension "d" of input "i" of "s" is the constant 1
 * broadcast against dimension "j" of "ref", which is not. */
static int
broadcast_against(const struct sym__shard *s, size_t i, size_t d,
    const sym_shape *ref, size_t j)
{
	int64_t a, o;

	if (sym_expr_get_const(s->in_shape[i]->dim[d], &a) < 0 || a != 1)
		return 0;
	return sym_expr_get_const(ref->dim[j], &o) < 0 || o != 1;
}

/* The tuple step of broadcasting operators; see rule_private.h. */
int
sym__shard_tuple_broadcast(struct sym__shard *s, const int64_t *const *split,
    size_t n_in, const sym_shape *ref)
{
	size_t n = ref->rank;
	int64_t *sizes = sym__shard_scratch(s, n ? n : 1, sizeof(*sizes));
	const char **names = sym__shard_axis_names(s, "d", n);

	if (!sizes || !names)
		return sym__shard_nomem(s);
	for (size_t j = 0; j < n; j++) {
		int owner = -1, od = -1;

		sizes[j] = 1;
		for (size_t i = 0; i < n_in; i++) {
			int d = aligned_right(s, i, j, n);

			if (d < 0 || !split[i] ||
			    broadcast_against(s, i, (size_t)d, ref, j))
				continue;
			if (owner >= 0 && split[i][d] != sizes[j])
				return sym__shard_fail(s, (int)i, d,
				    "dimension %d of %s is split %lld way%s, "
				    "but the matching dimension %d of %s "
				    "%lld way%s: the operands of %s must be "
				    "split alike",
				    d, sym__shard_in_name(s, i),
				    (long long)split[i][d],
				    SYM__WAYS(split[i][d]), od,
				    sym__shard_in_name(s, (size_t)owner),
				    (long long)sizes[j], SYM__WAYS(sizes[j]),
				    sym_op_name(s->op));
			sizes[j] = split[i][d];
			owner = (int)i;
			od = d;
		}
	}
	if (sym__shard_set_mesh(s, n, sizes, names) < 0)
		return -1;
	for (size_t i = 0; i < n_in; i++) {
		size_t r = sym__shard_in_rank(s, i);
		int *axis_of = sym__shard_scratch(s, r ? r : 1, sizeof(int));

		if (!axis_of)
			return sym__shard_nomem(s);
		for (size_t d = 0; d < r; d++)
			axis_of[d] = broadcast_against(s, i, d, ref, d + n - r)
			    ? -1
			    : (int)(d + n - r);
		if (split[i] && sym__shard_map(s, i, split[i], axis_of) < 0)
			return -1;
	}
	return 0;
}

/* Lay out one output dimension from the aligned inputs; see
 * rule_private.h. */
int
sym__shard_align(struct sym__shard *s, const int *d, size_t n, size_t j,
    const char *what, struct sym__lb *b)
{
	int owner = -1;

	for (size_t i = 0; i < n; i++) {
		if (d[i] < 0)
			continue;
		if (sym__shard_broadcast(s, i, (size_t)d[i], j)) {
			if (sym__shard_unsplit(s, i, (size_t)d[i],
			        "it has size 1 and is broadcast, so it") < 0)
				return -1;
			continue;
		}
		if (owner < 0) {
			owner = (int)i;
			sym__lb_copy(b, j, s->in[i], (size_t)d[i]);
		} else if (!sym__shard_same_dim(s->in[owner], (size_t)d[owner],
		               s->in[i], (size_t)d[i])) {
			return sym__shard_fail(s, (int)i, d[i],
			    "%s %d of %s is split by %s, but the matching %s "
			    "%d of %s by %s: the operands of %s must be split "
			    "alike",
			    what, d[i], sym__shard_in_name(s, i),
			    sym__shard_axes_txt(s, s->in[i], (size_t)d[i]),
			    what, d[owner],
			    sym__shard_in_name(s, (size_t)owner),
			    sym__shard_axes_txt(s, s->in[owner],
			        (size_t)d[owner]),
			    sym_op_name(s->op));
		}
	}
	return 0;
}

/* Return the name of input "i" of "s" for messages. */
const char *
sym__shard_in_name(const struct sym__shard *s, size_t i)
{
	static const char *const ordinal[] = { "input 0", "input 1", "input 2",
		"input 3" };

	if (s->in_name && s->in_name[i])
		return s->in_name[i];
	return i < 4 ? ordinal[i] : "an input";
}

/* Return the rank of input "i" of "s". */
size_t
sym__shard_in_rank(const struct sym__shard *s, size_t i)
{
	return s->in_shape[i]->rank;
}

/* Return the axes that split dimension "d" of "l" as text, "mp", "(sp,
 * dp)" or "None", in scratch memory of "s" ("?" when out of memory). */
const char *
sym__shard_axes_txt(struct sym__shard *s, const sym_layout *l, size_t d)
{
	size_t len = 8, pos = 0;
	char *t;

	for (size_t i = 0; i < l->n[d]; i++)
		len += strlen(l->mesh->name[l->axes[d][i]]) + 2;
	t = sym__shard_scratch(s, len, 1);
	if (!t)
		return "?";
	if (l->n[d] == 0)
		return strcpy(t, "None");
	for (size_t i = 0; i < l->n[d]; i++)
		pos += (size_t)snprintf(t + pos, len - pos, "%s%s%s",
		    i                 ? ", "
		        : l->n[d] > 1 ? "("
		                      : "",
		    l->mesh->name[l->axes[d][i]],
		    i + 1 == l->n[d] && l->n[d] > 1 ? ")" : "");
	return t;
}

/* Return the names "prefix"0, "prefix"1, ... of "n" axes in scratch
 * memory of "s", or NULL when out of memory. */
const char **
sym__shard_axis_names(struct sym__shard *s, const char *prefix, size_t n)
{
	const char **names = sym__shard_scratch(s, n + 1, sizeof(*names));
	size_t len = strlen(prefix);

	for (size_t i = 0; names && i < n; i++) {
		char *t = sym__shard_scratch(s, len + 24, 1), d[24];
		size_t k = 0, j = i, pos = len;

		if (!t)
			return NULL;
		do
			d[k++] = (char)('0' + j % 10);
		while ((j /= 10) > 0);
		memcpy(t, prefix, len);
		while (k > 0)
			t[pos++] = d[--k];
		names[i] = t;
	}
	return names;
}

/* Name the axes of a gather-like operator of "s", whose device matrix has
 * an axis per dimension of its table ("rp" dimensions) and of its indices
 * ("ri"), and one more: set "*pn" to names "p0", "p1", ... and "*in" to
 * "i0", "i1", ... in scratch memory. Return 0, or -1 with an error on "s"
 * when memory ran out or a device matrix cannot have that many axes. */
int
sym__shard_gather_axes(struct sym__shard *s, size_t rp, size_t ri,
    const char ***pn, const char ***in)
{
	if (rp + ri + 1 > SYM_MESH_MAX_AXES)
		return sym__shard_fail(s, -1, -1,
		    "%s of tensors of %zu and %zu dimensions needs more "
		    "device-matrix axes than supported",
		    sym_op_name(s->op), rp, ri);
	*pn = sym__shard_axis_names(s, "p", rp);
	*in = sym__shard_axis_names(s, "i", ri);
	return *pn && *in ? 0 : sym__shard_nomem(s);
}

/* Store at "base" of "sizes" and "names" the "n" axes named "nm" of a
 * tensor whose split counts are "split" (NULL: unsplit). */
void
sym__shard_axes_put(int64_t *sizes, const char **names, size_t base, size_t n,
    const int64_t *split, const char *const *nm)
{
	for (size_t d = 0; d < n; d++) {
		sizes[base + d] = split ? split[d] : 1;
		names[base + d] = nm[d];
	}
}

/* Return the text "(2, 4, 1)" of the "n" sizes "sizes" in scratch memory
 * of "s". */
static const char *
sizes_txt(struct sym__shard *s, size_t n, const int64_t *sizes)
{
	char *t = sym__shard_scratch(s, 24 * n + 4, 1);
	size_t pos = 0;

	if (!t)
		return "?";
	pos += (size_t)sprintf(t, "(");
	for (size_t i = 0; i < n; i++)
		pos += (size_t)sprintf(t + pos, "%s%lld", i ? ", " : "",
		    (long long)sizes[i]);
	sprintf(t + pos, "%s)", n == 1 ? "," : "");
	return t;
}

/* Set the device matrix of "s" to the "n" axes of "sizes" named "names",
 * appending the repeat axis "rep" of size N / P when the product P of the
 * sizes is less than the N devices. Return 0, or -1 with an error when P
 * does not divide N. */
int
sym__shard_set_mesh(struct sym__shard *s, size_t n, const int64_t *sizes,
    const char *const *names)
{
	int64_t sz[SYM_MESH_MAX_AXES], p = 1;
	const char *nm[SYM_MESH_MAX_AXES];

	if (n + 1 > SYM_MESH_MAX_AXES)
		return sym__shard_fail(s, -1, -1,
		    "the device matrix would have %zu axes; at most %d are "
		    "supported",
		    n + 1, SYM_MESH_MAX_AXES);
	for (size_t i = 0; i < n; i++) {
		if (__builtin_mul_overflow(p, sizes[i], &p))
			return sym__shard_fail(s, -1, -1,
			    "the device matrix %s overflows 64 bits",
			    sizes_txt(s, n, sizes));
		sz[i] = sizes[i];
		nm[i] = names[i];
	}
	if (p > s->devices)
		return sym__shard_fail(s, -1, -1,
		    "the device matrix %s needs %lld devices, but there are "
		    "only %lld",
		    sizes_txt(s, n, sizes), (long long)p,
		    (long long)s->devices);
	if (s->devices % p)
		return sym__shard_fail(s, -1, -1,
		    "the device matrix %s uses %lld devices, which does not "
		    "divide the %lld devices",
		    sizes_txt(s, n, sizes), (long long)p,
		    (long long)s->devices);
	if (p < s->devices || n == 0) {
		sz[n] = s->devices / p;
		nm[n++] = "rep";
	}
	sym__mesh_unref(s->mesh);
	s->mesh = sym__mesh_new(s->ctx, n, sz, nm, 0, NULL);
	if (!s->mesh) {
		sym__shard_fail(s, -1, -1, "%s", sym_ctx_last_message(s->ctx));
		sym_ctx_clear_error(s->ctx);
		return -1;
	}
	return 0;
}

/* Initialise "b" as an unsplit layout of "rank" dimensions over the mesh
 * of "s"; 0 or -1. */
int
sym__lb_init(struct sym__shard *s, struct sym__lb *b, size_t rank)
{
	memset(b, 0, sizeof(*b));
	b->rank = rank;
	b->n = sym__shard_scratch(s, rank, sizeof(*b->n));
	b->axes = sym__shard_scratch(s, rank, sizeof(*b->axes));
	if (!b->n || !b->axes)
		return sym__shard_nomem(s);
	return 0;
}

/* Append mesh axis "a" to the axes that split dimension "d" of "b". */
static void
lb_add(struct sym__lb *b, size_t d, int a)
{
	if (a >= 0 && b->n[d] < SYM_MESH_MAX_AXES)
		b->axes[d][b->n[d]++] = (int8_t)a;
}

/* Append the axes that split dimension "ld" of "l" to dimension "d" of
 * "b". */
void
sym__lb_copy(struct sym__lb *b, size_t d, const sym_layout *l, size_t ld)
{
	for (size_t i = 0; i < l->n[ld]; i++)
		lb_add(b, d, l->axes[ld][i]);
}

/* Mark mesh axis "a" as holding partial sums in "b", after those already
 * marked. */
static void
lb_partial(struct sym__lb *b, int a)
{
	if (a < 0 || (b->partial >> a & 1))
		return;
	b->partial |= UINT32_C(1) << a;
	b->red[b->n_red++] = (int8_t)a;
}

/* Mark the axes that split dimension "ld" of "l" as partial in "b". */
void
sym__lb_partial_dim(struct sym__lb *b, const sym_layout *l, size_t ld)
{
	for (size_t i = 0; i < l->n[ld]; i++)
		lb_partial(b, l->axes[ld][i]);
}

/* Return 0 when "b" over "mesh" uses each axis at most once, or -1 with
 * "a", "d1" and "d2" pointing at the axis and the two dimensions (-1:
 * partial) that use it. */
static int
find_twice(const sym_mesh *mesh, const struct sym__lb *b, int *a, int *d1,
    int *d2)
{
	int dim_of[SYM_MESH_MAX_AXES];

	for (size_t i = 0; i < mesh->n_axes; i++)
		dim_of[i] = (b->partial >> i & 1) ? -1 : -2;
	for (size_t d = 0; d < b->rank; d++)
		for (size_t i = 0; i < b->n[d]; i++) {
			int x = b->axes[d][i];

			if (dim_of[x] != -2) {
				*a = x;
				*d1 = dim_of[x];
				*d2 = (int)d;
				return -1;
			}
			dim_of[x] = (int)d;
		}
	return 0;
}

/* Return an internal reference to the layout of "b" over the mesh of
 * "s", or NULL with an error naming "what" ("input x", "the output y")
 * when an axis is used twice. */
static sym_layout *
build(struct sym__shard *s, struct sym__lb *b, const char *what)
{
	sym_layout *l;
	int a, d1, d2;

	if (find_twice(s->mesh, b, &a, &d1, &d2) < 0) {
		if (d1 == -1)
			sym__shard_fail(s, -1, d2,
			    "axis %s would both split dimension %d of %s and "
			    "hold partial sums of it",
			    s->mesh->name[a], d2, what);
		else if (d1 == d2)
			sym__shard_fail(s, -1, d2,
			    "axis %s would split dimension %d of %s twice",
			    s->mesh->name[a], d2, what);
		else
			sym__shard_fail(s, -1, d2,
			    "axis %s would split both dimension %d and "
			    "dimension %d of %s: an axis splits at most one "
			    "dimension of a tensor",
			    s->mesh->name[a], d1, d2, what);
		return NULL;
	}
	l = sym__layout_new(s->mesh, b->rank, b->n,
	    (const int8_t(*)[SYM_MESH_MAX_AXES])b->axes, b->partial);
	if (!l) {
		sym__shard_fail(s, -1, -1, "%s", sym_ctx_last_message(s->ctx));
		sym_ctx_clear_error(s->ctx);
	}
	return l;
}

/* Set input "i" of "s" to the layout of "b"; 0 or -1 with an error. */
int
sym__shard_set_in(struct sym__shard *s, size_t i, struct sym__lb *b)
{
	sym_layout *l = build(s, b, sym__shard_in_name(s, i));

	if (!l) {
		if (s->error_input < 0)
			s->error_input = (int)i;
		return -1;
	}
	sym__layout_unref(s->in[i]);
	s->in[i] = l;
	return 0;
}

/* Check that "b", the layout of output "k" of "s" described as "what"
 * ("the output of matmul"), uses each axis at most once; 0 or -1 with an
 * error. */
static int
shard_check_out(struct sym__shard *s, size_t k, struct sym__lb *b,
    const char *what)
{
	int a, d1, d2;

	(void)k;
	if (find_twice(s->mesh, b, &a, &d1, &d2) == 0)
		return 0;
	if (d1 == -1)
		return sym__shard_fail(s, -1, -1,
		    "axis %s would both split dimension %d of %s and hold "
		    "partial sums of it",
		    s->mesh->name[a], d2, what);
	return sym__shard_fail(s, -1, -1,
	    "axis %s would split both dimension %d and dimension %d of %s",
	    s->mesh->name[a], d1, d2, what);
}

/* Set output "k" of "s" to the layout of "b", keeping the order of its
 * partial axes and dropping those of size 1 (they sum nothing); 0 or -1
 * with an error. */
int
sym__shard_set_out(struct sym__shard *s, size_t k, struct sym__lb *b)
{
	sym_layout *l;
	uint8_t n = 0;

	for (size_t i = 0; i < b->n_red; i++)
		if (s->mesh->size[b->red[i]] > 1)
			b->red[n++] = b->red[i];
		else
			b->partial &= ~(UINT32_C(1) << b->red[i]);
	b->n_red = n;
	if (shard_check_out(s, k, b, "the output") < 0)
		return -1;
	l = build(s, b, "the output");
	if (!l)
		return -1;
	sym__layout_unref(s->out[k]);
	s->out[k] = l;
	s->n_red[k] = b->n_red;
	memcpy(s->red[k], b->red, sizeof(b->red));
	return 0;
}

/* Set output "k" of "s" to the layout of input "i" (without partial
 * sums); 0 or -1. */
int
sym__shard_out_same(struct sym__shard *s, size_t k, size_t i)
{
	struct sym__lb b;
	const sym_layout *l = s->in[i];

	if (sym__lb_init(s, &b, l->rank) < 0)
		return -1;
	for (size_t d = 0; d < l->rank; d++)
		sym__lb_copy(&b, d, l, d);
	return sym__shard_set_out(s, k, &b);
}

/* Set output 0 of "s" to the layout of input 0 (replicated when it has
 * none) with an unsplit dimension inserted at "axis" of the output
 * (expand_dims, one_hot); 0 or -1 with an error. */
int
sym__shard_out_inserted(struct sym__shard *s, size_t axis)
{
	size_t r = sym__shard_in_rank(s, 0);
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__lb_init(s, &b, r + 1) < 0)
		return -1;
	for (size_t i = 0, d = 0; i <= r; i++)
		if (i != axis)
			sym__lb_copy(&b, i, s->in[0], d++);
	return sym__shard_set_out(s, 0, &b);
}

/* Return 1 when dimension "d" of input "i" of "s" is broadcast against
 * dimension "j" of output 0: it is the constant 1 and the output's is
 * not (the elementwise operators, matmul's batch dimensions). */
int
sym__shard_broadcast(const struct sym__shard *s, size_t i, size_t d, size_t j)
{
	int64_t a, o;

	if (sym_expr_get_const(s->in_shape[i]->dim[d], &a) < 0 || a != 1)
		return 0;
	return sym_expr_get_const(s->out_shape[0]->dim[j], &o) < 0 || o != 1;
}

/* Set input "i" of "s" to a replicated layout when it has none; 0 or -1.
 */
int
sym__shard_default_replicated(struct sym__shard *s, size_t i)
{
	if (s->in[i])
		return 0;
	s->in[i] =
	    sym__layout_new(s->mesh, sym__shard_in_rank(s, i), NULL, NULL, 0);
	return s->in[i] ? 0 : sym__shard_nomem(s);
}

/* Give input "i" of "s", when it has none, a layout of rank "rank" whose
 * dimension 0 (if any) is split like dimension "d" of input "from", the
 * others unsplit; 0 or -1. */
int
sym__shard_complete_from(struct sym__shard *s, size_t i, size_t from, size_t d,
    size_t rank)
{
	struct sym__lb b;

	if (s->in[i])
		return 0;
	if (sym__lb_init(s, &b, rank) < 0)
		return -1;
	if (rank > 0)
		sym__lb_copy(&b, 0, s->in[from], d);
	return sym__shard_set_in(s, i, &b);
}

/* Return the number of axes of size > 1 that split dimension "d" of "l"
 * and store them in "out" (room for SYM_MESH_MAX_AXES). */
static size_t
real_axes(const sym_layout *l, size_t d, int *out)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n[d]; i++)
		if (l->mesh->size[l->axes[d][i]] > 1)
			out[n++] = l->axes[d][i];
	return n;
}

/* Return 1 when dimension "d" of "l" is split by an axis of size > 1. */
int
sym__shard_is_split(const sym_layout *l, size_t d)
{
	int a[SYM_MESH_MAX_AXES];

	return real_axes(l, d, a) > 0;
}

/* Return 1 when dimension "da" of "a" and dimension "db" of "b" are split
 * by the same axes of size > 1 in the same order. */
int
sym__shard_same_dim(const sym_layout *a, size_t da, const sym_layout *b,
    size_t db)
{
	int x[SYM_MESH_MAX_AXES], y[SYM_MESH_MAX_AXES];
	size_t n = real_axes(a, da, x);

	if (n != real_axes(b, db, y))
		return 0;
	return memcmp(x, y, n * sizeof(*x)) == 0;
}

/* Require dimension "d" of input "i" of "s" to be unsplit because "why";
 * 0 or -1 with an error. */
int
sym__shard_unsplit(struct sym__shard *s, size_t i, size_t d, const char *why)
{
	const sym_layout *l = s->in[i];

	if (!sym__shard_is_split(l, d))
		return 0;
	return sym__shard_fail(s, (int)i, (int)d,
	    "dimension %zu of %s is split by %s (%lld way%s), "
	    "but %s must not be split",
	    d, sym__shard_in_name(s, i), sym__shard_axes_txt(s, l, d),
	    (long long)sym_layout_dim_splits(l, d),
	    SYM__WAYS(sym_layout_dim_splits(l, d)), why);
}

/* Require dimension "k" of dy, input 0 of the gradient "s", to be split
 * like dimension "d" of input "j"; 0 or -1 with an error. */
int
sym__shard_dy_like(struct sym__shard *s, size_t k, size_t j, size_t d)
{
	if (sym__shard_same_dim(s->in[0], k, s->in[j], d))
		return 0;
	return sym__shard_fail(s, 0, (int)k,
	    "dimension %zu of dy %s is split by %s, but dimension %zu of %s "
	    "by %s: they must be split alike",
	    k, sym__shard_in_name(s, 0), sym__shard_axes_txt(s, s->in[0], k), d,
	    sym__shard_in_name(s, j), sym__shard_axes_txt(s, s->in[j], d));
}

/* Set input "i" of the tuple step of "s": dimension d on mesh axis
 * "axis_of"[d] (-1: unsplit), after checking the split counts "split"
 * (NULL: none given) against the axis sizes; 0 or -1 with an error. */
int
sym__shard_map(struct sym__shard *s, size_t i, const int64_t *split,
    const int *axis_of)
{
	size_t rank = sym__shard_in_rank(s, i);
	struct sym__lb b;

	if (sym__lb_init(s, &b, rank) < 0)
		return -1;
	for (size_t d = 0; d < rank; d++) {
		int64_t want = axis_of[d] < 0 ? 1 : s->mesh->size[axis_of[d]];

		if (split && split[d] != want && axis_of[d] < 0)
			return sym__shard_fail(s, (int)i, (int)d,
			    "dimension %zu of %s cannot be split (the strategy "
			    "splits it %lld way%s)",
			    d, sym__shard_in_name(s, i), (long long)split[d],
			    SYM__WAYS(split[d]));
		if (split && split[d] != want)
			return sym__shard_fail(s, (int)i, (int)d,
			    "dimension %zu of %s is split %lld way%s, but it "
			    "goes with axis %s of the device matrix, split %lld "
			    "way%s by the other inputs",
			    d, sym__shard_in_name(s, i), (long long)split[d],
			    SYM__WAYS(split[d]), s->mesh->name[axis_of[d]],
			    (long long)want, SYM__WAYS(want));
		lb_add(&b, d, axis_of[d]);
	}
	return sym__shard_set_in(s, i, &b);
}

/* Set input "i" of the tuple step of "s" when it has the split counts
 * "split" (NULL: leave it): dimension d on mesh axis "base" + d, as
 * sym__shard_map; 0 or -1 with an error. */
int
sym__shard_map_from(struct sym__shard *s, size_t i, const int64_t *split,
    size_t base)
{
	size_t rank = sym__shard_in_rank(s, i);
	int *axis_of;

	if (!split)
		return 0;
	axis_of = sym__shard_scratch(s, rank, sizeof(*axis_of));
	if (!axis_of)
		return sym__shard_nomem(s);
	for (size_t d = 0; d < rank; d++)
		axis_of[d] = (int)(base + d);
	return sym__shard_map(s, i, split, axis_of);
}

/* The common tuple step of "s": the device matrix is "split" (the split
 * counts of input "i", all 1 when NULL) with axes "prefix" followed by
 * 0, 1, ..., and dimension d of input "i" is on axis d; 0 or -1. */
int
sym__shard_tuple_input(struct sym__shard *s, const int64_t *split, size_t i,
    const char *prefix)
{
	size_t rank = sym__shard_in_rank(s, i);
	int64_t *sizes = sym__shard_scratch(s, rank, sizeof(*sizes));
	int *axis_of = sym__shard_scratch(s, rank, sizeof(*axis_of));
	const char **names = sym__shard_axis_names(s, prefix, rank);

	if (!sizes || !axis_of || !names)
		return sym__shard_nomem(s);
	for (size_t d = 0; d < rank; d++) {
		sizes[d] = split ? split[d] : 1;
		axis_of[d] = (int)d;
	}
	if (sym__shard_set_mesh(s, rank, sizes, names) < 0)
		return -1;
	return sym__shard_map(s, i, split, axis_of);
}
/* Return an internal reference to output "k" of "s" with its partial
 * sums resolved where they are (AllReduce). */
sym_layout *
sym__shard_resolved(struct sym__shard *s, size_t k)
{
	const sym_layout *l = s->out[k];

	return sym__layout_new(l->mesh, l->rank, l->n,
	    (const int8_t(*)[SYM_MESH_MAX_AXES])l->axes, 0);
}

/* Return an internal reference to output "k" of "s" with its partial
 * axes appended to dimension 0 (ReduceScatter), or NULL when it has rank
 * 0 or runs out of axes. */
sym_layout *
sym__shard_scattered(struct sym__shard *s, size_t k)
{
	const sym_layout *l = s->out[k];
	struct sym__lb b;

	if (l->rank == 0 || sym__lb_init(s, &b, l->rank) < 0)
		return NULL;
	for (size_t d = 0; d < l->rank; d++)
		sym__lb_copy(&b, d, l, d);
	for (size_t i = 0; i < s->n_red[k]; i++)
		lb_add(&b, 0, s->red[k][i]);
	return sym__layout_new(l->mesh, l->rank, b.n,
	    (const int8_t(*)[SYM_MESH_MAX_AXES])b.axes, 0);
}

/* Release what "s" holds (not "s" itself). */
void
sym__shard_clear(struct sym__shard *s)
{
	for (size_t i = 0; s->in && i < s->n_in; i++)
		sym__layout_unref(s->in[i]);
	for (size_t k = 0; s->out && k < s->n_out; k++)
		sym__layout_unref(s->out[k]);
	for (size_t i = 0; i < s->n_note; i++)
		free(s->note[i]);
	while (s->scratch) {
		struct sym__scratch *b = s->scratch;

		s->scratch = b->next;
		free(b);
	}
	sym__mesh_unref(s->mesh);
	free(s->note);
	free(s->error);
	s->in = s->out = NULL;
	s->n_red = NULL;
	s->red = NULL;
	s->note = NULL;
	s->error = NULL;
	s->mesh = NULL;
	s->n_note = s->cap_note = 0;
}

/* The tuple step of the operators sharded by their first input alone:
 * the device matrix is that input's split counts, dimension d on axis
 * "d<d>"; "s" is the run, "split" the split counts by input. */
int
sym__shard_tuple_first(struct sym__shard *s, const int64_t *const *split)
{
	return sym__shard_tuple_input(s, split[0], 0, "d");
}

/* The tuple step of the operators whose operands are all laid out
 * alike: the device matrix is the strategy of the first operand that
 * has one, dimension d on axis d, and every other operand with a
 * strategy must have the same; "s" is the run, "split" the split counts
 * by input. */
int
sym__shard_tuple_alike(struct sym__shard *s, const int64_t *const *split)
{
	size_t first = 0, r = sym__shard_in_rank(s, 0);

	while (first + 1 < s->n_in && !split[first])
		first++;
	if (sym__shard_tuple_input(s, split[first], first, "d") < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++) {
		if (i == first || !split[i])
			continue;
		for (size_t d = 0; d < r; d++)
			if (split[i][d] != split[first][d])
				return sym__shard_fail(s, (int)i, (int)d,
				    "dimension %zu of %s is split %lld way%s, "
				    "but the same dimension of %s %lld way%s: "
				    "the operands of %s must be split alike",
				    d, sym__shard_in_name(s, i),
				    (long long)split[i][d],
				    SYM__WAYS(split[i][d]),
				    sym__shard_in_name(s, first),
				    (long long)split[first][d],
				    SYM__WAYS(split[first][d]),
				    sym_op_name(s->op));
		if (sym__shard_map_from(s, i, split[i], 0) < 0)
			return -1;
	}
	return 0;
}

/* Complete the inputs of "s" that have no layout with the layout of the
 * first that has one (replicated when none has), and check that every
 * input is split like it; return the index of that input, or -1. */
int
sym__shard_complete_alike(struct sym__shard *s)
{
	size_t first = 0, r = sym__shard_in_rank(s, 0);
	struct sym__lb b;

	while (first + 1 < s->n_in && !s->in[first])
		first++;
	if (sym__shard_default_replicated(s, first) < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++) {
		if (s->in[i])
			continue;
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t d = 0; d < r; d++)
			sym__lb_copy(&b, d, s->in[first], d);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t i = 0; i < s->n_in; i++)
		for (size_t d = 0; d < r; d++)
			if (!sym__shard_same_dim(s->in[i], d, s->in[first], d))
				return sym__shard_fail(s, (int)i, (int)d,
				    "dimension %zu of %s is split by %s, but "
				    "the same dimension of %s by %s: the "
				    "operands of %s must be split alike",
				    d, sym__shard_in_name(s, i),
				    sym__shard_axes_txt(s, s->in[i], d),
				    sym__shard_in_name(s, first),
				    sym__shard_axes_txt(s, s->in[first], d),
				    sym_op_name(s->op));
	return (int)first;
}
