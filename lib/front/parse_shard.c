/* SPDX-License-Identifier: MIT */
/*
 * Mesh declarations and shard strategies of the graph text format, read
 * as written (the layout layer gives them their meaning):
 *
 *	mesh NAME = ([AXIS=]N, ... [","]) [ranks [R, ... [","]]]
 *
 *	STRATEGY := "(" [TENSOR ("," TENSOR)* [","]] ")"
 *	TENSOR   := "(" [INTEGER ("," INTEGER)* [","]] ")"
 *	          | MESH "(" [DIM ("," DIM)* [","]] ")"
 *	DIM      := AXIS | None | "(" AXIS ("," AXIS)* [","] ")"
 *
 * Only the syntax is checked here: split counts and sizes are any
 * integers, axes and meshes are names.
 */
#include <stdlib.h>
#include <string.h>

#include "front/front.h"
#include "front/lex.h"

/* Append the axis "name" (taken, may be NULL) of "size" to "m", whose
 * arrays have room for "*cap" axes; return 0 or -1. */
static int
mesh_push(struct sym__parser *p, struct sym__mesh_decl *m, size_t *cap,
    char *name, int64_t size)
{
	size_t cap_name = *cap, cap_size = *cap;

	if (SYM__RESERVE(p->ctx, m->axis_name, cap_name, m->n_axes + 1) < 0 ||
	    SYM__RESERVE(p->ctx, m->axis_size, cap_size, m->n_axes + 1) < 0) {
		free(name);
		p->oom = 1;
		return -1;
	}
	*cap = cap_name;
	m->axis_name[m->n_axes] = name;
	m->axis_size[m->n_axes++] = size;
	return 0;
}

/* Parse the axes "([NAME=]N, ...)" of a mesh declaration into "m"; return
 * 0 or -1. */
static int
mesh_axes(struct sym__parser *p, struct sym__mesh_decl *m)
{
	size_t open, start, len, at, cap = 0;
	int64_t size;
	char b[64];
	int r;

	if (!sym__lex_accept(p, '('))
		return sym__lex_error(p, p->pos, NULL,
		    "expected '(' to start the device matrix, as in (dp=2, "
		    "mp=4) or (2, 4)");
	open = p->pos - 1;
	if (sym__lex_accept(p, ')'))
		return sym__lex_error(p, open, NULL,
		    "a mesh needs at least one axis");
	for (r = sym__lex_list_start(p, ')', "device matrix", open); r > 0;
	     r = sym__lex_list_next(p, ')', "device matrix", open, "an axis")) {
		char *name = NULL;

		if (sym__lex_name(p, &start, &len)) {
			if (!sym__lex_accept(p, '='))
				return sym__lex_error(p, p->pos, NULL,
				    "expected '=' and a size after axis name "
				    "'%.*s%s'",
				    SYM__QLEN(len), p->src + start,
				    SYM__QDOTS(len));
			r = sym__lex_int(p, &size, &at);
			if (r == 0)
				return sym__lex_error(p, p->pos, NULL,
				    "expected the size of axis '%.*s%s' after "
				    "'='",
				    SYM__QLEN(len), p->src + start,
				    SYM__QDOTS(len));
			if (r < 0 || !(name = sym__lex_strndup(p, start, len)))
				return -1;
		} else if ((r = sym__lex_int(p, &size, &at)) <= 0) {
			if (r < 0)
				return -1;
			return sym__lex_error(p, p->pos, NULL,
			    "expected an axis size or NAME=size, found %s",
			    sym__lex_describe(p, p->pos, b, sizeof(b)));
		}
		if (mesh_push(p, m, &cap, name, size) < 0)
			return -1;
	}
	return r;
}

/* Read the integers of the list whose opening at "open" has been read in
 * "p", up to "close" (a "what" of "item"s), appending them to "*v" of
 * "*n" elements; "expected" names an element for the error when
 * something else comes. Return 0 or -1. */
static int
int_list(struct sym__parser *p, char close, size_t open, const char *what,
    const char *item, const char *expected, int64_t **v, size_t *n)
{
	size_t at, cap = 0;
	int64_t x;
	char b[64];
	int r;

	for (r = sym__lex_list_start(p, close, what, open); r > 0;
	     r = sym__lex_list_next(p, close, what, open, item)) {
		r = sym__lex_int(p, &x, &at);
		if (r < 0)
			return -1;
		if (r == 0)
			return sym__lex_error(p, p->pos, NULL,
			    "expected %s, found %s", expected,
			    sym__lex_describe(p, p->pos, b, sizeof(b)));
		if (SYM__RESERVE(p->ctx, *v, cap, *n + 1) < 0) {
			p->oom = 1;
			return -1;
		}
		(*v)[(*n)++] = x;
	}
	return r;
}

/* Parse the rank list "[R, ...]" of a mesh after "ranks" into "m"; return
 * 0 or -1. */
static int
mesh_ranks(struct sym__parser *p, struct sym__mesh_decl *m)
{
	size_t open;

	if (sym__lex_peek(p) != '[')
		return sym__lex_error(p, p->pos, NULL,
		    "expected '[' after 'ranks'");
	open = p->pos++;
	return int_list(p, ']', open, "rank list", "a rank",
	    "a rank (an integer)", &m->ranks, &m->n_ranks);
}

static int read_mesh(struct sym__parser *p, struct sym__mesh_decl *out,
    size_t *at);

/* Parse "mesh NAME = (AXES) [ranks [R, ...]]" after its keyword and add
 * the declaration; return 0 or -1. */
int
sym__parse_mesh(struct sym__parser *p)
{
	struct sym__mesh_decl m;
	size_t before, at;

	if (read_mesh(p, &m, &at) < 0)
		return -1;
	before = p->g->n_diag;
	if (sym__graph_add_mesh(p->g, &m) < 0)
		return sym__parse_failed(p, before, at);
	return 0;
}

/* Read into "*out" the declaration "NAME = (AXES) [ranks [R, ...]]" next
 * in "p", its name at "*at"; 0, or -1 with a diagnostic ("*out" then
 * empty). */
static int
read_mesh(struct sym__parser *p, struct sym__mesh_decl *out, size_t *at)
{
	struct sym__mesh_decl m;
	size_t start, len;
	char b[64];

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	m.name =
	    sym__lex_name_copy(p, "a mesh name after 'mesh'", &start, &len);
	if (!m.name)
		return -1;
	*at = start;
	m.loc = sym__lex_loc(p, start);
	if (!sym__lex_accept(p, '=')) {
		sym__mesh_decl_free(&m);
		return sym__lex_error(p, p->pos, NULL,
		    "expected '=' after mesh name");
	}
	if (mesh_axes(p, &m) < 0) {
		sym__mesh_decl_free(&m);
		return -1;
	}
	if (sym__lex_name(p, &start, &len)) {
		if (!sym__lex_word_is(p, start, len, "ranks")) {
			sym__mesh_decl_free(&m);
			return sym__lex_error(p, start, NULL,
			    "unexpected %s after the device matrix (expected "
			    "'ranks [...]' or the end of the line)",
			    sym__lex_describe(p, start, b, sizeof(b)));
		}
		if (mesh_ranks(p, &m) < 0) {
			sym__mesh_decl_free(&m);
			return -1;
		}
	}
	if (sym__parse_end(p,
	        m.n_ranks ? "the rank list" : "the device matrix") < 0) {
		sym__mesh_decl_free(&m);
		return -1;
	}
	*out = m;
	return 0;
}

/* Make room in the array "*arr" of "n" elements of "size" bytes, of
 * capacity "*cap", for one more; return 0 or -1. */
static int
room(struct sym__parser *p, void *arr, size_t *cap, size_t n, size_t size)
{
	if (sym__reserve(p->ctx, arr, cap, n + 1, size) < 0) {
		p->oom = 1;
		return -1;
	}
	return 0;
}

/* Read the tuple "(N, ...)" whose '(' comes next in "p" into "t"; return
 * 0 or -1. */
static int
tensor_tuple(struct sym__parser *p, struct sym__tensor_strategy *t)
{
	size_t open = p->pos++;

	return int_list(p, ')', open, "tensor strategy", "a split count",
	    "an integer split count", &t->split, &t->n);
}

/* Append the axis name that comes next in "p" to "d", whose array has
 * room for "*cap"; "group" tells whether it is inside a group. Return 0
 * or -1. */
static int
axis_name(struct sym__parser *p, struct sym__dim_axes *d, size_t *cap,
    int group)
{
	size_t start, len;
	char b[64];

	if (!sym__lex_name(p, &start, &len))
		return sym__lex_error(p, p->pos, NULL, "expected %s, found %s",
		    group ? "an axis name"
		          : "an axis name, a group (a, b) or None",
		    sym__lex_describe(p, p->pos, b, sizeof(b)));
	if (group && sym__lex_word_is(p, start, len, "None"))
		return sym__lex_error(p, start, NULL,
		    "None cannot be part of an axis group");
	if (room(p, &d->axis, cap, d->n, sizeof(*d->axis)) < 0)
		return -1;
	d->axis[d->n] = sym__lex_strndup(p, start, len);
	if (!d->axis[d->n])
		return -1;
	d->n++;
	return 0;
}

/* Read the dimension of a layout that comes next in "p" into "d": an
 * axis, None or a group "(a, b)"; return 0 or -1. */
static int
layout_dim(struct sym__parser *p, struct sym__dim_axes *d)
{
	size_t open, cap = 0, start, len;
	int r;

	sym__lex_peek(p);
	d->loc = sym__lex_loc(p, p->pos);
	if (sym__lex_name(p, &start, &len)) {
		if (sym__lex_word_is(p, start, len, "None"))
			return 0;
		p->pos = start;
		return axis_name(p, d, &cap, 0);
	}
	if (!sym__lex_accept(p, '('))
		return axis_name(p, d, &cap, 0);
	open = p->pos - 1;
	if (sym__lex_accept(p, ')'))
		return sym__lex_error(p, open, NULL,
		    "an axis group needs at least one axis (write None for "
		    "none)");
	for (r = sym__lex_list_start(p, ')', "axis group", open); r > 0;
	     r = sym__lex_list_next(p, ')', "axis group", open, "an axis"))
		if (axis_name(p, d, &cap, 1) < 0)
			return -1;
	return r;
}

/* Read the layout "MESH(DIM, ...)" whose mesh name (of "len" bytes at
 * "start") "p" has read into "t"; return 0 or -1. */
static int
tensor_layout(struct sym__parser *p, struct sym__tensor_strategy *t,
    size_t start, size_t len)
{
	size_t open, cap = 0;
	int r;

	t->is_layout = 1;
	t->mesh = sym__lex_strndup(p, start, len);
	if (!t->mesh)
		return -1;
	if (!sym__lex_accept(p, '('))
		return sym__lex_error(p, p->pos, NULL,
		    "expected '(' after mesh name '%.*s%s' in a layout",
		    SYM__QLEN(len), p->src + start, SYM__QDOTS(len));
	open = p->pos - 1;
	for (r = sym__lex_list_start(p, ')', "layout", open); r > 0;
	     r = sym__lex_list_next(p, ')', "layout", open, "a dimension")) {
		if (room(p, &t->dims, &cap, t->n, sizeof(*t->dims)) < 0)
			return -1;
		memset(&t->dims[t->n], 0, sizeof(*t->dims));
		t->n++;
		if (layout_dim(p, &t->dims[t->n - 1]) < 0)
			return -1;
	}
	return r;
}

/* Read the strategy of one tensor that comes next in "p" into "t": a
 * tuple of split counts or a layout; return 0 or -1. */
static int
tensor(struct sym__parser *p, struct sym__tensor_strategy *t)
{
	size_t start, len;
	char b[64];

	sym__lex_peek(p);
	t->loc = sym__lex_loc(p, p->pos);
	if (p->src[p->pos] == '(')
		return tensor_tuple(p, t);
	if (sym__lex_name(p, &start, &len))
		return tensor_layout(p, t, start, len);
	return sym__lex_error(p, p->pos,
	    "a strategy has one tuple per tensor, as in ((4, 1),)",
	    "expected a tensor strategy such as (2, 4) or m(dp, None), found "
	    "%s",
	    sym__lex_describe(p, p->pos, b, sizeof(b)));
}

/* Read the tuple of tensor strategies "(T, ...)" that comes next in "p"
 * into "*arr" and "*n" (kept consistent for sym__strategy_free), located
 * in "*loc"; "what" names it in messages. Return 0 or -1. */
static int
tensors(struct sym__parser *p, struct sym__tensor_strategy **arr, size_t *n,
    sym_loc *loc, const char *what)
{
	size_t open, cap = 0;
	int r;

	if (sym__lex_peek(p) != '(')
		return sym__lex_error(p, p->pos, NULL,
		    "expected '(' to start the %s, as in ((2, 4), (4, 1))",
		    what);
	open = p->pos++;
	*loc = sym__lex_loc(p, open);
	for (r = sym__lex_list_start(p, ')', what, open); r > 0;
	     r = sym__lex_list_next(p, ')', what, open, "a tensor strategy")) {
		if (room(p, arr, &cap, *n, sizeof(**arr)) < 0)
			return -1;
		memset(&(*arr)[*n], 0, sizeof(**arr));
		(*n)++;
		if (tensor(p, &(*arr)[*n - 1]) < 0)
			return -1;
	}
	return r;
}

/* Read "STRATEGY [-> STRATEGY]" after "shard" in "p"; return the
 * strategy (located at its first '('), or NULL after an error. */
struct sym__strategy *
sym__parse_strategy(struct sym__parser *p)
{
	struct sym__strategy *s = sym__alloc(p->ctx, sizeof(*s));
	sym_loc out_loc;

	if (!s) {
		p->oom = 1;
		return NULL;
	}
	if (tensors(p, &s->in, &s->n_in, &s->loc, "strategy") < 0)
		goto fail;
	if (sym__lex_at_arrow(p)) {
		p->pos += 2;
		s->has_out = 1;
		if (tensors(p, &s->out, &s->n_out, &out_loc,
		        "output strategy") < 0)
			goto fail;
	}
	if (sym__parse_end(p,
	        s->has_out
	            ? "the output strategy"
	            : "the strategy (expected '->' or the end of the line)") <
	    0)
		goto fail;
	return s;
fail:
	sym__strategy_free(s);
	return NULL;
}

/* Set up "p" to read "text" of graph "g", whose first character is at
 * "where" (may be NULL: line 1, column 1). */
static void
text_parser(struct sym__parser *p, sym_graph *g, const char *text,
    const sym_loc *where)
{
	memset(p, 0, sizeof(*p));
	p->ctx = g->ctx;
	p->g = g;
	p->src = text;
	p->file = where ? sym__graph_intern_file(g, where->file) : NULL;
	p->line = where && where->line > 0 ? where->line : 1;
	p->col0 =
	    where && where->line > 0 && where->col > 1 ? where->col - 1 : 0;
}

/* Drop the strategy of node "n" of "g" (its shard clause or the one
 * sym_node_set_strategy gave it), leaving it to the defaults and
 * propagation at the next sym_graph_shard. Return 0, or -1 for NULL. */
int
sym_node_drop_strategy(sym_graph *g, sym_node *n)
{
	if (!g || !n)
		return -1;
	sym__node_set_strategy(n, NULL);
	return 0;
}

/* Give node "n" of "g" the strategy written in "text" as after "shard"
 * in a graph file ("((2, 4), (4, 1))", "(m(mp, None), m(None, mp)) ->
 * (m(mp, None),)"), located at "where" (may be NULL). It takes effect at
 * the next sym_graph_shard. Return 0, or -1 with a diagnostic on "g". */
int
sym_node_set_strategy(sym_graph *g, sym_node *n, const char *text,
    const sym_loc *where)
{
	struct sym__parser p;
	struct sym__strategy *s;

	if (!g || !n || !text)
		return -1;
	text_parser(&p, g, text, where);
	s = sym__parse_strategy(&p);
	sym__nameset_clear(&p.failed);
	if (!s) {
		if (p.oom)
			sym__oom(g->ctx);
		return -1;
	}
	sym__node_set_strategy(n, s);
	return 0;
}

/* Declare in "g" the mesh written in "text" as after "mesh" in a graph
 * file ("m = (dp=2, sp=2, mp=2)", optionally followed by "ranks [...]"),
 * located at "where" (may be NULL). Return 0, or -1 with a diagnostic. */
int
sym_graph_add_mesh(sym_graph *g, const char *text, const sym_loc *where)
{
	struct sym__parser p;
	int r;

	if (!g || !text)
		return -1;
	text_parser(&p, g, text, where);
	r = sym__parse_mesh(&p);
	sym__nameset_clear(&p.failed);
	if (p.oom)
		sym__oom(g->ctx);
	return r;
}

/* Return the strategy written in "text" as after "shard" in a graph file
 * for a node of "g" (a strategy assignment's, sym_sharding(3)), or NULL
 * with a diagnostic on "g". */
struct sym__strategy *
sym__strategy_parse(sym_graph *g, const char *text)
{
	struct sym__parser p;
	struct sym__strategy *s;

	text_parser(&p, g, text, NULL);
	s = sym__parse_strategy(&p);
	sym__nameset_clear(&p.failed);
	if (!s && p.oom)
		sym__oom(g->ctx);
	return s;
}

/* Read into "*m" the mesh declaration written in "text" as after "mesh"
 * in a graph file, for a strategy assignment of "g" (not declared in
 * "g"); 0, or -1 with a diagnostic on "g". */
int
sym__mesh_decl_parse(sym_graph *g, const char *text, struct sym__mesh_decl *m)
{
	struct sym__parser p;
	size_t at;
	int r;

	text_parser(&p, g, text, NULL);
	r = read_mesh(&p, m, &at);
	sym__nameset_clear(&p.failed);
	if (p.oom)
		sym__oom(g->ctx);
	return r;
}
