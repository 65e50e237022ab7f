/* SPDX-License-Identifier: MIT */
/*
 * examples/gpt.sg's loss and every param's gradient on one device against
 * PyTorch: tests/data/gpt_grad.safetensors (made by tests/gen_gpt_grad.py)
 * holds the weights, one padded batch (b = 8, s = 24, labels -100 on the
 * pads), the loss and the gradients computed in float64. The plan runs in
 * f32, so each gradient is compared with a tolerance relative to the
 * largest magnitude of that gradient (GPT_RTOL). The same fixture runs
 * on 8 ranks (threads): examples/gpt.sg data parallel, and
 * examples/gpt_tp.sg's Megatron tensor parallelism (2 x 4, with the
 * vocabulary-parallel embedding and the class-split cross entropy); the
 * loss and every gradient, gathered whole, meet the same tolerances.
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
/* The params of gpt.sg, each with a gradient in the fixture. */
#define GPT_N_GRADS 25

/* The data of tensor "name" of "ck" and its size in "*bytes". */
static const void *
tensor(const sym_checkpoint *ck, const char *name, size_t *bytes)
{
	size_t i = sym_checkpoint_find(ck, name);

	if (i >= sym_checkpoint_n_tensors(ck))
		fail_msg("fixture has no tensor %s", name);
	return sym_checkpoint_tensor_data(ck, i, bytes);
}

/* What a run gives to compare: the loss and each param's gradient,
 * whole (every entry NULL until set), in the fixture's order of the
 * gradients. */
struct result {
	float loss;
	const char *name[GPT_N_GRADS]; /* "grad.NAME" of the fixture */
	float *grad[GPT_N_GRADS];
	size_t bytes[GPT_N_GRADS];
	size_t n;
};

/* The fixture, read once, and the graph of one example compiled for one
 * device and sharded over its devices. */
struct fixture {
	sym_ctx *ctx;
	sym_checkpoint *ck;
	sym_graph *g;
	sym_plan *p;
	sym_binding *b;
	sym_slices *sl;
};

/* Parse examples/"file", shard it by its own strategies and compile it
 * for one device ("single") or its devices into "f", bound to the
 * fixture's b = 8, s = 24. */
static void
fixture_open(struct fixture *f, const char *file, int single)
{
	const char *top = getenv("top_srcdir");
	char path[4096], *text;

	memset(f, 0, sizeof(*f));
	f->ctx = sym_ctx_new();
	assert_non_null(f->ctx);
	snprintf(path, sizeof(path), "%s/tests/data/gpt_grad.safetensors",
	    top && *top ? top : ".");
	f->ck = sym_checkpoint_read(f->ctx, path);
	if (!f->ck)
		fail_msg("%s", sym_ctx_last_message(f->ctx));
	snprintf(path, sizeof(path), "examples/%s", file);
	text = tl_read_source(path, NULL);
	f->g = sym_graph_parse(f->ctx, text, file);
	free(text);
	assert_non_null(f->g);
	assert_int_equal(sym_graph_n_errors(f->g), 0);
	if (sym_graph_shard(f->g, NULL) != 0)
		fail_msg("%s: %s", file, sym_ctx_last_message(f->ctx));
	f->p = sym_plan_compile(f->g, single ? SYM_PLAN_SINGLE : 0);
	if (!f->p)
		fail_msg("%s: %s", file, sym_ctx_last_message(f->ctx));
	f->sl = sym_slices_new(f->p);
	f->b = sym_binding_new(f->ctx);
	assert_non_null(f->sl);
	assert_non_null(f->b);
	assert_int_equal(sym_binding_parse(f->b, "b=8,s=24", NULL), 0);
	assert_int_equal(sym_plan_bind(f->p, f->b, f->sl), 0);
}

/* Release what "f" holds. */
static void
fixture_close(struct fixture *f)
{
	sym_slices_free(f->sl);
	sym_binding_free(f->b);
	sym_plan_free(f->p);
	sym_graph_free(f->g);
	sym_checkpoint_free(f->ck);
	sym_ctx_free(f->ctx);
}

/* Set every param and input of "x" from the fixture of "f"; 0 or -1
 * (the error on "ctx"). */
static int
load_fixture(const struct fixture *f, sym_exec *x)
{
	size_t n = sym_checkpoint_n_tensors(f->ck), bytes;

	for (size_t i = 0; i < n; i++) {
		const char *name = sym_checkpoint_tensor_name(f->ck, i);
		const void *d;

		if (!strncmp(name, "grad.", 5) || !strcmp(name, "loss"))
			continue;
		d = sym_checkpoint_tensor_data(f->ck, i, &bytes);
		if (sym_exec_set_whole(x, name, d, bytes) < 0)
			return -1;
	}
	return 0;
}

/* The name of the gradient of param "name" in the graph of "f", or
 * NULL. */
static const char *
grad_name(const struct fixture *f, const char *name)
{
	const sym_value *v = sym_graph_find_value(f->g, name);
	const sym_value *gv = v ? sym_value_grad(v) : NULL;

	return gv ? sym_value_name(gv) : NULL;
}

/* Free the gradients of "r". */
static void
result_clear(struct result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->grad[i]);
	memset(r, 0, sizeof(*r));
}

/* Compare the loss and every gradient of "r" with PyTorch's in the
 * fixture of "f"; "what" names the run in the messages. */
static void
compare(const struct fixture *f, const struct result *r, const char *what)
{
	size_t bytes, checked = 0;
	const float *want = tensor(f->ck, "loss", &bytes);
	float loss_want = want[0];
	double worst = 0;

	if (fabs(r->loss - loss_want) > 1e-5 * fabs(loss_want))
		fail_msg("%s: loss %.9g, PyTorch %.9g", what, r->loss,
		    loss_want);
	for (size_t i = 0; i < r->n; i++) {
		const float *got = r->grad[i];
		double scale = 0, err = 0;
		size_t m;

		want = tensor(f->ck, r->name[i], &bytes);
		if (!got)
			fail_msg("%s: %s not gathered", what, r->name[i]);
		assert_int_equal(r->bytes[i], bytes);
		m = bytes / sizeof(float);
		for (size_t k = 0; k < m; k++)
			scale = fmax(scale, fabs(want[k]));
		for (size_t k = 0; k < m; k++)
			err = fmax(err, fabs(got[k] - want[k]));
		if (err > GPT_RTOL * scale)
			fail_msg("%s: %s: max error %g, largest %g", what,
			    r->name[i], err, scale);
		worst = fmax(worst, err / (scale > 0 ? scale : 1));
		checked++;
	}
	assert_int_equal(checked, GPT_N_GRADS);
	print_message("%s: loss %.9g (PyTorch %.9g), %zu gradients, worst "
	              "relative error %g\n",
	    what, r->loss, loss_want, checked, worst);
}

/* Start "r" with the names and whole sizes of the fixture's gradients. */
static void
result_init(const struct fixture *f, struct result *r)
{
	size_t n = sym_checkpoint_n_tensors(f->ck), bytes;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		const char *name = sym_checkpoint_tensor_name(f->ck, i);

		if (strncmp(name, "grad.", 5))
			continue;
		assert_true(r->n < GPT_N_GRADS);
		sym_checkpoint_tensor_data(f->ck, i, &bytes);
		r->name[r->n] = name;
		r->bytes[r->n] = bytes;
		r->grad[r->n] = calloc(1, bytes);
		assert_non_null(r->grad[r->n]);
		r->n++;
	}
	assert_int_equal(r->n, GPT_N_GRADS);
}

/* examples/gpt.sg on one device: loss and gradients against PyTorch. */
static void
test_gpt_grad_single(void **state)
{
	struct fixture f;
	struct result r;
	sym_exec *x;

	(void)state;
	fixture_open(&f, "gpt.sg", 1);
	result_init(&f, &r);
	x = sym_exec_new(f.ctx, f.p, NULL);
	assert_non_null(x);
	assert_int_equal(sym_exec_prepare(x, f.sl), 0);
	if (load_fixture(&f, x) < 0 || sym_exec_run(x) < 0)
		fail_msg("run: %s", sym_ctx_last_message(f.ctx));
	memcpy(&r.loss, sym_exec_value_data(x, "loss", NULL), sizeof(r.loss));
	for (size_t i = 0; i < r.n; i++) {
		const char *gn = grad_name(&f, r.name[i] + 5);
		size_t bytes;
		const void *got;

		if (!gn)
			fail_msg("%s has no gradient", r.name[i] + 5);
		got = sym_exec_value_data(x, gn, &bytes);
		if (!got)
			fail_msg("gradient of %s not kept", r.name[i] + 5);
		assert_int_equal(bytes, r.bytes[i]);
		memcpy(r.grad[i], got, bytes);
	}
	compare(&f, &r, "gpt.sg, 1 device");
	result_clear(&r);
	sym_exec_free(x);
	fixture_close(&f);
}

/* One sharded run: the fixture and what rank 0 gathers. */
struct sharded {
	const struct fixture *f;
	struct result *r;
};

/* Rank "m" of the sharded run "arg" (a struct sharded): set the
 * fixture, run one step, gather the loss and every gradient whole
 * (collectives: every rank gathers, rank 0 keeps them); 0 or -1. */
static int
run_rank(struct tl_member *m, void *arg)
{
	struct sharded *sh = arg;
	struct result *r = sh->r;
	sym_exec *x = sym_exec_new(m->ctx, sh->f->p, m->ep);
	float loss;
	void *buf = NULL;
	int rc = -1;

	if (!x)
		return tl_failed(m, "new: %s", sym_ctx_last_message(m->ctx));
	if (sym_exec_prepare(x, sh->f->sl) < 0 || load_fixture(sh->f, x) < 0 ||
	    sym_exec_run(x) < 0) {
		tl_failed(m, "run: %s", sym_ctx_last_message(m->ctx));
		goto out;
	}
	if (sym_exec_gather_whole(x, "loss", &loss, sizeof(loss)) < 0) {
		tl_failed(m, "loss: %s", sym_ctx_last_message(m->ctx));
		goto out;
	}
	if (m->rank == 0)
		r->loss = loss;
	for (size_t i = 0; i < r->n; i++) {
		const char *gn = grad_name(sh->f, r->name[i] + 5);

		free(buf);
		buf = malloc(r->bytes[i]);
		if (!gn || !buf) {
			tl_failed(m, "%s: no gradient", r->name[i]);
			goto out;
		}
		if (sym_exec_gather_whole(x, gn, buf, r->bytes[i]) < 0) {
			tl_failed(m, "%s: %s", gn,
			    sym_ctx_last_message(m->ctx));
			goto out;
		}
		if (m->rank == 0)
			memcpy(r->grad[i], buf, r->bytes[i]);
	}
	rc = 0;
out:
	free(buf);
	sym_exec_free(x);
	return rc;
}

/* The fixture on the 8 devices of examples/"file" (threads as ranks),
 * sharded by its strategies: the loss and every gradient, gathered
 * whole, against PyTorch's at the tolerances of one device. */
static void
check_sharded(const char *file, const char *what)
{
	struct fixture f;
	struct result r;
	struct sharded sh;
	struct tl_team t;

	fixture_open(&f, file, 0);
	assert_int_equal(sym_plan_n_ranks(f.p), 8);
	result_init(&f, &r);
	tl_team_init(&t, 8, 20000);
	sh.f = &f;
	sh.r = &r;
	tl_team_run(&t, 8, run_rank, &sh);
	compare(&f, &r, what);
	tl_team_clear(&t);
	result_clear(&r);
	fixture_close(&f);
}

/* examples/gpt.sg data parallel on 8 ranks (b split 8 ways). */
static void
test_gpt_grad_data_parallel(void **state)
{
	(void)state;
	check_sharded("gpt.sg", "gpt.sg, 8 ranks data parallel");
}

/* examples/gpt_tp.sg on 8 ranks: Megatron's tensor parallelism 2 x 4,
 * the vocabulary-parallel embedding and the class-split cross entropy. */
static void
test_gpt_grad_tensor_parallel(void **state)
{
	(void)state;
	check_sharded("gpt_tp.sg", "gpt_tp.sg, 8 ranks 2x4 tensor parallel");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpt_grad_single),
		cmocka_unit_test(test_gpt_grad_data_parallel),
		cmocka_unit_test(test_gpt_grad_tensor_parallel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
