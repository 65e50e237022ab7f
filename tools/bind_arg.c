/* SPDX-License-Identifier: MIT */
/*
 * The syntax of a --bind argument: NAME=VALUE items joined by single
 * commas, NAME a symbol or an instance (b, b'), VALUE a decimal integer
 * with an optional minus sign; no blank, no plus sign, no empty item
 * (documented in shape-check(1) and shape-run(1)).
 */
#include <ctype.h>
#include <stddef.h>

#include "bind_arg.h"

/* Return the length of the name at "p" (a letter or '_', then letters,
 * digits and '_', then primes), 0 when there is none. */
static size_t
name_len(const char *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)p[0]) && p[0] != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	while (p[n] == '\'')
		n++;
	return n;
}

/* Return NULL when "text" is a well-formed --bind argument, else what is
 * wrong with it (static text). */
const char *
bind_arg_error(const char *text)
{
	const char *p = text;

	if (!*p)
		return "expected NAME=VALUE";
	for (;;) {
		size_t n = name_len(p);

		if (n == 0)
			return *p == ',' ? "empty item (a comma too many)"
			                 : "expected a symbol name";
		p += n;
		if (*p++ != '=')
			return "expected '=' right after the name (no blanks)";
		if (*p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return "expected a decimal integer right after '=' "
			       "(no blank, no '+')";
		while (isdigit((unsigned char)*p))
			p++;
		if (!*p)
			return NULL;
		if (*p++ != ',')
			return "expected ',' between NAME=VALUE items (no "
			       "blanks)";
		if (!*p)
			return "empty item (a comma too many)";
	}
}
