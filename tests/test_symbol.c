/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the symbol family: declarations with MindSpore's
 * semantics, invalid declarations, instances of non-unique symbols,
 * explanations, and bindings (parsing, printing, checking).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <symshard.h>

#include "testlib.h"

/* The location most declarations of these tests are given. */
static const sym_loc decl_loc = { "f.sg", 3, 8 };

/* 100 000 symbols (issue 14, item 8): each declared once and found by
 * name in constant time (a linear search made this take minutes); a
 * second declaration of a name is still refused. */
static void
test_symbols_many(void **state)
{
	const int n = 100000;
	sym_ctx *ctx = tl_ctx_new();
	char name[32];

	(void)state;
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		assert_non_null(sym_symbol_new(ctx, name, NULL, NULL));
	}
	assert_int_equal(sym_ctx_n_symbols(ctx), n);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		assert_ptr_equal(sym_symbol_find(ctx, name),
		    sym_ctx_symbol(ctx, (size_t)i));
	}
	assert_null(sym_symbol_find(ctx, "s100000"));
	assert_null(sym_symbol_new(ctx, "s777", NULL, NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDECL);
	sym_ctx_clear_error(ctx);
	tl_ctx_free(ctx);
}

/* Return the info with "min", "max", "divisor", "remainder" and
 * "unique". */
static sym_symbol_info
info_of(int64_t min, int64_t max, int64_t divisor, int64_t remainder,
    int unique)
{
	sym_symbol_info info = { min, max, divisor, remainder, unique };

	return info;
}

/* Declare "name" in "ctx" with "info" at "where"; fail the test when the
 * declaration is rejected. */
static sym_symbol *
declare(sym_ctx *ctx, const char *name, sym_symbol_info info,
    const sym_loc *where)
{
	sym_symbol *s = sym_symbol_new(ctx, name, &info, where);

	assert_non_null(s);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	return s;
}

/* Assert that the malloc'ed "text" equals "expected", then free it. */
static void
assert_text(char *text, const char *expected)
{
	assert_non_null(text);
	assert_string_equal(text, expected);
	free(text);
}

/* Assert that the last error of "ctx" has "code", a message containing
 * "part" and the location "file":"line":"col". */
static void
assert_error(const sym_ctx *ctx, sym_error code, const char *part,
    const char *file, int line, int col)
{
	sym_loc loc = sym_ctx_last_location(ctx);

	assert_int_equal(sym_ctx_last_error(ctx), code);
	if (!strstr(sym_ctx_last_message(ctx), part))
		fail_msg("message '%s' lacks '%s'", sym_ctx_last_message(ctx),
		    part);
	if (file) {
		assert_non_null(loc.file);
		assert_string_equal(loc.file, file);
	} else {
		assert_null(loc.file);
	}
	assert_int_equal(loc.line, line);
	assert_int_equal(loc.col, col);
}

/* Check the least and greatest values of declarations; "state" is
 * unused. */
static void
test_least_greatest(void **state)
{
	static const struct {
		sym_symbol_info info;
		int64_t least, greatest;
	} cases[] = {
		{ { 1, 0, 1, 0, 0 }, 1, 0 },
		{ { 1, 0, 8, 0, 0 }, 8, 0 },
		{ { 1, 0, 8, 1, 0 }, 9, 0 },
		{ { 10, 0, 8, 0, 0 }, 16, 0 },
		{ { 16, 0, 8, 0, 0 }, 16, 0 },
		{ { 128, 8192, 128, 0, 1 }, 128, 8192 },
		{ { 1, 100, 8, 3, 0 }, 11, 99 },
		{ { 1, 8200, 128, 0, 0 }, 128, 8192 },
		{ { 7, 7, 1, 0, 0 }, 7, 7 },
		{ { 1, 0, 8, 7, 0 }, 15, 0 },
		{ { 20, 30, 8, 5, 0 }, 21, 29 },
	};
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[16];
		sym_symbol *s;

		snprintf(name, sizeof(name), "s%zu", i);
		s = declare(ctx, name, cases[i].info, NULL);
		assert_int_equal(sym_symbol_least(s), cases[i].least);
		assert_int_equal(sym_symbol_greatest(s), cases[i].greatest);
		assert_true(sym_symbol_admits(s, cases[i].least));
	}
	tl_ctx_free(ctx);
}

/* Check sym_symbol_admits on members and non-members; "state" is
 * unused. */
static void
test_admits(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	sym_symbol *r = declare(ctx, "r", info_of(1, 0, 8, 1, 0), NULL);
	sym_symbol *s = declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);
	sym_symbol *m = declare(ctx, "m", info_of(1, 100, 8, 3, 0), NULL);

	(void)state;
	assert_true(sym_symbol_admits(b, 8));
	assert_true(sym_symbol_admits(b, 64));
	assert_true(sym_symbol_admits(b, INT64_MAX - 7));
	assert_false(sym_symbol_admits(b, 0));
	assert_false(sym_symbol_admits(b, -8));
	assert_false(sym_symbol_admits(b, 12));
	assert_false(sym_symbol_admits(b, INT64_MAX));

	assert_true(sym_symbol_admits(r, 9));
	assert_true(sym_symbol_admits(r, 17));
	assert_false(sym_symbol_admits(r, 1));
	assert_false(sym_symbol_admits(r, 8));
	assert_false(sym_symbol_admits(r, 10));

	assert_true(sym_symbol_admits(s, 128));
	assert_true(sym_symbol_admits(s, 256));
	assert_true(sym_symbol_admits(s, 8192));
	assert_false(sym_symbol_admits(s, 0));
	assert_false(sym_symbol_admits(s, 64));
	assert_false(sym_symbol_admits(s, 200));
	assert_false(sym_symbol_admits(s, 8320));

	assert_true(sym_symbol_admits(m, 11));
	assert_true(sym_symbol_admits(m, 99));
	assert_false(sym_symbol_admits(m, 3));
	assert_false(sym_symbol_admits(m, 107));
	tl_ctx_free(ctx);
}

/* Check that each invalid declaration fails with SYM_EDECL, a message
 * naming the symbol and the rule, and the location given; nothing is
 * declared. "state" is unused. */
static void
test_invalid_declarations(void **state)
{
	static const struct {
		sym_symbol_info info;
		const char *rule;
	} cases[] = {
		{ { 0, 0, 1, 0, 0 }, "min must be at least 1" },
		{ { -5, 0, 1, 0, 0 }, "min must be at least 1" },
		{ { 1, 0, 0, 0, 0 }, "divisor must be at least 1" },
		{ { 1, 0, -8, 0, 0 }, "divisor must be at least 1" },
		{ { 1, 0, 8, -1, 0 }, "remainder must lie in [0, divisor)" },
		{ { 1, 0, 8, 8, 0 }, "remainder must lie in [0, divisor)" },
		{ { 1, -1, 1, 0, 0 }, "max must be positive" },
		{ { 100, 50, 1, 0, 0 }, "min is greater than max" },
		{ { 9, 15, 8, 0, 0 }, "no value satisfies min, max, divisor" },
		{ { 1, 5, 8, 0, 0 }, "no value satisfies min, max, divisor" },
		{ { INT64_MAX, 0, 2, 0, 0 }, "no value fits 64 bits" },
	};
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_null(sym_symbol_new(ctx, "b", &cases[i].info,
		    &decl_loc));
		assert_error(ctx, SYM_EDECL, "symbol b", "f.sg", 3, 8);
		assert_error(ctx, SYM_EDECL, cases[i].rule, "f.sg", 3, 8);
		sym_ctx_clear_error(ctx);
	}
	assert_null(sym_symbol_new(ctx, "b", &cases[8].info,
	    &(sym_loc){ NULL, 2, 4 }));
	assert_string_equal(sym_ctx_last_message(ctx),
	    "invalid declaration of symbol b (min=9 max=15 divisor=8 "
	    "remainder=0): no value satisfies min, max, divisor and "
	    "remainder together");
	assert_int_equal(sym_ctx_last_location(ctx).line, 2);
	assert_int_equal(sym_ctx_last_location(ctx).col, 4);
	assert_int_equal(sym_ctx_n_symbols(ctx), 0);
	assert_null(sym_symbol_find(ctx, "b"));
	tl_ctx_free(ctx);
}

/* Check that invalid names are rejected with SYM_EDECL, a message quoting
 * them and the location; "state" is unused. */
static void
test_invalid_names(void **state)
{
	static const char *const names[] = { "1b", "", "a-b", "b'", "a b",
		"b.c" };
	sym_ctx *ctx = tl_ctx_new();
	char quoted[16];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_null(sym_symbol_new(ctx, names[i], NULL, &decl_loc));
		snprintf(quoted, sizeof(quoted), "'%s'", names[i]);
		assert_error(ctx, SYM_EDECL, quoted, "f.sg", 3, 8);
		assert_error(ctx, SYM_EDECL, "invalid symbol name", "f.sg", 3,
		    8);
		sym_ctx_clear_error(ctx);
	}
	assert_null(sym_symbol_new(ctx, NULL, NULL, &decl_loc));
	assert_error(ctx, SYM_EDECL, "invalid symbol name", "f.sg", 3, 8);
	assert_int_equal(sym_ctx_n_symbols(ctx), 0);
	assert_non_null(sym_symbol_new(ctx, "_b2", NULL, NULL));
	assert_non_null(sym_symbol_new(ctx, "B_x", NULL, NULL));
	assert_int_equal(sym_ctx_n_symbols(ctx), 2);
	tl_ctx_free(ctx);
}

/* Check that declaring a name twice fails, naming the first declaration's
 * location when it had one; "state" is unused. */
static void
test_duplicate(void **state)
{
	sym_loc again = { "g.sg", 9, 1 };
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), &decl_loc);

	(void)state;
	declare(ctx, "n", info_of(1, 0, 1, 0, 0), NULL);
	assert_null(sym_symbol_new(ctx, "b", NULL, &again));
	assert_error(ctx, SYM_EDECL, "already declared", "g.sg", 9, 1);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "symbol b is already declared at f.sg:3:8");
	sym_ctx_clear_error(ctx);
	assert_null(sym_symbol_new(ctx, "n", NULL, &again));
	assert_error(ctx, SYM_EDECL, "already declared", "g.sg", 9, 1);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "symbol n is already declared");
	assert_int_equal(sym_ctx_n_symbols(ctx), 2);
	assert_ptr_equal(sym_symbol_find(ctx, "b"), b);
	tl_ctx_free(ctx);
}

/* Check sym_symbol_find; "state" is unused. */
static void
test_find(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	sym_symbol *s = declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);
	sym_symbol *b1 = sym_symbol_instantiate(b);

	(void)state;
	assert_ptr_equal(sym_symbol_find(ctx, "b"), b);
	assert_ptr_equal(sym_symbol_find(ctx, "s"), s);
	assert_ptr_equal(sym_symbol_find(ctx, "b'"), b1);
	assert_null(sym_symbol_find(ctx, "c"));
	assert_null(sym_symbol_find(ctx, "B"));
	assert_null(sym_symbol_find(ctx, ""));
	assert_null(sym_symbol_find(ctx, NULL));
	assert_null(sym_symbol_find(NULL, "b"));
	tl_ctx_free(ctx);
}

/* Check the accessors of a declared symbol, and the defaults used when
 * no info is given; "state" is unused. */
static void
test_accessors(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *s =
	    declare(ctx, "s", info_of(128, 8192, 128, 0, 1), &decl_loc);
	sym_symbol *n = sym_symbol_new(ctx, "n", NULL, NULL);
	sym_symbol_info info = { 0, 0, 0, 0, 0 };
	sym_loc loc;

	(void)state;
	assert_ptr_equal(sym_symbol_ctx(s), ctx);
	assert_string_equal(sym_symbol_name(s), "s");
	sym_symbol_get_info(s, &info);
	assert_int_equal(info.min, 128);
	assert_int_equal(info.max, 8192);
	assert_int_equal(info.divisor, 128);
	assert_int_equal(info.remainder, 0);
	assert_int_equal(info.unique, 1);
	assert_int_equal(sym_symbol_is_unique(s), 1);
	assert_ptr_equal(sym_symbol_origin(s), s);
	assert_int_equal(sym_symbol_instance(s), 0);
	loc = sym_symbol_location(s);
	assert_non_null(loc.file);
	assert_string_equal(loc.file, "f.sg");
	assert_int_equal(loc.line, 3);
	assert_int_equal(loc.col, 8);

	assert_non_null(n);
	sym_symbol_get_info(n, &info);
	assert_int_equal(info.min, 1);
	assert_int_equal(info.max, 0);
	assert_int_equal(info.divisor, 1);
	assert_int_equal(info.remainder, 0);
	assert_int_equal(info.unique, 0);
	assert_int_equal(sym_symbol_is_unique(n), 0);
	assert_int_equal(sym_symbol_least(n), 1);
	assert_int_equal(sym_symbol_greatest(n), 0);
	loc = sym_symbol_location(n);
	assert_null(loc.file);
	assert_int_equal(loc.line, 0);
	tl_ctx_free(ctx);
}

/* Check that a unique symbol's instance is the symbol itself; "state" is
 * unused. */
static void
test_instantiate_unique(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *s = declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);

	(void)state;
	assert_ptr_equal(sym_symbol_instantiate(s), s);
	assert_ptr_equal(sym_symbol_instantiate(s), s);
	assert_int_equal(sym_ctx_n_symbols(ctx), 1);
	assert_int_equal(sym_symbol_instance(s), 0);
	tl_ctx_free(ctx);
}

/* Assert that "inst" is instance number "k" of "b", named "name", with
 * the declaration of "b". */
static void
assert_instance(sym_symbol *inst, sym_symbol *b, unsigned k, const char *name)
{
	sym_symbol_info bi, ii;
	sym_loc loc;

	assert_non_null(inst);
	assert_ptr_not_equal(inst, b);
	assert_string_equal(sym_symbol_name(inst), name);
	assert_ptr_equal(sym_symbol_origin(inst), b);
	assert_int_equal(sym_symbol_instance(inst), k);
	assert_int_equal(sym_symbol_is_unique(inst), 0);
	sym_symbol_get_info(b, &bi);
	sym_symbol_get_info(inst, &ii);
	assert_int_equal(ii.min, bi.min);
	assert_int_equal(ii.max, bi.max);
	assert_int_equal(ii.divisor, bi.divisor);
	assert_int_equal(ii.remainder, bi.remainder);
	assert_int_equal(ii.unique, 0);
	assert_int_equal(sym_symbol_least(inst), sym_symbol_least(b));
	assert_int_equal(sym_symbol_greatest(inst), sym_symbol_greatest(b));
	loc = sym_symbol_location(inst);
	assert_non_null(loc.file);
	assert_string_equal(loc.file, "f.sg");
	assert_int_equal(loc.line, 3);
	assert_int_equal(loc.col, 8);
}

/* Check the fresh variables of a non-unique symbol: names, declaration,
 * origin, instance numbers, distinct expressions; "state" is unused. */
static void
test_instantiate(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(8, 4096, 8, 0, 0), &decl_loc);
	sym_symbol *b1 = sym_symbol_instantiate(b);
	sym_symbol *b2 = sym_symbol_instantiate(b);
	sym_symbol *b3 = sym_symbol_instantiate(b1);
	sym_expr *e, *e1, *e3;

	(void)state;
	assert_instance(b1, b, 1, "b'");
	assert_instance(b2, b, 2, "b''");
	assert_instance(b3, b, 3, "b'''");
	assert_ptr_not_equal(b1, b2);
	assert_ptr_not_equal(b2, b3);
	assert_int_equal(sym_symbol_instance(b), 0);
	assert_ptr_equal(sym_symbol_origin(b), b);
	assert_int_equal(sym_ctx_n_symbols(ctx), 4);
	assert_true(sym_symbol_admits(b3, 4096));
	assert_false(sym_symbol_admits(b3, 4104));

	e = sym_expr_symbol(b);
	e1 = sym_expr_symbol(b1);
	e3 = sym_expr_symbol(b3);
	assert_non_null(e);
	assert_non_null(e1);
	assert_ptr_not_equal(e, e1);
	assert_false(sym_expr_is_equal(e, e1));
	assert_false(sym_expr_is_equal(e1, e3));
	assert_true(sym_expr_involves(e1, b1));
	assert_false(sym_expr_involves(e1, b));
	assert_text(sym_expr_to_str(e1), "b'");
	assert_text(sym_expr_to_str(e3), "b'''");
	assert_text(sym_symbol_to_str(b2), "b'' min=8 max=4096 divisor=8");
	sym_expr_free(e);
	sym_expr_free(e1);
	sym_expr_free(e3);
	tl_ctx_free(ctx);
}

/* Check sym_symbol_to_str; "state" is unused. */
static void
test_to_str(void **state)
{
	sym_ctx *ctx = tl_ctx_new();

	(void)state;
	assert_text(sym_symbol_to_str(declare(ctx, "b", info_of(1, 0, 8, 0, 0),
	                NULL)),
	    "b divisor=8");
	assert_text(sym_symbol_to_str(declare(ctx, "s",
	                info_of(128, 8192, 128, 0, 1), NULL)),
	    "s min=128 max=8192 divisor=128 unique");
	assert_text(sym_symbol_to_str(declare(ctx, "r", info_of(1, 0, 8, 1, 0),
	                NULL)),
	    "r divisor=8 remainder=1");
	assert_text(sym_symbol_to_str(declare(ctx, "n", info_of(1, 0, 1, 0, 0),
	                NULL)),
	    "n");
	assert_text(sym_symbol_to_str(declare(ctx, "u", info_of(1, 0, 1, 0, 1),
	                NULL)),
	    "u unique");
	assert_text(sym_symbol_to_str(declare(ctx, "h", info_of(2, 64, 1, 0, 0),
	                NULL)),
	    "h min=2 max=64");
	assert_null(sym_symbol_to_str(NULL));
	tl_ctx_free(ctx);
}

/* Check sym_symbol_to_str for a symbol with a long name: the text is
 * complete, not cut at some buffer size. The text is compared after
 * everything is freed, so that a failure leaks nothing; "state" is
 * unused. */
static void
test_to_str_long_name(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	char name[251], expected[300], got[300];
	char *text;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(expected, sizeof(expected), "%s divisor=8", name);
	text =
	    sym_symbol_to_str(declare(ctx, name, info_of(1, 0, 8, 0, 0), NULL));
	snprintf(got, sizeof(got), "%s", text ? text : "(null)");
	free(text);
	tl_ctx_free(ctx);
	assert_string_equal(got, expected);
}

/* Check the messages of sym_symbol_explain; "state" is unused. */
static void
test_explain(void **state)
{
	sym_loc s_loc = { "f.sg", 4, 8 };
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), &decl_loc);
	sym_symbol *s =
	    declare(ctx, "s", info_of(128, 8192, 128, 0, 1), &s_loc);
	sym_symbol *r = declare(ctx, "r", info_of(1, 0, 8, 1, 0), NULL);

	(void)state;
	assert_text(sym_symbol_explain(b, 12),
	    "b = 12 violates divisor=8 declared at f.sg:3:8");
	assert_text(sym_symbol_explain(s, 64),
	    "s = 64 violates min=128 declared at f.sg:4:8");
	assert_text(sym_symbol_explain(s, 8320),
	    "s = 8320 violates max=8192 declared at f.sg:4:8");
	assert_text(sym_symbol_explain(s, 200),
	    "s = 200 violates divisor=128 declared at f.sg:4:8");
	assert_text(sym_symbol_explain(r, 1),
	    "r = 1 violates divisor=8 remainder=1 (values are 8*N + 1 with "
	    "N >= 1)");
	assert_text(sym_symbol_explain(r, 10),
	    "r = 10 violates divisor=8 remainder=1 (values are 8*N + 1 with "
	    "N >= 1)");
	assert_text(sym_symbol_explain(sym_symbol_instantiate(b), 12),
	    "b' = 12 violates divisor=8 declared at f.sg:3:8");
	assert_null(sym_symbol_explain(b, 16));
	assert_null(sym_symbol_explain(s, 8192));
	assert_null(sym_symbol_explain(r, 9));
	assert_null(sym_symbol_explain(NULL, 12));
	tl_ctx_free(ctx);
}

/* Check that sym_symbol_explain and sym_binding_check quote a long
 * declaration file name whole. The texts are compared after everything is
 * freed, so that a failure leaks nothing; "state" is unused. */
static void
test_explain_long_file(void **state)
{
	char file[201], expected[300], got[300], checked[300];
	sym_loc where = { file, 3, 8 };
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b;
	sym_binding *w;
	char *text;
	int r;

	(void)state;
	memset(file, 'd', sizeof(file) - 1);
	memcpy(file + sizeof(file) - 6, "/f.sg", 6);
	snprintf(expected, sizeof(expected),
	    "b = 12 violates divisor=8 declared at %s:3:8", file);
	b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), &where);
	text = sym_symbol_explain(b, 12);
	snprintf(got, sizeof(got), "%s", text ? text : "(null)");
	free(text);
	w = sym_binding_new(ctx);
	sym_binding_set(w, b, 12);
	r = sym_binding_check(w);
	snprintf(checked, sizeof(checked), "%s", sym_ctx_last_message(ctx));
	sym_binding_free(w);
	tl_ctx_free(ctx);
	assert_string_equal(got, expected);
	assert_int_equal(r, -1);
	assert_string_equal(checked, expected);
}

/* Check sym_ctx_n_symbols and sym_ctx_symbol: declaration order, then
 * instances in creation order; "state" is unused. */
static void
test_ctx_symbols(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b, *s, *b1, *t;

	(void)state;
	assert_int_equal(sym_ctx_n_symbols(ctx), 0);
	assert_null(sym_ctx_symbol(ctx, 0));
	b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	s = declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);
	b1 = sym_symbol_instantiate(b);
	t = declare(ctx, "t", info_of(1, 0, 1, 0, 1), NULL);
	assert_null(sym_symbol_new(ctx, "s", NULL, NULL));
	assert_int_equal(sym_ctx_n_symbols(ctx), 4);
	assert_ptr_equal(sym_ctx_symbol(ctx, 0), b);
	assert_ptr_equal(sym_ctx_symbol(ctx, 1), s);
	assert_ptr_equal(sym_ctx_symbol(ctx, 2), b1);
	assert_ptr_equal(sym_ctx_symbol(ctx, 3), t);
	assert_null(sym_ctx_symbol(ctx, 4));
	assert_int_equal(sym_ctx_n_symbols(NULL), 0);
	assert_null(sym_ctx_symbol(NULL, 0));
	tl_ctx_free(ctx);
}

/* Check many symbols: the table grows and keeps its order; "state" is
 * unused. */
static void
test_many_symbols(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	char name[16];

	(void)state;
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		declare(ctx, name, info_of(1, 0, i + 1, 0, 0), NULL);
	}
	assert_int_equal(sym_ctx_n_symbols(ctx), 100);
	for (int i = 0; i < 100; i++) {
		sym_symbol *s = sym_ctx_symbol(ctx, (size_t)i);

		snprintf(name, sizeof(name), "x%d", i);
		assert_string_equal(sym_symbol_name(s), name);
		assert_ptr_equal(sym_symbol_find(ctx, name), s);
		assert_int_equal(sym_symbol_least(s), i + 1);
	}
	tl_ctx_free(ctx);
}

/* Check that symbol functions cope with NULL arguments; "state" is
 * unused. */
static void
test_symbol_null_arguments(void **state)
{
	sym_symbol_info info = { 5, 5, 5, 5, 5 };
	sym_loc loc;

	(void)state;
	assert_null(sym_symbol_new(NULL, "b", NULL, NULL));
	assert_null(sym_symbol_instantiate(NULL));
	assert_null(sym_symbol_ctx(NULL));
	assert_null(sym_symbol_name(NULL));
	sym_symbol_get_info(NULL, &info);
	assert_int_equal(info.min, 5);
	assert_int_equal(sym_symbol_is_unique(NULL), SYM_ERROR);
	assert_null(sym_symbol_origin(NULL));
	assert_int_equal(sym_symbol_instance(NULL), 0);
	loc = sym_symbol_location(NULL);
	assert_null(loc.file);
	assert_int_equal(loc.line, 0);
	assert_int_equal(sym_symbol_least(NULL), 0);
	assert_int_equal(sym_symbol_greatest(NULL), 0);
	assert_int_equal(sym_symbol_admits(NULL, 8), 0);
	assert_null(sym_binding_new(NULL));
	assert_null(sym_binding_dup(NULL));
	sym_binding_free(NULL);
	assert_int_equal(sym_binding_set(NULL, NULL, 8), -1);
	assert_int_equal(sym_binding_get(NULL, NULL, NULL), -1);
	assert_int_equal(sym_binding_n_symbols(NULL), 0);
	assert_null(sym_binding_symbol(NULL, 0));
	assert_int_equal(sym_binding_value(NULL, 0), 0);
	assert_null(sym_binding_to_str(NULL));
	assert_int_equal(sym_binding_parse(NULL, "b=8", NULL), -1);
	assert_int_equal(sym_binding_check(NULL), -1);
}

/* Check new, set, get, size, symbol, value, dup and free of bindings;
 * "state" is unused. */
static void
test_binding_basics(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	sym_symbol *s = declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);
	sym_binding *w = sym_binding_new(ctx), *d;
	sym_symbol *late;
	int64_t v = -1;

	(void)state;
	assert_non_null(w);
	assert_int_equal(sym_binding_n_symbols(w), 0);
	assert_null(sym_binding_symbol(w, 0));
	assert_int_equal(sym_binding_get(w, b, &v), -1);
	assert_int_equal(v, -1);

	assert_int_equal(sym_binding_set(w, s, 256), 0);
	assert_int_equal(sym_binding_set(w, b, 8), 0);
	assert_int_equal(sym_binding_n_symbols(w), 2);
	assert_ptr_equal(sym_binding_symbol(w, 0), b);
	assert_int_equal(sym_binding_value(w, 0), 8);
	assert_ptr_equal(sym_binding_symbol(w, 1), s);
	assert_int_equal(sym_binding_value(w, 1), 256);
	assert_null(sym_binding_symbol(w, 2));
	assert_int_equal(sym_binding_value(w, 2), 0);
	assert_int_equal(sym_binding_get(w, s, &v), 0);
	assert_int_equal(v, 256);
	assert_int_equal(sym_binding_get(w, s, NULL), 0);
	assert_int_equal(sym_binding_set(w, b, 16), 0);
	assert_int_equal(sym_binding_n_symbols(w), 2);
	assert_int_equal(sym_binding_get(w, b, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(sym_binding_set(w, NULL, 1), -1);

	d = sym_binding_dup(w);
	assert_non_null(d);
	assert_ptr_not_equal(d, w);
	assert_int_equal(sym_binding_n_symbols(d), 2);
	assert_int_equal(sym_binding_set(d, b, 24), 0);
	assert_int_equal(sym_binding_get(d, b, &v), 0);
	assert_int_equal(v, 24);
	assert_int_equal(sym_binding_get(w, b, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(sym_binding_get(d, s, &v), 0);
	assert_int_equal(v, 256);

	late = declare(ctx, "late", info_of(1, 0, 1, 0, 0), NULL);
	assert_int_equal(sym_binding_get(w, late, &v), -1);
	assert_int_equal(sym_binding_set(w, late, -3), 0);
	assert_int_equal(sym_binding_n_symbols(w), 3);
	assert_ptr_equal(sym_binding_symbol(w, 2), late);
	assert_int_equal(sym_binding_value(w, 2), -3);
	assert_int_equal(sym_binding_n_symbols(d), 2);
	assert_int_equal(sym_binding_get(d, late, &v), -1);
	sym_binding_free(d);
	sym_binding_free(w);

	w = sym_binding_new(ctx);
	d = sym_binding_dup(w);
	assert_non_null(d);
	assert_int_equal(sym_binding_n_symbols(d), 0);
	sym_binding_free(d);
	sym_binding_free(w);
	tl_ctx_free(ctx);
}

/* Released bindings are reused by the context: a reused one is empty,
 * counted live again, and one made before more symbols were declared is
 * not reused for them. */
static void
test_binding_reuse(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *a = declare(ctx, "a", info_of(1, 0, 1, 0, 0), NULL);
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 1, 0, 0), NULL);
	sym_binding *w = sym_binding_new(ctx), *many[20];
	sym_symbol *c;
	int64_t v = -1;

	(void)state;
	assert_non_null(w);
	assert_int_equal(sym_binding_set(w, a, 5), 0);
	assert_int_equal(sym_binding_set(w, b, 7), 0);
	sym_binding_free(w);
	assert_int_equal(sym_ctx_live_objects(ctx), 0);

	w = sym_binding_new(ctx);
	assert_non_null(w);
	assert_int_equal(sym_ctx_live_objects(ctx), 1);
	assert_int_equal(sym_binding_n_symbols(w), 0);
	assert_int_equal(sym_binding_get(w, a, &v), -1);
	assert_int_equal(sym_binding_get(w, b, &v), -1);
	assert_int_equal(v, -1);
	assert_null(sym_binding_symbol(w, 0));
	assert_int_equal(sym_binding_set(w, b, 3), 0);
	assert_int_equal(sym_binding_n_symbols(w), 1);
	assert_ptr_equal(sym_binding_symbol(w, 0), b);
	assert_int_equal(sym_binding_value(w, 0), 3);
	sym_binding_free(w);

	c = declare(ctx, "c", info_of(1, 0, 1, 0, 0), NULL);
	w = sym_binding_new(ctx);
	assert_non_null(w);
	assert_int_equal(sym_binding_n_symbols(w), 0);
	assert_int_equal(sym_binding_set(w, c, 2), 0);
	assert_int_equal(sym_binding_set(w, a, 1), 0);
	assert_int_equal(sym_binding_n_symbols(w), 2);
	assert_ptr_equal(sym_binding_symbol(w, 1), c);
	assert_int_equal(sym_binding_get(w, c, &v), 0);
	assert_int_equal(v, 2);
	sym_binding_free(w);

	for (int i = 0; i < 20; i++) {
		many[i] = sym_binding_new(ctx);
		assert_non_null(many[i]);
		assert_int_equal(sym_binding_n_symbols(many[i]), 0);
		assert_int_equal(sym_binding_set(many[i], c, i + 1), 0);
	}
	assert_int_equal(sym_ctx_live_objects(ctx), 20);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(sym_binding_get(many[i], c, &v), 0);
		assert_int_equal(v, i + 1);
		sym_binding_free(many[i]);
	}
	assert_int_equal(sym_ctx_live_objects(ctx), 0);
	w = sym_binding_new(ctx);
	assert_non_null(w);
	assert_int_equal(sym_binding_get(w, c, &v), -1);
	/* freed with the context, as are the spare ones */
	assert_int_equal(sym_ctx_live_objects(ctx), 1);
	sym_ctx_free(ctx);
}

/* Check that a binding refuses a symbol of another context; "state" is
 * unused. */
static void
test_binding_other_ctx(void **state)
{
	sym_ctx *ctx = tl_ctx_new(), *other = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	sym_symbol *ob = declare(other, "b", info_of(1, 0, 8, 0, 0), NULL);
	sym_binding *w = sym_binding_new(ctx);

	(void)state;
	assert_int_equal(sym_binding_set(w, ob, 8), -1);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	assert_int_equal(sym_binding_n_symbols(w), 0);
	assert_int_equal(sym_binding_get(w, b, NULL), -1);
	sym_binding_free(w);
	tl_ctx_free(other);
	tl_ctx_free(ctx);
}

/* Check sym_binding_to_str: declaration order, whatever the order the
 * values were set in; "state" is unused. */
static void
test_binding_to_str(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	sym_symbol *s = declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);
	sym_symbol *b1 = sym_symbol_instantiate(b);
	sym_binding *w = sym_binding_new(ctx);

	(void)state;
	assert_text(sym_binding_to_str(w), "");
	assert_int_equal(sym_binding_set(w, s, 128), 0);
	assert_text(sym_binding_to_str(w), "s = 128");
	assert_int_equal(sym_binding_set(w, b, 8), 0);
	assert_text(sym_binding_to_str(w), "b = 8, s = 128");
	assert_int_equal(sym_binding_set(w, b1, INT64_MIN), 0);
	assert_text(sym_binding_to_str(w),
	    "b = 8, s = 128, b' = -9223372036854775808");
	sym_binding_free(w);
	tl_ctx_free(ctx);
}

/* Check sym_binding_parse on valid texts; "state" is unused. */
static void
test_binding_parse(void **state)
{
	static const char *const texts[] = { "b=8, s=128", "b=8 s=128",
		"s=128,b=8", "  b=8 ,\ts=128, ", "b = 8, s = 128" };
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	sym_symbol *s = declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);
	sym_symbol *b1 = sym_symbol_instantiate(b);
	sym_binding *w;
	int64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		w = sym_binding_new(ctx);
		assert_int_equal(sym_binding_parse(w, texts[i], &decl_loc), 0);
		assert_int_equal(sym_binding_n_symbols(w), 2);
		assert_int_equal(sym_binding_get(w, b, &v), 0);
		assert_int_equal(v, 8);
		assert_int_equal(sym_binding_get(w, s, &v), 0);
		assert_int_equal(v, 128);
		assert_text(sym_binding_to_str(w), "b = 8, s = 128");
		sym_binding_free(w);
	}

	w = sym_binding_new(ctx);
	assert_int_equal(sym_binding_parse(w, "", NULL), 0);
	assert_int_equal(sym_binding_n_symbols(w), 0);
	assert_int_equal(sym_binding_parse(w,
	                     "b'=-16 s=9223372036854775807 "
	                     "b=-9223372036854775808",
	                     NULL),
	    0);
	assert_int_equal(sym_binding_n_symbols(w), 3);
	assert_int_equal(sym_binding_get(w, b1, &v), 0);
	assert_int_equal(v, -16);
	assert_int_equal(sym_binding_get(w, s, &v), 0);
	assert_int_equal(v, INT64_MAX);
	assert_int_equal(sym_binding_get(w, b, &v), 0);
	assert_int_equal(v, INT64_MIN);
	assert_int_equal(sym_binding_parse(w, NULL, NULL), -1);
	sym_binding_free(w);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);
	tl_ctx_free(ctx);
}

/* Check that sym_binding_parse reads every name sym_symbol_new accepts,
 * however long; "state" is unused. */
static void
test_binding_parse_long_name(void **state)
{
	char name[201], text[220];
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *s;
	sym_binding *w = sym_binding_new(ctx);
	int64_t v = 0;
	int r, got;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	s = declare(ctx, name, info_of(1, 0, 8, 0, 0), NULL);
	snprintf(text, sizeof(text), "%s=16", name);
	r = sym_binding_parse(w, text, NULL);
	got = sym_binding_get(w, s, &v);
	sym_binding_free(w);
	tl_ctx_free(ctx);
	assert_int_equal(r, 0);
	assert_int_equal(got, 0);
	assert_int_equal(v, 16);
}

/* Assert that parsing "text" located at "f.sg":3:10 fails with "code", a
 * message containing "part", at column "col". */
static void
assert_parse_error(sym_ctx *ctx, const char *text, sym_error code,
    const char *part, int col)
{
	sym_loc where = { "f.sg", 3, 10 };
	sym_binding *w = sym_binding_new(ctx);

	assert_int_equal(sym_binding_parse(w, text, &where), -1);
	assert_error(ctx, code, part, "f.sg", 3, col);
	sym_binding_free(w);
	sym_ctx_clear_error(ctx);
}

/* Check the errors of sym_binding_parse and the column of the offending
 * token; "state" is unused. */
static void
test_binding_parse_errors(void **state)
{
	sym_ctx *ctx = tl_ctx_new();
	sym_binding *w;

	(void)state;
	declare(ctx, "b", info_of(1, 0, 8, 0, 0), NULL);
	declare(ctx, "s", info_of(128, 8192, 128, 0, 1), NULL);
	assert_parse_error(ctx, "b=8, x=3", SYM_EDECL, "unknown symbol 'x'",
	    15);
	assert_parse_error(ctx, "x=3", SYM_EDECL, "unknown symbol 'x'", 10);
	assert_parse_error(ctx, "b'=8", SYM_EDECL, "unknown symbol 'b''", 10);
	assert_parse_error(ctx, "b8", SYM_EPARSE, "expected NAME=VALUE", 10);
	assert_parse_error(ctx, "b=8 =3", SYM_EPARSE, "expected NAME=VALUE",
	    14);
	assert_parse_error(ctx, "b 8", SYM_EPARSE, "expected NAME=VALUE", 10);
	assert_parse_error(ctx, "b=8 s-1=2", SYM_EPARSE, "NAME=VALUE", 14);
	assert_parse_error(ctx, "b=", SYM_EPARSE, "invalid value for b", 12);
	assert_parse_error(ctx, "b=x", SYM_EPARSE, "invalid value for b", 12);
	assert_parse_error(ctx, "b=8q", SYM_EPARSE, "invalid value for b", 12);
	assert_parse_error(ctx, "b=8, s=1.5", SYM_EPARSE, "invalid value for s",
	    17);
	assert_parse_error(ctx, "b=9223372036854775808", SYM_EPARSE,
	    "64-bit integer", 12);
	assert_parse_error(ctx, "b=8 s=-9223372036854775809", SYM_EPARSE,
	    "invalid value for s", 16);
	assert_parse_error(ctx, "s=99999999999999999999999", SYM_EPARSE,
	    "64-bit integer", 12);
	assert_parse_error(ctx, "b=8, s=16, b=16", SYM_EPARSE,
	    "b is given twice in binding", 21);
	/* A value starts right after '=' and its blanks: a newline, or
	 * another white space, is not skipped. */
	assert_parse_error(ctx, "b=\n8", SYM_EPARSE, "invalid value for b", 12);
	assert_parse_error(ctx, "b= \t\v8", SYM_EPARSE, "invalid value for b",
	    14);
	assert_parse_error(ctx, "b=8,\ns=128", SYM_EPARSE,
	    "expected NAME=VALUE", 14);
	assert_parse_error(ctx, "b=- 8", SYM_EPARSE, "invalid value for b", 12);

	w = sym_binding_new(ctx);
	assert_int_equal(sym_binding_parse(w, "  y=1", NULL), -1);
	assert_error(ctx, SYM_EDECL, "unknown symbol 'y'", NULL, 1, 3);
	sym_binding_free(w);
	tl_ctx_free(ctx);
}

/* Check sym_binding_check against declarations: admissible values pass,
 * a violation names the rule and its declaration; "state" is unused. */
static void
test_binding_check_declarations(void **state)
{
	sym_loc s_loc = { "f.sg", 4, 8 };
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), &decl_loc);
	sym_symbol *s =
	    declare(ctx, "s", info_of(128, 8192, 128, 0, 1), &s_loc);
	sym_symbol *b1 = sym_symbol_instantiate(b);
	sym_binding *w = sym_binding_new(ctx);

	(void)state;
	assert_int_equal(sym_binding_check(w), 0);
	assert_int_equal(sym_binding_set(w, b, 16), 0);
	assert_int_equal(sym_binding_set(w, s, 8192), 0);
	assert_int_equal(sym_binding_set(w, b1, 40), 0);
	assert_int_equal(sym_binding_check(w), 0);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);

	assert_int_equal(sym_binding_set(w, b, 12), 0);
	assert_int_equal(sym_binding_check(w), -1);
	assert_error(ctx, SYM_EDOMAIN, "b = 12", "f.sg", 3, 8);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "b = 12 violates divisor=8 declared at f.sg:3:8");
	sym_ctx_clear_error(ctx);

	assert_int_equal(sym_binding_set(w, b, 8), 0);
	assert_int_equal(sym_binding_set(w, s, 64), 0);
	assert_int_equal(sym_binding_check(w), -1);
	assert_error(ctx, SYM_EDOMAIN, "s = 64", "f.sg", 4, 8);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "s = 64 violates min=128 declared at f.sg:4:8");
	sym_ctx_clear_error(ctx);

	assert_int_equal(sym_binding_set(w, s, 128), 0);
	assert_int_equal(sym_binding_set(w, b1, 44), 0);
	assert_int_equal(sym_binding_check(w), -1);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "b' = 44 violates divisor=8 declared at f.sg:3:8");
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDOMAIN);
	sym_binding_free(w);
	tl_ctx_free(ctx);
}

/* Check sym_binding_check against a fact: a binding satisfying it
 * passes, one violating it fails with SYM_EDOMAIN naming it, one that
 * binds only some of its symbols fails with SYM_EUNBOUND; "state" is
 * unused. */
static void
test_binding_check_facts(void **state)
{
	sym_loc s_loc = { "f.sg", 4, 8 }, f_loc = { "f.sg", 6, 1 };
	sym_ctx *ctx = tl_ctx_new();
	sym_symbol *b = declare(ctx, "b", info_of(1, 0, 8, 0, 0), &decl_loc);
	sym_symbol *s =
	    declare(ctx, "s", info_of(128, 8192, 128, 0, 1), &s_loc);
	sym_symbol *t = declare(ctx, "t", info_of(1, 0, 1, 0, 1), NULL);
	sym_expr *et = sym_expr_symbol(t);
	sym_expr *rhs = sym_expr_add_si(sym_expr_symbol(s), 128);
	sym_binding *w = sym_binding_new(ctx);
	char *fact;

	(void)state;
	assert_int_equal(sym_ctx_assume(ctx, et, SYM_EQ, rhs, &f_loc), 0);
	fact = sym_ctx_fact_to_str(ctx, 0);
	assert_text(fact, "t == s + 128");

	assert_int_equal(sym_binding_set(w, b, 8), 0);
	assert_int_equal(sym_binding_check(w), 0);
	assert_int_equal(sym_binding_set(w, s, 128), 0);
	assert_int_equal(sym_binding_set(w, t, 256), 0);
	assert_int_equal(sym_binding_check(w), 0);
	assert_int_equal(sym_ctx_last_error(ctx), SYM_OK);

	assert_int_equal(sym_binding_set(w, t, 300), 0);
	assert_int_equal(sym_binding_check(w), -1);
	assert_error(ctx, SYM_EDOMAIN, "'t == s + 128'", "f.sg", 6, 1);
	assert_string_equal(sym_ctx_last_message(ctx),
	    "b = 8, s = 128, t = 300 violates 't == s + 128'");
	sym_ctx_clear_error(ctx);
	sym_binding_free(w);

	w = sym_binding_new(ctx);
	assert_int_equal(sym_binding_set(w, s, 128), 0);
	assert_int_equal(sym_binding_check(w), -1);
	assert_error(ctx, SYM_EUNBOUND, "'t == s + 128'", "f.sg", 6, 1);
	assert_error(ctx, SYM_EUNBOUND, "value for t", "f.sg", 6, 1);
	sym_ctx_clear_error(ctx);

	assert_int_equal(sym_binding_set(w, s, 100), 0);
	assert_int_equal(sym_binding_set(w, t, 228), 0);
	assert_int_equal(sym_binding_check(w), -1);
	assert_error(ctx, SYM_EDOMAIN, "s = 100 violates min=128", "f.sg", 4,
	    8);
	sym_binding_free(w);
	sym_expr_free(et);
	sym_expr_free(rhs);
	tl_ctx_free(ctx);
}

/* Run the tests of this program; returns the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_least_greatest),
		cmocka_unit_test(test_admits),
		cmocka_unit_test(test_invalid_declarations),
		cmocka_unit_test(test_invalid_names),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_accessors),
		cmocka_unit_test(test_instantiate_unique),
		cmocka_unit_test(test_instantiate),
		cmocka_unit_test(test_to_str),
		cmocka_unit_test(test_to_str_long_name),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_explain_long_file),
		cmocka_unit_test(test_ctx_symbols),
		cmocka_unit_test(test_many_symbols),
		cmocka_unit_test(test_symbol_null_arguments),
		cmocka_unit_test(test_binding_basics),
		cmocka_unit_test(test_binding_reuse),
		cmocka_unit_test(test_binding_other_ctx),
		cmocka_unit_test(test_binding_to_str),
		cmocka_unit_test(test_symbols_many),
		cmocka_unit_test(test_binding_parse),
		cmocka_unit_test(test_binding_parse_long_name),
		cmocka_unit_test(test_binding_parse_errors),
		cmocka_unit_test(test_binding_check_declarations),
		cmocka_unit_test(test_binding_check_facts),
	};

	return cmocka_run_group_tests_name("symbol", tests, NULL, NULL);
}
