/*
 * Unit tests of the executor's CPU kernels: the softmax cross entropy loss.
 * Each kernel is compared with a reference written in double on small random
 * inputs (seeded, so runs repeat), and every check it makes of its tensors is
 * reached by a mismatched call that must fail with -1 and its message
 * (kerntest.h).
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

#include "exec/kernel.h"
#include "shape/shape_private.h"

#include "kerntest.h"
#include "testlib.h"

/* --- loss ------------------------------------------------------------- */

/* softmax_cross_entropy with reductions none / sum / mean, and a batch
 * split in blocks whose partial means (normalizer: the global batch) add
 * up to the whole mean; bad labels and shapes. */
static void
test_loss(void **state)
{
	static const char *const reds[] = { "mean", "sum", "none", NULL };
	sym_ctx *ctx = tl_ctx_new();
	uint64_t s = 21;

	(void)state;
	for (int iter = 0; iter < 32; iter++) {
		const char *red = reds[iter % 4];
		int none = red && !strcmp(red, "none"),
		    blocks = 1 + iter / 4 % 2 * 3;
		int64_t nb = kt_irand(&s, 1, 5), n = nb * blocks,
		        c = kt_irand(&s, 1, 9);
		int64_t dx[] = { n, c }, dl[] = { n }, bx[] = { nb, c },
		        bl[] = { nb };
		sym_dtype dt = iter % 8 >= 4 ? SYM_DT_F64 : SYM_DT_F32;
		struct sym__tensor x = kt_random_tensor(&s, dt, 2, dx, -10, 10);
		struct sym__tensor l =
		    kt_random_tensor(&s, SYM_DT_I32, 1, dl, 0, (double)c - 1);
		sym_attrs *at = kt_attrs(ctx);
		double *loss = kt_doubles(n), total = 0.0, got = 0.0;

		if (red)
			sym_attrs_set_string(at, "reduction", red);
		kt_set(&x, 0, 80.0);
		for (int64_t i = 0; i < n; i++) {
			double m = -INFINITY, z = 0.0;

			for (int64_t j = 0; j < c; j++)
				m = fmax(m, kt_get(&x, i * c + j));
			for (int64_t j = 0; j < c; j++)
				z += exp(kt_get(&x, i * c + j) - m);
			loss[i] = log(z) + m -
			    kt_get(&x, i * c + (int64_t)kt_get(&l, i));
			total += loss[i];
		}
		if (!red || !strcmp(red, "mean"))
			total /= (double)n;
		for (int b = 0; b < blocks; b++) {
			struct sym__tensor in[2], y;
			struct sym__kernel_args a;

			in[0] = kt_tensor(dt, 2, bx);
			in[1] = kt_tensor(SYM_DT_I32, 1, bl);
			for (int64_t i = 0; i < nb * c; i++)
				kt_set(&in[0], i, kt_get(&x, b * nb * c + i));
			for (int64_t i = 0; i < nb; i++)
				kt_set(&in[1], i, kt_get(&l, b * nb + i));
			y = kt_tensor(dt, none, bl);
			a = kt_args("softmax_cross_entropy", at, in, 2, &y, 1);
			if (blocks > 1)
				a.normalizer = n;
			kt_run_args("softmax_cross_entropy", &a);
			if (none)
				kt_check_tensor(&y, loss + b * nb,
				    kt_tol(dt, TOL_F32_FN * 4), "loss none");
			else
				got += kt_get(&y, 0);
			kt_free_all(in, 2);
			kt_free_all(&y, 1);
		}
		if (!none)
			kt_check_close(got, total, kt_tol(dt, TOL_F32_FN * 4),
			    "loss", 0);
		free(loss);
		kt_free_all(&x, 1);
		kt_free_all(&l, 1);
		sym_attrs_free(at);
	}
	{
		int64_t dx[] = { 2, 3 }, dl[] = { 2 }, d3[] = { 3 };
		struct sym__tensor in[2], y = kt_tensor(SYM_DT_F32, 0, NULL);
		sym_attrs *at = kt_attrs(ctx);

		in[0] = kt_tensor(SYM_DT_F32, 2, dx);
		in[1] = kt_tensor(SYM_DT_I32, 1, dl);
		((int32_t *)in[1].data)[1] = 3;
		kt_fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "label 3 of row 1 is out of range [0, 3)");
		((int32_t *)in[1].data)[1] = -1;
		kt_fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "label -1 of row 1");
		sym_attrs_set_string(at, "reduction", "none");
		kt_fails("softmax_cross_entropy", at, in, 2, &y, 1,
		    "the output must be [N]");
		sym_attrs_set_string(at, "reduction", "max");
		kt_decode_fails("softmax_cross_entropy", at, in, 2, 1,
		    "must be \"mean\", \"sum\" or \"none\", not \"max\"");
		sym__tensor_free(&in[1]);
		in[1] = kt_tensor(SYM_DT_I32, 1, d3);
		kt_fails("softmax_cross_entropy", NULL, in, 2, &y, 1,
		    "the logits must be [N, C] and the labels [N]");
		kt_fails("softmax_cross_entropy", NULL,
		    (struct sym__tensor[]){ in[0], in[0] }, 2, &y, 1,
		    "the logits must be [N, C]");
		kt_free_all(in, 2);
		kt_free_all(&y, 1);
		sym_attrs_free(at);
	}
	tl_ctx_free(ctx);
}

/* Run the tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
