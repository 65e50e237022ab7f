/* SPDX-License-Identifier: MIT */
/*
 * symshard: training graphs: initializers, the loss and its optimizer,
 * reverse-mode gradients (sym_grad(3)).
 */
#ifndef SYMSHARD_GRAD_H
#define SYMSHARD_GRAD_H

#include <symshard/common.h>
#include <symshard/ctx.h>
#include <symshard/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MindSpore's initializers (mindspore.common.initializer). */
typedef enum sym_init_kind {
	SYM_INIT_DEFAULT = 0, /* the executor's seeded fill */
	SYM_INIT_ZEROS,
	SYM_INIT_ONES,
	SYM_INIT_CONSTANT,       /* value */
	SYM_INIT_NORMAL,         /* sigma, mean */
	SYM_INIT_UNIFORM,        /* scale: U(-scale, scale) */
	SYM_INIT_XAVIER_UNIFORM, /* gain */
	SYM_INIT_HE_UNIFORM,     /* negative_slope */
	SYM_INIT_HE_NORMAL       /* negative_slope */
} sym_init_kind;

typedef struct sym_init {
	sym_init_kind kind;
	double value;          /* constant */
	double sigma, mean;    /* normal */
	double scale;          /* uniform */
	double gain;           /* xavier_uniform */
	double negative_slope; /* he_uniform, he_normal */
} sym_init;

typedef enum sym_optimizer_kind {
	SYM_OPTIMIZER_NONE = 0,
	SYM_OPTIMIZER_SGD,
	SYM_OPTIMIZER_MOMENTUM,
	SYM_OPTIMIZER_ADAM,
	SYM_OPTIMIZER_ADAMW
} sym_optimizer_kind;

/* An optimizer and its hyper-parameters (sym_grad(3) gives each one's
 * formula and defaults). */
typedef struct sym_optimizer {
	sym_optimizer_kind kind;
	double lr;
	double momentum, dampening; /* sgd, momentum */
	int nesterov;               /* sgd, momentum */
	double weight_decay;
	double beta1, beta2, eps; /* adam, adamw */
} sym_optimizer;

SYM_EXPORT SYM_KEEP const char *sym_init_kind_name(sym_init_kind kind);
SYM_EXPORT SYM_KEEP const char *
sym_optimizer_kind_name(sym_optimizer_kind kind);
SYM_EXPORT void sym_optimizer_defaults(sym_optimizer_kind kind,
    sym_optimizer *opt);

SYM_EXPORT int sym_value_set_init(SYM_KEEP sym_value *v,
    SYM_KEEP const sym_init *init, SYM_KEEP const sym_loc *where);
SYM_EXPORT int sym_value_get_init(SYM_KEEP const sym_value *v, sym_init *init);
SYM_EXPORT int sym_value_set_frozen(SYM_KEEP sym_value *v, int frozen);
SYM_EXPORT sym_answer sym_value_is_frozen(SYM_KEEP const sym_value *v);
SYM_EXPORT int sym_value_set_state(SYM_KEEP sym_value *v, int state);
SYM_EXPORT sym_answer sym_value_is_state(SYM_KEEP const sym_value *v);

SYM_EXPORT int sym_graph_minimize(SYM_KEEP sym_graph *g,
    SYM_KEEP sym_value *loss, SYM_KEEP const sym_optimizer *opt,
    SYM_KEEP const sym_loc *where);
SYM_EXPORT SYM_KEEP sym_value *sym_graph_loss(SYM_KEEP const sym_graph *g);
SYM_EXPORT int sym_graph_optimizer(SYM_KEEP const sym_graph *g,
    sym_optimizer *opt);

SYM_EXPORT int sym_graph_differentiate(SYM_KEEP sym_graph *g);
SYM_EXPORT sym_answer sym_graph_is_training(SYM_KEEP const sym_graph *g);
SYM_EXPORT size_t sym_graph_n_forward_nodes(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP sym_value *sym_value_grad(SYM_KEEP const sym_value *v);
SYM_EXPORT size_t sym_graph_n_trained(SYM_KEEP const sym_graph *g);
SYM_EXPORT SYM_KEEP sym_value *sym_graph_trained(SYM_KEEP const sym_graph *g,
    size_t i);

#ifdef __cplusplus
}
#endif

#endif
