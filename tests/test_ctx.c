/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the ctx family: options, error texts and error state, live
 * objects, scopes and facts, and two contexts used from two threads.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>
#include <symshard/version.h>

#include "testlib.h"

/* Iterations of the workload each thread runs in test_two_threads. */
#define N_ITER 24

/* Return the symbol "name" of "ctx" with divisor "divisor" (other fields
 * default) and "unique"; fail the test when it cannot be declared. */
static sym_symbol *
declare(sym_ctx *ctx, const char *name, int64_t divisor, int unique)
{
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	sym_symbol *s;

	info.divisor = divisor;
	info.unique = unique;
	s = sym_symbol_new(ctx, name, &info, NULL);
	assert_non_null(s);
	return s;
}

/* Assert that "ctx" holds no live object, then free it. */
static void
free_ctx(sym_ctx *ctx)
{
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	sym_ctx_free(ctx);
}

/* Check the default value of every option; "state" is unused. */
static void
test_option_defaults(void **state)
{
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	assert_int_equal(sym_ctx_get_option(ctx,
	                     SYM_CTX_OPT_ISL_MAX_OPERATIONS),
	    200000);
	assert_int_equal(sym_ctx_get_option(ctx, SYM_CTX_OPT_WITNESS), 1);
	assert_int_equal(sym_ctx_get_option(ctx, SYM_CTX_OPT_EXACT_TIER), 1);
	assert_int_equal(sym_ctx_get_option(ctx, SYM_CTX_OPT_FAST_TIER), 1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	assert_int_equal(sym_ctx_depth(ctx), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 0);
	free_ctx(ctx);
}

/* Check that every option reads back what was set; "state" is unused. */
static void
test_option_set_get(void **state)
{
	static const sym_option flags[] = { SYM_CTX_OPT_WITNESS,
		SYM_CTX_OPT_EXACT_TIER, SYM_CTX_OPT_FAST_TIER };
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	                     1234),
	    0);
	assert_int_equal(sym_ctx_get_option(ctx,
	                     SYM_CTX_OPT_ISL_MAX_OPERATIONS),
	    1234);
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	                     0),
	    0);
	assert_int_equal(sym_ctx_get_option(ctx,
	                     SYM_CTX_OPT_ISL_MAX_OPERATIONS),
	    0);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		assert_int_equal(sym_ctx_set_option(ctx, flags[i], 0), 0);
		assert_int_equal(sym_ctx_get_option(ctx, flags[i]), 0);
		assert_int_equal(sym_ctx_set_option(ctx, flags[i], 1), 0);
		assert_int_equal(sym_ctx_get_option(ctx, flags[i]), 1);
	}
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	free_ctx(ctx);
}

/* Check that an invalid option or value is rejected with SYM_EINVAL and
 * changes nothing; "state" is unused. */
static void
test_option_invalid(void **state)
{
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	assert_int_equal(sym_ctx_set_option(ctx, SYM_CTX_OPT_ISL_MAX_OPERATIONS,
	                     -1),
	    -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_int_equal(sym_ctx_get_option(ctx,
	                     SYM_CTX_OPT_ISL_MAX_OPERATIONS),
	    200000);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_ctx_set_option(ctx, (sym_option)99, 1), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_int_equal(sym_ctx_get_option(ctx, (sym_option)99), -1);
	free_ctx(ctx);
}

/* Check that every error code has its own text and that an unknown code
 * has "unknown error code"; "state" is unused. */
static void
test_strerror(void **state)
{
	const char *text[SYM_EIO + 1];

	(void)state;
	for (int i = SYM_OK; i <= SYM_EIO; i++) {
		text[i] = sym_strerror((sym_error)i);
		assert_non_null(text[i]);
		assert_string_not_equal(text[i], "unknown error code");
		assert_true(strlen(text[i]) > 0);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(text[i], text[j]);
	}
	assert_string_equal(sym_strerror(SYM_OK), "no error");
	assert_string_equal(sym_strerror(SYM_EUNSAT), "contradictory facts");
	assert_string_equal(sym_strerror((sym_error)(SYM_EIO + 1)),
	    "unknown error code");
	assert_string_equal(sym_strerror((sym_error)-1), "unknown error code");
}

/* Check that every error code has the name of its constant and that any
 * other value is "unknown"; "state" is unused. */
static void
test_error_name(void **state)
{
	(void)state;
	assert_string_equal(sym_error_name(SYM_OK), "SYM_OK");
	assert_string_equal(sym_error_name(SYM_ENOMEM), "SYM_ENOMEM");
	assert_string_equal(sym_error_name(SYM_EINVAL), "SYM_EINVAL");
	assert_string_equal(sym_error_name(SYM_EPARSE), "SYM_EPARSE");
	assert_string_equal(sym_error_name(SYM_EDECL), "SYM_EDECL");
	assert_string_equal(sym_error_name(SYM_EOVERFLOW), "SYM_EOVERFLOW");
	assert_string_equal(sym_error_name(SYM_EDIVZERO), "SYM_EDIVZERO");
	assert_string_equal(sym_error_name(SYM_EUNBOUND), "SYM_EUNBOUND");
	assert_string_equal(sym_error_name(SYM_EDOMAIN), "SYM_EDOMAIN");
	assert_string_equal(sym_error_name(SYM_EUNSAT), "SYM_EUNSAT");
	assert_string_equal(sym_error_name(SYM_ESCOPE), "SYM_ESCOPE");
	assert_string_equal(sym_error_name(SYM_EINTERNAL), "SYM_EINTERNAL");
	assert_string_equal(sym_error_name(SYM_EISL), "SYM_EISL");
	assert_string_equal(sym_error_name(SYM_ESHAPE), "SYM_ESHAPE");
	assert_string_equal(sym_error_name(SYM_ELAYOUT), "SYM_ELAYOUT");
	assert_string_equal(sym_error_name(SYM_EIO), "SYM_EIO");
	assert_string_equal(sym_error_name((sym_error)(SYM_EIO + 1)),
	    "unknown");
	assert_string_equal(sym_error_name((sym_error)-1), "unknown");
}

/* Check the name of each answer; "state" is unused. */
static void
test_answer_name(void **state)
{
	(void)state;
	assert_string_equal(sym_answer_name(SYM_TRUE), "true");
	assert_string_equal(sym_answer_name(SYM_FALSE), "false");
	assert_string_equal(sym_answer_name(SYM_UNKNOWN), "unknown");
	assert_string_equal(sym_answer_name(SYM_ERROR), "error");
	assert_string_equal(sym_answer_name((sym_answer)7), "error");
}

/* Check that sym_version() is the header's version and reads
 * MAJOR.MINOR.PATCH; "state" is unused. */
static void
test_version(void **state)
{
	char expected[64];
	int major = -1, minor = -1, patch = -1, end = 0;

	(void)state;
	assert_non_null(sym_version());
	assert_string_equal(sym_version(), SYM_VERSION_STRING);
	snprintf(expected, sizeof(expected), "%d.%d.%d", SYM_VERSION_MAJOR,
	    SYM_VERSION_MINOR, SYM_VERSION_PATCH);
	assert_string_equal(sym_version(), expected);
	assert_int_equal(sscanf(sym_version(), "%d.%d.%d%n", &major, &minor,
	                     &patch, &end),
	    3);
	assert_int_equal(end, (int)strlen(sym_version()));
	assert_int_equal(major, SYM_VERSION_MAJOR);
	assert_int_equal(minor, SYM_VERSION_MINOR);
	assert_int_equal(patch, SYM_VERSION_PATCH);
}

/* Check the error state left by a failing call, that its file survives
 * the caller's buffer, and that sym_ctx_clear_error resets it; "state" is
 * unused. */
static void
test_error_state(void **state)
{
	char file[16];
	sym_loc where = { file, 3, 8 };
	sym_ctx *ctx = tl_ctx_new();
	sym_loc got;

	(void)state;
	strcpy(file, "f.sg");
	assert_null(sym_symbol_new(ctx, "1b", NULL, &where));
	strcpy(file, "XXXXXXXXXXX");
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDECL);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "'1b'"));
	got = sym_ctx_last_location(ctx);
	assert_non_null(got.file);
	assert_ptr_not_equal(got.file, file);
	assert_string_equal(got.file, "f.sg");
	assert_int_equal(got.line, 3);
	assert_int_equal(got.col, 8);

	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	assert_string_equal(sym_ctx_last_message(ctx), "no error");
	got = sym_ctx_last_location(ctx);
	assert_null(got.file);
	assert_int_equal(got.line, 0);
	assert_int_equal(got.col, 0);
	free_ctx(ctx);
}

/* Check that an error without a location clears the previous location
 * and that the message falls back to sym_strerror; "state" is unused. */
static void
test_error_without_location(void **state)
{
	sym_loc where = { "f.sg", 3, 8 };
	sym_ctx *ctx = tl_ctx_new();
	sym_loc got;

	(void)state;
	assert_null(sym_symbol_new(ctx, "a-b", NULL, &where));
	assert_int_equal(sym_ctx_last_location(ctx).line, 3);
	assert_int_equal(sym_ctx_pop(ctx), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ESCOPE);
	got = sym_ctx_last_location(ctx);
	assert_null(got.file);
	assert_int_equal(got.line, 0);
	assert_int_equal(got.col, 0);
	free_ctx(ctx);
}

/* Check that expressions and bindings are counted while held and
 * uncounted when freed; "state" is unused. */
static void
test_live_objects(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 0);
	sym_expr *e, *f, *g;
	sym_binding *w, *w2;

	(void)state;
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	e = sym_expr_symbol(b);
	assert_int_equal(sym_ctx_live_objects(ctx), 1);
	f = sym_expr_const(ctx, 3);
	assert_int_equal(sym_ctx_live_objects(ctx), 2);
	g = sym_expr_copy(e);
	assert_ptr_equal(g, e);
	assert_int_equal(sym_ctx_live_objects(ctx), 3);
	g = sym_expr_add(g, f);
	assert_non_null(g);
	assert_int_equal(sym_ctx_live_objects(ctx), 2);
	w = sym_binding_new(ctx);
	assert_int_equal(sym_ctx_live_objects(ctx), 3);
	w2 = sym_binding_dup(w);
	assert_int_equal(sym_ctx_live_objects(ctx), 4);
	sym_binding_free(w);
	assert_int_equal(sym_ctx_live_objects(ctx), 3);
	sym_binding_free(w2);
	assert_int_equal(sym_ctx_live_objects(ctx), 2);
	assert_null(sym_expr_free(g));
	assert_int_equal(sym_ctx_live_objects(ctx), 1);
	assert_null(sym_expr_free(e));
	free_ctx(ctx);
}

/* Return the text sym_ctx_report_live writes for "ctx", storing its
 * return value in "*n"; the caller frees the text. */
static char *
report_text(const sym_ctx *ctx, size_t *n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	*n = sym_ctx_report_live(ctx, out);
	assert_int_equal(fclose(out), 0);
	assert_non_null(text);
	return text;
}

/* Check the lines sym_ctx_report_live writes and the count it returns;
 * "state" is unused. */
static void
test_report_live(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 0);
	sym_expr *e = sym_expr_symbol(b), *f = sym_expr_const(ctx, 5);
	sym_binding *w = sym_binding_new(ctx);
	const int64_t two = 2;
	sym_mesh *m, *m2;
	sym_layout *l;
	size_t n = 99;
	char *text;

	(void)state;
	text = report_text(ctx, &n);
	assert_int_equal(n, 3);
	assert_string_equal(text,
	    "symshard: 2 expressions still alive\n"
	    "symshard: 1 binding still alive\n");
	free(text);
	assert_int_equal(sym_ctx_report_live(ctx, NULL), 3);

	sym_expr_free(f);
	text = report_text(ctx, &n);
	assert_int_equal(n, 2);
	assert_string_equal(text,
	    "symshard: 1 expression still alive\n"
	    "symshard: 1 binding still alive\n");
	free(text);

	sym_binding_free(w);
	sym_expr_free(e);
	text = report_text(ctx, &n);
	assert_int_equal(n, 0);
	assert_string_equal(text, "");
	free(text);

	m = sym_mesh_new(ctx, 1, &two, NULL, 0, NULL);
	m2 = sym_mesh_copy(m);
	l = sym_layout_replicated(m, 1);
	text = report_text(ctx, &n);
	assert_int_equal(n, 3);
	assert_string_equal(text,
	    "symshard: 2 meshes still alive\n"
	    "symshard: 1 layout still alive\n");
	free(text);
	sym_layout_free(l);
	sym_mesh_free(m2);
	sym_mesh_free(m);
	free_ctx(ctx);
}

/* Free a context while callers still hold objects: the context must
 * release them (the sanitizer and valgrind runs check that nothing
 * leaks); "state" is unused. */
static void
test_free_with_live_objects(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 0);
	sym_expr *e = sym_expr_add_si(sym_expr_symbol(b), 3);
	sym_binding *w = sym_binding_new(ctx);

	(void)state;
	assert_non_null(e);
	assert_int_equal(sym_binding_set(w, b, 8), 0);
	assert_int_equal(sym_ctx_live_objects(ctx), 2);
	sym_ctx_free(ctx);
}

/* Check that every ctx function copes with NULL arguments; "state" is
 * unused. */
static void
test_null_arguments(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 0);
	sym_expr *e = sym_expr_symbol(b);
	static char sentinel;
	sym_binding *w = (sym_binding *)&sentinel;
	sym_loc loc;

	(void)state;
	sym_ctx_free(NULL);
	assert_int_equal(sym_ctx_set_option(NULL, SYM_CTX_OPT_WITNESS, 1), -1);
	assert_int_equal(sym_ctx_get_option(NULL, SYM_CTX_OPT_WITNESS), -1);
	assert_int_equal(sym_ctx_last_error(NULL), SYM_EINVAL);
	assert_non_null(sym_ctx_last_message(NULL));
	loc = sym_ctx_last_location(NULL);
	assert_null(loc.file);
	assert_int_equal(loc.line, 0);
	assert_int_equal(loc.col, 0);
	sym_ctx_clear_error(NULL);
	assert_int_equal(sym_ctx_live_objects(NULL), 0);
	assert_int_equal(sym_ctx_report_live(NULL, stderr), 0);
	assert_int_equal(sym_ctx_push(NULL), -1);
	assert_int_equal(sym_ctx_pop(NULL), -1);
	assert_int_equal(sym_ctx_depth(NULL), 0);
	assert_int_equal(sym_ctx_assume(NULL, e, SYM_LE, e, NULL), -1);
	assert_int_equal(sym_ctx_assume(ctx, NULL, SYM_LE, e, NULL), -1);
	assert_int_equal(sym_ctx_assume(ctx, e, SYM_LE, NULL, NULL), -1);
	assert_int_equal(sym_ctx_assume_divisible(NULL, e, 8, NULL), -1);
	assert_int_equal(sym_ctx_assume_divisible(ctx, NULL, 8, NULL), -1);
	assert_int_equal(sym_ctx_n_facts(NULL), 0);
	assert_null(sym_ctx_fact_to_str(NULL, 0));
	assert_null(sym_ctx_fact_to_str(ctx, 0));
	assert_int_equal(sym_ctx_satisfiable(NULL, &w), SYM_ERROR);
	assert_null(w);
	assert_int_equal(sym_ctx_satisfiable(NULL, NULL), SYM_ERROR);
	assert_int_equal(sym_ctx_n_facts(ctx), 0);
	assert_int_equal(sym_ctx_depth(ctx), 0);
	sym_expr_free(e);
	free_ctx(ctx);
}

/* Check that popping with no scope open fails with SYM_ESCOPE; "state" is
 * unused. */
static void
test_pop_at_depth_zero(void **state)
{
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	assert_int_equal(sym_ctx_pop(ctx), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ESCOPE);
	assert_int_equal(sym_ctx_depth(ctx), 0);
	sym_ctx_clear_error(ctx);
	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	assert_int_equal(sym_ctx_pop(ctx), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_ESCOPE);
	free_ctx(ctx);
}

/* Check that push and pop change the depth; "state" is unused. */
static void
test_push_pop_depth(void **state)
{
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	assert_int_equal(sym_ctx_depth(ctx), 0);
	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_depth(ctx), 1);
	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_depth(ctx), 3);
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_depth(ctx), 2);
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_depth(ctx), 0);
	free_ctx(ctx);
}

/* Assert that fact "i" of "ctx" reads "expected". */
static void
assert_fact(const sym_ctx *ctx, size_t i, const char *expected)
{
	char *text = sym_ctx_fact_to_str(ctx, i);

	assert_non_null(text);
	assert_string_equal(text, expected);
	free(text);
}

/* Check that facts assumed in a scope vanish when it is popped, that the
 * outer ones stay, and their texts; "state" is unused. */
static void
test_scope_facts(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 1);
	sym_symbol *s = declare(ctx, "s", 128, 1);
	sym_expr *eb = sym_expr_symbol(b), *es = sym_expr_symbol(s);
	sym_expr *c64 = sym_expr_const(ctx, 64);
	sym_expr *two_b =
	    sym_expr_add_si(sym_expr_mul_si(sym_expr_copy(eb), 2), 128);

	(void)state;
	assert_int_equal(sym_ctx_assume(ctx, es, SYM_GE, two_b, NULL), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 1);
	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_assume(ctx, eb, SYM_LE, c64, NULL), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 2);
	assert_fact(ctx, 0, "s >= 2*b + 128");
	assert_fact(ctx, 1, "b <= 64");
	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_assume(ctx, eb, SYM_NE, c64, NULL), 0);
	assert_int_equal(sym_ctx_assume_divisible(ctx, eb, 16, NULL), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 4);
	assert_fact(ctx, 2, "b != 64");
	assert_fact(ctx, 3, "b mod 16 == 0");
	assert_null(sym_ctx_fact_to_str(ctx, 4));
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 2);
	assert_fact(ctx, 1, "b <= 64");
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 1);
	assert_fact(ctx, 0, "s >= 2*b + 128");
	assert_null(sym_ctx_fact_to_str(ctx, 1));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	sym_expr_free(eb);
	sym_expr_free(es);
	sym_expr_free(c64);
	sym_expr_free(two_b);
	free_ctx(ctx);
}

/* Copy the text of fact "i" of "ctx" into "buf" of "size" bytes ("" when
 * there is none). */
static void
fact_text(const sym_ctx *ctx, size_t i, char *buf, size_t size)
{
	char *text = sym_ctx_fact_to_str(ctx, i);

	snprintf(buf, size, "%s", text ? text : "");
	free(text);
}

/* Check the texts of facts whose expression is a sum: the operand of mod
 * must be parenthesised, as the expression parser reads it. The texts are
 * compared after everything is freed, so that a failure leaks nothing;
 * "state" is unused. */
static void
test_fact_text_of_sum(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 1);
	sym_expr *e = sym_expr_add_si(sym_expr_symbol(b), 8);
	sym_expr *c = sym_expr_const(ctx, 4096);
	char lt[64], div[64];
	int r_lt, r_div;

	(void)state;
	r_lt = sym_ctx_assume(ctx, e, SYM_LT, c, NULL);
	r_div = sym_ctx_assume_divisible(ctx, e, 16, NULL);
	fact_text(ctx, 0, lt, sizeof(lt));
	fact_text(ctx, 1, div, sizeof(div));
	sym_expr_free(e);
	sym_expr_free(c);
	free_ctx(ctx);
	assert_int_equal(r_lt, 0);
	assert_int_equal(r_div, 0);
	assert_string_equal(lt, "b + 8 < 4096");
	assert_string_equal(div, "(b + 8) mod 16 == 0");
}

/* Check that a fact contradicting the declarations or the facts fails with
 * SYM_EUNSAT at its location and is not kept; "state" is unused. */
static void
test_assume_contradiction(void **state)
{
	sym_loc where = { "f.sg", 7, 2 };
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 1);
	sym_expr *eb = sym_expr_symbol(b);
	sym_expr *c4 = sym_expr_const(ctx, 4), *c64 = sym_expr_const(ctx, 64);
	sym_loc got;

	(void)state;
	assert_int_equal(sym_ctx_assume(ctx, eb, SYM_LE, c4, &where), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EUNSAT);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "'b <= 4'"));
	got = sym_ctx_last_location(ctx);
	assert_non_null(got.file);
	assert_string_equal(got.file, "f.sg");
	assert_int_equal(got.line, 7);
	assert_int_equal(got.col, 2);
	assert_int_equal(sym_ctx_n_facts(ctx), 0);
	sym_ctx_clear_error(ctx);

	assert_int_equal(sym_ctx_push(ctx), 0);
	assert_int_equal(sym_ctx_assume(ctx, eb, SYM_GT, c64, NULL), 0);
	assert_int_equal(sym_ctx_assume(ctx, eb, SYM_LT, c64, &where), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EUNSAT);
	assert_int_equal(sym_ctx_n_facts(ctx), 1);
	assert_fact(ctx, 0, "b > 64");
	assert_int_equal(sym_ctx_satisfiable(ctx, NULL), SYM_TRUE);
	assert_int_equal(sym_ctx_pop(ctx), 0);
	assert_int_equal(sym_ctx_n_facts(ctx), 0);

	assert_int_equal(sym_ctx_assume_divisible(ctx, eb, 0, &where), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_int_equal(sym_ctx_assume(ctx, eb, (sym_cmp)42, c4, NULL), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_int_equal(sym_ctx_n_facts(ctx), 0);
	sym_expr_free(eb);
	sym_expr_free(c4);
	sym_expr_free(c64);
	free_ctx(ctx);
}

/* Check sym_ctx_satisfiable without facts (an empty witness) and with a
 * fact (a witness that satisfies it); "state" is unused. */
static void
test_satisfiable(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", 8, 1);
	sym_expr *eb = sym_expr_symbol(b), *c = sym_expr_const(ctx, 40);
	sym_binding *w = NULL;
	int64_t v = 0;

	(void)state;
	assert_int_equal(sym_ctx_satisfiable(ctx, &w), SYM_TRUE);
	assert_non_null(w);
	assert_int_equal(sym_binding_n_symbols(w), 0);
	sym_binding_free(w);

	assert_int_equal(sym_ctx_assume(ctx, eb, SYM_GE, c, NULL), 0);
	assert_int_equal(sym_ctx_satisfiable(ctx, &w), SYM_TRUE);
	assert_non_null(w);
	assert_int_equal(sym_binding_get(w, b, &v), 0);
	assert_true(v >= 40);
	assert_int_equal(v % 8, 0);
	assert_int_equal(sym_binding_check(w), 0);
	sym_binding_free(w);
	sym_expr_free(eb);
	sym_expr_free(c);
	free_ctx(ctx);
}

/* What one run of the workload of test_two_threads produced. */
struct run {
	sym_answer div[N_ITER];    /* 8 | (i+1)*b + i */
	sym_answer le[N_ITER];     /* s <= 8192 */
	sym_answer scoped[N_ITER]; /* s >= 256 given s >= 128*(i%4+1) */
	int witness_ok[N_ITER];    /* each FALSE answer's witness breaks it */
	size_t live[N_ITER];       /* live objects before sym_ctx_free */
	char text[N_ITER][160];    /* the expression and the witnesses */
};

/* Return 1 when the binding "w" makes "e" not divisible by "k", 0 when
 * not. */
static int
breaks_divisible(sym_expr *e, int64_t k, const sym_binding *w)
{
	int64_t v;

	return w && sym_expr_eval(e, w, &v) == 0 && v % k != 0;
}

/* Return 1 when the binding "w" gives "s" an admissible value below
 * "bound", 0 when not. */
static int
breaks_ge(sym_symbol *s, int64_t bound, const sym_binding *w)
{
	int64_t v;

	return w && sym_binding_get(w, s, &v) == 0 && v < bound &&
	    sym_symbol_admits(s, v);
}

/* Run iteration "i" of the workload into "r": a context of its own,
 * symbols, expressions, proofs with and without facts. */
static void
run_once(struct run *r, int i)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_symbol_info bi = SYM_SYMBOL_INFO_INIT, si = SYM_SYMBOL_INFO_INIT;
	sym_symbol *b, *s;
	sym_expr *e, *es, *c;
	sym_binding *w1 = NULL, *w2 = NULL;
	char *es_text, *w1_text = NULL, *w2_text = NULL;

	bi.divisor = 8;
	si.min = 128;
	si.max = 8192;
	si.divisor = 128;
	si.unique = 1;
	b = sym_symbol_new(ctx, "b", &bi, NULL);
	s = sym_symbol_new(ctx, "s", &si, NULL);
	e = sym_expr_add_si(sym_expr_mul_si(sym_expr_symbol(b), i + 1), i);
	es = sym_expr_symbol(s);
	r->div[i] = sym_prove_divisible(ctx, e, 8, &w1);
	c = sym_expr_const(ctx, 8192);
	r->le[i] = sym_prove_cmp(ctx, es, SYM_LE, c, NULL);
	sym_expr_free(c);
	sym_ctx_push(ctx);
	c = sym_expr_const(ctx, 128 * (i % 4 + 1));
	sym_ctx_assume(ctx, es, SYM_GE, c, NULL);
	sym_expr_free(c);
	c = sym_expr_const(ctx, 256);
	r->scoped[i] = sym_prove_cmp(ctx, es, SYM_GE, c, &w2);
	sym_expr_free(c);
	sym_ctx_pop(ctx);
	r->witness_ok[i] =
	    (r->div[i] != SYM_FALSE || breaks_divisible(e, 8, w1)) &&
	    (r->scoped[i] != SYM_FALSE || breaks_ge(s, 256, w2));
	es_text = sym_expr_to_str(e);
	w1_text = w1 ? sym_binding_to_str(w1) : NULL;
	w2_text = w2 ? sym_binding_to_str(w2) : NULL;
	snprintf(r->text[i], sizeof(r->text[i]), "%s | %s | %s",
	    es_text ? es_text : "?", w1_text ? w1_text : "-",
	    w2_text ? w2_text : "-");
	free(es_text);
	free(w1_text);
	free(w2_text);
	sym_binding_free(w1);
	sym_binding_free(w2);
	sym_expr_free(e);
	sym_expr_free(es);
	r->live[i] = sym_ctx_live_objects(ctx);
	sym_ctx_free(ctx);
}

/* Thread body: run every iteration of the workload into "arg" (a struct
 * run); return NULL. */
static void *
run_all(void *arg)
{
	for (int i = 0; i < N_ITER; i++)
		run_once(arg, i);
	return NULL;
}

/* Assert that two runs produced the same results. */
static void
assert_same_run(const struct run *a, const struct run *b)
{
	for (int i = 0; i < N_ITER; i++) {
		assert_int_equal(a->div[i], b->div[i]);
		assert_int_equal(a->le[i], b->le[i]);
		assert_int_equal(a->scoped[i], b->scoped[i]);
		assert_int_equal(a->witness_ok[i], b->witness_ok[i]);
		assert_int_equal(a->live[i], b->live[i]);
		assert_string_equal(a->text[i], b->text[i]);
	}
}

/* Check that two contexts used at once from two threads give the answers
 * one thread gives, and that those are right; "state" is unused. */
static void
test_two_threads(void **state)
{
	static struct run ref, t1, t2;
	pthread_t th1, th2;

	(void)state;
	run_all(&ref);
	for (int i = 0; i < N_ITER; i++) {
		assert_int_equal(ref.div[i], i % 8 == 0 ? SYM_TRUE : SYM_FALSE);
		assert_int_equal(ref.le[i], SYM_TRUE);
		assert_int_equal(ref.scoped[i],
		    i % 4 == 0 ? SYM_FALSE : SYM_TRUE);
		assert_int_equal(ref.witness_ok[i], 1);
		assert_int_equal(ref.live[i], 0);
	}
	assert_string_equal(ref.text[1], "2*b + 1 | b = 8 | -");
	assert_string_equal(ref.text[4], "5*b + 4 | b = 8 | s = 128");
	assert_int_equal(pthread_create(&th1, NULL, run_all, &t1), 0);
	assert_int_equal(pthread_create(&th2, NULL, run_all, &t2), 0);
	assert_int_equal(pthread_join(th1, NULL), 0);
	assert_int_equal(pthread_join(th2, NULL), 0);
	assert_same_run(&ref, &t1);
	assert_same_run(&ref, &t2);
}

/* Run the tests of this program; returns the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_defaults),
		cmocka_unit_test(test_option_set_get),
		cmocka_unit_test(test_option_invalid),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_error_name),
		cmocka_unit_test(test_answer_name),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_error_state),
		cmocka_unit_test(test_error_without_location),
		cmocka_unit_test(test_live_objects),
		cmocka_unit_test(test_report_live),
		cmocka_unit_test(test_free_with_live_objects),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_pop_at_depth_zero),
		cmocka_unit_test(test_push_pop_depth),
		cmocka_unit_test(test_scope_facts),
		cmocka_unit_test(test_fact_text_of_sum),
		cmocka_unit_test(test_assume_contradiction),
		cmocka_unit_test(test_satisfiable),
		cmocka_unit_test(test_two_threads),
	};

	return cmocka_run_group_tests_name("ctx", tests, NULL, NULL);
}
