#!/usr/bin/env bash
# CI step: every relative link in the Markdown documents (README, ARCHITECTURE, CONTRIBUTING, the
# fixtures' and demo media's READMEs, the DocC articles) names a file or folder that exists.
# Alone: scripts/ci/links.sh. Web links (http, https, mailto), anchors (#...) and DocC's own
# <doc:...> and ``symbol`` links are not checked here (docc checks the last two).
set -uo pipefail
cd "$(dirname "$0")/../.."
python3 - <<'PY'
import os, re, subprocess, sys
files = subprocess.run(["git", "ls-files", "*.md"], capture_output=True, text=True, check=True).stdout.split()
link = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
fence = re.compile(r"^\s*(```|~~~)")
broken = []
count = 0
for path in files:
    inside = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if fence.match(line):
                inside = not inside
                continue
            if inside:
                continue
            for target in link.findall(line):
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#") or target.startswith("<"):
                    continue
                count += 1
                relative = target.split("#", 1)[0]
                if not relative:
                    continue
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), relative))
                if not os.path.exists(resolved):
                    broken.append(f"{path}:{number}: {target} ({resolved} does not exist)")
for line in broken:
    print(line)
if broken:
    print(f"FAILED links: {len(broken)} of {count} relative links name no file (first: {broken[0]})")
    sys.exit(1)
print(f"ok links: {count} relative links in {len(files)} Markdown files all resolve")
PY
