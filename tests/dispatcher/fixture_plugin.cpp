// SPDX-License-Identifier: Apache-2.0
// A small plugin for the dispatcher-runtime tests, built in several variants from this one
// file (FIXTURE_VARIANT), so the loader's every path can be exercised without the real
// plugins: a working plugin with two host-memory devices and a few kernels, a newer-minor
// table, an ABI 2.0 table, a table too small, a NULL table, a failing plugin_initialize, a
// library without the entry symbol, one with a missing dependency, one without devices, and
// one without copy_strided (so copies of strided views go through host staging), and one
// whose two devices claim different dtypes (device 1: no float64, no int32).
//
// The working variant implements add (float32, int32), copy_strided (every dtype),
// convert_element_type (bool/int32/int64/float32/float64 among themselves), neg (float32,
// dense operands only: it refuses others, proving the dispatcher materialized them) and sub
// (float32: answers UNIMPLEMENTED, to trigger the fallback). It opts in to the caching
// allocator and exports counters of live buffers and allocations for the tests.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "devplug/plugin_api.h"
#include "devplug/sdk/entry.hpp"
#include "devplug/sdk/error.hpp"
#include "devplug/sdk/kernel.hpp"
#include "devplug/sdk/kernels.hpp"
#include "devplug/sdk/plugin.hpp"
#include "devplug/sdk/strided.hpp"

#define FIXTURE_GOOD 0
#define FIXTURE_NEWER 1
#define FIXTURE_ABI2 2
#define FIXTURE_SMALL 3
#define FIXTURE_NULL_API 4
#define FIXTURE_INIT_FAILS 5
#define FIXTURE_NO_SYMBOL 6
#define FIXTURE_MISSING_DEP 7
#define FIXTURE_NO_DEVICE 8
#define FIXTURE_NO_COPY 9
#define FIXTURE_CLAIMS 10
#define FIXTURE_SMALL_MEMORY 11  // holds at most memory_bytes (1 MiB) of live buffers
#ifndef FIXTURE_VARIANT
#define FIXTURE_VARIANT FIXTURE_GOOD
#endif
#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture"
#endif

using devplug::sdk::guard;

struct devplug_device_handle_t {
  int32_t index;
};
struct devplug_buffer_handle_t {
  uint64_t size;
  unsigned char* data;
  devplug_device_handle_t* device;
};
struct devplug_stream_handle_t {
  devplug_device_handle_t* device;
};
struct devplug_event_handle_t {
  devplug_device_handle_t* device;
};

namespace {

std::atomic<int64_t> g_live_buffers{0};
std::atomic<uint64_t> g_live_bytes{0};
std::atomic<int64_t> g_allocations{0};
std::atomic<int64_t> g_refused_allocations{0};  // FIXTURE_SMALL_MEMORY: requests that did not fit
std::atomic<int64_t> g_initialized{0};
devplug_device_handle_t g_devices[2] = {{0}, {1}};

unsigned char* at(const devplug_tensor_desc_t& t) { return t.buffer->data + t.byte_offset; }

// The dtypes device `index` runs: every one, except on fixture_claims' device 1, the smaller
// part (no float64, no int32).
devplug_dtype_mask_t claimed_mask(int32_t index) {
#if FIXTURE_VARIANT == FIXTURE_CLAIMS
  if (index == 1)
    return DEVPLUG_DTYPES_ALL &
           ~(DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32));
#endif
  (void)index;
  return DEVPLUG_DTYPES_ALL;
}

// What the SDK's kernel prologue (sdk/kernel.hpp) asks of the fixture's handles.
struct KernelTraits {
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* s) { return s->device; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* b) { return b->device; }
  static devplug_dtype_mask_t claimed_dtypes(devplug_stream_handle_t* s) {
    return claimed_mask(s->device->index);
  }
};

devplug_error_t* add_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return devplug::sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& a = *call->inputs[0];
    const devplug_tensor_desc_t& b = *call->inputs[1];
    const devplug_tensor_desc_t& o = *call->outputs[0];
    devplug::sdk::for_each_offset<3>(
        o.rank, o.shape, {a.strides, b.strides, o.strides}, [&](const std::array<int64_t, 3>& k) {
          if (o.dtype == DEVPLUG_DTYPE_FLOAT32)
            reinterpret_cast<float*>(at(o))[k[2]] =
                reinterpret_cast<float*>(at(a))[k[0]] + reinterpret_cast<float*>(at(b))[k[1]];
          else
            reinterpret_cast<int32_t*>(at(o))[k[2]] =
                static_cast<int32_t>(static_cast<uint32_t>(reinterpret_cast<int32_t*>(at(a))[k[0]]) +
                                     static_cast<uint32_t>(reinterpret_cast<int32_t*>(at(b))[k[1]]));
        });
  });
}

[[maybe_unused]] devplug_error_t* copy_kernel(devplug_stream_handle_t* stream,
                                              const devplug_op_call_t* call) {
  return devplug::sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& o = *call->outputs[0];
    const size_t es = devplug_dtype_size(o.dtype);
    devplug::sdk::for_each_offset<2>(
        o.rank, o.shape, {in.strides, o.strides}, [&](const std::array<int64_t, 2>& k) {
          std::memcpy(at(o) + k[1] * static_cast<int64_t>(es), at(in) + k[0] * static_cast<int64_t>(es), es);
        });
  });
}

template <typename T>
double load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}
template <typename T>
void store(unsigned char* p, double v) {
  T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof(T));
}

devplug_error_t* convert_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return devplug::sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& o = *call->outputs[0];
    auto read = [&](const unsigned char* p) -> double {
      switch (in.dtype) {
        case DEVPLUG_DTYPE_BOOL:
          return *p != 0 ? 1.0 : 0.0;
        case DEVPLUG_DTYPE_INT32:
          return load<int32_t>(p);
        case DEVPLUG_DTYPE_INT64:
          return load<int64_t>(p);
        case DEVPLUG_DTYPE_FLOAT32:
          return load<float>(p);
        default:
          return load<double>(p);
      }
    };
    auto write = [&](unsigned char* p, double v) {
      switch (o.dtype) {
        case DEVPLUG_DTYPE_BOOL:
          *p = v != 0.0;
          break;
        case DEVPLUG_DTYPE_INT32:
          store<int32_t>(p, v);
          break;
        case DEVPLUG_DTYPE_INT64:
          store<int64_t>(p, v);
          break;
        case DEVPLUG_DTYPE_FLOAT32:
          store<float>(p, v);
          break;
        case DEVPLUG_DTYPE_FLOAT64:
          store<double>(p, v);
          break;
        default:
          devplug::sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, "fixture: convert to this dtype is not implemented");
      }
    };
    const int64_t ies = static_cast<int64_t>(devplug_dtype_size(in.dtype));
    const int64_t oes = static_cast<int64_t>(devplug_dtype_size(o.dtype));
    devplug::sdk::for_each_offset<2>(
        o.rank, o.shape, {in.strides, o.strides},
        [&](const std::array<int64_t, 2>& k) { write(at(o) + k[1] * oes, read(at(in) + k[0] * ies)); });
  });
}

devplug_error_t* neg_dense_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return devplug::sdk::run_kernel<KernelTraits>(stream, call, [&] {
    const devplug_tensor_desc_t& in = *call->inputs[0];
    const devplug_tensor_desc_t& o = *call->outputs[0];
    if (!devplug::sdk::is_contiguous(in) || !devplug::sdk::is_contiguous(o))
      devplug::sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "fixture neg: operands are not dense");
    const int64_t n = devplug::sdk::numel(o);
    for (int64_t i = 0; i < n; ++i)
      reinterpret_cast<float*>(at(o))[i] = -reinterpret_cast<const float*>(at(in))[i];
  });
}

devplug_error_t* unimplemented_kernel(devplug_stream_handle_t* stream, const devplug_op_call_t* call) {
  return devplug::sdk::run_kernel<KernelTraits>(
      stream, call, [] { devplug::sdk::fail(DEVPLUG_CODE_UNIMPLEMENTED, "fixture: not today"); });
}

const devplug::sdk::KernelTable& kernel_table() {
  static const devplug::sdk::KernelTable table = [] {
    devplug::sdk::KernelTable t;
    t.add(DEVPLUG_OP_add, DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32),
          0, &add_kernel);
#if FIXTURE_VARIANT != FIXTURE_NO_COPY  // no copy_strided: the dispatcher stages through the host
    t.add(DEVPLUG_OP_copy_strided, DEVPLUG_DTYPES_ALL, 0, &copy_kernel);
#endif
    t.add(DEVPLUG_OP_convert_element_type,
          DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_BOOL) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32) |
              DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT64) | DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32) |
              DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT64),
          0, &convert_kernel);
    t.add(DEVPLUG_OP_neg, DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32),
          DEVPLUG_KERNEL_DENSE_INPUTS | DEVPLUG_KERNEL_DENSE_OUTPUTS, &neg_dense_kernel);
    t.add(DEVPLUG_OP_sub, DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32), 0, &unimplemented_kernel);
    return t;
  }();
  return table;
}

// The table's entries; sdk::make_plugin_api's shims check the arguments first.
struct FixturePlugin {
  static const char* name() { return FIXTURE_NAME; }
  static const char* version() { return "test"; }
  static uint32_t flags() { return DEVPLUG_PLUGIN_CACHING_ALLOCATOR; }
  static void initialize(const devplug_plugin_init_args_t&) {
#if FIXTURE_VARIANT == FIXTURE_INIT_FAILS
    devplug::sdk::fail(DEVPLUG_CODE_UNAVAILABLE, "no frobnicator attached");
#else
    ++g_initialized;
#endif
  }
  static void shutdown() noexcept { --g_initialized; }

  static int32_t device_count(const char** note) {
#if FIXTURE_VARIANT == FIXTURE_NO_DEVICE
    *note = "no fixture hardware present";
    return 0;
#else
    (void)note;
    return 2;
#endif
  }
  static void device_properties(int32_t index, devplug_device_properties_t& p) {
    std::snprintf(p.name, sizeof(p.name), "fixture device %d", index);
    std::snprintf(p.vendor, sizeof(p.vendor), "devplug tests");
    std::snprintf(p.driver_version, sizeof(p.driver_version), "1");
    p.memory_bytes = 1 << 20;
    p.compute_units = 1;
    p.capabilities = DEVPLUG_DEVICE_UNIFIED_MEMORY | (index == 0 ? DEVPLUG_DEVICE_FP64 : 0u);
  }
#if FIXTURE_VARIANT == FIXTURE_CLAIMS
  // The claims (ABI 1.2): device 1 is the smaller part, no float64 and no int32; device 0
  // runs every dtype but its hook declines an add of exactly kDeclinedAddSize elements (a
  // stand-in for a shape limit, at a size no conformance case uses).
  static void device_claims(int32_t index, devplug_device_claims_t& c) {
    c.dtypes = claimed_mask(index);
    if (index == 0) c.supports = &small_adds_only;
  }
  static constexpr int64_t kDeclinedAddSize = 7777;
  static bool small_adds_only(devplug_device_handle_t*, const devplug_op_call_t* call) {
    if (call->op != DEVPLUG_OP_add) return true;
    int64_t n = 1;
    for (int32_t k = 0; k < call->outputs[0]->rank; ++k) n *= call->outputs[0]->shape[k];
    return n != kDeclinedAddSize;
  }
#endif
  static devplug_device_handle_t* device_open(int32_t index) { return &g_devices[index]; }
  static void device_close(devplug_device_handle_t*) {}

  static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size) {
#if FIXTURE_VARIANT == FIXTURE_SMALL_MEMORY
    const uint64_t limit = uint64_t{1} << 20;
    if (size > limit - std::min<uint64_t>(g_live_bytes.load(), limit)) {
      ++g_refused_allocations;
      devplug::sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED,
                         "fixture: " + std::to_string(size) +
                             " bytes do not fit: " + std::to_string(g_live_bytes.load()) +
                             " of the device's " + std::to_string(limit) + " bytes are in use");
    }
#endif
    auto* b = new devplug_buffer_handle_t{size, static_cast<unsigned char*>(std::calloc(size, 1)), device};
    if (b->data == nullptr) {
      delete b;
      devplug::sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, "fixture: calloc failed");
    }
    ++g_live_buffers;
    ++g_allocations;
    g_live_bytes += size;
    return b;
  }
  static void buffer_release(devplug_buffer_handle_t* b) {
    g_live_bytes -= b->size;
    std::free(b->data);
    delete b;
    --g_live_buffers;
  }
  static uint64_t buffer_size(devplug_buffer_handle_t* b) { return b->size; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* b) { return b->device; }
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* s) { return s->device; }
  static devplug_device_handle_t* device_of(devplug_event_handle_t* e) { return e->device; }
  static void buffer_copy_from_host(devplug_stream_handle_t*, const void* src, devplug_buffer_handle_t* dst,
                                    uint64_t off, uint64_t n) {
    std::memcpy(dst->data + off, src, n);
  }
  static void buffer_copy_to_host(devplug_stream_handle_t*, devplug_buffer_handle_t* src, uint64_t off,
                                  void* dst, uint64_t n) {
    std::memcpy(dst, src->data + off, n);
  }
  static void buffer_copy(devplug_stream_handle_t*, devplug_buffer_handle_t* src, uint64_t so,
                          devplug_buffer_handle_t* dst, uint64_t dof, uint64_t n) {
    std::memcpy(dst->data + dof, src->data + so, n);
  }
  static devplug_stream_handle_t* stream_create(devplug_device_handle_t* d) {
    return new devplug_stream_handle_t{d};
  }
  static void stream_destroy(devplug_stream_handle_t* s) { delete s; }
  static void stream_synchronize(devplug_stream_handle_t*) {}
  static devplug_event_handle_t* event_create(devplug_device_handle_t* d) {
    return new devplug_event_handle_t{d};
  }
  static void event_destroy(devplug_event_handle_t* e) { delete e; }
  static void event_record(devplug_event_handle_t*, devplug_stream_handle_t*) {}
  static void stream_wait_event(devplug_stream_handle_t*, devplug_event_handle_t*) {}
  static void event_synchronize(devplug_event_handle_t*) {}
  static const devplug::sdk::KernelTable& kernels() { return kernel_table(); }
};

[[maybe_unused]] devplug_plugin_api_t make_api() { return devplug::sdk::make_plugin_api<FixturePlugin>(); }

#if FIXTURE_VARIANT == FIXTURE_NEWER
// A table of ABI 1.7 with fields this dispatcher does not know, and kernel rows that grew too.
struct NewerKernel {
  devplug_kernel_t base;
  uint64_t future_field;
};
struct NewerApi {
  devplug_plugin_api_t base;
  void* future_fields[4];
};
const devplug_plugin_api_t* newer_api() {
  static NewerKernel rows[2];
  static const devplug_kernel_t* pointers[2];
  static NewerApi api;
  api.base = make_api();
  api.base.struct_size = sizeof(NewerApi);
  api.base.abi_minor = 7;
  api.base.opset_version = DEVPLUG_OPSET_VERSION + 3;
  rows[0].base = devplug_kernel_t{sizeof(NewerKernel), DEVPLUG_OP_add,
                                  DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32), 0, &add_kernel};
  rows[0].future_field = 42;
  rows[1].base = devplug_kernel_t{sizeof(NewerKernel), 999, DEVPLUG_DTYPES_ALL, 0,
                                  &add_kernel};  // an op from the future
  pointers[0] = &rows[0].base;
  pointers[1] = &rows[1].base;
  api.base.kernels = pointers;
  api.base.kernel_count = 2;
  return &api.base;
}
#endif

}  // namespace

// Counters for the tests (the fixture's own symbols, found with dlsym).
extern "C" DEVPLUG_PLUGIN_EXPORT int64_t fixture_live_buffers(void) { return g_live_buffers.load(); }
extern "C" DEVPLUG_PLUGIN_EXPORT int64_t fixture_allocations(void) { return g_allocations.load(); }
extern "C" DEVPLUG_PLUGIN_EXPORT int64_t fixture_refused_allocations(void) {
  return g_refused_allocations.load();
}
extern "C" DEVPLUG_PLUGIN_EXPORT int64_t fixture_initialized(void) { return g_initialized.load(); }

#if FIXTURE_VARIANT == FIXTURE_MISSING_DEP
extern "C" int fixture_dependency_value(void);
#endif

#if FIXTURE_VARIANT == FIXTURE_NO_SYMBOL
extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api_misspelled(void) {
  static const devplug_plugin_api_t api = make_api();
  return &api;
}
#else
extern "C" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* devplug_plugin_get_api(void) {
#if FIXTURE_VARIANT == FIXTURE_NULL_API
  return nullptr;
#elif FIXTURE_VARIANT == FIXTURE_NEWER
  return newer_api();
#else
  static devplug_plugin_api_t api = make_api();
#if FIXTURE_VARIANT == FIXTURE_ABI2
  api.abi_major = 2;
  api.abi_minor = 0;
#elif FIXTURE_VARIANT == FIXTURE_SMALL
  api.struct_size = DEVPLUG_PLUGIN_API_MIN_SIZE - sizeof(size_t);
#elif FIXTURE_VARIANT == FIXTURE_MISSING_DEP
  api.plugin_version = fixture_dependency_value() ? "dep" : "nodep";
#endif
  return &api;
#endif
}
#endif
