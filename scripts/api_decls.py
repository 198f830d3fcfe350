#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The functions and variables that the public headers declare.

  api_decls.py list HEADER...        one name per line
  api_decls.py check HEADER...       exit 1 naming each declaration
                                     without DW_EXTERN

A small scanner for the house's header style: comments and preprocessor
lines are skipped, braces tracked; a top-level statement ending in ';' that
is not a typedef, struct or enum definition is a declaration.
"""
import re
import sys


def strip(text):
    """Comments and preprocessor lines blanked, offsets kept."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = ' '
            i = j
        elif text[i] == '#' and (i == 0 or text[i - 1] == '\n'):
            j = i
            while True:  # continued lines
                e = text.find('\n', j)
                e = n if e < 0 else e
                if e > 0 and text[e - 1] == '\\' and e < n:
                    j = e + 1
                    continue
                break
            for k in range(i, e):
                out[k] = ' '
            i = e
        else:
            i += 1
    return ''.join(out)


def blank(m):
    return re.sub(r'[^\n]', ' ', m.group(0))


def decls(text):
    """(start offset, name, text) of each top-level declaration."""
    # the C++ guards' braces are not scopes
    text = re.sub(r'#ifdef __cplusplus\n(extern "C" \{|\})\n#endif', blank, text)
    s = strip(text)
    depth, start, res = 0, 0, []
    for i, ch in enumerate(s):
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:
                start = i + 1
        elif ch == ';' and depth == 0:
            stmt = s[start:i]
            body = stmt.strip()
            lead = start + (len(stmt) - len(stmt.lstrip()))
            start = i + 1
            if not body or body.startswith(('typedef', 'struct', 'enum', 'union')):
                continue
            if body.startswith('extern "C"'):
                continue
            m = re.search(r'(\w+)\s*\(', body)
            if '(' in body and m and not body.startswith('('):
                res.append((lead, m.group(1), body))
            elif body.startswith(('extern', 'DW_EXTERN extern')):
                v = re.search(r'(\w+)\s*(\[[^\]]*\])?\s*$', body)
                res.append((lead, v.group(1), body))
    return res


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for f in files:
        text = open(f).read()
        for _, name, body in decls(text):
            if mode == 'list':
                print(name)
            elif not body.startswith('DW_EXTERN'):
                print('%s: %s is declared without DW_EXTERN' % (f, name))
                bad += 1
    if mode == 'annotate':  # once: put DW_EXTERN before each declaration
        for f in files:
            text = open(f).read()
            for lead, _, body in sorted(decls(text), reverse=True):
                if not body.startswith('DW_EXTERN'):
                    text = text[:lead] + 'DW_EXTERN ' + text[lead:]
            open(f, 'w').write(text)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
