#include "apps/masking_report.h"

#include <stdlib.h>
#include <string.h>

#include "apps/sarif.h"
#include "ism/alloc.h"
#include "ism/strbuf.h"

static const char *label_name(const masking_report_t *r, int label) {
  return label >= 0 ? intern_name(r->labels, label) : "";
}

static void state_str(const masking_report_t *r, bool imp, int s, strbuf_t *out) {
  maskd_state_string(imp ? r->imp_prog : r->spec_prog, imp ? r->imp : r->spec, (size_t)s, out);
}

static size_t faults_of(uint32_t w) { return w ? w - 1 : 0; }

/* One move of the play, from node x to node y. */
typedef struct {
  const char *player; /* "refuter" or "verifier" */
  const char *side;   /* "implementation", "nominal" or NULL */
  const char *action; /* label, "M" for a masking move, or NULL */
  bool fault, tau, error;
  const char *note;   /* free text for the text format */
} move_t;

static move_t describe(const masking_report_t *r, int x, int y) {
  const masking_node_t *nx = &r->game->nodes[x], *ny = &r->game->nodes[y];
  move_t m = {0};
  if (nx->player == MASKING_PLAYER_R) {
    m.player = "refuter";
    if (ny->side == MASKING_SIDE_DEADLOCK) {
      m.side = "implementation";
      m.note = "deadlocks";
      return m;
    }
    m.side = ny->side == MASKING_SIDE_IMP ? "implementation" : "nominal";
    m.action = label_name(r, ny->label);
    m.fault = ny->fault;
    m.tau = ny->tau;
    return m;
  }
  m.player = "verifier";
  if (ny->player == MASKING_PLAYER_ERR) {
    m.error = true;
    m.note = nx->side == MASKING_SIDE_DEADLOCK ? "no answer to a deadlock: error" : "no matching move: error";
    return m;
  }
  if (nx->fault) {
    m.side = "nominal";
    m.action = "M";
    m.note = "masks the fault";
    return m;
  }
  m.side = nx->side == MASKING_SIDE_IMP ? "nominal" : "implementation";
  m.tau = nx->tau;
  m.action = m.tau ? "τ" : label_name(r, nx->label); /* any τ answers a τ */
  return m;
}

/* Characters (not bytes) of UTF-8 text, for column alignment. */
static size_t display_len(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* The text of a move's action column. */
static void action_text(const move_t *m, strbuf_t *out) {
  if (m->action) strbuf_puts(out, m->action);
  if (m->fault) strbuf_puts(out, " (fault)");
  if (m->tau) strbuf_puts(out, " (internal)");
  if (m->note) strbuf_printf(out, "%s%s", m->action ? ": " : "", m->note);
}

static void text_trace(const masking_report_t *r, strbuf_t *sb) {
  const masking_game_t *g = r->game;
  size_t width = 5; /* "start" */
  for (size_t i = 1; i < r->ntrace; i++) {
    move_t m = describe(r, r->trace[i - 1], r->trace[i]);
    strbuf_t a;
    strbuf_init(&a);
    action_text(&m, &a);
    if (display_len(strbuf_str(&a)) > width) width = display_len(strbuf_str(&a));
    strbuf_free(&a);
  }
  strbuf_puts(sb, "\nrefuter's winning play (states after each move: nominal | implementation):\n");
  for (size_t i = 0; i < r->ntrace; i++) {
    strbuf_t a;
    strbuf_init(&a);
    move_t m = {.player = "", .side = "", .action = "start"};
    if (i) m = describe(r, r->trace[i - 1], r->trace[i]);
    action_text(&m, &a);
    strbuf_printf(sb, "%4zu. %-8s  %-14s  %s", i, m.player, m.side ? m.side : "", strbuf_str(&a));
    for (size_t pad = display_len(strbuf_str(&a)); pad < width; pad++) strbuf_putc(sb, ' ');
    strbuf_free(&a);
    const masking_node_t *ny = &g->nodes[r->trace[i]];
    if (ny->player != MASKING_PLAYER_ERR) {
      strbuf_puts(sb, "  ");
      state_str(r, false, ny->spec, sb);
      strbuf_puts(sb, " | ");
      state_str(r, true, ny->imp, sb);
    } else {
      while (sb->len && sb->data[sb->len - 1] == ' ') sb->data[--sb->len] = 0;
    }
    strbuf_putc(sb, '\n');
  }
}

static void render_text(const masking_report_t *r, bool with_trace, strbuf_t *sb) {
  const masking_game_t *g = r->game;
  uint32_t w = masking_value(g);
  strbuf_printf(sb, "nominal:         %s (%zu states, %zu transitions%s)\n", r->spec_name, r->spec->nstates,
                r->spec->nedges, r->weak ? " after τ-saturation" : "");
  strbuf_printf(sb, "implementation:  %s (%zu states, %zu transitions%s)\n", r->imp_name, r->imp->nstates,
                r->imp->nedges, r->weak ? " after τ-saturation" : "");
  strbuf_printf(sb, "game:            %s masking game, %zu nodes, %zu edges%s%s%s\n", r->weak ? "weak" : "strong",
                g->nnodes, g->nedges, r->opts->nominal_match ? "" : ", no nominal match",
                r->opts->deadlock_error ? ", deadlock is an error" : "",
                r->opts->fault_answers ? ", faults answer nominal moves" : "");
  if (w == 0)
    strbuf_puts(sb, "verdict:         masks every fault\n");
  else if (w == 1)
    strbuf_puts(sb, "verdict:         does not mask: even without faults it does not match the nominal model\n");
  else
    strbuf_printf(sb, "verdict:         does not mask: the refuter forces an error with %zu fault%s\n", faults_of(w),
                  w == 2 ? "" : "s");
  if (w == 0)
    strbuf_puts(sb, "distance:        0\n");
  else
    strbuf_printf(sb, "distance:        %.3f (1/%u)\n", 1.0 / w, w);
  if (with_trace && r->ntrace) text_trace(r, sb);
}

static void json_state(const masking_report_t *r, bool imp, int s, strbuf_t *sb) {
  strbuf_t st;
  strbuf_init(&st);
  state_str(r, imp, s, &st);
  strbuf_json_string(sb, strbuf_str(&st));
  strbuf_free(&st);
}

static void json_size(strbuf_t *sb, const char *name, const char *file, const masking_lts_t *l) {
  strbuf_printf(sb, "    \"%s\": {\"file\": ", name);
  strbuf_json_string(sb, file);
  strbuf_printf(sb, ", \"states\": %zu, \"transitions\": %zu},\n", l->nstates, l->nedges);
}

static void render_json(const masking_report_t *r, strbuf_t *sb) {
  const masking_game_t *g = r->game;
  uint32_t w = masking_value(g);
  strbuf_puts(sb, "{\n  \"kind\": \"masking\",\n  \"masks\": ");
  strbuf_puts(sb, w ? "false" : "true");
  strbuf_puts(sb, ",\n  \"distance\": ");
  strbuf_json_number(sb, masking_distance(g));
  strbuf_puts(sb, ",\n  \"faults\": ");
  if (w)
    strbuf_printf(sb, "%zu", faults_of(w));
  else
    strbuf_puts(sb, "null");
  strbuf_printf(sb,
                ",\n  \"weak\": %s,\n  \"deadlock_error\": %s,\n  \"nominal_match\": %s,\n  \"fault_answers\": %s,\n"
                "  \"sizes\": {\n",
                r->weak ? "true" : "false", r->opts->deadlock_error ? "true" : "false",
                r->opts->nominal_match ? "true" : "false", r->opts->fault_answers ? "true" : "false");
  json_size(sb, "nominal", r->spec_name, r->spec);
  json_size(sb, "implementation", r->imp_name, r->imp);
  strbuf_printf(sb, "    \"game\": {\"nodes\": %zu, \"edges\": %zu}\n  },\n  \"trace\": [", g->nnodes, g->nedges);
  for (size_t i = 1; i < r->ntrace; i++) {
    move_t m = describe(r, r->trace[i - 1], r->trace[i]);
    const masking_node_t *ny = &g->nodes[r->trace[i]];
    strbuf_printf(sb, "%s\n    {\"player\": \"%s\", \"side\": ", i > 1 ? "," : "", m.player);
    if (m.side) strbuf_json_string(sb, m.side); else strbuf_puts(sb, "null");
    strbuf_puts(sb, ", \"action\": ");
    if (m.action) strbuf_json_string(sb, m.action); else strbuf_puts(sb, "null");
    strbuf_printf(sb, ", \"fault\": %s, \"internal\": %s", m.fault ? "true" : "false", m.tau ? "true" : "false");
    if (m.error) {
      strbuf_puts(sb, ", \"error\": true}");
      continue;
    }
    if (m.note && !m.action) strbuf_printf(sb, ", \"deadlock\": true");
    strbuf_puts(sb, ", \"nominal\": ");
    json_state(r, false, ny->spec, sb);
    strbuf_puts(sb, ", \"implementation\": ");
    json_state(r, true, ny->imp, sb);
    strbuf_putc(sb, '}');
  }
  strbuf_puts(sb, r->ntrace > 1 ? "\n  ]\n}\n" : "]\n}\n");
}

static void dot_node(const masking_report_t *r, int x, bool full, strbuf_t *sb) {
  const masking_node_t *n = &r->game->nodes[x];
  if (n->player == MASKING_PLAYER_ERR) {
    strbuf_printf(sb, "  n%d [label=\"ERR\", shape=doublecircle, color=red];\n", x);
    return;
  }
  strbuf_t lab;
  strbuf_init(&lab);
  strbuf_printf(&lab, "%s %d,%d", n->player == MASKING_PLAYER_R ? "R" : "V", n->spec, n->imp);
  if (n->player == MASKING_PLAYER_V)
    strbuf_printf(&lab, " %s%s", n->side == MASKING_SIDE_SPEC ? "S:" : n->side == MASKING_SIDE_IMP ? "I:" : "",
                  n->side == MASKING_SIDE_DEADLOCK ? "deadlock" : label_name(r, n->label));
  if (full) {
    strbuf_puts(&lab, "\n");
    state_str(r, false, n->spec, &lab);
    strbuf_puts(&lab, "\n");
    state_str(r, true, n->imp, &lab);
  }
  strbuf_printf(sb, "  n%d [label=", x);
  strbuf_json_string(sb, strbuf_str(&lab));
  strbuf_printf(sb, ", shape=%s%s, xlabel=\"%u\"];\n", n->player == MASKING_PLAYER_R ? "box" : "ellipse",
                n->fault ? ", color=orange" : "", r->game->value[x]);
  strbuf_free(&lab);
}

static void render_dot(const masking_report_t *r, bool with_trace, strbuf_t *sb) {
  const masking_game_t *g = r->game;
  strbuf_puts(sb, "digraph masking {\n  // R: refuter, V: verifier; xlabel: value w (0: verifier wins)\n");
  if (with_trace) {
    for (size_t i = 0; i < r->ntrace; i++) dot_node(r, r->trace[i], true, sb);
    for (size_t i = 1; i < r->ntrace; i++) strbuf_printf(sb, "  n%d -> n%d;\n", r->trace[i - 1], r->trace[i]);
  } else {
    for (size_t x = 0; x < g->nnodes; x++) dot_node(r, (int)x, false, sb);
    for (size_t x = 0; x < g->nnodes; x++)
      for (size_t e = g->succ_off[x]; e < g->succ_off[x + 1]; e++)
        strbuf_printf(sb, "  n%zu -> n%d;\n", x, g->succ[e]);
  }
  strbuf_puts(sb, "}\n");
}

/* ---- SARIF: one result when the implementation does not mask ---- */

static const sarif_rule_t masking_rules[] = {
    {"ISMV-MASKING-NOT-MASKED", "FaultsNotMasked", "The implementation does not mask its faults.",
     "In the masking game between the nominal model and the fault-tolerant implementation the refuter wins: "
     "with some number of faults it drives the implementation to a move the nominal model cannot match (or, "
     "with a distance of 1, the implementation fails to match the nominal model even without faults). The "
     "code flow is the refuter's winning play; the result is located at the implementation in the config.",
     "Run `ismv masking CONFIG.yaml --trace` for the play with the states after each move, then add the "
     "missing fault handling to the implementation. docs/masking.md explains the game and the distance."},
};

static void sarif_play(const masking_report_t *r, strbuf_t *sb) {
  sarif_flow_begin(sb);
  for (size_t i = 1; i < r->ntrace; i++) {
    move_t m = describe(r, r->trace[i - 1], r->trace[i]);
    strbuf_t msg;
    strbuf_init(&msg);
    strbuf_printf(&msg, "%zu. %s%s%s: ", i, m.player, m.side ? " " : "", m.side ? m.side : "");
    action_text(&m, &msg);
    sarif_flow_location(sb, i == 1, r->config, r->imp_loc.line, r->imp_loc.col, strbuf_str(&msg));
    strbuf_free(&msg);
  }
  sarif_flow_end(sb);
}

static void render_sarif(const masking_report_t *r, strbuf_t *sb) {
  sarif_begin(sb, masking_rules, 1);
  uint32_t w = masking_value(r->game);
  bool first = true;
  if (w) {
    strbuf_t msg;
    strbuf_init(&msg);
    strbuf_printf(&msg, "the implementation %s does not mask the faults of nominal model %s: ", r->imp_name,
                  r->spec_name);
    if (w == 1)
      strbuf_puts(&msg, "even without faults it does not match the nominal model (distance 1)");
    else
      strbuf_printf(&msg, "the refuter forces an error with %zu fault%s (distance 1/%u)", faults_of(w),
                    w == 2 ? "" : "s", w);
    sarif_result_begin(sb, &first, masking_rules, 0, "error", strbuf_str(&msg));
    strbuf_free(&msg);
    strbuf_puts(sb, ", \"locations\": [");
    sarif_location(sb, r->config, r->imp_loc.line, r->imp_loc.col);
    char *key = xasprintf("%s\x1f%s", r->spec_name, r->imp_name);
    strbuf_puts(sb, "], ");
    sarif_fingerprints(sb, "ismvMasking/v1", key);
    free(key);
    if (r->ntrace > 1) sarif_play(r, sb);
    strbuf_putc(sb, '}');
  }
  sarif_end(sb, true, NULL, 0);
}

char *masking_render(const masking_report_t *r, const char *format, bool with_trace) {
  strbuf_t sb;
  strbuf_init(&sb);
  if (strcmp(format, "sarif") == 0)
    render_sarif(r, &sb);
  else if (strcmp(format, "json") == 0)
    render_json(r, &sb);
  else if (strcmp(format, "dot") == 0)
    render_dot(r, with_trace, &sb);
  else
    render_text(r, with_trace, &sb);
  return strbuf_take(&sb);
}
