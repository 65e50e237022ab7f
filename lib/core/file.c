/* SPDX-License-Identifier: MIT */
/*
 * Whole-file reading: one reader for every text input, with a size limit
 * (so /dev/zero or an endless pipe fails at once instead of filling the
 * memory) and the NUL rule applied while reading (a text stops at its
 * first NUL byte).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx_private.h"
#include "core/file.h"

/* Record on "ctx" the reason the text "name" could not be read: the
 * system's "err", or an allocation failure for ENOMEM; return NULL after
 * freeing "buf". */
static char *
read_fail(sym_ctx *ctx, const char *name, int err, char *buf)
{
	free(buf);
	if (err == ENOMEM)
		sym__oom(ctx);
	else
		sym__error(ctx, SYM_EIO, NULL, "cannot read %s: %s", name,
		    strerror(err ? err : EIO));
	return NULL;
}

/* Return the malloc'ed text read from the open stream "f" (named "name"
 * in messages), NUL-terminated, its length in "*len". At most "limit"
 * bytes are read: a longer text is an SYM_EIO error saying so. Reading
 * stops at the first NUL byte: when "nul_at" is given, its offset is
 * stored there (SIZE_MAX when there is none) and the text is what came
 * before it; without "nul_at", a NUL byte is an SYM_EPARSE error. NULL
 * with the error on "ctx". */
char *
sym__read_stream(sym_ctx *ctx, FILE *f, const char *name, size_t limit,
    size_t *len, size_t *nul_at)
{
	size_t cap = limit < 4094 ? limit + 2 : 4096, n = 0, got;
	char *buf = malloc(cap), *q, *nul = NULL;

	if (nul_at)
		*nul_at = SIZE_MAX;
	if (!buf)
		return read_fail(ctx, name, ENOMEM, NULL);
	errno = 0;
	for (;;) {
		if (cap - n < 2) {
			size_t want = cap > limit / 2 ? limit + 2 : 2 * cap;

			q = realloc(buf, want);
			if (!q)
				return read_fail(ctx, name, ENOMEM, buf);
			buf = q;
			cap = want;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		nul = memchr(buf + n, '\0', got);
		n += got;
		if (nul || got == 0 || n > limit)
			break;
	}
	if (!nul && ferror(f))
		return read_fail(ctx, name, errno, buf);
	if (!nul && n > limit) {
		free(buf);
		sym__error(ctx, SYM_EIO, NULL,
		    "%s is larger than %zu bytes, the limit of an input file",
		    name, limit);
		return NULL;
	}
	if (nul && !nul_at) {
		free(buf);
		sym__error(ctx, SYM_EPARSE, NULL,
		    "%s is not a text file (it contains a NUL byte)", name);
		return NULL;
	}
	if (nul) {
		n = (size_t)(nul - buf);
		*nul_at = n;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Return the malloc'ed text of the file "path", read as sym__read_stream
 * reads a stream (at most "limit" bytes, stopping at a NUL byte whose
 * offset goes to "nul_at", or failing at one when "nul_at" is NULL); its
 * length in "*len". NULL with SYM_EIO naming the path and the system's
 * reason, or the error of sym__read_stream, on "ctx". */
char *
sym__read_file(sym_ctx *ctx, const char *path, size_t limit, size_t *len,
    size_t *nul_at)
{
	FILE *f;
	char *text;

	errno = 0;
	f = fopen(path, "rb");
	if (!f) {
		sym__error(ctx, SYM_EIO, NULL, "cannot open %s: %s", path,
		    strerror(errno));
		return NULL;
	}
	text = sym__read_stream(ctx, f, path, limit, len, nul_at);
	fclose(f);
	return text;
}
