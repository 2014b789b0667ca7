/* SARIF 2.1.0 logs as GitHub code scanning and the SARIF Multitool's GitHub
 * rules accept them: the driver with its rules (each with a short and a full
 * description and help), results with relative URIs and stable
 * fingerprints, and the invocation that says whether the run was complete.
 * Shared by every command that writes SARIF (check, verify). */
#ifndef APPS_SARIF_H
#define APPS_SARIF_H

#include <stdbool.h>
#include <stddef.h>

#include "ism/strbuf.h"

typedef struct {
  const char *id, *name; /* "ISMV-VERIFY-FAILURE", "ReachableFailure" */
  const char *short_text, *full_text, *help;
} sarif_rule_t;

/* Opens the log and its one run: the driver (ismv, its version, the rules)
 * and "results": [ . */
void sarif_begin(strbuf_t *sb, const sarif_rule_t *rules, size_t nrules);
/* Opens a result object (after a separator when !*first, which it clears):
 * ruleId, ruleIndex, level and message; the caller adds its other keys, each
 * after ", ", and closes it with '}'. */
void sarif_result_begin(strbuf_t *sb, bool *first, const sarif_rule_t *rules, int rule, const char *level,
                        const char *message);
/* A physicalLocation object: the file as a URI reference (sarif_uri), and
 * the region when line > 0 (column 1 when col <= 0). */
void sarif_physical_location(strbuf_t *sb, const char *file, int line, int col);
/* A location object: {"physicalLocation": ...}. */
void sarif_location(strbuf_t *sb, const char *file, int line, int col);
/* A code flow with one thread flow: sarif_flow_begin appends
 * ', "codeFlows": [{"threadFlows": [{"locations": [', each
 * sarif_flow_location one location (file, line, col as in
 * sarif_physical_location) with its message, after a separator unless it is
 * the first, and sarif_flow_end closes the three. */
void sarif_flow_begin(strbuf_t *sb);
void sarif_flow_location(strbuf_t *sb, bool first, const char *file, int line, int col, const char *message);
void sarif_flow_end(strbuf_t *sb);
/* A path as a JSON string holding a URI reference: unreserved characters and
 * '/' as they are, everything else percent-encoded. */
void sarif_uri(strbuf_t *sb, const char *path);
/* A 64-bit FNV-1a hash of text as 16 hex digits into buf: the same on every
 * run and machine, for partialFingerprints. */
enum { SARIF_FINGERPRINT_SIZE = 17 };
char *sarif_fingerprint(const char *text, char buf[SARIF_FINGERPRINT_SIZE]);
/* Appends "partialFingerprints": {"NAME": the fingerprint of text}. */
void sarif_fingerprints(strbuf_t *sb, const char *name, const char *text);
/* Closes the results and the log with invocations[0]: executionSuccessful
 * = complete; when not complete, one toolExecutionNotification (level
 * error) per message in notes. */
void sarif_end(strbuf_t *sb, bool complete, const char *const *notes, size_t nnotes);

#endif
