# sortlab front door. `make` builds, `make test` runs every test (GPU tests report "skipped" on a
# machine without a GPU), `make bench` runs the benchmarks, `make table` builds the results page,
# `make docs` builds the Doxygen reading guide, `make lab STAGE=02 DIR=lab02` writes a student's
# starter (docs/labs.md), `make figures` redraws the stage READMEs' figures (no GPU needed),
# `make deps` installs missing Debian packages (as root; never run by the other targets: CMake's
# own checks say what is missing, on any distribution), `make compare BASE=rev` times the working
# tree against an earlier revision on this GPU (bench/compare/compare_revisions.sh).
BUILD ?= build
JOBS ?= $(shell nproc)
# Empty: CMake picks the GPU of this machine (native), or sm_90 when it finds none.
CUDA_ARCH ?=
CTEST_ARGS ?=
BENCH_ARGS ?=
OUT ?= $(BUILD)/device-logs
CMAKE_FLAGS ?=

GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
DEB_PACKAGES := cmake ninja-build libgtest-dev libbenchmark-dev libcli11-dev doxygen python3
# Header-only packages a machine without package access can take along (make deps-bundle).
BUNDLED_DEB_PACKAGES := libcli11-dev

.PHONY: all configure build test test-cpu test-gpu test-large bench table compare memory-profile sort-profile docs deps deps-bundle device-check format clean lab figures

all: build

# Debian/Ubuntu helper: installs the packages the build needs when one is missing (needs root).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "deps: all present"; \
	elif [ "$$(id -u)" = 0 ]; then echo "deps: installing$$missing"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) || exit 1; \
	else echo "deps: missing$$missing; run 'sudo make deps' or install them"; exit 1; fi

# For a GPU machine without package access: downloads the header-only packages here (apt-get
# download needs no root) and unpacks them under .deps/root, where CMake looks when the system has
# none; copy .deps/ along with the tree (the device tool's `carry`).
deps-bundle:
	@mkdir -p .deps/debs .deps/root && cd .deps/debs && \
	  for p in $(BUNDLED_DEB_PACKAGES); do ls $${p}_*.deb >/dev/null 2>&1 || apt-get download $$p; done && \
	  for d in *.deb; do python3 ../../.ci/unpack_deb.py "$$d" ../root; done && \
	  echo "deps-bundle: unpacked $$(ls *.deb | tr '\n' ' ')into .deps/root"

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) $(if $(CUDA_ARCH),-DSORTLAB_CUDA_ARCHITECTURES=$(CUDA_ARCH)) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The README's test command. Without a GPU the GPU tests are reported as skipped.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

test-cpu: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L cpu $(CTEST_ARGS)

test-gpu: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L gpu $(CTEST_ARGS)

# One keys and one pairs sort of 2^30 keys per stage (about 30 GB of GPU memory, minutes).
test-large: build
	cd $(BUILD) && SORTLAB_RUN_LARGE=1 ctest --output-on-failure -L large $(CTEST_ARGS)

bench: build
	@for b in $(BUILD)/bench/bench_stage*; do echo "== $$b"; $$b $(BENCH_ARGS) || exit 1; done

# The main job: every stage and baseline on one fixed set of inputs -> docs/results/<gpu>.md,
# the raw JSON and a plot. Stops at once without a GPU.
table:
	@bash bench/table/make_table.sh $(BUILD)

# A change against an earlier revision, on this GPU, in one session: both trees built side by
# side, the benchmark run alternately, one table (bench/compare/compare_revisions.sh). Example:
# make compare BASE=8ff8052 TARGET=bench_stage06 ARGS="--sizes=26 --pairs=1"
compare:
	@test -n "$(BASE)" || { echo "usage: make compare BASE=revision [TARGET=bench_stage08] [ROUNDS=2] [ARGS='benchmark arguments']"; exit 2; }
	@bash bench/compare/compare_revisions.sh $(BASE) --target $(or $(TARGET),bench_stage08) --rounds $(or $(ROUNDS),2) --jobs $(JOBS) -- $(ARGS)

# Nsight Compute counters of one pass of every stage -> docs/results/<gpu>-memory.md and the
# README blocks (DRAM bytes per key, sectors per request). Needs a GPU and ncu.
memory-profile: configure
	@bash bench/profile/memory_profile.sh $(BUILD)

# Nsight Compute counters of every kernel of one whole sort of stages 05 and 08 (2^28 u32 keys)
# and of a copy of the same keys -> docs/results/<gpu>-sort-profile.md and the stage READMEs'
# profile blocks (bytes per key, fraction of the copy rate per kernel). Needs a GPU and ncu.
sort-profile: configure
	@bash bench/profile/sort_profile.sh $(BUILD)

docs:
	@command -v doxygen >/dev/null || { echo "doxygen missing: install it (Debian/Ubuntu: 'sudo make deps')"; exit 1; }
	doxygen docs/Doxyfile

# A student's starter for one stage (docs/labs.md): make lab STAGE=02 DIR=lab02 [LEVEL=cpu|gpu].
lab:
	@test -n "$(STAGE)" -a -n "$(DIR)" || { echo "usage: make lab STAGE=01..04 DIR=folder [LEVEL=cpu|gpu]"; exit 2; }
	python3 tools/lab/make_lab.py --stage $(STAGE) --out $(DIR) $(if $(LEVEL),--level $(LEVEL))

# The stage READMEs' figures (chapters/NN_*/figures/*.svg), drawn by `sortlab trace --svg` from
# the CPU models; no GPU needed. ctest sortlab_figures fails when a committed one is out of date.
figures: configure
	cmake --build $(BUILD) -j $(JOBS) --target sortlab
	python3 bench/sortlab/make_figures.py $(BUILD)/bench/sortlab/sortlab

# On a GPU machine: build, GPU suite, compute-sanitizer, benchmarks; logs in $(OUT).
device-check:
	@bash .ci/device_check.sh $(BUILD) $(OUT)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.cu' '*.cuh' '*.hpp')

clean:
	rm -rf $(BUILD) docs/html
