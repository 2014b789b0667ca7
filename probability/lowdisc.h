/* Low-discrepancy points over a box, the deterministic starts of the
 * valuation searches (joint.c, rank.c): Roberts' additive recurrence R_n,
 * point i = frac(1/2 + i (1/g, 1/g^2, ..., 1/g^n)) with g the root of
 * g^(n+1) = g + 1, evenly spread in any dimension n and independent of
 * everything but n and i. */
#ifndef PROBABILITY_LOWDISC_H
#define PROBABILITY_LOWDISC_H

#include <stddef.h>

/* Point i of the sequence in dimension n, scaled to [lo[k], hi[k]] for each
 * coordinate k, into x[0..n-1] (lo and hi finite). */
void lowdisc_point(size_t n, unsigned long i, const double *lo, const double *hi, double *x);

#endif
