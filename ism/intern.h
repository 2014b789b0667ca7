/* String interning: maps strings to dense ids 0, 1, 2, ... in first-seen
 * order and back. Used for names everywhere (variables, states, LTS labels).
 * Hash order never leaks: ids are insertion order. */
#ifndef ISM_INTERN_H
#define ISM_INTERN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char **names;     /* names[id], owned */
  size_t count;     /* ids are 0 .. count-1 */
  size_t names_cap;
  int *table;       /* open addressing: -1 empty, else id */
  size_t table_cap; /* power of two, > 2 * count */
} intern_t;

void intern_init(intern_t *in);
void intern_free(intern_t *in);
/* Returns the id of s, adding a copy of it when new. */
int intern_add(intern_t *in, const char *s);
/* Like intern_add; *added says whether it was new. */
int intern_add2(intern_t *in, const char *s, bool *added);
/* Returns the id of s, or -1. */
int intern_find(const intern_t *in, const char *s);
const char *intern_name(const intern_t *in, int id);

#endif
