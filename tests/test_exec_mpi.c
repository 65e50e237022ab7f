/*
 * Test of sym_exec_check on the MPI backend, run by tests/exec_mpi_check.sh
 * under mpirun (8 processes): the network of examples/ffn.sg, one rank per
 * process, for two batch sizes on one plan agrees with one device on
 * every process, with the same report everywhere; a binding the graph
 * forbids fails on every process and runs nothing. Each process prints
 * its failures; the exit status is 0 when every check of this process
 * passed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Check "p" against "single" on "comm" bound by "text" of "ctx"; return
 * what sym_exec_check returned and store the report in "rep". */
static int
run_check(sym_plan *p, sym_plan *single, sym_communicator *comm, sym_ctx *ctx,
    const char *text, sym_exec_report *rep)
{
	sym_exec_options o = { .seed = 13 };
	sym_binding *b = sym_binding_new(ctx);
	int rc = -1;

	if (b && sym_binding_parse(b, text, NULL) == 0)
		rc = sym_exec_check(p, single, comm, b, &o, rep, ctx);
	sym_binding_free(b);
	return rc;
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
