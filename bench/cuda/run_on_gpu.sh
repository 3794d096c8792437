#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the CUDA plugin's checks on a GPU machine. Builds devplug nothing: point it at a build
# folder or install prefix made elsewhere (default: build-gpu next to this checkout, or
# $DEVPLUG_BUILD); `cmake --install build --prefix P` gives one whose lib/cmake lets this
# script build torch_devplug there against the machine's own torch (`strip --strip-debug` on
# P's libraries and programs makes it 69 MB, 12 MB as a .tar.gz; the CUDA plugin alone is
# 82 MB with its debug information). Made on a machine without a GPU, the folder carries PTX
# alone unless told which GPUs to compile for; for H100/H200 configure it with
#   cmake --preset default -B build-gpu -DDEVPLUG_CUDA_ARCHITECTURES=90-real
# so that nothing is compiled by the driver on the GPU machine.
#
#   bench/cuda/run_on_gpu.sh [BUILD_DIR]
#
# Writes into $OUT when set (else ./gpu-results): nvidia-smi.txt, conform.txt (+ JSON,
# Markdown and JUnit reports), gpu_plugin_test.txt, bench_cuda.json, torch_ref.json,
# torch_devplug_build.txt, torch_models_test.txt (the model tests on the CUDA plugin),
# models.txt/.json (frameworks/torch/benchmarks/models.py: training steps on the CUDA plugin
# and on torch's own CUDA, eager and compiled) and summary.txt (on a machine that returns
# only a few files: OUT=/tmp/res, then tar /tmp/res).
# Every step runs even if an earlier one failed; the exit status is the conformance run's.
# Each step has a time limit in seconds, which these variables shorten: DEVPLUG_GPU_TEST_TIMEOUT
# (default 300), DEVPLUG_GPU_CONFORM_TIMEOUT (1500), DEVPLUG_GPU_BENCH_TIMEOUT (600),
# DEVPLUG_GPU_TORCH_TIMEOUT (600, each torch step).
set -u
t_test="${DEVPLUG_GPU_TEST_TIMEOUT:-300}"
t_conform="${DEVPLUG_GPU_CONFORM_TIMEOUT:-1500}"
t_bench="${DEVPLUG_GPU_BENCH_TIMEOUT:-600}"
t_torch="${DEVPLUG_GPU_TORCH_TIMEOUT:-600}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-${DEVPLUG_BUILD:-$root/build-gpu}}"
out="${OUT:-$PWD/gpu-results}"
mkdir -p "$out"
# The build may have been made under another path: find libdevplug and the plugins here.
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export DEVPLUG_TEST_CUDA_PLUGIN="$build/lib/devplug/plugins/libdevplug_cuda.so"
[ -e "$build/lib/devplug/plugins/libdevplug_hip.so" ] && export DEVPLUG_TEST_HIP_PLUGIN="$build/lib/devplug/plugins/libdevplug_hip.so"
plugin="$build/lib/devplug/plugins/libdevplug_cuda.so"
reference="$build/lib/devplug/plugins/libdevplug_reference.so"

# cuBLASLt 13: the toolkit's, else PyTorch's wheel (the plugin searches these too).
if [ -z "${DEVPLUG_CUBLASLT_PATH:-}" ]; then
  for p in /usr/local/cuda/lib64 $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, "cublas/lib") for p in nvidia.__path__))' 2>/dev/null); do
    if [ -e "$p/libcublasLt.so.13" ]; then export DEVPLUG_CUBLASLT_PATH="$p"; break; fi
  done
fi
echo "DEVPLUG_CUBLASLT_PATH=${DEVPLUG_CUBLASLT_PATH:-<search>}" > "$out/summary.txt"

(nvidia-smi || true) > "$out/nvidia-smi.txt" 2>&1

# torch_devplug against this machine's torch (when it has one with CUDA and the folder is an
# install prefix): built in the background while the correctness steps run, waited for before
# anything is timed.
torch_build="${TMPDIR:-/tmp}/devplug-torch-build"
torch_pid=""
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null &&
   [ -e "$build/lib/cmake/devplug/devplugConfig.cmake" ]; then
  (
    timeout "$t_torch" cmake -S "$root/frameworks/torch" -B "$torch_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$build" -DPython_EXECUTABLE="$(command -v python3)" &&
    timeout "$t_torch" cmake --build "$torch_build" &&
    mkdir -p "$torch_build/package/torch_devplug" &&
    cp "$root"/frameworks/torch/torch_devplug/*.py "$torch_build"/_C*.so "$torch_build/package/torch_devplug/" &&
    mkdir -p "$torch_build/package/torch_devplug-0.dist-info" &&
    printf 'Metadata-Version: 2.1\nName: torch_devplug\nVersion: 0\n' \
      > "$torch_build/package/torch_devplug-0.dist-info/METADATA" &&
    printf '[torch_dynamo_backends]\ndevplug = torch_devplug._compile:devplug_backend\n' \
      > "$torch_build/package/torch_devplug-0.dist-info/entry_points.txt"
  ) > "$out/torch_devplug_build.txt" 2>&1 &
  torch_pid=$!
fi
if [ -x "$build/bin/devplug-info" ]; then
  "$build/bin/devplug-info" --check "$plugin" > "$out/devplug_info.txt" 2>&1 || true
fi

# Unit tests of the plugins (the no-device paths adapt to a present GPU).
gpu_plugin_test="$build/bin/gpu_plugin_test"
[ -x "$gpu_plugin_test" ] || gpu_plugin_test="$build/tests/plugins/gpu_plugin_test"
if [ -x "$gpu_plugin_test" ]; then
  # The HIP plugin needs libamdhip64, which a CUDA machine may lack: test the CUDA side only.
  timeout "$t_test" "$gpu_plugin_test" \
    --gtest_filter='*/cuda:GpuPack.*:GpuPhilox.*:GpuHalf.*:GpuScalar.*:CublasLtPlan.*' \
    > "$out/gpu_plugin_test.txt" 2>&1
  echo "gpu_plugin_test rc=$?" >> "$out/summary.txt"
fi

# Conformance against the reference backend: every op x dtype x layout the plugin claims.
conform_rc=127
if [ -x "$build/bin/devplug-conform" ]; then
  ref_args=()
  [ -e "$reference" ] && ref_args=(--reference "$reference")
  xfail_args=()
  [ -e "$root/plugins/cuda/conformance.xfail" ] && xfail_args=(--xfail "$root/plugins/cuda/conformance.xfail")
  timeout "$t_conform" "$build/bin/devplug-conform" --plugin "$plugin" "${ref_args[@]}" "${xfail_args[@]}" \
    --report-json "$out/conform.json" --report-md "$out/conform.md" --junit "$out/conform.xml" \
    > "$out/conform.txt" 2>&1
  conform_rc=$?
  echo "devplug-conform rc=$conform_rc: $(tail -n 1 "$out/conform.txt")" >> "$out/summary.txt"
  # The shared tiled matmul (the HIP plugin's) proven on the same GPU.
  DEVPLUG_CUDA_MATMUL=tiled timeout "$t_test" "$build/bin/devplug-conform" --plugin "$plugin" "${ref_args[@]}" \
    --filter 'matmul_*' > "$out/conform_tiled_matmul.txt" 2>&1
  echo "devplug-conform (tiled matmul) rc=$?: $(tail -n 1 "$out/conform_tiled_matmul.txt")" >> "$out/summary.txt"
else
  echo "devplug-conform not built in $build" >> "$out/summary.txt"
fi

torch_ok=0
if [ -n "$torch_pid" ]; then
  wait "$torch_pid" && torch_ok=1
  echo "torch_devplug build rc=$((1 - torch_ok)): $(tail -n 1 "$out/torch_devplug_build.txt")" >> "$out/summary.txt"
else
  echo "torch_devplug skipped: no PyTorch with CUDA, or $build is not an install prefix" >> "$out/summary.txt"
fi

# Benchmarks: the plugin, then PyTorch on the same GPU.
if [ -x "$build/bin/bench-cuda" ]; then
  timeout "$t_bench" "$build/bin/bench-cuda" "$plugin" > "$out/bench_cuda.json" 2> "$out/bench_cuda.err"
  echo "bench-cuda rc=$?" >> "$out/summary.txt"
fi
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  timeout "$t_bench" python3 "$here/torch_ref.py" > "$out/torch_ref.json" 2> "$out/torch_ref.err"
  echo "torch_ref rc=$?" >> "$out/summary.txt"
else
  echo "torch_ref skipped: no PyTorch with CUDA" >> "$out/summary.txt"
fi
# PyTorch on the CUDA plugin: the model tests (losses against torch's CPU), then training
# steps against torch's own CUDA, eager and compiled.
if [ "$torch_ok" = 1 ]; then
  export PYTHONPATH="$torch_build/package${PYTHONPATH:+:$PYTHONPATH}"
  export DEVPLUG_PLUGIN_PATH="$plugin" TORCH_DEVPLUG_PLUGINS=cuda TORCH_DEVPLUG_TEST_PLUGINS=cuda
  # Without the machine's other pytest plugins, and uncaptured (-s): the tests' step-time
  # summaries, and what a crash prints, reach the log.
  (cd "$root/frameworks/torch/tests" &&
   PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 timeout "$t_torch" python3 -X faulthandler -m pytest -q -s -p no:cacheprovider \
     test_model_mlp.py test_model_cnn.py \
     test_model_transformer.py test_compile.py) > "$out/torch_models_test.txt" 2>&1
  echo "torch model tests rc=$?: $(tail -n 1 "$out/torch_models_test.txt")" >> "$out/summary.txt"
  timeout "$t_torch" python3 "$root/frameworks/torch/benchmarks/models.py" --devices devplug,cuda \
    --json "$out/models.json" > "$out/models.txt" 2>&1
  echo "models.py rc=$?" >> "$out/summary.txt"
fi

cat "$out/summary.txt"
exit "$conform_rc"
