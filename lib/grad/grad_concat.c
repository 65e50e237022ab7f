/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the concat family. split's outputs are equal parts
 * of its input along the axis, so its gradient is their gradients
 * concatenated back, zeros standing for the parts no gradient reaches.
 * concat's gradient splits the output's back into the inputs' parts:
 * with split when they have one size along the axis (the same
 * expression), with slices when their sizes are constants; otherwise
 * the rule says it has none. slice's gradient is slice_grad: zeros of the input's
 * shape with the output's gradient in the sliced box.
 */
#include <stdlib.h>

#include "grad/grad_private.h"

/* The rule of split: dx = concat(dy_0, ..., dy_k-1, axis), dy_j =
 * fill_like(y_j, 0) where no gradient flows; "gr", "n", "dy" as for
 * every rule (grad_private.h). */
int
sym__grad_split(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t k = n->n_out;
	sym_value **in = sym__calloc(gr->ctx, k + 1, sizeof(*in));
	int *mirror = sym__calloc(gr->ctx, k + 1, sizeof(*mirror));
	sym_attrs *zero = sym__gattrs(gr), *at = sym__gattrs(gr);
	int r = -1;

	if (!sym__gtarget(gr, 0)) {
		r = 0;
		goto done;
	}
	if (!in || !mirror || !zero || !at ||
	    sym_attrs_set_float(zero, "value", 0.0) < 0 ||
	    sym_attrs_set_int(at, "axis", (int64_t)n->at.concat.axis) < 0) {
		sym__graph_ctx_error(gr->g, &n->loc);
		goto done;
	}
	for (size_t j = 0; j < k; j++) {
		int m = SYM__MIRROR_OUT(j);

		mirror[j] = m;
		in[j] = dy[j] ? dy[j]
		              : sym__gemit(gr, 1, "fill_like", 1, &n->out[j],
		                    zero, NULL, &m);
		if (!in[j])
			goto done;
	}
	r = sym__gemit_to(gr, 0, 2, "concat", k, in, at, mirror);
done:
	free(in);
	free(mirror);
	sym_attrs_free(zero);
	sym_attrs_free(at);
	return r;
}

/* The rule of concat when the inputs' sizes along the axis are the
 * constants "len": input j's gradient is slice(dy) at its offset. */
static int
concat_slices(struct sym__grad *gr, sym_node *n, sym_value *dy,
    const int64_t *len)
{
	size_t rank = sym_shape_ndim(sym__value_shape(n->in[0]));
	size_t axis = n->at.concat.axis;
	sym_expr **b = sym__calloc(gr->ctx, 2 * rank + 1, sizeof(*b));
	sym_expr **z = b + rank;
	int64_t off = 0;
	int mirror = SYM__MIRROR_OUT(0), r = 0;

	for (size_t j = 0; r == 0 && j < n->n_in; off += len[j], j++) {
		sym_attrs *at;
		size_t k = 0;

		if (!sym__gtarget(gr, j))
			continue;
		for (; b && k < rank; k++) {
			b[k] = sym_expr_const(gr->ctx, k == axis ? off : 0);
			z[k] = sym_expr_const(gr->ctx, k == axis ? len[j] : -1);
			if (!b[k] || !z[k]) {
				sym_expr_free(b[k]);
				sym_expr_free(z[k]);
				break;
			}
		}
		at = sym__gattrs(gr);
		if (!b || k < rank || !at ||
		    sym_attrs_set_list(at, "begin", rank, b) < 0 ||
		    sym_attrs_set_list(at, "size", rank, z) < 0)
			r = sym__graph_ctx_error(gr->g, &n->loc);
		else if (!sym__gemit(gr, 1, "slice", 1, &dy, at,
		             sym__gtarget(gr, j), &mirror))
			r = -1;
		for (size_t d = 0; d < k; d++) {
			sym_expr_free(b[d]);
			sym_expr_free(z[d]);
		}
		sym_attrs_free(at);
	}
	free(b);
	return r;
}

/* The rule of concat: the inputs' gradients are the equal parts of
 * split(dy, axis, output_num = inputs) when the inputs have one size
 * along the axis, or slices of dy when their sizes are constants;
 * inputs that need none take a part that nothing reads. */
int
sym__grad_concat(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t k = n->n_in, axis = n->at.concat.axis, need = 0;
	const sym_shape *s0 = sym__value_shape(n->in[0]);
	const char **names = sym__calloc(gr->ctx, k + 1, sizeof(*names));
	sym_value **out = sym__calloc(gr->ctx, k + 1, sizeof(*out));
	int64_t *len = sym__calloc(gr->ctx, k + 1, sizeof(*len));
	int mirror = SYM__MIRROR_OUT(0), r = -1, equal = 1, constant = 1;
	sym_attrs *at = sym__gattrs(gr);

	for (size_t j = 0; j < k; j++) {
		const sym_expr *d = sym__value_shape(n->in[j])->dim[axis];

		need += sym__gtarget(gr, j) != NULL;
		equal &= sym_expr_is_equal(s0->dim[axis], d) == SYM_TRUE;
		constant &= len && sym_expr_get_const(d, &len[j]) == 0;
	}
	if (need == 0) {
		r = 0;
		goto done;
	}
	if (!equal && constant) {
		r = concat_slices(gr, n, dy[0], len);
		goto done;
	}
	if (!equal) {
		size_t t = 0;

		while (!sym__gtarget(gr, t))
			t++;
		sym__gnone(gr, t,
		    "the inputs of concat differ in size along the axis and "
		    "not all sizes are constants; its gradient splits equal "
		    "parts or slices constant ones");
		goto done;
	}
	if (!names || !out || !at ||
	    sym_attrs_set_int(at, "axis", (int64_t)axis) < 0 ||
	    sym_attrs_set_int(at, "output_num", (int64_t)k) < 0) {
		sym__graph_ctx_error(gr->g, &n->loc);
		goto done;
	}
	for (size_t j = 0; j < k; j++)
		names[j] = sym__gtarget(gr, j);
	r = sym__gemit_n(gr, 1, "split", 1, &dy[0], at, k, names, &mirror, out);
done:
	free(names);
	free(out);
	free(len);
	sym_attrs_free(at);
	return r;
}

/* The rule of slice: dx = slice_grad(dy, x) with slice's attributes. */
int
sym__grad_slice(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[2] = { dy[0], n->in[0] };
	int mirror[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(0) };

	return sym__gemit_to(gr, 0, 1, "slice_grad", 2, in, n->attrs, mirror);
}
