/* SPDX-License-Identifier: MIT */
/*
 * The fuzz target of the run-time half: parse one input as a graph file
 * and, when it has no error, shard it, print what shape-check prints
 * through the library (layouts, strategies, communications and the steps
 * of their plans), compile the sharded and the single-device slice plans
 * and list them, bind both with the bindings the input asks for and with
 * values chosen from the symbols' declarations, check every accepted
 * binding's slices against the layouts and the shapes, list them, and
 * run the graphs whose tensors are small on the threads backend against
 * one device (sym_exec_check).
 *
 * Comment lines of the input, which the graph parser ignores, may hold
 * directives:
 *
 *   # bind b=8, s=16    a binding to try (sym_binding_parse), at most 4
 *   # pow2              shard with SYM_SHARD_OPT_POWER_OF_TWO
 *   # nopropagate       shard with SYM_SHARD_OPT_PROPAGATE 0
 *   # topology N        shard for N ranks per node (1 to 64)
 *
 * An input breaks a property when it crashes, leaks, leaves an object
 * alive, gets NULL or -1 from a call without an error on the context,
 * gets a binding accepted whose slices disagree with the layouts or the
 * shapes, gets a binding accepted by one plan and refused by the other
 * (but for overflow and the split checks of the sharded plan), or gets a
 * sharded run that fails or differs from the single-device run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets.h"

#define MAX_BIND 4          /* "# bind" directives read */
#define N_CHOSEN 4          /* bindings chosen from the declarations */
#define MAX_DEVICES 256     /* larger graphs are parsed, not sharded */
#define MAX_DIMS 16         /* plan tensors of more dimensions: not run */
#define EXEC_MAX_RANKS 8    /* sym_exec_check only on so many ranks */
#define EXEC_MAX_ELEMS 4096 /* and when every tensor is this small */
#define EXEC_MAX_STEPS 256  /* and the plan this short */
#define EXEC_MAX_RUNS 2     /* runs per input */

/* What the comment lines of an input ask for. */
struct directives {
	char *bind[MAX_BIND];
	size_t n_bind;
	int pow2, no_propagate;
	int64_t ranks_per_node; /* 0: no topology */
};

/* Everything one input holds while it runs. */
struct run {
	sym_ctx *ctx;
	sym_graph *g;
	const sym_topology *topo; /* NULL: the default */
	sym_topology *own_topo;   /* what "# topology" asks for */
	sym_plan *p, *single;
	sym_slices *s, *s1, *s2;
	sym_communicator *comm;
	uint64_t hash;
	int n_exec;
};

/* Return the FNV-1a hash of the "size" bytes of "data". */
static uint64_t
hash_of(const uint8_t *data, size_t size)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 1099511628211ull;
	return h;
}

/* Return "p" after the blanks it starts with. */
static const char *
skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Return 1 when the comment text "p" starts with the word "w" (followed
 * by a blank or the end of the line), else 0. */
static int
starts_with_word(const char *p, const char *w)
{
	size_t n = strlen(w);

	return strncmp(p, w, n) == 0 &&
	    (p[n] == ' ' || p[n] == '\t' || p[n] == '\n' || p[n] == '\r' ||
	        p[n] == '\0');
}

/* Read the directive of the comment "p" (after its "#") into "d". */
static void
directive(const char *p, struct directives *d)
{
	const char *end = p + strcspn(p, "\r\n");

	p = skip_blanks(p);
	if (starts_with_word(p, "bind") && d->n_bind < MAX_BIND) {
		p = skip_blanks(p + 4);
		d->bind[d->n_bind] = strndup(p, (size_t)(end - p));
		if (d->bind[d->n_bind])
			d->n_bind++;
	} else if (starts_with_word(p, "pow2")) {
		d->pow2 = 1;
	} else if (starts_with_word(p, "nopropagate")) {
		d->no_propagate = 1;
	} else if (starts_with_word(p, "topology")) {
		long n = strtol(skip_blanks(p + 8), NULL, 10);

		d->ranks_per_node = n >= 1 && n <= 64 ? n : 0;
	}
}

/* Read the directives of the comment lines of "text" into "d". */
static void
read_directives(const char *text, struct directives *d)
{
	memset(d, 0, sizeof(*d));
	for (const char *line = text; line && *line;) {
		const char *p = skip_blanks(line);

		if (*p == '#')
			directive(p + 1, d);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
}

/* Free what "d" holds. */
static void
directives_clear(struct directives *d)
{
	for (size_t i = 0; i < d->n_bind; i++)
		free(d->bind[i]);
}

/* Return 0 when a call "what" that failed (NULL or -1) left an error on
 * "ctx", else -1. */
static int
failed_with_error(sym_ctx *ctx, const char *what)
{
	if (sym_ctx_last_error(ctx) == SYM_OK)
		return fuzz_fail("%s failed without an error", what);
	return 0;
}

/* Shard the graph of "r" as the directives "d" ask; return 0 (sharded or
 * not, with diagnostics), or -1 when a property is broken. */
static int
shard(struct run *r, const struct directives *d)
{
	size_t before = sym_graph_n_diagnostics(r->g);

	if (d->pow2)
		sym_graph_set_shard_option(r->g, SYM_SHARD_OPT_POWER_OF_TWO, 1);
	if (d->no_propagate)
		sym_graph_set_shard_option(r->g, SYM_SHARD_OPT_PROPAGATE, 0);
	if (d->ranks_per_node) {
		r->own_topo = sym_topology_new(r->ctx, d->ranks_per_node, 100.0,
		    5.0, 25.0, 10.0);
		if (!r->own_topo)
			return failed_with_error(r->ctx, "sym_topology_new");
		r->topo = r->own_topo;
	}
	sym_ctx_clear_error(r->ctx);
	if (sym_graph_shard(r->g, r->topo) < 0 &&
	    sym_graph_n_errors(r->g) == 0 &&
	    sym_ctx_last_error(r->ctx) != SYM_ENOMEM)
		return fuzz_fail("sym_graph_shard failed without an error "
		                 "diagnostic: %s",
		    sym_ctx_last_message(r->ctx));
	for (size_t i = before; i < sym_graph_n_diagnostics(r->g); i++)
		if (fuzz_printed(sym_diagnostic_format(r->g,
		                     sym_graph_diagnostic(r->g, i)),
		        "sym_diagnostic_format") < 0)
			return -1;
	if (sym_graph_n_errors(r->g) > 0) {
		fuzz_note("not sharded: %zu errors", sym_graph_n_errors(r->g));
		return 0;
	}
	return fuzz_print_sharding(r->g);
}

/* Add to "v", which holds "*n" of at most "cap" values, the value "x". */
static void
add_value(int64_t *v, size_t *n, size_t cap, int64_t x)
{
	if (*n < cap)
		v[(*n)++] = x;
}

/* Return a value for symbol "sym" chosen by "pick" among values around
 * its declaration: admissible ones (its least values, its greatest) and
 * others (just below or above, 0, negative, huge). "pick" 0 is its least
 * value. */
static int64_t
choose_value(const sym_symbol *sym, uint64_t pick)
{
	sym_symbol_info info;
	int64_t least = sym_symbol_least(sym), most = sym_symbol_greatest(sym);
	int64_t v[24];
	size_t n = 0;

	sym_symbol_get_info(sym, &info);
	if (info.divisor < 1 || info.divisor > (1 << 20))
		info.divisor = 1;
	add_value(v, &n, 24, least);
	if (least < (INT64_C(1) << 40)) {
		add_value(v, &n, 24, least + info.divisor);
		add_value(v, &n, 24, least + 2 * info.divisor);
		add_value(v, &n, 24, least + 3 * info.divisor);
		add_value(v, &n, 24, least + 1);
		add_value(v, &n, 24, least * 1000 + info.remainder);
	}
	add_value(v, &n, 24, least - 1);
	if (most > 0) {
		add_value(v, &n, 24, most);
		if (most < (INT64_C(1) << 40))
			add_value(v, &n, 24, most + info.divisor);
	}
	add_value(v, &n, 24, 0);
	add_value(v, &n, 24, -3);
	add_value(v, &n, 24, 1);
	add_value(v, &n, 24, 2);
	add_value(v, &n, 24, 3);
	add_value(v, &n, 24, 4);
	add_value(v, &n, 24, 8);
	add_value(v, &n, 24, 16);
	add_value(v, &n, 24, INT64_C(1) << 40);
	add_value(v, &n, 24, INT64_MAX);
	return v[pick % n];
}

/* Return 1 when every tensor of "p" has at most EXEC_MAX_ELEMS elements
 * at the binding "s", else 0. */
static int
small_enough(const sym_plan *p, const sym_slices *s)
{
	for (size_t t = 0; t < sym_plan_n_tensors(p); t++) {
		int64_t size[MAX_DIMS], n = 1;
		size_t rank = sym_plan_tensor_ndim(p, t);

		if (rank > MAX_DIMS || sym_slices_global(s, t, size) < 0)
			return 0;
		for (size_t d = 0; d < rank; d++) {
			if (size[d] > EXEC_MAX_ELEMS)
				return 0;
			n *= size[d];
			if (n > EXEC_MAX_ELEMS)
				return 0;
		}
	}
	return 1;
}

/* Run the plans of "r" at the binding "b" (accepted by both) on the
 * threads backend and compare with one device; return 0 when both run
 * and agree, else -1. */
static int
exec_check(struct run *r, const sym_binding *b)
{
	sym_exec_options o;
	sym_exec_report rep;
	int64_t n = sym_plan_n_ranks(r->p);

	if (r->n_exec >= EXEC_MAX_RUNS || n > EXEC_MAX_RANKS ||
	    sym_plan_n_steps(r->p) > EXEC_MAX_STEPS ||
	    !small_enough(r->p, r->s) || !small_enough(r->single, r->s1))
		return 0;
	r->n_exec++;
	if (!r->comm) {
		r->comm = sym_comm_threads_new(r->ctx, (int)n);
		if (!r->comm)
			return failed_with_error(r->ctx,
			    "sym_comm_threads_new");
		sym_comm_set_option(r->comm, SYM_COMM_OPT_TIMEOUT_MS, 5000);
	}
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.seed = r->hash;
	sym_ctx_clear_error(r->ctx);
	if (sym_exec_check(r->ctx, r->p, r->single, r->comm, b, &o, &rep) < 0) {
		if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
			return 0;
		return fuzz_fail("sym_exec_check: %s",
		    sym_ctx_last_message(r->ctx));
	}
	fuzz_note("ran on %lld ranks: %lld mismatches, max |diff| %g",
	    (long long)n, (long long)rep.n_mismatch, rep.max_abs);
	if (rep.n_mismatch != 0)
		return fuzz_fail("the sharded run differs from the "
		                 "single-device run: %lld elements, the "
		                 "largest difference %g at %s[%lld]",
		    (long long)rep.n_mismatch, rep.max_abs,
		    rep.worst ? sym_value_name(rep.worst) : "?",
		    (long long)rep.worst_index);
	return 0;
}

/* Return 1 when the message "m" of a binding the sharded plan refused
 * and the single-device plan accepted names what only the sharded plan
 * checks: a split, or a 64-bit overflow of its byte counts. */
static int
sharded_only(const sym_ctx *ctx, const char *m)
{
	return sym_ctx_last_error(ctx) == SYM_EOVERFLOW ||
	    strstr(m, "not divisible by its split") != NULL;
}

/* Bind "b" to both plans of "r"; return 0 when the outcomes agree (or
 * differ only by what only the sharded plan checks), else -1. Leaves
 * in "*ok" whether the sharded plan accepted "b". */
static int
bind_both(struct run *r, const sym_binding *b, int *ok)
{
	char why[512];
	int ok1;

	sym_ctx_clear_error(r->ctx);
	*ok = sym_plan_bind(r->p, b, r->s) == 0;
	if (!*ok &&
	    (sym_ctx_last_error(r->ctx) == SYM_OK || !*sym_slices_error(r->s) ||
	        sym_slices_is_bound(r->s)))
		return fuzz_fail("sym_plan_bind failed without an error");
	snprintf(why, sizeof(why), "%s", *ok ? "" : sym_slices_error(r->s));
	if (!*ok && sharded_only(r->ctx, why))
		why[0] = '\0';
	sym_ctx_clear_error(r->ctx);
	ok1 = sym_plan_bind(r->single, b, r->s1) == 0;
	if (!ok1 && sym_ctx_last_error(r->ctx) == SYM_OK)
		return fuzz_fail("sym_plan_bind failed without an error");
	if (*ok && !ok1)
		return fuzz_fail("the sharded plan accepts a binding the "
		                 "single-device plan refuses: %s",
		    sym_slices_error(r->s1));
	if (!*ok && ok1 && why[0])
		return fuzz_fail("the single-device plan accepts a binding "
		                 "the sharded plan refuses: %s",
		    why);
	if (!*ok && ok1)
		fuzz_note("only the sharded plan refuses: %s",
		    sym_slices_error(r->s));
	return 0;
}

/* Bind "b" to both plans of "r" and, when "values" is not NULL (the
 * values of the plan's symbols in order), bind them too; check what
 * either accepts. Return 0, or -1 when a property is broken. */
static int
try_binding(struct run *r, const sym_binding *b, const int64_t *values)
{
	int ok, ok2;

	if (bind_both(r, b, &ok) < 0)
		return -1;
	if (getenv("SYMSHARD_FUZZ_VERBOSE")) {
		char *text = sym_binding_to_str(b);

		fuzz_note("binding %s: %s", text ? text : "?",
		    ok ? "accepted" : sym_slices_error(r->s));
		free(text);
	}
	if (values) {
		ok2 = sym_plan_bind_values(r->p, values, r->s2) == 0;
		if (ok2 != ok)
			return fuzz_fail("sym_plan_bind %s, "
			                 "sym_plan_bind_values %s",
			    ok ? "accepts" : "refuses",
			    ok2 ? "accepts" : "refuses");
		if (ok && fuzz_same_slices(r->p, r->s, r->s2) < 0)
			return -1;
	}
	if (!ok)
		return fuzz_printed(sym_slices_to_str(r->s, 0),
		    "sym_slices_to_str");
	if (fuzz_check_layouts(r->p, r->s) < 0 ||
	    fuzz_check_layouts(r->single, r->s1) < 0 ||
	    fuzz_check_shapes(r->p, r->s, b) < 0 ||
	    fuzz_check_bound(r->p, r->s, r->single, r->s1) < 0 ||
	    fuzz_print_comms(r->g, b) < 0)
		return -1;
	return exec_check(r, b);
}

/* Try the binding written "text" (a directive) on "r"; return 0, or -1
 * when a property is broken. */
static int
try_text(struct run *r, const char *text)
{
	sym_binding *b = sym_binding_new(r->ctx);
	sym_loc where = { "bind", 1, 1 };
	int res = 0;

	if (!b)
		return 0;
	sym_ctx_clear_error(r->ctx);
	if (sym_binding_parse(b, text, &where) < 0)
		res = failed_with_error(r->ctx, "sym_binding_parse");
	else
		res = try_binding(r, b, NULL);
	sym_binding_free(b);
	return res;
}

/* Try binding "k" chosen from the declarations of the symbols of the
 * plans of "r" (0: every least value); return 0, or -1 when a property
 * is broken. */
static int
try_chosen(struct run *r, size_t k)
{
	size_t n = sym_plan_n_symbols(r->p);
	int64_t *values = calloc(n + 1, sizeof(*values));
	sym_binding *b = sym_binding_new(r->ctx);
	uint64_t h = r->hash ^ (k * 0x9e3779b97f4a7c15ull);
	int res = 0;

	for (size_t i = 0; b && values && i < n; i++) {
		sym_symbol *sym = sym_plan_symbol(r->p, i);

		h = h * 6364136223846793005ull + 1442695040888963407ull;
		values[i] = choose_value(sym,
		    k == 0       ? 0
		        : k == 1 ? 1
		                 : h >> 33);
		if (sym_binding_set(b, sym, values[i]) < 0)
			res = failed_with_error(r->ctx, "sym_binding_set");
	}
	if (b && values && res == 0)
		res = try_binding(r, b, values);
	sym_binding_free(b);
	free(values);
	return res;
}

/* Compile, check and bind the plans of the sharded graph of "r" as the
 * directives "d" ask; return 0, or -1 when a property is broken. */
static int
plans(struct run *r, const struct directives *d)
{
	sym_ctx_clear_error(r->ctx);
	r->p = sym_plan_compile(r->g, 0);
	if (r->p)
		r->single = sym_plan_compile(r->g, SYM_PLAN_SINGLE);
	if (!r->single) {
		if (sym_ctx_last_error(r->ctx) == SYM_ENOMEM)
			return 0;
		return fuzz_fail("sym_plan_compile (%s) on a sharded graph "
		                 "without errors: %s",
		    r->p ? "single" : "sharded",
		    sym_ctx_last_error(r->ctx) == SYM_OK
		        ? "no error"
		        : sym_ctx_last_message(r->ctx));
	}
	if (fuzz_check_plan(r->p, 0) < 0 || fuzz_check_plan(r->single, 1) < 0)
		return -1;
	r->s = sym_slices_new(r->p);
	r->s1 = sym_slices_new(r->single);
	r->s2 = sym_slices_new(r->p);
	if (!r->s || !r->s1 || !r->s2)
		return failed_with_error(r->ctx, "sym_slices_new");
	if (fuzz_printed(sym_slices_to_str(r->s, 0), "sym_slices_to_str") < 0)
		return -1;
	for (size_t i = 0; i < d->n_bind; i++)
		if (try_text(r, d->bind[i]) < 0)
			return -1;
	for (size_t k = 0; k < N_CHOSEN; k++)
		if (try_chosen(r, k) < 0)
			return -1;
	return 0;
}

/* Shard the graph of "r" (which has no error), then compile, check and
 * bind its plans, as the directives "d" ask; free what "r" holds but its
 * context and graph. Return 0, or -1 when a property is broken. */
static int
run_graph(struct run *r, const struct directives *d)
{
	int res = 0;

	if (sym_graph_n_devices(r->g) <= MAX_DEVICES) {
		res = shard(r, d);
		if (res == 0 && sym_graph_n_errors(r->g) == 0)
			res = plans(r, d);
	}
	sym_comm_free(r->comm);
	sym_slices_free(r->s);
	sym_slices_free(r->s1);
	sym_slices_free(r->s2);
	sym_plan_free(r->p);
	sym_plan_free(r->single);
	sym_topology_free(r->own_topo);
	return res;
}

/* Run the graph "g" of "ctx", which has no error, through this target
 * without directives, sharded on "topo" (may be NULL), "seed" choosing
 * the bindings. Return 0, or -1 when a property is broken. */
int
fuzz_pipeline_graph(sym_ctx *ctx, sym_graph *g, const sym_topology *topo,
    uint64_t seed)
{
	struct directives d;
	struct run r;

	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.g = g;
	r.topo = topo;
	r.hash = seed;
	return run_graph(&r, &d);
}

/* Parse the "size" bytes of "data" as a graph file and, when it has no
 * error, shard, compile, bind, check and run it as the comment at the top
 * of this file says. Return 0, or -1 when a property is broken. */
int
fuzz_pipeline_one(const uint8_t *data, size_t size)
{
	struct directives d;
	struct run r;
	char *text = fuzz_text_of(data, size);
	int res = 0;

	memset(&r, 0, sizeof(r));
	r.ctx = fuzz_new_ctx();
	r.hash = hash_of(data, size);
	if (!r.ctx || !text) {
		free(text);
		sym_ctx_free(r.ctx);
		return 0;
	}
	read_directives(text, &d);
	r.g = sym_graph_parse(r.ctx, text, "fuzz.sg");
	if (!r.g && sym_ctx_last_error(r.ctx) != SYM_ENOMEM)
		res = fuzz_fail("no graph: %s", sym_ctx_last_message(r.ctx));
	if (r.g && fuzz_print_graph(r.g) < 0)
		res = fuzz_fail("a value has no name");
	if (r.g && res == 0 && sym_graph_n_errors(r.g) == 0)
		res = run_graph(&r, &d);
	sym_graph_free(r.g);
	if (sym_ctx_live_objects(r.ctx) != 0)
		res = fuzz_fail("%zu objects left alive",
		    sym_ctx_live_objects(r.ctx));
	sym_ctx_free(r.ctx);
	directives_clear(&d);
	free(text);
	return res;
}
