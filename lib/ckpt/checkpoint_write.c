/* SPDX-License-Identifier: MIT */
/*
 * Writing a checkpoint to a safetensors file: the 8-byte little-endian
 * length of the header, the header (compact JSON: "__metadata__", then
 * every tensor in the order of the checkpoint) padded with spaces so that
 * the data starts at a multiple of 8 bytes, then every tensor's data,
 * little-endian, without gaps. The file is written under a temporary name
 * beside it, PATH.tmp, and renamed when complete, so that a failed write
 * leaves no half file behind; the name is the same for every save to one
 * path, so that a save killed half-way leaves a file the next one
 * replaces. Only a regular file is replaced, and it keeps its mode; a
 * symbolic link, a device or a directory is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "ckpt/checkpoint_private.h"

/* Bytes converted at a time on a big-endian host. */
#define SWAP_CHUNK 65536

/* Return the "__metadata__" object of "ck": "format" set to "symshard",
 * then its other entries in order; NULL when out of memory. */
static json_t *
metadata_json(const sym_checkpoint *ck)
{
	json_t *m = json_object();

	if (!m || json_object_set_new(m, "format", json_string("symshard")))
		goto fail;
	for (size_t i = 0; i < ck->n_meta; i++)
		if (strcmp(ck->meta[i].key, "format") &&
		    json_object_set_new(m, ck->meta[i].key,
		        json_string(ck->meta[i].value)))
			goto fail;
	return m;
fail:
	json_decref(m);
	return NULL;
}

/* Return the header entry of tensor "t" whose data starts at byte
 * "begin" of the data: its dtype, shape and data_offsets; NULL when out
 * of memory. */
static json_t *
tensor_json(const struct sym__ctensor *t, size_t begin)
{
	json_t *shape = json_array();

	for (size_t d = 0; shape && d < t->ndim; d++)
		if (json_array_append_new(shape, json_integer(t->dim[d]))) {
			json_decref(shape);
			return NULL;
		}
	return json_pack("{s:s, s:o, s:[I, I]}", "dtype",
	    sym__ckpt_dtype_name(t->dtype), "shape", shape, "data_offsets",
	    (json_int_t)begin, (json_int_t)(begin + t->bytes));
}

/* Return the header of "ck", compact JSON padded with spaces so that 8
 * plus its length "*len" is a multiple of 8; NULL with an error. */
static char *
header_text(const sym_checkpoint *ck, size_t *len)
{
	json_t *root = json_object(), *m = metadata_json(ck);
	size_t begin = 0, n, pad;
	char *text = NULL, *padded = NULL;

	if (!root || !m || json_object_set(root, SYM__CKPT_METADATA, m))
		goto done;
	for (size_t i = 0; i < ck->n; i++) {
		if (json_object_set_new(root, ck->t[i].name,
		        tensor_json(&ck->t[i], begin)))
			goto done;
		begin += ck->t[i].bytes;
	}
	text = json_dumps(root, JSON_COMPACT);
	if (!text)
		goto done;
	n = strlen(text);
	pad = (8 - (8 + n) % 8) % 8;
	padded = sym__alloc(ck->ctx, n + pad + 1);
	if (padded) {
		memcpy(padded, text, n);
		memset(padded + n, ' ', pad);
		*len = n + pad;
	}
done:
	if (!text)
		sym__oom(ck->ctx);
	json_decref(m);
	json_decref(root);
	free(text);
	return padded;
}

/* Write the "bytes" bytes of elements of "es" bytes at "p" to "f",
 * little-endian; 0, or -1 with errno set. */
static int
write_le(FILE *f, const char *p, size_t bytes, size_t es)
{
	char buf[SWAP_CHUNK];
	size_t step = SWAP_CHUNK / es * es, n;

	if (sym__ckpt_host_is_le() || es == 1)
		return fwrite(p, 1, bytes, f) == bytes ? 0 : -1;
	for (size_t at = 0; at < bytes; at += n) {
		n = bytes - at < step ? bytes - at : step;
		sym__ckpt_swap(buf, p + at, n, es);
		if (fwrite(buf, 1, n, f) != n)
			return -1;
	}
	return 0;
}

/* Write the file of "ck" whose header is "text" ("len" bytes) to "f";
 * 0, or -1 with errno set. */
static int
write_stream(const sym_checkpoint *ck, const char *text, size_t len, FILE *f)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)len >> (8 * i));
	if (fwrite(b, 1, 8, f) != 8 || fwrite(text, 1, len, f) != len)
		return -1;
	for (size_t i = 0; i < ck->n; i++)
		if (write_le(f, ck->data + ck->t[i].offset, ck->t[i].bytes,
		        sym_dtype_size(ck->t[i].dtype)) < 0)
			return -1;
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		return -1;
	return 0;
}

/* Check that "path" can take a checkpoint: a name, no symbolic link
 * and nothing but a regular file there (its status in "*st" and 1 in
 * "*exists" when there is one, writable), and a directory this process
 * can create files in. 0, or -1 with an error on "ctx". */
static int
check_target(sym_ctx *ctx, const char *path, struct stat *st, int *exists)
{
	char *copy;
	const char *d;
	int rc = 0;

	*exists = 0;
	if (!path || !*path) {
		sym__error(ctx, SYM_EINVAL, NULL, "checkpoint: no file name");
		return -1;
	}
	if (lstat(path, st) == 0) {
		if (S_ISLNK(st->st_mode))
			sym__error(ctx, SYM_EINVAL, NULL,
			    "%s: a symbolic link: a checkpoint is written "
			    "only to a regular file (give the path it points "
			    "to)",
			    path);
		else if (!S_ISREG(st->st_mode))
			sym__error(ctx, SYM_EINVAL, NULL,
			    "%s: not a regular file: a checkpoint replaces "
			    "only a regular file",
			    path);
		else if (access(path, W_OK) < 0)
			sym__error(ctx, SYM_EIO, NULL, "%s: cannot write: %s",
			    path, strerror(errno));
		else
			*exists = 1;
		if (!*exists)
			return -1;
	} else if (errno != ENOENT) {
		sym__error(ctx, SYM_EIO, NULL, "%s: cannot write: %s", path,
		    strerror(errno));
		return -1;
	}
	copy = sym__strdup(ctx, path);
	if (!copy)
		return -1;
	d = dirname(copy);
	if (access(d, W_OK | X_OK) < 0) {
		sym__error(ctx, SYM_EIO, NULL,
		    "%s: cannot create a file in %s: %s", path, d,
		    strerror(errno));
		rc = -1;
	}
	free(copy);
	return rc;
}

/* Check that a checkpoint can be written to "path" as
 * sym_checkpoint_write would (see check_target), before the work that
 * makes it; 0, or -1 with an error on "ctx". */
int
sym_checkpoint_check_path(sym_ctx *ctx, const char *path)
{
	struct stat st;
	int exists;

	if (!ctx)
		return -1;
	return check_target(ctx, path, &st, &exists);
}

/* Create "tmp" for writing, replacing a file or link left there by a
 * save that did not finish, with the mode "mode" (when "keep", else
 * the default under the umask); return its stream, or NULL with errno
 * set. */
static FILE *
create_tmp(const char *tmp, int keep, mode_t mode)
{
	int fd;
	FILE *f;

	if (unlink(tmp) < 0 && errno != ENOENT)
		return NULL;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0666);
	if (fd < 0)
		return NULL;
	if ((keep && fchmod(fd, mode & 07777) < 0) || !(f = fdopen(fd, "wb"))) {
		int err = errno;

		close(fd);
		unlink(tmp);
		errno = err;
		return NULL;
	}
	return f;
}

/* Write "ck" to "tmp" (with the mode of "st" when "keep") then rename
 * it "path"; 0, or -1 with an error on the context of "ck" and "tmp"
 * removed. */
static int
write_file(const sym_checkpoint *ck, const char *path, const char *tmp,
    const char *text, size_t len, int keep, const struct stat *st)
{
	FILE *f = create_tmp(tmp, keep, st->st_mode);
	const char *what = "create";
	int err;

	if (f) {
		what = "write";
		if (write_stream(ck, text, len, f) == 0) {
			what = "close";
			if (fclose(f) == 0) {
				what = "rename";
				if (rename(tmp, path) == 0)
					return 0;
			}
			f = NULL;
		}
	}
	err = errno ? errno : EIO;
	if (f)
		fclose(f);
	if (strcmp(what, "create"))
		remove(tmp);
	sym__error(ck->ctx, SYM_EIO, NULL, "%s: cannot %s %s: %s", path, what,
	    tmp, strerror(err));
	return -1;
}

/* Write "ck" to the safetensors file "path", replaced as a whole; 0, or
 * -1 with an error on the context of "ck" (nothing written then). */
int
sym_checkpoint_write(const sym_checkpoint *ck, const char *path)
{
	size_t len = 0;
	char *text, *tmp;
	struct stat st;
	int rc, exists;

	if (!ck)
		return -1;
	if (check_target(ck->ctx, path, &st, &exists) < 0)
		return -1;
	text = header_text(ck, &len);
	if (!text)
		return -1;
	tmp = sym__asprintf("%s.tmp", path);
	if (!tmp) {
		sym__oom(ck->ctx);
		free(text);
		return -1;
	}
	errno = 0;
	rc = write_file(ck, path, tmp, text, len, exists, &st);
	free(tmp);
	free(text);
	return rc;
}
