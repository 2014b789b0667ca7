#include "verifier/lts/eofm.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "ism/strbuf.h"

static const char *const op_names[] = {"ord",       "and_seq",   "and_par", "or_seq", "or_par",
                                       "optor_seq", "optor_par", "xor",     "sync"};

const char *eofm_op_name(eofm_op_t op) { return op_names[op]; }

/* An activitylink waiting for every activity to be known. */
typedef struct {
  int parent;  /* the activity whose decomposition holds the link */
  size_t slot; /* index in the parent's children */
  const char *name;
  loc_t loc;
} pending_link_t;

typedef struct {
  eofm_t *m;
  diag_list_t *d;
  const char *src; /* the registered text, for columns */
  VEC(pending_link_t) links;
  /* conditions are checked once every name is known */
  VEC(int) cond_nodes;
} reader_t;

/* ------------------------------------------------------------ locations */

/* Offset of the first byte of 1-based `line` in src, or -1. */
static long line_offset(const char *src, int line) {
  long off = 0;
  for (int l = 1; l < line; l++) {
    const char *nl = strchr(src + off, '\n');
    if (!nl) return -1;
    off = nl - src + 1;
  }
  return off;
}

static loc_t loc_of_offset(const reader_t *r, long off) {
  loc_t loc = {r->m->path, 1, 1};
  for (long i = 0; i < off && r->src[i]; i++) {
    if (r->src[i] == '\n')
      loc.line++, loc.col = 1;
    else
      loc.col++;
  }
  return loc;
}

/* The offset of the start tag of element `n` ("<name" on its line). */
static long tag_offset(const reader_t *r, const xmlNode *n) {
  long line = xmlGetLineNo(n);
  long off = line_offset(r->src, (int)line);
  if (off < 0) return 0;
  char pat[128];
  snprintf(pat, sizeof pat, "<%s", (const char *)n->name);
  const char *eol = strchr(r->src + off, '\n');
  const char *hit = strstr(r->src + off, pat);
  if (hit && (!eol || hit < eol)) return hit - r->src;
  return off;
}

static loc_t node_loc(const reader_t *r, const xmlNode *n) { return loc_of_offset(r, tag_offset(r, n)); }

/* ------------------------------------------------------------ helpers */

static const char *attr(reader_t *r, const xmlNode *n, const char *name) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  if (!v) return NULL;
  char *s = arena_strdup(&r->m->arena, (const char *)v);
  xmlFree(v);
  return s;
}

static const char *require_attr(reader_t *r, const xmlNode *n, const char *name) {
  const char *v = attr(r, n, name);
  if (!v || !*v) diag_error(r->d, node_loc(r, n), "<%s> needs a '%s' attribute", (const char *)n->name, name);
  return v && *v ? v : NULL;
}

/* The element's text with surrounding blanks trimmed (arena copy). */
static const char *text_of(reader_t *r, const xmlNode *n) {
  xmlChar *v = xmlNodeGetContent(n);
  const char *s = v ? (const char *)v : "";
  while (isspace((unsigned char)*s)) s++;
  size_t len = strlen(s);
  while (len && isspace((unsigned char)s[len - 1])) len--;
  char *out = arena_strndup(&r->m->arena, s, len);
  xmlFree(v);
  return out;
}

static bool is(const xmlNode *n, const char *name) { return strcmp((const char *)n->name, name) == 0; }

/* Every element child must be one of `allowed`; text must be blank. */
static void check_children(reader_t *r, const xmlNode *n, const char *const *allowed, size_t nallowed) {
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) {
      size_t i = 0;
      while (i < nallowed && !is(c, allowed[i])) i++;
      if (i == nallowed) {
        const char *s = diag_suggest((const char *)c->name, allowed, nallowed);
        if (s)
          diag_error(r->d, node_loc(r, c), "unknown element <%s> in <%s> (did you mean <%s>?)", c->name,
                     n->name, s);
        else
          diag_error(r->d, node_loc(r, c), "unknown element <%s> in <%s>", c->name, n->name);
      }
    }
  }
}

/* Whether `name` is already a type, type value, constant, variable or human action. */
static bool name_taken(const eofm_t *m, const char *name) {
  long long v;
  if (eofm_value(m, name, &v)) return true;
  for (size_t i = 0; i < m->types.len; i++)
    if (strcmp(m->types.data[i].name, name) == 0) return true;
  for (size_t i = 0; i < m->vars.len; i++)
    if (strcmp(m->vars.data[i].name, name) == 0) return true;
  for (size_t i = 0; i < m->hactions.len; i++)
    if (strcmp(m->hactions.data[i].name, name) == 0) return true;
  return false;
}

static bool declare(reader_t *r, const char *name, loc_t loc) {
  if (!name) return false;
  if (name_taken(r->m, name)) {
    diag_error(r->d, loc, "'%s' is declared twice", name);
    return false;
  }
  return true;
}

bool eofm_value(const eofm_t *m, const char *name, long long *out) {
  for (size_t i = 0; i < m->types.len; i++)
    for (size_t k = 0; k < m->types.data[i].nvalues; k++)
      if (strcmp(m->types.data[i].values[k], name) == 0) {
        *out = (long long)k;
        return true;
      }
  for (size_t i = 0; i < m->consts.len; i++)
    if (strcmp(m->consts.data[i].name, name) == 0) {
      *out = m->consts.data[i].value;
      return true;
    }
  return false;
}

/* ------------------------------------------------------------ declarations */

static bool ident_ok(const char *s) {
  if (!isalpha((unsigned char)*s) && *s != '_') return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

static void read_type(reader_t *r, const xmlNode *n) {
  const char *name = require_attr(r, n, "name");
  loc_t loc = node_loc(r, n);
  const char *text = text_of(r, n);
  size_t len = strlen(text);
  if (len < 2 || text[0] != '{' || text[len - 1] != '}') {
    diag_error(r->d, loc, "type '%s' must list its values as {A, B, ...}", name ? name : "?");
    return;
  }
  if (!declare(r, name, loc)) return;
  VEC(const char *) values = {0};
  char *body = arena_strndup(&r->m->arena, text + 1, len - 2);
  for (char *save = NULL, *tok = strtok_r(body, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    while (isspace((unsigned char)*tok)) tok++;
    size_t l = strlen(tok);
    while (l && isspace((unsigned char)tok[l - 1])) tok[--l] = '\0';
    if (!ident_ok(tok)) {
      diag_error(r->d, loc, "type '%s': '%s' is not a value name", name, tok);
      continue;
    }
    if (name_taken(r->m, tok)) {
      diag_error(r->d, loc, "type '%s': '%s' is declared twice", name, tok);
      continue;
    }
    for (size_t i = 0; i < values.len; i++)
      if (strcmp(values.data[i], tok) == 0) diag_error(r->d, loc, "type '%s' lists '%s' twice", name, tok);
    VEC_PUSH(&values, tok);
  }
  if (values.len == 0) diag_error(r->d, loc, "type '%s' has no values", name);
  eofm_type_t t = {name, arena_alloc(&r->m->arena, (values.len + 1) * sizeof(char *)), values.len, loc};
  if (values.len) memcpy(t.values, values.data, values.len * sizeof(char *));
  VEC_FREE(&values);
  VEC_PUSH(&r->m->types, t);
}

static int find_type(const eofm_t *m, const char *name) {
  for (size_t i = 0; i < m->types.len; i++)
    if (strcmp(m->types.data[i].name, name) == 0) return (int)i;
  return -1;
}

static void unknown_type(reader_t *r, loc_t loc, const char *name) {
  VEC(const char *) cands = {0};
  for (size_t i = 0; i < r->m->types.len; i++) VEC_PUSH(&cands, r->m->types.data[i].name);
  const char *s = diag_suggest(name, cands.data, cands.len);
  if (s)
    diag_error(r->d, loc, "unknown type '%s' (did you mean '%s'?)", name, s);
  else
    diag_error(r->d, loc, "unknown type '%s'", name);
  VEC_FREE(&cands);
}

/* Reads the type attributes of a variable or constant into *type, *lo, *hi. */
static bool read_var_type(reader_t *r, const xmlNode *n, int *type, long long *lo, long long *hi) {
  const char *udt = attr(r, n, "userdefinedtype"), *basic = attr(r, n, "basictype");
  loc_t loc = node_loc(r, n);
  *type = -1, *lo = 0, *hi = 1;
  if (udt) {
    *type = find_type(r->m, udt);
    if (*type < 0)
      unknown_type(r, loc, udt);
    else
      *hi = (long long)r->m->types.data[*type].nvalues - 1;
    return *type >= 0;
  }
  if (!basic) {
    diag_error(r->d, loc, "<%s> needs a 'userdefinedtype' or 'basictype' attribute", n->name);
    return false;
  }
  if (strcmp(basic, "BOOLEAN") == 0 || strcmp(basic, "boolean") == 0) return true;
  if (strcmp(basic, "INTEGER") == 0 || strcmp(basic, "integer") == 0 || strcmp(basic, "NATURAL") == 0 ||
      strcmp(basic, "natural") == 0) {
    const char *l = attr(r, n, "lower"), *h = attr(r, n, "upper");
    *lo = l ? strtoll(l, NULL, 10) : 0;
    *hi = h ? strtoll(h, NULL, 10) : 1;
    if (*hi < *lo) {
      diag_error(r->d, loc, "empty range %lld..%lld", *lo, *hi);
      return false;
    }
    return true;
  }
  diag_error(r->d, loc, "unknown basic type '%s' (use INTEGER, NATURAL or BOOLEAN)", basic);
  return false;
}

static void read_const(reader_t *r, const xmlNode *n) {
  const char *name = require_attr(r, n, "name");
  loc_t loc = node_loc(r, n);
  int type;
  long long lo, hi;
  if (!read_var_type(r, n, &type, &lo, &hi) || !declare(r, name, loc)) return;
  const char *text = text_of(r, n);
  long long v = 0;
  char *end = NULL;
  if (type >= 0 ? !eofm_value(r->m, text, &v) : (v = strtoll(text, &end, 10), !*text || *end)) {
    diag_error(r->d, loc, "constant '%s': '%s' is not a value of its type", name, text);
    return;
  }
  VEC_PUSH(&r->m->consts, ((eofm_const_t){name, v, loc}));
}

static void read_var(reader_t *r, const xmlNode *n, bool local) {
  const char *name = require_attr(r, n, "name");
  loc_t loc = node_loc(r, n);
  eofm_var_t v = {name, -1, 0, 1, local, NULL, loc};
  if (!read_var_type(r, n, &v.type, &v.lo, &v.hi) || !declare(r, name, loc)) return;
  if (local) {
    for (const xmlNode *c = n->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE && is(c, "initialvalue")) v.initial = text_of(r, c);
    if (!v.initial) diag_error(r->d, loc, "local variable '%s' needs an <initialvalue>", name);
  }
  VEC_PUSH(&r->m->vars, v);
}

static void read_haction(reader_t *r, const xmlNode *n) {
  const char *name = require_attr(r, n, "name");
  loc_t loc = node_loc(r, n);
  if (name && !ident_ok(name)) {
    diag_error(r->d, loc, "human action '%s' is not an identifier", name);
    return;
  }
  if (!declare(r, name, loc)) return;
  const char *behavior = attr(r, n, "behavior");
  VEC_PUSH(&r->m->hactions, ((eofm_haction_t){name, behavior ? behavior : "autoreset", loc}));
}

/* ------------------------------------------------------------ activities */

static int new_node(eofm_t *m, eofm_node_kind_t kind, const char *name, loc_t loc) {
  eofm_node_t nd;
  memset(&nd, 0, sizeof nd);
  nd.kind = kind, nd.name = name, nd.loc = loc, nd.haction = -1, nd.local = -1;
  VEC_PUSH(&m->nodes, nd);
  return (int)m->nodes.len - 1;
}

static int find_haction(const eofm_t *m, const char *name) {
  for (size_t i = 0; i < m->hactions.len; i++)
    if (strcmp(m->hactions.data[i].name, name) == 0) return (int)i;
  return -1;
}

static int read_action(reader_t *r, const xmlNode *n) {
  const char *ha = attr(r, n, "humanaction"), *lv = attr(r, n, "localvariable");
  loc_t loc = node_loc(r, n);
  if (!ha && !lv) {
    diag_error(r->d, loc, "<action> needs a 'humanaction' or 'localvariable' attribute");
    return -1;
  }
  int id = new_node(r->m, EOFM_ACTION, ha ? ha : lv, loc);
  eofm_node_t *nd = &r->m->nodes.data[id];
  if (ha) {
    nd->haction = find_haction(r->m, ha);
    if (nd->haction < 0) {
      VEC(const char *) cands = {0};
      for (size_t i = 0; i < r->m->hactions.len; i++) VEC_PUSH(&cands, r->m->hactions.data[i].name);
      const char *s = diag_suggest(ha, cands.data, cands.len);
      if (s)
        diag_error(r->d, loc, "action '%s' is not a declared human action (did you mean '%s'?)", ha, s);
      else
        diag_error(r->d, loc, "action '%s' is not a declared human action (add <humanaction name=\"%s\"/>)",
                   ha, ha);
      VEC_FREE(&cands);
    }
  } else {
    for (size_t i = 0; i < r->m->vars.len; i++)
      if (r->m->vars.data[i].local && strcmp(r->m->vars.data[i].name, lv) == 0) nd->local = (int)i;
    if (nd->local < 0) diag_error(r->d, loc, "action assigns '%s', which is not a local variable", lv);
    nd->value = text_of(r, n);
  }
  return id;
}

static int read_activity(reader_t *r, const xmlNode *n);

static void read_decomposition(reader_t *r, int act, const xmlNode *n) {
  static const char *const kids[] = {"activity", "activitylink", "action"};
  const char *op = require_attr(r, n, "operator");
  loc_t loc = node_loc(r, n);
  if (op) {
    size_t i = 0;
    while (i < sizeof op_names / sizeof *op_names && strcmp(op, op_names[i]) != 0) i++;
    if (i == sizeof op_names / sizeof *op_names) {
      const char *s = diag_suggest(op, op_names, sizeof op_names / sizeof *op_names);
      if (s)
        diag_error(r->d, loc, "unknown operator '%s' (did you mean '%s'?)", op, s);
      else
        diag_error(
            r->d, loc,
            "unknown operator '%s' (ord, and_seq, and_par, or_seq, or_par, optor_seq, optor_par, xor, sync)",
            op);
    } else
      r->m->nodes.data[act].op = (eofm_op_t)i;
  }
  check_children(r, n, kids, 3);
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    int child = -1;
    if (is(c, "activity"))
      child = read_activity(r, c);
    else if (is(c, "action"))
      child = read_action(r, c);
    else if (is(c, "activitylink")) {
      const char *link = require_attr(r, c, "link");
      if (link) {
        VEC_PUSH(&r->links,
                 ((pending_link_t){act, r->m->nodes.data[act].children.len, link, node_loc(r, c)}));
        VEC_PUSH(&r->m->nodes.data[act].children, -1);
      }
      continue;
    }
    if (child >= 0) VEC_PUSH(&r->m->nodes.data[act].children, child);
  }
  if (r->m->nodes.data[act].children.len == 0)
    diag_error(r->d, loc, "decomposition of '%s' has no activity or action", r->m->nodes.data[act].name);
}

static int read_activity(reader_t *r, const xmlNode *n) {
  static const char *const kids[] = {"precondition", "completioncondition", "repeatcondition",
                                     "decomposition"};
  const char *name = require_attr(r, n, "name");
  loc_t loc = node_loc(r, n);
  if (name && !ident_ok(name)) diag_error(r->d, loc, "activity name '%s' is not an identifier", name);
  int id = new_node(r->m, EOFM_ACTIVITY, name ? name : "?", loc);
  check_children(r, n, kids, 4);
  int ndecomp = 0;
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    eofm_cond_t cond = {NULL, NULL, {0}};
    if (is(c, "decomposition")) {
      if (ndecomp++)
        diag_error(r->d, node_loc(r, c), "activity '%s' has more than one <decomposition>", name);
      else
        read_decomposition(r, id, c);
      continue;
    }
    if (!is(c, "precondition") && !is(c, "completioncondition") && !is(c, "repeatcondition")) continue;
    cond.text = text_of(r, c);
    /* the text's own position: after the start tag's '>' */
    long off = tag_offset(r, c);
    const char *gt = strchr(r->src + off, '>');
    if (gt) {
      off = gt - r->src + 1;
      while (r->src[off] && isspace((unsigned char)r->src[off])) off++;
    }
    cond.loc = loc_of_offset(r, off);
    eofm_node_t *nd = &r->m->nodes.data[id];
    if (is(c, "precondition"))
      VEC_PUSH(&nd->pre, cond);
    else if (is(c, "completioncondition"))
      VEC_PUSH(&nd->completion, cond);
    else
      VEC_PUSH(&nd->repeat, cond);
  }
  if (ndecomp == 0) diag_error(r->d, loc, "activity '%s' has no <decomposition>", name ? name : "?");
  VEC_PUSH(&r->cond_nodes, id);
  return id;
}

/* ------------------------------------------------------------ conditions */

typedef struct {
  reader_t *r;
  const eofm_cond_t *cond;
  const char *kind; /* "precondition", ... */
  const char *activity;
  const char *s; /* cursor in cond->text */
  strbuf_t out;  /* FSP spelling */
  bool failed;
} cond_parser_t;

static void cond_fail(cond_parser_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cond_fail(cond_parser_t *p, const char *fmt, ...) {
  if (p->failed) return;
  p->failed = true;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(p->r->d, p->cond->loc, "%s of activity '%s': %s", p->kind, p->activity, msg);
}

static void skip_blank(cond_parser_t *p) {
  while (isspace((unsigned char)*p->s)) p->s++;
}

/* Consumes operator `op` (and emits `fsp`) when it is next. */
static bool take(cond_parser_t *p, const char *op, const char *fsp) {
  skip_blank(p);
  size_t n = strlen(op);
  if (strncmp(p->s, op, n) != 0) return false;
  if (isalpha((unsigned char)op[0]) && (isalnum((unsigned char)p->s[n]) || p->s[n] == '_')) return false;
  /* '=' must not be the start of '==', '<' not of '<=', ... */
  if ((strcmp(op, "=") == 0 || strcmp(op, "<") == 0 || strcmp(op, ">") == 0 || strcmp(op, "!") == 0) &&
      p->s[n] == '=')
    return false;
  if ((strcmp(op, "|") == 0 && p->s[n] == '|') || (strcmp(op, "&") == 0 && p->s[n] == '&')) return false;
  if (strcmp(op, "/") == 0 && p->s[n] == '=') return false;
  p->s += n;
  strbuf_printf(&p->out, " %s ", fsp);
  return true;
}

static void cond_or(cond_parser_t *p);

static void cond_primary(cond_parser_t *p) {
  skip_blank(p);
  if (take(p, "(", "(")) {
    cond_or(p);
    if (!take(p, ")", ")")) cond_fail(p, "expected ')' at '%s'", *p->s ? p->s : "end");
    return;
  }
  if (isdigit((unsigned char)*p->s)) {
    while (isdigit((unsigned char)*p->s)) strbuf_putc(&p->out, *p->s++);
    return;
  }
  if (isalpha((unsigned char)*p->s) || *p->s == '_') {
    const char *start = p->s;
    while (isalnum((unsigned char)*p->s) || *p->s == '_') p->s++;
    char *name = arena_strndup(&p->r->m->arena, start, (size_t)(p->s - start));
    long long v;
    bool known = eofm_value(p->r->m, name, &v);
    for (size_t i = 0; !known && i < p->r->m->vars.len; i++)
      known = strcmp(p->r->m->vars.data[i].name, name) == 0;
    if (strcmp(name, "true") == 0 || strcmp(name, "TRUE") == 0) known = true, name = "1";
    if (strcmp(name, "false") == 0 || strcmp(name, "FALSE") == 0) known = true, name = "0";
    if (!known) {
      VEC(const char *) cands = {0};
      for (size_t i = 0; i < p->r->m->vars.len; i++) VEC_PUSH(&cands, p->r->m->vars.data[i].name);
      for (size_t i = 0; i < p->r->m->types.len; i++)
        for (size_t k = 0; k < p->r->m->types.data[i].nvalues; k++)
          VEC_PUSH(&cands, p->r->m->types.data[i].values[k]);
      for (size_t i = 0; i < p->r->m->consts.len; i++) VEC_PUSH(&cands, p->r->m->consts.data[i].name);
      const char *s = diag_suggest(name, cands.data, cands.len);
      if (!p->failed) {
        p->failed = true;
        if (s)
          diag_error(p->r->d, p->cond->loc, "%s of activity '%s': undefined name '%s' (did you mean '%s'?)",
                     p->kind, p->activity, name, s);
        else
          diag_error(p->r->d, p->cond->loc,
                     "%s of activity '%s': undefined name '%s' (not a variable, constant or type value)",
                     p->kind, p->activity, name);
      }
      VEC_FREE(&cands);
    }
    strbuf_puts(&p->out, name);
    return;
  }
  cond_fail(p, "expected a name, a number or '(' at '%s'", *p->s ? p->s : "end");
}

static void cond_unary(cond_parser_t *p) {
  if (take(p, "!", "!") || take(p, "not", "!") || take(p, "NOT", "!") || take(p, "-", "-")) {
    cond_unary(p);
    return;
  }
  cond_primary(p);
}

static void cond_mul(cond_parser_t *p) {
  cond_unary(p);
  while (!p->failed && (take(p, "*", "*") || take(p, "/", "/") || take(p, "%", "%"))) cond_unary(p);
}

static void cond_add(cond_parser_t *p) {
  cond_mul(p);
  while (!p->failed && (take(p, "+", "+") || take(p, "-", "-"))) cond_mul(p);
}

static void cond_cmp(cond_parser_t *p) {
  cond_add(p);
  if (p->failed) return;
  if (take(p, "==", "==") || take(p, "!=", "!=") || take(p, "/=", "!=") || take(p, "<=", "<=") ||
      take(p, ">=", ">=") || take(p, "<", "<") || take(p, ">", ">") || take(p, "=", "=="))
    cond_add(p);
}

static void cond_and(cond_parser_t *p) {
  cond_cmp(p);
  while (!p->failed && (take(p, "&&", "&&") || take(p, "and", "&&") || take(p, "AND", "&&"))) cond_cmp(p);
}

static void cond_or(cond_parser_t *p) {
  cond_and(p);
  while (!p->failed && (take(p, "||", "||") || take(p, "or", "||") || take(p, "OR", "||"))) cond_and(p);
}

static void check_cond(reader_t *r, eofm_cond_t *c, const char *kind, const char *activity) {
  cond_parser_t p = {r, c, kind, activity, c->text, {0}, false};
  strbuf_init(&p.out);
  if (!*c->text)
    cond_fail(&p, "empty condition");
  else {
    cond_or(&p);
    skip_blank(&p);
    if (*p.s) cond_fail(&p, "unexpected '%s'", p.s);
  }
  c->fsp = arena_strdup(&r->m->arena, strbuf_str(&p.out));
  strbuf_free(&p.out);
}

/* ------------------------------------------------------------ document */

static void resolve_links(reader_t *r) {
  for (size_t i = 0; i < r->links.len; i++) {
    pending_link_t *l = &r->links.data[i];
    int target = -1;
    for (size_t k = 0; k < r->m->nodes.len && target < 0; k++)
      if (r->m->nodes.data[k].kind == EOFM_ACTIVITY && strcmp(r->m->nodes.data[k].name, l->name) == 0)
        target = (int)k;
    if (target < 0) {
      diag_error(r->d, l->loc, "activity link to undefined activity '%s'", l->name);
      continue;
    }
    /* a link to an ancestor would make the activity tree infinite */
    VEC(int) stack = {0};
    bool *seen = xcalloc(r->m->nodes.len + 1, sizeof *seen);
    VEC_PUSH(&stack, target);
    bool cycle = false;
    while (stack.len && !cycle) {
      int x = VEC_POP(&stack);
      if (x == l->parent) cycle = true;
      if (x < 0 || seen[x]) continue;
      seen[x] = true;
      const eofm_node_t *nd = &r->m->nodes.data[x];
      for (size_t k = 0; k < nd->children.len; k++) VEC_PUSH(&stack, nd->children.data[k]);
    }
    free(seen);
    VEC_FREE(&stack);
    if (cycle)
      diag_error(r->d, l->loc, "activity link to '%s' makes it its own sub-activity", l->name);
    else
      r->m->nodes.data[l->parent].children.data[l->slot] = target;
  }
}

/* Pass 1 (op < 0) declares the operator's variables and actions; pass 2
 * reads the activities of operator number op. */
static void read_operator(reader_t *r, const xmlNode *n, int op_index) {
  static const char *const kids[] = {"inputvariable", "inputvariablelink", "localvariable", "humanaction",
                                     "eofm"};
  if (op_index < 0) {
    const char *name = require_attr(r, n, "name");
    check_children(r, n, kids, 5);
    VEC_PUSH(&r->m->operators, ((eofm_operator_t){name ? name : "?", node_loc(r, n), {0}}));
    for (const xmlNode *c = n->children; c; c = c->next) {
      if (c->type != XML_ELEMENT_NODE) continue;
      if (is(c, "inputvariable"))
        read_var(r, c, false);
      else if (is(c, "localvariable"))
        read_var(r, c, true);
      else if (is(c, "humanaction"))
        read_haction(r, c);
    }
    return;
  }
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (is(c, "inputvariablelink")) {
      const char *link = require_attr(r, c, "link");
      bool found = false;
      for (size_t i = 0; link && i < r->m->vars.len; i++) found |= strcmp(r->m->vars.data[i].name, link) == 0;
      if (link && !found)
        diag_error(r->d, node_loc(r, c), "input variable link to undefined variable '%s'", link);
    } else if (is(c, "eofm")) {
      static const char *const act[] = {"activity"};
      check_children(r, c, act, 1);
      int count = 0;
      for (const xmlNode *a = c->children; a; a = a->next) {
        if (a->type != XML_ELEMENT_NODE || !is(a, "activity")) continue;
        if (count++) {
          diag_error(r->d, node_loc(r, a), "an <eofm> holds one top-level activity");
          continue;
        }
        int id = read_activity(r, a);
        VEC_PUSH(&r->m->tops, id);
        VEC_PUSH(&r->m->operators.data[op_index].tops, id);
      }
      if (count == 0) diag_error(r->d, node_loc(r, c), "<eofm> has no <activity>");
    }
  }
}

static void read_document(reader_t *r, const xmlNode *root) {
  static const char *const kids[] = {"constant", "userdefinedtype", "humanoperator"};
  if (!is(root, "eofms")) {
    diag_error(r->d, node_loc(r, root), "the root element is <%s>; an EOFM file starts with <eofms>",
               root->name);
    return;
  }
  check_children(r, root, kids, 3);
  for (const xmlNode *c = root->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && is(c, "userdefinedtype")) read_type(r, c);
  for (const xmlNode *c = root->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && is(c, "constant")) read_const(r, c);
  for (const xmlNode *c = root->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && is(c, "humanoperator")) read_operator(r, c, -1);
  int op_index = 0;
  for (const xmlNode *c = root->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && is(c, "humanoperator")) read_operator(r, c, op_index++);
  resolve_links(r);
  for (size_t i = 0; i < r->cond_nodes.len; i++) {
    eofm_node_t *nd = &r->m->nodes.data[r->cond_nodes.data[i]];
    for (size_t k = 0; k < nd->pre.len; k++) check_cond(r, &nd->pre.data[k], "precondition", nd->name);
    for (size_t k = 0; k < nd->completion.len; k++)
      check_cond(r, &nd->completion.data[k], "completion condition", nd->name);
    for (size_t k = 0; k < nd->repeat.len; k++)
      check_cond(r, &nd->repeat.data[k], "repeat condition", nd->name);
  }
  for (size_t i = 0; i < r->m->hactions.len; i++) {
    bool used = false;
    for (size_t k = 0; k < r->m->nodes.len && !used; k++) used = r->m->nodes.data[k].haction == (int)i;
    if (!used)
      diag_error(r->d, r->m->hactions.data[i].loc, "human action '%s' is used by no activity",
                 r->m->hactions.data[i].name);
  }
  if (r->m->tops.len == 0) diag_error(r->d, node_loc(r, root), "the model has no activity");
}

/* Keeps the first error libxml2 raises (the later ones follow from it). */
static void first_xml_error(void *data, xmlErrorPtr e) {
  xmlError *first = data;
  if (first->code == 0 && e) {
    first->code = e->code ? e->code : 1;
    first->line = e->line;
    first->int2 = e->int2;
    first->message = e->message ? xmlMemStrdup(e->message) : NULL;
  }
}

eofm_t *eofm_parse_string(const char *name, const char *text, diag_list_t *diags) {
  eofm_t *m = xcalloc(1, sizeof *m);
  arena_init(&m->arena);
  m->path = diag_add_source(diags, name, text);
  /* a binary, or text that does not start like XML: a file named by
   * mistake, whose lines the diagnostics must not echo */
  const char *start = text + strspn(text, " \t\r\n");
  if (!diag_source_conceal_binary(diags, m->path) && *start != '<' && strncmp(start, "\xef\xbb\xbf<", 4) != 0)
    diag_source_conceal(diags, m->path);
  reader_t r = {m, diags, text, {0}, {0}};
  size_t before = diag_error_count(diags);
  xmlError first;
  memset(&first, 0, sizeof first);
  /* libxml2 2.9 has no per-context structured handler: set it around the call */
  xmlSetStructuredErrorFunc(&first, first_xml_error);
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  xmlDocPtr doc = ctxt ? xmlCtxtReadMemory(ctxt, text, (int)strlen(text), name, NULL,
                                           XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NONET)
                       : NULL;
  xmlSetStructuredErrorFunc(NULL, NULL);
  if (!doc) {
    const xmlError *e = first.code ? &first : ctxt ? xmlCtxtGetLastError(ctxt) : NULL;
    loc_t loc = {m->path, e && e->line > 0 ? e->line : 1, e && e->int2 > 0 ? e->int2 : 1};
    char msg[512];
    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not well-formed XML");
    size_t len = strlen(msg);
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' ')) msg[--len] = '\0';
    if (len) msg[0] = (char)tolower((unsigned char)msg[0]);
    diag_error(diags, loc, "malformed XML: %s", msg);
  } else
    read_document(&r, xmlDocGetRootElement(doc));
  if (first.message) xmlFree(first.message);
  if (doc) xmlFreeDoc(doc);
  if (ctxt) xmlFreeParserCtxt(ctxt);
  VEC_FREE(&r.links);
  VEC_FREE(&r.cond_nodes);
  if (diag_error_count(diags) != before) {
    eofm_free(m);
    return NULL;
  }
  return m;
}

eofm_t *eofm_parse_file(const char *path, diag_list_t *diags) {
  const char *text = diag_read_file(diags, path, (loc_t){0}, NULL);
  if (!text) return NULL;
  return eofm_parse_string(path, text, diags);
}

void eofm_free(eofm_t *m) {
  if (!m) return;
  for (size_t i = 0; i < m->nodes.len; i++) {
    eofm_node_t *nd = &m->nodes.data[i];
    VEC_FREE(&nd->pre);
    VEC_FREE(&nd->completion);
    VEC_FREE(&nd->repeat);
    VEC_FREE(&nd->children);
  }
  for (size_t i = 0; i < m->operators.len; i++) VEC_FREE(&m->operators.data[i].tops);
  VEC_FREE(&m->types);
  VEC_FREE(&m->consts);
  VEC_FREE(&m->vars);
  VEC_FREE(&m->hactions);
  VEC_FREE(&m->operators);
  VEC_FREE(&m->nodes);
  VEC_FREE(&m->tops);
  arena_free(&m->arena);
  free(m);
}
