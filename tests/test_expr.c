/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the expr family: parsing, printing, round trips, the
 * canonical form, constant folding, located errors and evaluation.
 */
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

/* 2^70, which does not fit 64 bits. */
#define TWO_70 "1180591620717411303424"

/* Return a new context with the symbols "a" and "c" (plain), "b" (divisor
 * 8), "s" (divisor 128) and "d" (divisor 2), declared in that order. */
static sym_ctx *
new_ctx(void)
{
	static const struct {
		const char *name;
		int64_t divisor;
	} decl[] = { { "a", 1 }, { "b", 8 }, { "c", 1 }, { "s", 128 },
		{ "d", 2 } };
	sym_ctx *ctx = tl_ctx_new();

	for (size_t i = 0; i < sizeof(decl) / sizeof(decl[0]); i++) {
		sym_symbol_info info = SYM_SYMBOL_INFO_INIT;

		info.divisor = decl[i].divisor;
		assert_non_null(sym_symbol_new(ctx, decl[i].name, &info, NULL));
	}
	return ctx;
}

/* Return a new context with one symbol "name" of divisor "divisor". */
static sym_ctx *
ctx_with(const char *name, int64_t divisor)
{
	sym_symbol_info info = SYM_SYMBOL_INFO_INIT;
	sym_ctx *ctx = sym_ctx_new();

	assert_non_null(ctx);
	info.divisor = divisor;
	assert_non_null(sym_symbol_new(ctx, name, &info, NULL));
	return ctx;
}

/* Return the expression parsed from "text" in "ctx", failing the test with
 * the context's message when it does not parse. */
static sym_expr *
parse(sym_ctx *ctx, const char *text)
{
	sym_expr *e = sym_expr_parse(ctx, text, NULL);

	if (!e)
		fail_msg("cannot parse \"%s\": %s", text,
		    sym_ctx_last_message(ctx));
	return e;
}

/* Check that "text" parses in "ctx" to an expression printed "want", and
 * that the printed text parses back to the same expression. */
static void
check_print(sym_ctx *ctx, const char *text, const char *want)
{
	sym_expr *e = parse(ctx, text), *f;
	char *s = sym_expr_to_str(e);

	assert_non_null(s);
	if (strcmp(s, want) != 0)
		fail_msg("\"%s\" printed \"%s\", expected \"%s\"", text, s,
		    want);
	f = parse(ctx, s);
	assert_ptr_equal(f, e);
	free(s);
	sym_expr_free(f);
	sym_expr_free(e);
}

/* Check that "t1" and "t2" parse in "ctx" to the same expression. */
static void
check_same(sym_ctx *ctx, const char *t1, const char *t2)
{
	sym_expr *e1 = parse(ctx, t1), *e2 = parse(ctx, t2);

	if (e1 != e2) {
		char *s1 = sym_expr_to_str(e1), *s2 = sym_expr_to_str(e2);

		fail_msg("\"%s\" gives \"%s\" but \"%s\" gives \"%s\"", t1,
		    s1 ? s1 : "?", t2, s2 ? s2 : "?");
	}
	sym_expr_free(e1);
	sym_expr_free(e2);
}

/* Check that "t1" and "t2" parse in "ctx" to different expressions. */
static void
check_differ(sym_ctx *ctx, const char *t1, const char *t2)
{
	sym_expr *e1 = parse(ctx, t1), *e2 = parse(ctx, t2);

	assert_ptr_not_equal(e1, e2);
	sym_expr_free(e1);
	sym_expr_free(e2);
}

/* Check that parsing "text" in "ctx" from "where" fails with "code", a
 * message containing "sub", at "line" and "col". */
static void
check_error_at(sym_ctx *ctx, const char *text, const sym_loc *where,
    sym_error code, const char *sub, int line, int col)
{
	sym_expr *e = sym_expr_parse(ctx, text, where);
	const char *msg = sym_ctx_last_message(ctx);
	sym_loc loc = sym_ctx_last_location(ctx);

	if (e)
		fail_msg("\"%s\" parsed, expected an error", text);
	if (sym_ctx_last_error(ctx) != code || !strstr(msg, sub) ||
	    loc.line != line || loc.col != col)
		fail_msg("\"%s\": error %d at %d:%d \"%s\", expected %d at "
		         "%d:%d \"...%s...\"",
		    text, (int)sym_ctx_last_error(ctx), loc.line, loc.col, msg,
		    (int)code, line, col, sub);
	if (where && where->file)
		assert_string_equal(loc.file, where->file);
	else
		assert_null(loc.file);
}

/* Check that parsing "text" in "ctx" fails with "code", a message
 * containing "sub", on line 1 at column "col". */
static void
check_error(sym_ctx *ctx, const char *text, sym_error code, const char *sub,
    int col)
{
	check_error_at(ctx, text, NULL, code, sub, 1, col);
}

/* Return the value of "text" parsed in "ctx" under "b", failing the test
 * when the evaluation fails. */
static int64_t
eval(sym_ctx *ctx, const char *text, const sym_binding *b)
{
	sym_expr *e = parse(ctx, text);
	int64_t v = 0;

	if (sym_expr_eval(e, b, &v) < 0)
		fail_msg("cannot evaluate \"%s\": %s", text,
		    sym_ctx_last_message(ctx));
	sym_expr_free(e);
	return v;
}

/* Check that evaluating "text" parsed in "ctx" under "b" fails with
 * "code". */
static void
check_eval_error(sym_ctx *ctx, const char *text, const sym_binding *b,
    sym_error code)
{
	sym_expr *e = parse(ctx, text);
	int64_t v = 0;

	assert_int_equal(sym_expr_eval(e, b, &v), -1);
	assert_int_equal(sym_ctx_last_error(ctx), code);
	sym_expr_free(e);
}

/* Check the printing of sums, products and constants; "state" is
 * unused. */
static void
test_print_sums(void **state)
{
	sym_ctx *ctx = new_ctx();

	(void)state;
	check_print(ctx, "2*b + 1", "2*b + 1");
	check_print(ctx, "1 + b*2", "2*b + 1");
	check_print(ctx, "a - 2*b", "a - 2*b");
	check_print(ctx, "3 - b", "-b + 3");
	check_print(ctx, "b*c", "b*c");
	check_print(ctx, "c*b*b", "b*b*c");
	check_print(ctx, "-b", "-b");
	check_print(ctx, "-2*b", "-2*b");
	check_print(ctx, "-2*b - 2*a*c - 1", "-2*b - 2*a*c - 1");
	check_print(ctx, "0", "0");
	check_print(ctx, "-5", "-5");
	check_print(ctx, "b - b", "0");
	check_print(ctx, "(a + 1)*(a - 1)", "a*a - 1");
	check_print(ctx, "a*(b + c)", "a*b + a*c");
	tl_ctx_free(ctx);
}

/* Check the printing of integers beyond 64 bits; "state" is unused. */
static void
test_print_big_integers(void **state)
{
	sym_ctx *ctx = new_ctx();

	(void)state;
	check_print(ctx, TWO_70, TWO_70);
	check_print(ctx, "-" TWO_70, "-" TWO_70);
	check_print(ctx, TWO_70 "*b - " TWO_70, TWO_70 "*b - " TWO_70);
	check_print(ctx, "a - " TWO_70 "*b", "a - " TWO_70 "*b");
	check_print(ctx, "34359738368*34359738368", TWO_70);
	check_print(ctx, TWO_70 " - " TWO_70 " + 1", "1");
	check_print(ctx, "0000042", "42");
	tl_ctx_free(ctx);
}

/* Check the printing of floordiv, mod, min and max atoms and where they
 * get parentheses; "state" is unused. */
static void
test_print_atoms(void **state)
{
	sym_ctx *ctx = new_ctx();

	(void)state;
	check_print(ctx, "b floordiv 8", "b floordiv 8");
	check_print(ctx, "a mod 128", "a mod 128");
	check_print(ctx, "min(a, c)", "min(a, c)");
	check_print(ctx, "max(c, a)", "max(a, c)");
	check_print(ctx, "(2*a + 1) floordiv 7", "(2*a + 1) floordiv 7");
	check_print(ctx, "a floordiv (c + 1)", "a floordiv (c + 1)");
	check_print(ctx, "a floordiv (2*c)", "a floordiv (2*c)");
	check_print(ctx, "a floordiv c", "a floordiv c");
	check_print(ctx, "a floordiv min(a, c)", "a floordiv min(a, c)");
	check_print(ctx, "2*(a floordiv 8)", "2*(a floordiv 8)");
	check_print(ctx, "(a mod 4)*c", "c*(a mod 4)");
	check_print(ctx, "(a mod 4)*(a mod 4)", "(a mod 4)*(a mod 4)");
	check_print(ctx, "a + c mod 4", "a + c mod 4");
	check_print(ctx, "a - c mod 4", "a - c mod 4");
	check_print(ctx, "-(a mod 4)", "-(a mod 4)");
	check_print(ctx, "-2*(a mod 4) + 1", "-2*(a mod 4) + 1");
	check_print(ctx, "(a floordiv c) floordiv 4",
	    "(a floordiv c) floordiv 4");
	check_print(ctx, "(-a) floordiv c", "(-a) floordiv c");
	check_print(ctx, "5 floordiv c", "5 floordiv c");
	check_print(ctx, "a*c mod 7", "a*c mod 7");
	check_print(ctx, "max(a + 1, c*c)", "max(a + 1, c*c)");
	check_print(ctx, "(b floordiv 2) floordiv 4", "b floordiv 8");
	tl_ctx_free(ctx);
}

/* Check operator synonyms, precedence, associativity and the function
 * forms; "state" is unused. */
static void
test_parse_operators(void **state)
{
	sym_ctx *ctx = new_ctx();

	(void)state;
	check_same(ctx, "a // 4", "a floordiv 4");
	check_same(ctx, "a % 4", "a mod 4");
	check_same(ctx, "floordiv(a, 4)", "a floordiv 4");
	check_same(ctx, "mod(a, c)", "a mod c");
	check_same(ctx, "ceildiv(a, 4)", "a ceildiv 4");
	check_same(ctx, "a ceildiv 4", "(a + 3) floordiv 4");
	check_same(ctx, "2*a floordiv 8", "(2*a) floordiv 8");
	check_same(ctx, "2*a floordiv 8", "a floordiv 4");
	check_same(ctx, "a - a mod 2", "a - (a mod 2)");
	check_same(ctx, "a*c mod 4", "(a*c) mod 4");
	check_same(ctx, "a mod 4*c", "(a mod 4)*c");
	check_same(ctx, "a floordiv c floordiv 4", "(a floordiv c) floordiv 4");
	check_same(ctx, "a + c*2 - 1", "(a + (c*2)) - 1");
	check_same(ctx, "a - c - 1", "(a - c) - 1");
	check_same(ctx, "min(a, b, c)", "min(min(a, b), c)");
	check_same(ctx, "max(a, b, c, 7)", "max(max(max(a, b), c), 7)");
	check_same(ctx, "--a", "a");
	check_same(ctx, "+a", "a");
	check_same(ctx, "- -+- a", "-a");
	check_same(ctx, "-a*c", "-(a*c)");
	check_same(ctx, "-a mod 4", "(-a) mod 4");
	check_differ(ctx, "-a mod 4", "-(a mod 4)");
	check_same(ctx, "(((a)))", "a");
	check_same(ctx, " \ta\n+\r\n c ", "a + c");
	check_same(ctx, "min (a, c)", "min(a, c)");
	tl_ctx_free(ctx);
}

/* Check names with primes (instances of a non-unique symbol); "state" is
 * unused. */
static void
test_parse_instances(void **state)
{
	sym_ctx *ctx = new_ctx();
	sym_symbol *c = sym_symbol_find(ctx, "c");
	sym_symbol *c1 = sym_symbol_instantiate(c);
	sym_symbol *c2 = sym_symbol_instantiate(c);
	sym_expr *e;

	(void)state;
	assert_non_null(c1);
	assert_non_null(c2);
	assert_string_equal(sym_symbol_name(c2), "c''");
	e = parse(ctx, "c''");
	assert_true(sym_expr_is_symbol(e));
	assert_true(sym_expr_involves(e, c2));
	sym_expr_free(e);
	check_print(ctx, "c' + c", "c + c'");
	check_print(ctx, "c''*c' - c", "-c + c'*c''");
	check_error(ctx, "a'", SYM_EDECL, "unknown symbol 'a''", 1);
	tl_ctx_free(ctx);
}

/* Check that printing and parsing again gives the same expression, for
 * many expressions; "state" is unused. */
static void
test_round_trip(void **state)
{
	static const char *text[] = {
		"a",
		"-a",
		"0",
		"1",
		"-1",
		"a + b + c + s + d",
		"2*a - 3*b + 4*c - 5",
		"a*b*c*s*d",
		"a*a*a - c*c + 1",
		"(a + 1)*(a + 1)*(a + 1)",
		TWO_70 "*a*c - " TWO_70,
		"a floordiv 2",
		"a floordiv 3 + a mod 3",
		"(a + 2*c + 1) floordiv 5",
		"(3*a + 1) mod 4",
		"(a floordiv 2) floordiv 4",
		"(a mod 8) mod 4",
		"(a mod 4) mod 8",
		"a floordiv c",
		"a mod (c + 1)",
		"(a + 1) mod (c*c)",
		"(a floordiv c) mod c",
		"-a floordiv c",
		"-(a floordiv c)",
		"(a - c) floordiv 2",
		"a ceildiv c",
		"a ceildiv 8",
		"min(a, c)",
		"max(a, c) - min(a, c)",
		"min(a, b, c, 4)",
		"max(a floordiv 2, c mod 3)",
		"2*min(a, c)*max(a, c)",
		"a floordiv max(a, c)",
		"min(a, c) floordiv 3",
		"-(a mod 4)*c + a mod 4",
		"(a mod 4)*(c mod 4)",
		"b floordiv 8 + s floordiv 128",
		"b floordiv 16",
		"4*b mod 8",
		"(b + 3) floordiv 8",
		"d floordiv 2",
		"d*d mod 8",
		"(s + a) mod 64",
		"a - a mod 2",
		"a floordiv c floordiv c floordiv c",
		"max(-a, -c)",
		"min(a - 5, -c) + 7",
	};
	sym_ctx *ctx = new_ctx();

	(void)state;
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		sym_expr *e = parse(ctx, text[i]), *f;
		char *s = sym_expr_to_str(e), *s2;

		assert_non_null(s);
		f = parse(ctx, s);
		if (f != e)
			fail_msg("\"%s\" printed \"%s\" reads back differently",
			    text[i], s);
		s2 = sym_expr_to_str(f);
		assert_string_equal(s2, s);
		free(s);
		free(s2);
		sym_expr_free(e);
		sym_expr_free(f);
	}
	tl_ctx_free(ctx);
}

/* Check the simplifications the canonical form must make; "state" is
 * unused. */
static void
test_canonical_form(void **state)
{
	static const char *e[] = { "a", "a + 3", "2*a + c", "a*c", "min(a, c)",
		"a floordiv c" };
	static const char *k[] = { "2", "3", "8", "128" };
	sym_ctx *ctx = new_ctx();

	(void)state;
	check_same(ctx, "b + b", "2*b");
	check_same(ctx, "b - b", "0");
	check_same(ctx, "min(b, b)", "b");
	check_same(ctx, "max(b, b + 1)", "b + 1");
	check_same(ctx, "min(b, b + 1)", "b");
	check_same(ctx, "(a floordiv 2)*2 + a mod 2", "a");
	check_same(ctx, "b mod 4", "0");
	check_same(ctx, "b floordiv 8 * 8", "b");
	check_same(ctx, "s mod 128", "0");
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++) {
			char text[128];

			snprintf(text, sizeof(text),
			    "%s*((%s) floordiv %s) + (%s) mod %s", k[j], e[i],
			    k[j], e[i], k[j]);
			check_same(ctx, text, e[i]);
		}
	tl_ctx_free(ctx);
	ctx = ctx_with("b", 1);
	check_same(ctx, "(8*b + 3) floordiv 8", "b");
	check_same(ctx, "(8*b + 3) mod 8", "3");
	check_same(ctx, "(8*b - 1) floordiv 8", "b - 1");
	tl_ctx_free(ctx);
	ctx = ctx_with("b", 2);
	check_same(ctx, "4*b mod 8", "0");
	check_same(ctx, "(4*b + 5) mod 8", "5");
	tl_ctx_free(ctx);
	ctx = ctx_with("b", 8);
	check_same(ctx, "b mod 4", "0");
	check_same(ctx, "(b + 1) mod 4", "1");
	tl_ctx_free(ctx);
}

/* Check that every operator folds constants; "state" is unused. */
static void
test_constant_folding(void **state)
{
	sym_ctx *ctx = new_ctx();

	(void)state;
	check_same(ctx, "2 + 3", "5");
	check_same(ctx, "2 - 7", "-5");
	check_same(ctx, "6*7", "42");
	check_same(ctx, "-(4)", "-4");
	check_same(ctx, "7 floordiv 2", "3");
	check_same(ctx, "-7 floordiv 2", "-4");
	check_same(ctx, "7 // 2", "3");
	check_same(ctx, "7 ceildiv 2", "4");
	check_same(ctx, "-7 ceildiv 2", "-3");
	check_same(ctx, "8 ceildiv 2", "4");
	check_same(ctx, "7 mod 3", "1");
	check_same(ctx, "-7 mod 3", "2");
	check_same(ctx, "7 % 3", "1");
	check_same(ctx, "min(3, -2)", "-2");
	check_same(ctx, "max(3, -2)", "3");
	check_same(ctx, "floordiv(9, 4) + ceildiv(9, 4) + mod(9, 4)", "6");
	check_same(ctx, TWO_70 " floordiv 1024", "1152921504606846976");
	check_same(ctx, TWO_70 " mod 1000", "424");
	check_same(ctx, "a - a + 1", "1");
	tl_ctx_free(ctx);
}

/* Check that ceildiv is the ceiling of the quotient; "state" is
 * unused. */
static void
test_ceildiv(void **state)
{
	sym_ctx *ctx = ctx_with("b", 1);
	sym_symbol *b = sym_symbol_find(ctx, "b");
	sym_binding *bind = sym_binding_new(ctx);

	(void)state;
	check_same(ctx, "7 ceildiv 2", "4");
	for (int64_t v = 1; v <= 40; v++) {
		assert_int_equal(sym_binding_set(bind, b, v), 0);
		assert_int_equal(eval(ctx, "b ceildiv 8", bind), (v + 7) / 8);
		assert_int_equal(eval(ctx, "(b - 20) ceildiv 8", bind),
		    v >= 20 ? (v - 13) / 8 : -((20 - v) / 8));
	}
	sym_binding_free(bind);
	tl_ctx_free(ctx);
}

/* Check the syntax errors, their messages and locations; "state" is
 * unused. */
static void
test_parse_errors(void **state)
{
	sym_ctx *ctx = new_ctx();
	sym_loc where = { "model.sg", 7, 12 };

	(void)state;
	check_error(ctx, "", SYM_EPARSE, "expected an expression", 1);
	check_error(ctx, "   ", SYM_EPARSE, "expected an expression", 4);
	check_error(ctx, ")", SYM_EPARSE, "unexpected ')'", 1);
	check_error(ctx, "a)", SYM_EPARSE, "unexpected ')'", 2);
	check_error(ctx, "a +", SYM_EPARSE, "expected an expression after '+'",
	    4);
	check_error(ctx, "a + )", SYM_EPARSE,
	    "expected an expression after '+'", 5);
	check_error(ctx, "a * * c", SYM_EPARSE,
	    "expected an expression after '*'", 5);
	check_error(ctx, "a floordiv", SYM_EPARSE,
	    "expected an expression after 'floordiv'", 11);
	check_error(ctx, "-", SYM_EPARSE, "expected an expression after '-'",
	    2);
	check_error(ctx, "* a", SYM_EPARSE, "expected an expression before '*'",
	    1);
	check_error(ctx, "a + q", SYM_EDECL, "unknown symbol 'q'", 5);
	check_error(ctx, "(a + 1", SYM_EPARSE,
	    "missing ')' to close '(' at column 1", 7);
	check_error(ctx, "a*(c + (a", SYM_EPARSE,
	    "missing ')' to close '(' at column 8", 10);
	check_error(ctx, "(a + 1 c", SYM_EPARSE, "')' to close '(' at column 1",
	    8);
	check_error(ctx, "a c", SYM_EPARSE, "trailing input after expression",
	    3);
	check_error(ctx, "2a", SYM_EPARSE, "trailing input after expression",
	    2);
	check_error(ctx, "a $ c", SYM_EPARSE, "unexpected character '$'", 3);
	check_error(ctx, "a / 2", SYM_EPARSE, "unexpected '/'", 3);
	check_error(ctx, "a + \x01", SYM_EPARSE, "unexpected byte 0x01", 5);
	check_error(ctx, "mod + 1", SYM_EPARSE, "'mod' is a reserved word", 1);
	check_error(ctx, "a + min", SYM_EPARSE, "'min' is a reserved word", 5);
	check_error(ctx, "min(a)", SYM_EPARSE, "min() takes at least two", 6);
	check_error(ctx, "max(a, c", SYM_EPARSE,
	    "missing ')' to close '(' at column 4", 9);
	check_error(ctx, "max(a c)", SYM_EPARSE, "expected ',' or ')'", 7);
	check_error(ctx, "min(a,)", SYM_EPARSE,
	    "expected an expression after ','", 7);
	check_error(ctx, "floordiv(a, c, 2)", SYM_EPARSE,
	    "floordiv() takes exactly two arguments", 14);
	check_error(ctx, "mod(a)", SYM_EPARSE, "mod() takes exactly two", 6);
	check_error_at(ctx, "a + q", &where, SYM_EDECL, "unknown symbol 'q'", 7,
	    16);
	check_error_at(ctx, "a +\n  (c\n   * )", &where, SYM_EPARSE,
	    "expected an expression after '*'", 9, 6);
	check_error_at(ctx, "(a +\n c", &where, SYM_EPARSE,
	    "missing ')' to close '(' at line 7, column 12", 8, 3);
	tl_ctx_free(ctx);
}

/* Check the size limits of the parser: nesting and literal length;
 * "state" is unused. */
static void
test_parse_limits(void **state)
{
	sym_ctx *ctx = new_ctx();
	size_t n = 100000;
	char *text = malloc(2 * n + 2);
	sym_expr *e;

	(void)state;
	assert_non_null(text);
	memset(text, '(', 1000);
	text[1000] = 'a';
	memset(text + 1001, ')', 1000);
	text[2001] = '\0';
	e = parse(ctx, text);
	assert_true(sym_expr_is_symbol(e));
	sym_expr_free(e);
	memset(text, '(', 1001);
	text[1001] = 'a';
	memset(text + 1002, ')', 1001);
	text[2003] = '\0';
	check_error(ctx, text, SYM_EPARSE, "nested too deeply", 1001);
	memset(text, '-', n);
	strcpy(text + n, "a");
	check_error(ctx, text, SYM_EPARSE, "nested too deeply", 1001);
	memset(text, '1', n);
	text[n] = '\0';
	check_error(ctx, text, SYM_EPARSE, "integer literal too long", 1);
	text[10000] = '\0';
	e = parse(ctx, text);
	assert_true(sym_expr_is_const(e));
	sym_expr_free(e);
	strcpy(text, "a");
	for (int i = 0; i < 299; i++)
		strcat(text, " floordiv c");
	e = parse(ctx, text);
	sym_expr_free(e);
	strcat(text, " floordiv c");
	check_error(ctx, text, SYM_EPARSE, "expression too deep", 3292);
	free(text);
	tl_ctx_free(ctx);
}

/* Check that the deepest expression the parser builds, printed with the
 * most parentheses, reads back; "state" is unused. */
static void
test_deep_round_trip(void **state)
{
	sym_ctx *ctx = new_ctx();
	sym_expr *e = sym_expr_symbol(sym_symbol_find(ctx, "a")), *f;
	char *s;

	(void)state;
	for (int i = 0; i < 299; i++) {
		sym_expr *c = sym_expr_symbol(sym_symbol_find(ctx, "c"));

		e = sym_expr_neg(sym_expr_floordiv(sym_expr_add_si(e, 1), c));
	}
	assert_non_null(e);
	s = sym_expr_to_str(e);
	assert_non_null(s);
	assert_memory_equal(s, "-((-((-((", 9);
	f = parse(ctx, s);
	assert_ptr_equal(f, e);
	free(s);
	sym_expr_free(f);
	sym_expr_free(e);
	tl_ctx_free(ctx);
}

/* Check that a division by a constant that is not positive is an error
 * located at the operator; "state" is unused. */
static void
test_division_errors(void **state)
{
	sym_ctx *ctx = new_ctx();
	sym_loc where = { "f.sg", 2, 10 };

	(void)state;
	check_error(ctx, "b floordiv 0", SYM_EDIVZERO, "division by 0", 3);
	check_error(ctx, "b mod 0", SYM_EDIVZERO, "modulo by 0", 3);
	check_error(ctx, "b ceildiv 0", SYM_EDIVZERO, "by 0", 3);
	check_error(ctx, "a + b // (c - c)", SYM_EDIVZERO, "by 0", 7);
	check_error(ctx, "b % -3", SYM_EDIVZERO, "by -3", 3);
	check_error(ctx, "1 + floordiv(b, 0)", SYM_EDIVZERO, "by 0", 5);
	check_error_at(ctx, "b floordiv 0", &where, SYM_EDIVZERO,
	    "division by 0", 2, 12);
	tl_ctx_free(ctx);
}

/* Check evaluation under a binding, with its errors; "state" is
 * unused. */
static void
test_eval(void **state)
{
	sym_ctx *ctx = new_ctx();
	sym_binding *bind = sym_binding_new(ctx);

	(void)state;
	assert_int_equal(sym_binding_set(bind, sym_symbol_find(ctx, "a"), 13),
	    0);
	assert_int_equal(sym_binding_set(bind, sym_symbol_find(ctx, "b"), 40),
	    0);
	assert_int_equal(sym_binding_set(bind, sym_symbol_find(ctx, "c"), 1),
	    0);
	assert_int_equal(eval(ctx, "2*b + 1", bind), 81);
	assert_int_equal(eval(ctx, "a - 2*b", bind), -67);
	assert_int_equal(eval(ctx, "b floordiv 8", bind), 5);
	assert_int_equal(eval(ctx, "a mod 4", bind), 1);
	assert_int_equal(eval(ctx, "-a floordiv 4", bind), -4);
	assert_int_equal(eval(ctx, "(-a) mod 4", bind), 3);
	assert_int_equal(eval(ctx, "a ceildiv 4", bind), 4);
	assert_int_equal(eval(ctx, "min(a, b) + max(a, b)", bind), 53);
	assert_int_equal(eval(ctx, "a floordiv (c + 1)", bind), 6);
	assert_int_equal(eval(ctx, "a mod (b - a)", bind), 13);
	assert_int_equal(eval(ctx, "a*a*b", bind), 6760);
	assert_int_equal(eval(ctx, TWO_70 " floordiv " TWO_70, bind), 1);
	check_eval_error(ctx, "s + a", bind, SYM_EUNBOUND);
	check_eval_error(ctx, "a floordiv (c - 1)", bind, SYM_EDIVZERO);
	check_eval_error(ctx, "a mod (c - 1)", bind, SYM_EDIVZERO);
	check_eval_error(ctx, "a floordiv (c - 2)", bind, SYM_EDIVZERO);
	check_eval_error(ctx, TWO_70 " + a", bind, SYM_EOVERFLOW);
	assert_int_equal(sym_binding_set(bind, sym_symbol_find(ctx, "b"),
	                     INT64_C(1) << 40),
	    0);
	check_eval_error(ctx, "b*b", bind, SYM_EOVERFLOW);
	check_eval_error(ctx, "9223372036854775807 + b", bind, SYM_EOVERFLOW);
	assert_int_equal(eval(ctx, "b*b floordiv b", bind), INT64_C(1) << 40);
	sym_binding_free(bind);
	tl_ctx_free(ctx);
}

/* Return the next value of the pseudo-random sequence in "*seed". */
static uint32_t
next_random(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)(*seed >> 33);
}

/* Check that the parser survives random input: each text parses and
 * round-trips, or fails with a located error; "state" is unused. */
static void
test_parse_garbage(void **state)
{
	static const char alphabet[] = "abcsd'0189 +-*/%(),floordivceilmx\n";
	sym_ctx *ctx = new_ctx();
	uint64_t seed = 42;
	sym_loc where = { "fuzz", 1, 1 };
	int parsed = 0;

	(void)state;
	for (int i = 0; i < 3000; i++) {
		char text[48];
		size_t len = next_random(&seed) % (sizeof(text) - 1);
		sym_expr *e;

		for (size_t j = 0; j < len; j++) {
			uint32_t r = next_random(&seed);

			text[j] = r % 4
			    ? alphabet[r / 4 % (sizeof(alphabet) - 1)]
			    : (char)(1 + r / 4 % 255);
		}
		text[len] = '\0';
		e = sym_expr_parse(ctx, text, &where);
		if (e) {
			char *s = sym_expr_to_str(e);
			sym_expr *f = parse(ctx, s);

			assert_ptr_equal(f, e);
			free(s);
			sym_expr_free(f);
			sym_expr_free(e);
			parsed++;
		} else {
			sym_error code = sym_ctx_last_error(ctx);
			sym_loc loc = sym_ctx_last_location(ctx);

			assert_true(code == SYM_EPARSE || code == SYM_EDECL ||
			    code == SYM_EDIVZERO);
			assert_string_equal(loc.file, "fuzz");
			assert_true(loc.line >= 1 && loc.col >= 1);
			assert_true(loc.line > 1 || loc.col <= (int)len + 1);
			assert_true(strlen(sym_ctx_last_message(ctx)) > 0);
		}
	}
	assert_true(parsed > 0);
	tl_ctx_free(ctx);
}

/* Check the behaviour on NULL arguments; "state" is unused. */
static void
test_null_arguments(void **state)
{
	sym_ctx *ctx = new_ctx();

	(void)state;
	assert_null(sym_expr_to_str(NULL));
	assert_null(sym_expr_parse(NULL, "a", NULL));
	assert_null(sym_expr_parse(ctx, NULL, NULL));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EINVAL);
	tl_ctx_free(ctx);
}

/* Run the tests of this program; return the number of failures. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_sums),
		cmocka_unit_test(test_print_big_integers),
		cmocka_unit_test(test_print_atoms),
		cmocka_unit_test(test_parse_operators),
		cmocka_unit_test(test_parse_instances),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_canonical_form),
		cmocka_unit_test(test_constant_folding),
		cmocka_unit_test(test_ceildiv),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_deep_round_trip),
		cmocka_unit_test(test_division_errors),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_null_arguments),
	};

	return cmocka_run_group_tests_name("expr", tests, NULL, NULL);
}
