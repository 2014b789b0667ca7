/* Diagnostics as data. Loaders and checkers append located errors,
 * warnings and notes to a diag_list_t and carry on; they never print or
 * exit. apps/ renders the list GCC style. The list also keeps the text of
 * every source file it has seen, so a renderer can show the line and a caret. */
#ifndef ISM_DIAG_H
#define ISM_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* A position in a source file. line and col are 1-based; 0 means unknown.
 * file is borrowed: it points into the diag_list_t's file table or to a
 * string that outlives every diagnostic. */
typedef struct {
  const char *file;
  int line;
  int col;
} loc_t;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } diag_level_t;

typedef struct {
  diag_level_t level;
  loc_t loc;
  char *message; /* owned; lower-case, no trailing period */
} diag_t;

typedef struct {
  char *path; /* owned */
  char *text; /* owned, may be NULL when the file could not be read */
  bool concealed; /* not the format expected: its lines are never shown */
} diag_source_t;

typedef struct {
  diag_t *items;
  size_t count, cap;
  size_t errors;     /* number of DIAG_ERROR items recorded */
  size_t dropped;    /* errors not recorded because max_errors was reached */
  size_t max_errors; /* cap on recorded errors; default 20 */
  diag_source_t *sources;
  size_t nsources, sources_cap;
} diag_list_t;

void diag_init(diag_list_t *d);
void diag_free(diag_list_t *d);

void diag_error(diag_list_t *d, loc_t loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(diag_list_t *d, loc_t loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(diag_list_t *d, loc_t loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* diag_error for callers that take their own variable arguments. */
void diag_verror(diag_list_t *d, loc_t loc, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
bool diag_has_errors(const diag_list_t *d);
/* Errors reported so far, recorded or dropped past max_errors: the number to
 * compare before and after a step (`errors` alone stops growing at the cap,
 * so a step's errors past it would go unseen). */
size_t diag_error_count(const diag_list_t *d);

/* Registers a file's text (copied) and returns the stable path string to
 * use in loc_t.file. Registering the same path twice returns the first copy. */
const char *diag_add_source(diag_list_t *d, const char *path, const char *text);
/* Marks a registered file as not of the expected format (a system file
 * named by mistake, a binary): diagnostics on it keep their location but
 * never show its lines. */
void diag_source_conceal(diag_list_t *d, const char *file);
/* Conceals a registered file when it is no text (a control character other
 * than white space, or bytes that are not UTF-8: an image, an archive, an
 * executable); returns whether it did. */
bool diag_source_conceal_binary(diag_list_t *d, const char *file);
/* Line `line` of `file` in place (never of a concealed file): its first character and its length
 * (without the newline); false when unknown. */
bool diag_source_span(const diag_list_t *d, const char *file, int line, const char **text, size_t *len);
/* The text of line `line` of `file` (without newline) into buf, or false. */
bool diag_source_line(const diag_list_t *d, const char *file, int line, char *buf, size_t size);

/* Reads a whole file into a fresh NUL-terminated string registered as a
 * source. On failure reports "cannot read 'path': reason" at `from` and
 * returns NULL: also for anything but a regular file (a FIFO or device is
 * refused, not waited on), a file over DIAG_MAX_FILE_SIZE bytes, or one
 * holding a NUL byte. *path_out (optional) receives the registered path. */
#define DIAG_MAX_FILE_SIZE (64L << 20)
#define DIAG_MAX_FILE_SIZE_TEXT "64 MiB"
const char *diag_read_file(diag_list_t *d, const char *path, loc_t from, const char **path_out);

/* The candidate closest to word by edit distance, if close enough to be a
 * plausible typo (distance <= max(1, len/3), a swap of neighbours counting
 * one; never for names of one or two letters); otherwise NULL. */
const char *diag_suggest(const char *word, const char *const *candidates, size_t n);

#endif
