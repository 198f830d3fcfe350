#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The documents name only what exists: every test function that
# docs/CONFORMANCE.md cites is defined in tests/, examples/ or fuzz/, and every
# source path the README and docs/ name is in the tree.
#   docs_refs_test.sh SOURCE_DIR
set -u
cd "$1" || exit 2
fail=0 n=0
known=$(grep -rhow 'test_[a-z0-9_]*' tests/ examples/ fuzz/ --include='*.[ch]' --include='*.sh' \
          --include='*.py' --include=CMakeLists.txt --exclude=docs_refs_test.sh | sort -u)
cited=$(grep -o 'test_[a-z0-9_]*' docs/CONFORMANCE.md | sort -u)
n=$(wc -l <<< "$cited")
for t in $(comm -23 <(echo "$cited") <(echo "$known")); do
  echo "FAIL: CONFORMANCE.md cites $t, defined nowhere"; fail=$((fail + 1))
done
for f in $(grep -oh '\(tests\|support\|fuzz\|scripts\|examples\|lib\|tools\|bench\|include\)/[A-Za-z0-9_/.-]*\.\(sh\|c\|py\|h\)' \
             docs/*.md README.md lib/README.md | sort -u); do
  n=$((n + 1))
  [ -e "$f" ] || { echo "FAIL: a document names $f, which is not in the tree"; fail=$((fail + 1)); }
done
[ "$n" -gt 100 ] || { echo "FAIL: only $n references found: the patterns no longer match"; fail=$((fail + 1)); }
echo "$((n - fail)) passed, $fail failed"
[ "$fail" = 0 ]
