/* SPDX-License-Identifier: MIT */
/*
 * Operator attributes: an ordered set of named values (integers, booleans,
 * floats, strings, lists of expressions), each optionally located where it
 * was written.
 *
 * Setting a name that exists replaces its value (and forgets its
 * location) in place. A setter that fails on a set (out of memory, a bad
 * name or value) marks it failed, so that sym_graph_add_op refuses it
 * rather than apply an operator without an attribute its caller meant. Getters return -1 (or NULL, or 0 for sizes) when
 * the attribute is absent, without recording an error, and record
 * SYM_EINVAL when it has another kind: kinds are strict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "shape/shape_private.h"

static const char *const kind_name[] = {
	[SYM_ATTR_NONE] = "nothing",
	[SYM_ATTR_INT] = "an integer",
	[SYM_ATTR_BOOL] = "a boolean",
	[SYM_ATTR_FLOAT] = "a float",
	[SYM_ATTR_STRING] = "a string",
	[SYM_ATTR_LIST] = "a list",
};

/* Return the name of attribute kind "kind" with its article ("an
 * integer"), as errors write it. */
const char *
sym__attr_kind_name(sym_attr_kind kind)
{
	return kind_name[kind];
}

/* Release the value of "at", leaving its name; kind becomes NONE. */
static void
attr_clear_value(struct sym__attr *at)
{
	free(at->s);
	at->s = NULL;
	for (size_t i = 0; i < at->n; i++)
		sym__expr_unref(at->items[i]);
	free(at->items);
	at->items = NULL;
	at->n = 0;
	at->i = 0;
	at->f = 0;
	at->kind = SYM_ATTR_NONE;
	at->has_loc = 0;
	at->loc.file = NULL;
	at->loc.line = at->loc.col = 0;
}

/* Free the set of attributes of header "obj" and its attributes. */
static void
attrs_destroy(struct sym__obj *obj)
{
	sym_attrs *a = SYM__OBJ_OF(obj, sym_attrs, obj);

	for (size_t i = 0; i < a->n; i++) {
		attr_clear_value(&a->a[i]);
		free(a->a[i].name);
	}
	free(a->a);
	sym__strmap_clear(&a->names);
	free(a);
}

/* Return a new empty set of attributes of "ctx", not counted live. */
static sym_attrs *
attrs_alloc(sym_ctx *ctx)
{
	sym_attrs *a = sym__alloc(ctx, sizeof(*a));

	if (a) {
		sym__obj_init(&a->obj, SYM__OBJ_ATTRS, attrs_destroy);
		a->ctx = ctx;
	}
	return a;
}

/* Return a new, empty set of attributes of "ctx", counted as a live object
 * until sym_attrs_free (sym_ctx_report_live reports a set its caller
 * forgets, and sym_ctx_free frees it). */
sym_attrs *
sym_attrs_new(sym_ctx *ctx)
{
	sym_attrs *a;

	if (!ctx)
		return NULL;
	a = attrs_alloc(ctx);
	if (!a)
		return NULL;
	sym__obj_give(ctx, &a->obj);
	return a;
}

/* Free the set of attributes "a". */
void
sym_attrs_free(sym_attrs *a)
{
	sym__attrs_free(a);
}

/* Free the set of attributes "a", made by sym_attrs_new or
 * sym__attrs_copy. */
void
sym__attrs_free(sym_attrs *a)
{
	if (!a)
		return;
	if (a->obj.cref)
		sym__obj_drop(a->ctx, &a->obj);
	else
		sym__obj_unref(&a->obj);
}

/* Return the index of attribute "name" in "a", or -1. */
static long
attrs_index(const sym_attrs *a, const char *name)
{
	size_t i;

	if (!a || !name)
		return -1;
	if (a->names.n)
		return sym__strmap_get(&a->names, name, &i) ? (long)i : -1;
	for (i = 0; i < a->n; i++)
		if (!strcmp(a->a[i].name, name))
			return (long)i;
	return -1;
}

/* Map the names of the attributes of "a" from index "from" on to their
 * indices, once "a" has more than SYM__ATTRS_MAP of them (all of them at
 * the first time); 0, or -1 with SYM_ENOMEM. */
static int
attrs_map(sym_attrs *a, size_t from)
{
	if (a->n <= SYM__ATTRS_MAP)
		return 0;
	if (!a->names.n)
		from = 0;
	for (size_t i = from; i < a->n; i++)
		if (sym__strmap_put(a->ctx, &a->names, a->a[i].name, i) < 0)
			return -1;
	return 0;
}

/* Return the attribute "name" of "a", or NULL when there is none. */
const struct sym__attr *
sym__attrs_find(const sym_attrs *a, const char *name)
{
	long i = attrs_index(a, name);

	return i < 0 ? NULL : &a->a[i];
}

/* Return the slot of attribute "name" in "a", emptied of its value or
 * newly appended, or NULL with an error. */
static struct sym__attr *
attrs_slot(sym_attrs *a, const char *name)
{
	long i;
	struct sym__attr *at;

	if (!a)
		return NULL;
	if (!name || !*name) {
		sym__error(a->ctx, SYM_EINVAL, NULL,
		    "an attribute needs a non-empty name");
		return NULL;
	}
	i = attrs_index(a, name);
	if (i >= 0) {
		attr_clear_value(&a->a[i]);
		return &a->a[i];
	}
	if (SYM__RESERVE(a->ctx, a->a, a->cap, a->n + 1) < 0)
		return NULL;
	at = &a->a[a->n];
	memset(at, 0, sizeof(*at));
	at->name = sym__strdup(a->ctx, name);
	if (!at->name)
		return NULL;
	a->n++;
	if (attrs_map(a, a->n - 1) < 0) {
		free(at->name);
		a->n--;
		sym__strmap_clear(&a->names);
		return NULL;
	}
	return at;
}

/* Set attribute "name" of "a" to the scalar of kind "kind": the integer
 * or boolean "i", or the float "f" (the other one is 0, as in an empty
 * slot); return 0 or -1. */
static int
set_scalar(sym_attrs *a, const char *name, sym_attr_kind kind, int64_t i,
    double f)
{
	struct sym__attr *at = attrs_slot(a, name);

	if (!at)
		return -1;
	at->kind = kind;
	at->i = i;
	at->f = f;
	return 0;
}

/* Return the slot of attribute "name" of "a" for the malloc'ed value
 * "copy", or NULL (freeing "copy") when "copy" is NULL or there is no
 * slot; the caller stores "copy" in the slot. */
static struct sym__attr *
slot_for(sym_attrs *a, const char *name, void *copy)
{
	struct sym__attr *at;

	if (!copy)
		return NULL;
	at = attrs_slot(a, name);
	if (!at)
		free(copy);
	return at;
}

/* Set attribute "name" of "a" to a copy of the string "v"; return 0 or
 * -1. */
static int
set_string(sym_attrs *a, const char *name, const char *v)
{
	struct sym__attr *at;
	char *copy;

	if (!a)
		return -1;
	if (!v) {
		sym__error(a->ctx, SYM_EINVAL, NULL,
		    "attribute %s: missing string", name ? name : "(null)");
		return -1;
	}
	copy = sym__strdup(a->ctx, v);
	at = slot_for(a, name, copy);
	if (!at)
		return -1;
	at->kind = SYM_ATTR_STRING;
	at->s = copy;
	return 0;
}

/* Set attribute "name" of "a" to the list of the "n" expressions "items"
 * (borrowed: the set takes its own references; they must belong to the
 * context of "a"); return 0 or -1. */
static int
set_list(sym_attrs *a, const char *name, size_t n, sym_expr *const *items)
{
	struct sym__attr *at;
	sym_expr **copy;

	if (!a)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!items || !items[i] || items[i]->ctx != a->ctx) {
			sym__error(a->ctx, SYM_EINVAL, NULL,
			    "attribute %s: item %zu is %s",
			    name ? name : "(null)", i,
			    items && items[i] ? "from another context"
			                      : "missing");
			return -1;
		}
	if (n > SIZE_MAX / sizeof(*copy)) {
		sym__oom(a->ctx);
		return -1;
	}
	copy = sym__alloc(a->ctx, (n ? n : 1) * sizeof(*copy));
	at = slot_for(a, name, copy);
	if (!at)
		return -1;
	for (size_t i = 0; i < n; i++)
		copy[i] = sym__expr_ref(items[i]);
	at->kind = SYM_ATTR_LIST;
	at->n = n;
	at->items = copy;
	return 0;
}

/* Return "r", the result of a setter on "a", marking "a" failed when
 * "r" is -1. */
static int
mark(sym_attrs *a, int r)
{
	if (r < 0 && a)
		a->failed = 1;
	return r;
}

/* The setters of the public interface (see set_scalar, set_string and
 * set_list): each marks the set failed when it fails; a boolean is
 * stored as 0 or 1. */
int
sym_attrs_set_int(sym_attrs *a, const char *name, int64_t v)
{
	return mark(a, set_scalar(a, name, SYM_ATTR_INT, v, 0));
}

int
sym_attrs_set_bool(sym_attrs *a, const char *name, int v)
{
	return mark(a, set_scalar(a, name, SYM_ATTR_BOOL, v != 0, 0));
}

int
sym_attrs_set_float(sym_attrs *a, const char *name, double v)
{
	return mark(a, set_scalar(a, name, SYM_ATTR_FLOAT, 0, v));
}

int
sym_attrs_set_string(sym_attrs *a, const char *name, const char *v)
{
	return mark(a, set_string(a, name, v));
}

int
sym_attrs_set_list(sym_attrs *a, const char *name, size_t n,
    sym_expr *const *items)
{
	return mark(a, set_list(a, name, n, items));
}

/* Return 1 when a setter failed on "a" (see mark), else 0. */
int
sym__attrs_failed(const sym_attrs *a)
{
	return a && a->failed;
}

/* Remember that attribute "name" of "a" was written at "where" (copied;
 * the file name it points to is not: it must outlive "a" and its copies,
 * as a graph's file name does). Return 0, or -1 with SYM_EINVAL when
 * there is no such attribute. */
int
sym_attrs_set_loc(sym_attrs *a, const char *name, const sym_loc *where)
{
	long i = attrs_index(a, name);

	if (!a)
		return -1;
	if (i < 0) {
		sym__error(a->ctx, SYM_EINVAL, NULL,
		    "no attribute %s to locate", name ? name : "(null)");
		return -1;
	}
	if (!where) {
		sym__error(a->ctx, SYM_EINVAL, NULL,
		    "attribute %s: missing location", name);
		return -1;
	}
	a->a[i].loc = *where;
	a->a[i].has_loc = 1;
	return 0;
}

/* Return an internal copy of "a" for "ctx" (an empty set when "a" is
 * NULL), or NULL when out of memory. */
sym_attrs *
sym__attrs_copy(sym_ctx *ctx, const sym_attrs *a)
{
	sym_attrs *c;

	if (!ctx)
		return NULL;
	c = attrs_alloc(ctx);
	if (!c || !a || !a->n)
		return c;
	c->a = sym__alloc(ctx, a->n * sizeof(*c->a));
	if (!c->a) {
		free(c);
		return NULL;
	}
	c->cap = a->n;
	for (; c->n < a->n; c->n++) {
		const struct sym__attr *from = &a->a[c->n];
		struct sym__attr *to = &c->a[c->n];

		*to = *from;
		to->s = NULL;
		to->items = NULL;
		to->n = 0;
		to->name = sym__strdup(ctx, from->name);
		if (from->s)
			to->s = sym__strdup(ctx, from->s);
		if (from->kind == SYM_ATTR_LIST)
			to->items = sym__alloc(ctx,
			    (from->n ? from->n : 1) * sizeof(*to->items));
		if (!to->name || (from->s && !to->s) ||
		    (from->kind == SYM_ATTR_LIST && !to->items)) {
			free(to->name);
			free(to->s);
			free(to->items);
			sym__attrs_free(c);
			return NULL;
		}
		for (; to->items && to->n < from->n; to->n++)
			to->items[to->n] = sym__expr_ref(from->items[to->n]);
	}
	if (attrs_map(c, 0) < 0) {
		sym__attrs_free(c);
		return NULL;
	}
	return c;
}

/* Return the number of attributes of "a". */
size_t
sym_attrs_n_names(const sym_attrs *a)
{
	return a ? a->n : 0;
}

/* Return the name of the "i"-th attribute of "a" (in the order they were
 * first set), or NULL. */
const char *
sym_attrs_name(const sym_attrs *a, size_t i)
{
	return a && i < a->n ? a->a[i].name : NULL;
}

/* Return the kind of attribute "name" of "a", SYM_ATTR_NONE when absent. */
sym_attr_kind
sym_attrs_kind(const sym_attrs *a, const char *name)
{
	const struct sym__attr *at = sym__attrs_find(a, name);

	return at ? at->kind : SYM_ATTR_NONE;
}

/* Return attribute "name" of "a" when it has kind "kind"; NULL when it is
 * absent (no error) or of another kind (SYM_EINVAL). */
static const struct sym__attr *
get(const sym_attrs *a, const char *name, sym_attr_kind kind)
{
	const struct sym__attr *at = sym__attrs_find(a, name);

	if (!at)
		return NULL;
	if (at->kind != kind) {
		sym__error(a->ctx, SYM_EINVAL, at->has_loc ? &at->loc : NULL,
		    "attribute %s is %s, not %s", name, kind_name[at->kind],
		    kind_name[kind]);
		return NULL;
	}
	return at;
}

/* Store in "*i" the integer or boolean, in "*f" the float (each when not
 * NULL) of the attribute "name" of "a", a scalar of kind "kind"; return
 * 0, or -1 when absent or of another kind. */
static int
get_scalar(const sym_attrs *a, const char *name, sym_attr_kind kind, int64_t *i,
    double *f)
{
	const struct sym__attr *at = get(a, name, kind);

	if (!at)
		return -1;
	if (i)
		*i = at->i;
	if (f)
		*f = at->f;
	return 0;
}

/* Store the integer attribute "name" of "a" in "*v"; return 0, or -1 when
 * absent or not an integer. */
int
sym_attrs_get_int(const sym_attrs *a, const char *name, int64_t *v)
{
	return get_scalar(a, name, SYM_ATTR_INT, v, NULL);
}

/* Store the boolean attribute "name" of "a" (0 or 1) in "*v"; return 0, or
 * -1 when absent or not a boolean. */
int
sym_attrs_get_bool(const sym_attrs *a, const char *name, int *v)
{
	int64_t i;

	if (get_scalar(a, name, SYM_ATTR_BOOL, &i, NULL) < 0)
		return -1;
	if (v)
		*v = (int)i;
	return 0;
}

/* Store the float attribute "name" of "a" in "*v"; return 0, or -1 when
 * absent or not a float. */
int
sym_attrs_get_float(const sym_attrs *a, const char *name, double *v)
{
	return get_scalar(a, name, SYM_ATTR_FLOAT, NULL, v);
}

/* Return the string attribute "name" of "a" (owned by "a"), or NULL when
 * absent or not a string. */
const char *
sym_attrs_get_string(const sym_attrs *a, const char *name)
{
	const struct sym__attr *at = get(a, name, SYM_ATTR_STRING);

	return at ? at->s : NULL;
}

/* Return the number of items of the list attribute "name" of "a", 0 when
 * absent or not a list. */
size_t
sym_attrs_list_n_items(const sym_attrs *a, const char *name)
{
	const struct sym__attr *at = get(a, name, SYM_ATTR_LIST);

	return at ? at->n : 0;
}

/* Return item "i" of the list attribute "name" of "a" (borrowed from
 * "a"), or NULL when absent, not a list or "i" is out of range. */
const sym_expr *
sym_attrs_list_item(const sym_attrs *a, const char *name, size_t i)
{
	const struct sym__attr *at = get(a, name, SYM_ATTR_LIST);

	return at && i < at->n ? at->items[i] : NULL;
}

/* Append the float "f" to "b", as the shortest text that reads back the
 * same, with a ".0" when it would read as an integer. */
static void
buf_float(struct sym__str *b, double f)
{
	char t[64];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(t, sizeof(t), "%.*g", prec, f);
		if (strtod(t, NULL) == f)
			break;
	}
	sym__str_puts(b, t);
	if (!strpbrk(t, ".eEni"))
		sym__str_puts(b, ".0");
}

/* Append the string "s" to "b" in double quotes, escaping '"', '\\' and
 * newlines and tabs. */
static void
buf_quoted(struct sym__str *b, const char *s)
{
	sym__str_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sym__str_add(b, "\\", 1);
		if (*s == '\n')
			sym__str_puts(b, "\\n");
		else if (*s == '\t')
			sym__str_puts(b, "\\t");
		else
			sym__str_add(b, s, 1);
	}
	sym__str_puts(b, "\"");
}

/* Append the value of "at" to "b". */
static void
buf_value(struct sym__str *b, const struct sym__attr *at)
{
	switch (at->kind) {
	case SYM_ATTR_INT:
		sym__str_printf(b, "%lld", (long long)at->i);
		break;
	case SYM_ATTR_BOOL:
		sym__str_puts(b, at->i ? "true" : "false");
		break;
	case SYM_ATTR_FLOAT:
		buf_float(b, at->f);
		break;
	case SYM_ATTR_STRING:
		buf_quoted(b, at->s);
		break;
	case SYM_ATTR_LIST:
		sym__str_puts(b, "[");
		for (size_t i = 0; i < at->n; i++) {
			char *e = sym_expr_to_str(at->items[i]);

			if (i)
				sym__str_puts(b, ", ");
			sym__str_puts(b, e);
			free(e);
		}
		sym__str_puts(b, "]");
		break;
	case SYM_ATTR_NONE:
		sym__str_puts(b, "none");
		break;
	}
}

/* Return the attributes of "a" as text, "transpose_b=true, axis=[1]" in
 * the order they were first set ("" when there are none), allocated with
 * malloc (the caller frees it), or NULL. */
char *
sym_attrs_to_str(const sym_attrs *a)
{
	struct sym__str b = SYM__STR_INIT;

	if (!a)
		return NULL;
	for (size_t i = 0; i < a->n; i++) {
		if (i)
			sym__str_puts(&b, ", ");
		sym__str_puts(&b, a->a[i].name);
		sym__str_puts(&b, "=");
		buf_value(&b, &a->a[i]);
	}
	return sym__str_take(&b, a->ctx);
}
