/* Memory: allocation wrappers that never return NULL and a bump arena so
 * that a loaded model is freed in one call. Out of memory (malloc failing,
 * or the heap passing the limit of alloc_set_limit) is the one failure not
 * reported as a diagnostic: a message on stderr, then exit code
 * ALLOC_EXIT_OUT_OF_MEMORY (the CLI's "inconclusive"). */
#ifndef ISM_ALLOC_H
#define ISM_ALLOC_H

#include <stddef.h>

#define ALLOC_EXIT_OUT_OF_MEMORY 5

/* Limits the heap in use (all threads, checked every 16 MiB requested and
 * at every larger request) to `bytes`; 0: no limit. */
void alloc_set_limit(size_t bytes);

/* The exit of every allocation that fails (also a library's, e.g. the
 * solver's context past the limit): the message, then the exit code. */
_Noreturn void alloc_out_of_memory(size_t size);

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh heap string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An arena owns every block it hands out; arena_free releases them all.
 * Blocks are 16-byte aligned and zero-filled. */
typedef struct arena_block arena_block_t;
typedef struct {
  arena_block_t *head; /* newest block first */
} arena_t;

void arena_init(arena_t *arena);
void arena_free(arena_t *arena);
void *arena_alloc(arena_t *arena, size_t size);
char *arena_strdup(arena_t *arena, const char *s);
char *arena_strndup(arena_t *arena, const char *s, size_t n);
char *arena_printf(arena_t *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
