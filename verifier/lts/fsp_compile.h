/* The FSP compiler (private to verifier/fsp*.c): process bodies and
 * composites to LTSs, run "live" to build states or "dead" (c->live false)
 * to check syntax only, as the declaration parser does. */
#ifndef VERIFIER_FSP_COMPILE_H
#define VERIFIER_FSP_COMPILE_H

#include "verifier/lts/fsp_parse.h"

/* A process term after '->' or '=' in the body of c->proc: returns its
 * state (-1 in dead mode). */
int fsp_target(fsp_ctx_t *c);
/* A composite body, (P || Q ...) or one element: appends its LTSs to parts. */
void fsp_comp_body(fsp_ctx_t *c, fsp_ltsvec_t *parts);
/* Moves over a definition's trailer (+{...} / \{...} @{...}), syntax only;
 * true when it hides (\ or @). */
bool fsp_skip_trailer(fsp_ctx_t *c, bool primitive);
/* The values of an index domain at the cursor (after `[i:`): a named range
 * or set, lo..hi, or a set {...} (forall, indexed progress). Appends to vals. */
void fsp_index_domain(fsp_ctx_t *c, fsp_valvec_t *vals);
/* Compiles definition p with `args` (the rest of its parameters take their
 * defaults) into a reachable-only LTS owned by c->temps. */
lts_t *fsp_compile_def(fsp_ctx_t *c, fsp_proc_def_t *p, const fsp_val_t *args, size_t nargs, loc_t loc);

#endif
