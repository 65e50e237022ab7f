/* SPDX-License-Identifier: MIT */
/*
 * examples/gpt.sg's loss and every param's gradient on one device against
 * PyTorch: tests/data/gpt_grad.safetensors (made by tests/gen_gpt_grad.py)
 * holds the weights, one padded batch (b = 8, s = 24, labels -100 on the
 * pads), the loss and the gradients computed in float64. The plan runs in
 * f32, so each gradient is compared with a tolerance relative to the
 * largest magnitude of that gradient (GPT_RTOL).
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

#include "testlib.h"

#define GPT_RTOL 1e-4

/* The text of the file "path" (NUL-terminated), or fail. */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

/* The data of tensor "name" of "ck" and its size in "*bytes". */
static const void *
tensor(const sym_checkpoint *ck, const char *name, size_t *bytes)
{
	size_t i = sym_checkpoint_find(ck, name);

	if (i >= sym_checkpoint_n_tensors(ck))
		fail_msg("fixture has no tensor %s", name);
	return sym_checkpoint_tensor_data(ck, i, bytes);
}

static void
test_gpt_grad_single(void **state)
{
	char path[1024];
	sym_ctx *ctx = sym_ctx_new();
	sym_checkpoint *ck;
	sym_graph *g;
	sym_plan *p;
	sym_binding *b = sym_binding_new(ctx);
	sym_slices *sl;
	sym_exec *x;
	char *text;
	const char *srcdir = getenv("top_srcdir");
	size_t n, bytes, checked = 0;
	double worst = 0;
	const float *want;
	float loss, loss_want;

	(void)state;
	if (!srcdir)
		srcdir = ".";
	snprintf(path, sizeof(path), "%s/examples/gpt.sg", srcdir);
	text = slurp(path);
	snprintf(path, sizeof(path), "%s/tests/data/gpt_grad.safetensors",
	    srcdir);
	ck = sym_checkpoint_read(ctx, path);
	if (!ck)
		fail_msg("%s", sym_ctx_last_message(ctx));
	g = sym_graph_parse(ctx, text, "gpt.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	assert_int_equal(sym_graph_shard(g, NULL), 0);
	p = sym_plan_compile(g, SYM_PLAN_SINGLE);
	assert_non_null(p);
	sl = sym_slices_new(p);
	assert_int_equal(sym_binding_parse(b, "b=8,s=24", NULL), 0);
	assert_int_equal(sym_plan_bind(p, b, sl), 0);
	x = sym_exec_new(p, NULL, ctx);
	assert_non_null(x);
	assert_int_equal(sym_exec_prepare(x, sl), 0);
	n = sym_checkpoint_n_tensors(ck);
	for (size_t i = 0; i < n; i++) {
		const char *name = sym_checkpoint_tensor_name(ck, i);
		const void *d;

		if (!strncmp(name, "grad.", 5) || !strcmp(name, "loss"))
			continue;
		d = sym_checkpoint_tensor_data(ck, i, &bytes);
		if (sym_exec_set_whole(x, name, d, bytes) < 0)
			fail_msg("%s: %s", name, sym_ctx_last_message(ctx));
	}
	if (sym_exec_run(x) < 0)
		fail_msg("run: %s", sym_ctx_last_message(ctx));
	want = tensor(ck, "loss", &bytes);
	loss_want = want[0];
	memcpy(&loss, sym_exec_value_data(x, "loss", NULL), sizeof(loss));
	if (fabs(loss - loss_want) > 1e-5 * fabs(loss_want))
		fail_msg("loss %.9g, PyTorch %.9g", loss, loss_want);
	for (size_t i = 0; i < n; i++) {
		const char *name = sym_checkpoint_tensor_name(ck, i);
		const sym_value *v, *gv;
		const float *got;
		size_t m, gbytes;
		double scale = 0, err = 0;

		if (strncmp(name, "grad.", 5))
			continue;
		want = sym_checkpoint_tensor_data(ck, i, &bytes);
		v = sym_graph_find_value(g, name + 5);
		assert_non_null(v);
		gv = sym_value_grad(v);
		if (!gv)
			fail_msg("%s has no gradient", name + 5);
		got = sym_exec_value_data(x, sym_value_name(gv), &gbytes);
		if (!got)
			fail_msg("gradient of %s not kept", name + 5);
		assert_int_equal(gbytes, bytes);
		m = bytes / sizeof(float);
		for (size_t k = 0; k < m; k++)
			scale = fmax(scale, fabs(want[k]));
		for (size_t k = 0; k < m; k++)
			err = fmax(err, fabs(got[k] - want[k]));
		if (err > GPT_RTOL * scale)
			fail_msg("%s: max error %g, largest %g", name, err,
			    scale);
		worst = fmax(worst, err / (scale > 0 ? scale : 1));
		checked++;
	}
	assert_int_equal(checked, 25);
	print_message("loss %.9g (PyTorch %.9g), 25 gradients, worst "
	              "relative error %g\n",
	    loss, loss_want, worst);
	sym_exec_free(x);
	sym_slices_free(sl);
	sym_binding_free(b);
	sym_plan_free(p);
	sym_graph_free(g);
	sym_checkpoint_free(ck);
	free(text);
	sym_ctx_free(ctx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpt_grad_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
