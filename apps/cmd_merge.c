/* ismv merge: the shard reports of `ismv verify --shard I/N` combined into
 * the report a single run gives (apps/verify_shard.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/verify_shard.h"
#include "ism/alloc.h"
#include "ism/json.h"

static const cli_option_t options[] = {
    {"format", 'f', OPT_CHOICE, NULL, "text|json|sarif|junit|html", "text", 0, -1,
     "output format (as verify's)"},
    {"output", 'o', OPT_STRING, "FILE", NULL, "stdout", 0, -1, "write the report to FILE"},
};

/* The verify values a shard report records (its "options" and "search"),
 * with merge's --format and -o. Strings are borrowed from the document.
 * Returns 0, or the exit code of what is wrong (reported). */
static int values_of(cli_ctx_t *ctx, const json_t *doc, const char *path, const cli_value_t *own,
                     cli_value_t *values) {
  const json_t *o = json_get(doc, "options");
  if (!o || o->kind != JSON_OBJECT) {
    fprintf(ctx->err, "ismv: error: %s: no 'options' object\n", path);
    return CLI_EXIT_INVALID;
  }
  for (size_t k = 0; k < o->len; k++) {
    size_t i = 0;
    while (i < cmd_verify.noptions && strcmp(cmd_verify.options[i].name, o->keys[k]) != 0) i++;
    const json_t *v = o->items[k];
    const cli_option_t *opt = i < cmd_verify.noptions ? &cmd_verify.options[i] : NULL;
    bool fits = opt && (opt->type == OPT_FLAG                           ? v->kind == JSON_BOOL
                        : opt->type == OPT_INT || opt->type == OPT_REAL ? v->kind == JSON_NUMBER
                                                                        : v->kind == JSON_STRING);
    if (!fits) {
      fprintf(ctx->err, "ismv: error: %s: option '%s' is not one of verify's, or of the wrong type\n", path,
              o->keys[k]);
      return CLI_EXIT_INVALID;
    }
    values[i] = (cli_value_t){.set = true, .i = (long long)v->number, .r = v->number, .s = v->text};
    if (opt->type == OPT_FLAG) values[i].i = 1;
  }
  /* the search the shards ran: the merge renders its result */
  const char *search = json_str(doc, "search", "");
  if (strcmp(search, "top-k") && strcmp(search, "full")) {
    fprintf(ctx->err, "ismv: error: %s: 'search' is neither \"top-k\" nor \"full\"\n", path);
    return CLI_EXIT_INVALID;
  }
  const char *format = own[0].set ? own[0].s : "text";
  if (strcmp(search, "top-k") == 0 && strcmp(format, "text") && strcmp(format, "json")) {
    fprintf(ctx->err,
            "ismv: error: the shards ran the top-K search (the default report from bound 7): they merge into "
            "text or json; for --format %s run them with --search full\n",
            format);
    return CLI_EXIT_USAGE;
  }
  for (size_t i = 0; i < cmd_verify.noptions; i++) {
    const char *name = cmd_verify.options[i].name;
    if (strcmp(name, "search") == 0) values[i] = (cli_value_t){.set = true, .s = search};
    if (strcmp(name, "format") == 0) values[i] = own[0];
    if (strcmp(name, "output") == 0) values[i] = own[1];
    if (strcmp(name, "quiet") == 0) values[i] = (cli_value_t){.set = true, .i = 1};
  }
  return CLI_EXIT_OK;
}

/* Loads the reports and puts them in shard order: every shard of one run once, none failed. */
static int load(cli_ctx_t *ctx, const char *const *paths, int npaths, json_doc_t **docs,
                const json_t **shards, const char **shard_paths, int *nshards) {
  for (int f = 0; f < npaths; f++) {
    if (!(docs[f] = json_load(paths[f], &ctx->diags))) return CLI_EXIT_INVALID;
    const json_t *root = docs[f]->root;
    if (json_num(root, "ismv_shard", 0) != VERIFY_SHARD_FORMAT) {
      fprintf(ctx->err, "ismv: error: %s is not a shard report of this `ismv verify --shard` (format %d)\n",
              paths[f], VERIFY_SHARD_FORMAT);
      return CLI_EXIT_INVALID;
    }
    double of = json_num(root, "of", 0), shard = json_num(root, "shard", 0);
    if (!(of >= 1 && of <= 100000 && shard >= 1 && shard <= of && of == (int)of && shard == (int)shard)) {
      fprintf(ctx->err, "ismv: error: %s: 'shard' and 'of' are out of range\n", paths[f]);
      return CLI_EXIT_INVALID;
    }
    if (f == 0) *nshards = (int)of;
    if ((int)of != *nshards || strcmp(json_str(root, "run", ""), json_str(docs[0]->root, "run", "")) != 0) {
      fprintf(
          ctx->err,
          "ismv: error: %s and %s are shards of different runs (model, options or number of shards differ)\n",
          paths[0], paths[f]);
      return CLI_EXIT_USAGE;
    }
    int i = (int)shard - 1;
    if (shards[i]) {
      fprintf(ctx->err, "ismv: error: %s and %s are both shard %d of %d\n", shard_paths[i], paths[f], i + 1,
              *nshards);
      return CLI_EXIT_USAGE;
    }
    shards[i] = root;
    shard_paths[i] = paths[f];
    const json_t *error = json_get(root, "error");
    if (error && error->kind == JSON_STRING) {
      fprintf(ctx->err, "ismv: error: shard %d of %d (%s) failed: %s\n", i + 1, *nshards, paths[f],
              error->text);
      return CLI_EXIT_INTERNAL;
    }
  }
  strbuf_t missing;
  strbuf_init(&missing);
  int nmissing = 0;
  for (int i = 0; i < *nshards; i++)
    if (!shards[i]) strbuf_printf(&missing, "%s%d", nmissing++ ? ", " : "", i + 1);
  if (nmissing)
    fprintf(ctx->err, "ismv: error: shard%s %s of %d missing: the report would be partial\n",
            nmissing > 1 ? "s" : "", strbuf_str(&missing), *nshards);
  strbuf_free(&missing);
  return nmissing ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
}

static int run_merge(cli_ctx_t *ctx, const cli_command_t *self, const char *const *paths, int npaths,
                     const cli_value_t *values) {
  (void)self;
  json_doc_t **docs = xcalloc((size_t)npaths + 1, sizeof *docs);
  const json_t **shards = xcalloc(100001, sizeof *shards);
  const char **shard_paths = xcalloc(100001, sizeof *shard_paths);
  cli_value_t *verify_values = xcalloc(cmd_verify.noptions + 1, sizeof *verify_values);
  int nshards = 0;
  int rc = load(ctx, paths, npaths, docs, shards, shard_paths, &nshards);
  if (!rc) rc = values_of(ctx, shards[0], shard_paths[0], values, verify_values);
  if (!rc) {
    verify_merge_t merge = {nshards, shards, shard_paths};
    const char *model = json_str(shards[0], "model", NULL);
    cli_time_limit_start(ctx->time_limit);
    rc = model ? verify_command(ctx, &cmd_verify, model, verify_values, &merge) : CLI_EXIT_INVALID;
    cli_time_limit_end();
  }
  for (int f = 0; f < npaths; f++)
    if (docs[f]) json_free(docs[f]);
  free(docs), free(shards), free(shard_paths), free(verify_values);
  return rc;
}

const cli_command_t cmd_merge = {
    .name = "merge",
    .kind = NULL,
    .summary = "combine the shard reports of `verify --shard I/N` into one verify report",
    .usage = "SHARD.json... [options]",
    .description =
        "Reads the shard reports that `ismv verify MODEL.yaml --shard I/N -o SHARD.json` wrote for I = 1..N\n"
        "and writes the report the single run `ismv verify MODEL.yaml` with the same options gives, byte\n"
        "for byte, with the same exit code (the model file must be where the shards read it, unchanged).\n"
        "The shards split the search at depth 2 unless told (--split-depth); the report does not depend\n"
        "on the split, the number of shards or --jobs (docs/scale-out.md). A shard cut short by\n"
        "--timeout makes the report partial, naming the shard.\n"
        "Every shard must be given once, all of the same run (model, options, N): shards missing, or\n"
        "one that failed, are an internal error (exit 6) naming them; a shard given twice or shards of\n"
        "different runs are a usage error (exit 1). docs/scale-out.md.",
    .options = options,
    .noptions = sizeof options / sizeof *options,
    .run_all = run_merge,
};
