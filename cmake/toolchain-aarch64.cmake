# SPDX-License-Identifier: MIT
# Cross-compiling for aarch64 Linux with Debian's cross compiler
# (apt-get install gcc-aarch64-linux-gnu; scripts/cross_test.sh does it). Tests
# run under qemu-user when it is installed (apt-get install qemu-user).
#   cmake -S . -B build-aarch64 --toolchain cmake/toolchain-aarch64.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(DW_CROSS_TRIPLE aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-debian-cross.cmake)
