#include "ism/alloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>

/* The limit is process-wide by nature (one heap); set once, read by every thread. */
static size_t limit_bytes;
static atomic_size_t since_check;

void alloc_set_limit(size_t bytes) { limit_bytes = bytes; }

_Noreturn void alloc_out_of_memory(size_t size) {
  if (limit_bytes)
    fprintf(stderr,
            "ismv: error: out of memory: allocating %zu bytes beyond the limit of %zu MiB (--max-memory); "
            "the run is inconclusive\n",
            size, limit_bytes >> 20);
  else
    fprintf(stderr, "ismv: error: out of memory (allocating %zu bytes); the run is inconclusive\n", size);
  fflush(stdout);
  _exit(ALLOC_EXIT_OUT_OF_MEMORY);
}

#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_UNDER_ASAN 1
#endif
#endif
#ifdef ALLOC_UNDER_ASAN
/* AddressSanitizer's allocator replaces malloc's, and mallinfo2 with it;
 * its runtime (GCC's and clang's) answers this instead. */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_in_use(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}
#endif

/* Every ALLOC_CHECK_BYTES requested, the heap in use (every thread, the
 * solver's too) is compared with the limit. */
enum { ALLOC_CHECK_BYTES = 16 << 20 };
static void check_limit(size_t size) {
  if (!limit_bytes) return;
  if (size < limit_bytes && atomic_fetch_add(&since_check, size) + size < ALLOC_CHECK_BYTES) return;
  atomic_store(&since_check, 0);
  if (size >= limit_bytes || heap_in_use() + size > limit_bytes) alloc_out_of_memory(size);
}

void *xmalloc(size_t size) {
  check_limit(size);
  void *p = malloc(size ? size : 1);
  if (!p) alloc_out_of_memory(size);
  return p;
}

void *xcalloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) alloc_out_of_memory(SIZE_MAX);
  check_limit(count * size);
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) alloc_out_of_memory(count * size);
  return p;
}

void *xrealloc(void *ptr, size_t size) {
  check_limit(size);
  void *p = realloc(ptr, size ? size : 1);
  if (!p) alloc_out_of_memory(size);
  return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static char *vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *vformat(const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0) n = 0;
  char *p = xmalloc((size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = vformat(fmt, ap);
  va_end(ap);
  return p;
}

struct arena_block {
  arena_block_t *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void arena_init(arena_t *arena) { arena->head = NULL; }

void arena_free(arena_t *arena) {
  arena_block_t *b = arena->head;
  while (b) {
    arena_block_t *next = b->next;
    free(b);
    b = next;
  }
  arena->head = NULL;
}

void *arena_alloc(arena_t *arena, size_t size) {
  size = (size + 15) & ~(size_t)15;
  arena_block_t *b = arena->head;
  if (!b || b->size - b->used < size) {
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    b = xmalloc(sizeof *b + cap);
    b->size = cap;
    b->used = 0;
    b->next = arena->head;
    arena->head = b;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(arena_t *arena, const char *s, size_t n) {
  char *p = arena_alloc(arena, n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(arena_t *arena, const char *s) { return arena_strndup(arena, s, strlen(s)); }

char *arena_printf(arena_t *arena, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *tmp = vformat(fmt, ap);
  va_end(ap);
  char *p = arena_strdup(arena, tmp);
  free(tmp);
  return p;
}
