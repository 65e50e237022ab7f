/* SPDX-License-Identifier: MIT */
/*
 * Compiling a checked graph into a slice plan (HACKING.md section 3): the
 * symbols a binding gives, the run-time checks (checks.c), and, in node
 * order, the communication steps of each node's inputs, its kernel and
 * the resolution of its partial sums, over plan tensors whose global and
 * local sizes and whose step bytes are slots of the integer program
 * (program.c); per-rank block indices make every offset a product
 * (placement groups, plan_groups.c). The listing is in plan_text.c.
 */
#include <stdlib.h>
#include <string.h>

#include <symshard/grad.h>

#include "plan/plan_private.h"

/* Free the tensors, steps, program and checks of "p" and "p". */
static void
plan_release(sym_plan *p)
{
	for (size_t t = 0; t < p->n_tensor; t++) {
		struct sym__tensor *x = &p->tensor[t];

		sym__layout_unref(x->layout);
		free(x->global);
		free(x->local);
	}
	for (size_t g = 0; g < p->n_group; g++)
		free(p->group[g].block);
	free(p->group);
	sym__plan_fuse_clear(p);
	for (size_t i = 0; i < p->n_check; i++)
		sym__check_clear(&p->check[i]);
	sym__htab_clear(&p->expr_map);
	sym__htab_clear(&p->cse);
	free(p->tensor);
	free(p->step);
	free(p->io);
	free(p->home);
	free(p->first);
	free(p->insn);
	free(p->what);
	free(p->check);
	free(p->sym);
	free(p->elim);
	if (p->sh)
		sym__obj_unref(&p->sh->obj);
	free(p);
}

/* Free the plan whose link is "link" (at sym_ctx_free too). */
static void
plan_destroy(struct sym__obj *obj)
{
	sym_plan *p = SYM__OBJ_OF(obj, sym_plan, obj);

	plan_release(p);
}

/* Free the plan "p" (NULL is ignored). Slices bound with it must be
 * freed first. */
void
sym_plan_free(sym_plan *p)
{
	if (!p)
		return;
	sym__obj_drop(p->ctx, &p->obj);
}

/* Symbol classes while collecting. */
enum {
	CLS_NONE,
	CLS_INPUT,
	CLS_ELIM,
	CLS_EXTRA
};

/* The state of collecting the symbols of a plan. */
struct collect {
	sym_plan *p;
	uint8_t *cls;      /* by symbol id */
	uint8_t *expanded; /* by elimination: its value was visited */
};

/* Add "s" to the symbols of "c->p" as class "cls"; 0 or -1. */
static int
add_symbol(struct collect *c, sym_symbol *s, int cls)
{
	sym_plan *p = c->p;

	if (SYM__RESERVE(p->ctx, p->sym, p->cap_sym,
	        p->n_sym + p->n_extra + 1) < 0)
		return -1;
	p->sym[p->n_sym + p->n_extra] = s;
	if (cls == CLS_INPUT)
		p->n_sym++;
	else
		p->n_extra++;
	c->cls[s->id] = (uint8_t)cls;
	return 0;
}

/* Visit the symbols of "e" for "c" as class "cls" (CLS_INPUT or
 * CLS_EXTRA): new ones are added, eliminated ones are expanded into the
 * symbols of their value; 0 or -1. */
static int
visit(struct collect *c, sym_expr *e, int cls)
{
	sym_symbol *buf[32], **s = buf;
	size_t n = sym_expr_symbols(e, buf, 32);
	int r = 0;

	if (n > 32) {
		s = sym__realloc_array(c->p->ctx, NULL, n, sizeof(*s));
		if (!s)
			return -1;
		sym_expr_symbols(e, s, n);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		long el;

		if (c->cls[s[i]->id] == CLS_NONE) {
			r = add_symbol(c, s[i], cls);
		} else if (c->cls[s[i]->id] == CLS_ELIM) {
			el = sym__plan_elim_index(c->p, s[i]);
			if (el >= 0 && !c->expanded[el]) {
				c->expanded[el] = 1;
				r = visit(c, c->p->elim[el].value, cls);
			}
		}
	}
	if (s != buf)
		free(s);
	return r;
}

/* Visit the dimensions of the shape of "v" for "c"; 0 or -1. */
static int
visit_value(struct collect *c, sym_value *v)
{
	sym_shape *sh = sym__value_shape(v);

	for (size_t d = 0; sh && d < sh->rank; d++)
		if (visit(c, sh->dim[d], CLS_INPUT) < 0)
			return -1;
	return 0;
}

/* Collect the symbols of "p": the variables unification eliminated, the
 * symbols of the inputs' shapes in order of appearance, then those of the
 * other sizes, guards and derived relations, then the optional symbols
 * only declared relations name; 0 or -1. */
static int
collect_symbols(sym_plan *p)
{
	sym_graph *g = p->g;
	struct collect c = { p, NULL, NULL };
	int r = 0;

	c.cls = sym__calloc(p->ctx, p->ctx->n_sym + 1, 1);
	p->elim = sym__calloc(p->ctx, g->n_rel + 1, sizeof(*p->elim));
	c.expanded = sym__calloc(p->ctx, g->n_rel + 1, 1);
	if (!c.cls || !p->elim || !c.expanded)
		r = -1;
	for (size_t i = 0; r == 0 && i < g->n_rel; i++) {
		sym_symbol *v = g->rel[i].pub.var;

		if (c.cls[v->id] != CLS_NONE)
			continue;
		c.cls[v->id] = CLS_ELIM;
		p->elim[p->n_elim].var = v;
		p->elim[p->n_elim].value = g->rel[i].value;
		p->elim[p->n_elim].rel = i;
		p->elim[p->n_elim++].slot = SYM__NO_SLOT;
	}
	for (size_t i = 0; r == 0 && i < g->n_value; i++)
		if (g->value[i]->kind != SYM_VALUE_RESULT)
			r = visit_value(&c, g->value[i]);
	for (size_t i = 0; r == 0 && i < g->n_value; i++)
		if (g->value[i]->kind == SYM_VALUE_RESULT)
			r = visit_value(&c, g->value[i]);
	for (size_t i = 0; r == 0 && i < g->n_guard; i++)
		r = visit(&c, g->guard[i].e, CLS_INPUT);
	for (size_t i = 0; r == 0 && i < p->n_elim; i++)
		r = visit(&c, p->elim[i].value, CLS_INPUT);
	for (size_t i = 0; r == 0 && !p->single && i < p->sh->n_guard; i++)
		r = visit(&c, p->sh->guard[i].e, CLS_INPUT);
	for (size_t i = 0; r == 0 && !p->single && i < p->sh->n_comm; i++)
		for (size_t k = 0; r == 0 && k < p->sh->comm[i].plan->n_step;
		     k++)
			r = visit(&c, p->sh->comm[i].plan->step[k].bytes,
			    CLS_INPUT);
	for (size_t i = 0; r == 0 && i < p->ctx->n_fact; i++)
		r = visit(&c, p->ctx->fact[i].e, CLS_EXTRA);
	/* the extra symbols go after every input symbol */
	if (r == 0 && p->n_sym + p->n_extra > 0) {
		size_t k = 0, n = p->n_sym + p->n_extra;
		sym_symbol **order =
		    sym__realloc_array(p->ctx, NULL, n + 1, sizeof(*order));

		if (!order) {
			r = -1;
		} else {
			for (int pass = 0; pass < 2; pass++)
				for (size_t i = 0; i < n; i++)
					if ((c.cls[p->sym[i]->id] ==
					        CLS_EXTRA) == pass)
						order[k++] = p->sym[i];
			memcpy(p->sym, order, n * sizeof(*order));
			free(order);
		}
	}
	free(c.cls);
	free(c.expanded);
	return r;
}

/* Return the number of a new tensor of "p" holding "v" laid out as "l"
 * (NULL: whole on every rank), its sizes compiled; SYM__NO_TENSOR on
 * error. "next" links the tensors of one value. */
static size_t
new_tensor(sym_plan *p, const sym_value *v, const sym_layout *l)
{
	sym_shape *sh = sym__value_shape((sym_value *)v);
	struct sym__tensor *x;
	size_t t = p->n_tensor, rank = sh ? sh->rank : 0;

	if (!sh || (l && l->rank != rank)) {
		sym__error(p->ctx, SYM_EINTERNAL, &v->loc,
		    "plan: %s has no shape or a layout of another rank",
		    v->name);
		return SYM__NO_TENSOR;
	}
	if (SYM__RESERVE(p->ctx, p->tensor, p->cap_tensor, t + 1) < 0)
		return SYM__NO_TENSOR;
	x = &p->tensor[p->n_tensor++];
	memset(x, 0, sizeof(*x));
	x->value = v;
	x->rank = rank;
	x->layout = l ? sym__layout_ref((sym_layout *)l) : NULL;
	x->next = p->first[v->index];
	p->first[v->index] = t;
	x->global = sym__calloc(p->ctx, rank + 1, sizeof(*x->global));
	x->local = sym__calloc(p->ctx, rank + 1, sizeof(*x->local));
	if (!x->global || !x->local)
		return SYM__NO_TENSOR;
	for (size_t d = 0; d < rank; d++) {
		int64_t k = l ? sym_layout_dim_splits(l, d) : 1;
		long c;

		if (sym__plan_what(p, SYM__W_DIM, t, d) < 0)
			return SYM__NO_TENSOR;
		x = &p->tensor[t];
		x->global[d] = sym__plan_expr(p, sh->dim[d]);
		x->local[d] = x->global[d];
		if (k > 1) {
			c = sym__plan_split_check(p, t, d, k);
			if (c < 0 ||
			    sym__plan_what(p, SYM__W_CHECK, (size_t)c, 0) < 0)
				return SYM__NO_TENSOR;
			x = &p->tensor[t];
			x->local[d] = sym__plan_emit(p, SYM__P_DIVEXACT,
			    x->global[d], 0, k);
		}
		if (x->local[d] == SYM__NO_SLOT)
			return SYM__NO_TENSOR;
	}
	return t;
}

/* Return the tensor of "v" in "p" laid out as "l" (equal layouts), or
 * SYM__NO_TENSOR. */
static size_t
find_tensor(const sym_plan *p, const sym_value *v, const sym_layout *l)
{
	for (size_t t = p->first[v->index]; t != SYM__NO_TENSOR;
	     t = p->tensor[t].next) {
		const sym_layout *m = p->tensor[t].layout;

		if (m == l || (m && l && sym_layout_is_equal(m, l)))
			return t;
	}
	return SYM__NO_TENSOR;
}

/* Return 1 when "a" and "b" (either NULL: whole) place the same block
 * of every dimension of a tensor of "rank" dimensions on each of the
 * "n_ranks" ranks (layouts over different meshes may), else 0. */
static int
same_placement(const sym_layout *a, const sym_layout *b, size_t rank,
    int64_t n_ranks)
{
	for (size_t d = 0; d < rank; d++) {
		if ((a ? sym_layout_dim_splits(a, d) : 1) !=
		    (b ? sym_layout_dim_splits(b, d) : 1))
			return 0;
		for (int64_t r = 0; r < n_ranks; r++)
			if ((a ? sym_layout_block(a, r, d) : 0) !=
			    (b ? sym_layout_block(b, r, d) : 0))
				return 0;
	}
	return 1;
}

/* Append a step of "kind" to "p" with "n_in" inputs and "n_out" outputs
 * (set by the caller through the io pool); return it, or NULL. */
static struct sym__pstep *
new_step(sym_plan *p, sym_plan_step_kind kind, const sym_node *n, size_t n_in,
    size_t n_out)
{
	struct sym__pstep *s;

	if (SYM__RESERVE(p->ctx, p->step, p->cap_step, p->n_step + 1) < 0 ||
	    SYM__RESERVE(p->ctx, p->io, p->cap_io, p->n_io + n_in + n_out) < 0)
		return NULL;
	s = &p->step[p->n_step++];
	memset(s, 0, sizeof(*s));
	s->pub.kind = kind;
	s->pub.node = n;
	s->pub.derived = n && n->index >= sym_graph_n_forward_nodes(p->g);
	s->pub.input = SYM_PLAN_NO_INPUT;
	s->pub.n_in = n_in;
	s->pub.n_out = n_out;
	s->bytes = SYM__NO_SLOT;
	s->bucket = SIZE_MAX;
	s->io = p->n_io;
	p->n_io += n_in + n_out;
	return s;
}

/* Append to "p" the steps of the communication "c" of node "n" moving
 * "v" from the tensor "from" (for input "input", or SYM_PLAN_NO_INPUT
 * for a resolution) to a new tensor in the layout "to" (or to the tensor
 * "dest" unless SYM__NO_TENSOR), the one the last step writes (which
 * places the blocks as the step's own layout does). Return that tensor,
 * or SYM__NO_TENSOR. */
static size_t
comm_steps(sym_plan *p, const sym_reshard *c, const sym_node *n,
    const sym_value *v, size_t input, size_t from, const sym_layout *to,
    size_t dest)
{
	const sym_redist *r = c->plan;
	size_t cur = from;

	for (size_t j = 0; j < r->n_step; j++) {
		const struct sym__step *st = &r->step[j];
		struct sym__pstep *s;
		size_t out, i;

		if (j + 1 == r->n_step &&
		    !same_placement(st->after, to, p->tensor[from].rank,
		        p->n_ranks)) {
			sym__error(p->ctx, SYM_EINTERNAL, &n->loc,
			    "plan: the redistribution of %s ends in another "
			    "layout than the one needed",
			    v->name);
			return SYM__NO_TENSOR;
		}
		out = j + 1 == r->n_step && dest != SYM__NO_TENSOR
		    ? dest
		    : new_tensor(p, v, j + 1 < r->n_step ? st->after : to);
		if (out == SYM__NO_TENSOR)
			return SYM__NO_TENSOR;
		s = new_step(p, SYM_PLAN_COMM, n, 1, 1);
		if (!s)
			return SYM__NO_TENSOR;
		i = (size_t)(s - p->step);
		s->pub.value = v;
		s->pub.input = input;
		s->pub.comm = st->kind;
		s->pub.redist = r;
		s->pub.redist_step = j;
		p->io[s->io] = cur;
		p->io[s->io + 1] = out;
		if (sym__plan_what(p, SYM__W_BYTES, i, 0) < 0)
			return SYM__NO_TENSOR;
		p->step[i].bytes = sym__plan_expr(p, st->bytes);
		if (p->step[i].bytes == SYM__NO_SLOT)
			return SYM__NO_TENSOR;
		cur = out;
	}
	return cur;
}

/* Return the tensor input "i" of node "n" reads in the sharded plan "p",
 * appending the steps of its redistribution "c" (NULL: none) unless a
 * tensor of the value in the layout needed is there already (and "c"
 * does not gather a param kept sharded anew: optimizer_shard=3, whose
 * backward pass gathers it again); or SYM__NO_TENSOR. */
static size_t
input_tensor(sym_plan *p, const sym_node *n, size_t i, const sym_reshard *c)
{
	const sym_value *v = n->in[i];
	const sym_layout *want = sym_sharding_input_layout(p->sh, n, i);
	size_t t = find_tensor(p, v, want), home = p->home[v->index];
	int anew = c && c->plan->n_step > 0 && !sym_reshard_shares(c) &&
	    v->kind == SYM_VALUE_PARAM &&
	    sym_sharding_optimizer_shard(p->sh) >= 3;

	if (t != SYM__NO_TENSOR && !anew)
		return t;
	if (c && c->plan->n_step > 0)
		return comm_steps(p, c, n, v, i, home, want, SYM__NO_TENSOR);
	if (!same_placement(p->tensor[home].layout, want, p->tensor[home].rank,
	        p->n_ranks)) {
		sym__error(p->ctx, SYM_EINTERNAL, &n->loc,
		    "plan: input %zu of %s needs another layout than %s has, "
		    "and the graph plans no communication",
		    i, n->op->name, v->name);
		return SYM__NO_TENSOR;
	}
	return home;
}

/* Return the home tensor of input "k" of node "n" of "p" when "n"
 * updates it in place as output "k" and the output's value is laid out
 * as that tensor is (an update on a shard gathered back into the
 * param's buffer: optimizer_shard), else SYM__NO_TENSOR. */
static size_t
inplace_home(const sym_plan *p, const sym_node *n, size_t k)
{
	size_t t;

	if (!(n->op->flags & SYM__OPF_INPLACE) || k >= n->n_in)
		return SYM__NO_TENSOR;
	t = p->home[n->in[k]->index];
	if (t == SYM__NO_TENSOR ||
	    !same_placement(p->tensor[t].layout, sym__vlayout(p->sh, n->out[k]),
	        p->tensor[t].rank, p->n_ranks))
		return SYM__NO_TENSOR;
	return t;
}

/* Append to "p" the steps of node "n": the redistributions of its
 * inputs, its kernel, the resolution of its partial sums ("single":
 * whole tensors, no communication). Return 0 or -1. */
static int
node_steps(sym_plan *p, const sym_node *n)
{
	size_t *in = sym__calloc(p->ctx, n->n_in + n->n_out + 1, sizeof(*in));
	size_t *out;
	struct sym__pstep *s;
	int r = -1;

	if (!in)
		return -1;
	out = in + n->n_in;
	for (size_t i = 0; i < n->n_in; i++) {
		in[i] = p->single
		    ? p->home[n->in[i]->index]
		    : input_tensor(p, n, i,
		          sym_sharding_find_reshard(p->sh, n->in[i], n, i));
		if (in[i] == SYM__NO_TENSOR)
			goto done;
	}
	for (size_t k = 0; k < n->n_out; k++) {
		const sym_value *v = n->out[k];
		const sym_reshard *c = p->single
		    ? NULL
		    : sym_sharding_find_reshard(p->sh, v, NULL, 0);

		if (c && c->plan->n_step > 0)
			out[k] = new_tensor(p, v,
			    sym_sharding_output_layout(p->sh, n, k));
		else
			out[k] = p->home[v->index] = new_tensor(p, v,
			    p->single ? NULL : sym__vlayout(p->sh, v));
		if (out[k] == SYM__NO_TENSOR)
			goto done;
	}
	s = new_step(p, SYM_PLAN_KERNEL, n, n->n_in, n->n_out);
	if (!s)
		goto done;
	if (n->n_in + n->n_out > 0)
		memcpy(p->io + s->io, in, (n->n_in + n->n_out) * sizeof(*in));
	for (size_t k = 0; k < n->n_out; k++) {
		const sym_value *v = n->out[k];
		const sym_reshard *c = p->single
		    ? NULL
		    : sym_sharding_find_reshard(p->sh, v, NULL, 0);
		size_t home;

		if (!c || c->plan->n_step == 0)
			continue;
		home = comm_steps(p, c, n, v, SYM_PLAN_NO_INPUT, out[k],
		    sym__vlayout(p->sh, v), inplace_home(p, n, k));
		if (home == SYM__NO_TENSOR)
			goto done;
		p->home[v->index] = home;
	}
	r = 0;
done:
	free(in);
	return r;
}

/* Build the tensors and steps of "p": the home tensors of the inputs and
 * parameters, then the steps of every node in order; 0 or -1. */
static int
build_steps(sym_plan *p)
{
	sym_graph *g = p->g;
	int r = 0;

	p->home =
	    sym__realloc_array(p->ctx, NULL, g->n_value + 1, sizeof(*p->home));
	p->first =
	    sym__realloc_array(p->ctx, NULL, g->n_value + 1, sizeof(*p->first));
	if (!p->home || !p->first)
		r = -1;
	for (size_t i = 0; r == 0 && i < g->n_value; i++)
		p->home[i] = p->first[i] = SYM__NO_TENSOR;
	for (size_t i = 0; r == 0 && i < g->n_value; i++) {
		sym_value *v = g->value[i];

		if (v->kind == SYM_VALUE_RESULT)
			continue;
		p->home[i] =
		    new_tensor(p, v, p->single ? NULL : sym__vlayout(p->sh, v));
		if (p->home[i] == SYM__NO_TENSOR)
			r = -1;
	}
	for (size_t i = 0; r == 0 && i < g->n_node; i++)
		r = node_steps(p, g->node[i]);
	for (size_t i = 0; r == 0 && i < p->n_step; i++) {
		struct sym__pstep *s = &p->step[i];

		s->pub.in = p->io + s->io;
		s->pub.out = p->io + s->io + s->pub.n_in;
	}
	return r;
}

/* Return an error about "g" with "msg" ("code") on its context and
 * NULL. */
static sym_plan *
refuse(sym_graph *g, sym_error code, const char *msg)
{
	sym__error(g->ctx, code, NULL, "%s", msg);
	return NULL;
}

static sym_plan *compile(sym_graph *g, sym_sharding *sh, unsigned flags);

/* Compile the checked graph "g" into a slice plan. "flags" may hold
 * SYM_PLAN_SINGLE: one rank, every tensor whole, no communication (the
 * sharding, if any, is ignored). Otherwise a graph of several devices
 * must have been sharded: the plan is compiled from its current sharding
 * (sym_plan_compile_sharding). Return the plan (a caller reference), or
 * NULL with SYM_EINVAL when the graph has errors or is not sharded. The
 * graph must outlive the plan. */
sym_plan *
sym_plan_compile(sym_graph *g, unsigned flags)
{
	if (!g)
		return NULL;
	return compile(g, g->sharding, flags);
}

/* Compile the graph of the sharding "sh" into the slice plan of "sh"
 * (with SYM_PLAN_SINGLE in "flags": of one rank, the sharding ignored).
 * The plan keeps a reference to "sh"; the graph must outlive it. Return
 * the plan (a caller reference), or NULL with SYM_EINVAL when the graph
 * or the sharding has errors. */
sym_plan *
sym_plan_compile_sharding(sym_sharding *sh, unsigned flags)
{
	if (!sh)
		return NULL;
	if (sh->n_errors > 0 || sh->failed)
		return refuse(sh->g, SYM_EINVAL,
		    "cannot compile a plan: the sharding has errors");
	return compile(sh->g, sh, flags);
}

/* Return the sharding "p" was compiled from (borrowed), or NULL for a
 * single-device plan of an unsharded graph. */
sym_sharding *
sym_plan_sharding(const sym_plan *p)
{
	return p ? p->sh : NULL;
}

/* Compile "g" sharded as "sh" (NULL: not sharded) with "flags"; the
 * plan or NULL. */
static sym_plan *
compile(sym_graph *g, sym_sharding *sh, unsigned flags)
{
	sym_plan *p;
	int r;

	if (g->n_errors > 0)
		return refuse(g, SYM_EINVAL,
		    "cannot compile a plan: the graph has errors");
	if (!(flags & SYM_PLAN_SINGLE) && !sh && g->devices > 1)
		return refuse(g, SYM_EINVAL,
		    "cannot compile a plan: the graph of several devices is "
		    "not sharded (call sym_graph_shard, or compile with "
		    "SYM_PLAN_SINGLE)");
	p = sym__alloc(g->ctx, sizeof(*p));
	if (!p)
		return NULL;
	p->ctx = g->ctx;
	p->g = g;
	p->flags = flags;
	p->single = (flags & SYM_PLAN_SINGLE) || !sh;
	if (sh) {
		p->sh = sh;
		sym__obj_ref(&sh->obj);
	}
	p->n_ranks = p->single || g->devices < 1 ? 1 : g->devices;
	r = collect_symbols(p);
	if (r == 0 && p->n_sym + p->n_extra > 0)
		r = sym__plan_what(p, SYM__W_CHECK, 0, 0);
	for (size_t i = 0; r == 0 && i < p->n_sym + p->n_extra; i++)
		r = sym__plan_emit(p, SYM__P_SYM, (uint32_t)i, 0, 0) == i ? 0
		                                                          : -1;
	if (r == 0)
		r = sym__plan_checks(p);
	p->n_insn1 = p->n_insn;
	p->n_check1 = p->n_check;
	if (r == 0)
		r = build_steps(p);
	if (r == 0)
		r = sym__plan_fuse(p);
	if (r == 0)
		r = sym__plan_build_groups(p);
	if (r < 0 || p->failed) {
		if (sym_ctx_last_error(p->ctx) == SYM_OK)
			sym__oom(p->ctx);
		plan_release(p);
		return NULL;
	}
	sym__htab_clear(&p->expr_map);
	sym__htab_clear(&p->cse);
	free(p->first);
	p->first = NULL;
	sym__obj_init(&p->obj, SYM__OBJ_PLAN, plan_destroy);
	sym__obj_give(p->ctx, &p->obj);
	return p;
}

/* Return the graph "p" was compiled from. */
sym_graph *
sym_plan_graph(const sym_plan *p)
{
	return p ? p->g : NULL;
}

/* Return the number of ranks of "p" (1 for a single-device plan). */
int64_t
sym_plan_n_ranks(const sym_plan *p)
{
	return p ? p->n_ranks : 0;
}

/* Return the number of symbols a binding of "p" must give. */
size_t
sym_plan_n_symbols(const sym_plan *p)
{
	return p ? p->n_sym : 0;
}

/* Return symbol "i" of "p" (the order of sym_plan_bind_values), or
 * NULL. */
sym_symbol *
sym_plan_symbol(const sym_plan *p, size_t i)
{
	return p && i < p->n_sym ? p->sym[i] : NULL;
}

/* Return the number of steps of "p". */
size_t
sym_plan_n_steps(const sym_plan *p)
{
	return p ? p->n_step : 0;
}

/* Return step "i" of "p" (borrowed), or NULL. */
const sym_plan_step *
sym_plan_get_step(const sym_plan *p, size_t i)
{
	return p && i < p->n_step ? &p->step[i].pub : NULL;
}

/* Return the number of tensors of "p". */
size_t
sym_plan_n_tensors(const sym_plan *p)
{
	return p ? p->n_tensor : 0;
}

/* Return the value tensor "t" of "p" holds, or NULL. */
const sym_value *
sym_plan_tensor_value(const sym_plan *p, size_t t)
{
	return p && t < p->n_tensor ? p->tensor[t].value : NULL;
}

/* Return the layout of tensor "t" of "p" (borrowed; NULL: whole on
 * every rank, or out of range). */
const sym_layout *
sym_plan_tensor_layout(const sym_plan *p, size_t t)
{
	return p && t < p->n_tensor ? p->tensor[t].layout : NULL;
}

/* Return the number of dimensions of tensor "t" of "p" (0 when out of
 * range). */
size_t
sym_plan_tensor_ndim(const sym_plan *p, size_t t)
{
	return p && t < p->n_tensor ? p->tensor[t].rank : 0;
}

/* Return the home tensor of "v" in "p", or (size_t)-1 when "v" is not a
 * value of its graph. */
size_t
sym_plan_value_tensor(const sym_plan *p, const sym_value *v)
{
	if (!p || !v || v->graph != p->g || v->index >= p->g->n_value)
		return SYM__NO_TENSOR;
	return p->home[v->index];
}

/* Return the number of instructions of the program of "p". */
size_t
sym_plan_n_instructions(const sym_plan *p)
{
	return p ? p->n_insn : 0;
}

/* Return the number of run-time checks of "p". */
size_t
sym_plan_n_checks(const sym_plan *p)
{
	return p ? p->n_check : 0;
}
