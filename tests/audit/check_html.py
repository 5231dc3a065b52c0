#!/usr/bin/env python3
"""Checks the structure of a `pecheck audit --html` page: the three plots, the heatmap's cells, the
tables, the decay table against golden/figures/roformer_decay.txt, and that nothing is fetched.
Usage: check_html.py PAGE GOLDEN_DIR DECADES BANDS"""
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []            # (tag, attrs dict, index of the enclosing svg or -1)
        self.svgs = []            # aria-labels
        self.svg = -1
        self.cells = []           # text of <td> cells, in order
        self.in_td = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg":
            self.svgs.append(attrs.get("aria-label", ""))
            self.svg = len(self.svgs) - 1
        self.tags.append((tag, attrs, self.svg))
        if tag == "td":
            self.in_td = True
            self.cells.append("")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.svg = -1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = -1
        if tag == "td":
            self.in_td = False

    def handle_data(self, data):
        if self.in_td:
            self.cells[-1] += data


def fail(why):
    print("check_html: " + why)
    sys.exit(1)


def main(page_path, golden_dir, decades, bands):
    text = open(page_path, encoding="utf-8").read()
    page = Page()
    page.feed(text)
    want = ["error against position", "max error by decade and band", "RoFormer long-term decay bound"]
    if page.svgs != want:
        fail("plots %s, expected %s" % (page.svgs, want))
    lines = [t for t, a, s in page.tags if t == "polyline" and s == 0]
    if len(lines) != 3:
        fail("the error plot has %d lines, expected 3 (bound, RMS, max)" % len(lines))
    cells = [a for t, a, s in page.tags if t == "rect" and s == 1]
    if len(cells) != decades * bands:
        fail("the heatmap has %d cells, expected %d x %d" % (len(cells), decades, bands))
    if sum(1 for t, a, s in page.tags if t == "table") != 3:
        fail("expected 3 tables (decades, bands, decay)")
    # Nothing fetched: no scripts, no sources or links, no CSS imports or urls.
    for tag, attrs, _ in page.tags:
        if tag in ("script", "link", "img", "iframe", "object", "embed"):
            fail("a <%s> element" % tag)
        for name in ("src", "href", "srcset"):
            if name in attrs:
                fail("a %s attribute on <%s>" % (name, tag))
        for name, value in attrs.items():
            if name != "xmlns" and value and "http" in value:
                fail("an address in %s of <%s>: %s" % (name, tag, value))
    if "url(" in text or "@import" in text:
        fail("a CSS url or import")
    # The decay table: distances and the golden values' first 19 digits (the page prints 20).
    golden = {}
    for line in open(golden_dir + "/figures/roformer_decay.txt"):
        if line.strip() and not line.startswith("#"):
            r, v = line.split()
            golden[r] = v
    tail = page.cells[-2 * len(golden):]
    for r, v in zip(tail[0::2], tail[1::2]):
        if r not in golden or golden[r][:19] != v[:19]:
            fail("decay table row %s %s does not match the golden %s" % (r, v, golden.get(r)))
    print("check_html: %s: 3 plots, %d heatmap cells, 3 tables, no fetches, decay table as golden" % (page_path, len(cells)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
