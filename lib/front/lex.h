/* SPDX-License-Identifier: MIT */
/*
 * The lexical layer of the graph text format (symshard-graph(5)): the
 * parser's state, positions and locations, located errors, names,
 * integers, strings, the extent of embedded expressions, and "did you
 * mean" suggestions. Statements are one per line: nothing here reads past
 * the end of the current line.
 */
#ifndef SYM_FRONT_LEX_H
#define SYM_FRONT_LEX_H

#include "core/htab.h"
#include "graph/graph_private.h"

/* Parentheses allowed inside one expression, strategy or list. */
#define SYM__PARSE_MAX_NESTING 200
/* Characters of user text quoted in a message. */
#define SYM__PARSE_MAX_QUOTE 40

/* printf arguments quoting at most SYM__PARSE_MAX_QUOTE bytes of user
 * text of "n" bytes: "%.*s%s", SYM__QLEN(n), text, SYM__QDOTS(n). */
#define SYM__QLEN(n) \
	((n) > SYM__PARSE_MAX_QUOTE ? SYM__PARSE_MAX_QUOTE : (int)(n))
#define SYM__QDOTS(n) ((n) > SYM__PARSE_MAX_QUOTE ? "..." : "")

/* A set of names: the values or symbols whose definition failed, so
 * that their uses are not reported again (items: owned copies of the
 * names). */
struct sym__nameset {
	struct sym__htab t;
	size_t n;
};

struct sym__parser {
	sym_ctx *ctx;
	sym_graph *g;
	const char *src;  /* the graph's copy of the text */
	const char *file; /* interned in the graph, or NULL */
	size_t pos;       /* the next byte to read */
	size_t bol;       /* the first byte of the current line */
	int line;
	int col0; /* columns before the text's first line (API text) */
	int oom;  /* out of memory: give up */
	struct sym__nameset failed;     /* values */
	struct sym__nameset failed_sym; /* symbols */
};

/* A growing array of "elem"-byte elements. */
struct sym__vec {
	void *v;
	size_t n, cap;
};

sym_loc sym__lex_loc(const struct sym__parser *p, size_t pos);
int sym__lex_error(struct sym__parser *p, size_t pos, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int sym__lex_unclosed(struct sym__parser *p, char close, const char *what,
    size_t open);
int sym__lex_list_start(struct sym__parser *p, char close, const char *what,
    size_t open);
int sym__lex_list_next(struct sym__parser *p, char close, const char *what,
    size_t open, const char *elem);
int sym__lex_ctx_error(struct sym__parser *p, size_t pos);
int sym__lex_push(struct sym__parser *p, struct sym__vec *v, size_t size,
    const void *elem);

int sym__lex_is_name_start(char c);
int sym__lex_is_name_char(char c);
char sym__lex_peek(struct sym__parser *p);
int sym__lex_accept(struct sym__parser *p, char c);
int sym__lex_at_arrow(struct sym__parser *p);
int sym__lex_name(struct sym__parser *p, size_t *start, size_t *len);
int sym__lex_word_is(const struct sym__parser *p, size_t start, size_t len,
    const char *word);
char *sym__lex_strndup(struct sym__parser *p, size_t start, size_t len);
/* The name that comes next, copied; NULL after "expected EXPECTED". */
char *sym__lex_name_copy(struct sym__parser *p, const char *expected,
    size_t *start, size_t *len);
int sym__lex_int(struct sym__parser *p, int64_t *value, size_t *start);
int sym__lex_string(struct sym__parser *p, char **out);
const char *sym__lex_describe(const struct sym__parser *p, size_t pos,
    char *buf, size_t size);
int sym__lex_extent(struct sym__parser *p, const char *stop, const char *hard,
    size_t *start, size_t *end);
sym_expr *sym__lex_expr(struct sym__parser *p, size_t start, size_t end);

/* The closest candidate to a misspelt name, for "did you mean" hints. */
struct sym__suggest {
	const char *name;
	size_t len;
	int best_dist;
	const char *best;
	char hint[SYM__PARSE_MAX_QUOTE * 2 + 32];
};

void sym__suggest_init(struct sym__suggest *s, const char *name, size_t len);
void sym__suggest_try(struct sym__suggest *s, const char *candidate);
const char *sym__suggest_hint(struct sym__suggest *s);

/* Statements (parse.c, parse_op.c, parse_shard.c). */
int sym__parse_expr_list(struct sym__parser *p, const char *what,
    const char *item, struct sym__vec *items);
void sym__parse_free_exprs(struct sym__vec *items);
int sym__parse_unknown_value(struct sym__parser *p, size_t start, size_t len);
int sym__parse_failed(struct sym__parser *p, size_t before, size_t pos);
void sym__parse_poison(struct sym__parser *p, const char *name);
int sym__parse_end(struct sym__parser *p, const char *after);
int sym__parse_op(struct sym__parser *p, size_t start, size_t len);
int sym__parse_import(struct sym__parser *p);
int sym__parse_shard_named(struct sym__parser *p);
int sym__parse_double(struct sym__parser *p, const char *s, size_t n,
    double *v);
/* Training statements (parse_train.c). */
struct sym__value_options {
	int has_init, frozen;
	sym_init init;
	size_t init_at;
};
int sym__parse_value_options(struct sym__parser *p, sym_value_kind kind,
    struct sym__value_options *o);
int sym__apply_value_options(struct sym__parser *p, sym_value *v,
    const struct sym__value_options *o);
int sym__parse_minimize(struct sym__parser *p);
int sym__parse_mesh(struct sym__parser *p);
struct sym__strategy *sym__parse_strategy(struct sym__parser *p);

int sym__nameset_add(struct sym__parser *p, struct sym__nameset *set,
    const char *name);
int sym__nameset_has(const struct sym__nameset *set, const char *name);
void sym__nameset_clear(struct sym__nameset *set);

#endif
