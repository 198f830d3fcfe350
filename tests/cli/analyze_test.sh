#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire analyze end to end: usage and exit codes, and `analyze buffers`
# showing what the analysis text's section 7 claims: header-aligned FPDUs
# are placed with nothing held, re-cut ones hold octets per connection.
set -u
D=$1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$1"; fi; }

$D analyze --help > /dev/null; check "[ $? = 0 ]"
$D analyze > /dev/null 2>&1; check "[ $? = 2 ]"
$D analyze nosuchmode > /dev/null 2>&1; check "[ $? = 2 ]"
$D analyze buffers --help | grep -q BufferSizeNAF; check "[ $? = 0 ]"
$D analyze buffers --bogus > /dev/null 2>&1; check "[ $? = 2 ]"
$D analyze buffers --emss 12 > /dev/null 2>&1; check "[ $? = 2 ]"
$D analyze buffers --emss 1500 --cut-min 2000 > /dev/null 2>&1; check "[ $? = 2 ]"

out=$($D analyze buffers --max-conns 100 --fpdus 24 --loss-ppm 20000 --seed 7)
check "[ $? = 0 ]"
echo "$out" | grep -q "^ *1 .*B" ; check "[ $? = 0 ]"
row=$(echo "$out" | awk '$1 == 100')
# aligned: nothing held at all; middlebox: octets held
check "[ \"\$(echo '$row' | awk '{print \$2, \$3}')\" = '0 B' ]"
check "echo '$row' | awk '{exit !(\$4 > 0)}'"
# without a store, aligned FPDUs are still placed early, re-cut ones hardly
nostore=$(echo "$out" | grep "no reassembly store" | awk '{print $7, $9}')
check "echo '$nostore' | awk '{exit !(\$1 > 0 && \$2 < \$1)}'"
check "! echo \"\$out\" | grep -q warning"
# deterministic from the seed
out2=$($D analyze buffers --max-conns 100 --fpdus 24 --loss-ppm 20000 --seed 7)
check "[ \"\$out\" = \"\$out2\" ]"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
