/*
 * Gradient rules of the concat family. split's outputs are equal parts
 * of its input along the axis, so its gradient is their gradients
 * concatenated back, zeros standing for the parts no gradient reaches.
 * concat's gradient splits the output's back into the inputs' parts;
 * split makes equal parts only, so the rule asks that every input have
 * the same size along the axis (the same expression) and says so when
 * they do not. slice's gradient is slice_grad: zeros of the input's
 * shape with the output's gradient in the sliced box.
 */
#include <stdlib.h>

#include "grad/grad_private.h"

/* The rule of split: dx = concat(dy_0, ..., dy_k-1, axis), dy_j =
 * fill_like(y_j, 0) where no gradient flows; "gr", "n", "dy" as for
 * every rule (grad_private.h). */
static int
grad_split(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t k = n->n_out;
	sym_value **in = calloc(k + 1, sizeof(*in));
	int *mirror = calloc(k + 1, sizeof(*mirror));
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
	r = sym__gemit(gr, 2, "concat", k, in, at, sym__gtarget(gr, 0), mirror)
	    ? 0
	    : -1;
done:
	free(in);
	free(mirror);
	sym_attrs_free(zero);
	sym_attrs_free(at);
	return r;
}

/* The rule of concat: the inputs' gradients are the equal parts of
 * split(dy, axis, output_num = inputs); inputs that need none take a
 * part that nothing reads. */
static int
grad_concat(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t k = n->n_in, axis = n->at.concat.axis, need = 0;
	const sym_shape *s0 = sym__value_shape(n->in[0]);
	const char **names = calloc(k + 1, sizeof(*names));
	sym_value **out = calloc(k + 1, sizeof(*out));
	int mirror = SYM__MIRROR_OUT(0), r = -1;
	sym_attrs *at = sym__gattrs(gr);

	for (size_t j = 0; j < k; j++)
		need += sym__gtarget(gr, j) != NULL;
	if (need == 0) {
		r = 0;
		goto done;
	}
	for (size_t j = 1; j < k; j++)
		if (!sym_expr_is_equal(s0->dim[axis],
		        sym__value_shape(n->in[j])->dim[axis])) {
			size_t t = 0;

			while (!sym__gtarget(gr, t))
				t++;
			sym__gnone(gr, t,
			    "the inputs of concat differ in size along the "
			    "axis; its gradient splits equal parts only");
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
	sym_attrs_free(at);
	return r;
}

/* The rule of slice: dx = slice_grad(dy, x) with slice's attributes. */
static int
grad_slice(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[2] = { dy[0], n->in[0] };
	int mirror[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(0) };

	if (!sym__gtarget(gr, 0))
		return 0;
	return sym__gemit(gr, 1, "slice_grad", 2, in, n->attrs,
	           sym__gtarget(gr, 0), mirror)
	    ? 0
	    : -1;
}

const sym__grad_rule sym__grad_concat[SYM__N_OPS] = {
	[SYM__OP_SLICE] = grad_slice,
	[SYM__OP_CONCAT] = grad_concat,
	[SYM__OP_SPLIT] = grad_split,
};
