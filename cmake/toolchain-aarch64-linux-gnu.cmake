# Cross build for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu; the test executables run
# under qemu-user, which finds the target's loader and libraries in the cross sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(AGENTKIT_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "Libraries of the aarch64 target")

# ctest (and catch_discover_tests, which lists each executable's test cases) run target binaries
# through this.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${AGENTKIT_AARCH64_SYSROOT})

# Target libraries from the sysroot; programs (python3, git, ...) from the host.
set(CMAKE_FIND_ROOT_PATH ${AGENTKIT_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
