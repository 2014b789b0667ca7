/* main of build/MODE/ismv-mpi (make MPI=1): ismv with MPI started first
 * when mpirun launched it (apps/mpi_verify.h). */
#include <stdio.h>

#include "apps/cli.h"
#include "apps/mpi_verify.h"

int main(int argc, char **argv) {
  mpi_verify_init(&argc, &argv);
  cli_handle_signals();
  return mpi_verify_finalize(cli_main(argc, argv, stdout, stderr));
}
