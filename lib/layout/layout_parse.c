/* SPDX-License-Identifier: MIT */
/*
 * Layouts from text, and from the layout strategies of the graph format:
 *
 *	LAYOUT  := [MESH] "(" [DIM ("," DIM)* [","]] ")"
 *	           ["partial" "(" AXIS ("," AXIS)* [","] ")"]
 *	DIM     := AXIS | None | "(" AXIS ("," AXIS)* [","] ")"
 *
 * MESH is an identifier and ignored; axes are names of the mesh's axes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "layout/strategy.h"
#include "layout/layout_private.h"

/* A layout being built: the axes of each dimension and the partial ones,
 * with "used"[a] the dimension axis a splits (-2 partial, -1 none). */
struct spec {
	const sym_mesh *mesh;
	size_t rank, cap;
	uint8_t *n;
	int8_t (*axes)[SYM_MESH_MAX_AXES];
	uint32_t partial;
	int used[SYM_MESH_MAX_AXES];
};

/* Initialize "sp" for a layout over "mesh". */
static void
spec_init(struct spec *sp, const sym_mesh *mesh)
{
	memset(sp, 0, sizeof(*sp));
	sp->mesh = mesh;
	for (size_t a = 0; a < SYM_MESH_MAX_AXES; a++)
		sp->used[a] = -1;
}

/* Release the arrays of "sp". */
static void
spec_clear(struct spec *sp)
{
	free(sp->n);
	free(sp->axes);
}

/* Append an unsplit dimension to "sp"; return 0 or -1 (out of memory). */
static int
spec_add_dim(struct spec *sp)
{
	size_t cap_n = sp->cap, cap_axes = sp->cap;

	if (SYM__RESERVE(sp->mesh->ctx, sp->n, cap_n, sp->rank + 1) < 0 ||
	    SYM__RESERVE(sp->mesh->ctx, sp->axes, cap_axes, sp->rank + 1) < 0)
		return -1;
	sp->cap = cap_n;
	sp->n[sp->rank++] = 0;
	return 0;
}

/* Return a malloc'ed "unknown axis" message for the "len" characters
 * "name", naming the axes of the mesh of "sp". */
static char *
unknown_axis(const struct spec *sp, const char *name, size_t len)
{
	char *m = sym_mesh_to_str(sp->mesh);
	char *s = sym__asprintf("unknown axis '%.*s' of mesh %s", (int)len,
	    name, m ? m : "");

	free(m);
	return s;
}

/* Add the axis of the "len" characters "name" of the mesh of "sp" to the
 * last dimension of "sp", or to its partial axes if "partial"; return 0,
 * or -1 with a malloc'ed message in "*error" (NULL: out of memory). */
static int
spec_add_axis(struct spec *sp, const char *name, size_t len, int partial,
    char **error)
{
	const sym_mesh *m = sp->mesh;
	int d = partial ? -2 : (int)sp->rank - 1;
	size_t a;

	for (a = 0; a < m->n_axes; a++)
		if (strlen(m->name[a]) == len &&
		    strncmp(m->name[a], name, len) == 0)
			break;
	if (a == m->n_axes) {
		*error = unknown_axis(sp, name, len);
		return -1;
	}
	if (sp->used[a] != -1) {
		if (sp->used[a] == -2 || d == -2)
			*error = sym__asprintf("axis %s both splits a "
			                       "dimension and is partial",
			    m->name[a]);
		else
			*error = sym__asprintf("axis %s splits dimension %d "
			                       "and dimension %d: an axis "
			                       "splits at most one dimension, "
			                       "once",
			    m->name[a], sp->used[a], d);
		return -1;
	}
	sp->used[a] = d;
	if (partial)
		sp->partial |= UINT32_C(1) << a;
	else
		sp->axes[d][sp->n[d]++] = (int8_t)a;
	return 0;
}

/* Return an internal reference to the layout "sp" over "mesh". */
static sym_layout *
spec_layout(sym_mesh *mesh, const struct spec *sp)
{
	return sym__layout_new(mesh, sp->rank, sp->n,
	    (const int8_t(*)[SYM_MESH_MAX_AXES])sp->axes, sp->partial);
}

/* Return an internal reference to the layout over "mesh" of the layout
 * strategy "t", or NULL with a malloc'ed message in "*error" (NULL on out
 * of memory, the error then on the context). */
sym_layout *
sym__layout_from_spec(sym_mesh *mesh, const struct sym__tensor_strategy *t,
    char **error)
{
	struct spec sp;
	sym_layout *l = NULL;

	*error = NULL;
	if (!mesh || !t)
		return NULL;
	if (!t->is_layout) {
		*error = sym__asprintf_ctx(mesh->ctx,
		    "expected a layout, not a tuple of split counts");
		return NULL;
	}
	spec_init(&sp, mesh);
	for (size_t d = 0; d < t->n; d++) {
		if (spec_add_dim(&sp) < 0)
			goto out;
		for (size_t i = 0; i < t->dims[d].n; i++) {
			const char *s = t->dims[d].axis[i];

			if (spec_add_axis(&sp, s, strlen(s), 0, error) < 0)
				goto out;
		}
	}
	l = spec_layout(mesh, &sp);
out:
	if (!l && !*error && mesh->ctx->err == SYM_OK)
		sym__oom(mesh->ctx);
	spec_clear(&sp);
	return l;
}

/* The state of the layout parser: the text, the current position, the
 * location of the text's start and the layout being built. */
struct parser {
	const char *text;
	const char *p;
	sym_loc at;
	sym_ctx *ctx;
	struct spec sp;
};

/* Skip blanks at the position of "ps". */
static void
skip(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

/* Return the location of "q" in the text of "ps". */
static sym_loc
loc_of(const struct parser *ps, const char *q)
{
	sym_loc l = ps->at;

	for (const char *c = ps->text; c < q; c++)
		if (*c == '\n') {
			l.line++;
			l.col = 1;
		} else
			l.col++;
	return l;
}

/* Record the error "code" with message "msg" (taken; NULL: out of memory)
 * at "q"; return -1. */
static int
fail(struct parser *ps, sym_error code, const char *q, char *msg)
{
	sym_loc l = loc_of(ps, q);

	if (!msg)
		sym__oom(ps->ctx);
	else
		sym__error(ps->ctx, code, &l, "%s", msg);
	free(msg);
	return -1;
}

/* Record a syntax error "what" at the position of "ps"; return -1. */
static int
expected(struct parser *ps, const char *what)
{
	return fail(ps, SYM_EPARSE, ps->p,
	    sym__asprintf("expected %s in layout '%s'", what, ps->text));
}

/* Return the length of the identifier at the position of "ps" (0: none). */
static size_t
ident(const struct parser *ps)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*ps->p) && *ps->p != '_')
		return 0;
	while (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_')
		n++;
	return n;
}

/* Return 1 if the identifier of "len" characters at the position of "ps"
 * is "word". */
static int
is_word(const struct parser *ps, size_t len, const char *word)
{
	return strlen(word) == len && strncmp(ps->p, word, len) == 0;
}

/* Parse an axis name for the last dimension of "ps" or, if "partial", for
 * the partial axes; return 0 or -1. */
static int
parse_axis(struct parser *ps, int partial)
{
	size_t len;
	char *msg = NULL;

	skip(ps);
	len = ident(ps);
	if (len == 0)
		return expected(ps, "an axis name");
	if (spec_add_axis(&ps->sp, ps->p, len, partial, &msg) < 0)
		return fail(ps, SYM_ELAYOUT, ps->p, msg);
	ps->p += len;
	skip(ps);
	return 0;
}

/* Parse "(" AXIS ("," AXIS)* [","] ")" into the last dimension of "ps" or
 * its partial axes; return 0 or -1. */
static int
parse_axis_list(struct parser *ps, int partial)
{
	skip(ps);
	if (*ps->p != '(')
		return expected(ps, "'('");
	ps->p++;
	do {
		if (parse_axis(ps, partial) < 0)
			return -1;
		if (*ps->p != ',')
			break;
		ps->p++;
		skip(ps);
	} while (*ps->p != ')');
	if (*ps->p != ')')
		return expected(ps, "',' or ')'");
	ps->p++;
	skip(ps);
	return 0;
}

/* Parse one dimension into a new dimension of "ps"; return 0 or -1. */
static int
parse_dim(struct parser *ps)
{
	size_t len;

	if (spec_add_dim(&ps->sp) < 0)
		return fail(ps, SYM_ENOMEM, ps->p, NULL);
	skip(ps);
	if (*ps->p == '(')
		return parse_axis_list(ps, 0);
	len = ident(ps);
	if (len && is_word(ps, len, "None")) {
		ps->p += len;
		skip(ps);
		return 0;
	}
	if (len == 0)
		return expected(ps, "an axis name, None or '('");
	return parse_axis(ps, 0);
}

/* Parse the layout text of "ps"; return 0 or -1. */
static int
parse_layout(struct parser *ps)
{
	size_t len;

	skip(ps);
	len = ident(ps);
	if (len)
		ps->p += len;
	skip(ps);
	if (*ps->p != '(')
		return expected(ps,
		    len ? "'(' after the mesh name" : "a mesh name or '('");
	ps->p++;
	skip(ps);
	while (*ps->p != ')') {
		if (parse_dim(ps) < 0)
			return -1;
		if (*ps->p == ')')
			break;
		if (*ps->p != ',')
			return expected(ps, "',' or ')'");
		ps->p++;
		skip(ps);
	}
	ps->p++;
	skip(ps);
	len = ident(ps);
	if (len && is_word(ps, len, "partial")) {
		ps->p += len;
		if (parse_axis_list(ps, 1) < 0)
			return -1;
		skip(ps);
	}
	if (*ps->p)
		return expected(ps, "the end of the layout");
	return 0;
}

/* Return a caller reference to the layout over "mesh" written "text" (see
 * sym_layout(3)), located at "where" (NULL: line 1, column 1) for errors;
 * NULL with SYM_EPARSE on a syntax error, SYM_ELAYOUT on an unknown or
 * repeated axis. */
sym_layout *
sym_layout_parse(const sym_mesh *mesh, const char *text, const sym_loc *where)
{
	struct parser ps;
	sym_layout *l = NULL;

	if (!mesh)
		return NULL;
	if (!text) {
		sym__error(mesh->ctx, SYM_EINVAL, where, "no layout text");
		return NULL;
	}
	ps.text = ps.p = text;
	ps.at = where ? *where : (sym_loc){ NULL, 1, 1 };
	ps.ctx = mesh->ctx;
	spec_init(&ps.sp, mesh);
	if (parse_layout(&ps) == 0)
		l = sym__layout_give(spec_layout((sym_mesh *)mesh, &ps.sp));
	spec_clear(&ps.sp);
	return l;
}
