/* SPDX-License-Identifier: MIT */
/*
 * Bindings: values for some of a context's symbols.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym/prove_private.h"

struct sym_binding {
	struct sym__obj obj; /* first: see spare_free */
	sym_ctx *ctx;
	int64_t *val; /* indexed by symbol id */
	uint8_t *set;
	size_t cap;
	size_t n;          /* number of symbols with a value */
	int inline_arrays; /* val and set live in the same block */
};

/* The most released bindings a context keeps for reuse; none under
 * AddressSanitizer, so that it still catches a binding used after it was
 * freed. */
#if defined(__SANITIZE_ADDRESS__)
#define NO_SPARE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_SPARE 1
#endif
#endif
#ifndef NO_SPARE
#define NO_SPARE 0
#endif
#define MAX_SPARE 8

/* Free the bindings "ctx" keeps for reuse (at sym_ctx_free). */
static void
spare_free(sym_ctx *ctx)
{
	while (ctx->spare_bindings) {
		struct sym__obj *obj = ctx->spare_bindings;

		ctx->spare_bindings = obj->next;
		free(obj);
	}
	ctx->n_spare_bindings = 0;
}

/* Destroy the binding of header "obj", released by its caller (or at
 * sym_ctx_free): its context keeps a few bindings whose arrays were
 * allocated with them for sym_binding_new to reuse; free the others. */
static void
binding_destroy(struct sym__obj *obj)
{
	sym_binding *b = SYM__OBJ_OF(obj, sym_binding, obj);
	sym_ctx *ctx = b->ctx;

	if (NO_SPARE || !b->inline_arrays ||
	    ctx->n_spare_bindings >= MAX_SPARE) {
		if (!b->inline_arrays) {
			free(b->val);
			free(b->set);
		}
		free(b);
		return;
	}
	b->obj.next = ctx->spare_bindings;
	ctx->spare_bindings = &b->obj;
	ctx->n_spare_bindings++;
}

/* Return a binding released earlier in "ctx" with room for every symbol
 * declared so far, emptied, or NULL when there is none. */
static sym_binding *
spare_take(sym_ctx *ctx)
{
	while (ctx->spare_bindings) {
		sym_binding *b = (sym_binding *)ctx->spare_bindings;

		ctx->spare_bindings = b->obj.next;
		ctx->n_spare_bindings--;
		if (b->cap >= ctx->n_sym) {
			memset(b->set, 0, b->cap);
			b->n = 0;
			return b;
		}
		free(b);
	}
	return NULL;
}

/* Return a new, empty binding of symbols of "ctx". Its arrays are
 * allocated with it, sized for the symbols declared so far; a binding
 * released earlier is reused when it is large enough. */
sym_binding *
sym_binding_new(sym_ctx *ctx)
{
	sym_binding *b;
	size_t cap;

	if (!ctx)
		return NULL;
	b = spare_take(ctx);
	if (!b) {
		if (sym__ctx_add_hook(ctx, spare_free) < 0)
			return NULL;
		cap = ctx->n_sym;
		b = sym__alloc(ctx, sizeof(*b) + cap * (sizeof(int64_t) + 1));
		if (!b)
			return NULL;
		b->ctx = ctx;
		b->cap = cap;
		b->val = (int64_t *)(b + 1);
		b->set = (uint8_t *)(b->val + cap);
		b->inline_arrays = 1;
	}
	sym__obj_init(&b->obj, SYM__OBJ_BINDING, binding_destroy);
	sym__obj_give(ctx, &b->obj);
	return b;
}

/* Return a copy of "b". */
sym_binding *
sym_binding_dup(const sym_binding *b)
{
	sym_binding *c;

	if (!b)
		return NULL;
	c = sym_binding_new(b->ctx);
	if (!c)
		return NULL;
	for (size_t id = 0; id < b->cap; id++)
		if (b->set[id] &&
		    sym_binding_set(c, b->ctx->sym[id], b->val[id]) < 0) {
			sym_binding_free(c);
			return NULL;
		}
	return c;
}

/* Free the binding "b" (kept for reuse: see binding_destroy). */
void
sym_binding_free(sym_binding *b)
{
	if (b)
		sym__obj_drop(b->ctx, &b->obj);
}

/* Give symbol "sym" the value "value" in "b"; return 0 or -1. The value is
 * not checked against the declaration: see sym_binding_check. */
int
sym_binding_set(sym_binding *b, sym_symbol *sym, int64_t value)
{
	if (!b || !sym)
		return -1;
	if (sym->ctx != b->ctx) {
		sym__error(b->ctx, SYM_EINVAL, NULL,
		    "symbol %s belongs to another context", sym->name);
		return -1;
	}
	if (sym->id >= b->cap) {
		size_t cap = b->ctx->n_sym > sym->id ? b->ctx->n_sym
		                                     : (size_t)sym->id + 1;
		int64_t *v = sym__realloc_array(b->ctx, NULL, cap, sizeof(*v));
		uint8_t *st = v ? sym__calloc(b->ctx, cap, 1) : NULL;

		if (!v || !st) {
			free(v);
			return -1;
		}
		memcpy(v, b->val, b->cap * sizeof(*v));
		memcpy(st, b->set, b->cap);
		if (!b->inline_arrays) {
			free(b->val);
			free(b->set);
		}
		b->val = v;
		b->set = st;
		b->cap = cap;
		b->inline_arrays = 0;
	}
	if (!b->set[sym->id])
		b->n++;
	b->set[sym->id] = 1;
	b->val[sym->id] = value;
	return 0;
}

/* Store the value of "sym" in "*value" and return 0, or return -1 when
 * "b" has no value for it (no error recorded). */
int
sym_binding_get(const sym_binding *b, const sym_symbol *sym, int64_t *value)
{
	if (!b || !sym || sym->id >= b->cap || !b->set[sym->id])
		return -1;
	if (value)
		*value = b->val[sym->id];
	return 0;
}

/* Return the number of symbols with a value in "b". */
size_t
sym_binding_n_symbols(const sym_binding *b)
{
	return b ? b->n : 0;
}

/* Return the "i"-th symbol with a value in "b", in declaration order. */
sym_symbol *
sym_binding_symbol(const sym_binding *b, size_t i)
{
	if (!b)
		return NULL;
	for (size_t id = 0; id < b->cap; id++)
		if (b->set[id] && i-- == 0)
			return b->ctx->sym[id];
	return NULL;
}

/* Return the value of the "i"-th symbol of "b" (0 if out of range). */
int64_t
sym_binding_value(const sym_binding *b, size_t i)
{
	sym_symbol *s = sym_binding_symbol(b, i);

	return s ? b->val[s->id] : 0;
}

/* Return a malloc'ed "b = 8, s = 128" for "b", or NULL. */
char *
sym_binding_to_str(const sym_binding *b)
{
	size_t len = 1, pos = 0;
	char *s;

	if (!b)
		return NULL;
	for (size_t id = 0; id < b->cap; id++)
		if (b->set[id])
			len += strlen(b->ctx->sym[id]->name) + 28;
	s = sym__alloc(b->ctx, len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t id = 0; id < b->cap; id++)
		if (b->set[id])
			pos += (size_t)snprintf(s + pos, len - pos,
			    "%s%s = %lld", pos ? ", " : "",
			    b->ctx->sym[id]->name, (long long)b->val[id]);
	return s;
}

/* Return the number of characters of the name at "p". */
static size_t
name_length(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	while (p[n] == '\'')
		n++;
	return n;
}

/* Return 1 when "p" starts with a decimal integer: digits after an
 * optional sign, with no blank (strtoll would skip any white space,
 * newlines included, before the number), else 0. */
static int
starts_number(const char *p)
{
	if (*p == '-' || *p == '+')
		p++;
	return isdigit((unsigned char)*p) != 0;
}

/* Parse the assignments of "text" into "b" (see sym_binding_parse),
 * marking in "seen" the symbols it gives. */
static int
parse_into(sym_binding *b, sym_binding *seen, const char *text, sym_loc at)
{
	const char *p = text;

	while (*p) {
		const char *name;
		char *end, *buf;
		size_t len;
		long long v;
		sym_symbol *sym;
		sym_loc here = at;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		here.col = at.col + (int)(p - text);
		name = p;
		len = name_length(p);
		p += len;
		while (*p == ' ' || *p == '\t')
			p++;
		if (len == 0 || *p != '=') {
			sym__error(b->ctx, SYM_EPARSE, &here,
			    "expected NAME=VALUE in binding '%s'", text);
			return -1;
		}
		buf = sym__alloc(b->ctx, len + 1);
		if (!buf)
			return -1;
		memcpy(buf, name, len);
		sym = sym_symbol_find(b->ctx, buf);
		if (!sym) {
			sym__error(b->ctx, SYM_EDECL, &here,
			    "unknown symbol '%s' in binding", buf);
			free(buf);
			return -1;
		}
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (!starts_number(p) || errno == ERANGE ||
		    (*end && *end != ',' && *end != ' ' && *end != '\t')) {
			here.col = at.col + (int)(p - text);
			sym__error(b->ctx, SYM_EPARSE, &here,
			    "invalid value for %s in binding: expected a "
			    "64-bit integer",
			    buf);
			free(buf);
			return -1;
		}
		if (sym_binding_get(seen, sym, NULL) == 0) {
			sym__error(b->ctx, SYM_EPARSE, &here,
			    "%s is given twice in binding '%s'", buf, text);
			free(buf);
			return -1;
		}
		free(buf);
		p = end;
		if (sym_binding_set(seen, sym, 1) < 0 ||
		    sym_binding_set(b, sym, (int64_t)v) < 0)
			return -1;
	}
	return 0;
}

/* Parse "NAME=VALUE" assignments separated by commas or blanks from
 * "text" into "b" (blanks around '=' allowed, so the text of
 * sym_binding_to_str reads back); "where" locates the text for errors.
 * Return 0, or -1 (SYM_EPARSE, SYM_EDECL for an unknown symbol) with "b"
 * unchanged. */
int
sym_binding_parse(sym_binding *b, const char *text, const sym_loc *where)
{
	sym_loc at = { NULL, 1, 1 };
	sym_binding *tmp, *seen;
	int r;

	if (!b || !text)
		return -1;
	if (where)
		at = *where;
	tmp = sym_binding_dup(b);
	seen = sym_binding_new(b->ctx);
	r = tmp && seen ? parse_into(tmp, seen, text, at) : -1;
	sym_binding_free(seen);
	if (r < 0) {
		sym_binding_free(tmp);
		return -1;
	}
	for (size_t id = 0; id < tmp->cap; id++)
		if (tmp->set[id] &&
		    sym_binding_set(b, b->ctx->sym[id], tmp->val[id]) < 0) {
			sym_binding_free(tmp);
			return -1;
		}
	sym_binding_free(tmp);
	return 0;
}

/* Check every value of "b" against its symbol's declaration and every
 * fact of the context whose symbols "b" binds. Return 0, or -1 with
 * SYM_EDOMAIN and a message naming the violated constraint and where it
 * was declared. */
int
sym_binding_check(const sym_binding *b)
{
	int r;

	if (!b)
		return -1;
	for (size_t id = 0; id < b->cap; id++) {
		char *why;

		if (!b->set[id])
			continue;
		why = sym_symbol_explain(b->ctx->sym[id], b->val[id]);
		if (why) {
			sym__error(b->ctx, SYM_EDOMAIN,
			    &b->ctx->sym[id]->origin->loc, "%s", why);
			free(why);
			return -1;
		}
	}
	r = sym__binding_check(b->ctx, b);
	return r;
}
