/* The command table's entries: one cli_command_t per apps/cmd_NAME.c. */
#ifndef APPS_COMMANDS_H
#define APPS_COMMANDS_H

#include "apps/cli.h"

extern const cli_command_t cmd_verify;
extern const cli_command_t cmd_simulate;
extern const cli_command_t cmd_robustness;
extern const cli_command_t cmd_robustify;
extern const cli_command_t cmd_masking;
extern const cli_command_t cmd_envelope;
extern const cli_command_t cmd_check;
extern const cli_command_t cmd_eventb;
extern const cli_command_t cmd_report;
extern const cli_command_t cmd_merge;

#endif
