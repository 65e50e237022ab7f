/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the executor's CPU kernels: softmax, layer_norm and
 * batch_norm (against values recorded from PyTorch, batch_norm_expect.h). Each kernel
 * is compared with a reference written in double on small random inputs
 * (seeded, so runs repeat), and every check it makes of its tensors is reached
 * by a mismatched call that must fail with -1 and its message (kerntest.h).
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

#include "kern/kernel.h"
#include "shape/shape_private.h"

#include "batch_norm_expect.h"
#include "kerntest.h"
#include "testlib.h"

/* --- normalisation ---------------------------------------------------- */

/* softmax and log_softmax over random axis sets (one axis, neighbouring
 * axes, separated axes: the three code paths), f32 and f64, large
 * logits; bad axes and dtypes. */
static void
test_softmax(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 11;

	(void)state;
	for (int iter = 0; iter < 80; iter++) {
		int r = 1 + iter % 4, lg = iter % 2, na = 0;
		sym_dtype dt = iter / 2 % 3 == 2 ? SYM_DT_F64 : SYM_DT_F32;
		unsigned char mark[4] = { 0 };
		int64_t dx[4], ax[4], cx[4];
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor x, y;
		double *want, *mx, *sum;

		for (int d = 0; d < r; d++) {
			dx[d] = kt_irand(&s, 1, 5);
			if (kt_irand(&s, 0, 2) == 0) {
				mark[d] = 1;
				ax[na++] = kt_irand(&s, 0, 1) ? d - r : d;
			}
		}
		if (na == 0 && iter % 3) {
			mark[r - 1] = 1;
		} else if (na == 0) {
			mark[0] = 1;
			ax[na++] = 0;
		}
		if (na == 1 && iter % 4 < 2)
			sym_attrs_set_int(at, "axis", ax[0]);
		else if (na > 0)
			kt_set_ints(ctx, at, "axis", (size_t)na, ax);
		x = kt_random_tensor(&s, dt, r, dx, -30, 30);
		if (kt_numel(&x) > 1)
			kt_set(&x, 0, 500.0);
		y = kt_tensor(dt, r, dx);
		kt_run(lg ? "log_softmax" : "softmax", at, &x, 1, &y, 1);
		want = kt_doubles(kt_numel(&x));
		mx = kt_doubles(kt_numel(&x));
		sum = kt_doubles(kt_numel(&x));
		for (int64_t i = 0; i < kt_numel(&x); i++)
			mx[i] = -INFINITY;
		for (int pass = 0; pass < 3; pass++)
			for (int64_t i = 0; i < kt_numel(&x); i++) {
				int64_t g;

				kt_unravel(i, r, dx, cx);
				for (int d = 0; d < r; d++)
					cx[d] = mark[d] ? 0 : cx[d];
				g = kt_ravel(r, dx, cx);
				if (pass == 0)
					mx[g] = fmax(mx[g], kt_get(&x, i));
				else if (pass == 1)
					sum[g] += exp(kt_get(&x, i) - mx[g]);
				else
					want[i] = lg
					    ? kt_get(&x, i) - mx[g] -
					        log(sum[g])
					    : exp(kt_get(&x, i) - mx[g]) /
					        sum[g];
			}
		kt_check_tensor(&y, want, kt_tol(dt, TOL_F32_FN * 4),
		    lg ? "log_softmax" : "softmax");
		free(want);
		free(mx);
		free(sum);
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 };
		struct sym__tensor x = kt_tensor(SYM_DT_I32, 2, dx);
		struct sym__tensor y = kt_tensor(SYM_DT_I32, 2, dx);
		sym_attrs *at = kt_attrs(ctx);

		kt_fails("softmax", NULL, &x, 1, &y, 1,
		    "the input must have a floating dtype, not i32");
		kt_set_ints(ctx, at, "axis", 0, NULL);
		kt_decode_fails("log_softmax", at, &x, 1, 1,
		    "attribute axis of log_softmax must name at least one axis");
		sym_attrs_set_int(at, "axis", -3);
		kt_decode_fails("softmax", at, &x, 1, 1,
		    "axis=-3 is out of range for input 0 of rank 2");
		kt_free_all(&x, 1);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* layer_norm with every pair of begin_norm_axis / begin_params_axis on
 * ranks 1 to 4 (negative and positive), epsilon given as a float or an
 * integer or defaulted, 1 or 3 outputs, f32 and f64; bad parameters. */
static void
test_layer_norm(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 77;

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		int r = 1 + iter % 4, nout = iter % 2 ? 3 : 1;
		int norm = (int)kt_irand(&s, 0, r - 1),
		    par = (int)kt_irand(&s, 0, r - 1);
		sym_dtype dt = iter % 3 == 2 ? SYM_DT_F64 : SYM_DT_F32;
		int64_t dx[4], ds[4];
		double eps = iter % 4 == 1 ? 0.5 : iter % 4 == 2 ? 2.0 : 1e-5;
		sym_attrs *at = kt_attrs(ctx);
		struct sym__tensor in[3], out[3];
		double *want, *wm, *wv;
		int64_t n = 1, p = 1, rows;

		for (int d = 0; d < r; d++) {
			dx[d] = kt_irand(&s, 1, 5);
			ds[d] = d < norm ? dx[d] : 1;
			n *= d >= norm ? dx[d] : 1;
			p *= d >= par ? dx[d] : 1;
		}
		if (iter % 4 == 1)
			sym_attrs_set_float(at, "epsilon", eps);
		else if (iter % 4 == 2)
			sym_attrs_set_int(at, "epsilon", 2);
		if (norm != r - 1 || iter % 3)
			sym_attrs_set_int(at, "begin_norm_axis",
			    iter % 2 ? norm : norm - r);
		if (par != r - 1 || iter % 3)
			sym_attrs_set_int(at, "begin_params_axis",
			    iter % 3 ? par : par - r);
		in[0] = kt_random_tensor(&s, dt, r, dx, -3, 3);
		in[1] = kt_random_tensor(&s, dt, r - par, dx + par, 0.5, 2);
		in[2] = kt_random_tensor(&s, dt, r - par, dx + par, -1, 1);
		out[0] = kt_tensor(dt, r, dx);
		out[1] = kt_tensor(dt, r, ds);
		out[2] = kt_tensor(dt, r, ds);
		kt_run("layer_norm", at, in, 3, out, nout);
		rows = kt_numel(&in[0]) / n;
		want = kt_doubles(kt_numel(&in[0]));
		wm = kt_doubles(rows);
		wv = kt_doubles(rows);
		for (int64_t row = 0; row < rows; row++) {
			double m = 0, v = 0;

			for (int64_t j = 0; j < n; j++)
				m += kt_get(&in[0], row * n + j);
			m /= (double)n;
			for (int64_t j = 0; j < n; j++)
				v += pow(kt_get(&in[0], row * n + j) - m, 2);
			v /= (double)n;
			wm[row] = m;
			wv[row] = v;
			for (int64_t j = 0; j < n; j++) {
				int64_t i = row * n + j;

				want[i] = (kt_get(&in[0], i) - m) /
				        sqrt(v + eps) * kt_get(&in[1], i % p) +
				    kt_get(&in[2], i % p);
			}
		}
		kt_check_tensor(&out[0], want, kt_tol(dt, TOL_F32_FN * 4),
		    "layer_norm");
		if (nout == 3) {
			kt_check_tensor(&out[1], wm, kt_tol(dt, TOL_F32_FN),
			    "mean");
			kt_check_tensor(&out[2], wv, kt_tol(dt, TOL_F32_FN),
			    "variance");
		}
		free(want);
		free(wm);
		free(wv);
		kt_free_all(in, 3);
		kt_free_all(out, 3);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 }, dg[] = { 2 }, ds[] = { 2, 3 };
		struct sym__tensor in[3], out[3];
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_tensor(SYM_DT_F32, 2, dx);
		in[1] = kt_tensor(SYM_DT_F32, 1, dg);
		in[2] = kt_tensor(SYM_DT_F32, 1, dg);
		out[0] = kt_tensor(SYM_DT_F32, 2, dx);
		out[1] = kt_tensor(SYM_DT_F32, 2, ds);
		out[2] = kt_tensor(SYM_DT_F32, 2, ds);
		kt_fails("layer_norm", NULL, in, 3, out, 1,
		    "gamma must have the dims of x from dim 1 on");
		kt_decode_fails("layer_norm", NULL, in, 3, 2,
		    "layer_norm produces 1 output (y) or 3 (y, mean, variance), but 2 are named");
		sym__tensor_free(&in[1]);
		sym__tensor_free(&in[2]);
		dg[0] = 3;
		in[1] = kt_tensor(SYM_DT_F32, 1, dg);
		in[2] = kt_tensor(SYM_DT_F64, 1, dg);
		kt_fails("layer_norm", NULL, in, 3, out, 1,
		    "x is f32 but beta is f64");
		sym__tensor_free(&in[2]);
		in[2] = kt_tensor(SYM_DT_F32, 1, dg);
		kt_fails("layer_norm", NULL, in, 3, out, 3,
		    "output 1 must have the dims of x before dim 1, then 1s");
		sym_attrs_set_string(at, "epsilon", "small");
		kt_decode_fails("layer_norm", at, in, 3, 1,
		    "attribute epsilon of layer_norm must be a number");
		kt_free_all(in, 3);
		kt_free_all(out, 3);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* --- batch_norm ------------------------------------------------------- */

/* The values of one PyTorch case of batch_norm_expect.h. */
struct bn_case {
	int rank;
	int64_t dim[4];
	double momentum, eps;
	const double *y_train, *rm_next, *rv_next, *dx_train, *dg_train,
	    *db_train, *y_eval, *dx_eval, *dg_eval;
};

/* Fill "t" (x when "chan" > 0: that many channels of "s" elements
 * each, else dy) as gen_batch_norm.py does. */
static void
bn_fill(struct sym__tensor *t, int64_t chan, int64_t s)
{
	for (int64_t i = 0; i < kt_numel(t); i++)
		kt_set(t, i,
		    chan ? 2 * sin(1.3 * (double)i + 0.5) +
		            0.3 * (double)((i / s) % chan)
		         : cos(0.9 * (double)i));
}

/* The attributes of case "k" in "ctx", training=false when "eval". */
static sym_attrs *
bn_attrs(sym_ctx *ctx, const struct bn_case *k, int eval)
{
	sym_attrs *at = kt_attrs(ctx);

	sym_attrs_set_float(at, "momentum", k->momentum);
	sym_attrs_set_float(at, "epsilon", k->eps);
	if (eval)
		sym_attrs_set_bool(at, "training", 0);
	return at;
}

/* Run batch_norm_stats, batch_norm, batch_norm_update and both
 * gradients on case "k" in dtype "dt" and compare with PyTorch's
 * values: training mode, training=false, and an evaluation
 * (args->eval) of the training-mode operators. */
static void
bn_check_case(sym_ctx *ctx, const struct bn_case *k, sym_dtype dt)
{
	int64_t c = k->dim[1], s = 1, vd[1] = { k->dim[1] }, sd[2] = { 3, c };
	struct sym__tensor x = kt_tensor(dt, k->rank, k->dim);
	struct sym__tensor dy = kt_tensor(dt, k->rank, k->dim);
	struct sym__tensor v[4], st = kt_tensor(SYM_DT_F64, 2, sd), y, dx,
	                         upd[2], gp[2], in[8];
	double tol = kt_tol(dt, 2e-5);
	struct sym__kernel_args a;

	for (int d = 2; d < k->rank; d++)
		s *= k->dim[d];
	bn_fill(&x, c, s);
	bn_fill(&dy, 0, 1);
	for (int i = 0; i < 4; i++)
		v[i] = kt_tensor(dt, 1, vd);
	for (int64_t j = 0; j < c; j++) {
		kt_set(&v[0], j, 1 + 0.25 * (double)j);
		kt_set(&v[1], j, 0.1 * (double)j - 0.2);
		kt_set(&v[2], j, 0.05 * (double)j);
		kt_set(&v[3], j, 1 + 0.5 * (double)j);
	}
	y = kt_tensor(dt, k->rank, k->dim);
	dx = kt_tensor(dt, k->rank, k->dim);
	for (int i = 0; i < 2; i++) {
		upd[i] = kt_tensor(dt, 1, vd);
		gp[i] = kt_tensor(dt, 1, vd);
	}
	for (int eval = 0; eval < 2; eval++) {
		sym_attrs *at = bn_attrs(ctx, k, eval);

		kt_run("batch_norm_stats", at, &x, 1, &st, 1);
		in[0] = x;
		memcpy(in + 1, v, sizeof(v));
		in[5] = st;
		kt_run("batch_norm", at, in, 6, &y, 1);
		kt_check_tensor(&y, eval ? k->y_eval : k->y_train, tol,
		    "batch_norm y");
		in[0] = v[2];
		in[1] = v[3];
		in[2] = st;
		kt_run("batch_norm_update", at, in, 3, upd, 2);
		for (int64_t j = 0; j < c; j++) {
			kt_check_close(kt_get(&upd[0], j),
			    eval ? 0.05 * (double)j : k->rm_next[j], tol,
			    "running_mean", j);
			kt_check_close(kt_get(&upd[1], j),
			    eval ? 1 + 0.5 * (double)j : k->rv_next[j], tol,
			    "running_var", j);
		}
		in[0] = dy;
		in[1] = x;
		in[2] = st;
		in[3] = v[2];
		in[4] = v[3];
		kt_run("batch_norm_grad_params", at, in, 5, gp, 2);
		kt_check_tensor(&gp[0], eval ? k->dg_eval : k->dg_train, tol,
		    "dgamma");
		kt_check_tensor(&gp[1], k->db_train, tol, "dbeta");
		in[5] = v[0];
		in[6] = gp[0];
		in[7] = gp[1];
		kt_run("batch_norm_grad", at, in, 8, &dx, 1);
		kt_check_tensor(&dx, eval ? k->dx_eval : k->dx_train, tol,
		    "dx");
		sym_attrs_free(at);
	}
	/* the executor's evaluation of training-mode operators */
	{
		sym_attrs *at = bn_attrs(ctx, k, 0);

		in[0] = x;
		memcpy(in + 1, v, sizeof(v));
		in[5] = st;
		a = kt_args("batch_norm", at, in, 6, &y, 1);
		a.eval = 1;
		kt_run_args("batch_norm", &a);
		kt_release(&a);
		kt_check_tensor(&y, k->y_eval, tol, "batch_norm y (eval)");
		in[0] = v[2];
		in[1] = v[3];
		in[2] = st;
		a = kt_args("batch_norm_update", at, in, 3, upd, 2);
		a.eval = 1;
		kt_run_args("batch_norm_update", &a);
		kt_release(&a);
		for (int64_t j = 0; j < c; j++) {
			kt_check_close(kt_get(&upd[0], j), 0.05 * (double)j,
			    tol, "running_mean kept", j);
			kt_check_close(kt_get(&upd[1], j), 1 + 0.5 * (double)j,
			    tol, "running_var kept", j);
		}
		/* one value per channel cannot train */
		kt_set(&st, 0, 1);
		kt_fails("batch_norm_update", at, in, 3, upd, 2,
		    "training needs more than 1 value per channel");
		sym_attrs_free(at);
	}
	kt_free_all(v, 4);
	kt_free_all(upd, 2);
	kt_free_all(gp, 2);
	sym__tensor_free(&x);
	sym__tensor_free(&dy);
	sym__tensor_free(&st);
	sym__tensor_free(&y);
	sym__tensor_free(&dx);
}

/* batch_norm and its kin against PyTorch (torch.nn.functional.batch_norm,
 * training and evaluation, the running statistics after the update),
 * NCHW and NC, f32 and f64; bad attributes and operands. */
static void
test_batch_norm(void **state)
{
	static const struct bn_case cases[] = {
		{ 4, { 3, 4, 5, 2 }, 0.1, 1e-5, nchw_y_train, nchw_rm_next,
		    nchw_rv_next, nchw_dx_train, nchw_dg_train, nchw_db_train,
		    nchw_y_eval, nchw_dx_eval, nchw_dg_eval },
		{ 2, { 6, 3 }, 0.3, 0.01, nc_y_train, nc_rm_next, nc_rv_next,
		    nc_dx_train, nc_dg_train, nc_db_train, nc_y_eval,
		    nc_dx_eval, nc_dg_eval },
	};
	sym_ctx *ctx = tl_ctx_new();
	int64_t d4[4] = { 2, 3, 2, 2 }, d1[1] = { 3 }, d2[1] = { 4 };
	struct sym__tensor in[6], y;
	sym_attrs *at;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bn_check_case(ctx, &cases[i], SYM_DT_F32);
		bn_check_case(ctx, &cases[i], SYM_DT_F64);
	}
	at = kt_attrs(ctx);
	in[0] = kt_tensor(SYM_DT_F32, 4, d4);
	for (int i = 1; i < 5; i++)
		in[i] = kt_tensor(SYM_DT_F32, 1, i == 3 ? d2 : d1);
	sym_attrs_set_float(at, "momentum", 1.5);
	kt_decode_fails("batch_norm", at, in, 5, 1,
	    "attribute momentum of batch_norm (1.5) must be in [0, 1]");
	sym_attrs_set_float(at, "momentum", 0.1);
	sym_attrs_set_float(at, "epsilon", 0);
	kt_decode_fails("batch_norm", at, in, 5, 1,
	    "attribute epsilon of batch_norm must be positive");
	sym_attrs_free(at);
	in[5] = kt_tensor(SYM_DT_F64, 2, (int64_t[]){ 3, 3 });
	y = kt_tensor(SYM_DT_F32, 4, d4);
	kt_fails("batch_norm", NULL, in, 6, &y, 1,
	    "operand 3 must be a vector of the 3 channels of x");
	kt_free_all(in, 6);
	sym__tensor_free(&y);
	tl_ctx_free(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_softmax),
		cmocka_unit_test(test_layer_norm),
		cmocka_unit_test(test_batch_norm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
