#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every installed header (include/ddpwire/*.h and the generated version.h)
# compiles alone as C11 and as C++17 with -Wall -Wextra -Werror -pedantic,
# and the umbrella <ddpwire/ddpwire.h> includes every one of them (it is
# compiled the same way, so a header broken for C++ breaks it too).
#
#   headers_test.sh SRCDIR GENERATED_INCLUDE CC CXX
# Exit 77 when no C++ compiler was found.
set -u
src=$1 gen=$2 cc=$3 cxx=$4
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
if [ -z "$cxx" ] || ! command -v "$cxx" > /dev/null; then
    echo "SKIP: no C++ compiler (apt-get install g++)"; exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
flags=(-Wall -Wextra -Werror -pedantic -fsyntax-only -I "$src/include" -I "$gen")

headers=()
for h in "$src"/include/ddpwire/*.h "$gen"/ddpwire/*.h; do headers+=("$(basename "$h")"); done
[ "${#headers[@]}" -gt 20 ] || bad "too few headers found: ${headers[*]}"

for h in "${headers[@]}"; do
    printf '#include <ddpwire/%s>\ntypedef int dw_headers_test_unit;\n' "$h" > "$T/one.c"
    if "$cc" -std=c11 "${flags[@]}" -x c "$T/one.c" 2> "$T/err"; then ok; else bad "$h as C11: $(head -5 "$T/err")"; fi
    # twice: the include guard holds
    printf '#include <ddpwire/%s>\n#include <ddpwire/%s>\nint main() { return 0; }\n' "$h" "$h" > "$T/one.cc"
    if "$cxx" -std=c++17 "${flags[@]}" -x c++ "$T/one.cc" 2> "$T/err"; then ok; else bad "$h as C++17: $(head -5 "$T/err")"; fi
done

# The umbrella names every installed header (itself aside).
for h in "${headers[@]}"; do
    [ "$h" = ddpwire.h ] && continue
    if grep -q "^#include <ddpwire/$h>" "$src/include/ddpwire/ddpwire.h"; then ok
    else bad "$h is installed but <ddpwire/ddpwire.h> does not include it"; fi
done
# ... and nothing that is not installed (the simulators are support/, not API).
for inc in $(sed -n 's|^#include <\(ddpwire/[^>]*\)>.*|\1|p' "$src/include/ddpwire/ddpwire.h"); do
    if [ -f "$src/include/$inc" ] || [ -f "$gen/$inc" ]; then ok; else bad "ddpwire.h includes $inc, which is not installed"; fi
done

# C++ sees the declarations with C linkage (a broken extern "C" block
# compiles, but the names would be mangled).
cat > "$T/link.cc" <<'CC'
#include <ddpwire/ddpwire.h>
extern "C" const char *dw_version(void);
int main() { return dw_version() != nullptr ? 0 : 1; }
CC
if "$cxx" -std=c++17 "${flags[@]}" -x c++ "$T/link.cc" 2> "$T/err"; then ok; else bad "extern \"C\" check: $(head -5 "$T/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
