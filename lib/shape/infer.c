/* SPDX-License-Identifier: MIT */
/*
 * Running a shape rule: operand counts, outputs, requirements, structural
 * errors, and the scratch of one run.
 *
 * A requirement whose two sides differ by a constant (two constants, or
 * b and b + 1) is decided here: true ones are dropped, false ones are
 * structural errors carrying the requirement's message. The others are
 * left to the graph, which proves, unifies or guards them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape/shape_private.h"

/* Record the structural error "fmt"/"ap" about input "input" (or -1) and
 * attribute "attr" (or NULL) in "inf"; return -1. */
static int
vfail(struct sym__infer *inf, int input, const char *attr, const char *fmt,
    va_list ap)
{
	free(inf->error);
	inf->error = sym__vasprintf(fmt, ap);
	if (!inf->error)
		sym__oom(inf->ctx);
	inf->error_input = input;
	inf->error_attr = attr;
	return -1;
}

/* Record in "inf" the structural error "fmt" about input "input" (-1 when
 * it concerns no input in particular); return -1. */
int
sym__infer_fail(struct sym__infer *inf, int input, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(inf, input, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

/* Record in "inf" the structural error "fmt" about attribute "attr" (a
 * string that outlives the run: a literal or the attribute's own name);
 * return -1. */
int
sym__infer_fail_attr(struct sym__infer *inf, const char *attr, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(inf, -1, attr, fmt, ap);
	va_end(ap);
	return -1;
}

/* Record in "inf" that an earlier step failed (the context's message, or
 * out of memory) unless an error is already recorded; return -1. */
int
sym__infer_nomem(struct sym__infer *inf)
{
	const char *msg = sym_ctx_last_message(inf->ctx);

	if (inf->error)
		return -1;
	if (inf->ctx->err == SYM_OK || !msg)
		msg = "out of memory";
	return sym__infer_fail(inf, -1, "%s: %s", inf->op->name, msg);
}

/* Release "k", scratch of a run. */
static void
release(const struct sym__kept *k)
{
	if (k->expr)
		sym__expr_unref(k->p);
	else
		free(k->p);
}

/* Keep "p" until the end of the run of "inf": an internal reference to an
 * expression when "expr", else a malloc'ed block. Return "p", or NULL when
 * it is NULL or out of memory (releasing it). */
static void *
keep(struct sym__infer *inf, void *p, int expr)
{
	struct sym__kept k = { p, expr };

	if (!p)
		return NULL;
	if (SYM__RESERVE(inf->ctx, inf->kept, inf->cap_kept, inf->n_kept + 1) <
	    0) {
		release(&k);
		return NULL;
	}
	inf->kept[inf->n_kept++] = k;
	return p;
}

/* Keep the internal reference "e" until the end of the run of "inf";
 * return "e" (borrowed from now on), or NULL when "e" is NULL or out of
 * memory. */
sym_expr *
sym__tmp(struct sym__infer *inf, sym_expr *e)
{
	return keep(inf, e, 1);
}

/* Return "n" zeroed elements of "size" bytes that live until the end of
 * the run of "inf", or NULL when out of memory. */
void *
sym__scratch(struct sym__infer *inf, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		sym__oom(inf->ctx);
		return NULL;
	}
	return keep(inf, sym__alloc(inf->ctx, n * size), 0);
}

/* Return "e" as text, valid until the end of the run of "inf" ("?" when
 * out of memory). */
const char *
sym__txt_expr(struct sym__infer *inf, const sym_expr *e)
{
	char *s = keep(inf, sym_expr_to_str(e), 0);

	return s ? s : "?";
}

/* Return the dimensions of "s" as text, "[b, 784]", valid until the end
 * of the run of "inf" ("?" when out of memory). */
const char *
sym__txt_dims(struct sym__infer *inf, const sym_shape *s)
{
	char *t = keep(inf, sym_shape_dims_to_str(s), 0);

	return t ? t : "?";
}

/* Return the "rank" dimensions "dims" (borrowed) as text, "[b, 784]",
 * valid until the end of the run of "inf" ("?" when out of memory). */
const char *
sym__txt_dim_list(struct sym__infer *inf, size_t rank, sym_expr *const *dims)
{
	sym_shape *s = sym__shape_new(inf->ctx, SYM_DT_F32, rank, dims);
	const char *t = s ? sym__txt_dims(inf, s) : "?";

	sym__shape_unref(s);
	return t;
}

/* Return the text printf-style "fmt" makes, valid until the end of the
 * run of "inf" ("?" when out of memory). */
const char *
sym__txt_printf(struct sym__infer *inf, const char *fmt, ...)
{
	va_list ap;
	char *t;

	va_start(ap, fmt);
	t = keep(inf, sym__vasprintf(fmt, ap), 0);
	va_end(ap);
	return t ? t : "?";
}

/* Return the name of input "i" of "inf" for messages: its value's name,
 * else "input I". */
const char *
sym__in_name(const struct sym__infer *inf, size_t i)
{
	static const char *const anon[] = { "input 0", "input 1", "input 2",
		"input 3", "input 4", "input 5", "input 6", "input 7" };

	if (inf->in_name && i < inf->n_in && inf->in_name[i])
		return inf->in_name[i];
	return i < sizeof(anon) / sizeof(anon[0]) ? anon[i] : "an input";
}

/* Append the output shape "s" (an internal reference, consumed) to
 * "inf"; return 0, or -1 when "s" is NULL or out of memory. */
static int
infer_output(struct sym__infer *inf, sym_shape *s)
{
	if (!s)
		return sym__infer_nomem(inf);
	if (SYM__RESERVE(inf->ctx, inf->out, inf->cap_out, inf->n_out + 1) <
	    0) {
		sym__shape_unref(s);
		return sym__infer_nomem(inf);
	}
	inf->out[inf->n_out++] = s;
	return 0;
}

/* Append to "inf" an output of dtype "dt" with the "rank" dimensions
 * "dims" (borrowed); return 0 or -1. */
int
sym__out_shape(struct sym__infer *inf, sym_dtype dt, size_t rank,
    sym_expr *const *dims)
{
	for (size_t i = 0; i < rank; i++)
		if (!dims[i])
			return sym__infer_nomem(inf);
	return infer_output(inf, sym__shape_new(inf->ctx, dt, rank, dims));
}

/* Append to "inf" an output with the shape of input "i"; return 0 or
 * -1. */
int
sym__out_same(struct sym__infer *inf, size_t i)
{
	return infer_output(inf, sym__shape_ref(inf->in[i]));
}

/* Return 1 when "e" is a constant that fits 64 bits, storing it in
 * "*v". */
static int
constant(const sym_expr *e, int64_t *v)
{
	return sym_expr_get_const(e, v) == 0;
}

/* Return the sign of "e" when it is a constant of any size (-1, 0 or 1),
 * or 2 when it is not a constant (or is NULL). */
int
sym__const_sign(const sym_expr *e)
{
	const sym__num *v;

	if (!e || !sym__expr_const_num(e, &v))
		return 2;
	return sym__num_sgn(v) < 0 ? -1 : sym__num_sgn(v) > 0;
}

/* Return the sign of "a" - "b" when it is a constant (-1, 0 or 1), or 2
 * when it is not (or out of memory). */
static int
diff_sign(const sym_expr *a, const sym_expr *b)
{
	sym_expr *d;
	int sign;

	if (a == b)
		return 0;
	d = sym__sub((sym_expr *)a, (sym_expr *)b);
	sign = sym__const_sign(d);
	sym__expr_unref(d);
	return sign;
}

/* Return 1 when tier 0 shows "a" >= "b" (both borrowed, may be NULL)
 * for every admissible binding. */
int
sym__trivially_ge(sym_expr *a, sym_expr *b)
{
	sym_expr *d;
	int r;

	if (!a || !b)
		return 0;
	if (a == b)
		return 1;
	d = sym__lin(a, 1, b, -1, 0);
	r = d && !d->av.empty && !d->av.lo_inf && d->av.lo >= 0;
	sym__expr_unref(d);
	return r;
}

/* Return 1 when tier 0 shows that "k" >= 1 divides "a" (may be NULL). */
int
sym__trivially_divisible(sym_expr *a, int64_t k)
{
	return a && k >= 1 && !a->av.empty && sym__av_divisible(a->av, k);
}

/* Append to "inf" the requirement "kind" on "a", "b" (borrowed, "b" may
 * be NULL) and "k" described by "fmt"/"ap"; return 0 or -1. */
static int
add_req(struct sym__infer *inf, enum sym__req_kind kind, sym_expr *a,
    sym_expr *b, int64_t k, const char *fmt, va_list ap)
{
	struct sym__req *r;
	char *what;

	if (SYM__RESERVE(inf->ctx, inf->req, inf->cap_req, inf->n_req + 1) < 0)
		return sym__infer_nomem(inf);
	what = sym__vasprintf(fmt, ap);
	if (!what) {
		sym__oom(inf->ctx);
		return sym__infer_nomem(inf);
	}
	r = &inf->req[inf->n_req++];
	r->kind = kind;
	r->a = sym__expr_ref(a);
	r->b = sym__expr_ref(b);
	r->k = k;
	r->what = what;
	return 0;
}

/* Return 1 when the requirement "kind" on "a", "b" and "k" holds
 * whatever the symbols, 0 when it fails whatever they are, -1 when that
 * depends on them (or memory ran out). */
static int
decide(enum sym__req_kind kind, sym_expr *a, sym_expr *b, int64_t k)
{
	int64_t v;
	int sign;

	if (kind == SYM__REQ_DIVISIBLE)
		return k == 1 ? 1 : constant(a, &v) ? v % k == 0 : -1;
	sign = diff_sign(a, b);
	if (sign == 2)
		return -1;
	return kind == SYM__REQ_EQUAL ? sign == 0 : sign >= 0;
}

/* Require in "inf" "a" == "b" or "a" >= "b" (borrowed; "kind" says which),
 * or "k" (positive) to divide "a" ("b" unused), explained by "fmt";
 * decided at once when the sides differ by a constant. Return 0, or -1 on
 * a structural error or when an expression is NULL. */
int
sym__require_fn(struct sym__infer *inf, enum sym__req_kind kind, sym_expr *a,
    sym_expr *b, int64_t k, const char *fmt, ...)
{
	va_list ap;
	int holds, r;

	if (!a || (kind != SYM__REQ_DIVISIBLE && !b))
		return sym__infer_nomem(inf);
	if (kind == SYM__REQ_DIVISIBLE && k <= 0)
		return sym__infer_fail(inf, -1,
		    "%s: internal error: divisibility by %lld", inf->op->name,
		    (long long)k);
	holds = decide(kind, a, b, k);
	if (holds == 1)
		return 0;
	va_start(ap, fmt);
	if (holds == 0)
		r = vfail(inf, -1, NULL, fmt, ap);
	else
		r = add_req(inf, kind, a, b, k, fmt, ap);
	va_end(ap);
	return r;
}

/* Require dimension "da" of input "ia" to equal dimension "db" of input
 * "ib" in "inf", with the message naming both; return 0 or -1. */
int
sym__require_dims_equal(struct sym__infer *inf, size_t ia, size_t da, size_t ib,
    size_t db)
{
	sym_expr *a = inf->in[ia]->dim[da], *b = inf->in[ib]->dim[db];

	return sym__require_equal(inf, a, b,
	    "dimension %zu of %s (%s) must equal dimension %zu of %s (%s)", da,
	    sym__in_name(inf, ia), sym__txt_expr(inf, a), db,
	    sym__in_name(inf, ib), sym__txt_expr(inf, b));
}

/* Require input "i" of "inf" (called "role" before its name in messages:
 * "dy ", or "") to have the "rank" dimensions "dims" of "what", the value
 * it stands for ("the output of conv2d of x by w"); return 0 or -1. */
int
sym__require_dims_like(struct sym__infer *inf, size_t i, const char *role,
    size_t rank, sym_expr *const *dims, const char *what)
{
	const sym_shape *s = inf->in[i];

	if (s->rank != rank)
		return sym__infer_fail(inf, (int)i,
		    "%s%s of %s must have the shape of %s, %s, but its shape is "
		    "%s",
		    role, sym__in_name(inf, i), inf->op->name, what,
		    sym__txt_dim_list(inf, rank, dims), sym__txt_dims(inf, s));
	for (size_t d = 0; d < rank; d++)
		if (sym__require_equal(inf, s->dim[d], dims[d],
		        "dimension %zu of %s%s (%s) must equal %s, dimension %zu "
		        "of %s",
		        d, role, sym__in_name(inf, i),
		        sym__txt_expr(inf, s->dim[d]),
		        sym__txt_expr(inf, dims[d]), d, what) < 0)
			return -1;
	return 0;
}

/* Release the scratch of the run of "inf". */
static void
free_scratch(struct sym__infer *inf)
{
	for (size_t i = 0; i < inf->n_kept; i++)
		release(&inf->kept[i]);
	free(inf->kept);
	inf->kept = NULL;
	inf->n_kept = inf->cap_kept = 0;
}

/* Release the outputs and requirements of "inf". */
static void
free_results(struct sym__infer *inf)
{
	for (size_t i = 0; i < inf->n_out; i++)
		sym__shape_unref(inf->out[i]);
	free(inf->out);
	inf->out = NULL;
	inf->n_out = inf->cap_out = 0;
	for (size_t i = 0; i < inf->n_req; i++) {
		sym__expr_unref(inf->req[i].a);
		sym__expr_unref(inf->req[i].b);
		free(inf->req[i].what);
	}
	free(inf->req);
	inf->req = NULL;
	inf->n_req = inf->cap_req = 0;
	sym__opattrs_clear(&inf->at);
}

/* Release "a"'s memory and zero it. */
void
sym__opattrs_clear(struct sym__opattrs *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < sizeof(a->mem) / sizeof(a->mem[0]); i++)
		free(a->mem[i]);
	memset(a, 0, sizeof(*a));
}

/* Return zeroed memory for "n" elements of "size" bytes, owned by the
 * decoded attributes of "inf", or NULL (an error on "inf"). */
void *
sym__at_alloc(struct sym__infer *inf, size_t n, size_t size)
{
	for (size_t i = 0; i < sizeof(inf->at.mem) / sizeof(inf->at.mem[0]);
	     i++) {
		if (inf->at.mem[i])
			continue;
		inf->at.mem[i] = sym__calloc(inf->ctx, n, size);
		if (!inf->at.mem[i])
			sym__infer_nomem(inf);
		return inf->at.mem[i];
	}
	sym__infer_fail(inf, -1, "internal error: too many attribute arrays");
	return NULL;
}

/* Move the decoded attributes of "inf" into "*to", releasing what "*to"
 * held. */
void
sym__infer_take_attrs(struct sym__infer *inf, struct sym__opattrs *to)
{
	sym__opattrs_clear(to);
	*to = inf->at;
	memset(&inf->at, 0, sizeof(inf->at));
}

/* Release the outputs, requirements, decoded attributes, error and
 * scratch of "inf", leaving its inputs. */
void
sym__infer_clear(struct sym__infer *inf)
{
	if (!inf)
		return;
	free_results(inf);
	free_scratch(inf);
	free(inf->error);
	inf->error = NULL;
	inf->error_input = -1;
	inf->error_attr = NULL;
}

/* Check the number of inputs of "inf" against its operator; return 0 or
 * -1. */
static int
check_arity(struct sym__infer *inf)
{
	const sym_op *op = inf->op;
	size_t n = inf->n_in;

	if (op->min_in >= 0 && n < (size_t)op->min_in &&
	    op->max_in == op->min_in)
		return sym__infer_fail(inf, -1, "%s takes %d input%s, not %zu",
		    op->name, op->min_in, op->min_in == 1 ? "" : "s", n);
	if (op->max_in >= 0 && n > (size_t)op->max_in &&
	    op->max_in == op->min_in)
		return sym__infer_fail(inf, -1, "%s takes %d input%s, not %zu",
		    op->name, op->max_in, op->max_in == 1 ? "" : "s", n);
	if (op->min_in >= 0 && n < (size_t)op->min_in)
		return sym__infer_fail(inf, -1,
		    "%s takes at least %d input%s, not %zu", op->name,
		    op->min_in, op->min_in == 1 ? "" : "s", n);
	if (op->max_in >= 0 && n > (size_t)op->max_in)
		return sym__infer_fail(inf, -1,
		    "%s takes at most %d input%s, not %zu", op->name,
		    op->max_in, op->max_in == 1 ? "" : "s", n);
	for (size_t i = 0; i < n; i++)
		if (!inf->in || !inf->in[i] || inf->in[i]->ctx != inf->ctx)
			return sym__infer_fail(inf, (int)i,
			    "input %zu of %s has no shape", i, op->name);
	return 0;
}

/* Run the shape rule of the operator of "inf" on its inputs and
 * attributes; return 0 with the outputs and requirements in "inf", or -1
 * with "inf->error" set (and no outputs or requirements). */
int
sym__infer_run(struct sym__infer *inf)
{
	int r;

	if (!inf || !inf->ctx)
		return -1;
	inf->error_input = -1;
	inf->error_attr = NULL;
	if (!inf->op || !inf->op->rule) {
		sym__infer_fail(inf, -1, "no shape rule for this operator");
		return -1;
	}
	r = check_arity(inf);
	if (r == 0 && inf->op->decode)
		r = inf->op->decode(inf);
	if (r == 0)
		r = inf->op->rule(inf);
	if (r == 0 && inf->n_out_wanted && inf->n_out != inf->n_out_wanted)
		r = sym__infer_fail(inf, -1,
		    "%s produces %zu output%s, but %zu %s named", inf->op->name,
		    inf->n_out, inf->n_out == 1 ? "" : "s", inf->n_out_wanted,
		    inf->n_out_wanted == 1 ? "is" : "are");
	if (r != 0) {
		if (!inf->error)
			sym__infer_nomem(inf);
		free_results(inf);
	}
	free_scratch(inf);
	return r != 0 ? -1 : 0;
}

/* Decode the attributes "attrs" of "op" for the "n_in" inputs "in" and
 * "n_out" named outputs into "*at", in context "ctx"; return 0, or -1
 * with a malloc'ed message in "*error". */
int
sym__opattrs_decode(sym_ctx *ctx, const sym_op *op, const sym_attrs *attrs,
    size_t n_in, sym_shape *const *in, size_t n_out, struct sym__opattrs *at,
    char **error)
{
	struct sym__infer inf;
	int r;

	memset(at, 0, sizeof(*at));
	*error = NULL;
	memset(&inf, 0, sizeof(inf));
	inf.ctx = ctx;
	inf.op = op;
	inf.n_in = n_in;
	inf.in = in;
	inf.attrs = attrs;
	inf.n_out_wanted = n_out;
	inf.error_input = -1;
	r = op ? check_arity(&inf) : sym__infer_fail(&inf, -1, "no operator");
	if (r == 0 && op->decode)
		r = op->decode(&inf);
	if (r == 0) {
		/* The depth of one_hot is for its shape rule only. */
		if (op->id == SYM__OP_ONE_HOT)
			inf.at.gather.depth_expr = NULL;
		sym__infer_take_attrs(&inf, at);
	} else if (!inf.error)
		sym__infer_nomem(&inf);
	*error = inf.error;
	inf.error = NULL;
	sym__infer_clear(&inf);
	return r == 0 ? 0 : -1;
}
