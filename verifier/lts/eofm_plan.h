/* The translation plan shared by verifier/lts/eofm_translate.c and
 * verifier/lts/eofm_explain.c (private to them): the activity instances
 * of a model with its world and their FSP process names. */
#ifndef VERIFIER_EOFM_PLAN_H
#define VERIFIER_EOFM_PLAN_H

#include "ism/alloc.h"
#include "ism/vec.h"
#include "verifier/lts/eofm_translate.h"

/* One occurrence of an activity or action in the translation. */
typedef struct {
  int node;         /* id in m->nodes */
  const char *name; /* FSP process name (ANoUp, HPressUp, ANoUp1 for a second instance) */
  int parent;       /* instance id, -1 for a top-level activity */
  VEC(int) kids;    /* instance ids */
} inst_t;

struct eofm_plan {
  const eofm_t *m;
  const eofm_world_t *w;
  arena_t arena;
  VEC(inst_t) inst;
  VEC(int) tops;              /* instance ids of the top-level activities */
  const char **init;          /* initial value text per input variable (index in m->vars) */
  const char **action_labels; /* label of each human action after relabelling */
  VEC(const char *) prims;    /* the primitive processes of the last FSP text */
};

static inline const eofm_node_t *node_of(const eofm_plan_t *p, int i) {
  return &p->m->nodes.data[p->inst.data[i].node];
}

#endif
