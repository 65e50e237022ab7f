/* SPDX-License-Identifier: MIT */
/*
 * Bounds on a model before protobuf-c unpacks it: protobuf-c recurses
 * once per nested message and allocates per repeated element, so a small
 * file could exhaust the stack or the memory. The wire format is walked
 * here with the schema's descriptors, iteratively bounded: nesting at
 * most SYM__ONNX_MAX_DEPTH, at most SYM__ONNX_MAX_ITEMS field
 * occurrences (packed elements counted by their bytes), and every length
 * within its message.
 */
#include "front/onnx_private.h"

struct wire {
	sym_ctx *ctx;
	const char *file;
	size_t items;
};

/* Read a varint at "*p" before "end" into "*v"; 0, or -1 when it is
 * truncated or longer than 10 bytes. */
static int
varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		if (*p >= end)
			return -1;
		uint8_t b = *(*p)++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* Record a malformed model at byte "off" of "w"'s file, "why"; -1. */
static int
bad(struct wire *w, size_t off, const char *why)
{
	sym__error(w->ctx, SYM_EPARSE, NULL,
	    "%s: not a valid ONNX model: %s at byte %zu", w->file, why, off);
	return -1;
}

/* Check the message of descriptor "d" in [p, end) at nesting "depth"
 * ("base": the start of the file, for offsets); 0 or -1. */
static int
scan(struct wire *w, const ProtobufCMessageDescriptor *d, const uint8_t *p,
    const uint8_t *end, const uint8_t *base, int depth)
{
	if (depth > SYM__ONNX_MAX_DEPTH)
		return bad(w, (size_t)(p - base), "messages nested too deeply");
	while (p < end) {
		uint64_t key, v;
		const uint8_t *at = p;

		if (varint(&p, end, &key) < 0)
			return bad(w, (size_t)(at - base),
			    "truncated field key");
		if (++w->items > SYM__ONNX_MAX_ITEMS)
			return bad(w, (size_t)(at - base), "too many fields");
		unsigned num = (unsigned)(key >> 3);
		if (key >> 3 > UINT32_MAX || num == 0)
			return bad(w, (size_t)(at - base),
			    "invalid field number");
		switch (key & 7) {
		case 0:
			if (varint(&p, end, &v) < 0)
				return bad(w, (size_t)(at - base),
				    "truncated varint");
			break;
		case 1:
			if (end - p < 8)
				return bad(w, (size_t)(at - base),
				    "truncated fixed64");
			p += 8;
			break;
		case 5:
			if (end - p < 4)
				return bad(w, (size_t)(at - base),
				    "truncated fixed32");
			p += 4;
			break;
		case 2: {
			if (varint(&p, end, &v) < 0 || v > (uint64_t)(end - p))
				return bad(w, (size_t)(at - base),
				    "length beyond its message");
			const ProtobufCFieldDescriptor *f = d
			    ? protobuf_c_message_descriptor_get_field(d, num)
			    : NULL;
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
				if (scan(w, f->descriptor, p, p + v, base,
				        depth + 1) < 0)
					return -1;
			} else if (f && f->label == PROTOBUF_C_LABEL_REPEATED) {
				/* packed: at least one byte an element */
				w->items += (size_t)v;
				if (w->items > SYM__ONNX_MAX_ITEMS)
					return bad(w, (size_t)(at - base),
					    "too many elements");
			}
			p += v;
			break;
		}
		default:
			return bad(w, (size_t)(at - base),
			    "unsupported wire type");
		}
	}
	return 0;
}

/* Check that the "size" bytes at "data" (the model "file") are a
 * ModelProto within the reader's bounds; 0, or -1 with SYM_EPARSE on
 * "ctx". */
int
sym__onnx_wire_check(sym_ctx *ctx, const uint8_t *data, size_t size,
    const char *file)
{
	struct wire w = { ctx, file, 0 };

	return scan(&w, &onnx__model_proto__descriptor, data, data + size, data,
	    0);
}
