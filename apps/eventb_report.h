/* Renders the result of `ismv eventb` as text, JSON (schema in docs/eventb.md) or SARIF. */
#ifndef APPS_EVENTB_REPORT_H
#define APPS_EVENTB_REPORT_H

#include "verifier/eventb/eventb.h"

/* A fresh string (caller frees); format is "text", "json" or "sarif". */
char *eventb_render(const eventb_model_t *m, const eventb_result_t *res, const char *format);
/* The compartment picture (res->picture, with rows) as an SVG document; caller frees. */
char *eventb_render_svg(const eventb_model_t *m, const eventb_result_t *res);

#endif
