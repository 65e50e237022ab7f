/*
 * MNIST/IDX files: placeholder until the reader lands (this commit only
 * lays out lib/train/).
 */
#include "train/dataset_private.h"

/* Return NULL with an error on "ctx": not yet implemented. */
sym_dataset *
sym_dataset_mnist_open(sym_ctx *ctx, const char *dir, sym_dataset_split split)
{
	(void)split;
	sym__error(ctx, SYM_EINTERNAL, NULL,
	    "mnist:%s: the MNIST reader is not built yet", dir ? dir : "");
	return NULL;
}
