#!/usr/bin/env python3
"""Checks the structure of pecheck's HTML pages. On every page: nothing fetched, and it narrows
without overflowing (every plot scales down, wide tables scroll in their own box).
`pecheck audit --html`: its two plots, the heatmap's cells, each coloured by its fraction of the
bound (dark red past it, only past it), its two tables, and no decay figure (it is the scheme's).
`pecheck check --html`: the matrix, and RoFormer's decay figure with its table as the golden file.
Usage: check_html.py PAGE GOLDEN_DIR DECADES BANDS [--past-bound]   (an audit page: with --past-bound
           some cell must be past the bound, a failing kernel's page; without it none)
       check_html.py --check PAGE GOLDEN_DIR                         (a check page)"""
import re
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


PAST_BOUND = "rgb(120,0,0)"


def common(text, page):
    """What every page must be: self-contained, and within an 800 px window's width."""
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
    # Each plot has a viewBox and is capped at the page's width; tables and text scroll in a box.
    for tag, attrs, _ in page.tags:
        if tag == "svg" and not re.fullmatch(r"0 0 [0-9.]+ [0-9.]+", attrs.get("viewbox", "")):
            fail("a plot without a viewBox: %s" % attrs.get("aria-label"))
    if "svg{max-width:100%;height:auto}" not in text or "overflow-x:auto" not in text:
        fail("the style does not keep plots and tables within the page's width")


def read(page_path):
    text = open(page_path, encoding="utf-8").read()
    page = Page()
    page.feed(text)
    common(text, page)
    return text, page


def audit_page(page_path, decades, bands, past_bound):
    text, page = read(page_path)
    want = ["error against position", "max error by decade and band"]
    if page.svgs != want:
        fail("plots %s, expected %s" % (page.svgs, want))
    lines = [t for t, a, s in page.tags if t == "polyline" and s == 0]
    if len(lines) != 3:
        fail("the error plot has %d lines, expected 3 (bound, RMS, max)" % len(lines))
    cells = [a for t, a, s in page.tags if t == "rect" and s == 1 and a.get("class") == "cell"]
    if len(cells) != decades * bands:
        fail("the heatmap has %d cells, expected %d x %d" % (len(cells), decades, bands))
    # Colour by the fraction of the bound (each checked cell carries it): dark red past 1 only.
    fractions = []
    for a in cells:
        if a.get("fill") == "#f4f4f4":
            continue  # nothing checked there
        f = float(a.get("data-fraction", "nan"))
        fractions.append(f)
        if (a["fill"] == PAST_BOUND) != (not f <= 1):  # NaN or infinite: past it
            fail("a cell at %s of the bound is coloured %s" % (f, a["fill"]))
    past = any(not f <= 1 for f in fractions)
    if past_bound != past:
        fail("cells past the bound: %s, expected %s" % (past, past_bound))
    if "colour: max error / the gate's bound" not in text:
        fail("the heatmap has no key")
    if sum(1 for t, a, s in page.tags if t == "table") != 2:
        fail("expected 2 tables (decades, bands)")
    print("check_html: %s: 2 plots, %d heatmap cells coloured by their fraction of the bound, 2 tables, no fetches, narrows"
          % (page_path, len(cells)))


def check_page(page_path, golden_dir):
    text, page = read(page_path)
    if page.svgs != ["RoFormer long-term decay bound"]:
        fail("plots %s, expected the decay figure alone" % page.svgs)
    if "<h2>The schemes x properties matrix</h2>" not in text or "\nkey: " not in text:
        fail("no matrix")
    # The decay table: distances and the golden values' first 19 digits (the page prints 20).
    golden = {}
    for line in open(golden_dir + "/figures/roformer_decay.txt"):
        if line.strip() and not line.startswith("#"):
            r, v = line.split()
            golden[r] = v
    if len(page.cells) != 2 * len(golden):
        fail("the decay table has %d cells, expected %d" % (len(page.cells), 2 * len(golden)))
    for r, v in zip(page.cells[0::2], page.cells[1::2]):
        if r not in golden or golden[r][:19] != v[:19]:
            fail("decay table row %s %s does not match the golden %s" % (r, v, golden.get(r)))
    print("check_html: %s: the matrix, the decay figure, its table as golden, no fetches, narrows" % page_path)


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check_page(sys.argv[2], sys.argv[3])
    else:
        audit_page(sys.argv[1], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:] == ["--past-bound"])
