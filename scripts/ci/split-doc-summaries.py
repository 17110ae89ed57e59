#!/usr/bin/env python3
"""Splits doc comments whose first sentence runs into more text, as swift-format's
BeginDocumentationCommentWithOneLineSummary asks: "/// Summary. More." becomes "/// Summary.",
"///", "/// More.". Reads `swift format lint` output (a file, or standard input) and edits only the
comments it names, and only where the sentence it quotes is found. Used by
`scripts/ci/format-lint.sh --fix`; prints what it could not place.
"""
import collections
import re
import sys

findings = collections.defaultdict(list)
for line in (open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin):
    m = re.match(r'^(.+?\.swift):(\d+):(\d+): \w+: \[BeginDocumentationCommentWithOneLineSummary\] add a blank comment line after this sentence: "(.*)"$', line.strip())
    if m:
        findings[m.group(1)].append((int(m.group(2)), m.group(4)))
def norm(t):
    t = re.sub(r'``[^`]*``', '', t)
    t = re.sub(r'`[^`]*`', '', t)
    return re.sub(r'[^A-Za-z0-9]', '', t)
done = 0; failed = []
for path, items in findings.items():
    lines = open(path).read().split('\n')
    for lineno, sentence in sorted(items, reverse=True):
        i = lineno - 1
        # the doc block ends right above the declaration at i (attributes may sit between)
        j = i - 1
        while j >= 0 and lines[j].lstrip().startswith('@'):
            j -= 1
        block = []
        while j >= 0 and lines[j].lstrip().startswith('///'):
            block.insert(0, j); j -= 1
        target = norm(sentence)
        hit = None
        acc = ''
        for k in block:
            raw = lines[k]
            prefix = raw[:raw.index('///') + 3]
            content = raw[len(prefix):]
            for pos, ch in enumerate(content):
                if ch in '.?!' and (pos + 1 == len(content) or content[pos + 1] == ' '):
                    if norm(acc + content[:pos + 1]) == target:
                        hit = (k, prefix, content, pos); break
            if hit: break
            acc += content + ' '
        if not hit:
            failed.append((path, lineno, sentence)); continue
        k, prefix, content, pos = hit
        head = content[:pos + 1].rstrip()
        tail = content[pos + 1:].strip()
        new = [prefix + head, prefix]
        if tail:
            lead = ' ' if content.startswith(' ') else ''
            new.append(prefix + lead + tail)
        elif k + 1 < len(lines) and lines[k + 1].lstrip().startswith('///') and lines[k + 1].strip() == '///':
            new = [prefix + head]  # already a blank line
        lines[k:k + 1] = new
        done += 1
    open(path, 'w').write('\n'.join(lines))
print('split %d doc summaries' % done)
for path, lineno, sentence in failed:
    print('not split: %s:%d: "%s"' % (path, lineno, sentence))
