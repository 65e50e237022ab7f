/* SPDX-License-Identifier: MIT */
/*
 * Strategies of nodes without a shard clause. The default is MindSpore's
 * semi-automatic one: split the leading dimension of the first input
 * (the input the rule names; the indices for gather) across all devices
 * and replicate the rest; when the rule rejects that, everything is
 * replicated. Unless SYM_SHARD_OPT_PROPAGATE is off, each input that already
 * has a layout (from its producer, or from an earlier consumer for graph
 * inputs) is also tried as this node's input layout, with the others
 * completed by the rule; such a propagated choice must be accepted by
 * the rule and provably divisible.
 *
 * Candidates are compared by the bytes they communicate: redistributing
 * the inputs, resolving partial sums, and feeding the consumers that have
 * shard clauses (whose needs are known). Byte counts are symbolic; they
 * are compared at a representative binding, every symbol at its least
 * admissible value, and the strategy source says so. Ties go to the
 * default.
 */
#include <stdlib.h>
#include <string.h>

#include "core/factor.h"
#include "core/str.h"
#include "shard/shard_private.h"

/* Return the bytes that redistributing a tensor of shape "shape" from
 * "from" to "to" communicates at the least sizes of the pass "p" (each
 * distinct redistribution is planned once, see shard_redist.c), adding
 * its memo to "desc" (may be NULL) when it has steps; -1 when it cannot
 * be planned or evaluated. */
static double
pass_cost(struct sym__pass *p, const sym_layout *from, const sym_layout *to,
    const sym_shape *shape, struct sym__desc *desc)
{
	const struct sym__memo *m;

	if (sym_layout_is_equal(from, to) == SYM_TRUE)
		return 0;
	m = sym__pass_redist(p, from, to, shape);
	if (!m || m->cost < 0)
		return -1;
	if (desc && sym_redist_n_steps(m->plan) > 0) {
		if (SYM__RESERVE(p->g->ctx, desc->memo, desc->cap,
		        desc->n + 1) < 0)
			return -1;
		desc->memo[desc->n++] = (size_t)(m - sym__pass_memos(p)->memo);
	}
	return m->cost;
}

/* Return the steps of "desc" in the pass "p" as text, "all_gather over
 * d0, all_reduce over k", malloc'ed; NULL when there are none (or on
 * out of memory). */
static char *
desc_text(struct sym__pass *p, const struct sym__desc *desc)
{
	size_t len = 1, pos = 0;
	char *t;

	if (!desc || desc->n == 0)
		return NULL;
	p = sym__pass_memos(p);
	for (size_t i = 0; i < desc->n; i++) {
		const char *s = sym__memo_steps(&p->memo[desc->memo[i]]);

		if (!s)
			return NULL;
		len += strlen(s) + 2;
	}
	t = malloc(len);
	for (size_t i = 0; t && i < desc->n; i++) {
		const char *s = p->memo[desc->memo[i]].steps;
		size_t k = strlen(s);

		if (i) {
			memcpy(t + pos, ", ", 2);
			pos += 2;
		}
		memcpy(t + pos, s, k);
		pos += k;
	}
	if (t)
		t[pos] = '\0';
	return t;
}

/* Return the bytes the run "r" of node "n" communicates at the least sizes:
 * redistributing its inputs from the layouts they have, resolving its
 * partial sums, feeding its consumers with shard clauses; the
 * redistributions with steps are added to "desc" (emptied first). -1 when
 * some redistribution cannot be planned. (pass "p") */
static double
run_cost(struct sym__pass *p, sym_node *n, struct sym__run *r,
    struct sym__desc *desc)
{
	double total = 0, c;

	desc->n = 0;
	for (size_t i = 0; i < n->n_in; i++) {
		sym_value *v = n->in[i];

		if (!sym__pass_vlayout(p, v))
			continue;
		c = pass_cost(p, sym__pass_vlayout(p, v), r->s.in[i],
		    sym__value_shape(v), desc);
		if (c < 0)
			return -1;
		total += c;
	}
	for (size_t k = 0; k < n->n_out; k++) {
		sym_shape *shape = sym__value_shape(n->out[k]);

		if (sym__run_partial(r, k)) {
			c = pass_cost(p, r->s.out[k], r->value[k], shape, desc);
			if (c < 0)
				return -1;
			total += c;
		}
		for (size_t u = p->use0[n->out[k]->index];
		     u < p->use0[n->out[k]->index + 1]; u++) {
			size_t j = p->use[u].node, s = p->use[u].input;
			sym_node *m = p->g->node[j];

			if (j <= n->index || !p->strategy[m->index] ||
			    !sym__pass_run(p, j)->ok)
				continue;
			c = pass_cost(p, r->value[k],
			    sym__pass_run(p, j)->s.in[s], shape, desc);
			if (c < 0)
				return -1;
			total += c;
		}
	}
	return total;
}

/* Return 1 when no split dimension of the layouts of the run "r" of node
 * "n" is refuted divisible (undecided ones are allowed: they become
 * guards). "p" is the pass. */
static int
run_divisible(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	for (size_t t = 0; t < n->n_in + n->n_out; t++) {
		sym_value *v = t < n->n_in ? n->in[t] : n->out[t - n->n_in];
		const sym_layout *l =
		    t < n->n_in ? r->s.in[t] : r->value[t - n->n_in];
		sym_shape *shape = sym__value_shape(v);

		for (size_t d = 0; l && shape && d < l->rank; d++) {
			int64_t k = sym_layout_dim_splits(l, d);
			sym_answer a;

			if (k <= 1)
				continue;
			a = sym_prove_divisible(p->g->ctx, shape->dim[d], k,
			    NULL);
			if (a == SYM_ERROR)
				sym_ctx_clear_error(p->g->ctx);
			if (a == SYM_FALSE)
				return 0;
		}
	}
	return 1;
}

/* Run the tuple step and the layout step of node "n" into "r" with the
 * split counts "split" (by input, NULL for none); 0 or -1. "p" is the pass. */
static int
try_tuple(struct sym__pass *p, sym_node *n, struct sym__run *r,
    const int64_t *const *split)
{
	if (sym__run_init(p, n, r) < 0)
		return -1;
	if (sym__shard_tuple(&r->s, split) < 0 || sym__shard_infer(&r->s) < 0 ||
	    sym__run_resolve(r) < 0)
		return -1;
	r->ok = 1;
	return 0;
}

/* Return the source of the default strategy of node "n" when its run "r"
 * splits dimension 0 of its input "di", named "x", "k" ways ("why" says
 * why not more): "default: dimension 0 of x split across 8 devices",
 * malloc'ed. "p" is the pass. */
static char *
default_words(const struct sym__pass *p, const sym_node *n,
    const struct sym__run *r, size_t di, const char *x, int64_t k,
    const char *why)
{
	char ks[24], reps[24];
	const char *part[9];

	ks[sym__put_int(ks, k)] = '\0';
	reps[sym__put_int(reps, p->devices / k)] = '\0';
	part[0] = "default: dimension 0 of ";
	part[1] = x;
	if (di < n->n_in && r->s.in[di] &&
	    sym_layout_dim_splits(r->s.in[di], 0) != k) {
		part[2] = " not split (";
		part[3] = n->op->name;
		part[4] = " cannot keep a split of it)";
		return sym__concat(part, 5);
	}
	if (k == p->devices) {
		part[2] = " split across ";
		part[3] = ks;
		part[4] = " devices";
		return sym__concat(part, 5);
	}
	part[2] = " split ";
	part[3] = ks;
	part[4] = " ways and repeated ";
	part[5] = reps;
	part[6] = " times (";
	part[7] = why ? why : "";
	part[8] = ")";
	return sym__concat(part, 9);
}

/* Give "r" the default strategy of node "n": dimension 0 of the rule's
 * default input split across the devices — or, when that split is refuted
 * for some admissible size, the largest split of the devices that always
 * divides it (the divisors of the device count are walked down from the
 * count, factored once per pass) —, else everything replicated; 0, or -1 with an error
 * diagnostic. "p" is the pass. */
static int
default_run(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	const struct sym__shard_rule *rule = sym__shard_rule_find(n->op);
	size_t di = rule ? (size_t)rule->default_input : 0, rank = 0;
	const int64_t **split =
	    sym__calloc(p->g->ctx, n->n_in + 1, sizeof(*split));
	int64_t *lead = NULL;
	char *why = NULL;
	const char *x;

	if (!split)
		return sym__graph_ctx_error(p->g, &n->loc);
	if (!rule) {
		free(split);
		return sym__graph_diag(p->g, SYM_SEV_ERROR, &n->loc, NULL, NULL,
		    "operator %s has no sharding rule", n->op->name);
	}
	x = di < n->n_in ? n->in[di]->name : "?";
	if (di < n->n_in)
		rank = sym__value_shape(n->in[di])->rank;
	if (rank > 0 && p->devices > 1) {
		lead = calloc(rank, sizeof(*lead));
		for (size_t d = 1; lead && d < rank; d++)
			lead[d] = 1;
		split[di] = lead;
		/* MindSpore's default splits dimension 0 across every device;
		 * when that is refuted for some admissible size, the largest
		 * split that always divides it is used (the rest repeats). */
		if (lead && !p->divisor)
			p->divisor = sym__divisors(p->devices, &p->n_divisor);
		for (size_t i = p->divisor ? p->n_divisor : 0;
		     lead && i > 1 && !r->ok; i--) {
			int64_t k = p->divisor[i - 1];

			if (p->g->opt_power_of_two && (k & (k - 1)))
				continue;
			lead[0] = k;
			if (try_tuple(p, n, r, split) < 0) {
				if (!why && r->s.error)
					why = strdup(r->s.error);
				sym__run_clear(r);
				continue;
			}
			if (!run_divisible(p, n, r)) {
				if (!why)
					why =
					    sym__asprintf("across %lld devices "
					                  "it is not always "
					                  "divisible",
					        (long long)k);
				sym__run_clear(r);
				continue;
			}
			r->source = default_words(p, n, r, di, x, k, why);
		}
	}
	if (!r->ok) {
		sym__run_clear(r);
		split[di < n->n_in ? di : 0] = NULL;
		if (try_tuple(p, n, r, split) == 0)
			r->source = p->devices == 1
			    ? sym__asprintf("default: one device")
			    : n->n_in == 0
			    ? sym__asprintf("default: replicated (a generator; "
			                    "its consumers slice their blocks "
			                    "locally)")
			    : rank == 0
			    ? sym__asprintf("default: replicated (%s is a "
			                    "scalar)",
			          x)
			    : sym__asprintf("default: replicated (dimension 0 "
			                    "of %s cannot be split: %s)",
			          x, why ? why : "out of memory");
	}
	free(why);
	free(lead);
	free(split);
	if (!r->ok) {
		char *label = sym__node_label(n);

		sym__graph_diag(p->g, SYM_SEV_ERROR, &n->loc, NULL, NULL,
		    "%s: no strategy: %s", label ? label : n->op->name,
		    r->s.error ? r->s.error : "out of memory");
		free(label);
		return -1;
	}
	return 0;
}

/* Run node "n" with input "i" laid out as its value already is and the
 * other inputs completed by the rule, into "r"; 0 or -1 when the rule
 * rejects it. "p" is the pass. */
static int
propagated_run(struct sym__pass *p, sym_node *n, size_t i, struct sym__run *r)
{
	const sym_layout *l = sym__pass_vlayout(p, n->in[i]);

	if (sym__run_init(p, n, r) < 0)
		return -1;
	r->s.mesh = sym__mesh_ref(l->mesh);
	r->s.in[i] = sym__layout_ref((sym_layout *)l);
	if (sym__shard_infer(&r->s) < 0 || sym__run_resolve(r) < 0)
		return -1;
	r->ok = 1;
	return 0;
}

/* Return the layout of the forward tensor "m" (SYM__MIRROR_*) of the
 * forward node "f": the layout it consumed of input m, or the layout
 * its output -2 - m has once resolved; NULL when there is none. */
static sym_layout *
mirrored(const struct sym__pass *p, const sym_node *f, int m)
{
	const struct sym__nshard *fs = sym__pass_nshard(p, f);

	if (m >= 0)
		return (size_t)m < f->n_in && fs->in_layout ? fs->in_layout[m]
		                                            : NULL;
	m = -2 - m;
	return m >= 0 && (size_t)m < f->n_out ? sym__pass_vlayout(p, f->out[m])
	                                      : NULL;
}

/* Give the update node "n" (its output 0 is its input 0 updated in
 * place) the run "r" in which input 0 keeps the layout it has, so that
 * the updated param stays where the param lives; "p" is the pass.
 * Return 0, or -1 when the input has no layout yet or the rule refuses
 * it. */
static int
inplace_run(struct sym__pass *p, sym_node *n, struct sym__run *r)
{
	sym_layout *l = n->n_in ? sym__pass_vlayout(p, n->in[0]) : NULL;

	if (!l || sym__run_init(p, n, r) < 0)
		return -1;
	r->s.mesh = sym__mesh_ref(l->mesh);
	r->s.in[0] = sym__layout_ref(l);
	if (sym__shard_infer(&r->s) < 0 || sym__run_resolve(r) < 0) {
		sym__run_clear(r);
		return -1;
	}
	r->ok = 1;
	r->source = sym__asprintf("in place: laid out like %s", n->in[0]->name);
	r->text = sym__run_tuple_text(r);
	return r->source && r->text ? 0 : -1;
}

/* Give node "n" of the backward pass the strategy derived from its
 * forward node's (see shard_private.h); "p" is the pass. */
int
sym__shard_derive(struct sym__pass *p, sym_node *n)
{
	const sym_node *f = n->fwd;
	struct sym__run *r = sym__pass_run(p, n->index);
	char *label;

	if (!f && (n->op->flags & SYM__OPF_INPLACE))
		return inplace_run(p, n, r);
	sym_mesh *fmesh = f && p->sh ? sym__pass_nshard(p, f)->mesh : NULL;

	if (!f || !fmesh || !n->mirror)
		return -1;
	if (sym__run_init(p, n, r) < 0)
		return -1;
	r->s.mesh = sym__mesh_ref(fmesh);
	for (size_t i = 0; i < n->n_in; i++) {
		sym_layout *l = n->mirror[i] == SYM__MIRROR_NONE
		    ? NULL
		    : mirrored(p, f, n->mirror[i]);

		if (l && l->mesh == fmesh &&
		    sym_layout_ndim(l) ==
		        sym_shape_ndim(sym__value_shape(n->in[i])))
			r->s.in[i] = sym__layout_ref(l);
	}
	if (sym__shard_infer(&r->s) < 0 || sym__run_resolve(r) < 0 ||
	    !run_divisible(p, n, r)) {
		sym__run_clear(r);
		return -1;
	}
	r->ok = 1;
	label = sym__node_label(f);
	r->source = sym__asprintf("derived from %s (its gradient)",
	    label ? label : f->op->name);
	r->text = sym__run_tuple_text(r);
	free(label);
	return r->source && r->text ? 0 : -1;
}

/* Return "what it communicates: N bytes" for a candidate with the
 * redistributions "desc" and "bytes" in the pass "p", malloc'ed. */
static char *
comm_text(struct sym__pass *p, const struct sym__desc *desc, double bytes)
{
	char *d = desc_text(p, desc), *t, num[24];
	const char *part[4];

	if (!d)
		return desc->n ? NULL : strdup("no communication");
	if (bytes > -1e18 && bytes < 1e18 && bytes == (double)(int64_t)bytes) {
		num[sym__put_int(num, (int64_t)bytes)] = '\0';
		part[0] = d;
		part[1] = ", ";
		part[2] = num;
		part[3] = " bytes";
		t = sym__concat(part, 4);
	} else {
		t = sym__asprintf("%s, %.0f bytes", d, bytes);
	}
	free(d);
	return t;
}

/* Set the strategy source of the chosen run "best": "def" describes the
 * default ("default: dimension 0 of x split across 8 devices"), "from" the
 * input value it was propagated from (NULL: the default was kept), "mine"
 * what the choice communicates, "other" what the best rejected candidate
 * would (the default when "from" is set; NULL: none), "other_from" where
 * that one came from, "def_ok" whether the default was valid. Return 0 or
 * -1. "p" is the pass. */
static int
set_source(struct sym__pass *p, struct sym__run *best, const char *def,
    const sym_value *from, const char *mine, const char *other,
    const sym_value *other_from, int def_ok)
{
	const char *part[9];
	char *s;

	if (from) {
		part[0] = "propagated from ";
		part[1] = from->name;
		part[2] = ": ";
		part[3] = mine;
		part[4] = def_ok ? " (default would need "
		                 : " (the default splits a dimension that is "
		                   "not always divisible)";
		part[5] = other;
		part[6] = p->least_words;
		part[7] = ")";
		s = sym__concat(part, def_ok ? 8 : 5);
	} else if (other) {
		part[0] = def;
		part[1] = " (propagation from ";
		part[2] = other_from->name;
		part[3] = " would need ";
		part[4] = other;
		part[5] = ", the default ";
		part[6] = mine;
		part[7] = p->least_words;
		part[8] = ")";
		s = sym__concat(part, 9);
	} else {
		s = strdup(def);
	}
	if (!s)
		return -1;
	free(best->source);
	best->source = s;
	return 0;
}

/* Return 1 when a valid propagated candidate costing "c" bytes beats the
 * best so far, valid or not ("best_valid") and costing "best_cost" (-1:
 * unknown). */
static int
better(double c, int best_valid, double best_cost)
{
	return !best_valid || best_cost < 0 || c < best_cost;
}

/* Exchange the descriptions "a" and "b". */
static void
swap_desc(struct sym__desc *a, struct sym__desc *b)
{
	struct sym__desc t = *a;

	*a = *b;
	*b = t;
}

/* The candidates of a node and what they communicate: the default, the
 * best propagated one so far, the one being tried and the first rejected
 * one whose cost differs from the best's. */
struct choice {
	struct sym__desc def, win, cand, alt;
	double def_cost, best_cost, alt_cost;
	const sym_value *from, *alt_from;
	int best_valid, def_ok;
};

/* Set the strategy source of the run "best" chosen in "c" (the default
 * described as "def") and its text; 0 or -1. "p" is the pass. */
static int
describe(struct sym__pass *p, struct sym__run *best, const char *def,
    const struct choice *c)
{
	char *mine = NULL, *other = NULL;
	int r;

	if (c->from) {
		other = c->def_ok ? comm_text(p, &c->def, c->def_cost) : NULL;
		mine = comm_text(p, &c->win, c->best_cost);
	} else if (c->alt_from) {
		other = comm_text(p, &c->alt, c->alt_cost);
		mine = comm_text(p, &c->def, c->def_cost);
	}
	r = set_source(p, best, def ? def : "default", c->from,
	    mine ? mine : "?", c->from ? (other ? other : "?") : other,
	    c->alt_from, c->def_ok);
	free(mine);
	free(other);
	best->text = sym__run_tuple_text(best);
	return best->text ? r : -1;
}

/* Choose the strategy of node "n", which has no shard clause: the default
 * or a cheaper valid propagated one (see the top of the file). Return 0, or
 * -1 with an error diagnostic. "p" is the pass. */
int
sym__shard_choose(struct sym__pass *p, sym_node *n)
{
	struct sym__run *best = sym__pass_run(p, n->index), cand;
	struct choice c;
	char *def;
	int r;

	if (default_run(p, n, best) < 0)
		return -1;
	memset(&c, 0, sizeof(c));
	def = best->source;
	best->source = NULL;
	c.best_valid = c.def_ok = run_divisible(p, n, best);
	c.best_cost = c.def_cost = run_cost(p, n, best, &c.def);
	for (size_t i = 0; p->g->opt_propagate && i < n->n_in; i++) {
		sym_value *v = n->in[i];
		double cost = -1;
		int dup = 0;

		for (size_t j = 0; j < i; j++)
			dup |= n->in[j] == v;
		if (!sym__pass_vlayout(p, v) || dup)
			continue;
		if (propagated_run(p, n, i, &cand) < 0 ||
		    !run_divisible(p, n, &cand) ||
		    (cost = run_cost(p, n, &cand, &c.cand)) < 0 ||
		    !better(cost, c.best_valid, c.best_cost)) {
			if (cost >= 0 && cost != c.best_cost && !c.alt_from) {
				swap_desc(&c.alt, &c.cand);
				c.alt_cost = cost;
				c.alt_from = v;
			}
			sym__run_clear(&cand);
			continue;
		}
		sym__run_clear(best);
		*best = cand;
		swap_desc(&c.win, &c.cand);
		c.best_cost = cost;
		c.best_valid = 1;
		c.from = v;
	}
	r = describe(p, best, def, &c);
	free(def);
	free(c.def.memo);
	free(c.win.memo);
	free(c.cand.memo);
	free(c.alt.memo);
	return r;
}

/* The most inputs and dimensions of an input the strategy search tries
 * splits of. */
#define CAND_MAX_IN 16
#define CAND_MAX_NDIM 8

/* The split vectors of one input of a candidate: "n" vectors of "rank"
 * splits each, every product a divisor of the devices. */
struct splits {
	int64_t *v;
	size_t n, rank;
};

/* Fill "s" with every vector of "rank" splits from the divisors "div"
 * ("nd" of them) whose product divides "devices" (powers of 2 only when
 * "pow2"); 0 or -1. */
static int
split_vectors(struct splits *s, size_t rank, const int64_t *div, size_t nd,
    int64_t devices, int pow2)
{
	size_t idx[CAND_MAX_NDIM] = { 0 }, cap = 16;

	s->rank = rank;
	s->n = 0;
	s->v = malloc(cap * (rank ? rank : 1) * sizeof(*s->v));
	if (!s->v || rank > CAND_MAX_NDIM)
		return -1;
	for (;;) {
		int64_t prod = 1;
		size_t d;
		int over = 0;

		for (d = 0; d < rank; d++)
			over |=
			    __builtin_mul_overflow(prod, div[idx[d]], &prod);
		if (!over && prod <= devices && devices % prod == 0 &&
		    (!pow2 || (prod & (prod - 1)) == 0)) {
			if (s->n == cap) {
				int64_t *nv = realloc(s->v,
				    2 * cap * rank * sizeof(*s->v));

				if (!nv)
					return -1;
				s->v = nv;
				cap *= 2;
			}
			for (d = 0; d < rank; d++)
				s->v[s->n * rank + d] = div[idx[d]];
			s->n++;
		}
		for (d = rank; d-- > 0;) {
			if (++idx[d] < nd)
				break;
			idx[d] = 0;
		}
		if (d == (size_t)-1 || rank == 0)
			return 0;
	}
}

/* Return the strategy "text" of the run "r" followed by the output
 * strategy that resolves its partial sums by a ReduceScatter along
 * dimension 0 (the partial axes' devices multiplying that dimension's
 * split), malloc'ed; NULL when no output has partial sums to scatter or
 * out of memory. */
static char *
scatter_text(sym_ctx *ctx, const struct sym__run *r, const char *text)
{
	struct sym__str b = SYM__STR_INIT;
	int any = 0;

	sym__str_printf(&b, "%s -> (", text);
	for (size_t k = 0; k < r->s.n_out; k++) {
		const sym_layout *l = r->s.out[k];
		size_t nd = sym_layout_ndim(l);
		int64_t part = 1;

		for (size_t a = 0; a < l->mesh->n_axes; a++)
			if (l->partial >> a & 1)
				part *= l->mesh->size[a];
		any |= part > 1 && nd > 0;
		sym__str_puts(&b, k ? ", (" : "(");
		for (size_t d = 0; d < nd; d++)
			sym__str_printf(&b, "%s%lld", d ? ", " : "",
			    (long long)(sym_layout_dim_splits(l, d) *
			        (d == 0 ? part : 1)));
		sym__str_puts(&b, nd == 1 ? ",)" : ")");
	}
	sym__str_puts(&b, r->s.n_out == 1 ? ",)" : ")");
	if (!any) {
		sym__str_clear(&b);
		return NULL;
	}
	return sym__str_take(&b, ctx);
}

/* Return the number of devices the run "r" splits its work over: its
 * mesh's without the axis of repeats. */
int64_t
sym__run_devices_used(const struct sym__run *r)
{
	int64_t used = 1;

	for (size_t a = 0; r->s.mesh && a < r->s.mesh->n_axes; a++)
		if (!r->s.mesh->name[a] || strcmp(r->s.mesh->name[a], "rep"))
			used *= r->s.mesh->size[a];
	return used;
}

/* Try the candidate of node "n" whose input i takes vector pick[i] of
 * "s" (inputs of rank 0: none); call "fn" with its text and its run when
 * the rule accepts it and no split is refuted, and again with its output
 * strategy of ReduceScatter when it leaves partial sums. 1 when it was,
 * 0 when not, -1. */
static int
try_candidate(struct sym__pass *p, sym_node *n, const struct splits *s,
    const size_t *pick,
    int (*fn)(void *, const char *, const struct sym__run *), void *arg)
{
	const int64_t *split[CAND_MAX_IN];
	struct sym__run r;
	char *text, *rs = NULL;
	unsigned long oom = sym__ctx_n_oom(p->g->ctx);
	int rc = 0;

	for (size_t i = 0; i < sym__n_strategies(n); i++)
		split[i] = s[i].rank ? &s[i].v[pick[i] * s[i].rank] : NULL;
	memset(&r, 0, sizeof(r));
	if (try_tuple(p, n, &r, split) == 0 && run_divisible(p, n, &r)) {
		text = sym__run_tuple_text(&r);
		rc = !text || fn(arg, text, &r) < 0 ? -1 : 1;
		if (rc > 0)
			rs = scatter_text(p->g->ctx, &r, text);
		if (rs && fn(arg, rs, &r) < 0)
			rc = -1;
		free(rs);
		free(text);
	}
	sym__run_clear(&r);
	/* A rule or a proof that failed for want of memory is no rejection. */
	if (rc == 0 && sym__ctx_n_oom(p->g->ctx) != oom)
		rc = -1;
	return rc;
}

/* See shard_private.h. */
long
sym__shard_candidates(struct sym__pass *p, sym_node *n, size_t most,
    int (*fn)(void *arg, const char *text, const struct sym__run *r), void *arg)
{
	struct splits s[CAND_MAX_IN];
	size_t pick[CAND_MAX_IN] = { 0 }, tries = 0;
	size_t ns = sym__n_strategies(n);
	long found = 0;
	int rc = 0;

	if (ns > CAND_MAX_IN)
		return 0;
	if (!p->divisor)
		p->divisor = sym__divisors(p->devices, &p->n_divisor);
	if (!p->divisor)
		return -1;
	memset(s, 0, sizeof(s));
	for (size_t i = 0; i < ns && rc == 0; i++)
		rc = split_vectors(&s[i],
		    sym__value_shape(sym__strategy_value(n, i))->rank,
		    p->divisor, p->n_divisor, p->devices,
		    p->g->opt_power_of_two);
	while (rc == 0 && tries++ < most) {
		size_t i;
		int t = try_candidate(p, n, s, pick, fn, arg);

		if (t < 0)
			rc = -1;
		found += t > 0;
		for (i = ns; i-- > 0;) {
			if (++pick[i] < (s[i].rank ? s[i].n : 1))
				break;
			pick[i] = 0;
		}
		if (i == (size_t)-1)
			break;
	}
	for (size_t i = 0; i < ns; i++)
		free(s[i].v);
	return rc < 0 ? -1 : found;
}
