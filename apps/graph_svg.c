#include "apps/graph_svg.h"

#include <stdlib.h>
#include <string.h>

#ifdef ISMV_GRAPHVIZ
#include <gvc.h>
#include <gvplugin.h>
#endif

#include "ism/alloc.h"

void graph_dot_string(strbuf_t *sb, const char *s) {
  strbuf_putc(sb, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') strbuf_putc(sb, '\\');
    if (*s == '\n')
      strbuf_puts(sb, "\\n");
    else if ((unsigned char)*s >= 0x20)
      strbuf_putc(sb, *s);
  }
  strbuf_putc(sb, '"');
}

#ifdef ISMV_GRAPHVIZ

extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;

bool graph_svg_available(void) { return true; }

/* Graphviz 2.43's dot layout leaks the virtual edges it makes while breaking
 * cycles (acyclic -> virtual_edge -> new_virtual_edge, fixed in later
 * Graphviz); under AddressSanitizer the leak checker would fail every
 * drawing of a cyclic graph. Leaks whose allocation is Graphviz's own
 * gmalloc (libgvc; Graphviz's frames have no frame pointers, so the stack
 * stops there) are suppressed; ismv never allocates through gmalloc. */
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:gmalloc\n"; }
/* ... without the list of used suppressions on stderr. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }
#endif

/* Drops the prolog, DOCTYPE and comments before <svg, and the comments
 * inside (they repeat node names, unescaped for a browser's HTML parser
 * as `--`). */
static char *clean_svg(const char *data, size_t len) {
  const char *start = strstr(data, "<svg");
  if (!start) return NULL;
  strbuf_t sb;
  strbuf_init(&sb);
  const char *end = data + len;
  for (const char *p = start; p < end;) {
    const char *c = strstr(p, "<!--");
    if (!c || c >= end) {
      strbuf_putn(&sb, p, (size_t)(end - p));
      break;
    }
    strbuf_putn(&sb, p, (size_t)(c - p));
    const char *close = strstr(c + 4, "-->");
    if (!close) break;
    p = close + 3;
    if (*p == '\n') p++;
  }
  return strbuf_take(&sb);
}

char *graph_svg(const char *dot) {
  lt_symlist_t plugins[] = {{"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
                            {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
                            {NULL, NULL}};
  GVC_t *gvc = gvContextPlugins(plugins, 0);
  if (!gvc) return NULL;
  char *out = NULL;
  Agraph_t *g = agmemread(dot);
  if (g && gvLayout(gvc, g, "dot") == 0) {
    char *data = NULL;
    unsigned int len = 0;
    if (gvRenderData(gvc, g, "svg", &data, &len) == 0 && data) out = clean_svg(data, len);
    gvFreeRenderData(data);
    gvFreeLayout(gvc, g);
  }
  if (g) agclose(g);
  gvFreeContext(gvc);
  return out;
}

#else

bool graph_svg_available(void) { return false; }

char *graph_svg(const char *dot) {
  (void)dot;
  return NULL;
}

#endif
