/* SPDX-License-Identifier: MIT */
/*
 * Every gradient rule against central finite differences, in f64, on one
 * device: for a graph computing y from params, the loss is the sum of y
 * times a fixed random tensor r (so that every element of y matters with
 * its own weight); the gradients the differentiated graph computes must
 * equal (L(p + h) - L(p - h)) / 2h at sampled elements of every param,
 * to a relative error of 1e-6, with symbolic sizes bound to several
 * values on one plan and broadcasting on the way.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#define H 1e-5
#define TOL 1e-6
#define SAMPLES 9

/* A case: the graph (its params, the output "y" of shape "yshape" and
 * whatever inputs) and the sizes of "b" to bind. */
struct gcase {
	const char *name, *text, *yshape;
};

static const struct gcase cases[] = {
	{ "matmul",
	    "param x : f64[b, 3]\nparam w : f64[3, 4]\nparam v : f64[5, 3]\n"
	    "m = matmul(x, w)\nn = matmul(v, x, transpose_b=true)\n"
	    "q = matmul(n, m)\ny = matmul(q, w, transpose_b=true)\n",
	    "[5, 3]" },
	{ "batch_matmul",
	    "param a : f64[2, b, 3]\nparam c : f64[3, 4]\n"
	    "param d : f64[2, 4, 2]\n"
	    "m = batch_matmul(a, c)\ny = batch_matmul(m, d)\n",
	    "[2, b, 2]" },
	{ "arithmetic",
	    "param p : f64[b, 4]\nparam q : f64[4]\nparam s : f64[b, 1]\n"
	    "e = exp(q)\na = add(p, q)\nm = mul(a, s)\nd = div(m, e)\n"
	    "y = sub(d, p)\n",
	    "[b, 4]" },
	{ "unary",
	    "param p : f64[b, 5]\n"
	    "r1 = relu(p)\ng = gelu(p)\nt = tanh(g)\ns = sigmoid(t)\n"
	    "n = neg(s)\ni = identity(n)\nc = cast(i, dtype=\"f64\")\n"
	    "e = exp(p)\nl = log(e)\nq = sqrt(e)\nu = add(c, r1)\n"
	    "v = mul(l, q)\ny = add(u, v)\n",
	    "[b, 5]" },
	{ "maths",
	    "param p : f64[b, 4]\nparam q : f64[4]\n"
	    "e = exp(p)\nr1 = rsqrt(e)\nr2 = reciprocal(e)\na = abs(p)\n"
	    "f = floor(p)\nc = ceil(p)\nsg = sign(p)\ner = erf(p)\n"
	    "cl = clip(p, min=-0.5, max=0.5)\nsi = silu(p)\n"
	    "sp = softplus(p, beta=2, threshold=1)\n"
	    "gt = gelu(p, approximate=\"tanh\")\npw = pow(e, q)\n"
	    "u1 = add(r1, r2)\nu2 = mul(u1, a)\nu3 = add(u2, f)\n"
	    "u4 = mul(u3, c)\nu5 = add(u4, sg)\nu6 = mul(u5, er)\n"
	    "u7 = add(u6, cl)\nu8 = mul(u7, si)\nu9 = add(u8, sp)\n"
	    "u10 = mul(u9, gt)\ny = add(u10, pw)\n",
	    "[b, 4]" },
	{ "where",
	    "param p : f64[b, 4]\nparam q : f64[4]\nparam s : f64[b, 1]\n"
	    "c = greater(p, q)\nd = less_equal(s, q)\nn = logical_not(d)\n"
	    "o = logical_or(c, n)\ne = equal(p, p)\nf = not_equal(o, e)\n"
	    "g = greater_equal(q, s)\nh = less(s, p)\nm = logical_and(f, g)\n"
	    "k = logical_or(m, h)\nw = where(k, p, q)\nv = where(c, s, w)\n"
	    "y = mul(v, w)\n",
	    "[b, 4]" },
	{ "bias_add",
	    "param x : f64[b, 3, 2]\nparam k : f64[3]\nparam z : f64[2]\n"
	    "a = bias_add(x, k)\ny = bias_add(a, z, data_format=\"NHWC\")\n",
	    "[b, 3, 2]" },
	{ "layout",
	    "param x : f64[b, 2, 3]\n"
	    "r = reshape(x, [-1, 6])\nf = flatten(x)\nt = transpose(x, [2, 0, "
	    "1])\np = permute(t, [1, 2, 0])\ne = expand_dims(p, axis=1)\n"
	    "s = squeeze(e, axis=1)\ng = reshape(s, [b, 6])\n"
	    "a = add(r, f)\ny = mul(a, g)\n",
	    "[b, 6]" },
	{ "reduce",
	    "param x : f64[b, 3, 4]\n"
	    "s = reduce_sum(x, axis=[0, 2], keep_dims=true)\n"
	    "m = reduce_mean(x, axis=1)\nx2 = reduce_max(x, axis=[1])\n"
	    "t = sum_to(x, [1, 4])\nu = mul(m, x2)\nv = mul(s, t)\n"
	    "w = reshape(v, [3, 4])\nz = reduce_sum(u)\nq = mul(w, z)\n"
	    "y = reduce_mean(q, axis=0, keep_dims=false)\n",
	    "[4]" },
	{ "softmax_cross_entropy",
	    "param x : f64[b, 5]\nparam w : f64[5, 4]\ninput i : i32[b]\n"
	    "l = matmul(x, w)\na = softmax_cross_entropy(l, i)\n"
	    "s = softmax_cross_entropy(l, i, reduction=\"sum\")\n"
	    "n = softmax_cross_entropy(l, i, reduction=\"none\")\n"
	    "k = reduce_sum(n, axis=0, keep_dims=true)\n"
	    "m = mul(a, s)\ny = add(m, k)\n",
	    "[1]" },
	{ "softmax_cross_entropy_vocab_parallel",
	    "param x : f64[b, 5]\nparam w : f64[5, 4]\ninput i : i32[b]\n"
	    "l = matmul(x, w)\n"
	    "a = softmax_cross_entropy(l, i, ignore_index=-1, "
	    "vocab_parallel=1)\n"
	    "s = softmax_cross_entropy(l, i, reduction=\"sum\", "
	    "vocab_parallel=1)\n"
	    "y = mul(a, s)\n",
	    "[]" },
	{ "norm",
	    "param x : f64[b, 3, 6]\nparam g1 : f64[6]\nparam b1 : f64[6]\n"
	    "param g2 : f64[3, 6]\nparam b2 : f64[3, 6]\n"
	    "p = softmax(x)\nq = log_softmax(x, axis=1)\n"
	    "n1 = layer_norm(x, g1, b1)\n"
	    "n2 = layer_norm(q, g2, b2, begin_norm_axis=1, "
	    "begin_params_axis=1, epsilon=0.01)\n"
	    "a = add(p, n1)\ny = mul(a, n2)\n",
	    "[b, 3, 6]" },
	{ "batch_norm",
	    "param x : f64[b, 3, 2, 2]\nparam g : f64[3]\nparam be : f64[3]\n"
	    "param v : f64[b, 3]\nstate rm : f64[3] init=constant(0.2)\n"
	    "state rv : f64[3] init=constant(1.5)\n"
	    "state sm : f64[3] init=constant(-0.1)\nstate sv : f64[3] init=ones\n"
	    "n1 = batch_norm(x, g, be, rm, rv, momentum=0.3)\n"
	    "n2 = batch_norm(n1, g, be, sm, sv, training=false)\n"
	    "n3 = batch_norm(v, g, be, sm, sv, epsilon=0.01, training=false)\n"
	    "e = expand_dims(n3, axis=2)\nf = expand_dims(e, axis=3)\n"
	    "y = mul(n2, f)\n",
	    "[b, 3, 2, 2]" },
	{ "extremum",
	    "param x : f64[b, 4]\nparam u : f64[4]\nparam v : f64[b, 1]\n"
	    "m = maximum(x, u)\nn = minimum(m, v)\ny = mul(n, x)\n",
	    "[b, 4]" },
	{ "conv2d",
	    "param x : f64[b, 2, 5, 5]\nparam k1 : f64[4, 2, 3, 3]\n"
	    "param k2 : f64[4, 2, 2, 3]\n"
	    "h = conv2d(x, k1, pad=[1, 0, 2, 1], stride=[1, 2])\n"
	    "y = conv2d(h, k2, group=2, dilation=[2, 1])\n",
	    "[b, 4, 2, 1]" },
	{ "pool",
	    "param x : f64[b, 2, 7, 6]\n"
	    "m = max_pool2d(x, kernel=[3, 2], stride=[2, 1], pad=1, "
	    "dilation=[1, 2], ceil_mode=true)\n"
	    "a = avg_pool2d(m, kernel=3, stride=2, pad=1, ceil_mode=true, "
	    "count_include_pad=false)\n"
	    "p = avg_pool2d(m, kernel=2, pad=[1, 0])\n"
	    "g = global_avg_pool(a)\nq = global_avg_pool(p)\n"
	    "s = add(g, q)\ny = mul(a, s)\n",
	    "[b, 2, 3, 4]" },
	{ "dropout",
	    "param x : f64[b, 6]\nparam w : f64[6]\n"
	    "d = dropout(x, p=0.3)\ne = dropout(d, p=0.5)\ny = mul(e, w)\n",
	    "[b, 6]" },
	{ "concat",
	    "param x : f64[b, 5]\nparam w : f64[b, 5]\n"
	    "c = concat(x, w, axis=1)\np, q, r, t, o = split(c, axis=1, "
	    "output_num=5)\ne = exp(q)\nd = concat(t, p, e, axis=0)\n"
	    "u = mul(p, r)\nv = reshape(d, [3, b, 2])\nz = reduce_sum(v, "
	    "axis=0)\ng = concat(x, p, axis=1)\nk = exp(g)\n"
	    "h = reduce_sum(k, axis=1, keep_dims=true)\nm = mul(u, z)\n"
	    "y = mul(m, h)\n",
	    "[b, 2]" },
	{ "slice",
	    "param x : f64[b, 6]\nparam w : f64[3, b, 2]\n"
	    "s = slice(x, begin=[0, 1], size=[-1, 3])\n"
	    "t = slice(x, begin=[0, 2], size=[-1, 4])\n"
	    "u = slice(w, begin=[1, 0, 1], size=[2, -1, 1])\n"
	    "r = reduce_sum(t, axis=1, keep_dims=true)\nv = reshape(u, [2, "
	    "b])\nq = reduce_sum(v, axis=0)\nk = reshape(q, [b, 1])\n"
	    "m = mul(s, r)\ny = mul(m, k)\n",
	    "[b, 3]" },
	{ "slice with steps",
	    "param x : f64[b, 7]\n"
	    "s = slice(x, begin=[0, 1], size=[-1, 3], step=[1, 2])\n"
	    "t = slice(x, begin=[0, 0], size=[-1, 3], step=[1, -3])\n"
	    "e = exp(t)\ny = mul(s, e)\n",
	    "[b, 3]" },
	{ "gather",
	    "param tab : f64[7, 3]\nparam q : f64[4, 6]\n"
	    "input ids : i32[b, 2]\ninput ix : i32[b]\n"
	    "e = embedding(ids, tab)\ng = gather(q, ix, axis=1)\n"
	    "r = reduce_sum(e, axis=1)\ns = matmul(g, r)\ny = mul(s, s)\n",
	    "[4, 3]" },
	{ "index",
	    "param x : f64[b, 4]\nparam u : f64[4]\nparam v : f64[b, 1]\n"
	    "param w : f64[b, 3]\n"
	    "e = expand(u, [b, 4])\nf = expand(v, [-1, 4])\n"
	    "p = pad(w, [0, 0, -1, 2], value=0.5)\n"
	    "t = tile(x, [1, 2])\nq = reduce_prod(t, axis=1, keep_dims=true)\n"
	    "c = cumsum(x, axis=1)\n"
	    "d = cumsum(x, axis=0, reverse=true, exclusive=true)\n"
	    "l = tril(c, diagonal=1)\nk = triu(d)\n"
	    "n = reduce_min(w, axis=1, keep_dims=true)\n"
	    "a1 = mul(e, f)\na2 = mul(p, l)\na3 = add(a1, a2)\n"
	    "a4 = add(a3, k)\na5 = mul(a4, q)\ny = mul(a5, n)\n",
	    "[b, 4]" },
	{ "tile_pad",
	    "param x : f64[b, 3]\nparam z : f64[2, 3]\n"
	    "t = tile(x, [2, 3])\nr = reshape(t, [2, b, 9])\n"
	    "s = reduce_sum(r, axis=0)\n"
	    "p = pad(z, [1, -1, 2, 4], value=-2)\nm = reduce_prod(p, axis=0)\n"
	    "y = mul(s, m)\n",
	    "[b, 9]" },
};

/* The graph text of case "c": its params and y, the weights r, the loss
 * and the optimizer (learning rate 0: the update keeps the params). */
static char *
full_text(const struct gcase *c)
{
	size_t n = strlen(c->text) + 512;
	char *t = malloc(n);

	assert_non_null(t);
	snprintf(t, n,
	    "symbol b min=1 max=64\n%sinput rweight : f64%s\nyr = mul(y, rweight)\n"
	    "loss = reduce_sum(yr)\noutput loss\nminimize loss with sgd(0)\n",
	    c->text, c->yshape);
	return t;
}

/* Return the local data of value "name" of the plan "p" run by "x", its
 * number of doubles in "*n". */
static double *
data_of(sym_exec *x, const sym_plan *p, sym_graph *g, const char *name,
    size_t *n)
{
	const sym_value *v = sym_graph_find_value(g, name);
	size_t bytes = 0;
	double *d;

	assert_non_null(v);
	d = sym_exec_data(x, sym_plan_value_tensor(p, v), &bytes);
	assert_non_null(d);
	*n = bytes / sizeof(double);
	return d;
}

/* Run "x" and return the loss. */
static double
loss_of(sym_exec *x, const sym_plan *p, sym_graph *g)
{
	size_t n;

	assert_int_equal(sym_exec_run(x), 0);
	return *data_of(x, p, g, "loss", &n);
}

/* Check the gradient of every trained param of the graph of "x" (plan
 * "p", graph "g") at sampled elements against central differences;
 * "what" names the case for messages. */
static void
check_params(sym_exec *x, const sym_plan *p, sym_graph *g, const char *what)
{
	for (size_t k = 0; k < sym_graph_n_trained(g); k++) {
		const char *pn = sym_value_name(sym_graph_trained(g, k));
		char gname[64];
		size_t n, ng;
		double *v = data_of(x, p, g, pn, &n), *grad;

		snprintf(gname, sizeof(gname), "%s.grad", pn);
		(void)loss_of(x, p, g);
		grad = data_of(x, p, g, gname, &ng);
		assert_int_equal(ng, n);
		grad = memcpy(malloc(n * sizeof(double) + 1), grad,
		    n * sizeof(double));
		for (size_t s = 0; s < SAMPLES && s < n; s++) {
			size_t j = n <= SAMPLES ? s : (s * 7919) % n;
			double keep = v[j], lp, lm, fd, err;

			v[j] = keep + H;
			lp = loss_of(x, p, g);
			v[j] = keep - H;
			lm = loss_of(x, p, g);
			v[j] = keep;
			fd = (lp - lm) / (2 * H);
			err = fabs(fd - grad[j]);
			if (err >
			    TOL * fmax(1.0, fmax(fabs(fd), fabs(grad[j]))))
				fail_msg("%s: d loss / d %s[%zu] = %.12g by "
				         "differences, %.12g by the gradient",
				    what, pn, j, fd, grad[j]);
		}
		free(grad);
	}
}

/* Case "c": differentiate, compile one plan for one device, then at
 * each of the "n" sizes "bs" of b bind it, run and compare. */
static void
check_case(const struct gcase *c, const int64_t *bs, size_t n)
{
	sym_ctx *ctx = sym_ctx_new();
	char *text = full_text(c), what[96];
	sym_graph *g = sym_graph_parse(ctx, text, c->name);
	sym_binding *b = sym_binding_new(ctx);
	sym_plan *p;
	sym_slices *s;
	sym_exec *x;

	assert_non_null(g);
	if (sym_graph_n_errors(g) || sym_graph_shard(g, NULL) < 0)
		fail_msg("%s: %s", c->name,
		    sym_graph_n_diagnostics(g)
		        ? sym_graph_diagnostic(g,
		              sym_graph_n_diagnostics(g) - 1)
		              ->message
		        : "?");
	p = sym_plan_compile(g, SYM_PLAN_SINGLE);
	assert_non_null(p);
	s = sym_slices_new(p);
	x = sym_exec_new(ctx, p, NULL);
	assert_non_null(x);
	for (size_t k = 0; k < n; k++) {
		snprintf(what, sizeof(what), "%s at b = %lld", c->name,
		    (long long)bs[k]);
		assert_int_equal(sym_binding_set(b, sym_symbol_find(ctx, "b"),
		                     bs[k]),
		    0);
		assert_int_equal(sym_plan_bind(p, b, s), 0);
		assert_int_equal(sym_exec_prepare(x, s), 0);
		assert_int_equal(sym_exec_fill(x, 11 + (uint64_t)bs[k]), 0);
		check_params(x, p, g, what);
	}
	sym_exec_free(x);
	sym_slices_free(s);
	sym_plan_free(p);
	sym_binding_free(b);
	sym_graph_free(g);
	free(text);
	assert_int_equal(sym_ctx_report_live(ctx, NULL), 0);
	sym_ctx_free(ctx);
}

/* Every case at three sizes of b on one plan each. */
static void
test_finite_differences(void **state)
{
	static const int64_t bs[] = { 1, 2, 5 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i], bs, sizeof(bs) / sizeof(bs[0]));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finite_differences),
	};

	return cmocka_run_group_tests_name("gradcheck", tests, NULL, NULL);
}
