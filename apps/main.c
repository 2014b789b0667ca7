#include <stdio.h>

#include "apps/cli.h"

int main(int argc, char **argv) {
  cli_handle_signals();
  return cli_main(argc, argv, stdout, stderr);
}
