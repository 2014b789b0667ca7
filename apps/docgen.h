/* Documentation generated from the command table: the man page ismv(1) and
 * bash and zsh completion scripts. Every option, choice list, default and help
 * line comes from the same cli_option_t tables that drive parsing and --help,
 * so the installed documentation cannot drift from the program. */
#ifndef APPS_DOCGEN_H
#define APPS_DOCGEN_H

#include <stdio.h>

/* Writes ismv(1) in man(7) roff to f. Output is deterministic (no date). */
void docgen_man(FILE *f);

/* Writes a bash completion script (for bash-completion's completions/ dir). */
void docgen_bash(FILE *f);

/* Writes a zsh completion function (`_ismv`, for a site-functions dir). */
void docgen_zsh(FILE *f);

/* The generator's command line: `ismv-docgen man|bash|zsh` writes that
 * document to out. Returns 0, or 1 with a message on err for a bad argument. */
int docgen_main(int argc, char **argv, FILE *out, FILE *err);

#endif
