/* `ismv verify` over MPI ranks (make MPI=1: build/MODE/ismv-mpi, Open MPI;
 * docs/scale-out.md). Under `mpirun -np N`, every rank loads the model and
 * searches above the split; rank 0 then hands out the subtrees one at a
 * time to the ranks that ask (dynamic: their sizes differ by orders of
 * magnitude), the other ranks search and rank them on their --jobs threads
 * and send each back as JSON (verifier/paths/distribute.h), and rank 0
 * writes the one report, the same as a single process's. Only the files
 * built with -DISMV_MPI include this header. */
#ifndef APPS_MPI_VERIFY_H
#define APPS_MPI_VERIFY_H

#include "apps/verify_shard.h"

/* Initialises MPI when the process was started by mpirun (Open MPI's or
 * PMIx's environment), else does nothing: the program then runs alone.
 * Call once, first thing in main. */
void mpi_verify_init(int *argc, char ***argv);
/* Ends MPI (if started) and returns the process's exit code: rc. */
int mpi_verify_finalize(int rc);
/* The number of ranks (1 without mpirun) and this one's (0 without). */
int mpi_verify_size(void);
int mpi_verify_rank(void);

/* verify_search for a run of several ranks. Rank 0: fills *res with the
 * whole result, ranked and sorted (returns -1), or reports a failed rank
 * (exit 6). Other ranks: search what rank 0 hands out and return 0 (a
 * failure of theirs is reported to rank 0, which exits 6). */
int mpi_verify_search(const verify_job_t *job, explore_result_t *res);

#endif
