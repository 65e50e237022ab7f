/* SPDX-License-Identifier: MIT */
/*
 * What the benchmarks share: the clock, the machine line that heads each
 * program's output, the spread of a set of samples, and hardware counters
 * of the process (perf_event_open) where the machine gives them.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The spread of a set of samples. */
struct bench_spread {
	size_t n;
	double min, p10, median, p90, max;
};

/* Instructions and cycles counted in user space, by this process and the
 * children it starts while they count. */
struct bench_counters {
	int fd[2];     /* instructions, cycles; -1: unavailable */
	uint64_t v[2]; /* the counts of the last bench_counters_stop */
};

double bench_now(void);
void bench_header(const char *program);
int bench_online_cores(void);
struct bench_spread bench_spread_of(double *v, size_t n);
void bench_spread_print(const char *name, const struct bench_spread *s,
    double scale, int digits);
void bench_counters_open(struct bench_counters *c);
int bench_counters_ok(const struct bench_counters *c);
void bench_counters_start(struct bench_counters *c);
void bench_counters_stop(struct bench_counters *c);
void bench_counters_close(struct bench_counters *c);
size_t bench_pairs(void (*fa)(void *), void *a, void (*fb)(void *), void *b,
    double min_time, size_t min_pairs, size_t max_pairs, double *ta,
    double *tb);

#endif
