#!/usr/bin/env python3
"""Checks an `ismv report` page against the JSON results it was made from.

usage: report_check.py [--drawn] PAGE.html RESULT.json...

--drawn: the verify sections draw the state machine (report --model, verify
--format html): the chosen counterexample's rules, and only they, are red.

The page must be well-formed (XML-parseable, every tag closed), refer to
nothing outside itself, and show every counterexample and failure class
(verify), simulation (simulate), trace (robustness), deviation set
(envelope), move (masking) and check (eventb) of the JSON, in the sections
the report gives each input (a simulate result of the same model as a
verify result goes inside that section). Reads the JSON with Python's own
json module, independently of ismv's reader. Exit 0 when all holds."""
import html.parser
import json
import re
import sys
import xml.etree.ElementTree as ET

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}
failures = []


def fail(msg):
    failures.append(msg)


class TagBalance(html.parser.HTMLParser):
    """The HTML tokenizer's view: every non-void start tag is closed, in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            fail("html: </%s> at %s does not close %s" % (tag, self.getpos(), self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()


def text_of(el):
    return re.sub(r"\s+", " ", "".join(el.itertext())).strip()


def check_self_contained(page):
    for bad in ("http:", "https:", "ftp:", "file:", "//", "url(", "@import", " src=", "<link", "<img", "<iframe", "<object", "<embed"):
        if bad in page:
            fail("external reference: page contains %r" % bad)
    for href in re.findall(r'href="([^"]*)"', page):
        if not href.startswith("#"):
            fail("external reference: href=%r" % href)


def by_id(root):
    return {el.get("id"): el for el in root.iter() if el.get("id")}


def check_verify(sec, ids, res, model_drawn):
    sid = sec.get("id")
    for k, cl in enumerate(res.get("classes", [])):
        row = ids.get("%s-class-%d" % (sid, k + 1))
        if row is None:
            fail("%s: failure class %d missing" % (sid, k + 1))
            continue
        t = text_of(row)
        for want in (cl["rule"], cl["condition"], "counterexample %d" % cl["top"]):
            if want not in t:
                fail("%s: class %d row lacks %r: %r" % (sid, k + 1, want, t))
    for c in res.get("counterexamples", []):
        el = ids.get("%s-cex-%d" % (sid, c["id"]))
        if el is None:
            fail("%s: counterexample %d missing" % (sid, c["id"]))
            continue
        t = text_of(el)
        for want in c["path"] + c["states"] + [c["failure"]["condition"], "counterexample %d" % c["id"]]:
            if want not in t:
                fail("%s: counterexample %d lacks %r" % (sid, c["id"], want))
        rows = el.findall(".//table/tbody/tr")
        if len(rows) != len(c["steps"]) + 1:
            fail("%s: counterexample %d has %d table rows, want %d" % (sid, c["id"], len(rows), len(c["steps"]) + 1))
    if model_drawn and res.get("counterexamples"):
        fig = ids.get("%s-machine" % sid)
        if fig is None:
            fail("%s: no drawing of the state machine" % sid)
            return
        top = res["classes"][0]["top"] if res.get("classes") else res["counterexamples"][0]["id"]
        chosen = [c for c in res["counterexamples"] if c["id"] == top][0]
        lit = [" ".join(t.text or "" for t in el.iter("text")) or text_of(el)  # the label, not the <title>
               for el in fig.iter() if "hl" in (el.get("class") or "").split() and "-rule-" in el.get("id", "")]
        for rule in chosen["path"]:
            if not any(t.split()[0] == rule for t in lit if t):
                fail("%s: rule %s of counterexample %d is not highlighted (%r)" % (sid, rule, top, lit))
        for rule in {t.split()[0] for t in lit if t} - set(chosen["path"]):
            fail("%s: rule %s is highlighted but not on counterexample %d" % (sid, rule, top))


def check_simulate(ids, sid, res):
    fig = ids.get("%s-scatter" % sid)
    if fig is None:
        fail("%s: no scatter plot" % sid)
        return
    points = [c for c in fig.iter() if c.tag == "circle"]
    want = sum(1 for r in res["rows"] if not r["boundary_only"])
    if len(points) != want:
        fail("%s: scatter has %d points, want %d" % (sid, len(points), want))


def check_traces(ids, sid, name, traces):
    for k, tr in enumerate(traces):
        row = ids.get("%s-%s-%d" % (sid, name, k + 1))
        if row is None:
            fail("%s: %s %d missing" % (sid, name, k + 1))
        elif ", ".join(tr["trace"]) not in text_of(row):
            fail("%s: %s %d lacks %r" % (sid, name, k + 1, tr["trace"]))


def check_robustness(ids, sid, res):
    check_traces(ids, sid, "trace", res["traces"])
    wa = res.get("weakest_assumption_lts")
    if wa and len(wa["transitions"]) != res["weakest_assumption"]["transitions"]:
        fail("%s: weakest_assumption_lts has %d transitions, weakest_assumption says %d"
             % (sid, len(wa["transitions"]), res["weakest_assumption"]["transitions"]))
    if wa and len(wa["transitions"]) <= 300:
        fig = ids.get("%s-wa" % sid)
        if fig is None:
            fail("%s: the weakest assumption is not drawn" % sid)
        elif "list" in (fig.get("class") or "").split():  # built without Graphviz
            for t in wa["transitions"]:
                if "(%d, %s, %d)" % tuple(t) not in text_of(fig):
                    fail("%s: transition %r not listed" % (sid, t))
        else:
            edges = [g for g in fig.iter("g") if "edge" in (g.get("class") or "").split()]
            labels = sorted(" ".join(t.text or "" for t in g.iter("text")) for g in edges)
            if labels != sorted(t[1] for t in wa["transitions"]):
                fail("%s: the weakest assumption's drawn edges differ from its %d transitions" % (sid, len(wa["transitions"])))
    for key, name in (("a_not_b", "a-not-b"), ("b_not_a", "b-not-a")):
        if key in res:
            check_traces(ids, sid, name, res[key]["traces"])


def check_envelope(ids, sid, res):
    normal = {tuple(t) for t in res.get("normal", [])}
    for k, d in enumerate(res["deltas"]):
        h = ids.get("%s-delta-%d" % (sid, k + 1))
        want = "d%d: %d transitions" % (k + 1, len(d))
        if "normal" in res:
            want += ", %d deviations" % sum(1 for t in d if tuple(t) not in normal)
        if h is None or text_of(h) != want:
            fail("%s: deviation set d%d missing or miscounted: %r, want %r" % (sid, k + 1, h is not None and text_of(h), want))


def check_masking(sec, sid, res):
    tables = [t for t in sec.iter("table") if "play" in (t.get("class") or "")]
    if not res["trace"]:
        return
    if not tables:
        fail("%s: no play table" % sid)
        return
    rows = tables[0].findall("./tbody/tr")
    if len(rows) != len(res["trace"]):
        fail("%s: play table has %d rows, want %d" % (sid, len(rows), len(res["trace"])))
    for row, move in zip(rows, res["trace"]):
        if move.get("action") and move["action"] not in text_of(row):
            fail("%s: move %r missing" % (sid, move["action"]))


def check_eventb(ids, sid, res):
    for k, (name, c) in enumerate(res["checks"].items()):
        row = ids.get("%s-check-%d" % (sid, k + 1))
        if row is None:
            fail("%s: check %s missing" % (sid, name))
            continue
        cells = [text_of(td) for td in row.findall("td")]
        if cells[0] != name or cells[1] != ("holds" if c["holds"] else "fails"):
            fail("%s: check %s shown as %r" % (sid, name, cells[:2]))
        for part in (c.get("witness") or {}):
            if part not in cells[5]:
                fail("%s: check %s lacks witness part %r" % (sid, name, part))


def kind_of(res):
    if "command" in res:
        return res["command"]
    for key, kind in (("counterexamples", "verify"), ("spearman", "simulate"), ("weakest_assumption", "robustness"),
                      ("deltas", "envelope"), ("masks", "masking"), ("checks", "eventb")):
        if key in res:
            return kind
    return None


def main():
    args = sys.argv[1:]
    drawn = args[0] == "--drawn"
    if drawn:
        args = args[1:]
    page_path, json_paths = args[0], args[1:]
    page = open(page_path, encoding="utf-8").read()
    results = [json.load(open(p, encoding="utf-8")) for p in json_paths]
    if not page.startswith("<!DOCTYPE html>\n"):
        fail("no HTML5 doctype")
    tb = TagBalance()
    tb.feed(page)
    tb.close()
    if tb.stack:
        fail("html: unclosed %s" % tb.stack)
    check_self_contained(page)
    try:
        root = ET.fromstring(page[len("<!DOCTYPE html>\n"):])
    except ET.ParseError as e:
        fail("not well-formed: %s" % e)
        root = None
    if root is not None:
        ids = by_id(root)
        sections = [s for s in root.iter("section") if "result" in (s.get("class") or "").split()]
        verify_models = {r.get("model") for r in results if kind_of(r) == "verify"}
        shown = [r for r in results if not (kind_of(r) == "simulate" and r.get("model") in verify_models)]
        if len(sections) != len(shown):
            fail("%d sections for %d results" % (len(sections), len(shown)))
        for sec, res in zip(sections, shown):
            sid, kind = sec.get("id"), kind_of(res)
            if kind not in (sec.get("class") or "").split():
                fail("%s: section is not of %s" % (sid, kind))
            if kind == "verify":
                check_verify(sec, ids, res, drawn)
                sims = [r for r in results if kind_of(r) == "simulate" and r.get("model") == res.get("model")]
                if sims:
                    check_simulate(ids, sid + "-sim", sims[0])
            elif kind == "simulate":
                check_simulate(ids, sid, res)
            elif kind == "robustness":
                check_robustness(ids, sid, res)
            elif kind == "envelope":
                check_envelope(ids, sid, res)
            elif kind == "masking":
                check_masking(sec, sid, res)
            elif kind == "eventb":
                check_eventb(ids, sid, res)
    for f in failures[:30]:
        print("FAIL %s: %s" % (page_path, f))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
