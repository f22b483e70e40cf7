# mglru-harness: `make demo` runs the example matrix, `make test` the tests.
# Both install missing Debian packages, build, and make images first;
# a second run redoes nothing already done.

CC       ?= gcc
CFLAGS   ?= -O2 -g
WARN     := -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2
ARCHS    := x86_64 aarch64
PKGS     := libvirt jansson sqlite3 libcurl libmicrohttpd
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer
# The unit tests link a jansson of their own, built from Debian's source with
# the same sanitizers (tests/build-jansson.sh), so ASan sees a json_* call read
# freed or overrun memory too; the other libraries are the system's.
JANSSON_SAN_DIR := tests/build/jansson
JANSSON_SAN     := $(JANSSON_SAN_DIR)/lib/libjansson.a
SAN_PKGS        := $(filter-out jansson,$(PKGS))

# Every harness module but the two mains goes into both programs.
COMMON_SRC  := $(filter-out harness/main.c harness/harnessd.c,$(wildcard harness/*.c)) \
               guest/proto.c guest/fioargs.c
HARNESS_SRC := harness/main.c $(COMMON_SRC)
HARNESSD_SRC := harness/harnessd.c $(COMMON_SRC)
AGENT_SRC   := $(wildcard guest/*.c)
HEADERS     := $(wildcard harness/*.h guest/*.h)

HARNESS := harness/build/harness
HARNESSD := harness/build/harnessd
# Guest architectures: a static agent, a static fio and images for each.
AGENTS  := $(foreach a,$(ARCHS),guest/build/agent-$(a))
FIOS    := $(foreach a,$(ARCHS),images/out/$(a)/fio)
CROSS_CC_x86_64  := $(CC)
CROSS_CC_aarch64 := aarch64-linux-gnu-gcc

UNIT_TESTS := tests/build/test_abba tests/build/test_spec tests/build/test_proto \
              tests/build/test_zipf tests/build/test_fio
UNIT_TESTS += tests/build/test_streams
UNIT_TESTS += tests/build/test_ycsb
UNIT_TESTS += tests/build/test_sampler
UNIT_TESTS += tests/build/test_sha256
UNIT_TESTS += tests/build/test_fetch
UNIT_TESTS += tests/build/test_api
UNIT_TESTS += tests/build/test_arch
UNIT_TESTS += tests/build/test_stats
UNIT_TESTS += tests/build/test_compare
UNIT_TESTS += tests/build/test_report
UNIT_TESTS += tests/build/test_extend
UNIT_TESTS += tests/build/test_plot
UNIT_TESTS += tests/build/test_race

# Debian packages the build, the images and the tests need.
DEBS := gcc make pkg-config libc6-dev libvirt-dev libjansson-dev libsqlite3-dev \
        libcurl4-openssl-dev libcmocka-dev libvirt-daemon libvirt-daemon-driver-qemu \
        qemu-system-x86 qemu-utils busybox-static e2fsprogs cpio xz-utils kmod \
        sqlite3 passwd ca-certificates dpkg-dev zlib1g-dev libmicrohttpd-dev python3 curl cmake
# aarch64 guests: QEMU, the cross compiler and its static libc, arm64 jansson
# (multiarch, beside the amd64 one); busybox-static:arm64 is only downloaded.
DEBS += qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross libjansson-dev:arm64
# ycsb streams: LevelDB's C API linked statically into the agent (amd64 and,
# multiarch, arm64 with the cross C++ runtime) and into the host's loader.
DEBS += libleveldb-dev libsnappy-dev g++-aarch64-linux-gnu libleveldb-dev:arm64 libsnappy-dev:arm64
# tests/e2e_report.sh renders the HTML report in headless Chromium.
DEBS += chromium

.PHONY: all deps build images demo test unit lint e2e bench clean distclean fuzz fuzz-deps fuzz-build

all: build

# Install the Debian packages of a list that are missing (the :arm64 ones
# after adding that dpkg architecture): $(call install_debs,LIST).
define install_debs
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if echo "$$missing" | grep -q ':arm64' && \
		   ! dpkg --print-foreign-architectures | grep -qx arm64; then \
			echo "adding dpkg architecture arm64"; dpkg --add-architecture arm64; \
		fi; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi
endef

deps:
	$(call install_debs,$(DEBS))

# The YCSB load phase, run once per database on the host (images/ycsb-load.c).
YCSB_LOAD := harness/build/ycsb-load

build: deps $(HARNESS) $(HARNESSD) $(AGENTS) $(YCSB_LOAD)

$(YCSB_LOAD): images/ycsb-load.c guest/ycsb.c guest/zipf.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -Iguest images/ycsb-load.c guest/ycsb.c guest/zipf.c -o $@ \
		$$(pkg-config --cflags jansson) -lleveldb -lpthread -lm

$(HARNESS): $(HARNESS_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -Iharness -Iguest $(HARNESS_SRC) -o $@ \
		$$(pkg-config --cflags --libs $(PKGS)) -lpthread -lm

$(HARNESSD): $(HARNESSD_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -Iharness -Iguest $(HARNESSD_SRC) -o $@ \
		$$(pkg-config --cflags --libs $(PKGS)) -lpthread -lm

guest/build/agent-%: $(AGENT_SRC) $(wildcard guest/*.h)
	@mkdir -p $(@D)
	$(CROSS_CC_$*) $(WARN) $(CFLAGS) -static -Iguest $(AGENT_SRC) -o $@ -ljansson \
		-lleveldb -lsnappy -lstdc++ -lpthread -lm

# build.sh skips what is up to date: a second make images redoes nothing.
images: deps $(AGENTS) $(FIOS)
	@for a in $(ARCHS); do images/build.sh $$a guest/build/agent-$$a images/out/$$a || exit 1; done

# Static fio for the guest, from Debian's source package (images/build-fio.sh).
images/out/%/fio: | deps
	images/build-fio.sh $* images/out/$*

demo: build images
	$(HARNESS) run workloads/examples/quick.json

# The streams run on the host here: their own sources, no harness.
STREAMS_SRC := guest/stream.c guest/stream_random.c guest/stream_scan.c guest/zipf.c guest/proto.c
tests/build/test_streams: tests/test_streams.c $(STREAMS_SRC) $(HEADERS) $(JANSSON_SAN)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN) -Iguest -I$(JANSSON_SAN_DIR)/include $< $(STREAMS_SRC) -o $@ \
		$(JANSSON_SAN) -lcmocka -lpthread -lm

# YCSB's generators run on the host: their own sources, no LevelDB, no harness.
YCSB_SRC := guest/ycsb.c guest/zipf.c guest/proto.c
tests/build/test_ycsb: tests/test_ycsb.c $(YCSB_SRC) $(HEADERS) $(JANSSON_SAN)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN) -Iguest -I$(JANSSON_SAN_DIR)/include $< $(YCSB_SRC) -o $@ \
		$(JANSSON_SAN) -lcmocka -lpthread -lm

# The sampler's parsers run on the host too: its own sources, no harness.
SAMPLER_SRC := guest/sampler.c guest/proto.c
tests/build/test_sampler: tests/test_sampler.c $(SAMPLER_SRC) $(HEADERS) $(JANSSON_SAN)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN) -Iguest -I$(JANSSON_SAN_DIR)/include $< $(SAMPLER_SRC) -o $@ \
		$(JANSSON_SAN) -lcmocka -lpthread -lm

tests/build/test_%: tests/test_%.c tests/testlib.c tests/testlib.h $(COMMON_SRC) guest/fiostat.c $(HEADERS) \
		$(JANSSON_SAN)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN) -Iharness -Iguest -I$(JANSSON_SAN_DIR)/include $< tests/testlib.c \
		$(COMMON_SRC) guest/zipf.c guest/fiostat.c -o $@ \
		$(JANSSON_SAN) $$(pkg-config --cflags --libs $(SAN_PKGS)) -lcmocka -lpthread -lm

# ThreadSanitizer (it excludes ASan): what the daemon calls from several
# threads at once, called so; any race it sees fails the binary.
tests/build/test_race: tests/test_race.c tests/testlib.c tests/testlib.h $(COMMON_SRC) guest/fiostat.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -fsanitize=thread -Iharness -Iguest $< tests/testlib.c \
		$(COMMON_SRC) guest/zipf.c guest/fiostat.c -o $@ \
		$$(pkg-config --cflags --libs $(PKGS)) -lcmocka -lpthread -lm

$(JANSSON_SAN): tests/build-jansson.sh images/debian-source.sh
	tests/build-jansson.sh $(CC) $(JANSSON_SAN_DIR)

unit: deps $(UNIT_TESTS)

test: build images unit lint
	tests/run.sh $(HARNESS) $(UNIT_TESTS)

# No function-static variables, no libc calls with static state (tests/lint.sh).
lint:
	tests/lint.sh

# The fault suite in full: 20 kill -9 rounds (tests/run.sh runs it with 5),
# misbehaving guests, a full disk, SIGTERM, QEMU killed; see RELIABILITY.md.
.PHONY: faults
faults: build images
	FAULTS_KILLS=20 tests/e2e_faults.sh $(HARNESS) $(HARNESSD)

# Benchmarks measure; tests assert. Figures go to BENCHMARKS.md by hand.
tests/build/bench_sampler: tests/bench_sampler.c guest/sampler.c guest/proto.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -Iguest $< guest/sampler.c guest/proto.c -o $@ \
		$$(pkg-config --cflags --libs jansson)

# 10 000 runs x 300 intervals through the store, then table and compare timed.
tests/build/bench_report: tests/bench_report.c tests/summary_v3.h $(COMMON_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -Iharness -Iguest $< $(COMMON_SRC) -o $@ \
		$$(pkg-config --cflags --libs $(PKGS)) -lpthread -lm

bench: deps tests/build/bench_sampler tests/build/bench_report
	tests/build/bench_sampler
	tests/build/bench_report

# Fuzzing: libFuzzer targets fuzz/fuzz_*.c over the real parsers, built with
# clang and ASan+UBSan; `make fuzz` runs each for FUZZ_SECONDS (fuzz/run.sh
# prints executions and crashes per target and fails on any crash).
FUZZ_DEBS    := clang libclang-rt-14-dev llvm
FUZZ_CC      := clang
FUZZ_SECONDS ?= 60
FUZZ_JANSSON_DIR := fuzz/build/jansson
FUZZ_JANSSON := $(FUZZ_JANSSON_DIR)/lib/libjansson.a
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
                -DFUZZ_ROOT='"$(CURDIR)"' -Iharness -Iguest -Itests -Ifuzz -I$(FUZZ_JANSSON_DIR)/include
FUZZ_LIB_SRC := $(COMMON_SRC) guest/fiostat.c guest/zipf.c tests/testlib.c fuzz/fuzzlib.c
FUZZ_OBJS    := $(patsubst %.c,fuzz/build/obj/%.o,$(FUZZ_LIB_SRC))
FUZZ_BINS    := $(patsubst fuzz/%.c,fuzz/build/%,$(wildcard fuzz/fuzz_*.c))

fuzz-deps:
	$(call install_debs,$(FUZZ_DEBS))

# kept between builds: every target links the same objects
.SECONDARY: $(FUZZ_OBJS)

fuzz/build/obj/%.o: %.c $(HEADERS) fuzz/fuzzlib.h tests/testlib.h $(FUZZ_JANSSON)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@ \
		$$(pkg-config --cflags $(SAN_PKGS))

# jansson with ASan+UBSan, built by clang like the targets (tests/build-jansson.sh)
$(FUZZ_JANSSON): tests/build-jansson.sh images/debian-source.sh
	tests/build-jansson.sh $(FUZZ_CC) $(FUZZ_JANSSON_DIR)

# fetch_url is wrapped (fuzz/fuzzlib.c): a fuzzed "url" arm downloads nothing.
fuzz/build/fuzz_%: fuzz/fuzz_%.c $(FUZZ_OBJS) $(FUZZ_JANSSON)
	$(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined $< $(FUZZ_OBJS) -o $@ \
		-Wl,--wrap=fetch_url $(FUZZ_JANSSON) $$(pkg-config --cflags --libs $(SAN_PKGS)) \
		-lcmocka -lpthread -lm

fuzz-build: deps fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

clean:
	rm -rf harness/build guest/build tests/build fuzz/build

distclean: clean
	rm -rf images/out images/cache
