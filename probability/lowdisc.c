#include "probability/lowdisc.h"

#include <math.h>

void lowdisc_point(size_t n, unsigned long i, const double *lo, const double *hi, double *x) {
  double g = 2; /* fixed-point iteration g = (1 + g)^(1 / (n + 1)), converged well before 40 steps */
  for (int it = 0; it < 40; it++) g = pow(1 + g, 1.0 / ((double)n + 1));
  double alpha = 1;
  for (size_t k = 0; k < n; k++) {
    alpha /= g;
    double u = fmod(0.5 + (double)i * alpha, 1);
    x[k] = lo[k] + u * (hi[k] - lo[k]);
  }
}
