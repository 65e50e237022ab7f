/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the trainer's checkpoints (sym_trainer(3),
 * symshard-checkpoint(5)) on 2 ranks without data: the elements of
 * every dtype converted between the executor's storage and the file
 * (f16 and bf16 rounded to nearest even, 1- and 2-byte integers, i64);
 * params of those dtypes saved and loaded; a file of params without
 * optimizer state loaded, the state starting from zeros with a notice;
 * a step count out of range and a param holding an infinity refused;
 * the paths a save refuses; the graph fingerprint that processes
 * compare.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <symshard.h>

#include "ckpt/checkpoint_private.h"
#include "train/trainer_private.h"

#include "testlib.h"

/* The temporary directory of the tests, made by setup. */
static char dir[4096];

/* A graph on 2 devices whose param "k" is of the dtype "%s" and has
 * the initializer "%s"; "w", f32, trains with adam; "k" is frozen. */
static const char mixed[] = "devices 2\n"
                            "symbol b divisor=2\n"
                            "input  x : f32[b, 4]\n"
                            "param  w : f32[4, 4]  init=constant(0.5)\n"
                            "param  k : %s[4, 4]  init=%s frozen\n"
                            "c      = cast(k, dtype=f32)\n"
                            "m      = mul(w, c)\n"
                            "h      = matmul(x, m)  shard ((2, 1), (1, 1))\n"
                            "loss   = reduce_mean(h)\n"
                            "output loss\n"
                            "minimize loss with adam(lr=0.01)\n";

/* A graph on 2 devices whose trained param "w" is of the floating dtype
 * "%s", split in two, with momentum. */
static const char half[] = "devices 2\n"
                           "symbol b divisor=2\n"
                           "input  x : f32[b, 4]\n"
                           "param  w : %s[4, 4]  init=constant(0.1)\n"
                           "xh     = cast(x, dtype=%s)\n"
                           "h      = matmul(xh, w)  shard ((1, 1), (1, 2))\n"
                           "hf     = cast(h, dtype=f32)\n"
                           "loss   = reduce_mean(hf)\n"
                           "output loss\n"
                           "minimize loss with momentum(lr=0.1, "
                           "momentum=0.9)\n";

/* A compiled graph, its trainer and its communicator. */
struct run {
	sym_graph *g;
	sym_plan *p;
	sym_communicator *comm;
	sym_trainer *t;
};

/* Return the path of the file "name" in the temporary directory, in a
 * static buffer of "slot" (0 to 3). */
static const char *
path_of(const char *name, int slot)
{
	static char buf[4][sizeof(dir) + 300];

	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", dir, name);
	return buf[slot];
}

/* Make the temporary directory; "state" is unused. */
static int
setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/test_trainer_ckpt_XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

/* Remove the files "names" (NULL-terminated) and the temporary
 * directory; "state" is unused. */
static int
teardown(void **state)
{
	static const char *const names[] = { "a.safetensors", "b.safetensors",
		NULL };

	(void)state;
	for (size_t i = 0; names[i]; i++)
		remove(path_of(names[i], 0));
	return rmdir(dir);
}

/* Parse the graph "text", shard and compile it, and start its trainer
 * on 2 threads with batches of 4 into "r"; assert that it all works. */
static void
start(sym_ctx *ctx, const char *text, struct run *r)
{
	static const int64_t batch[] = { 4 };
	sym_train_options o = SYM_TRAIN_OPTIONS_INIT;

	r->g = sym_graph_parse(ctx, text, "ck.sg");
	assert_non_null(r->g);
	if (sym_graph_n_errors(r->g)) {
		char *d =
		    sym_diagnostic_format(r->g, sym_graph_diagnostic(r->g, 0));

		print_message("%s\n", d ? d : "?");
		free(d);
	}
	assert_int_equal(sym_graph_n_errors(r->g), 0);
	assert_int_equal(sym_graph_shard(r->g, NULL), 0);
	r->p = sym_plan_compile(r->g, 0);
	assert_non_null(r->p);
	r->comm = sym_comm_threads_new(ctx, 2);
	assert_non_null(r->comm);
	o.batch = batch;
	o.n_batch = 1;
	r->t = sym_trainer_new(ctx, r->p, r->comm, NULL, NULL, &o);
	if (!r->t)
		print_message("trainer: %s\n", sym_ctx_last_message(ctx));
	assert_non_null(r->t);
}

/* Free what "r" holds. */
static void
stop(struct run *r)
{
	sym_trainer_free(r->t);
	sym_comm_free(r->comm);
	sym_plan_free(r->p);
	sym_graph_free(r->g);
}

/* Return the f16 bits "f" is saved as. */
static uint16_t
to_f16(float f)
{
	uint16_t h;

	sym__ckpt_from_storage(SYM_DT_F16, &f, &h, 1);
	return h;
}

/* Return the bf16 bits "f" is saved as. */
static uint16_t
to_bf16(float f)
{
	uint16_t h;

	sym__ckpt_from_storage(SYM_DT_BF16, &f, &h, 1);
	return h;
}

/* Return the f32 the bits "h" of "dt" (f16 or bf16) load as. */
static float
from_half(sym_dtype dt, uint16_t h)
{
	float f;

	assert_int_equal(sym__ckpt_to_storage(dt, &h, &f, 1), SIZE_MAX);
	return f;
}

/* f16 and bf16: the nearest, ties to even, subnormals, overflow to
 * infinity, NaN kept; back exactly. */
static void
test_half_conversion(void **state)
{
	(void)state;
	assert_int_equal(to_f16(1.0f), 0x3c00);
	assert_int_equal(to_f16(-2.0f), 0xc000);
	assert_int_equal(to_f16(0.1f), 0x2e66);
	assert_int_equal(to_f16(65504.0f), 0x7bff);
	assert_int_equal(to_f16(65519.0f), 0x7bff);
	assert_int_equal(to_f16(65520.0f), 0x7c00);
	assert_int_equal(to_f16(-1e9f), 0xfc00);
	assert_int_equal(to_f16(ldexpf(1, -24)), 0x0001);
	assert_int_equal(to_f16(ldexpf(3, -25)), 0x0002);
	assert_int_equal(to_f16(ldexpf(1, -25)), 0x0000);
	assert_int_equal(to_f16(ldexpf(1, -14)), 0x0400);
	assert_int_equal(to_f16(1.0f + ldexpf(1, -11)), 0x3c00);
	assert_int_equal(to_f16(1.0f + ldexpf(3, -11)), 0x3c02);
	assert_int_equal(to_f16(INFINITY), 0x7c00);
	assert_int_equal(to_f16(NAN) & 0x7c00, 0x7c00);
	assert_true((to_f16(NAN) & 0x3ff) != 0);
	assert_int_equal(to_bf16(1.0f), 0x3f80);
	assert_int_equal(to_bf16(0.1f), 0x3dcd);
	assert_int_equal(to_bf16(1.0f + ldexpf(1, -8)), 0x3f80);
	assert_int_equal(to_bf16(1.0f + ldexpf(3, -8)), 0x3f82);
	assert_true(isnan(from_half(SYM_DT_BF16, to_bf16(NAN))));
	assert_true(from_half(SYM_DT_F16, 0x2e66) == 0.0999755859375f);
	assert_true(from_half(SYM_DT_F16, 0x0001) == ldexpf(1, -24));
	assert_true(from_half(SYM_DT_F16, 0x83ff) == -ldexpf(1023, -24));
	assert_true(from_half(SYM_DT_F16, 0x7bff) == 65504.0f);
	assert_true(isinf(from_half(SYM_DT_F16, 0xfc00)));
	assert_true(isnan(from_half(SYM_DT_F16, 0x7e00)));
	assert_true(from_half(SYM_DT_BF16, 0x3dcd) == 0.10009765625f);
}

/* Integers: narrowed to their width when saved, widened back with
 * their sign; i64 beyond 32 bits refused at the first such element. */
static void
test_int_conversion(void **state)
{
	static const int32_t s[3] = { -2, 200, 1 };
	static const int64_t big[3] = { 5, -((int64_t)1 << 31),
		(int64_t)1 << 31 };
	int8_t i8[3];
	uint8_t u8[3];
	int16_t i16[3];
	int64_t i64[3];
	int32_t back[3];

	(void)state;
	sym__ckpt_from_storage(SYM_DT_I8, s, i8, 3);
	sym__ckpt_from_storage(SYM_DT_U8, s, u8, 3);
	sym__ckpt_from_storage(SYM_DT_I16, s, i16, 3);
	sym__ckpt_from_storage(SYM_DT_I64, s, i64, 3);
	assert_int_equal(i8[0], -2);
	assert_int_equal(u8[1], 200);
	assert_int_equal(i16[0], -2);
	assert_int_equal(i64[0], -2);
	assert_int_equal(i64[1], 200);
	assert_int_equal(sym__ckpt_to_storage(SYM_DT_I8, i8, back, 3),
	    SIZE_MAX);
	assert_int_equal(back[0], -2);
	assert_int_equal(sym__ckpt_to_storage(SYM_DT_U8, u8, back, 3),
	    SIZE_MAX);
	assert_int_equal(back[1], 200);
	assert_int_equal(sym__ckpt_to_storage(SYM_DT_I16, i16, back, 3),
	    SIZE_MAX);
	assert_int_equal(back[0], -2);
	assert_int_equal(sym__ckpt_to_storage(SYM_DT_I64, big, back, 3), 2);
	assert_int_equal(back[1], INT32_MIN);
	assert_int_equal(sym__ckpt_storage_size(SYM_DT_F16), 4);
	assert_int_equal(sym__ckpt_storage_size(SYM_DT_BOOL), 1);
}

/* A safetensors data offset is a byte offset: elements of every dtype
 * are converted from and to bytes at an odd address (UBSan's alignment
 * check fails here if they are loaded through a typed pointer). */
static void
test_unaligned_conversion(void **state)
{
	static const sym_dtype dts[] = { SYM_DT_F16, SYM_DT_BF16, SYM_DT_I8,
		SYM_DT_U8, SYM_DT_I16, SYM_DT_I64 };
	static const int32_t ints[3] = { -7, 100, 3 };
	static const float floats[3] = { -1.5f, 0.25f, 3.0f };
	_Alignas(8) unsigned char bytes[1 + 3 * 8];
	union {
		int32_t i[3];
		float f[3];
	} back;

	(void)state;
	for (size_t d = 0; d < sizeof(dts) / sizeof(dts[0]); d++) {
		int is_half = dts[d] == SYM_DT_F16 || dts[d] == SYM_DT_BF16;
		const void *src =
		    is_half ? (const void *)floats : (const void *)ints;

		memset(bytes, 0xa5, sizeof(bytes));
		memset(&back, 0, sizeof(back));
		sym__ckpt_from_storage(dts[d], src, bytes + 1, 3);
		assert_int_equal(bytes[0], 0xa5);
		assert_int_equal(sym__ckpt_to_storage(dts[d], bytes + 1, &back,
		                     3),
		    SIZE_MAX);
		for (int k = 0; k < 3; k++)
			if (is_half)
				assert_true(back.f[k] == floats[k]);
			else
				assert_int_equal(back.i[k],
				    dts[d] == SYM_DT_U8 ? (ints[k] & 0xff)
				                        : ints[k]);
	}
}

/* Assert that tensor "name" of the checkpoint "path" is of "dt", holds
 * 16 elements and that its first element's bytes are "first" ("n"). */
static void
assert_saved(sym_ctx *ctx, const char *path, const char *name, sym_dtype dt,
    const void *first, size_t n)
{
	sym_checkpoint *ck = sym_checkpoint_read(ctx, path);
	size_t i, bytes;
	const char *d;

	assert_non_null(ck);
	i = sym_checkpoint_find(ck, name);
	assert_int_not_equal(i, SIZE_MAX);
	assert_int_equal(sym_checkpoint_tensor_dtype(ck, i), dt);
	d = sym_checkpoint_tensor_data(ck, i, &bytes);
	assert_int_equal(bytes, 16 * sym_dtype_size(dt));
	for (size_t k = 0; k < 16; k++)
		assert_memory_equal(d + k * n, first, n);
	sym_checkpoint_free(ck);
}

/* A frozen param of each narrow or wide integer dtype is saved in its
 * dtype and loaded back, on 2 ranks, into a trainer that started from
 * zeros. */
static void
test_int_params(void **state)
{
	static const struct {
		const char *dt, *init;
		sym_dtype dtype;
		int64_t v;
	} c[] = {
		{ "i8", "constant(-2)", SYM_DT_I8, -2 },
		{ "u8", "constant(200)", SYM_DT_U8, 200 },
		{ "i16", "constant(-300)", SYM_DT_I16, -300 },
		{ "i64", "constant(-7)", SYM_DT_I64, -7 },
		{ "bool", "ones", SYM_DT_BOOL, 1 },
	};
	const char *path = path_of("a.safetensors", 0);

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sym_ctx *ctx = tl_ctx_new(), *ctx2 = tl_ctx_new();
		struct run a, b;
		char text[1024];
		int32_t whole[16];
		uint8_t flags[16];
		sym_train_step st;
		unsigned char first[8];
		int64_t v = c[i].v;

		snprintf(text, sizeof(text), mixed, c[i].dt, c[i].init);
		start(ctx, text, &a);
		assert_int_equal(sym_trainer_step(a.t, &st), 1);
		assert_int_equal(sym_trainer_save(a.t, path), 0);
		stop(&a);
		memcpy(first, &v, sizeof(first)); /* little-endian host */
		if (c[i].dtype != SYM_DT_I64)
			memcpy(first, &(int32_t){ (int32_t)v }, 4);
		if (c[i].dtype == SYM_DT_I8 || c[i].dtype == SYM_DT_U8 ||
		    c[i].dtype == SYM_DT_BOOL)
			first[0] = (unsigned char)(v & 255);
		assert_saved(ctx, path, "k", c[i].dtype, first,
		    sym_dtype_size(c[i].dtype));

		snprintf(text, sizeof(text), mixed, c[i].dt, "zeros");
		start(ctx2, text, &b);
		assert_int_equal(sym_trainer_load(b.t, path), 0);
		if (c[i].dtype == SYM_DT_BOOL) {
			assert_int_equal(sym_trainer_param(b.t, "k", flags,
			                     sizeof(flags)),
			    0);
			for (size_t k = 0; k < 16; k++)
				assert_int_equal(flags[k], 1);
		} else {
			assert_int_equal(sym_trainer_param(b.t, "k", whole,
			                     sizeof(whole)),
			    0);
			for (size_t k = 0; k < 16; k++)
				assert_int_equal(whole[k], v);
		}
		assert_int_equal(sym_trainer_step(b.t, &st), 1);
		stop(&b);
		tl_ctx_free(ctx2);
		tl_ctx_free(ctx);
	}
}

/* A trained f16 or bf16 param, split over 2 ranks, is saved rounded to
 * its dtype, momentum too, and loaded back; a file with 1.0, -2.0, the
 * smallest subnormal and the largest f16 loads exactly. */
static void
test_half_params(void **state)
{
	static const char *const dts[] = { "f16", "bf16" };
	const char *path = path_of("a.safetensors", 0);
	const char *made = path_of("b.safetensors", 1);

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		sym_ctx *ctx = tl_ctx_new(), *ctx2 = tl_ctx_new();
		sym_dtype dt = i ? SYM_DT_BF16 : SYM_DT_F16;
		struct run a, b;
		char text[1024];
		float w[16], trained[16];
		uint16_t init = i ? 0x3dcd : 0x2e66, bits[16];
		sym_train_step st;
		sym_checkpoint *ck;
		static const int64_t dim[2] = { 4, 4 };

		snprintf(text, sizeof(text), half, dts[i], dts[i]);
		start(ctx, text, &a);
		assert_int_equal(sym_trainer_save(a.t, path), 0);
		assert_saved(ctx, path, "w", dt, &init, 2);
		assert_int_equal(sym_trainer_step(a.t, &st), 1);
		assert_int_equal(sym_trainer_param(a.t, "w", trained,
		                     sizeof(trained)),
		    0);
		assert_int_equal(sym_trainer_save(a.t, path), 0);
		stop(&a);

		start(ctx2, text, &b);
		assert_int_equal(sym_trainer_load(b.t, path), 0);
		assert_null(sym_trainer_notice(b.t));
		assert_int_equal(sym_trainer_param(b.t, "w", w, sizeof(w)), 0);
		for (size_t k = 0; k < 16; k++) {
			uint16_t h;

			sym__ckpt_from_storage(dt, &trained[k], &h, 1);
			assert_true(w[k] == from_half(dt, h));
			assert_true(fabsf(w[k] - trained[k]) <=
			    ldexpf(fabsf(trained[k]), i ? -8 : -11));
		}
		for (size_t k = 0; k < 16; k++)
			bits[k] = k % 4 == 0 ? 0x3c00
			    : k % 4 == 1     ? 0xc000
			    : k % 4 == 2     ? 0x0001
			                     : 0x7bff;
		ck = sym_checkpoint_new(ctx);
		assert_int_equal(sym_checkpoint_add(ck, "w", SYM_DT_F16, 2, dim,
		                     bits),
		    0);
		assert_int_equal(sym_checkpoint_write(ck, made), 0);
		sym_checkpoint_free(ck);
		if (dt == SYM_DT_F16) {
			assert_int_equal(sym_trainer_load(b.t, made), 0);
			assert_int_equal(sym_trainer_param(b.t, "w", w,
			                     sizeof(w)),
			    0);
			assert_true(w[4] == 1.0f && w[5] == -2.0f);
			assert_true(w[6] == ldexpf(1, -24) && w[7] == 65504.0f);
		} else {
			assert_int_equal(sym_trainer_load(b.t, made), -1);
			assert_non_null(strstr(sym_ctx_last_message(ctx2),
			    "tensor 'w' is f16, the graph's is bf16"));
		}
		stop(&b);
		tl_ctx_free(ctx2);
		tl_ctx_free(ctx);
	}
}

/* Write to "path" the tensors of "from" whose names "keep" accepts,
 * with "optimizer.step" set to "step" when it is kept. */
static void
rewrite(sym_ctx *ctx, const sym_checkpoint *from, const char *path,
    int (*keep)(const char *), int32_t step)
{
	sym_checkpoint *ck = sym_checkpoint_new(ctx);

	assert_non_null(ck);
	for (size_t i = 0; i < sym_checkpoint_n_tensors(from); i++) {
		const char *name = sym_checkpoint_tensor_name(from, i);
		int64_t dim[8];
		size_t nd = sym_checkpoint_tensor_ndim(from, i);
		const void *d = sym_checkpoint_tensor_data(from, i, NULL);

		if (!keep(name))
			continue;
		for (size_t k = 0; k < nd; k++)
			dim[k] = sym_checkpoint_tensor_dim(from, i, k);
		if (!strcmp(name, "optimizer.step"))
			d = &step;
		assert_int_equal(sym_checkpoint_add(ck, name,
		                     sym_checkpoint_tensor_dtype(from, i), nd,
		                     dim, d),
		    0);
	}
	assert_int_equal(sym_checkpoint_write(ck, path), 0);
	sym_checkpoint_free(ck);
}

/* Return 1: every tensor is kept. */
static int
every(const char *name)
{
	(void)name;
	return 1;
}

/* Return 1 for the params, 0 for the optimizer state. */
static int
params_only(const char *name)
{
	return !strcmp(name, "w") || !strcmp(name, "k");
}

/* A file of params alone loads into a trainer that took a step: the
 * params are the file's, the state (adam's moments, the step count)
 * zeros again, with a notice naming it; without "w" it is an error. */
static void
test_weights_only(void **state)
{
	const char *path = path_of("a.safetensors", 0);
	const char *weights = path_of("b.safetensors", 1);
	sym_ctx *ctx = tl_ctx_new();
	struct run a;
	char text[1024];
	float w[16], m[16];
	int32_t step = -1;
	sym_train_step st;
	sym_checkpoint *ck;

	(void)state;
	snprintf(text, sizeof(text), mixed, "f32", "constant(2)");
	start(ctx, text, &a);
	assert_int_equal(sym_trainer_save(a.t, path), 0);
	ck = sym_checkpoint_read(ctx, path);
	assert_non_null(ck);
	rewrite(ctx, ck, weights, params_only, 0);
	sym_checkpoint_free(ck);
	assert_int_equal(sym_trainer_step(a.t, &st), 1);
	assert_int_equal(sym_trainer_step(a.t, &st), 1);
	assert_int_equal(sym_trainer_param(a.t, "optimizer.step", &step,
	                     sizeof(step)),
	    0);
	assert_int_equal(step, 2);
	assert_int_equal(sym_trainer_load(a.t, weights), 0);
	assert_non_null(sym_trainer_notice(a.t));
	assert_string_equal(sym_trainer_notice(a.t) + strlen(weights),
	    " has no optimizer state (optimizer.step, w.adam_m, w.adam_v): "
	    "it starts from zeros (step 0)");
	assert_int_equal(sym_trainer_param(a.t, "w", w, sizeof(w)), 0);
	assert_int_equal(sym_trainer_param(a.t, "w.adam_m", m, sizeof(m)), 0);
	assert_int_equal(sym_trainer_param(a.t, "optimizer.step", &step,
	                     sizeof(step)),
	    0);
	for (size_t k = 0; k < 16; k++) {
		assert_true(w[k] == 0.5f);
		assert_true(m[k] == 0.0f);
	}
	assert_int_equal(step, 0);
	assert_int_equal(sym_trainer_load(a.t, path), 0);
	assert_null(sym_trainer_notice(a.t));
	stop(&a);
	tl_ctx_free(ctx);

	ctx = tl_ctx_new();
	snprintf(text, sizeof(text),
	    "symbol b\ninput x : f32[b, 4]\nparam v : f32[4, 4]\n"
	    "h = matmul(x, v)\nloss = reduce_mean(h)\noutput loss\n"
	    "minimize loss with sgd(lr=0.1)\n");
	a.g = sym_graph_parse(ctx, text, "v.sg");
	assert_non_null(a.g);
	assert_int_equal(sym_graph_shard(a.g, NULL), 0);
	a.p = sym_plan_compile(a.g, 0);
	a.comm = sym_comm_threads_new(ctx, 1);
	a.t = sym_trainer_new(ctx, a.p, a.comm, NULL, NULL,
	    &(sym_train_options)SYM_TRAIN_OPTIONS_INIT);
	assert_non_null(a.t);
	assert_int_equal(sym_trainer_load(a.t, weights), -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "no tensor 'v' (a param of the graph)"));
	stop(&a);
	tl_ctx_free(ctx);
}

/* A step count that is negative or INT32_MAX is refused on load, and
 * nothing changes; INT32_MAX - 1 loads, and the step after it fails
 * rather than wrapping. */
static void
test_step_range(void **state)
{
	static const int32_t bad[2] = { -1, INT32_MAX };
	const char *path = path_of("a.safetensors", 0);
	const char *edited = path_of("b.safetensors", 1);
	sym_ctx *ctx = tl_ctx_new();
	struct run a;
	char text[1024];
	int32_t step = -1;
	sym_train_step st;
	sym_checkpoint *ck;

	(void)state;
	snprintf(text, sizeof(text), mixed, "f32", "ones");
	start(ctx, text, &a);
	assert_int_equal(sym_trainer_step(a.t, &st), 1);
	assert_int_equal(sym_trainer_save(a.t, path), 0);
	ck = sym_checkpoint_read(ctx, path);
	assert_non_null(ck);
	for (size_t i = 0; i < 2; i++) {
		char want[128];

		rewrite(ctx, ck, edited, every, bad[i]);
		assert_int_equal(sym_trainer_load(a.t, edited), -1);
		snprintf(want, sizeof(want),
		    "optimizer.step is %ld: a step count is from 0 to "
		    "2147483646",
		    (long)bad[i]);
		assert_non_null(strstr(sym_ctx_last_message(ctx), want));
		assert_int_equal(sym_trainer_param(a.t, "optimizer.step", &step,
		                     sizeof(step)),
		    0);
		assert_int_equal(step, 1);
	}
	rewrite(ctx, ck, edited, every, INT32_MAX - 1);
	sym_checkpoint_free(ck);
	assert_int_equal(sym_trainer_load(a.t, edited), 0);
	assert_int_equal(sym_trainer_step(a.t, &st), 1);
	assert_int_equal(sym_trainer_param(a.t, "optimizer.step", &step,
	                     sizeof(step)),
	    0);
	assert_int_equal(step, INT32_MAX);
	assert_int_equal(sym_trainer_step(a.t, &st), -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "the step count is 2147483647, the largest an i32 holds"));
	stop(&a);
	tl_ctx_free(ctx);
}

/* A checkpoint whose param "w" holds an infinity (element 5) is refused
 * on load with the tensor and the element named, and the params stay
 * as they were (issue 21, item 10: NaN is checked by check-train-cli). */
static void
test_infinite_load(void **state)
{
	const char *path = path_of("a.safetensors", 0);
	const char *edited = path_of("b.safetensors", 1);
	sym_ctx *ctx = tl_ctx_new();
	sym_checkpoint *ck, *out;
	struct run a;
	char text[1024];
	float w[16], back[16];
	int64_t dim[2] = { 4, 4 };

	(void)state;
	snprintf(text, sizeof(text), mixed, "f32", "ones");
	start(ctx, text, &a);
	assert_int_equal(sym_trainer_save(a.t, path), 0);
	ck = sym_checkpoint_read(ctx, path);
	assert_non_null(ck);
	out = sym_checkpoint_new(ctx);
	assert_non_null(out);
	for (size_t i = 0; i < sym_checkpoint_n_tensors(ck); i++) {
		const char *name = sym_checkpoint_tensor_name(ck, i);
		int64_t d[8];
		size_t nd = sym_checkpoint_tensor_ndim(ck, i);

		if (!strcmp(name, "w"))
			continue;
		for (size_t k = 0; k < nd; k++)
			d[k] = sym_checkpoint_tensor_dim(ck, i, k);
		assert_int_equal(sym_checkpoint_add(out, name,
		                     sym_checkpoint_tensor_dtype(ck, i), nd, d,
		                     sym_checkpoint_tensor_data(ck, i, NULL)),
		    0);
	}
	for (size_t k = 0; k < 16; k++)
		w[k] = 0.25f;
	w[5] = -INFINITY;
	assert_int_equal(sym_checkpoint_add(out, "w", SYM_DT_F32, 2, dim, w),
	    0);
	assert_int_equal(sym_checkpoint_write(out, edited), 0);
	sym_checkpoint_free(out);
	sym_checkpoint_free(ck);
	assert_int_equal(sym_trainer_load(a.t, edited), -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	    "tensor 'w' holds an infinity at element 5: a checkpoint of a "
	    "diverged run is refused"));
	assert_int_equal(sym_trainer_param(a.t, "w", back, sizeof(back)), 0);
	for (size_t k = 0; k < 16; k++)
		assert_true(back[k] == 0.5f);
	stop(&a);
	tl_ctx_free(ctx);
}

/* Assert that "path" cannot take a checkpoint, the error holding
 * "why". */
static void
assert_refused(sym_ctx *ctx, const char *path, const char *why)
{
	assert_int_equal(sym_checkpoint_check_path(ctx, path), -1);
	assert_non_null(strstr(sym_ctx_last_message(ctx), why));
}

/* The checks of a path before a save: no name, a device (checked
 * only: nothing is written to /dev/null), a symbolic link, a missing
 * directory are refused; a new file and a writable one are not; a save
 * keeps the mode of the file it replaces and replaces a temporary file
 * left behind. */
static void
test_save_path(void **state)
{
	static const int32_t v[1] = { 7 };
	static const int64_t d[1] = { 1 };
	const char *file = path_of("a.safetensors", 0);
	const char *link = path_of("b.safetensors", 1);
	const char *missing = path_of("none/c.safetensors", 2);
	char tmp[sizeof(dir) + 320];
	sym_ctx *ctx = tl_ctx_new();
	sym_checkpoint *ck = sym_checkpoint_new(ctx);
	struct stat st;
	FILE *f;

	(void)state;
	remove(file);
	remove(link);
	assert_refused(ctx, "", "checkpoint: no file name");
	assert_refused(ctx, NULL, "checkpoint: no file name");
	assert_refused(ctx, "/dev/null", "/dev/null: not a regular file");
	assert_refused(ctx, missing, "cannot create a file in");
	assert_int_equal(sym_checkpoint_check_path(ctx, file), 0);
	assert_int_equal(symlink(file, link), 0);
	assert_refused(ctx, link, "a symbolic link");
	assert_int_equal(sym_checkpoint_add(ck, "v", SYM_DT_I32, 1, d, v), 0);
	assert_int_equal(sym_checkpoint_write(ck, link), -1);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(file, &st), -1);

	f = fopen(file, "w");
	assert_non_null(f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(file, 0604), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	assert_non_null(f);
	assert_int_equal(fputs("stale", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(sym_checkpoint_check_path(ctx, file), 0);
	assert_int_equal(sym_checkpoint_write(ck, file), 0);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	assert_true(st.st_size > 0);
	assert_int_equal(stat(tmp, &st), -1);
	sym_checkpoint_free(ck);
	remove(link);
	remove(file);
	tl_ctx_free(ctx);
}

/* Return the graph fingerprint of the 1-device classifier whose
 * optimizer is "opt", w's initializer "init" and whose text starts
 * with "head" (parsed on a context of its own). */
static uint64_t
fingerprint(const char *head, const char *init, const char *opt)
{
	sym_ctx *ctx = tl_ctx_new();
	char text[1024];
	sym_graph *g;
	uint64_t h;

	snprintf(text, sizeof(text),
	    "%ssymbol b\ninput x : f32[b, 4]\ninput y : i32[b]\n"
	    "param w : f32[4, 3]  init=%s\nlogits = matmul(x, w)\n"
	    "loss = softmax_cross_entropy(logits, y)\noutput loss\n"
	    "minimize loss with %s\n",
	    head, init, opt);
	g = sym_graph_parse(ctx, text, "fp.sg");
	assert_non_null(g);
	assert_int_equal(sym_graph_n_errors(g), 0);
	h = sym__graph_fingerprint(g);
	sym_graph_free(g);
	tl_ctx_free(ctx);
	return h;
}

/* The graph fingerprint the processes of mpi compare: equal for texts
 * that differ in comments only, different for another learning rate,
 * momentum, optimizer, initializer or initializer argument. */
static void
test_graph_fingerprint(void **state)
{
	uint64_t h =
	    fingerprint("", "he_uniform", "momentum(lr=0.1, momentum=0.9)");

	(void)state;
	assert_true(fingerprint("# a comment\n\n", "he_uniform",
	                "momentum(lr=0.1,  momentum=0.9)") == h);
	assert_true(fingerprint("", "he_uniform",
	                "momentum(lr=0.2, momentum=0.9)") != h);
	assert_true(fingerprint("", "he_uniform",
	                "momentum(lr=0.1, momentum=0.8)") != h);
	assert_true(fingerprint("", "he_uniform",
	                "sgd(lr=0.1, momentum=0.9)") != h);
	assert_true(fingerprint("", "he_normal",
	                "momentum(lr=0.1, momentum=0.9)") != h);
	assert_true(fingerprint("", "constant(0.1)",
	                "momentum(lr=0.1, momentum=0.9)") !=
	    fingerprint("", "constant(0.2)", "momentum(lr=0.1, momentum=0.9)"));
}

/* Run the tests of the trainer's checkpoints. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_conversion),
		cmocka_unit_test(test_int_conversion),
		cmocka_unit_test(test_unaligned_conversion),
		cmocka_unit_test(test_int_params),
		cmocka_unit_test(test_half_params),
		cmocka_unit_test(test_weights_only),
		cmocka_unit_test(test_step_range),
		cmocka_unit_test(test_infinite_load),
		cmocka_unit_test(test_save_path),
		cmocka_unit_test(test_graph_fingerprint),
	};

	return cmocka_run_group_tests_name("trainer_ckpt", tests, setup,
	    teardown);
}
