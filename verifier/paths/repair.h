/* Path repair, the explorer's second tier: when the model extension
 * (extend.h) finds no values for a failing last step from the values the
 * path already has (a walk fails only from exactly 14 cm, which the fixed
 * history rarely offers), look for values of the whole path at once. Each
 * value of the path is a function of its choices (initial values, sensing
 * and actuation errors, after-values no effect defines, fresh dynamic
 * values); a greedy search moves one choice at a time to the value that
 * solves a violated comparison for it, using the comparisons' affine forms
 * in the choices. Every valuation is simulated exactly (rational.h) and
 * only one on which every constraint of the path holds is returned; finding
 * none proves nothing, so the caller then asks the solver. */
#ifndef VERIFIER_REPAIR_H
#define VERIFIER_REPAIR_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/ism.h"
#include "verifier/paths/extend.h"
#include "verifier/paths/rational.h"

/* A path and its values, arrays owned by the caller (rows of nvars). */
typedef struct {
  const int *rules;      /* [length] */
  int length;            /* >= 1 */
  bool fail;             /* the last step fails (else no step does) */
  rat_t *T;              /* [(length + 1) * nvars] true (normal: current) values at each sensing and after */
  rat_t *H;              /* [length * nvars] sensed values */
  extend_action_t *acts; /* [nacts]: the path's action executions in order (step, then do: position) */
  size_t nacts;
  int valid_steps;   /* in: rows 0..valid_steps of T, steps below it of H and acts are values to start from */
  int fail_position; /* out: do: position of the first failing action of the last step, or -1 */
} repair_path_t;

/* Searches values for the whole path under `mode` such that no step but
 * the last fails and the last does (io->fail; else no step fails), within
 * about `rounds` moves per disjunct of its failure. Only a last step that can fail in one place
 * (one action's failure, or the model-wide failure) is repaired: where it
 * could fail in two, which one fails decides the counterexample's class.
 * Returns true with T, H and acts set to an exact model, or false
 * (nothing found: no conclusion; the arrays are untouched). */
bool repair_path(const extend_prep_t *p, ism_mode_t mode, int rounds, repair_path_t *io);

#endif
