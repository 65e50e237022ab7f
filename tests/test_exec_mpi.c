/* SPDX-License-Identifier: MIT */
/*
 * Test of sym_exec_check on the MPI backend, run by tests/exec_mpi_check.sh
 * under mpirun (8 processes, within a time limit): the network of
 * examples/ffn.sg, one rank per process, for two batch sizes on one plan
 * agrees with one device on every process, with the same report
 * everywhere; a binding the graph forbids fails on every process and runs
 * nothing. One process failing alone -- a binding only it rejects,
 * arguments only it passes, buffers too large for it, a kernel that fails
 * on its data -- makes every process return its error ("rank N: ...")
 * instead of leaving them waiting in the next collective, which would
 * hang the test until the runner's time limit; after that, the processes
 * still run a step together. Each process prints its failures; the exit
 * status is 0 when every check of this process passed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symshard.h>

/* This process's count of checks and of failures. */
struct run {
	int rank;
	int checks, failures;
};

/* Count a check of "r" that passed when "ok", else print the failure from
 * "fmt"; return "ok". */
static int __attribute__((format(printf, 3, 4)))
check(struct run *r, int ok, const char *fmt, ...)
{
	va_list ap;

	r->checks++;
	if (ok)
		return 1;
	r->failures++;
	fprintf(stderr, "exec_mpi: rank %d: ", r->rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 0;
}

/* Return the time of the monotonic clock in seconds. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Check that the call that returned "rc" failed on this process of "r"
 * with the error "code" of "ctx" whose message starts with "start", in
 * case "what" that took "seconds"; return 1 when it did. */
static int
fails_with(struct run *r, sym_ctx *ctx, const char *what, int rc,
    sym_error code, const char *start, double seconds)
{
	const char *m = sym_ctx_last_message(ctx);

	printf("exec_mpi: rank %d: %s: %.2f s: %s\n", r->rank, what, seconds,
	    m);
	return check(r,
	    rc == -1 && sym_ctx_last_error(ctx) == code &&
	        !strncmp(m, start, strlen(start)),
	    "%s: returned %d with error %d '%s', not -1 with %d '%s...'", what,
	    rc, (int)sym_ctx_last_error(ctx), m, (int)code, start);
}

/* Check "p" against "single" on "comm" bound by "text" of "ctx"; return
 * what sym_exec_check returned and store the report in "rep". */
static int
run_check(sym_plan *p, sym_plan *single, sym_communicator *comm, sym_ctx *ctx,
    const char *text, sym_exec_report *rep)
{
	sym_exec_options o = { .size = sizeof(o), .seed = 13 };
	sym_binding *b = sym_binding_new(ctx);
	int rc = -1;

	if (b && sym_binding_parse(b, text, NULL) == 0)
		rc = sym_exec_check(ctx, p, single, comm, b, &o, rep);
	sym_binding_free(b);
	return rc;
}

/* Run "p" bound by "b = 16" on this process's rank of "comm" with the
 * executor, rank 3's labels corrupted so that its loss kernel fails,
 * and agree on the outcome; return what sym_comm_agree returned. */
static int
run_corrupted(struct run *r, sym_graph *g, sym_plan *p, sym_communicator *comm,
    sym_ctx *ctx)
{
	const sym_value *y = sym_graph_find_value(g, "y");
	sym_comm_endpoint *ep = sym_comm_attach(ctx, comm, r->rank);
	sym_binding *b = sym_binding_new(ctx);
	sym_slices *s = sym_slices_new(p);
	sym_exec *x = NULL;
	int32_t *lab;
	int bad = 1, rc;

	if (ep && b && s && sym_binding_parse(b, "b=16", NULL) == 0 &&
	    sym_plan_bind(p, b, s) == 0 && (x = sym_exec_new(ctx, p, ep)) &&
	    sym_exec_prepare(x, s) == 0 && sym_exec_fill(x, 5) == 0) {
		lab = sym_exec_data(x, sym_plan_value_tensor(p, y), NULL);
		if (lab && r->rank == 3)
			lab[0] = 1000;
		bad = !lab || sym_exec_run(x) < 0;
	}
	rc = ep
	    ? sym_comm_agree(ep, bad ? sym_ctx_last_error(ctx) : SYM_OK, NULL)
	    : -1;
	sym_exec_free(x);
	sym_slices_free(s);
	sym_binding_free(b);
	sym_comm_detach(ep);
	return rc;
}

/* One process failing alone: every process returns its error, then a
 * step runs on all of them again. */
static void
lone_failures(struct run *r, sym_graph *g, sym_plan *p, sym_plan *single,
    sym_communicator *comm, sym_ctx *ctx)
{
	sym_exec_report rep;
	double t0 = now();
	int rc;

	rc = run_check(p, single, comm, ctx, r->rank == 3 ? "b=12" : "b=8",
	    &rep);
	fails_with(r, ctx, "rank 3 rejects its binding", rc, SYM_EDOMAIN,
	    "rank 3: b = 12 violates divisor=8 declared at ", now() - t0);
	t0 = now();
	rc = r->rank == 5 ? sym_exec_check(ctx, p, p, comm, NULL, NULL, &rep)
	                  : run_check(p, single, comm, ctx, "b=8", &rep);
	fails_with(r, ctx, "rank 5 passes the sharded plan as the single one",
	    rc, SYM_EINVAL,
	    "rank 5: check: a plan of 8 ranks on a communicator of 8, "
	    "against a plan of 8 ranks",
	    now() - t0);
	t0 = now();
	rc = run_check(p, single, comm, ctx,
	    r->rank == 6 ? "b=1099511627776" : "b=8", &rep);
	fails_with(r, ctx, "rank 6 cannot allocate its buffers", rc, SYM_ENOMEM,
	    "rank 6: ", now() - t0);
	t0 = now();
	rc = run_corrupted(r, g, p, comm, ctx);
	if (fails_with(r, ctx, "rank 3's loss kernel fails", rc, SYM_EINVAL,
	        "rank 3: ", now() - t0))
		check(r,
		    strstr(sym_ctx_last_message(ctx),
		        "softmax_cross_entropy loss (step ") &&
		        strstr(sym_ctx_last_message(ctx),
		            "label 1000 of row 0 is out of range [0, 10)"),
		    "the kernel's error: '%s'", sym_ctx_last_message(ctx));
	rc = run_check(p, single, comm, ctx, "b=8", &rep);
	check(r, rc == 0 && rep.n_mismatch == 0,
	    "b=8 after the failures: %d, %lld mismatches: %s", rc,
	    (long long)rep.n_mismatch, sym_ctx_last_message(ctx));
}

/* Train the graph "g" (of "ctx", named "what") on the 8 processes of
 * "comm" and on one device alongside, for the "n" bindings "sizes" on one
 * plan, within "tol" (0: the defaults): every process gets the same
 * report, no mismatch in the losses or the params at the end, and the
 * same losses as the threads backend in this process. */
static void
train_graph(struct run *r, sym_communicator *comm, const char *what,
    sym_graph *g, const char *const *sizes, int n, double tol, sym_ctx *ctx)
{
	sym_plan *p = NULL, *single = NULL;
	sym_binding *b[16] = { NULL };
	sym_exec_options o = {
		.size = sizeof(o), .seed = 5, .rtol = tol, .atol = tol
	};
	sym_train_report tr, tt;
	sym_communicator *threads;
	double loss[16], lt[16];
	int rc;

	if (!check(r, g && sym_graph_shard(g, NULL) == 0 && n <= 16, "%s: %s",
	        what,
	        g && sym_graph_n_diagnostics(g)
	            ? sym_graph_diagnostic(g, sym_graph_n_diagnostics(g) - 1)
	                  ->message
	            : sym_ctx_last_message(ctx)))
		return;
	p = sym_plan_compile(g, 0);
	single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	for (int i = 0; i < n; i++) {
		b[i] = sym_binding_new(ctx);
		check(r, b[i] && sym_binding_parse(b[i], sizes[i], NULL) == 0,
		    "binding %s", sizes[i]);
	}
	rc = sym_exec_train_check(ctx, p, single, comm,
	    (const sym_binding *const *)b, (size_t)n, &o, loss, &tr);
	if (check(r, rc == 0, "%s: %s", what, sym_ctx_last_message(ctx)))
		check(r,
		    tr.n_steps == (size_t)n && tr.outputs.n_mismatch == 0 &&
		        tr.params.n_mismatch == 0,
		    "%s: %zu steps, %lld output and %lld param mismatches",
		    what, tr.n_steps, (long long)tr.outputs.n_mismatch,
		    (long long)tr.params.n_mismatch);
	threads = sym_comm_threads_new(ctx, 8);
	rc = threads
	    ? sym_exec_train_check(ctx, p, single, threads,
	          (const sym_binding *const *)b, (size_t)n, &o, lt, &tt)
	    : -1;
	if (check(r, rc == 0, "%s on threads: %s", what,
	        sym_ctx_last_message(ctx)))
		for (int i = 0; i < n; i++)
			check(r,
			    fabs(loss[i] - lt[i]) <= 1e-5 * fabs(lt[i]) + 1e-6,
			    "%s: step %d: loss %.9g on mpi, %.9g on threads",
			    what, i + 1, loss[i], lt[i]);
	printf("exec_mpi: rank %d: %s: trained %d steps, last loss %.6f\n",
	    r->rank, what, n, loss[n - 1]);
	sym_comm_free(threads);
	for (int i = 0; i < n; i++)
		sym_binding_free(b[i]);
	sym_plan_free(p);
	sym_plan_free(single);
}

/* Train examples/ffn_train.sg, and examples/megatron.sg and seqpar.sg
 * with a squared-error loss in f64 and every optimizer (under "top"), on
 * the 8 processes of "comm", as train_graph() does, each graph in a
 * context of its own. */
static void
train(struct run *r, sym_communicator *comm, const char *top)
{
	static const char *const sizes[] = { "b=8", "b=64", "b=40", "b=16",
		"b=8" };
	static const char *const seq[] = { "s=16, b=2", "s=8, b=4", "s=40, b=2",
		"s=24, b=6", "s=16, b=2" };
	static const char *const names[] = { "megatron", "seqpar" };
	static const char *const opts[] = { "sgd(0.002)",
		"sgd(0.002, momentum=0.9, dampening=0.1, weight_decay=0.01)",
		"sgd(0.002, momentum=0.9, nesterov=true)",
		"momentum(0.001, 0.9, weight_decay=0.001)",
		"momentum(0.001, 0.9, nesterov=true)", "adam(0.001)",
		"adam(0.001, weight_decay=0.1)", "adamw(0.001)" };
	char path[4096];
	sym_ctx *ctx = sym_ctx_new();
	sym_graph *g;

	snprintf(path, sizeof(path), "%s/examples/ffn_train.sg", top);
	g = sym_graph_parse_file(ctx, path);
	train_graph(r, comm, "ffn_train.sg", g, sizes, 5, 0, ctx);
	sym_graph_free(g);
	sym_ctx_free(ctx);
	for (int k = 0; k < 2; k++) {
		static const char tail[] =
		    "input tgt : f64[s, b, 64]\n"
		    "e = sub(y, tgt)\nsq = mul(e, e)\n"
		    "loss = reduce_mean(sq)\noutput loss\n"
		    "minimize loss with ";
		FILE *f;
		char *text = NULL;
		long len = -1;

		ctx = sym_ctx_new();
		snprintf(path, sizeof(path), "%s/examples/%s.sg", top,
		    names[k]);
		f = fopen(path, "rb");
		if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
		    fseek(f, 0, SEEK_SET) == 0 &&
		    (text = malloc((size_t)len + sizeof(tail) + 64)) &&
		    fread(text, 1, (size_t)len, f) == (size_t)len) {
			text[len] = '\0';
			for (char *d = text; (d = strstr(d, "f32[")); d += 4)
				d[1] = '6', d[2] = '4';
			for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]);
			     o++) {
				char what[96];

				snprintf(text + len, sizeof(tail) + 64,
				    "%s%s\n", tail, opts[o]);
				snprintf(what, sizeof(what), "%s, %s", names[k],
				    opts[o]);
				g = sym_graph_parse(ctx, text, names[k]);
				train_graph(r, comm, what, g, seq, 5, 1e-9,
				    ctx);
				sym_graph_free(g);
				sym_ctx_free(ctx);
				ctx = sym_ctx_new();
			}
		} else
			check(r, 0, "cannot read %s", path);
		if (f)
			fclose(f);
		free(text);
		sym_ctx_free(ctx);
	}
}

int
main(int argc, char **argv)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	struct run r = { 0 };
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm;
	sym_graph *g = NULL;
	sym_plan *p = NULL, *single = NULL;
	sym_exec_report rep;

	if (!ctx)
		return 1;
	comm = sym_comm_mpi_new(ctx, &argc, &argv);
	if (!comm) {
		fprintf(stderr, "exec_mpi: %s\n", sym_ctx_last_message(ctx));
		return 1;
	}
	r.rank = sym_comm_rank(comm);
	snprintf(path, sizeof(path), "%s/examples/ffn.sg", top ? top : ".");
	g = sym_graph_parse_file(ctx, path);
	if (check(&r,
	        g && sym_graph_n_errors(g) == 0 &&
	            sym_graph_shard(g, NULL) == 0,
	        "ffn.sg: %s", sym_ctx_last_message(ctx))) {
		p = sym_plan_compile(g, 0);
		single = sym_plan_compile(g, SYM_PLAN_SINGLE);
	}
	if (check(&r,
	        p && single && sym_plan_n_ranks(p) == 8 &&
	            sym_comm_n_ranks(comm) == 8,
	        "plans of %lld ranks on %d processes (run on 8): %s",
	        p ? (long long)sym_plan_n_ranks(p) : -1LL,
	        sym_comm_n_ranks(comm), sym_ctx_last_message(ctx))) {
		static const char *const binds[] = { "b=8", "b=40" };

		for (int i = 0; i < 2; i++) {
			int rc =
			    run_check(p, single, comm, ctx, binds[i], &rep);

			if (check(&r, rc == 0, "%s: %s", binds[i],
			        sym_ctx_last_message(ctx)))
				check(&r, rep.n_mismatch == 0,
				    "%s: %lld mismatches, max |diff| %g",
				    binds[i], (long long)rep.n_mismatch,
				    rep.max_abs);
			printf("exec_mpi: rank %d: %s: max |diff| %.3g\n",
			    r.rank, binds[i], rep.max_abs);
		}
		check(&r,
		    run_check(p, single, comm, ctx, "b=12", &rep) == -1 &&
		        strstr(sym_ctx_last_message(ctx),
		            "b = 12 violates divisor=8"),
		    "b=12: '%s'", sym_ctx_last_message(ctx));
		lone_failures(&r, g, p, single, comm, ctx);
		train(&r, comm, top ? top : ".");
	}
	printf("exec_mpi: rank %d: %d checks, %d failures\n", r.rank, r.checks,
	    r.failures);
	sym_plan_free(p);
	sym_plan_free(single);
	sym_graph_free(g);
	sym_comm_free(comm);
	sym_ctx_free(ctx);
	return r.failures != 0;
}
