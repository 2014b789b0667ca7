/* FLTL in the FSP front end (private to verifier/lts/fsp*.c): `fluent`
 * declarations and `assert` safety formulas, compiled to a property LTS:
 * an invariant [] φ (φ propositional over fluents) as LTSA compiles it
 * (states are the reachable fluent valuations, an action that leaves φ
 * false leads to the error state: positions are actions, the initial
 * valuation is none); any other formula whose negation
 * normal form has no U or <> through a progression tableau (states are a
 * valuation and an obligation; docs/fsp.md). Both minimised. */
#ifndef VERIFIER_LTS_FSP_FLTL_H
#define VERIFIER_LTS_FSP_FLTL_H

#include "verifier/lts/fsp_parse.h"

/* After the keyword `fluent`: one fluent declaration into c->f->fluents. */
void fsp_parse_fluent(fsp_ctx_t *c);
/* After the keyword `assert`: NAME = formula, added to c->f->procs. */
void fsp_parse_assert(fsp_ctx_t *c);
/* The property LTS of assert p (owned by c->temps). */
lts_t *fsp_compile_assert(fsp_ctx_t *c, const fsp_proc_def_t *p);

#endif
