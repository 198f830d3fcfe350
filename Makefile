# The two quick-start commands: `make demo` (the main job) and `make check`
# (every test). Both configure and build with CMake as needed; `deps`
# installs what a fresh Debian 12 machine lacks (needs root or sudo).

BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
DEB_PACKAGES = build-essential cmake pkg-config libisal-dev libpcap-dev python3 iproute2

.PHONY: all demo check check-asan bench deps install clean

all: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# Installs the build tools when one is missing (root, or sudo).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(BUILD)/Makefile: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

demo: all
	./$(BUILD)/tools/ddpwire/ddpwire demo

check: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
check-asan: | deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DDW_SANITIZE=address,undefined \
	  -DDW_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && DW_TEST_QUICK=1 ctest --output-on-failure -j $(JOBS)

bench: all
	./$(BUILD)/tools/ddpwire/ddpwire bench crc
	./$(BUILD)/tools/ddpwire/ddpwire bench mpa
	./$(BUILD)/tools/ddpwire/ddpwire bench socket

# make install [PREFIX=/usr/local] [DESTDIR=/staging]: the library, headers,
# CMake and pkg-config files, the tool, man pages and documents under PREFIX
# (DESTDIR is prepended to every path, for packaging).
PREFIX ?= /usr/local
install: all
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX="$(PREFIX)" > /dev/null
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
