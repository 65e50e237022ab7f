/* SPDX-License-Identifier: MIT */
/*
 * The trainer's checkpoints (symshard-checkpoint(5)): every param and
 * optimizer state gathered whole and written by one process in the
 * safetensors format; read by every process, every tensor checked
 * against the graph before anything changes, each rank then taking its
 * block, whatever strategy and number of ranks wrote the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_private.h"
#include "graph/graph_private.h"
#include "ckpt/checkpoint_private.h"
#include "train/trainer_private.h"

/* Return 1 when this process writes the checkpoints of "t". */
static int
writer(const sym_trainer *t)
{
	return !t->mpi || t->rank[0].k == 0;
}

/* Add to "ck" the tensor "name" of "dt" and shape "dims" ("nd" sizes)
 * from "whole", stored as the executor stores it ("bytes" bytes),
 * converted to "dt"; 0, or -1 with an error on the context of "ck". */
static int
add_converted(sym_checkpoint *ck, const char *name, sym_dtype dt, size_t nd,
    const int64_t *dims, const void *whole, size_t bytes)
{
	size_t es = sym__ckpt_storage_size(dt), n = es ? bytes / es : 0;
	void *buf;
	int rc;

	if (es == sym_dtype_size(dt))
		return sym_checkpoint_add(ck, name, dt, nd, dims, whole);
	buf = sym__alloc(ck->ctx, n * sym_dtype_size(dt) + 1);
	if (!buf)
		return -1;
	sym__ckpt_from_storage(dt, whole, buf, n);
	rc = sym_checkpoint_add(ck, name, dt, nd, dims, buf);
	free(buf);
	return rc;
}

/* Return the dtype in which the executor stores values of "dt": f32 for
 * f16 and bf16 (computed in f32), "dt" itself for the others that can
 * hold a NaN. */
static sym_dtype
storage_dtype(sym_dtype dt)
{
	return dt == SYM_DT_F16 || dt == SYM_DT_BF16 ? SYM_DT_F32 : dt;
}

/* Return the index of the first element of "data" ("bytes" bytes of
 * dtype "dt") that is a NaN or an infinity, -1 when none is (or the
 * dtype is not floating); store in "*what" "nan" or "an infinity". */
static int64_t
first_nonfinite(sym_dtype dt, const void *data, size_t bytes, const char **what)
{
	const unsigned char *p = data;
	size_t es = sym_dtype_size(dt);

	for (size_t i = 0; data && es && i + es <= bytes; i += es) {
		uint64_t bits = 0;
		int nan = 0, inf = 0;

		memcpy(&bits, p + i, es); /* little-endian hosts */
		if (dt == SYM_DT_F16) {
			inf = (bits & 0x7c00) == 0x7c00;
			nan = inf && (bits & 0x03ff);
		} else if (dt == SYM_DT_BF16) {
			inf = (bits & 0x7f80) == 0x7f80;
			nan = inf && (bits & 0x007f);
		} else if (dt == SYM_DT_F32) {
			inf = (bits & 0x7f800000) == 0x7f800000;
			nan = inf && (bits & 0x007fffff);
		} else if (dt == SYM_DT_F64) {
			inf = (bits & 0x7ff0000000000000ULL) ==
			    0x7ff0000000000000ULL;
			nan = inf && (bits & 0x000fffffffffffffULL);
		}
		if (inf) {
			*what = nan ? "NaN" : "an infinity";
			return (int64_t)(i / es);
		}
	}
	return -1;
}

/* Return 1 when training can change param "v" (trained, or optimizer or
 * running state), so that a NaN or an infinity in it means a diverged
 * run; 0 for a frozen constant, which may hold one from the start (an
 * imported ONNX constant: the -inf of a causal mask). */
static int
may_diverge(const sym_value *v)
{
	return !sym_value_is_frozen(v) || sym_value_is_state(v);
}

/* Add to "ck" (NULL on the processes that do not write) param or state
 * "v" of "t", gathered whole; 0 or -1 (on every rank). */
static int
add_param(sym_trainer *t, sym_checkpoint *ck, const sym_value *v)
{
	int64_t dims[SYM__MAX_RANK];
	size_t nd, bytes = sym__trainer_whole_size(t, v, dims, &nd);
	const char *what = NULL;
	int64_t at;
	int bad;

	if (sym__trainer_gather(t, v, bytes) < 0)
		return -1;
	at = ck && !t->o.allow_nonfinite && may_diverge(v)
	    ? first_nonfinite(
	          storage_dtype(sym_shape_dtype(sym_value_shape(v))),
	          t->rank[0].whole, bytes, &what)
	    : -1;
	if (at >= 0)
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "trainer: '%s' holds %s at element %lld: the run "
		    "diverged, nothing saved (allow_nonfinite saves it)",
		    sym_value_name(v), what, (long long)at);
	bad = at >= 0 ||
	    (ck &&
	        add_converted(ck, sym_value_name(v),
	            sym_shape_dtype(sym_value_shape(v)), nd, dims,
	            t->rank[0].whole, bytes) < 0);
	if (t->mpi && sym__trank_agree(&t->rank[0], bad) < 0)
		return -1;
	return bad ? -1 : 0;
}

/* Add to "ck" every param and optimizer state of "t" (frozen params
 * included), the widest elements first so that every tensor starts at
 * a multiple of its element size in the file; 0 or -1 (on every
 * rank). */
static int
add_params(sym_trainer *t, sym_checkpoint *ck)
{
	size_t nv = sym_graph_n_values(t->g);

	for (size_t es = 8; es >= 1; es /= 2)
		for (size_t i = 0; i < nv; i++) {
			const sym_value *v = sym_graph_value(t->g, i);
			sym_dtype dt = sym_shape_dtype(sym_value_shape(v));

			if (sym_value_get_kind(v) == SYM_VALUE_PARAM &&
			    sym_dtype_size(dt) == es && add_param(t, ck, v) < 0)
				return -1;
		}
	return 0;
}

/* Set the metadata of "ck" for "t"; 0 or -1. */
static int
add_metadata(sym_trainer *t, sym_checkpoint *ck)
{
	char step[32], seed[32];
	const sym_value *loss = sym_graph_loss(t->g);
	sym_loc loc = sym_value_location(loss);

	snprintf(step, sizeof(step), "%lld", (long long)t->step);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)t->o.seed);
	if (sym_checkpoint_set_metadata(ck, "step", step) < 0 ||
	    sym_checkpoint_set_metadata(ck, "seed", seed) < 0)
		return -1;
	if (!loc.file)
		return 0;
	/* The file's name, not where it was on the machine that trained. */
	return sym_checkpoint_set_metadata(ck, "graph",
	    strrchr(loc.file, '/') ? strrchr(loc.file, '/') + 1 : loc.file);
}

/* Agree among the processes of "t" on whether one failed ("bad": this
 * one); 0 when none did, else -1 (on every process). */
static int
agree_all(sym_trainer *t, int bad)
{
	if (t->mpi)
		return sym__trank_agree(&t->rank[0], bad);
	return bad ? -1 : 0;
}

/* Save every param and optimizer state of "t" whole to "path" in the
 * safetensors format (process 0 writes); a collective. 0 or -1 (on
 * every rank; no file is left half written). */
int
sym_trainer_save(sym_trainer *t, const char *path)
{
	sym_checkpoint *ck = NULL;
	int rc = -1;

	if (!t)
		return -1;
	if (!path)
		sym__error(t->ctx, SYM_EINVAL, NULL, "trainer: no file name");
	else if (writer(t))
		ck = sym_checkpoint_new(t->ctx);
	if (agree_all(t, !path || (writer(t) && !ck)) < 0 ||
	    add_params(t, ck) < 0)
		goto done;
	rc = agree_all(t,
	    ck &&
	        (add_metadata(t, ck) < 0 ||
	            sym_checkpoint_write(ck, path) < 0));
done:
	sym_checkpoint_free(ck);
	return rc;
}

/* Record on the context of "t" that tensor "name" of "ck" ("path")
 * does not have the shape "dims" ("nd" sizes) of the graph; return -1. */
static int
shape_mismatch(sym_trainer *t, const sym_checkpoint *ck, const char *path,
    size_t i, const int64_t *dims, size_t nd)
{
	char want[160] = "", have[160] = "";
	size_t a = 0, b = 0;

	for (size_t d = 0; d < nd && a < 120; d++)
		a += (size_t)snprintf(want + a, sizeof(want) - a, "%s%lld",
		    d ? ", " : "", (long long)dims[d]);
	for (size_t d = 0; d < sym_checkpoint_tensor_ndim(ck, i) && b < 120;
	     d++)
		b += (size_t)snprintf(have + b, sizeof(have) - b, "%s%lld",
		    d ? ", " : "",
		    (long long)sym_checkpoint_tensor_dim(ck, i, d));
	sym__error(t->ctx, SYM_EINVAL, NULL,
	    "%s: tensor '%s' is [%s], the graph's is [%s]", path,
	    sym_checkpoint_tensor_name(ck, i), have, want);
	return -1;
}

/* Check the values of tensor "i" of "ck" ("path"), of value "v": the
 * step count from 0 to INT32_MAX - 1, so that a step can follow without
 * wrapping; i64 elements within 32 bits (the executor's). 0, or -1 with
 * an error. */
static int
check_values(sym_trainer *t, const sym_checkpoint *ck, const char *path,
    size_t i, const sym_value *v)
{
	size_t bytes, n, bad;
	const void *d = sym_checkpoint_tensor_data(ck, i, &bytes);
	sym_dtype dt = sym_checkpoint_tensor_dtype(ck, i);
	int32_t *tmp;

	if (v->state && dt == SYM_DT_I32 && bytes == sizeof(int32_t) &&
	    !strcmp(sym_value_name(v), "optimizer.step")) {
		int32_t step;

		memcpy(&step, d, sizeof(step));
		if (step < 0 || step == INT32_MAX) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "%s: optimizer.step is %ld: a step count is from "
			    "0 to %ld",
			    path, (long)step, (long)INT32_MAX - 1);
			return -1;
		}
	}
	if (dt != SYM_DT_I64)
		return 0;
	n = bytes / sizeof(int64_t);
	tmp = sym__alloc(t->ctx, n * sizeof(*tmp) + 1);
	if (!tmp)
		return -1;
	bad = sym__ckpt_to_storage(dt, d, tmp, n);
	free(tmp);
	if (bad == SIZE_MAX)
		return 0;
	sym__error(t->ctx, SYM_EINVAL, NULL,
	    "%s: tensor '%s': element %zu is beyond 32 bits, which i64 "
	    "values must fit in (sym_exec(3))",
	    path, sym_value_name(v), bad);
	return -1;
}

/* Check that tensor "name" of "ck" (read from "path") can be value "v"
 * of "t": present, same dtype, same global sizes, valid values. Return
 * 0, 1 when "v" is optimizer state that "ck" lacks (it will start from
 * zeros), or -1 with an error naming the file and the tensor. */
static int
check_tensor(sym_trainer *t, const sym_checkpoint *ck, const char *path,
    const sym_value *v)
{
	const char *name = sym_value_name(v);
	size_t i = sym_checkpoint_find(ck, name), nd;
	sym_dtype dt = sym_shape_dtype(sym_value_shape(v));
	int64_t dims[SYM__MAX_RANK];
	int same;

	if (i == SIZE_MAX && v->state)
		return 1;
	if (i == SIZE_MAX) {
		sym_loc loc = sym_value_location(v);

		sym__error(t->ctx, SYM_EINVAL, loc.file ? &loc : NULL,
		    "%s: no tensor '%s' (a param of the graph)", path, name);
		return -1;
	}
	if (sym_checkpoint_tensor_dtype(ck, i) != dt) {
		sym__error(t->ctx, SYM_EINVAL, NULL,
		    "%s: tensor '%s' is %s, the graph's is %s", path, name,
		    sym_dtype_name(sym_checkpoint_tensor_dtype(ck, i)),
		    sym_dtype_name(dt));
		return -1;
	}
	sym__trainer_whole_size(t, v, dims, &nd);
	same = sym_checkpoint_tensor_ndim(ck, i) == nd;
	for (size_t d = 0; same && d < nd; d++)
		same = sym_checkpoint_tensor_dim(ck, i, d) == dims[d];
	if (!same)
		return shape_mismatch(t, ck, path, i, dims, nd);
	return check_values(t, ck, path, i, v);
}

/* Check every param and state of "t" against "ck" (read from "path"),
 * naming in t->notice the optimizer state it lacks; 0 or -1. */
static int
check_all(sym_trainer *t, const sym_checkpoint *ck, const char *path)
{
	size_t nv = sym_graph_n_values(t->g), at = 0, missing = 0;
	size_t dat = 0, dmissing = 0;
	char names[256] = "", dnames[256] = "";

	t->notice[0] = '\0';
	for (size_t i = 0; i < nv; i++) {
		const sym_value *v = sym_graph_value(t->g, i);
		int rc;

		if (sym_value_get_kind(v) != SYM_VALUE_PARAM)
			continue;
		rc = check_tensor(t, ck, path, v);
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		if (v->state == 2) {
			if (dmissing++ < 4 && dat < sizeof(dnames))
				dat += (size_t)snprintf(dnames + dat,
				    sizeof(dnames) - dat, "%s%s",
				    dat ? ", " : "", sym_value_name(v));
			continue;
		}
		if (missing++ < 4 && at < sizeof(names))
			at += (size_t)snprintf(names + at, sizeof(names) - at,
			    "%s%s", at ? ", " : "", sym_value_name(v));
	}
	if (missing)
		snprintf(t->notice, sizeof(t->notice),
		    "%s has no optimizer state (%s%s): it starts from zeros "
		    "(step 0)",
		    path, names, missing > 4 ? ", ..." : "");
	if (dmissing) {
		size_t l = strlen(t->notice);

		snprintf(t->notice + l, sizeof(t->notice) - l,
		    "%s%s has no state %s (%s%s): it starts from its "
		    "initializer",
		    l ? "; " : "", path, dmissing == 1 ? "value" : "values",
		    dnames, dmissing > 4 ? ", ..." : "");
	}
	return 0;
}

/* Fill "buf" ("n" elements of the executor's storage of "dt") with the
 * constant initializer of the declared state "v" (ones, constant);
 * zeros stay. */
static void
fill_init(const sym_value *v, sym_dtype dt, void *buf, size_t n)
{
	double c = v->init.kind == SYM_INIT_ONES ? 1
	    : v->init.kind == SYM_INIT_CONSTANT  ? v->init.value
	                                         : 0;

	for (size_t i = 0; i < n && c != 0; i++)
		if (dt == SYM_DT_F64)
			((double *)buf)[i] = c;
		else if (sym_dtype_is_float(dt))
			((float *)buf)[i] = (float)c;
		else
			((int32_t *)buf)[i] = (int32_t)c;
}

/* Set value "v" of "t" (and of its single-device side) from "whole"
 * ("bytes" bytes as the executor stores it); 0 or -1. */
static int
set_value(sym_trainer *t, const sym_value *v, const void *whole, size_t bytes)
{
	t->job_name = sym_value_name(v);
	t->job_whole = whole;
	t->job_bytes = bytes;
	if (sym__trainer_run(t, SYM__JOB_SET) < 0)
		return -1;
	if (t->x1 &&
	    sym_exec_set_whole(t->x1, t->job_name, t->job_whole, t->job_bytes) <
	        0)
		return -1;
	return 0;
}

/* Check that no tensor of "ck" (read from "path") that is a param or
 * state of "t" holds a NaN or an infinity, unless allow_nonfinite; 0 or
 * -1 with an error naming the tensor and the element. */
static int
check_finite(sym_trainer *t, const sym_checkpoint *ck, const char *path)
{
	size_t nv = sym_graph_n_values(t->g);

	for (size_t i = 0; !t->o.allow_nonfinite && i < nv; i++) {
		const sym_value *v = sym_graph_value(t->g, i);
		const char *what = NULL;
		size_t k, bytes = 0;
		const void *data;
		int64_t at;

		if (sym_value_get_kind(v) != SYM_VALUE_PARAM || !may_diverge(v))
			continue;
		k = sym_checkpoint_find(ck, sym_value_name(v));
		if (k == SIZE_MAX)
			continue;
		data = sym_checkpoint_tensor_data(ck, k, &bytes);
		at = first_nonfinite(sym_checkpoint_tensor_dtype(ck, k), data,
		    bytes, &what);
		if (at >= 0) {
			sym__error(t->ctx, SYM_EINVAL, NULL,
			    "%s: tensor '%s' holds %s at element %lld: a "
			    "checkpoint of a diverged run is refused",
			    path, sym_value_name(v), what, (long long)at);
			return -1;
		}
	}
	return 0;
}

/* Set every param and state of "t" (and of its single-device side) from
 * "ck", checked already, converted to the executor's storage; a state
 * "ck" lacks starts from zeros. 0 or -1. */
static int
set_all(sym_trainer *t, const sym_checkpoint *ck)
{
	size_t nv = sym_graph_n_values(t->g);

	for (size_t i = 0; i < nv; i++) {
		const sym_value *v = sym_graph_value(t->g, i);
		sym_dtype dt = sym_shape_dtype(sym_value_shape(v));
		int64_t dims[SYM__MAX_RANK];
		size_t k, nd, bytes, have;
		const void *d;
		void *buf;
		int rc;

		if (sym_value_get_kind(v) != SYM_VALUE_PARAM)
			continue;
		bytes = sym__trainer_whole_size(t, v, dims, &nd);
		k = sym_checkpoint_find(ck, sym_value_name(v));
		d = sym_checkpoint_tensor_data(ck, k, &have);
		if (d && have == bytes) {
			if (set_value(t, v, d, bytes) < 0)
				return -1;
			continue;
		}
		buf = sym__alloc(t->ctx, bytes + 1);
		if (!buf)
			return -1;
		if (d)
			sym__ckpt_to_storage(dt, d, buf,
			    bytes / sym__ckpt_storage_size(dt));
		else if (v->state == 2)
			fill_init(v, dt, buf,
			    bytes / sym__ckpt_storage_size(dt));
		rc = set_value(t, v, buf, bytes);
		free(buf);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Return the fingerprint of the tensors of "ck": names, dtypes, shapes
 * and data. */
static uint64_t
ckpt_fingerprint(const sym_checkpoint *ck)
{
	uint64_t h = SYM__FNV_BASIS;

	for (size_t i = 0; i < sym_checkpoint_n_tensors(ck); i++) {
		const char *name = sym_checkpoint_tensor_name(ck, i);
		int64_t meta[SYM__CKPT_MAX_NDIM + 2] = { 0 };
		size_t bytes, nd = sym_checkpoint_tensor_ndim(ck, i);
		const void *d = sym_checkpoint_tensor_data(ck, i, &bytes);

		meta[0] = sym_checkpoint_tensor_dtype(ck, i);
		meta[1] = (int64_t)nd;
		for (size_t k = 0; k < nd && k < SYM__CKPT_MAX_NDIM; k++)
			meta[k + 2] = sym_checkpoint_tensor_dim(ck, i, k);
		h = sym__fnv1a(h, name, strlen(name) + 1);
		h = sym__fnv1a(h, meta, sizeof(meta));
		h = sym__fnv1a(h, d, bytes);
	}
	return h;
}

/* Load every param and optimizer state of "t" from the checkpoint
 * "path" (read by every process; every tensor checked before anything
 * changes, each rank then taking its block); optimizer state the file
 * lacks starts from zeros, named by sym_trainer_notice. A collective.
 * 0 or -1 with an error naming the file and the tensor (nothing
 * changed). */
int
sym_trainer_load(sym_trainer *t, const char *path)
{
	sym_checkpoint *ck;
	int rc;

	if (!t)
		return -1;
	ck = path ? sym_checkpoint_read(t->ctx, path) : NULL;
	if (!path)
		sym__error(t->ctx, SYM_EINVAL, NULL, "trainer: no file name");
	rc = agree_all(t,
	    !ck || check_all(t, ck, path) < 0 || check_finite(t, ck, path) < 0);
	if (rc == 0 && t->mpi) {
		char what[300];

		snprintf(what, sizeof(what), "the contents of %s", path);
		rc = sym__trainer_agree_hash(t, ckpt_fingerprint(ck), what);
	}
	if (rc == 0) {
		t->fresh = 0; /* plan switching moves these params */
		rc = set_all(t, ck);
	}
	if (t->mpi && rc == 0)
		rc = agree_all(t, 0);
	if (rc < 0)
		t->notice[0] = '\0';
	sym_checkpoint_free(ck);
	return rc;
}
