/* Fortis's OASIS robustification (private to verifier/lts/robustify*.c):
 * abstractions of M that decouple growing subsets of the candidate
 * actions, one synthesis each (decided without a plant where every action
 * of M is observable) until one has a supervisor. */
#ifndef VERIFIER_ROBUSTIFY_OASIS_H
#define VERIFIER_ROBUSTIFY_OASIS_H

#include "verifier/lts/robustify_plant.h"

/* Runs OASIS for s->p into *out (zeroed by the caller). */
void robustify_oasis_run(search_t *s, robustify_result_t *out);

#endif
