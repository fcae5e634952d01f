#!/usr/bin/env python3
"""Reads what the metrics server of `tide sync postgres --metrics-port` shows, as JSON on stdout, for
tests/sync/metrics_endpoint_test.cc.

  read_metrics.py metrics URL   /metrics parsed by prometheus_client's text parser:
                                {"families": {name: type}, "samples": [{"name", "labels", "value"}]}
  read_metrics.py page FILE     the status page's DOM (as headless Chromium dumped it) parsed by
                                html.parser: {"loaded", "figures": {id: text}, "tables": {source: {cell: text}}}
"""
import json
import sys
import urllib.request
from html.parser import HTMLParser

from prometheus_client.parser import text_string_to_metric_families


def read_metrics(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        content_type = response.headers.get("Content-Type", "")
        text = response.read().decode("utf-8")
    families, samples = {}, []
    for family in text_string_to_metric_families(text):
        families[family.name] = family.type
        for s in family.samples:
            samples.append({"name": s.name, "labels": s.labels, "value": s.value})
    return {"content_type": content_type, "families": families, "samples": samples, "text": text}


class StatusPage(HTMLParser):
    """The figures (elements with an id inside .figures) and the rows of the tables table."""

    def __init__(self):
        super().__init__()
        self.loaded = False
        self.figures, self.tables = {}, {}
        self._row = None       # source of the <tr data-table> we are in
        self._cell = None      # class of the <td> we are in
        self._figure = None    # id of the <b> we are in
        self._text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body" and a.get("data-loaded") == "true":
            self.loaded = True
        elif tag == "tr" and "data-table" in a:
            self._row = a["data-table"]
            self.tables[self._row] = {}
        elif tag == "td" and self._row is not None:
            self._cell = (a.get("class") or "").split()
            self._text = ""
        elif tag == "b" and "id" in a:
            self._figure = a["id"]
            self._text = ""

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            for c in self._cell:
                if c not in ("num",):
                    self.tables[self._row][c] = self._text.strip()
            self._cell = None
        elif tag == "tr":
            self._row = None
        elif tag == "b" and self._figure is not None:
            self.figures[self._figure] = self._text.strip()
            self._figure = None

    def handle_data(self, data):
        if self._cell is not None or self._figure is not None:
            self._text += data


def read_page(path):
    page = StatusPage()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    return {"loaded": page.loaded, "figures": page.figures, "tables": page.tables}


if __name__ == "__main__":
    what, where = sys.argv[1], sys.argv[2]
    json.dump(read_metrics(where) if what == "metrics" else read_page(where), sys.stdout)
