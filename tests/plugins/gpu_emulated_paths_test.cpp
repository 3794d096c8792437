// SPDX-License-Identifier: Apache-2.0
// Every kernel path of the GPU source (plugins/gpu_common), forced on the emulated GPU plugin
// where the conformance shapes do not reach it, each compared with the reference backend (or
// with values worked out here where the reference would need gigabytes), and each proven to
// have taken its path by the emulator's launch trace (DEVPLUG_GPU_EMULATED_TRACE: one line
// per launch with the kernel's signature and geometry):
//   - the dense vectorised elementwise kernel (16-byte accesses plus a scalar tail),
//   - the strided kernels with 32-bit and with 64-bit indices (64-bit: a view whose extent
//     passes 2^31 elements over a sparse buffer of 2 GiB that is never touched but at the
//     few elements the view reads, so it costs a few pages),
//   - reductions in one pass, in two passes (many blocks per output, then a combine), and
//     with many outputs per block (more than 2^20 outputs),
//   - row scans by one thread per row and by a block per row,
//   - the tiled matmul, scatter_add's atomics on every dtype, Philox on dense and strided
//     outputs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "devplug/sdk/half.hpp"
#include "opencl_harness.hpp"  // the raw-table plugin host shared by the plugin tests

namespace {

using devplug::opencl_test::bytes_of;
using devplug::opencl_test::LoadedPlugin;
using devplug::opencl_test::Session;
using devplug::opencl_test::tensor;
using devplug::opencl_test::values_of;

// ---- the launch trace -------------------------------------------------------------------------

const std::string& trace_path() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() /
                           ("devplug_emu_trace_" + std::to_string(::getpid()) + ".txt"))
                              .string();
    std::remove(p.c_str());
    ::setenv("DEVPLUG_GPU_EMULATED_TRACE", p.c_str(), 1);  // read by the plugin's first launch
    return p;
  }();
  return path;
}
const bool kTraceSet = !trace_path().empty();

// The launches traced since `from` (a byte position of the trace file).
struct Launch {
  std::string signature;
  std::string grid;
  std::string block;
};
std::vector<Launch> launches_since(std::streamoff from) {
  std::ifstream in(trace_path());
  in.seekg(from);
  std::vector<Launch> out;
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find('\t'), b = line.rfind('\t');
    if (a == std::string::npos || a == b) continue;
    out.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return out;
}
std::streamoff trace_end() {
  std::ifstream in(trace_path(), std::ios::ate);
  return in ? static_cast<std::streamoff>(in.tellg()) : 0;
}
// Whether some launch's signature contains every one of `parts`.
bool launched(const std::vector<Launch>& ls, std::initializer_list<const char*> parts,
              const Launch** which = nullptr) {
  for (const Launch& l : ls) {
    bool all = true;
    for (const char* p : parts) all = all && l.signature.find(p) != std::string::npos;
    if (all) {
      if (which) *which = &l;
      return true;
    }
  }
  return false;
}
std::string describe(const std::vector<Launch>& ls) {
  std::string s;
  for (const Launch& l : ls) s += "  " + l.signature + " grid " + l.grid + " block " + l.block + "\n";
  return s;
}

// ---- tensors on both plugins ----------------------------------------------------------------------

// A tensor with its whole storage: shape and strides over `storage` from `byte_offset`.
struct Host {
  devplug_dtype_t dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: row-major
  std::vector<unsigned char> storage;
  uint64_t byte_offset = 0;
};

size_t dtype_size(devplug_dtype_t d) { return devplug_dtype_size(d); }

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// A dense row-major tensor of `shape` holding `values` (converted to dtype).
Host dense(devplug_dtype_t dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  Host h{dtype, std::move(shape), {}, {}};
  const size_t es = dtype_size(dtype);
  h.storage.resize(values.size() * es);
  for (size_t i = 0; i < values.size(); ++i) {
    unsigned char* p = h.storage.data() + i * es;
    const double v = values[i];
    switch (dtype) {
      case DEVPLUG_DTYPE_BOOL:
        *p = v != 0;
        break;
      case DEVPLUG_DTYPE_UINT8:
        *p = static_cast<uint8_t>(static_cast<int64_t>(v));
        break;
      case DEVPLUG_DTYPE_INT8:
        *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v);
        break;
      case DEVPLUG_DTYPE_INT16: {
        const int16_t x = static_cast<int16_t>(v);
        std::memcpy(p, &x, 2);
        break;
      }
      case DEVPLUG_DTYPE_INT32: {
        const int32_t x = static_cast<int32_t>(v);
        std::memcpy(p, &x, 4);
        break;
      }
      case DEVPLUG_DTYPE_INT64: {
        const int64_t x = static_cast<int64_t>(v);
        std::memcpy(p, &x, 8);
        break;
      }
      case DEVPLUG_DTYPE_FLOAT16: {
        const uint16_t x = devplug::sdk::double_to_half_bits(v);
        std::memcpy(p, &x, 2);
        break;
      }
      case DEVPLUG_DTYPE_BFLOAT16: {
        const uint16_t x = devplug::sdk::double_to_bfloat16_bits(v);
        std::memcpy(p, &x, 2);
        break;
      }
      case DEVPLUG_DTYPE_FLOAT32: {
        const float x = static_cast<float>(v);
        std::memcpy(p, &x, 4);
        break;
      }
      case DEVPLUG_DTYPE_FLOAT64:
        std::memcpy(p, &v, 8);
        break;
      default:
        ADD_FAILURE() << "dtype " << dtype;
    }
  }
  return h;
}

// Element i of `storage` as a double (int64 beyond 2^53 loses bits; exact compares use bytes).
double element(const std::vector<unsigned char>& storage, devplug_dtype_t dtype, size_t i) {
  const unsigned char* p = storage.data() + i * dtype_size(dtype);
  switch (dtype) {
    case DEVPLUG_DTYPE_BOOL:
    case DEVPLUG_DTYPE_UINT8:
      return *p;
    case DEVPLUG_DTYPE_INT8:
      return *reinterpret_cast<const int8_t*>(p);
    case DEVPLUG_DTYPE_INT16: {
      int16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    case DEVPLUG_DTYPE_INT32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case DEVPLUG_DTYPE_INT64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      return static_cast<double>(x);
    }
    case DEVPLUG_DTYPE_FLOAT16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return devplug::sdk::half_bits_to_double(x);
    }
    case DEVPLUG_DTYPE_BFLOAT16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return devplug::sdk::bfloat16_bits_to_double(x);
    }
    case DEVPLUG_DTYPE_FLOAT32: {
      float x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case DEVPLUG_DTYPE_FLOAT64: {
      double x;
      std::memcpy(&x, p, 8);
      return x;
    }
    default:
      return NAN;
  }
}

std::vector<double> random_values(size_t n, double lo, double hi, unsigned seed, bool integral = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = integral ? std::floor(u(rng)) : u(rng);
  return v;
}

// One plugin with a device and a stream.
struct Side {
  explicit Side(const char* path) : plugin(path), session(plugin.api()) {}
  LoadedPlugin plugin;
  Session session;

  // Runs `op` on `inputs` into `output` (its storage uploaded first); returns the output
  // storage as the plugin left it, or fails the test.
  std::vector<unsigned char> run(devplug_op_t op, const std::vector<Host>& inputs, const Host& output,
                                 const void* attrs) {
    std::vector<devplug_tensor_desc_t> in;
    for (const Host& h : inputs) in.push_back(upload(h));
    const devplug_tensor_desc_t out = upload(output);
    const auto e = session.run(op, in, out, attrs);
    EXPECT_EQ(e.code, DEVPLUG_CODE_OK) << devplug_op_name(op) << ": " << e.message;
    return session.download(out.buffer, output.storage.size());
  }
  devplug_tensor_desc_t upload(const Host& h) {
    return tensor(session.upload(h.storage), h.dtype, h.shape, h.strides, h.byte_offset);
  }
};

class EmulatedPaths : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    emu_ = new Side(DEVPLUG_GPU_EMULATED_PLUGIN);
    ref_ = new Side(DEVPLUG_REFERENCE_PLUGIN);
  }
  static void TearDownTestSuite() {
    delete emu_;
    delete ref_;
    std::remove(trace_path().c_str());
  }
  // Checked per test: a failed assertion in SetUpTestSuite reads as a skip in CTest.
  void SetUp() override {
    ASSERT_TRUE(kTraceSet);
    ASSERT_TRUE(emu_->session.ok());
    ASSERT_TRUE(ref_->session.ok());
    mark_ = trace_end();
  }
  std::vector<Launch> launches() const { return launches_since(mark_); }

  // Runs op on both plugins and compares the outputs: exact, or within `rel` relative
  // (with `abs` absolute) error for floats. Returns the emulated output storage.
  std::vector<unsigned char> compare(devplug_op_t op, const std::vector<Host>& inputs, const Host& output,
                                     const void* attrs, double rel = 0, double abs = 0) {
    const std::vector<unsigned char> got = emu_->run(op, inputs, output, attrs);
    const std::vector<unsigned char> want = ref_->run(op, inputs, output, attrs);
    if (rel == 0 && abs == 0) {
      EXPECT_TRUE(got == want) << devplug_op_name(op) << ": outputs differ\n"
                               << first_difference(output.dtype, got, want);
      return got;
    }
    const size_t n = got.size() / dtype_size(output.dtype);
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; ++i) {
      const double g = element(got, output.dtype, i), w = element(want, output.dtype, i);
      const bool ok =
          (std::isnan(g) && std::isnan(w)) || g == w || std::fabs(g - w) <= abs + rel * std::fabs(w);
      if (!ok) ++bad;
      EXPECT_TRUE(ok) << devplug_op_name(op) << " element " << i << ": got " << g << ", expected " << w;
    }
    return got;
  }
  static std::string first_difference(devplug_dtype_t dtype, const std::vector<unsigned char>& got,
                                      const std::vector<unsigned char>& want) {
    const size_t es = dtype_size(dtype);
    for (size_t i = 0; i * es < std::min(got.size(), want.size()); ++i)
      if (std::memcmp(got.data() + i * es, want.data() + i * es, es) != 0)
        return "element " + std::to_string(i) + ": got " + std::to_string(element(got, dtype, i)) +
               ", expected " + std::to_string(element(want, dtype, i));
    return "sizes " + std::to_string(got.size()) + " and " + std::to_string(want.size());
  }

  static Side* emu_;
  static Side* ref_;
  std::streamoff mark_ = 0;
};
Side* EmulatedPaths::emu_ = nullptr;
Side* EmulatedPaths::ref_ = nullptr;

Host poison(devplug_dtype_t dtype, std::vector<int64_t> shape) {
  Host h{dtype, std::move(shape), {}, {}};
  h.storage.assign(static_cast<size_t>(numel(h.shape)) * dtype_size(dtype), 0xA5);
  return h;
}

// ---- elementwise ---------------------------------------------------------------------------------

TEST_F(EmulatedPaths, DenseVectorisedElementwiseWithScalarTail) {
  // 16 / element size elements per access: 16 for int8, 8 for float16, 4, 2; 1003 leaves a tail.
  for (devplug_dtype_t d :
       {DEVPLUG_DTYPE_INT8, DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
    const int64_t n = 1003;
    const Host a = dense(d, {n}, random_values(n, -60, 60, 1, true));
    const Host b = dense(d, {n}, random_values(n, -60, 60, 2, true));
    compare(DEVPLUG_OP_add, {a, b}, poison(d, {n}), nullptr);
  }
  const auto ls = launches();
  EXPECT_EQ(ls.size(), 4u) << describe(ls);
  for (const Launch& l : ls) {
    EXPECT_NE(l.signature.find("Pointers<3>, long"), std::string::npos)
        << "not the dense kernel: " << l.signature;
    EXPECT_EQ(l.signature.find("Layouts"), std::string::npos) << l.signature;
  }
}

TEST_F(EmulatedPaths, MixedWidthsVectoriseByTheWidestType) {
  const int64_t n = 517;
  const Host a = dense(DEVPLUG_DTYPE_FLOAT64, {n}, random_values(n, -1e5, 1e5, 3));
  Host out = poison(DEVPLUG_DTYPE_FLOAT16, {n});
  compare(DEVPLUG_OP_convert_element_type, {a}, out, nullptr);
  EXPECT_TRUE(launched(launches(), {"Pointers<2>, long", "Convert<devplug::gpu::f16, double>"}))
      << describe(launches());
}

TEST_F(EmulatedPaths, MisalignedDenseDataTakesTheStridedKernel) {
  const int64_t n = 64;
  Host a = dense(DEVPLUG_DTYPE_FLOAT32, {n + 1}, random_values(n + 1, -5, 5, 4));
  a.shape = {n};
  a.byte_offset = 4;  // 4-byte aligned, not 16
  const Host b = dense(DEVPLUG_DTYPE_FLOAT32, {n}, random_values(n, -5, 5, 5));
  compare(DEVPLUG_OP_mul, {a, b}, poison(DEVPLUG_DTYPE_FLOAT32, {n}), nullptr);
  EXPECT_TRUE(launched(launches(), {"Layouts<3>, int"})) << describe(launches());
}

TEST_F(EmulatedPaths, StridedElementwiseWith32BitIndices) {
  // a transposed, b broadcast along dim 0: nothing merges into one dense dim.
  Host a = dense(DEVPLUG_DTYPE_INT32, {9, 7}, random_values(63, -1000, 1000, 6, true));
  a.shape = {7, 9};
  a.strides = {1, 7};
  Host b = dense(DEVPLUG_DTYPE_INT32, {9}, random_values(9, -1000, 1000, 7, true));
  b.shape = {7, 9};
  b.strides = {0, 1};
  compare(DEVPLUG_OP_sub, {a, b}, poison(DEVPLUG_DTYPE_INT32, {7, 9}), nullptr);
  EXPECT_TRUE(launched(launches(), {"Layouts<3>, int,"})) << describe(launches());
}

// ---- 64-bit indices: views reaching past 2^31 elements of a sparse 2 GiB buffer --------------------

constexpr int64_t kFar = int64_t{1} << 31;

// A uint8 buffer of kFar + 4 bytes on the emulated device, only bytes [0, 4) and
// [kFar, kFar + 4) written; the rest is never touched (no page behind it is ever used).
struct SparseBuffer {
  explicit SparseBuffer(Session& s) : session(s) {
    const auto* api = s.api();
    EXPECT_EQ(devplug::opencl_test::take(api, api->buffer_allocate(s.device(), kFar + 4, &buffer)).code,
              DEVPLUG_CODE_OK);
  }
  ~SparseBuffer() {
    if (buffer) devplug::opencl_test::take(session.api(), session.api()->buffer_release(buffer));
  }
  void write(uint64_t at, const std::vector<uint8_t>& bytes) {
    const auto* api = session.api();
    EXPECT_EQ(devplug::opencl_test::take(
                  api, api->buffer_copy_from_host(session.stream(), bytes.data(), buffer, at, bytes.size()))
                  .code,
              DEVPLUG_CODE_OK);
    EXPECT_EQ(devplug::opencl_test::take(api, api->stream_synchronize(session.stream())).code,
              DEVPLUG_CODE_OK);
  }
  std::vector<uint8_t> read(uint64_t at, size_t n) {
    std::vector<uint8_t> out(n);
    const auto* api = session.api();
    EXPECT_EQ(
        devplug::opencl_test::take(api, api->buffer_copy_to_host(session.stream(), buffer, at, out.data(), n))
            .code,
        DEVPLUG_CODE_OK);
    EXPECT_EQ(devplug::opencl_test::take(api, api->stream_synchronize(session.stream())).code,
              DEVPLUG_CODE_OK);
    return out;
  }
  Session& session;
  devplug_buffer_handle_t* buffer = nullptr;
};

TEST_F(EmulatedPaths, ElementwiseWith64BitIndices) {
  Session& s = emu_->session;
  SparseBuffer far(s);
  ASSERT_NE(far.buffer, nullptr);
  far.write(0, {1, 2, 3, 4});
  far.write(kFar, {10, 20, 30, 40});
  // a: shape [2, 4], row stride 2^31: its extent passes int32.
  const devplug_tensor_desc_t a = tensor(far.buffer, DEVPLUG_DTYPE_UINT8, {2, 4}, {kFar, 1});
  const std::vector<uint8_t> b_values = {5, 5, 5, 5, 250, 250, 250, 250};
  const devplug_tensor_desc_t b = tensor(s.upload(bytes_of(b_values)), DEVPLUG_DTYPE_UINT8, {2, 4});
  const devplug_tensor_desc_t out =
      tensor(s.upload(std::vector<unsigned char>(8, 0)), DEVPLUG_DTYPE_UINT8, {2, 4});
  ASSERT_EQ(s.run(DEVPLUG_OP_add, {a, b}, out, nullptr).code, DEVPLUG_CODE_OK);
  EXPECT_EQ(s.download(out.buffer, 8),
            (std::vector<unsigned char>{6, 7, 8, 9, 4, 14, 24, 34}));  // uint8 wraps
  EXPECT_TRUE(launched(launches(), {"Layouts<3>, long,"})) << describe(launches());
}

TEST_F(EmulatedPaths, FillAndPhiloxWith64BitIndices) {
  Session& s = emu_->session;
  SparseBuffer far(s);
  ASSERT_NE(far.buffer, nullptr);
  far.write(0, {0, 0, 0, 0});
  far.write(kFar, {0, 0, 0, 0});
  const devplug_tensor_desc_t out = tensor(far.buffer, DEVPLUG_DTYPE_UINT8, {2, 3}, {kFar, 1});
  devplug_fill_attrs_t fill{sizeof fill, {0.0, 77}};
  ASSERT_EQ(s.run(DEVPLUG_OP_fill, {}, out, &fill).code, DEVPLUG_CODE_OK);
  EXPECT_EQ(far.read(0, 4), (std::vector<uint8_t>{77, 77, 77, 0}));
  EXPECT_EQ(far.read(kFar, 4), (std::vector<uint8_t>{77, 77, 77, 0}));
  const Launch* l = nullptr;
  EXPECT_TRUE(launched(launches(), {"Layout, long,", "Fill<unsigned char>"}, &l)) << describe(launches());
}

TEST_F(EmulatedPaths, GatherAndReductionWith64BitIndices) {
  Session& s = emu_->session;
  SparseBuffer far(s);
  ASSERT_NE(far.buffer, nullptr);
  far.write(0, {1, 2, 3, 4});
  far.write(kFar, {50, 60, 70, 80});
  const devplug_tensor_desc_t in = tensor(far.buffer, DEVPLUG_DTYPE_UINT8, {2, 4}, {kFar, 1});
  // index_select along dim 1: columns 3, 0, 3.
  const std::vector<int64_t> index_values = {3, 0, 3};
  const devplug_tensor_desc_t index = tensor(s.upload(bytes_of(index_values)), DEVPLUG_DTYPE_INT64, {3});
  const devplug_tensor_desc_t picked =
      tensor(s.upload(std::vector<unsigned char>(6, 0)), DEVPLUG_DTYPE_UINT8, {2, 3});
  devplug_dim_attrs_t dim1{sizeof dim1, 1};
  ASSERT_EQ(s.run(DEVPLUG_OP_index_select, {in, index}, picked, &dim1).code, DEVPLUG_CODE_OK);
  EXPECT_EQ(s.download(picked.buffer, 6), (std::vector<unsigned char>{4, 1, 4, 80, 50, 80}));
  // sum over dim 1, wrapping in uint8: 10 and 260 % 256.
  const devplug_tensor_desc_t sums =
      tensor(s.upload(std::vector<unsigned char>(2, 0)), DEVPLUG_DTYPE_UINT8, {2, 1});
  devplug_reduce_attrs_t over1{sizeof over1, 2u, 0.0};
  ASSERT_EQ(s.run(DEVPLUG_OP_sum, {in}, sums, &over1).code, DEVPLUG_CODE_OK);
  EXPECT_EQ(s.download(sums.buffer, 2), (std::vector<unsigned char>{10, 4}));
  const auto ls = launches();
  EXPECT_TRUE(launched(ls, {"gather", "long"}) || launched(ls, {"GatherGeometry, long"})) << describe(ls);
  EXPECT_TRUE(launched(ls, {"ReduceGeometry, long, long"})) << describe(ls);
}

// ---- reductions ----------------------------------------------------------------------------------

TEST_F(EmulatedPaths, SinglePassReduction) {
  const Host in = dense(DEVPLUG_DTYPE_INT64, {7, 300}, random_values(2100, -1e6, 1e6, 8, true));
  devplug_reduce_attrs_t over1{sizeof over1, 2u, 0.0};
  compare(DEVPLUG_OP_sum, {in}, poison(DEVPLUG_DTYPE_INT64, {7, 1}), &over1);  // reduced dims are kept
  const auto ls = launches();
  EXPECT_EQ(ls.size(), 1u) << "one pass, no combine:\n" << describe(ls);
}

TEST_F(EmulatedPaths, TwoPassReductionsWithManyBlocksPerOutput) {
  const int64_t length = 200000;
  devplug_reduce_attrs_t over1{sizeof over1, 2u, 0.0};
  // int64 sums are exact whatever the order.
  const Host ints = dense(DEVPLUG_DTYPE_INT64, {3, length}, random_values(3 * length, -1e9, 1e9, 9, true));
  compare(DEVPLUG_OP_sum, {ints}, poison(DEVPLUG_DTYPE_INT64, {3, 1}), &over1);
  const auto ls = launches();
  const Launch* first = nullptr;
  ASSERT_TRUE(launched(ls, {"ReduceGeometry, int, int, unsigned int"}, &first)) << describe(ls);
  EXPECT_NE(first->grid.rfind("3,", 0), std::string::npos) << first->grid;
  EXPECT_NE(first->grid, "3,1,1") << "one block per output: not the two-pass plan";
  EXPECT_EQ(ls.size(), 2u) << "the partials' combine pass:\n" << describe(ls);
  // argmax keeps the first index of the maximum across the blocks' partials: the maximum
  // appears in several blocks' ranges.
  std::vector<double> values = random_values(3 * length, -100, 100, 10, true);
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t at : {int64_t{77777}, int64_t{5}, int64_t{150001}})
      values[static_cast<size_t>(r * length + at + r)] = 1000;
  const Host floats = dense(DEVPLUG_DTYPE_FLOAT32, {3, length}, values);
  compare(DEVPLUG_OP_argmax, {floats}, poison(DEVPLUG_DTYPE_INT64, {3, 1}), &over1);
  compare(DEVPLUG_OP_sum, {floats}, poison(DEVPLUG_DTYPE_FLOAT32, {3, 1}), &over1, 1e-5, 1e-2);
  devplug_reduce_attrs_t var1{sizeof var1, 2u, 1.0};
  compare(DEVPLUG_OP_var, {floats}, poison(DEVPLUG_DTYPE_FLOAT32, {3, 1}), &var1, 1e-5);
}

TEST_F(EmulatedPaths, ReductionWithManyOutputsPerBlock) {
  // Rows longer than 16 (pack.hpp's kSerialReduceLength): a block per output.
  const int64_t outputs = (int64_t{1} << 20) + 3;  // the grid stops at 2^20 blocks
  const int64_t length = 17;
  const Host in =
      dense(DEVPLUG_DTYPE_INT32, {outputs, length}, random_values(length * outputs, -1e4, 1e4, 11, true));
  devplug_reduce_attrs_t over1{sizeof over1, 2u, 0.0};
  compare(DEVPLUG_OP_sum, {in}, poison(DEVPLUG_DTYPE_INT32, {outputs, 1}), &over1);
  const auto ls = launches();
  ASSERT_EQ(ls.size(), 1u) << describe(ls);
  EXPECT_EQ(ls[0].grid, "1048576,1,1");
}

TEST_F(EmulatedPaths, ShortRowsAreReducedOneThreadEach) {
  // max_pool2d's windows, amax over the trailing 2 x 2 (dense rows), and a sum over a short
  // strided dim: each one launch of blocks of 128 threads, a thread per output.
  const Host x = dense(DEVPLUG_DTYPE_FLOAT32, {50, 16, 4, 2, 2}, random_values(50 * 16 * 16, -3, 3, 31));
  devplug_reduce_attrs_t last2{sizeof last2, 0x18u, 0.0};
  compare(DEVPLUG_OP_amax, {x}, poison(DEVPLUG_DTYPE_FLOAT32, {50, 16, 4, 1, 1}), &last2);
  auto ls = launches();
  ASSERT_EQ(ls.size(), 1u) << describe(ls);
  EXPECT_EQ(ls[0].block, "128,1,1");
  EXPECT_EQ(ls[0].grid, "25,1,1");  // 3200 outputs
  mark_ = trace_end();
  // Ties and NaN: argmax keeps the first maximum and the first NaN.
  const Host ties = dense(DEVPLUG_DTYPE_FLOAT32, {3, 4}, {1, 5, 5, 2, 7, NAN, 7, NAN, -1, -1, -1, -1});
  devplug_reduce_attrs_t over1{sizeof over1, 2u, 0.0};
  compare(DEVPLUG_OP_argmax, {ties}, poison(DEVPLUG_DTYPE_INT64, {3, 1}), &over1);
  // A strided reduced dim: dim 0 of [5, 300].
  mark_ = trace_end();
  const Host cols = dense(DEVPLUG_DTYPE_INT64, {5, 300}, random_values(1500, -1e9, 1e9, 32, true));
  devplug_reduce_attrs_t over0{sizeof over0, 1u, 0.0};
  compare(DEVPLUG_OP_sum, {cols}, poison(DEVPLUG_DTYPE_INT64, {1, 300}), &over0);
  ls = launches();
  ASSERT_EQ(ls.size(), 1u) << describe(ls);
  EXPECT_EQ(ls[0].block, "128,1,1");
}

// ---- scans ---------------------------------------------------------------------------------------

TEST_F(EmulatedPaths, ScansByThreadAndByBlock) {
  devplug_dim_attrs_t dim1{sizeof dim1, 1};
  // Short rows: one thread each (blocks of 128).
  const Host short_rows = dense(DEVPLUG_DTYPE_INT32, {300, 40}, random_values(12000, -1e5, 1e5, 12, true));
  compare(DEVPLUG_OP_cumsum, {short_rows}, poison(DEVPLUG_DTYPE_INT32, {300, 40}), &dim1);
  auto ls = launches();
  ASSERT_EQ(ls.size(), 1u) << describe(ls);
  EXPECT_EQ(ls[0].block, "128,1,1");
  // Long rows: a block each, four chunks of 256 carrying the prefix.
  mark_ = trace_end();
  const Host long_rows = dense(DEVPLUG_DTYPE_INT64, {3, 1000}, random_values(3000, -1e12, 1e12, 13, true));
  compare(DEVPLUG_OP_cumsum, {long_rows}, poison(DEVPLUG_DTYPE_INT64, {3, 1000}), &dim1);
  const Host near_one = dense(DEVPLUG_DTYPE_FLOAT64, {2, 700}, random_values(1400, 0.999, 1.001, 14));
  compare(DEVPLUG_OP_cumprod, {near_one}, poison(DEVPLUG_DTYPE_FLOAT64, {2, 700}), &dim1, 1e-12);
  ls = launches();
  ASSERT_EQ(ls.size(), 2u) << describe(ls);
  for (const Launch& l : ls) EXPECT_EQ(l.block, "256,1,1") << l.signature;
}

// ---- matmul --------------------------------------------------------------------------------------

TEST_F(EmulatedPaths, TiledMatmulOnEveryFloatType) {
  devplug_matmul_attrs_t attrs{sizeof attrs, 0};
  for (devplug_dtype_t d :
       {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
    // [2, 37, 45] x [2, 45, 29], b read transposed from a [2, 29, 45] storage; sizes are not
    // multiples of the 16 x 16 tile.
    const Host a = dense(d, {2, 37, 45}, random_values(2 * 37 * 45, -2, 2, 15));
    Host b = dense(d, {2, 29, 45}, random_values(2 * 29 * 45, -2, 2, 16));
    b.shape = {2, 45, 29};
    b.strides = {29 * 45, 1, 45};
    const double tol = d == DEVPLUG_DTYPE_FLOAT64 ? 1e-12 : d == DEVPLUG_DTYPE_FLOAT32 ? 1e-5 : 2e-2;
    compare(DEVPLUG_OP_matmul, {a, b}, poison(d, {2, 37, 29}), &attrs, tol, tol);
  }
  const auto ls = launches();
  ASSERT_EQ(ls.size(), 4u) << describe(ls);
  for (const Launch& l : ls) {
    EXPECT_NE(l.signature.find("MatmulGeometry"), std::string::npos);
    EXPECT_EQ(l.block, "16,16,1");
    EXPECT_EQ(l.grid, "2,3,2");
  }
}

// ---- scatter_add atomics -------------------------------------------------------------------------

TEST_F(EmulatedPaths, ScatterAddAtomicsOnEveryDtype) {
  // 1000 x 5 sources onto a 5 x 5 output (odd byte sizes for the narrow types: the last
  // element sits in a partial 32-bit word): ~200 additions per element from many blocks at
  // once. Sources are 0 or 1, so every sum is exact in every dtype and the order is free.
  const int64_t rows = 1000;
  std::vector<double> index_values = random_values(rows * 5, 0, 5, 17, true);
  const Host index = dense(DEVPLUG_DTYPE_INT64, {rows, 5}, index_values);
  devplug_dim_attrs_t dim0{sizeof dim0, 0};
  for (devplug_dtype_t d : {DEVPLUG_DTYPE_UINT8, DEVPLUG_DTYPE_INT8, DEVPLUG_DTYPE_INT16, DEVPLUG_DTYPE_INT32,
                            DEVPLUG_DTYPE_INT64, DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16,
                            DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64}) {
    const Host in = dense(d, {5, 5}, random_values(25, 0, 20, 18, true));
    const Host src = dense(d, {rows, 5}, random_values(rows * 5, 0, 2, 19, true));
    compare(DEVPLUG_OP_scatter_add, {in, index, src}, poison(d, {5, 5}), &dim0);
  }
  const auto ls = launches();
  EXPECT_TRUE(launched(ls, {"ScatterGeometry"})) << describe(ls);
}

TEST_F(EmulatedPaths, ScatterAddKeepsSubnormals) {
  // NVIDIA's float atomicAdd flushes subnormals to zero; scatter_add must not.
  const double tiny = std::numeric_limits<float>::denorm_min();
  const Host in = dense(DEVPLUG_DTYPE_FLOAT32, {4}, {0.0, tiny, -tiny * 3, 1.0});
  const Host index = dense(DEVPLUG_DTYPE_INT64, {8}, {0, 0, 1, 2, 2, 3, 0, 1});
  const Host src =
      dense(DEVPLUG_DTYPE_FLOAT32, {8}, {tiny, tiny * 2, tiny, tiny, tiny * 5, tiny, tiny * 4, tiny});
  devplug_dim_attrs_t dim0{sizeof dim0, 0};
  compare(DEVPLUG_OP_scatter_add, {in, index, src}, poison(DEVPLUG_DTYPE_FLOAT32, {4}), &dim0);
}

// ---- Philox --------------------------------------------------------------------------------------

TEST_F(EmulatedPaths, PhiloxOnDenseAndStridedOutputsAcrossManyBlocks) {
  devplug_philox_attrs_t attrs{sizeof attrs, 0x0123456789abcdefull, (uint64_t{1} << 32) - 3};
  const int64_t n = 70001;  // 274 blocks of 256
  // Bits and uniforms are bit-identical on every plugin (docs/random.md).
  compare(DEVPLUG_OP_philox_bits, {}, poison(DEVPLUG_DTYPE_INT32, {n}), &attrs);
  compare(DEVPLUG_OP_philox_bits, {}, poison(DEVPLUG_DTYPE_INT64, {n}), &attrs);
  for (devplug_dtype_t d :
       {DEVPLUG_DTYPE_FLOAT16, DEVPLUG_DTYPE_BFLOAT16, DEVPLUG_DTYPE_FLOAT32, DEVPLUG_DTYPE_FLOAT64})
    compare(DEVPLUG_OP_philox_uniform, {}, poison(d, {n}), &attrs);
  compare(DEVPLUG_OP_philox_normal, {}, poison(DEVPLUG_DTYPE_FLOAT32, {n}), &attrs, 1e-5, 1e-5);
  compare(DEVPLUG_OP_philox_normal, {}, poison(DEVPLUG_DTYPE_FLOAT64, {n}), &attrs, 1e-12, 1e-12);
  // A transposed output: the strided generator, same element -> word mapping.
  Host t = poison(DEVPLUG_DTYPE_INT32, {301, 233});
  t.shape = {233, 301};
  t.strides = {1, 233};
  compare(DEVPLUG_OP_philox_bits, {}, t, &attrs);
  const auto ls = launches();
  EXPECT_TRUE(launched(ls, {"PhiloxBits<int>", "long"})) << describe(ls);
  EXPECT_TRUE(launched(ls, {"Layout, int,", "PhiloxBits<int>"})) << describe(ls);
}

}  // namespace
