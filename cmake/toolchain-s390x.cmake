# SPDX-License-Identifier: MIT
# Cross-compiling for s390x Linux with Debian's cross compiler
# (apt-get install gcc-s390x-linux-gnu; scripts/cross_test.sh does it). Tests
# run under qemu-user when it is installed (apt-get install qemu-user).
#   cmake -S . -B build-s390x --toolchain cmake/toolchain-s390x.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(DW_CROSS_TRIPLE s390x-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
