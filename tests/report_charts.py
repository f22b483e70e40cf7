#!/usr/bin/env python3
# report_charts.py -- the e2e tests' check of a counter chart in an HTML report
# (harness report): it is there for the cell, well-formed, a line per arm and series.
#
# usage: report_charts.py REPORT.html CELL TITLE SERIES[,SERIES...] [TITLE SERIES...]
#   TITLE: the chart's title after "MATRIX / CELL: "; SERIES: the medians'
#   data-series; one ending in '+' must rise above 0 in every arm.
# Exits 0, or 1 saying what is wrong.
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def chart(html, cell, title):
    """The <svg> element of the cell's chart called title, parsed, or None."""
    for svg in re.findall(r'<svg .*?</svg>', html, re.S):
        root = ET.fromstring(svg)
        t = root.find(NS + 'title')
        if t is not None and t.text and t.text.endswith(' / %s: %s' % (cell, title)):
            return root
    return None


def bottom(root):
    """The y of the plot's 0: the bottom of its frame (the axes' unfilled rect)."""
    for r in root.iter(NS + 'rect'):
        if r.get('fill') == 'none':
            return float(r.get('y')) + float(r.get('height'))
    sys.exit('no plot frame')


def ys(path):
    """The y of every point of a path's d ("M x y L x y ...")."""
    nums = [float(v) for v in re.findall(r'-?[0-9.]+', path.get('d', ''))]
    return nums[1::2]


def check(html, cell, title, series):
    """'' when the chart holds what series asks for, else what it lacks."""
    root = chart(html, cell, title)
    if root is None:
        return 'no chart %r of cell %r' % (title, cell)
    medians = [p for p in root.iter(NS + 'path') if p.get('class') == 'median']
    arms = sorted({p.get('data-arm') for p in medians})
    if not arms:
        return '%r: no arm drawn' % title
    zero = bottom(root)
    for name in series.split(','):
        key, above = name.rstrip('+'), name.endswith('+')
        for arm in arms:
            line = [p for p in medians if p.get('data-arm') == arm and p.get('data-series') == key]
            if len(line) != 1 or len(ys(line[0])) < 2:
                return '%r: arm %s has no line of %s' % (title, arm, key)
            if above and not any(y < zero - 0.5 for y in ys(line[0])):
                return '%r: arm %s: %s never above 0' % (title, arm, key)
    return ''


def main(argv):
    if len(argv) < 5 or len(argv) % 2 == 0:
        sys.exit('usage: report_charts.py REPORT.html CELL TITLE SERIES[,SERIES...] [TITLE SERIES...]')
    html = open(argv[1], encoding='utf-8').read()
    for i in range(3, len(argv), 2):
        why = check(html, argv[2], argv[i], argv[i + 1])
        if why:
            sys.exit(why)


if __name__ == '__main__':
    main(sys.argv)
