# gpuarray: the two commands for a fresh Debian/Ubuntu machine.
#   make demo   runs the quick-start example (adapter, transfers, elementwise math, a check)
#   make test   runs the whole suite (unit, integration and doc tests, the examples in quick mode)
#   make test-gl  runs the unit and integration tests again on Mesa's GL (after make test)
# Both install Mesa's lavapipe (software Vulkan) first when no Vulkan driver is present.

CARGO ?= cargo
# The optional features the suite covers (ArrayOps on ndarray's arrays, images, arrays
# across processes through MPI: the `mpi` target below installs Open MPI and libclang).
FEATURES := --features ndarray,image,mpi
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# Mesa's Vulkan drivers complain on stderr when there is no XDG_RUNTIME_DIR (headless
# machines, CI); give them a private one.
export XDG_RUNTIME_DIR ?= $(shell d=/tmp/gpuarray-xdg-$$(id -u); mkdir -p -m 700 $$d; echo $$d)

.PHONY: demo test test-gl lint bench bench-table vulkan gl

# A Vulkan loader and at least one ICD; otherwise install lavapipe (Mesa) and the loader.
vulkan:
	@if ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' && \
	    ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json 2>/dev/null | grep -q .; then \
	  echo "vulkan: a driver is present"; \
	else \
	  echo "vulkan: no driver found, installing mesa-vulkan-drivers (lavapipe)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null; \
	fi

# Mesa's GL for wgpu's GL backend, headless through EGL: the EGL loader (glvnd), Mesa's EGL
# vendor library and its DRI drivers (llvmpipe); installed only when one is missing.
gl:
	@if ldconfig -p 2>/dev/null | grep -q 'libEGL\.so\.1' && \
	    ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa\.so\.0' && \
	    ls /usr/lib/*/dri/swrast_dri.so /usr/lib/dri/swrast_dri.so 2>/dev/null | grep -q .; then \
	  echo "gl: Mesa's EGL and llvmpipe are present"; \
	else \
	  echo "gl: installing libegl1, libegl-mesa0 and libgl1-mesa-dri (Mesa's GL, llvmpipe)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null; \
	fi

# Open MPI (mpirun and the headers) and libclang (the `mpi` crate's bindgen) for the `mpi`
# feature, which the suite and the lint cover: tests/dist runs itself under mpirun with 2
# and 3 ranks. Installed only when one is missing.
.PHONY: mpi
mpi:
	@if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 && \
	    ldconfig -p 2>/dev/null | grep -Eq 'libclang(-[0-9.]+)?\.so'; then \
	  echo "mpi: Open MPI and libclang are present"; \
	else \
	  echo "mpi: installing openmpi-bin, libopenmpi-dev and libclang-dev"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq openmpi-bin libopenmpi-dev libclang-dev >/dev/null; \
	fi
test lint test-gl: mpi

demo: vulkan
	$(CARGO) run --release --example quickstart

test: vulkan
	# The examples as plain executables, for tests/examples.rs to run in quick mode (it
	# fails, rather than skips, when they are missing under GPUARRAY_EXAMPLES_REQUIRE=1).
	$(CARGO) build --profile test --examples $(FEATURES)
	@rm -f target/tmp/skipped.txt
	GPUARRAY_EXAMPLES_REQUIRE=1 $(CARGO) test --all-targets $(FEATURES)
	$(CARGO) test --doc $(FEATURES)
	@# Tests that needed what this adapter lacks said so through tests/common's gate.
	@n=$$(cat target/tmp/skipped.txt 2>/dev/null | wc -l); \
	  echo "skipped: $$n test(s)"; sort target/tmp/skipped.txt 2>/dev/null | sed 's/^/  /' || true

# The test binaries that exercise what GL changes, run again on wgpu's GL backend over Mesa's
# llvmpipe (the backend for machines without a Vulkan driver): elementwise functions with
# every integer dtype and the float libraries' ulp bounds (numerics, mathlogic), reductions
# and statistics, scans, sorts and selections, manipulation and indexing (large arrays,
# binding windows), products and einsum, convolutions, fused kernels, complex arrays,
# creation and transfers, dtypes and their refusals, the name map, and threads sharing a
# device. Run after `make test`, whose build they reuse (same profile and features: nothing
# is compiled again); the doc tests, examples and the remaining binaries are left out to
# keep CI's time (fft and kernel_limits: llvmpipe's GL compiles their kernels for minutes,
# kernel_limits' workgroup arrays through naga's zero-initialising constructors). The
# default test threads: the library serialises its calls into wgpu's GL context (GlLock in
# src/gpu.rs), whose lock wgpu-hal otherwise gives up on after 6 s. GL has no f16, f64 or
# 64-bit integers: those tests skip through tests/common's gate, listed at the end.
GL_TESTS := array creation dtypes elementwise packed reduce stats scan sort select manip \
	index axes linalg conv fuse limits names memory device numerics mathlogic threads \
	complex einsum dims linalg_factor linalg_qr linalg_spectral

test-gl: gl
	@rm -f target/tmp/skipped.txt
	GPUARRAY_BACKEND=gl $(CARGO) test --no-fail-fast $(FEATURES) $(addprefix --test ,$(GL_TESTS))
	@n=$$(cat target/tmp/skipped.txt 2>/dev/null | wc -l); \
	  echo "skipped on GL: $$n test(s)"; sort target/tmp/skipped.txt 2>/dev/null | sed 's/^/  /' || true

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --all-targets $(FEATURES) -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps $(FEATURES)

bench: vulkan
	$(CARGO) bench

bench-table: vulkan
	$(CARGO) run --release --example bench_table
