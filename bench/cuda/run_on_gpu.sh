#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the CUDA plugin's checks on a GPU machine. Builds nothing: point it at a build folder
# made elsewhere (default: build-gpu next to this checkout, or $DEVPLUG_BUILD).
#
#   bench/cuda/run_on_gpu.sh [BUILD_DIR]
#
# Writes into $OUT when set (else ./gpu-results): nvidia-smi.txt, conform.txt (+ JSON,
# Markdown and JUnit reports), gpu_plugin_test.txt, bench_cuda.json, torch_ref.json and
# summary.txt (on a machine that returns only a few files: OUT=/tmp/res, then tar /tmp/res).
# Every step runs even if an earlier one failed; the exit status is the conformance run's.
# Each step has a time limit in seconds, which these variables shorten: DEVPLUG_GPU_TEST_TIMEOUT
# (default 300), DEVPLUG_GPU_CONFORM_TIMEOUT (1500), DEVPLUG_GPU_BENCH_TIMEOUT (600).
set -u
t_test="${DEVPLUG_GPU_TEST_TIMEOUT:-300}"
t_conform="${DEVPLUG_GPU_CONFORM_TIMEOUT:-1500}"
t_bench="${DEVPLUG_GPU_BENCH_TIMEOUT:-600}"
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
if [ -x "$build/bin/devplug-info" ]; then
  "$build/bin/devplug-info" --check "$plugin" > "$out/devplug_info.txt" 2>&1 || true
fi

# Unit tests of the plugins (the no-device paths adapt to a present GPU).
if [ -x "$build/tests/plugins/gpu_plugin_test" ]; then
  # The HIP plugin needs libamdhip64, which a CUDA machine may lack: test the CUDA side only.
  timeout "$t_test" "$build/tests/plugins/gpu_plugin_test" \
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
cat "$out/summary.txt"
exit "$conform_rc"
