#include "apps/scatter_svg.h"

void scatter_svg(strbuf_t *sb, const char *title, const scatter_point_t *pts, size_t n) {
  const double W = 480, H = 480, L = 60, B = 50, S = 400; /* plot square S at (L, H - B - S) */
  strbuf_printf(
      sb,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      W, H);
  strbuf_printf(sb, "<text x=\"%g\" y=\"18\" text-anchor=\"middle\">", L + S / 2);
  strbuf_xml_text(sb, title);
  strbuf_puts(sb, "</text>\n");
  double x0 = L, y0 = H - B;
  strbuf_printf(sb, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n",
                x0, y0 - S, S, S);
  strbuf_printf(sb,
                "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"gray\" stroke-dasharray=\"4 4\"/>\n",
                x0, y0, x0 + S, y0 - S);
  for (int t = 0; t <= 10; t += 2) {
    double f = t / 10.0;
    strbuf_printf(sb, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%.1f</text>\n", x0 + f * S, y0 + 16, f);
    strbuf_printf(sb, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.1f</text>\n", x0 - 6, y0 - f * S + 4, f);
  }
  strbuf_printf(sb, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">predicted probability</text>\n",
                x0 + S / 2, H - 12);
  strbuf_printf(sb,
                "<text x=\"16\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 16 %g)\">observed "
                "frequency</text>\n",
                y0 - S / 2, y0 - S / 2);
  for (size_t k = 0; k < n; k++) {
    const scatter_point_t *p = &pts[k];
    double x = x0 + p->predicted * S;
    strbuf_printf(sb, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"steelblue\"/>\n", x,
                  y0 - p->ci_lo * S, x, y0 - p->ci_hi * S);
    strbuf_printf(sb, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"><title>", x, y0 - p->observed * S,
                  p->agrees ? "steelblue" : "firebrick");
    strbuf_xml_text(sb, p->label);
    strbuf_puts(sb, "</title></circle>\n");
  }
  strbuf_puts(sb, "</svg>\n");
}
