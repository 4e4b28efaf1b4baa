# Copyright 2026 The native-selector Authors
# SPDX-License-Identifier: Apache-2.0
# Cross-compiles for linux-aarch64 with Debian's cross toolchain (gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross). The JNI headers stay the building JDK's: jni.h and include/linux/jni_md.h
# are the same for every 64-bit Linux. Tests run under qemu-user when it is installed.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
endif()

set(NS_AARCH64_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH ${NS_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(NS_QEMU_AARCH64 qemu-aarch64)
if(NS_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${NS_QEMU_AARCH64} -L ${NS_AARCH64_SYSROOT})
endif()
