/* SPDX-License-Identifier: MIT */
/*
 * Parsed "mesh" declarations and "shard ... -> ..." clauses, kept as the
 * user wrote them; the layout layer gives them their meaning.
 */
#ifndef SYM_LAYOUT_STRATEGY_H
#define SYM_LAYOUT_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include <symshard/common.h>

/* mesh NAME = (dp=2, sp=2, mp=2) [ranks [..]] or (2, 4): unnamed axes
 * have a NULL name. */
struct sym__mesh_decl {
	char *name;
	size_t n_axes;
	char **axis_name;
	int64_t *axis_size;
	size_t n_ranks; /* 0: ranks 0 .. N-1 in order */
	int64_t *ranks;
	sym_loc loc;
};

/* One tensor dimension of a layout strategy: the mesh axes that split it,
 * most significant first; none = replicated ("None"). */
struct sym__dim_axes {
	size_t n;
	char **axis;
	sym_loc loc;
};

/* The strategy of one tensor: a tuple of split counts "(2, 4)", or a
 * layout "m(mp, (sp, dp))" over a declared mesh. */
struct sym__tensor_strategy {
	int is_layout;
	size_t n;                   /* number of dimensions */
	int64_t *split;             /* tuple form */
	char *mesh;                 /* layout form: the mesh name */
	struct sym__dim_axes *dims; /* layout form */
	sym_loc loc;
};

/* "shard (IN, ...) -> (OUT, ...)": the output part is optional. */
struct sym__strategy {
	size_t n_in;
	struct sym__tensor_strategy *in;
	int has_out;
	size_t n_out;
	struct sym__tensor_strategy *out;
	sym_loc loc;
};

void sym__mesh_decl_free(struct sym__mesh_decl *m);
void sym__strategy_free(struct sym__strategy *s);
char *sym__tensor_strategy_to_str(const struct sym__tensor_strategy *t);
char *sym__strategy_to_str(const struct sym__strategy *s);

#endif
