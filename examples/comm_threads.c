/* SPDX-License-Identifier: MIT */
/*
 * comm_threads: four ranks as threads of one process on a 2x2 mesh
 * (dp=2, mp=2; rank = 2*dp + mp). Each rank holds a partial sum of a row
 * of 4 floats; an all_reduce over its mp group completes the row, then an
 * all_gather over its dp group stacks the two rows. The results are
 * checked, so make check runs this as a test: exit status 1 on any
 * surprise.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <symshard.h>

/* What a rank's thread gets and gives back. */
struct rank_arg {
	sym_communicator *comm;
	int rank;
	int ok;
	float out[8];
};

/* Run rank "p" (a struct rank_arg): attach with a context of its own,
 * reduce its row, gather the rows; return NULL. */
static void *
run_rank(void *p)
{
	struct rank_arg *a = p;
	sym_ctx *ctx = sym_ctx_new();
	sym_comm_endpoint *ep = NULL;
	int dp = a->rank / 2, mp = a->rank % 2;
	int row[2] = { 2 * dp, 2 * dp + 1 }, col[2] = { mp, 2 + mp };
	float part[4], sum[4];
	int rc = -1;

	for (int i = 0; i < 4; i++)
		part[i] = (float)((10 * dp + i) * (mp + 1));
	if (ctx)
		ep = sym_comm_attach(ctx, a->comm, a->rank);
	if (ep)
		rc = sym_comm_all_reduce(ep, row, 2, part, sum, 4, SYM_DT_F32,
		    SYM_REDUCE_SUM);
	if (rc == 0)
		rc = sym_comm_all_gather(ep, col, 2, sum, a->out, sizeof(sum));
	if (rc < 0)
		fprintf(stderr, "rank %d: %s\n", a->rank,
		    ctx ? sym_ctx_last_message(ctx) : "no context");
	a->ok = rc == 0;
	sym_comm_detach(ep);
	sym_ctx_free(ctx);
	return NULL;
}

/* Run the four ranks and check what each one gathered. */
int
main(void)
{
	static const float want[8] = { 0, 3, 6, 9, 30, 33, 36, 39 };
	struct rank_arg arg[4];
	pthread_t th[4];
	sym_ctx *ctx = sym_ctx_new();
	sym_communicator *comm = ctx ? sym_comm_threads_new(ctx, 4) : NULL;
	int status = 0;

	if (!comm)
		return 1;
	for (int r = 0; r < 4; r++) {
		arg[r] = (struct rank_arg){ comm, r, 0, { 0 } };
		if (pthread_create(&th[r], NULL, run_rank, &arg[r]) != 0)
			return 1;
	}
	for (int r = 0; r < 4; r++) {
		pthread_join(th[r], NULL);
		if (!arg[r].ok || memcmp(arg[r].out, want, sizeof(want)))
			status = 1;
	}
	printf("%s backend, %d ranks; rank 0 gathered", sym_comm_backend(comm),
	    sym_comm_n_ranks(comm));
	for (int i = 0; i < 8; i++)
		printf(" %g", (double)arg[0].out[i]);
	printf("\n");
	sym_comm_free(comm);
	sym_ctx_free(ctx);
	return status;
}
