/*
 * XS binding of lexical (see lexical.h): installed on __native by the
 * simulator runtime, bound by name in the device's and the lin runtime's
 * host-function modules.
 */
#ifndef XS_LEXICAL_H
#define XS_LEXICAL_H

#include "xs.h"

void xs_lexical_bm25(xsMachine *the);
void xs_lexical_install(xsMachine *the);

#endif
