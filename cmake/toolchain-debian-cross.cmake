# SPDX-License-Identifier: MIT
# Shared by cmake/toolchain-<arch>.cmake: Debian's <triple>-gcc, its
# sysroot /usr/<triple>, multiarch libraries and qemu-<arch> -L <sysroot>
# as the emulator that runs the tests (ctest).
set(CMAKE_C_COMPILER ${DW_CROSS_TRIPLE}-gcc)
set(DW_CROSS_SYSROOT /usr/${DW_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH ${DW_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config sees only the target's .pc files (libpcap-dev:<arch>, if any).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${DW_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
find_program(DW_QEMU qemu-${CMAKE_SYSTEM_PROCESSOR})
if(DW_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${DW_QEMU} -L ${DW_CROSS_SYSROOT})
endif()
