/* SPDX-License-Identifier: MIT */
/*
 * The library's version at run time.
 */
#include <symshard/version.h>

#include "core/ctx_private.h"

/* Return the version string of the library, e.g. "0.2.0". */
const char *
sym_version(void)
{
	return SYM_VERSION_STRING;
}
