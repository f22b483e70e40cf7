# mglru-harness: `make demo` runs the example matrix, `make test` the tests.
# Both install missing Debian packages, build, and make images first;
# a second run redoes nothing already done.

CC       ?= gcc
CFLAGS   ?= -O2 -g
WARN     := -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2
ARCHS    := x86_64 aarch64
PKGS     := libvirt jansson sqlite3 libcurl libmicrohttpd nettle
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer
# The unit tests link a jansson of their own, built from Debian's source with
# the same sanitizers (tests/build-jansson.sh), so ASan sees a json_* call read
# freed or overrun memory too; the other libraries are the system's.
JANSSON_SAN_DIR := tests/build/jansson
JANSSON_SAN     := $(JANSSON_SAN_DIR)/lib/libjansson.a
SAN_PKGS        := $(filter-out jansson,$(PKGS))

# Sources by stage (docs/architecture.md): every module of harness/ but the
# two mains and the commands (cli/), and common/ (what host and guest share),
# go into both programs; harnessd links no command code.
STAGES      := base conf kbuild spec vm run store analysis output daemon cli
MAINS       := harness/cli/main.c harness/daemon/harnessd.c
LIB_SRC     := $(filter-out $(MAINS),$(foreach d,$(filter-out cli,$(STAGES)),$(wildcard harness/$(d)/*.c))) \
               $(wildcard common/*.c)
# docs/*.md built into harness for `harness help TOPIC` (tools/embed_docs.sh)
DOCS_C      := build/gen/docs.c
CLI_SRC     := $(filter-out $(MAINS),$(wildcard harness/cli/*.c)) $(DOCS_C)
AGENT_SRC   := $(wildcard guest/*.c) $(wildcard common/*.c)

# Each source compiles once per flavour into build/FLAVOUR/PATH.o: host (the
# programs, benchmarks), san (ASan+UBSan, for the unit tests, with the
# instrumented jansson's headers), tsan (ThreadSanitizer, for test_race),
# agent-ARCH (static guest agent); -MMD keeps the header dependencies exact.
INCLUDES    := -I. -Iharness
PKG_CFLAGS   = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS     = $(shell pkg-config --libs $(PKGS)) -lpthread -lm
obj          = $(patsubst %.c,build/$(1)/%.o,$(2))
LIB_OBJ     := $(call obj,host,$(LIB_SRC))
LIB_SAN     := $(call obj,san,$(LIB_SRC))
LIB_TSAN    := $(call obj,tsan,$(LIB_SRC))
CLI_OBJ     := $(call obj,host,$(CLI_SRC))

build/host/%.o: %.c | deps
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) $(INCLUDES) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

build/san/%.o: %.c | deps $(JANSSON_SAN)
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g $(SAN) $(INCLUDES) -I$(JANSSON_SAN_DIR)/include $(PKG_CFLAGS) -MMD -MP \
		-c $< -o $@

build/tsan/%.o: %.c | deps
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -fsanitize=thread $(INCLUDES) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

define agent_objs
build/agent-$(1)/%.o: %.c | deps
	@mkdir -p $$(@D)
	$$(CROSS_CC_$(1)) $$(WARN) $$(CFLAGS) -I. -MMD -MP -c $$< -o $$@
endef
$(foreach a,$(ARCHS),$(eval $(call agent_objs,$(a))))

-include $(shell find build fuzz/build -name '*.d' 2>/dev/null)
# objects are kept between builds: the programs and every test link the same ones
.SECONDARY:

HARNESS := harness/build/harness
HARNESSD := harness/build/harnessd
# Guest architectures: a static agent, a static fio and images for each.
AGENTS  := $(foreach a,$(ARCHS),guest/build/agent-$(a))
FIOS    := $(foreach a,$(ARCHS),images/out/$(a)/fio)
CROSS_CC_x86_64  := $(CC)
CROSS_CC_aarch64 := aarch64-linux-gnu-gcc

# the longest first (tests/run.sh runs them three at a time, in this order):
# test_kbuild and test_api wait on git and sockets more than they compute
UNIT_TESTS := tests/build/test_kbuild tests/build/test_api
UNIT_TESTS += tests/build/test_abba tests/build/test_spec tests/build/test_proto \
              tests/build/test_zipf tests/build/test_fio
UNIT_TESTS += tests/build/test_streams
UNIT_TESTS += tests/build/test_ycsb
UNIT_TESTS += tests/build/test_sampler
UNIT_TESTS += tests/build/test_hash
UNIT_TESTS += tests/build/test_fetch
UNIT_TESTS += tests/build/test_arch
UNIT_TESTS += tests/build/test_stats
UNIT_TESTS += tests/build/test_compare
UNIT_TESTS += tests/build/test_report
UNIT_TESTS += tests/build/test_extend
UNIT_TESTS += tests/build/test_plot
UNIT_TESTS += tests/build/test_sandbox
UNIT_TESTS += tests/build/test_lock
UNIT_TESTS += tests/build/test_race
UNIT_TESTS += tests/build/test_bisect
UNIT_TESTS += tests/build/test_phases
UNIT_TESTS += tests/build/test_lrugen
UNIT_TESTS += tests/build/test_tracer
UNIT_TESTS += tests/build/test_counters
UNIT_TESTS += tests/build/test_embed
UNIT_TESTS += tests/build/test_saved
UNIT_TESTS += tests/build/test_console
UNIT_TESTS += tests/build/test_hostinfo
UNIT_TESTS += tests/build/test_psi
UNIT_TESTS += tests/build/test_hugepages
UNIT_TESTS += tests/build/test_runner

# Debian packages the build, the images and the tests need (busybox-static:
# test_sandbox runs the host's static busybox in the jail; guests have none).
DEBS := gcc make pkg-config libc6-dev libjansson-dev libsqlite3-dev \
        libcurl4-openssl-dev nettle-dev libcmocka-dev busybox-static e2fsprogs cpio xz-utils kmod \
        sqlite3 passwd ca-certificates dpkg-dev zlib1g-dev libmicrohttpd-dev python3 curl cmake \
        procps
# aarch64 guests: the cross compiler and its static libc, arm64 jansson
# (multiarch, beside the amd64 one).
DEBS += gcc-aarch64-linux-gnu libc6-dev-arm64-cross libjansson-dev:arm64
# ycsb streams: LevelDB's C API linked statically into the agent (amd64 and,
# multiarch, arm64 with the cross C++ runtime) and into the host's loader.
DEBS += libleveldb-dev libsnappy-dev g++-aarch64-linux-gnu libleveldb-dev:arm64 libsnappy-dev:arm64
# tests/e2e_report.sh renders the HTML report in headless Chromium.
DEBS += chromium
# Source arms (harness/kbuild/): what a kernel build needs, ccache, and b4 to
# fetch a series (the README's example; the harness reads its mbox).
DEBS += ccache bc bison flex libelf-dev libssl-dev b4

.PHONY: all deps build images demo test unit e2e bench bench-kbuild clean distclean fuzz fuzz-deps fuzz-build lint

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

# QEMU and libvirt (images/qemu-deps.sh): on Debian 12 from bookworm-backports,
# QEMU 10.0 whose TCG has no text-patching race; `make deps QEMU_FROM=stable`
# keeps the release's QEMU 7.2 (its TCG guests then run single-threaded).
QEMU_FROM ?= backports
VIRT_DEBS := qemu-system-x86 qemu-system-arm qemu-utils libvirt-daemon libvirt-daemon-driver-qemu \
             libvirt-dev

deps:
	@QEMU_FROM=$(QEMU_FROM) images/qemu-deps.sh $(VIRT_DEBS)
	$(call install_debs,$(DEBS))

# The YCSB load phase, run once per database on the host (images/ycsb-load.c).
YCSB_LOAD := harness/build/ycsb-load

build: deps $(HARNESS) $(HARNESSD) $(AGENTS) $(YCSB_LOAD)

$(YCSB_LOAD): $(call obj,host,images/ycsb-load.c guest/ycsb.c guest/zipf.c)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ -lleveldb -lpthread -lm

# the <emulator> of TCG guests on a QEMU before 8.1 (vm/hostinfo.h): the real
# QEMU's path is fixed here, so nothing at run time can point it elsewhere
TCG_SINGLE := $(foreach a,$(ARCHS),harness/build/qemu-tcg-single-$(a))
harness/build/qemu-tcg-single-%: tools/qemu-tcg-single.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -DQEMU_REAL='"/usr/bin/qemu-system-$*"' $< -o $@

$(DOCS_C): tools/embed_docs.sh $(wildcard docs/*.md)
	@mkdir -p $(@D)
	tools/embed_docs.sh $@ $(sort $(wildcard docs/*.md))

$(HARNESS): build/host/harness/cli/main.o $(CLI_OBJ) $(LIB_OBJ) | $(TCG_SINGLE)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(PKG_LIBS)

$(HARNESSD): build/host/harness/daemon/harnessd.o $(LIB_OBJ) | $(TCG_SINGLE)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(PKG_LIBS)

define agent_link
guest/build/agent-$(1): $$(call obj,agent-$(1),$$(AGENT_SRC))
	@mkdir -p $$(@D)
	$$(CROSS_CC_$(1)) -static $$^ -o $$@ -ljansson -lleveldb -lsnappy -lstdc++ -lpthread -lm
endef
$(foreach a,$(ARCHS),$(eval $(call agent_link,$(a))))

# build.sh skips what is up to date: a second make images redoes nothing.
images: deps $(AGENTS) $(FIOS)
	@for a in $(ARCHS); do images/build.sh $$a guest/build/agent-$$a images/out/$$a || exit 1; done

# Move each images/kernels.conf pin to the newest package of its series apt has
# (images/pin-kernels.sh: the old line kept as a "# was:" comment); then make images.
.PHONY: pin-kernels
pin-kernels: deps
	apt-get update -q
	images/pin-kernels.sh images/kernels.conf

# Static fio for the guest, from Debian's source package (images/build-fio.sh).
images/out/%/fio: | deps
	images/build-fio.sh $* images/out/$*

# harnessd under systemd as its own user (harness/daemon/install-service.sh;
# as root): RESULTS_DIR must be harness.conf's `results`.
HARNESSD_USER ?= mglru-harness
RESULTS_DIR   ?= $(CURDIR)/results
UNIT_DIR      ?= /etc/systemd/system
.PHONY: install-service
install-service: $(HARNESSD)
	harness/daemon/install-service.sh $(CURDIR) $(RESULTS_DIR) $(UNIT_DIR) $(HARNESSD_USER)

demo: build images
	$(HARNESS) run workloads/examples/quick.json

# Guest code that runs on the host in the unit tests, without the harness:
# the streams, YCSB's generators (no LevelDB), the sampler's and lru_gen's parsers,
# the folio tracer's trace_pipe parser and drain, multi-size THP's knobs and counters.
# the stream kinds' descriptors, which the job's parser reaches through proto_kinds[]
# and the text and error helpers every common/ file uses (fmt.c, err.c)
KIND_SRC := $(wildcard common/kind_*.c)
GUEST_TEST_SRC_streams := guest/stream.c guest/stream_random.c guest/stream_scan.c guest/zipf.c common/proto.c common/proto_job.c $(KIND_SRC) common/fmt.c common/err.c
GUEST_TEST_SRC_ycsb    := guest/ycsb.c guest/zipf.c common/proto.c common/proto_job.c $(KIND_SRC) common/fmt.c common/err.c
GUEST_TEST_SRC_sampler := guest/sampler.c guest/counters.c guest/stalls.c guest/tracefs.c guest/fdio.c guest/oom.c common/psi.c common/proto.c common/proto_job.c $(KIND_SRC) common/lrugen.c common/fmt.c common/err.c
GUEST_TEST_SRC_lrugen  := common/lrugen.c common/fmt.c common/err.c
GUEST_TEST_SRC_counters := guest/counters.c guest/stalls.c guest/tracefs.c guest/fdio.c common/proto.c common/proto_job.c $(KIND_SRC) common/lrugen.c common/fmt.c common/err.c
GUEST_TEST_SRC_tracer  := guest/tracer.c guest/tracefs.c common/proto.c common/proto_job.c $(KIND_SRC) common/lrugen.c common/fmt.c common/err.c
GUEST_TEST_SRC_hugepages := guest/hugepages.c guest/fdio.c common/mthp.c common/fmt.c common/err.c
GUEST_TESTS := tests/build/test_streams tests/build/test_ycsb tests/build/test_sampler tests/build/test_lrugen \
               tests/build/test_tracer tests/build/test_hugepages tests/build/test_counters
# The rest link every harness module, the test library and two guest parsers.
TEST_LIB_SAN := $(LIB_SAN) $(call obj,san,$(CLI_SRC)) $(call obj,san,tests/testlib.c tests/verdict_sim.c guest/zipf.c guest/fiostat.c)

$(GUEST_TESTS): tests/build/test_%: build/san/tests/test_%.o $(JANSSON_SAN)
	@mkdir -p $(@D)
	$(CC) $(SAN) $< $(call obj,san,$(GUEST_TEST_SRC_$*)) -o $@ \
		$(JANSSON_SAN) -lcmocka -lpthread -lm
$(foreach t,streams ycsb sampler lrugen tracer hugepages counters,$(eval tests/build/test_$(t): $(call obj,san,$(GUEST_TEST_SRC_$(t)))))

tests/build/test_%: build/san/tests/test_%.o $(TEST_LIB_SAN) $(JANSSON_SAN)
	@mkdir -p $(@D)
	$(CC) $(SAN) $^ -o $@ $(shell pkg-config --libs $(SAN_PKGS)) -lpthread -lm -lcmocka

$(JANSSON_SAN): tests/build-jansson.sh images/debian-source.sh
	tests/build-jansson.sh $(CC) $(JANSSON_SAN_DIR)

# ThreadSanitizer (it excludes ASan): what the daemon calls from several
# threads at once, called so; any race it sees fails the binary.
TEST_LIB_TSAN := $(LIB_TSAN) $(call obj,tsan,tests/testlib.c guest/zipf.c guest/fiostat.c)
tests/build/test_race: build/tsan/tests/test_race.o $(TEST_LIB_TSAN)
	@mkdir -p $(@D)
	$(CC) -fsanitize=thread $^ -o $@ $(PKG_LIBS) -lcmocka

unit: deps $(UNIT_TESTS)

# The layout's rules from the #include lines: no cycle, each folder includes
# only what its main file's "may call:" names, no SQL outside harness/store/.
lint:
	python3 tests/lint.py

# Packages first, alone (apt takes its locks one at a time); then the compiles
# on every core; the images (apt downloads, fio's builds) in order between.
JOBS ?= $(shell nproc)
define build_all
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -j$(JOBS) build
	@$(MAKE) --no-print-directory images
	@$(MAKE) --no-print-directory -j$(JOBS) unit
endef

test:
	$(build_all)
	tests/run.sh $(HARNESS) $(UNIT_TESTS)

# The fault suite in full: 20 kill -9 rounds (tests/run.sh runs it with 5),
# misbehaving guests, a full disk, SIGTERM, QEMU killed; see RELIABILITY.md.
.PHONY: faults
faults: build images
	FAULTS_KILLS=20 tests/e2e_faults.sh $(HARNESS) $(HARNESSD)

# What is too long for CI: the full fault suite, source arms cross-built for
# aarch64 (a second cold kernel build under TCG's slowest guests), the seeds at
# their own reps (seed 000's RFC too), seeds 002's and 004's patches (kernels
# rebuilt for headers nearly everything includes), the bisection with a
# measured search step, and a host that falls silent (keepalive's 15 s).
.PHONY: test-long
test-long: faults boot-stress
	tests/long_source_arm64.sh $(HARNESS)
	SEEDS_REPS=2 tests/e2e_seeds.sh $(HARNESS)
	SEEDS_REPS=2 tests/e2e_source_seeds.sh $(HARNESS)
	tests/long_source_seeds.sh $(HARNESS)
	BISECT_LONG=1 tests/e2e_bisect.sh $(HARNESS) $(HARNESSD)
	HOSTS_SILENT=1 tests/e2e_hosts.sh $(HARNESS) $(HARNESSD)

# Every e2e test with every run booted (make test restores saved guests
# wherever a test does not test booting): the other start, for issue 32's
# "every e2e test passes with both starts".
.PHONY: test-boot
test-boot:
	$(build_all)
	E2E_START=boot tests/run.sh $(HARNESS) $(UNIT_TESTS)

# Does a restored guest measure what a booted one does? A/A spread per block
# both ways, one save per arm against several, and the seeds' directions
# restored (BENCHMARKS.md, docs/restore.md).
.PHONY: bench-restore
bench-restore: build images
	tests/fidelity_restore.sh $(HARNESS)

# Benchmarks measure; tests assert. Figures go to BENCHMARKS.md by hand.
tests/build/bench_sampler: $(call obj,host,tests/bench_sampler.c guest/sampler.c guest/counters.c guest/stalls.c guest/tracefs.c guest/fdio.c common/psi.c common/proto.c common/proto_job.c $(KIND_SRC) common/lrugen.c common/fmt.c common/err.c)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $$(pkg-config --libs jansson)

# 10 000 runs x 300 intervals through the store, then table and compare timed.
tests/build/bench_report: build/host/tests/bench_report.o $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(PKG_LIBS)

# Placing blocks with 100 000 runs queued over 100 simulated hosts x 8 slots.
tests/build/bench_sched: build/host/tests/bench_sched.o $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(PKG_LIBS)

# What the harness adds to a bare QEMU boot (tests/bench_boot.sh): ratios and
# each phase, BOOT_ROUNDS interleaved rounds; about 3 minutes, first.
BOOT_ROUNDS ?= 5
bench: build images tests/build/bench_sampler tests/build/bench_report tests/build/bench_sched
	tests/bench_boot.sh $(HARNESS) $(HARNESSD) $(BOOT_ROUNDS)
	tests/build/bench_sampler
	tests/bench_lrugen.sh
	tests/bench_trace.sh $(HARNESS)
	tests/build/bench_report
	tests/build/bench_sched

# A source arm's build: cold, cached, one patch more (BENCHMARKS.md). The small
# config takes minutes; KBUILD_CONFIGS="tinyconfig defconfig" adds an hour.
KBUILD_CONFIGS ?= tinyconfig
bench-kbuild: build images
	tests/bench_kbuild.sh $(HARNESS) $(KBUILD_CONFIGS)

# Where the A/A spread comes from: host against kernel, quiet against one
# busy core, warm-up excluded and included (BENCHMARKS.md); about 15 minutes.
NOISE_BLOCKS ?= 6
.PHONY: bench-noise
bench-noise: build images
	tests/bench_noise.sh $(HARNESS) $(NOISE_BLOCKS)

# Boots to the agent's hello under QEMU 7.2 multi- and single-threaded and the
# installed QEMU, counting crashed guests (RELIABILITY.md); make test-long runs it.
BOOT_STRESS_N ?= 500
tests/build/boot_stress: $(call obj,host,tests/boot_stress.c) $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(PKG_LIBS)
.PHONY: boot-stress
boot-stress: build images tests/build/boot_stress
	tests/long_boot_stress.sh tests/build/boot_stress $(BOOT_STRESS_N)

# The same quiet A/A under QEMU 7.2 multi- and single-threaded and the installed
# QEMU (BENCHMARKS.md, which QEMU); about 9 minutes a configuration at 4 blocks.
QEMU_BLOCKS ?= 4
.PHONY: bench-qemu
bench-qemu: build images
	tests/bench_qemu.sh $(HARNESS) $(QEMU_BLOCKS)

# The verdicts' error rates and power on simulated and (--db) stored A/A runs,
# through the real decision code; counts, not times (BENCHMARKS.md).
tests/build/bench_stats: $(call obj,host,tests/bench_stats.c tests/bench_margins.c tests/bench_robust.c tests/verdict_sim.c) $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(PKG_LIBS)

.PHONY: bench-stats
bench-stats: deps tests/build/bench_stats
	tests/build/bench_stats $(BENCH_STATS_ARGS)

# Fuzzing: libFuzzer targets fuzz/fuzz_*.c over the real parsers, built with
# clang and ASan+UBSan; `make fuzz` runs each for FUZZ_SECONDS (fuzz/run.sh
# prints executions and crashes per target and fails on any crash).
FUZZ_DEBS    := clang libclang-rt-14-dev llvm
FUZZ_CC      := clang
FUZZ_SECONDS ?= 60
FUZZ_JANSSON_DIR := fuzz/build/jansson
FUZZ_JANSSON := $(FUZZ_JANSSON_DIR)/lib/libjansson.a
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
                -DFUZZ_ROOT='"$(CURDIR)"' $(INCLUDES) -I$(FUZZ_JANSSON_DIR)/include
FUZZ_LIB_SRC := $(LIB_SRC) guest/fiostat.c guest/zipf.c tests/testlib.c fuzz/fuzzlib.c
FUZZ_OBJS    := $(patsubst %.c,fuzz/build/obj/%.o,$(FUZZ_LIB_SRC))
FUZZ_BINS    := $(patsubst fuzz/%.c,fuzz/build/%,$(wildcard fuzz/fuzz_*.c))

fuzz-deps:
	$(call install_debs,$(FUZZ_DEBS))

fuzz/build/obj/%.o: %.c | $(FUZZ_JANSSON)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@ \
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
	rm -rf build harness/build guest/build tests/build fuzz/build

distclean: clean
	rm -rf images/out images/cache
