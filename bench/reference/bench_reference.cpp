// SPDX-License-Identifier: Apache-2.0
// bench-reference: how long the reference backend takes for every (op, dtype) pair ops.def
// allows, at the sizes the reference must handle quickly (issue: a 1M-element elementwise
// op, reduction or scan, or a 256x256x256 matmul, in well under 100 ms on one core).
//
// Each op runs through the dispatcher (devplug_op_call) on the reference plugin with
// contiguous inputs whose values lie in the op's domain (log gets positive numbers, asin
// numbers in [-1, 1], ...), so that the time is that of real work, not of NaN shortcuts.
// Prints one line per pair with the best of --reps runs in milliseconds, then the pairs
// over the target. Figures only: nothing here asserts a time.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "devplug/devplug.hpp"
#include "devplug/ops.h"
#include "devplug/sdk/dtype.hpp"

namespace {

constexpr int64_t kElements = int64_t{1} << 20;
constexpr int64_t kMatmulSize = 256;

// Every prim of ops.def, in table order (composites are timed by bench/composite).
constexpr devplug_op_t kOps[] = {
#define DEVPLUG_OP(id, name, category, n_in, n_out, attrs, result, dtypes, summary) DEVPLUG_OP_##name,
#define DEVPLUG_COMPOSITE(...)
#include "devplug/ops.def"
};

bool is_floating(devplug_dtype_t dtype) {
  return dtype == DEVPLUG_DTYPE_FLOAT16 || dtype == DEVPLUG_DTYPE_BFLOAT16 ||
         dtype == DEVPLUG_DTYPE_FLOAT32 || dtype == DEVPLUG_DTYPE_FLOAT64;
}

// The interval a floating input is drawn from, chosen so that the op does real work there.
struct Domain {
  double lo, hi;
};

Domain float_domain(const std::string& op, int input) {
  if (op == "log" || op == "log2" || op == "log10" || op == "sqrt" || op == "rsqrt") return {1e-3, 100};
  if (op == "log1p") return {-0.999, 100};
  if (op == "asin" || op == "acos" || op == "atanh" || op == "erfinv") return {-0.999, 0.999};
  if (op == "acosh") return {1, 100};
  if (op == "exp" || op == "exp2" || op == "expm1" || op == "sinh" || op == "cosh") return {-50, 50};
  if (op == "pow") return input == 0 ? Domain{1e-3, 10} : Domain{-10, 10};
  if (op == "fmod" || op == "remainder") return input == 0 ? Domain{-1e6, 1e6} : Domain{0.5, 100};
  return {-100, 100};
}

// Integer inputs: small values, shift counts inside the width, non-negative pow exponents.
Domain int_domain(const std::string& op, int input, devplug_dtype_t dtype) {
  const double bits = 8.0 * static_cast<double>(devplug_dtype_size(dtype));
  if (op.rfind("shift_", 0) == 0 && input == 1) return {0, bits - 1};
  if (op == "pow" && input == 1) return {0, 5};
  if ((op == "div" || op == "remainder" || op == "fmod") && input == 1) return {1, 100};
  if (dtype == DEVPLUG_DTYPE_UINT8 || dtype == DEVPLUG_DTYPE_BOOL)
    return {0, dtype == DEVPLUG_DTYPE_BOOL ? 1.0 : 200.0};
  return {-100, 100};
}

// A contiguous tensor of `dtype` and `shape` filled with values from [lo, hi] (integers:
// rounded), in row-major order.
devplug::Tensor random_tensor(const devplug::Device& device, devplug_dtype_t dtype,
                              const std::vector<int64_t>& shape, Domain domain, std::mt19937_64& gen) {
  devplug::Tensor t = devplug::Tensor::empty(device, dtype, shape);
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::uniform_real_distribution<double> uniform(domain.lo, domain.hi);
  std::vector<unsigned char> bytes(static_cast<size_t>(count) * devplug_dtype_size(dtype));
  devplug::sdk::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = reinterpret_cast<T*>(bytes.data());
    for (int64_t i = 0; i < count; ++i) {
      const double v = uniform(gen);
      if constexpr (devplug::sdk::is_floating_v<T>)
        data[i] = devplug::sdk::from_double<T>(v);
      else if constexpr (std::is_same_v<T, bool>)
        reinterpret_cast<uint8_t*>(data)[i] = v >= 0.5;
      else
        data[i] = static_cast<T>(std::nearbyint(v));
    }
  });
  t.copy_from_host(bytes.data(), bytes.size());
  return t;
}

// One (op, dtype) run: inputs, outputs and attributes, ready to call repeatedly.
struct Case {
  std::vector<devplug::Tensor> inputs, outputs;
  std::vector<unsigned char> attrs;  // the op's attribute struct, or empty
  std::string shape;                 // for the printout
};

template <typename A>
std::vector<unsigned char> bytes_of(A attrs) {
  attrs.struct_size = sizeof(A);
  std::vector<unsigned char> out(sizeof(A));
  std::memcpy(out.data(), &attrs, sizeof(A));
  return out;
}

devplug_dtype_t result_dtype(const devplug_op_info_t& info, devplug_dtype_t dtype) {
  switch (info.result) {
    case DEVPLUG_RESULT_bool:
      return DEVPLUG_DTYPE_BOOL;
    case DEVPLUG_RESULT_int64:
      return DEVPLUG_DTYPE_INT64;
    case DEVPLUG_RESULT_any:
      return DEVPLUG_DTYPE_FLOAT32;  // convert_element_type: to float32
    default:
      return dtype;
  }
}

// Builds the case for `info` at `dtype`: 1M elements for everything but matmul (256^3).
Case make_case(const devplug::Device& device, const devplug_op_info_t& info, devplug_dtype_t dtype,
               std::mt19937_64& gen) {
  const std::string op = info.name;
  auto input = [&](int index, const std::vector<int64_t>& shape, devplug_dtype_t d) {
    const Domain domain = is_floating(d) ? float_domain(op, index) : int_domain(op, index, d);
    return random_tensor(device, d, shape, domain, gen);
  };
  auto empty = [&](const std::vector<int64_t>& shape, devplug_dtype_t d) {
    return devplug::Tensor::empty(device, d, shape);
  };
  const std::vector<int64_t> flat = {kElements};
  const devplug_dtype_t out_dtype = result_dtype(info, dtype);
  Case c;
  c.shape = "[1048576]";
  switch (info.category) {
    case DEVPLUG_CATEGORY_unary:
    case DEVPLUG_CATEGORY_binary:
    case DEVPLUG_CATEGORY_compare:
      for (int i = 0; i < info.n_inputs; ++i) c.inputs.push_back(input(i, flat, dtype));
      c.outputs.push_back(empty(flat, out_dtype));
      break;
    case DEVPLUG_CATEGORY_ternary:  // where(condition, a, b)
      c.inputs = {input(0, flat, DEVPLUG_DTYPE_BOOL), input(1, flat, dtype), input(2, flat, dtype)};
      c.outputs.push_back(empty(flat, dtype));
      break;
    case DEVPLUG_CATEGORY_data:
      if (op == "copy_strided") {  // a transpose: the strided read is the work
        c.inputs.push_back(input(0, {1024, 1024}, dtype).transpose(0, 1));
        c.outputs.push_back(empty({1024, 1024}, dtype));
        c.shape = "[1024, 1024]^T";
      } else {
        if (info.n_inputs == 1) c.inputs.push_back(input(0, flat, dtype));
        c.outputs.push_back(empty(flat, out_dtype));
      }
      if (op == "fill") c.attrs = bytes_of(devplug_fill_attrs_t{0, {1, 1}});
      if (op == "iota") c.attrs = bytes_of(devplug_iota_attrs_t{0, {0, 0}, {1, 1}});
      break;
    case DEVPLUG_CATEGORY_reduce:  // the whole tensor to one element
      c.inputs.push_back(input(0, flat, dtype));
      c.outputs.push_back(empty({1}, out_dtype));  // reductions keep the rank
      c.attrs = bytes_of(devplug_reduce_attrs_t{0, 1u, 1.0});
      break;
    case DEVPLUG_CATEGORY_scan:
      c.inputs.push_back(input(0, flat, dtype));
      c.outputs.push_back(empty(flat, dtype));
      c.attrs = bytes_of(devplug_dim_attrs_t{0, 0});
      break;
    case DEVPLUG_CATEGORY_index: {
      // Indices: a random permutation of the rows, so every element moves.
      std::vector<int64_t> order(static_cast<size_t>(kElements));
      for (int64_t i = 0; i < kElements; ++i) order[static_cast<size_t>(i)] = i;
      std::shuffle(order.begin(), order.end(), gen);
      devplug::Tensor index = devplug::Tensor::from_host(device, order, flat);
      if (op == "index_select" || op == "gather")
        c.inputs = {input(0, flat, dtype), index};
      else
        c.inputs = {input(0, flat, dtype), index, input(2, flat, dtype)};  // scatter(_add)
      c.outputs.push_back(empty(flat, dtype));
      c.attrs = bytes_of(devplug_dim_attrs_t{0, 0});
      break;
    }
    case DEVPLUG_CATEGORY_shape:
      if (op == "cat") {
        c.inputs = {input(0, {kElements / 2}, dtype), input(1, {kElements / 2}, dtype)};
        c.outputs.push_back(empty(flat, dtype));
        c.attrs = bytes_of(devplug_dim_attrs_t{0, 0});
      } else if (op == "flip") {
        c.inputs.push_back(input(0, flat, dtype));
        c.outputs.push_back(empty(flat, dtype));
        c.attrs = bytes_of(devplug_flip_attrs_t{0, 1u});
      } else {  // constant_pad: one element before and after
        devplug_pad_attrs_t pad{};
        pad.before[0] = 1;
        pad.after[0] = 1;
        c.inputs.push_back(input(0, {kElements - 2}, dtype));
        c.outputs.push_back(empty(flat, dtype));
        c.attrs = bytes_of(pad);
      }
      break;
    case DEVPLUG_CATEGORY_linalg: {
      const std::vector<int64_t> square = {kMatmulSize, kMatmulSize};
      c.inputs = {input(0, square, dtype), input(1, square, dtype)};
      c.outputs.push_back(empty(square, dtype));
      c.attrs = bytes_of(devplug_matmul_attrs_t{0, 0});
      c.shape = "256x256x256";
      break;
    }
    case DEVPLUG_CATEGORY_random:
      c.outputs.push_back(empty(flat, dtype));
      c.attrs = bytes_of(devplug_philox_attrs_t{0, 42, 0});
      break;
    default:
      break;
  }
  return c;
}

// Best wall time of `reps` runs, in milliseconds (the reference runs on the calling thread).
double time_case(const Case& c, devplug_op_t op, int reps, const devplug::Stream& stream) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    devplug::call(op, c.inputs, c.outputs, c.attrs.empty() ? nullptr : c.attrs.data(), &stream);
    stream.synchronize();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times every (op, dtype) of the reference backend at 1M elements (matmul 256^3)"};
  std::string filter, dtype_filter;
  int reps = 3;
  double target_ms = 100;
  std::string plugin_path;
#ifdef DEVPLUG_REFERENCE_PLUGIN
  plugin_path = DEVPLUG_REFERENCE_PLUGIN;
#endif
  app.add_option("--filter", filter, "Only ops whose name contains this text");
  app.add_option("--dtype", dtype_filter, "Only this dtype (float64, int32, ...)");
  app.add_option("--reps", reps, "Runs per pair; the best is printed")->check(CLI::PositiveNumber);
  app.add_option("--target-ms", target_ms, "Pairs above this are listed at the end");
  app.add_option("--plugin", plugin_path, "Path of libdevplug_reference.so")->required(plugin_path.empty());
  CLI11_PARSE(app, argc, argv);

  try {
    devplug::Context context(DEVPLUG_CONTEXT_NO_DISCOVERY | DEVPLUG_CONTEXT_STRICT);
    context.load(plugin_path);
    const devplug::Device device = context.devices().at(0);
    const devplug::Stream stream = device.default_stream();
    std::mt19937_64 gen(1);
    std::vector<std::string> slow;
    double slowest = 0;
    std::string slowest_name;
    std::printf("%-24s %-9s %-15s %10s\n", "op", "dtype", "shape", "best ms");
    for (devplug_op_t op : kOps) {
      const devplug_op_info_t* info = devplug_op_info(op);
      if (std::string(info->name).find(filter) == std::string::npos) continue;
      for (int d = 0; d < DEVPLUG_DTYPE_COUNT; ++d) {
        const auto dtype = static_cast<devplug_dtype_t>(d);
        if ((info->dtypes & DEVPLUG_DTYPE_BIT(dtype)) == 0) continue;
        if (!dtype_filter.empty() && dtype_filter != devplug_dtype_name(dtype)) continue;
        const Case c = make_case(device, *info, dtype, gen);
        const double ms = time_case(c, op, reps, stream);
        std::printf("%-24s %-9s %-15s %10.2f\n", info->name, devplug_dtype_name(dtype), c.shape.c_str(), ms);
        std::fflush(stdout);
        const std::string name = std::string(info->name) + " " + devplug_dtype_name(dtype);
        if (ms > target_ms) slow.push_back(name + " (" + std::to_string(ms) + " ms)");
        if (ms > slowest) {
          slowest = ms;
          slowest_name = name;
        }
      }
    }
    std::printf("\nslowest: %s, %.2f ms\n", slowest_name.c_str(), slowest);
    std::printf("over %.0f ms: %zu\n", target_ms, slow.size());
    for (const std::string& s : slow) std::printf("  %s\n", s.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-reference: %s\n", e.what());
    return 1;
  }
  return 0;
}
