#!/usr/bin/env python3
"""Prints the table literal of one of kube-scheduler's table-driven tests, verbatim.

usage: extract.py FILE FUNC --body  -- the statements of function FUNC before its first
`for` loop, verbatim (the listers and fixtures a test declares before its table, and the
table): for the tests whose cases read objects declared beside the table.
       extract.py FILE FUNC [VAR]  -- the first `VAR := []struct{...}{...}` (VAR defaults to
any name) in function FUNC of FILE (a path under k8s.io/kubernetes@v1.37.2/pkg/scheduler/
framework/plugins/ in the Go module cache). Used to transcribe the tables in this directory;
the output is pasted as the body of a function, with upstream's helpers next to it.
"""
import re, sys

def match_close(s, i):
    """s[i] is '{'; return the index of its matching '}' (skipping strings, runes, comments)."""
    depth, n = 0, len(s)
    while i < n:
        c = s[i]
        if s.startswith('//', i):
            i = s.index('\n', i)
            continue
        if s.startswith('/*', i):
            i = s.index('*/', i) + 2
            continue
        if c in '"\'':
            j = i + 1
            while s[j] != c:
                j += 2 if s[j] == '\\' else 1
            i = j + 1
            continue
        if c == '`':
            i = s.index('`', i + 1) + 1
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise SystemExit('unbalanced')

src = open(sys.argv[1]).read()
fn = re.search(r'^func %s\(' % re.escape(sys.argv[2]), src, re.M)
if not fn:
    raise SystemExit('no func ' + sys.argv[2])
if len(sys.argv) > 3 and sys.argv[3] == '--body':
    body = src.index('{', fn.end()) + 1
    loop = re.compile(r'^\tfor ', re.M).search(src, body)
    print(src[body:loop.start()].strip('\n'))
    raise SystemExit(0)
var = sys.argv[3] if len(sys.argv) > 3 else r'\w+'
m = re.compile(r'(%s) := \[\]struct \{' % var).search(src, fn.end())
start = m.start()
close_type = match_close(src, m.end() - 1)
lit = src.index('{', close_type + 1)
end = match_close(src, lit)
print(src[start:end + 1])
