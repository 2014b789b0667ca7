#include "ism/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ism/alloc.h"

void diag_init(diag_list_t *d) {
  memset(d, 0, sizeof *d);
  d->max_errors = 20;
}

void diag_free(diag_list_t *d) {
  for (size_t i = 0; i < d->count; i++) free(d->items[i].message);
  free(d->items);
  for (size_t i = 0; i < d->nsources; i++) {
    free(d->sources[i].path);
    free(d->sources[i].text);
  }
  free(d->sources);
  memset(d, 0, sizeof *d);
}

static void add(diag_list_t *d, diag_level_t level, loc_t loc, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void add(diag_list_t *d, diag_level_t level, loc_t loc, const char *fmt, va_list ap) {
  if (level == DIAG_ERROR) {
    if (d->errors >= d->max_errors) {
      d->dropped++;
      return;
    }
    d->errors++;
  }
  if (d->count == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 16;
    d->items = xrealloc(d->items, d->cap * sizeof *d->items);
  }
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  char *msg = xmalloc((size_t)(n > 0 ? n : 0) + 1);
  vsnprintf(msg, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
  d->items[d->count++] = (diag_t){level, loc, msg};
}

#define DEFINE_REPORTER(name, level)                                  \
  void name(diag_list_t *d, loc_t loc, const char *fmt, ...) {        \
    va_list ap;                                                       \
    va_start(ap, fmt);                                                \
    add(d, level, loc, fmt, ap);                                      \
    va_end(ap);                                                       \
  }
DEFINE_REPORTER(diag_error, DIAG_ERROR)
DEFINE_REPORTER(diag_warning, DIAG_WARNING)
DEFINE_REPORTER(diag_note, DIAG_NOTE)

void diag_verror(diag_list_t *d, loc_t loc, const char *fmt, va_list ap) { add(d, DIAG_ERROR, loc, fmt, ap); }

bool diag_has_errors(const diag_list_t *d) { return d->errors > 0 || d->dropped > 0; }

size_t diag_error_count(const diag_list_t *d) { return d->errors + d->dropped; }

const char *diag_add_source(diag_list_t *d, const char *path, const char *text) {
  for (size_t i = 0; i < d->nsources; i++)
    if (strcmp(d->sources[i].path, path) == 0) return d->sources[i].path;
  if (d->nsources == d->sources_cap) {
    d->sources_cap = d->sources_cap ? 2 * d->sources_cap : 8;
    d->sources = xrealloc(d->sources, d->sources_cap * sizeof *d->sources);
  }
  diag_source_t *s = &d->sources[d->nsources++];
  s->path = xstrdup(path);
  s->text = text ? xstrdup(text) : NULL;
  s->concealed = false;
  return s->path;
}

void diag_source_conceal(diag_list_t *d, const char *file) {
  for (size_t i = 0; file && i < d->nsources; i++)
    if (strcmp(d->sources[i].path, file) == 0) d->sources[i].concealed = true;
}

/* Whether text holds a control character other than white space, or bytes
 * that are not UTF-8: no source file of any format we read does. */
static bool looks_binary(const unsigned char *p) {
  while (*p) {
    if (*p < 0x20 && !strchr("\t\n\r\f\v", *p)) return true;
    if (*p == 0x7f) return true;
    int more = *p < 0x80             ? 0
               : (*p & 0xe0) == 0xc0 ? 1
               : (*p & 0xf0) == 0xe0 ? 2
               : (*p & 0xf8) == 0xf0 ? 3
                                     : -1;
    /* a stray continuation byte, or an overlong 0xc0/0xc1 */
    if (more < 0 || (*p & 0xfe) == 0xc0) return true;
    p++;
    for (; more > 0; more--, p++)
      if ((*p & 0xc0) != 0x80) return true;
  }
  return false;
}

bool diag_source_conceal_binary(diag_list_t *d, const char *file) {
  for (size_t i = 0; file && i < d->nsources; i++)
    if (strcmp(d->sources[i].path, file) == 0 && d->sources[i].text &&
        looks_binary((const unsigned char *)d->sources[i].text)) {
      d->sources[i].concealed = true;
      return true;
    }
  return false;
}

bool diag_source_span(const diag_list_t *d, const char *file, int line, const char **text, size_t *len) {
  if (!file || line < 1) return false;
  for (size_t i = 0; i < d->nsources; i++) {
    if (strcmp(d->sources[i].path, file) != 0 || !d->sources[i].text) continue;
    if (d->sources[i].concealed) return false;
    const char *p = d->sources[i].text;
    for (int l = 1; l < line; l++) {
      p = strchr(p, '\n');
      if (!p) return false;
      p++;
    }
    *text = p;
    *len = strcspn(p, "\r\n");
    return true;
  }
  return false;
}

bool diag_source_line(const diag_list_t *d, const char *file, int line, char *buf, size_t size) {
  const char *p;
  size_t n;
  if (size == 0 || !diag_source_span(d, file, line, &p, &n)) return false;
  if (n >= size) n = size - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return true;
}

/* Reads a regular file of at most DIAG_MAX_FILE_SIZE bytes into a fresh
 * string, or returns NULL with a reason. Opened without blocking, so a FIFO
 * is refused instead of waited on. */
static char *read_regular(const char *path, size_t *length, const char **why) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return *why = strerror(errno), NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *why = S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file";
    close(fd);
    return NULL;
  }
  if (st.st_size > DIAG_MAX_FILE_SIZE) {
    *why = "larger than " DIAG_MAX_FILE_SIZE_TEXT;
    close(fd);
    return NULL;
  }
  size_t cap = (size_t)st.st_size + 2, len = 0;
  char *text = xmalloc(cap);
  for (;;) {
    ssize_t n = read(fd, text + len, cap - len - 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) *why = strerror(errno);
      break;
    }
    len += (size_t)n;
    if (len > DIAG_MAX_FILE_SIZE) {
      *why = "larger than " DIAG_MAX_FILE_SIZE_TEXT;
      break;
    }
    if (len == cap - 1) text = xrealloc(text, cap *= 2);
  }
  close(fd);
  if (*why) return free(text), NULL;
  text[len] = '\0';
  *length = len;
  return text;
}

const char *diag_read_file(diag_list_t *d, const char *path, loc_t from, const char **path_out) {
  const char *why = NULL;
  size_t len = 0;
  char *text = read_regular(path, &len, &why);
  if (!text || memchr(text, '\0', len)) {
    diag_error(d, from, "cannot read '%s': %s", path, text ? "not a text file" : why);
    free(text);
    return NULL;
  }
  const char *registered = diag_add_source(d, path, text);
  free(text);
  if (path_out) *path_out = registered;
  for (size_t i = 0; i < d->nsources; i++)
    if (d->sources[i].path == registered) return d->sources[i].text;
  return NULL;
}

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and transpositions of two neighbouring letters each count one. */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return (size_t)-1;
  size_t d[65][65];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[la][lb];
}

const char *diag_suggest(const char *word, const char *const *candidates, size_t n) {
  /* One edit in every three letters; a one- or two-letter name is too
   * short to guess from (any other short name is one edit away). */
  size_t len = strlen(word);
  if (len <= 2) return NULL;
  size_t limit = len / 3 > 1 ? len / 3 : 1;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (size_t i = 0; i < n; i++) {
    size_t dist = edit_distance(word, candidates[i]);
    if (dist < best_d) {
      best_d = dist;
      best = candidates[i];
    }
  }
  return best;
}
