#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The documents name only what exists: every test function that
# docs/CONFORMANCE.md cites is defined in tests/, examples/ or fuzz/, every
# source path the README and docs/ name is in the tree, and every dw_* name
# the README, docs/*.md, lib/README.md and the man pages cite is declared in
# a public header or defined in the source ("dw_sock_*" style prefixes: some
# name starts with it).
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
known=$(grep -rhow 'dw_[a-zA-Z0-9_]*' include lib support tools bench examples fuzz wireshark tests \
          --include='*.[ch]' --include='*.cc' --include='*.cpp' --include='*.py' --include='*.sh' \
          --exclude=docs_refs_test.sh | sort -u)
names=0
for t in $(grep -rhow 'dw_[a-zA-Z0-9_]*' README.md docs/*.md lib/README.md docs/man/*.1 | sort -u); do
  names=$((names + 1))
  case $t in
    *_) grep -q "^$t" <<< "$known" && continue ;; # a prefix: dw_sock_*
    *) grep -qx "$t" <<< "$known" && continue ;;
  esac
  echo "FAIL: the documents cite $t, declared or defined nowhere ($(grep -rlw "$t" README.md docs lib/README.md | tr '\n' ' '))"
  fail=$((fail + 1))
done
n=$((n + names))
[ "$names" -gt 20 ] || { echo "FAIL: only $names dw_* names found: the pattern no longer matches"; fail=$((fail + 1)); }
[ "$n" -gt 100 ] || { echo "FAIL: only $n references found: the patterns no longer match"; fail=$((fail + 1)); }
echo "$((n - fail)) passed, $fail failed"
[ "$fail" = 0 ]
