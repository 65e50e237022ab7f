/* SPDX-License-Identifier: MIT */
/*
 * Reverse-mode differentiation of a graph (lib/grad/): the driver and
 * the table of the families' rules (grad.c), the toolbox the rules share
 * (grad_util.c) and the gradient rules of the operator families
 * (grad_*.c).
 *
 * The driver walks the forward nodes that lie between a trained param
 * and the loss, last first. For each it gives the family's rule the
 * gradients of the node's outputs ("dy", NULL where none flows) and the
 * names the gradients of its inputs must have; the rule emits ordinary
 * registry operators (sym__gemit) that compute them. Every emitted node
 * remembers the forward node it comes from, a role (the rule's own
 * numbering) and, by input, the forward tensor whose layout it mirrors,
 * so that the sharding pass derives its strategy from the forward
 * node's.
 */
#ifndef SYM_GRAD_GRAD_PRIVATE_H
#define SYM_GRAD_GRAD_PRIVATE_H

#include "graph/graph_private.h"

/* One differentiation. */
struct sym__grad {
	sym_graph *g;
	sym_ctx *ctx;
	unsigned char *active; /* by value: a gradient flows into it */
	size_t *n_uses;        /* by value: active uses (inputs) */
	size_t *n_done;        /* by value: gradients received */
	sym_value **contrib;   /* by value: the running sum, or NULL */
	char **target;         /* by input of the current node */
	sym_node *cur;         /* the forward node being differentiated */
	size_t n_tmp;          /* intermediate values named so far */
};

/* A gradient rule: given forward node "n" and "dy" (by output; NULL
 * where no gradient flows), emit the gradient of every input "i" whose
 * sym__gtarget is not NULL, as a value of that name; return 0, or -1
 * after a located diagnostic (an input without a gradient rule, an
 * operator that failed). */
typedef int (*sym__grad_rule)(struct sym__grad *gr, sym_node *n,
    sym_value *const *dy);

/* The name the gradient of input "i" of the current node must have, or
 * NULL when it needs none (integer, frozen, or off the loss's path). */
const char *sym__gtarget(const struct sym__grad *gr, size_t i);

/*
 * Emit "op" on the "n_in" values "in" with attributes "attrs" (may be
 * NULL), its first output named "name" (NULL: an intermediate name), as
 * gradient operator "role" of the current node whose inputs mirror the
 * forward tensors "mirror" (SYM__MIRROR_*; NULL: none). Return the first
 * output, or NULL after a diagnostic.
 */
sym_value *sym__gemit(struct sym__grad *gr, int role, const char *op,
    size_t n_in, sym_value *const *in, const sym_attrs *attrs, const char *name,
    const int *mirror);
/* Emit the gradient of input "i" of the current node, when it needs one,
 * as "op" on the "n_in" values "in" with attributes "attrs" (may be NULL)
 * as gradient operator "role" mirroring "mirror", named after its target;
 * return 0 or -1. */
int sym__gemit_to(struct sym__grad *gr, size_t i, int role, const char *op,
    size_t n_in, sym_value *const *in, const sym_attrs *attrs,
    const int *mirror);
/* Emit the gradient of input 0 of the current node "n" as "op"("dy")
 * with the attributes "at", released here; "at_ok" is 0 when building
 * them failed, which is reported at "n" with the context's error.
 * Return 0 or -1. */
int sym__gemit_dx(struct sym__grad *gr, const sym_node *n, const char *op,
    sym_value *dy, sym_attrs *at, int at_ok);
/* The same for an operator with several outputs, named "names" (NULL
 * entries: intermediate names); their values in "out"; 0 or -1. */
int sym__gemit_n(struct sym__grad *gr, int role, const char *op, size_t n_in,
    sym_value *const *in, const sym_attrs *attrs, size_t n_out,
    const char *const *names, const int *mirror, sym_value **out);

/* Give input "i" the gradient "g" (a value of its shape): through an
 * identity named after the target when "g" already has a name of its
 * own; return 0 or -1. */
int sym__gpass(struct sym__grad *gr, size_t i, sym_value *g, int mirror);
/* Reduce "g" (of the broadcast shape of the current node's output) to
 * the shape of input "i" (sum_to, when broadcasting expanded it) and
 * name it after its target; return 0 or -1. */
int sym__gunbroadcast(struct sym__grad *gr, size_t i, sym_value *g, int role);
/* Attributes for an emitted operator: a new set (caller object), and
 * setters that record allocation failures on it. */
sym_attrs *sym__gattrs(struct sym__grad *gr);
/* The name of the gradient operator of "n": its operator's name
 * followed by "_grad", written into "buf" of "size" bytes; "buf". */
const char *sym__ggrad_op(const sym_node *n, char *buf, size_t size);
/* Record that input "i" of the current node has no gradient because
 * "why"; return -1. */
int sym__gnone(struct sym__grad *gr, size_t i, const char *why);

/* Append the update operators of the optimizer (optim.c); 0 or -1. */
int sym__grad_updates(struct sym__grad *gr);

/* Every operator's gradient rule, as lib/shape/ops.def names it (its
 * SYM__OPIMPL column GRAD); grad.c makes the table of them. */
#define SYM__OPIMPL(ID, KERNEL, SHARD_INPUT, TUPLE, INFER, GRAD) \
	int GRAD(struct sym__grad *gr, sym_node *n, sym_value *const *dy);
#include "shape/ops.def"

#endif
