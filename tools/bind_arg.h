/* SPDX-License-Identifier: MIT */
/*
 * The syntax of a --bind argument, shared by shape-check and shape-run.
 */
#ifndef SYM_TOOLS_BIND_ARG_H
#define SYM_TOOLS_BIND_ARG_H

const char *bind_arg_error(const char *text);

#endif
