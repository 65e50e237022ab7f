/* SPDX-License-Identifier: MIT */
/*
 * What the benchmarks share (util.h). The machine line gives the
 * cores and the load average when the program starts, so that figures of
 * different runs, or of a run on a busy machine, can be judged.
 */
#define _DEFAULT_SOURCE
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#endif

#include "util.h"

/* Return the time of the monotonic clock in seconds. */
double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Return the number of cores online (at least 1). */
int
bench_online_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* Return the number of cores this process may run on (its affinity), or
 * the cores online when the system does not say. */
static int
usable_cores(void)
{
#ifdef CPU_COUNT
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
#endif
	return bench_online_cores();
}

/* Print the machine line of the benchmark "program": its cores and the
 * load average of the last 1, 5 and 15 minutes (null where unknown). */
void
bench_header(const char *program)
{
	double load[3];
	int n = getloadavg(load, 3);

	printf("{\"bench\": \"machine\", \"program\": \"%s\", \"cores\": %d, "
	       "\"cores_usable\": %d, \"loadavg\": ",
	    program, bench_online_cores(), usable_cores());
	if (n == 3)
		printf("[%.2f, %.2f, %.2f]}\n", load[0], load[1], load[2]);
	else
		printf("null}\n");
	fflush(stdout);
}

/* Compare the doubles at "a" and "b" (for qsort). */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Return the quantile "q" of the "n" sorted samples "v" (nearest rank). */
static double
quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

/* Return the spread of the "n" samples "v" (at least 1), which it sorts. */
struct bench_spread
bench_spread_of(double *v, size_t n)
{
	struct bench_spread s;

	qsort(v, n, sizeof(*v), cmp_double);
	s.n = n;
	s.min = v[0];
	s.p10 = quantile(v, n, 0.1);
	s.median = quantile(v, n, 0.5);
	s.p90 = quantile(v, n, 0.9);
	s.max = v[n - 1];
	return s;
}

/* Print the fields "name" (the median of "s"), "name"_p10 and "name"_p90,
 * each times "scale" with "digits" decimals, after a comma. */
void
bench_spread_print(const char *name, const struct bench_spread *s, double scale,
    int digits)
{
	printf(", \"%s\": %.*f, \"%s_p10\": %.*f, \"%s_p90\": %.*f", name,
	    digits, s->median * scale, name, digits, s->p10 * scale, name,
	    digits, s->p90 * scale);
}

#ifdef __linux__
/* Return a disabled counter of the user-space "config" of this process
 * and of the children it starts, or -1. */
static int
counter_open(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = config;
	a.disabled = 1;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}
#endif

/* Open the counters of "c"; where the machine has none, their
 * descriptors are -1 (bench_counters_ok says so). */
void
bench_counters_open(struct bench_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->fd[0] = c->fd[1] = -1;
#ifdef __linux__
	c->fd[0] = counter_open(PERF_COUNT_HW_INSTRUCTIONS);
	c->fd[1] = c->fd[0] >= 0 ? counter_open(PERF_COUNT_HW_CPU_CYCLES) : -1;
	if (c->fd[1] < 0)
		bench_counters_close(c);
#endif
}

/* Return 1 when "c" counts, else 0. */
int
bench_counters_ok(const struct bench_counters *c)
{
	return c->fd[0] >= 0 && c->fd[1] >= 0;
}

/* Reset and start the counters of "c" (nothing when unavailable). */
void
bench_counters_start(struct bench_counters *c)
{
#ifdef __linux__
	for (int i = 0; i < 2 && bench_counters_ok(c); i++) {
		ioctl(c->fd[i], PERF_EVENT_IOC_RESET, 0);
		ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0);
	}
#else
	(void)c;
#endif
}

/* Stop the counters of "c" and store their counts in its "v". */
void
bench_counters_stop(struct bench_counters *c)
{
#ifdef __linux__
	for (int i = 0; i < 2 && bench_counters_ok(c); i++) {
		ioctl(c->fd[i], PERF_EVENT_IOC_DISABLE, 0);
		if (read(c->fd[i], &c->v[i], sizeof(c->v[i])) !=
		    (ssize_t)sizeof(c->v[i]))
			c->v[i] = 0;
	}
#else
	(void)c;
#endif
}

/* Close the counters of "c". */
void
bench_counters_close(struct bench_counters *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
	}
}

/* Return the seconds per call of "calls" calls of "f" with "arg". */
static double
time_block(void (*f)(void *), void *arg, long calls)
{
	double t0 = bench_now();

	for (long i = 0; i < calls; i++)
		f(arg);
	return (bench_now() - t0) / (double)calls;
}

/* Time "fa" with "a" and "fb" with "b" in pairs of blocks of the same
 * number of calls (each block at least 50 us of "fa"), the order swapped
 * at every pair so that both see the same machine, for at least
 * "min_time" seconds and "min_pairs" pairs, at most "max_pairs". Store the
 * seconds per call of pair i in "ta"[i] and "tb"[i]; return the pairs. */
size_t
bench_pairs(void (*fa)(void *), void *a, void (*fb)(void *), void *b,
    double min_time, size_t min_pairs, size_t max_pairs, double *ta, double *tb)
{
	double first, t0;
	long calls;
	size_t n = 0;

	fa(a);
	fb(b);
	first = time_block(fa, a, 1);
	calls = first >= 50e-6 ? 1 : (long)(50e-6 / (first + 1e-9)) + 1;
	t0 = bench_now();
	while (n < max_pairs &&
	    (n < min_pairs || bench_now() - t0 < min_time)) {
		if (n % 2) {
			tb[n] = time_block(fb, b, calls);
			ta[n] = time_block(fa, a, calls);
		} else {
			ta[n] = time_block(fa, a, calls);
			tb[n] = time_block(fb, b, calls);
		}
		n++;
	}
	return n;
}
