/* Symmetries of the plant of a robustification (private to
 * verifier/lts/robustify*.c): label permutations π under which G is
 * isomorphic to itself and which fix every preferred behaviour, so that
 * the synthesis for (π(C), π(O)) answers as the one for (C, O). */
#ifndef VERIFIER_ROBUSTIFY_SYMMETRY_H
#define VERIFIER_ROBUSTIFY_SYMMETRY_H

#include "verifier/lts/robustify_plant.h"

/* Fills s->sym with the automorphisms of s->g found among the candidate
 * label transpositions (swapping two index values, see the .c), each a
 * permutation of s->g.nlabels label ids; s->nsym their number. Frees any
 * earlier ones first. */
void robustify_symmetry_find(search_t *s);
/* Drops s->sym (before the plant changes). */
void robustify_symmetry_free(search_t *s);
/* Whether permutation pi (s->g.nlabels ids) is an automorphism of s->g
 * fixing the preferred behaviours (exposed for the symmetry search and
 * its test). */
bool robustify_symmetry_check(const search_t *s, const int *pi);

#endif
