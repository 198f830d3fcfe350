# `make demo` (the main job) and `make check` (every test) configure and
# build with CMake as needed; `deps` installs the build tools a fresh Debian 12
# lacks (scripts/deps.sh: root or sudo). Without make: ./quickstart.sh demo|check.

BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all demo check check-asan bench figures deps install clean

all: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

# Installs the build tools when one is missing (root, or sudo).
deps:
	@bash scripts/deps.sh build

$(BUILD)/Makefile: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

demo: all
	./$(BUILD)/tools/ddpwire/ddpwire demo

# Configured again first: what check's dependencies installed since the
# first configure (Wireshark's development files: the plugin) is found.
check: all
	cmake -S . -B $(BUILD) > /dev/null
	cmake --build $(BUILD) -j $(JOBS)
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

# docs/figures/*.svg from real runs (root measures over network namespaces).
figures: all
	bash scripts/figures.sh ./$(BUILD)/tools/ddpwire/ddpwire docs/figures

# make install [PREFIX=/usr/local] [DESTDIR=/staging]: the library, headers,
# CMake and pkg-config files, the tool, man pages and documents under PREFIX
# (DESTDIR is prepended to every path, for packaging).
# The Wireshark plugin, when built, also goes to Wireshark's global plugin
# folder (WS_PLUGIN_DIR, from pkg-config), where Wireshark looks for it.
PREFIX ?= /usr/local
WS_PLUGIN_DIR ?= $(shell pkg-config --variable=plugindir wireshark 2>/dev/null)
install: all
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX="$(PREFIX)" > /dev/null
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD)
	@set -e; for p in $(BUILD)/wireshark/plugins/*/epan/ddpwire.so; do \
	  if [ -f "$$p" ] && [ -n "$(WS_PLUGIN_DIR)" ]; then \
	    install -D -m 644 "$$p" "$(DESTDIR)$(WS_PLUGIN_DIR)/epan/ddpwire.so"; \
	    echo "-- Installing: $(DESTDIR)$(WS_PLUGIN_DIR)/epan/ddpwire.so"; fi; done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
