#include "apps/sarif.h"

#include <stdio.h>
#include <string.h>

#include "apps/cli.h"

void sarif_begin(strbuf_t *sb, const sarif_rule_t *rules, size_t nrules) {
  strbuf_puts(
      sb, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n"
          "  \"runs\": [\n    {\n      \"tool\": {\"driver\": {\"name\": \"ismv\", \"version\": ");
  strbuf_json_string(sb, cli_version());
  strbuf_puts(sb, ", \"rules\": [");
  for (size_t i = 0; i < nrules; i++) {
    strbuf_printf(sb, "%s\n        {\"id\": ", i ? "," : "");
    strbuf_json_string(sb, rules[i].id);
    strbuf_puts(sb, ", \"name\": ");
    strbuf_json_string(sb, rules[i].name);
    strbuf_puts(sb, ", \"shortDescription\": {\"text\": ");
    strbuf_json_string(sb, rules[i].short_text);
    strbuf_puts(sb, "}, \"fullDescription\": {\"text\": ");
    strbuf_json_string(sb, rules[i].full_text);
    strbuf_puts(sb, "}, \"help\": {\"text\": ");
    strbuf_json_string(sb, rules[i].help);
    strbuf_puts(sb, "}}");
  }
  strbuf_puts(sb, "]}},\n      \"results\": [");
}

void sarif_result_begin(strbuf_t *sb, bool *first, const sarif_rule_t *rules, int rule, const char *level,
                        const char *message) {
  strbuf_puts(sb, *first ? "\n        {" : ",\n        {");
  *first = false;
  strbuf_puts(sb, "\"ruleId\": ");
  strbuf_json_string(sb, rules[rule].id);
  strbuf_printf(sb, ", \"ruleIndex\": %d, \"level\": \"%s\", \"message\": {\"text\": ", rule, level);
  strbuf_json_string(sb, message);
  strbuf_putc(sb, '}');
}

void sarif_uri(strbuf_t *sb, const char *path) {
  strbuf_t u;
  strbuf_init(&u);
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("-._~/", *p))
      strbuf_putc(&u, (char)*p);
    else
      strbuf_printf(&u, "%%%02X", *p);
  }
  strbuf_json_string(sb, strbuf_str(&u));
  strbuf_free(&u);
}

void sarif_physical_location(strbuf_t *sb, const char *file, int line, int col) {
  strbuf_puts(sb, "{\"artifactLocation\": {\"uri\": ");
  sarif_uri(sb, file);
  strbuf_putc(sb, '}');
  if (line > 0)
    strbuf_printf(sb, ", \"region\": {\"startLine\": %d, \"startColumn\": %d}", line, col > 0 ? col : 1);
  strbuf_putc(sb, '}');
}

void sarif_location(strbuf_t *sb, const char *file, int line, int col) {
  strbuf_puts(sb, "{\"physicalLocation\": ");
  sarif_physical_location(sb, file, line, col);
  strbuf_putc(sb, '}');
}

void sarif_flow_begin(strbuf_t *sb) { strbuf_puts(sb, ", \"codeFlows\": [{\"threadFlows\": [{\"locations\": ["); }

void sarif_flow_location(strbuf_t *sb, bool first, const char *file, int line, int col, const char *message) {
  strbuf_puts(sb, first ? "\n          {\"location\": {\"physicalLocation\": "
                        : ",\n          {\"location\": {\"physicalLocation\": ");
  sarif_physical_location(sb, file, line, col);
  strbuf_puts(sb, ", \"message\": {\"text\": ");
  strbuf_json_string(sb, message);
  strbuf_puts(sb, "}}}");
}

void sarif_flow_end(strbuf_t *sb) { strbuf_puts(sb, "]}]}]"); }

char *sarif_fingerprint(const char *text, char buf[SARIF_FINGERPRINT_SIZE]) {
  unsigned long long h = 1469598103934665603ULL;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) h = (h ^ *p) * 1099511628211ULL;
  snprintf(buf, SARIF_FINGERPRINT_SIZE, "%016llx", h);
  return buf;
}

void sarif_fingerprints(strbuf_t *sb, const char *name, const char *text) {
  char fp[SARIF_FINGERPRINT_SIZE];
  strbuf_puts(sb, "\"partialFingerprints\": {");
  strbuf_json_string(sb, name);
  strbuf_printf(sb, ": \"%s\"}", sarif_fingerprint(text, fp));
}

void sarif_end(strbuf_t *sb, bool complete, const char *const *notes, size_t nnotes) {
  strbuf_puts(sb, sb->len && sb->data[sb->len - 1] == '[' ? "],\n" : "\n      ],\n");
  strbuf_printf(sb, "      \"invocations\": [{\"executionSuccessful\": %s", complete ? "true" : "false");
  if (!complete) {
    strbuf_puts(sb, ", \"toolExecutionNotifications\": [");
    for (size_t i = 0; i < nnotes; i++) {
      strbuf_puts(sb, i ? ", {\"level\": \"error\", \"message\": {\"text\": "
                        : "{\"level\": \"error\", \"message\": {\"text\": ");
      strbuf_json_string(sb, notes[i]);
      strbuf_puts(sb, "}}");
    }
    strbuf_putc(sb, ']');
  }
  strbuf_puts(sb, "}]\n    }\n  ]\n}\n");
}
