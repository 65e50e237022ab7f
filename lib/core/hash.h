/* SPDX-License-Identifier: MIT */
/*
 * The library's hash and mixing functions, written once: 64-bit FNV-1a
 * over bytes, strings and words (fingerprints of datasets, graphs,
 * checkpoints and plans; keys of the hash tables), SplitMix64 (the
 * counter-based generator behind shuffles, fills and dropout masks), and
 * a word mixer for hashing tuples of integers.
 *
 * Fingerprints are compared between the processes of one run, and the
 * generators fix training's numbers: every function here must keep its
 * exact output. Changing one changes results, recorded losses and
 * goldens, and is a change of behaviour, not a refactoring.
 */
#ifndef SYM_CORE_HASH_H
#define SYM_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a's 64-bit offset basis and prime. */
#define SYM__FNV_BASIS 0xcbf29ce484222325ULL
#define SYM__FNV_PRIME 0x100000001b3ULL

/* The golden-ratio increment of SplitMix64 (2^64 / phi, odd). */
#define SYM__GOLDEN 0x9e3779b97f4a7c15ULL

/* Return the 64-bit FNV-1a hash "h" with the word "v" folded in as one
 * unit (not byte by byte). */
static inline uint64_t
sym__fnv1a_word(uint64_t h, uint64_t v)
{
	return (h ^ v) * SYM__FNV_PRIME;
}

/* Return the 64-bit FNV-1a hash "h" with the "n" bytes of "data" folded
 * in. */
static inline uint64_t
sym__fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = sym__fnv1a_word(h, p[i]);
	return h;
}

/* Return the 64-bit FNV-1a hash "h" with the bytes of the string "s"
 * (without its terminating zero; nothing for NULL) folded in. */
static inline uint64_t
sym__fnv1a_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = sym__fnv1a_word(h, (unsigned char)*s);
	return h;
}

/* Return the finaliser of SplitMix64 applied to "z" (a bijection of the
 * 64-bit words whose output bits each depend on every input bit). */
static inline uint64_t
sym__mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Return the next number of the SplitMix64 generator of state "*s",
 * advancing the state. */
static inline uint64_t
sym__splitmix64(uint64_t *s)
{
	return sym__mix64(*s += SYM__GOLDEN);
}

/* Return "h" with the 64-bit value "v" mixed in, for hashing tuples of
 * integers (a boost-style combine followed by a multiply). */
static inline uint64_t
sym__hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + SYM__GOLDEN + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

#endif
