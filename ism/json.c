#include "ism/json.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ism/strbuf.h"
#include "ism/vec.h"

/* The parser's state; a syntax error longjmps back to json_parse after
 * recording its diagnostic, so every temporary is owned by the arena or
 * by `open`. */
typedef struct {
  const char *file, *s, *p, *line_start;
  int line;
  arena_t *arena;
  diag_list_t *diags;
  jmp_buf fail;
  VEC(void *) open; /* heap blocks of the values being built (freed after a failure) */
} parser_t;

static loc_t here(const parser_t *ps) {
  return (loc_t){ps->file, ps->line, (int)(ps->p - ps->line_start) + 1};
}

static _Noreturn void fail(parser_t *ps, const char *message) {
  diag_error(ps->diags, here(ps), "%s", message);
  longjmp(ps->fail, 1);
}

/* What the next character is, for messages. */
static const char *token_name(const parser_t *ps, char buf[8]) {
  unsigned char c = (unsigned char)*ps->p;
  if (!c) return "end of file";
  if (c < 0x20 || c >= 0x7f) {
    snprintf(buf, 8, "\\x%02x", c);
    return buf;
  }
  buf[0] = (char)c, buf[1] = '\0';
  return buf;
}

static _Noreturn void unexpected(parser_t *ps, const char *wanted) {
  char buf[8], msg[96];
  snprintf(msg, sizeof msg, "expected %s, found '%s'", wanted, token_name(ps, buf));
  fail(ps, msg);
}

static void skip_space(parser_t *ps) {
  for (;;) {
    char c = *ps->p;
    if (c == '\n') {
      ps->line++;
      ps->line_start = ++ps->p;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ps->p++;
    } else {
      return;
    }
  }
}

static void expect_word(parser_t *ps, const char *word) {
  size_t n = strlen(word);
  if (strncmp(ps->p, word, n) != 0) unexpected(ps, "a value");
  ps->p += n;
}

static void parse_number(parser_t *ps, json_t *v) {
  const char *start = ps->p, *q = ps->p;
  if (*q == '-') q++;
  if (*q == '0') {
    q++;
  } else if (*q >= '1' && *q <= '9') {
    while (*q >= '0' && *q <= '9') q++;
  } else {
    ps->p = q;
    unexpected(ps, "a digit");
  }
  if (*q == '.') {
    q++;
    if (!(*q >= '0' && *q <= '9')) ps->p = q, unexpected(ps, "a digit after '.'");
    while (*q >= '0' && *q <= '9') q++;
  }
  if (*q == 'e' || *q == 'E') {
    q++;
    if (*q == '+' || *q == '-') q++;
    if (!(*q >= '0' && *q <= '9')) ps->p = q, unexpected(ps, "a digit in the exponent");
    while (*q >= '0' && *q <= '9') q++;
  }
  v->kind = JSON_NUMBER;
  v->text = arena_strndup(ps->arena, start, (size_t)(q - start));
  v->number = strtod(v->text, NULL);
  ps->p = q;
}

static int hex4(parser_t *ps) {
  int x = 0;
  for (int i = 0; i < 4; i++) {
    char c = *ps->p;
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) unexpected(ps, "four hexadecimal digits after '\\u'");
    x = x * 16 + d;
    ps->p++;
  }
  return x;
}

static void put_utf8(strbuf_t *sb, uint32_t cp) {
  if (cp < 0x80) {
    strbuf_putc(sb, (char)cp);
  } else if (cp < 0x800) {
    strbuf_putc(sb, (char)(0xc0 | cp >> 6));
    strbuf_putc(sb, (char)(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    strbuf_putc(sb, (char)(0xe0 | cp >> 12));
    strbuf_putc(sb, (char)(0x80 | (cp >> 6 & 0x3f)));
    strbuf_putc(sb, (char)(0x80 | (cp & 0x3f)));
  } else {
    strbuf_putc(sb, (char)(0xf0 | cp >> 18));
    strbuf_putc(sb, (char)(0x80 | (cp >> 12 & 0x3f)));
    strbuf_putc(sb, (char)(0x80 | (cp >> 6 & 0x3f)));
    strbuf_putc(sb, (char)(0x80 | (cp & 0x3f)));
  }
}

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, at most U+10FFFF), or 0. */
static int utf8_length(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  int n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
          : s[0] >= 0xe0 && s[0] <= 0xef ? 3
          : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                         : 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
  if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
  return n;
}

static void parse_escape(parser_t *ps, strbuf_t *sb) {
  char c = *ps->p++;
  switch (c) {
  case '"': strbuf_putc(sb, '"'); return;
  case '\\': strbuf_putc(sb, '\\'); return;
  case '/': strbuf_putc(sb, '/'); return;
  case 'b': strbuf_putc(sb, '\b'); return;
  case 'f': strbuf_putc(sb, '\f'); return;
  case 'n': strbuf_putc(sb, '\n'); return;
  case 'r': strbuf_putc(sb, '\r'); return;
  case 't': strbuf_putc(sb, '\t'); return;
  case 'u': break;
  default: ps->p--; unexpected(ps, "an escape (one of \"\\/bfnrtu) after '\\'");
  }
  const char *at = ps->p - 2;
  uint32_t cp = (uint32_t)hex4(ps);
  if (cp >= 0xd800 && cp <= 0xdbff && ps->p[0] == '\\' && ps->p[1] == 'u') {
    ps->p += 2;
    uint32_t lo = (uint32_t)hex4(ps);
    if (lo < 0xdc00 || lo > 0xdfff) ps->p = at, fail(ps, "unpaired UTF-16 surrogate in '\\u' escape");
    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
  } else if (cp >= 0xd800 && cp <= 0xdfff) {
    ps->p = at;
    fail(ps, "unpaired UTF-16 surrogate in '\\u' escape");
  }
  if (cp == 0) ps->p = at, fail(ps, "'\\u0000' is not supported in strings");
  put_utf8(sb, cp);
}

static const char *parse_string(parser_t *ps) {
  if (*ps->p != '"') unexpected(ps, "'\"'");
  ps->p++;
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_putc(&sb, '\0'); /* allocate, so the buffer can be registered */
  sb.len = 0;
  VEC_PUSH(&ps->open, sb.data);
  for (;;) {
    unsigned char c = (unsigned char)*ps->p;
    if (c == '"') break;
    if (c == '\0') fail(ps, "unterminated string");
    if (c < 0x20) fail(ps, "control character in string (write it as an escape)");
    if (c == '\\') {
      ps->p++;
      parse_escape(ps, &sb);
    } else {
      int n = utf8_length((const unsigned char *)ps->p);
      if (!n) fail(ps, "invalid UTF-8 in string");
      strbuf_putn(&sb, ps->p, (size_t)n);
      ps->p += n;
    }
    ps->open.data[ps->open.len - 1] = sb.data;
  }
  ps->p++;
  const char *s = arena_strndup(ps->arena, sb.data, sb.len);
  ps->open.len--;
  strbuf_free(&sb);
  return s;
}

static json_t *parse_value(parser_t *ps, int depth);

/* Copies the temporary list into the arena and drops it from `open`. */
static void **settle(parser_t *ps, void **tmp, size_t n) {
  void **out = arena_alloc(ps->arena, (n ? n : 1) * sizeof *out);
  if (n) memcpy(out, tmp, n * sizeof *out);
  ps->open.len--;
  free(tmp);
  return out;
}

static void parse_array(parser_t *ps, json_t *v, int depth) {
  VEC(json_t *) items = {0};
  VEC_PUSH(&ps->open, NULL);
  ps->p++;
  skip_space(ps);
  if (*ps->p != ']')
    for (;;) {
      json_t *item = parse_value(ps, depth + 1);
      VEC_PUSH(&items, item);
      ps->open.data[ps->open.len - 1] = items.data;
      skip_space(ps);
      if (*ps->p == ']') break;
      if (*ps->p != ',') unexpected(ps, "',' or ']'");
      ps->p++;
    }
  ps->p++;
  v->kind = JSON_ARRAY;
  v->len = items.len;
  v->items = (json_t **)settle(ps, (void **)items.data, items.len);
}

static void parse_object(parser_t *ps, json_t *v, int depth) {
  VEC(json_t *) items = {0};
  VEC(const char *) keys = {0};
  VEC_PUSH(&ps->open, NULL);
  VEC_PUSH(&ps->open, NULL);
  ps->p++;
  skip_space(ps);
  if (*ps->p != '}')
    for (;;) {
      if (*ps->p != '"') unexpected(ps, "a key string");
      loc_t at = here(ps);
      const char *key = parse_string(ps);
      for (size_t i = 0; i < keys.len; i++)
        if (strcmp(keys.data[i], key) == 0) {
          diag_error(ps->diags, at, "duplicate key '%s'", key);
          longjmp(ps->fail, 1);
        }
      skip_space(ps);
      if (*ps->p != ':') unexpected(ps, "':'");
      ps->p++;
      json_t *item = parse_value(ps, depth + 1);
      VEC_PUSH(&keys, key);
      VEC_PUSH(&items, item);
      ps->open.data[ps->open.len - 2] = (void *)keys.data;
      ps->open.data[ps->open.len - 1] = items.data;
      skip_space(ps);
      if (*ps->p == '}') break;
      if (*ps->p != ',') unexpected(ps, "',' or '}'");
      ps->p++;
      skip_space(ps);
    }
  ps->p++;
  v->kind = JSON_OBJECT;
  v->len = items.len;
  v->items = (json_t **)settle(ps, (void **)items.data, items.len);
  v->keys = (const char **)settle(ps, (void **)keys.data, keys.len);
}

static json_t *parse_value(parser_t *ps, int depth) {
  skip_space(ps);
  json_t *v = arena_alloc(ps->arena, sizeof *v);
  v->loc = here(ps);
  if ((*ps->p == '[' || *ps->p == '{') && depth >= JSON_MAX_DEPTH) {
    char msg[64];
    snprintf(msg, sizeof msg, "nesting deeper than %d levels", JSON_MAX_DEPTH);
    fail(ps, msg);
  }
  switch (*ps->p) {
  case '{': parse_object(ps, v, depth); break;
  case '[': parse_array(ps, v, depth); break;
  case '"':
    v->kind = JSON_STRING;
    v->text = parse_string(ps);
    break;
  case 't': expect_word(ps, "true"), v->kind = JSON_BOOL, v->boolean = true; break;
  case 'f': expect_word(ps, "false"), v->kind = JSON_BOOL; break;
  case 'n': expect_word(ps, "null"), v->kind = JSON_NULL; break;
  default:
    if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
      parse_number(ps, v);
    else
      unexpected(ps, "a value");
  }
  return v;
}

json_doc_t *json_parse(const char *file, const char *text, diag_list_t *diags) {
  json_doc_t *doc = xcalloc(1, sizeof *doc);
  arena_init(&doc->arena);
  parser_t *ps = xcalloc(1, sizeof *ps);
  *ps = (parser_t){.file = file,
                   .s = text,
                   .p = text,
                   .line_start = text,
                   .line = 1,
                   .arena = &doc->arena,
                   .diags = diags};
  if (setjmp(ps->fail) == 0) {
    skip_space(ps);
    /* a file whose first token starts no JSON value (a system file named
     * by mistake) or that is no text: its lines and bytes are never echoed */
    bool binary = diag_source_conceal_binary(diags, file);
    if (*ps->p && (binary || !strchr("{[\"tfn-0123456789", *ps->p))) {
      diag_source_conceal(diags, file);
      fail(ps, "expected a JSON value at the start of the file: is this a JSON file?");
    }
    doc->root = parse_value(ps, 0);
    skip_space(ps);
    if (*ps->p) unexpected(ps, "end of file after the value");
  } else {
    for (size_t i = 0; i < ps->open.len; i++) free(ps->open.data[i]);
    json_free(doc);
    doc = NULL;
  }
  VEC_FREE(&ps->open);
  free(ps);
  return doc;
}

json_doc_t *json_load(const char *path, diag_list_t *diags) {
  const char *file = NULL;
  const char *text = diag_read_file(diags, path, (loc_t){0}, &file);
  if (!text) return NULL;
  return json_parse(file, text, diags);
}

void json_free(json_doc_t *doc) {
  if (!doc) return;
  arena_free(&doc->arena);
  free(doc);
}

const json_t *json_get(const json_t *o, const char *key) {
  if (!o || o->kind != JSON_OBJECT) return NULL;
  for (size_t i = 0; i < o->len; i++)
    if (strcmp(o->keys[i], key) == 0) return o->items[i];
  return NULL;
}

const char *json_str(const json_t *o, const char *key, const char *fallback) {
  const json_t *v = json_get(o, key);
  return v && v->kind == JSON_STRING ? v->text : fallback;
}

double json_num(const json_t *o, const char *key, double fallback) {
  const json_t *v = json_get(o, key);
  return v && v->kind == JSON_NUMBER ? v->number : fallback;
}

bool json_bool(const json_t *o, const char *key, bool fallback) {
  const json_t *v = json_get(o, key);
  return v && v->kind == JSON_BOOL ? v->boolean : fallback;
}

const json_t *json_array(const json_t *o, const char *key) {
  const json_t *v = json_get(o, key);
  return v && v->kind == JSON_ARRAY ? v : NULL;
}
