# SPDX-License-Identifier: MIT
"""Checks a `ddpwire dump --report` page as Chromium rendered it (its DOM,
from --dump-dom) against what `dump --json` and `dump -v` say about the
same capture: the verdict, every connection and direction with its
protocol error and incomplete counts, the client and server, and every
error line (the first 50 per direction, in order, word for word), errors
outside connections too, and a mark on the timeline for errors.

usage: report_check.py DOM.html DUMP.jsonl DUMP-v.txt
Prints what differs and exits 1; exits 0 when all agree."""
import html.parser
import json
import re
import sys

LIST = 50


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows = {}      # (flow, dir) -> attrs
        self.errs = {}      # (flow, dir) -> [text]
        self.glob = []
        self.verdict = None
        self.marks = 0
        self.text = []
        self._ol = None
        self._li = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'tr' and 'data-flow' in a:
            self.rows[(int(a['data-flow']), a['data-dir'])] = a
        elif tag == 'ol' and a.get('class') == 'errs':
            self._ol = (int(a['data-flow']), a['data-dir']) if 'data-flow' in a else 'global'
        elif tag == 'li' and a.get('class') == 'err':
            self._li = []
        elif tag == 'p' and a.get('id') == 'verdict':
            self.verdict = int(a['data-exit'])
        elif tag == 'path' and a.get('class') == 'errmark':
            self.marks += 1

    def handle_endtag(self, tag):
        if tag == 'li' and self._li is not None:
            t = ''.join(self._li)
            if self._ol == 'global':
                self.glob.append(t)
            else:
                self.errs.setdefault(self._ol, []).append(t)
            self._li = None
        elif tag == 'ol':
            self._ol = None

    def handle_data(self, data):
        self.text.append(data)
        if self._li is not None:
            self._li.append(data)


def main():
    dom = Dom()
    dom.feed(open(sys.argv[1], encoding='utf-8').read())
    recs = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    text = open(sys.argv[3], encoding='utf-8').read().splitlines()
    bad = []
    summ = [r for r in recs if r['type'] == 'summary'][-1]
    if dom.verdict != summ['exit']:
        bad.append('verdict: page %r, dump --json %r' % (dom.verdict, summ['exit']))
    alltext = ''.join(dom.text)
    for f in (r for r in recs if r['type'] == 'flow'):
        for side in ('client', 'server'):
            if f[side] not in alltext:
                bad.append('flow %d: %s %s not on the page' % (f['flow'], side, f[side]))
        for d in ('c2s', 's2c'):
            row = dom.rows.get((f['flow'], d))
            if row is None:
                bad.append('flow %d %s: no row in the table' % (f['flow'], d))
                continue
            for key, attr in (('protocol_errors', 'data-protocol-errors'),
                              ('incomplete', 'data-incomplete')):
                if int(row[attr]) != f[d][key]:
                    bad.append('flow %d %s %s: page %s, dump --json %d'
                               % (f['flow'], d, key, row[attr], f[d][key]))
    nflows = len([r for r in recs if r['type'] == 'flow'])
    if len(dom.rows) != 2 * nflows:
        bad.append('%d rows on the page, %d flows in dump --json' % (len(dom.rows), nflows))
    want, glob = {}, []
    for line in text:
        m = re.match(r'^flow (\d+) (c2s|s2c) (ERROR .*)$', line)
        if m:
            want.setdefault((int(m.group(1)), m.group(2)), []).append(m.group(3))
        elif re.match(r'^pkt \d+ ERROR ', line):
            glob.append(line)
    for k in sorted(set(want) | set(dom.errs)):
        w, g = want.get(k, [])[:LIST], dom.errs.get(k, [])
        if w != g:
            bad.append('flow %d %s errors differ:\n  dump -v: %r\n  page:    %r' % (k + (w, g)))
    if glob[:LIST] != dom.glob:
        bad.append('errors outside connections: dump -v %r, page %r' % (glob[:LIST], dom.glob))
    placed = [l for k, v in want.items() for l in v if 'TCP RDMA option' not in l]
    if placed and not dom.marks:
        bad.append('%d errors but no mark on any timeline' % len(placed))
    for b in bad:
        print('report_check: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
