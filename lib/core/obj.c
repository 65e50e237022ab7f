/* SPDX-License-Identifier: MIT */
/*
 * The header of the objects a context hands to callers: reference
 * counts, the context's list of what callers hold, and the count of live
 * objects per kind.
 */
#include "core/ctx_private.h"

/* Initialize the header "obj" of a new object of "kind", with one
 * reference (the library's) and none held by callers; "destroy" frees the
 * object when its last reference goes. */
void
sym__obj_init(struct sym__obj *obj, enum sym__obj_kind kind,
    void (*destroy)(struct sym__obj *obj))
{
	obj->prev = obj->next = obj;
	obj->destroy = destroy;
	obj->kind = kind;
	obj->ref = 1;
	obj->cref = 0;
}

/* Take one more reference to the object of header "obj". */
void
sym__obj_ref(struct sym__obj *obj)
{
	obj->ref++;
}

/* Release one reference to the object of header "obj", destroying it at
 * the last. */
void
sym__obj_unref(struct sym__obj *obj)
{
	if (--obj->ref == 0)
		obj->destroy(obj);
}

/* Turn a reference to the object of header "obj" of "ctx" into one held
 * by a caller: counted as live, and the object on the list of "ctx". */
void
sym__obj_give(sym_ctx *ctx, struct sym__obj *obj)
{
	if (obj->cref++ == 0) {
		obj->next = ctx->owned.next;
		obj->prev = &ctx->owned;
		ctx->owned.next->prev = obj;
		ctx->owned.next = obj;
	}
	ctx->live[obj->kind]++;
}

/* Release a caller's reference to the object of header "obj" of "ctx",
 * destroying the object at its last reference. */
void
sym__obj_drop(sym_ctx *ctx, struct sym__obj *obj)
{
	ctx->live[obj->kind]--;
	if (obj->cref && --obj->cref == 0)
		sym__obj_unlist(obj);
	sym__obj_unref(obj);
}

/* Take the object of header "obj" off its context's list of caller-held
 * objects, still counted as live: its holder (the library) frees it with
 * the function that frees a caller's. */
void
sym__obj_unlist(struct sym__obj *obj)
{
	obj->prev->next = obj->next;
	obj->next->prev = obj->prev;
	obj->prev = obj->next = obj;
}

/* Drop every reference the callers of "ctx" still hold (at sym_ctx_free),
 * destroying the objects the library does not hold too. */
void
sym__obj_forget_all(sym_ctx *ctx)
{
	while (ctx->owned.next != &ctx->owned) {
		struct sym__obj *obj = ctx->owned.next;

		sym__obj_unlist(obj);
		ctx->live[obj->kind] -= obj->cref;
		obj->ref -= obj->cref;
		obj->cref = 0;
		if (obj->ref == 0)
			obj->destroy(obj);
	}
}
