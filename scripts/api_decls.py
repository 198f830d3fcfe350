#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The functions and variables that the public headers declare.

  api_decls.py list HEADER...        one name per line
  api_decls.py check HEADER...       exit 1 naming each declaration
                                     without DW_EXTERN, and each header
                                     whose structure is unbalanced
  api_decls.py balance HEADER...     only the structure check

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


def directives(text):
    """(line number, directive) of each preprocessor line, comments out."""
    s = strip_comments(text)
    return [(i + 1, ln.strip()) for i, ln in enumerate(s.split('\n'))
            if ln.strip().startswith('#')]


def strip_comments(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group(0)),
                  text, flags=re.S)


def balance(text):
    """What is wrong with a header's guard and C++ blocks (a list of texts).

    The house shape: #ifndef G / #define G first; the #endif that closes
    the guard is the last directive; exactly one `extern "C" {` block,
    each C++ line alone in its #ifdef __cplusplus ... #endif; the braces
    balance and every declaration lies inside the extern "C" block.
    """
    errs = []
    d = directives(text)
    if len(d) < 3 or not d[0][1].startswith('#ifndef') or not d[1][1].startswith('#define') \
            or d[0][1].split()[1:2] != d[1][1].split()[1:2]:
        return ['no include guard (#ifndef G / #define G) at the top']
    depth = 0
    for k, (ln, dv) in enumerate(d):
        word = dv[1:].strip().split(' ')[0]
        if word in ('if', 'ifdef', 'ifndef'):
            depth += 1
        elif word == 'endif':
            depth -= 1
            if depth == 0 and k != len(d) - 1:
                errs.append('line %d: the include guard closes before the end' % ln)
                break
            if depth < 0:
                errs.append('line %d: #endif without #if' % ln)
                break
    if depth > 0:
        errs.append('an #if is never closed')
    s = strip_comments(text)
    opens = [m.start() for m in re.finditer(r'#ifdef __cplusplus\b', s)]
    shape_open = re.findall(r'#ifdef __cplusplus[ \t]*\n[ \t]*extern "C" \{[ \t]*\n[ \t]*#endif', s)
    shape_close = re.findall(r'#ifdef __cplusplus[ \t]*\n[ \t]*\}[ \t]*\n[ \t]*#endif', s)
    if not opens and not decls(text):
        pass  # declares nothing (the umbrella): no C++ block needed
    elif len(opens) != 2 or len(shape_open) != 1 or len(shape_close) != 1:
        errs.append('not one extern "C" { ... } block, each brace alone in its '
                    '#ifdef __cplusplus ... #endif')
    else:
        a = s.find(shape_open[0])
        b = s.find(shape_close[0])
        if b < a:
            errs.append('the extern "C" block closes before it opens')
        else:
            for lead, name, _ in decls(text):
                if not a < lead < b:
                    errs.append('%s is declared outside the extern "C" block' % name)
    body = re.sub(r'#ifdef __cplusplus[ \t]*\n[ \t]*(extern "C" \{|\})[ \t]*\n[ \t]*#endif',
                  lambda m: re.sub(r'[^\n]', ' ', m.group(0)), s)
    body = strip(body)
    depth = 0
    for i, ch in enumerate(body):
        depth += (ch == '{') - (ch == '}')
        if depth < 0:
            errs.append('line %d: a } closes nothing' % (body.count('\n', 0, i) + 1))
            break
    if depth > 0:
        errs.append('a { is never closed')
    return errs


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for f in files:
        text = open(f).read()
        if mode in ('check', 'balance'):
            for e in balance(text):
                print('%s: unbalanced: %s' % (f, e))
                bad += 1
        if mode == 'balance':
            continue
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
