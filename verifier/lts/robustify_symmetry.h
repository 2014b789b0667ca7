/* Symmetries of the plant of a robustification (private to
 * verifier/lts/robustify*.c): label permutations π under which G is
 * isomorphic to itself and which map the preferred behaviours onto each
 * other (β), so that the synthesis for (π(C), π(O)) answers as the one
 * for (C, O), its kept behaviours renamed by β. */
#ifndef VERIFIER_ROBUSTIFY_SYMMETRY_H
#define VERIFIER_ROBUSTIFY_SYMMETRY_H

#include "verifier/lts/robustify_plant.h"

/* Fills s->sym with the automorphisms of s->g found among the candidate
 * label transpositions (swapping two index values, see the .c), each a
 * permutation of s->g.nlabels label ids followed by the permutation β of
 * the s->p->npref behaviours; s->nsym their number. Frees any
 * earlier ones first. */
void robustify_symmetry_find(search_t *s);
/* Drops s->sym (before the plant changes). */
void robustify_symmetry_free(search_t *s);
/* Whether permutation pi (s->g.nlabels ids) is an automorphism of s->g
 * mapping the preferred behaviours onto each other; β is written after
 * the label ids (pi has room for nlabels + npref ints). */
bool robustify_symmetry_check(const search_t *s, int *pi);

#endif
