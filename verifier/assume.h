/* The `assume:` block of an ISM model must be satisfiable: some initial
 * values within the variables' ranges meet every assumption. Decided with
 * the solver before a model is explored, so that an impossible assumption
 * is a located error rather than a silent "verified". */
#ifndef VERIFIER_ASSUME_H
#define VERIFIER_ASSUME_H

#include <stdbool.h>

#include "ism/diag.h"
#include "ism/ism.h"

/* Reports every assumption that cannot hold on its own (within the ranges)
 * at its location, or, when each can but not all together, the last one;
 * returns false if it reported anything. A solver that cannot decide
 * (unknown) reports nothing. */
bool assume_check(const ism_model_t *m, diag_list_t *diags);

#endif
