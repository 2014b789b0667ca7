/* Decimal numerals (ism/number.h): the syntax, the documented range, and
 * exact rationals written out by hand from the literal's digits. */
#include "ism/number.h"

#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"

static void rational(const char *text, const char *want) {
  char *got = number_rational(text);
  CHECK_STREQ(got, want);
  free(got);
}

static bool in_range(const char *text) {
  double v;
  char why[128];
  return number_in_range(text, &v, why, sizeof why);
}

int main(void) {
  CHECK(number_syntax("12", true) && number_syntax("-12", true) && number_syntax("+0", true));
  CHECK(!number_syntax("1.5", true) && !number_syntax("", true) && !number_syntax(" 1", true));
  CHECK(number_syntax("1.5", false) && number_syntax(".5", false) && number_syntax("5.", false));
  CHECK(number_syntax("1e5", false) && number_syntax("1.5E-3", false) && number_syntax("-2e+7", false));
  const char *bad[] = {"nan", "inf", "-inf",  "0x10", "0x1p-1", ".",   "e5",
                       "1e",  "1e+", "1.5.2", " 1",   "1 ",     "--1", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(!number_syntax(bad[i], false));

  rational("1.25", "125/100");
  rational("-1.25", "-125/100");
  rational("0.5e1", "5");
  rational(".5", "5/10");
  rational("5.", "5");
  rational("-0.0", "0");
  rational("0e400", "0");
  rational("007", "7");
  rational("2.5e-3", "25/10000");
  /* 1e400: a one and four hundred zeros, not a value the solver reads as 0 */
  char *big = number_rational("1e400");
  CHECK(big && strlen(big) == 401 && big[0] == '1' && strspn(big + 1, "0") == 400);
  free(big);
  /* a 200-digit mantissa is kept whole */
  char digits[202];
  for (int i = 0; i < 200; i++) digits[i] = (char)('1' + i % 9);
  digits[200] = '\0';
  char text[210];
  snprintf(text, sizeof text, "0.%s", digits);
  char *long_r = number_rational(text);
  char want[420];
  snprintf(want, sizeof want, "%s/1%0200d", digits, 0);
  CHECK_STREQ(long_r, want);
  free(long_r);

  CHECK(in_range("1e308") && in_range("1e-400") && in_range("1e-9999") && in_range("0.5"));
  CHECK(!in_range("1e309") && !in_range("1e400") && !in_range("1e10000") && !in_range("1e-10000"));
  CHECK(!in_range("1e-99999999999999999999") && !in_range("1e99999999999999999999"));
  return CHECK_RESULT();
}
