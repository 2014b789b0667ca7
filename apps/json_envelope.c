#include "apps/json_envelope.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

const char *json_envelope_verdict(int analysis_code) {
  switch (analysis_code) {
  case CLI_EXIT_OK: return "verified";
  case CLI_EXIT_VIOLATION: return "violated";
  case CLI_EXIT_INCONCLUSIVE: return "inconclusive";
  default: return "error";
  }
}

void json_envelope_head(strbuf_t *sb, const json_envelope_t *e) {
  strbuf_puts(sb, "  \"tool\": \"ismv\",\n  \"version\": ");
  strbuf_json_string(sb, cli_version());
  strbuf_printf(sb, ",\n  \"schema\": %d,\n  \"command\": ", JSON_ENVELOPE_SCHEMA);
  strbuf_json_string(sb, e->command);
  strbuf_puts(sb, ",\n  \"input\": ");
  if (e->ninputs > 0) {
    strbuf_putc(sb, '[');
    for (int i = 0; i < e->ninputs; i++) {
      if (i) strbuf_puts(sb, ", ");
      strbuf_json_string(sb, e->inputs[i]);
    }
    strbuf_putc(sb, ']');
  } else if (e->input) {
    strbuf_json_string(sb, e->input);
  } else {
    strbuf_puts(sb, "null");
  }
  strbuf_puts(sb, ",\n");
}

void json_envelope_tail(strbuf_t *sb, const json_envelope_t *e) {
  strbuf_puts(sb, "  \"verdict\": ");
  strbuf_json_string(sb, e->verdict);
  strbuf_printf(sb, ",\n  \"exit_code\": %d,\n  \"partial\": %s,\n", e->exit_code,
                e->partial ? "true" : "false");
  if (e->partial) {
    strbuf_puts(sb, "  \"reason\": ");
    strbuf_json_string(sb, e->partial);
    strbuf_puts(sb, ",\n");
  }
}

void json_envelope_alone(strbuf_t *sb, const json_envelope_t *e) {
  strbuf_puts(sb, "{\n");
  json_envelope_head(sb, e);
  json_envelope_tail(sb, e);
  sb->len -= 2; /* the last ",\n" */
  sb->data[sb->len] = '\0';
  strbuf_puts(sb, "\n}\n");
}

char *json_envelope_wrap(const json_envelope_t *e, const char *json) {
  assert(strncmp(json, "{\n", 2) == 0);
  strbuf_t sb;
  strbuf_init(&sb);
  strbuf_puts(&sb, "{\n");
  json_envelope_head(&sb, e);
  json_envelope_tail(&sb, e);
  strbuf_puts(&sb, json + 2);
  return strbuf_take(&sb);
}

int json_envelope_write(cli_ctx_t *ctx, const json_envelope_t *e, const char *json) {
  char *text = json_envelope_wrap(e, json);
  int rc = cli_write_output(ctx, text);
  free(text);
  return rc;
}
