// SPDX-License-Identifier: Apache-2.0
// ABI behaviour of the reference plugin's entry points: the table itself, devices, buffers
// (round trips with offsets, range checks), streams and events, and the answers to bad
// input (NULL handles, short struct_size, zero and huge sizes), which must be errors and
// never crashes.
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

namespace rt = devplug::reftest;

namespace {

// Destroys `error` and returns its code (OK for NULL).
devplug_code_t code_of(devplug_error_t* error) {
  if (error == nullptr) return DEVPLUG_CODE_OK;
  EXPECT_NE(error->message, nullptr);
  EXPECT_GT(std::strlen(error->message), 0u) << "an error must say what went wrong";
  const devplug_code_t code = error->code;
  rt::api()->error_destroy(error);
  return code;
}

// A buffer released at scope exit.
struct ScopedBuffer {
  devplug_buffer_handle_t* handle = nullptr;
  explicit ScopedBuffer(uint64_t size) {
    EXPECT_EQ(code_of(rt::api()->buffer_allocate(rt::device(), size, &handle)), DEVPLUG_CODE_OK);
  }
  ~ScopedBuffer() {
    if (handle) code_of(rt::api()->buffer_release(handle));
  }
};

TEST(PluginTable, IdentifiesItself) {
  const devplug_plugin_api_t* api = rt::api();
  EXPECT_GE(api->struct_size, DEVPLUG_PLUGIN_API_MIN_SIZE);
  EXPECT_EQ(api->abi_major, static_cast<uint32_t>(DEVPLUG_ABI_MAJOR));
  EXPECT_EQ(api->abi_minor, static_cast<uint32_t>(DEVPLUG_ABI_MINOR));
  EXPECT_STREQ(api->plugin_name, "reference");
  EXPECT_NE(api->plugin_version, nullptr);
  EXPECT_GT(std::strlen(api->plugin_version), 0u);
  EXPECT_EQ(api->opset_version, static_cast<uint32_t>(DEVPLUG_OPSET_VERSION));
}

TEST(PluginTable, EveryEntryIsSet) {
  const devplug_plugin_api_t* api = rt::api();
  // Every field after the header is a pointer; none may be NULL in ABI 1.0.
  const void* const entries[] = {reinterpret_cast<const void*>(api->error_create),
                                 reinterpret_cast<const void*>(api->error_destroy),
                                 reinterpret_cast<const void*>(api->plugin_initialize),
                                 reinterpret_cast<const void*>(api->plugin_shutdown),
                                 reinterpret_cast<const void*>(api->device_count),
                                 reinterpret_cast<const void*>(api->device_get_properties),
                                 reinterpret_cast<const void*>(api->device_open),
                                 reinterpret_cast<const void*>(api->device_close),
                                 reinterpret_cast<const void*>(api->buffer_allocate),
                                 reinterpret_cast<const void*>(api->buffer_release),
                                 reinterpret_cast<const void*>(api->buffer_get_size),
                                 reinterpret_cast<const void*>(api->buffer_copy_from_host),
                                 reinterpret_cast<const void*>(api->buffer_copy_to_host),
                                 reinterpret_cast<const void*>(api->buffer_copy),
                                 reinterpret_cast<const void*>(api->stream_create),
                                 reinterpret_cast<const void*>(api->stream_destroy),
                                 reinterpret_cast<const void*>(api->stream_synchronize),
                                 reinterpret_cast<const void*>(api->event_create),
                                 reinterpret_cast<const void*>(api->event_destroy),
                                 reinterpret_cast<const void*>(api->event_record),
                                 reinterpret_cast<const void*>(api->stream_wait_event),
                                 reinterpret_cast<const void*>(api->event_synchronize),
                                 reinterpret_cast<const void*>(api->kernels)};
  for (const void* entry : entries) EXPECT_NE(entry, nullptr);
}

TEST(PluginTable, KernelRowsAreWellFormed) {
  const devplug_plugin_api_t* api = rt::api();
  for (size_t i = 0; i < api->kernel_count; ++i) {
    const devplug_kernel_t* k = api->kernels[i];
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->struct_size, sizeof(devplug_kernel_t));
    const devplug_op_info_t* info = devplug_op_info(k->op);
    ASSERT_NE(info, nullptr) << "row " << i << " has unknown op " << k->op;
    EXPECT_EQ(k->dtypes & ~info->dtypes, 0u) << info->name << " claims a dtype ops.def does not allow";
    EXPECT_NE(k->dtypes, 0u);
    EXPECT_NE(k->fn, nullptr);
    EXPECT_EQ(k->flags, 0u) << "the reference backend takes any layout";
  }
}

TEST(Errors, CreateAndDestroy) {
  devplug_error_t* e = rt::api()->error_create(DEVPLUG_CODE_NOT_FOUND, 42, "hello");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, DEVPLUG_CODE_NOT_FOUND);
  EXPECT_EQ(e->native_code, 42);
  EXPECT_STREQ(e->message, "hello");
  rt::api()->error_destroy(e);
  rt::api()->error_destroy(nullptr);  // ignored
  devplug_error_t* empty = rt::api()->error_create(DEVPLUG_CODE_INTERNAL, 0, nullptr);
  ASSERT_NE(empty, nullptr);
  EXPECT_STREQ(empty->message, "");
  rt::api()->error_destroy(empty);
}

TEST(Lifecycle, InitializeChecksArguments) {
  const devplug_plugin_api_t* api = rt::api();
  EXPECT_EQ(code_of(api->plugin_initialize(nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_plugin_init_args_t args = {sizeof args, DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR};
  args.struct_size = 4;
  EXPECT_EQ(code_of(api->plugin_initialize(&args)), DEVPLUG_CODE_INVALID_ARGUMENT);
  args.struct_size = sizeof args;
  args.host_abi_major = DEVPLUG_ABI_MAJOR + 1;
  EXPECT_EQ(code_of(api->plugin_initialize(&args)), DEVPLUG_CODE_FAILED_PRECONDITION);
  args.host_abi_major = DEVPLUG_ABI_MAJOR;
  args.host_abi_minor = DEVPLUG_ABI_MINOR + 7;  // a newer minor is compatible
  EXPECT_EQ(code_of(api->plugin_initialize(&args)), DEVPLUG_CODE_OK);
}

TEST(Devices, CountAndProperties) {
  const devplug_plugin_api_t* api = rt::api();
  int32_t count = -1;
  const char* note = "stale";
  EXPECT_EQ(code_of(api->device_count(&count, &note)), DEVPLUG_CODE_OK);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(note, nullptr);
  EXPECT_EQ(code_of(api->device_count(&count, nullptr)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->device_count(nullptr, nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);

  devplug_device_properties_t p;
  std::memset(&p, 0xFF, sizeof p);
  p.struct_size = sizeof p;
  ASSERT_EQ(code_of(api->device_get_properties(0, &p)), DEVPLUG_CODE_OK);
  EXPECT_EQ(p.struct_size, sizeof p);
  EXPECT_STREQ(p.name, "devplug reference CPU");
  EXPECT_STREQ(p.vendor, "devplug");
  EXPECT_LT(std::strlen(p.driver_version), sizeof p.driver_version);
  EXPECT_GT(p.memory_bytes, 0u);
  EXPECT_GT(p.compute_units, 0);
  EXPECT_EQ(p.capabilities,
            DEVPLUG_DEVICE_FP64 | DEVPLUG_DEVICE_FP16 | DEVPLUG_DEVICE_BF16 | DEVPLUG_DEVICE_UNIFIED_MEMORY);

  EXPECT_EQ(code_of(api->device_get_properties(1, &p)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->device_get_properties(-1, &p)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->device_get_properties(0, nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  p.struct_size = 8;
  EXPECT_EQ(code_of(api->device_get_properties(0, &p)), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(Devices, PropertiesFromALargerStructLeaveTheTailAlone) {
  // A newer host's struct is larger; the plugin writes only the fields it knows.
  struct Bigger {
    devplug_device_properties_t p;
    uint64_t newer_field;
  } big;
  std::memset(&big, 0, sizeof big);
  big.p.struct_size = sizeof big;
  big.newer_field = 0x1234567890ABCDEFull;
  ASSERT_EQ(code_of(rt::api()->device_get_properties(0, &big.p)), DEVPLUG_CODE_OK);
  EXPECT_EQ(big.newer_field, 0x1234567890ABCDEFull);
  EXPECT_STREQ(big.p.name, "devplug reference CPU");
}

TEST(Devices, OpenAndCloseChecksArguments) {
  const devplug_plugin_api_t* api = rt::api();
  devplug_device_handle_t* device = reinterpret_cast<devplug_device_handle_t*>(0x1);
  EXPECT_EQ(code_of(api->device_open(1, &device)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(device, nullptr) << "out-parameters are cleared on entry";
  EXPECT_EQ(code_of(api->device_open(0, nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  ASSERT_EQ(code_of(api->device_open(0, &device)), DEVPLUG_CODE_OK);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(code_of(api->device_close(device)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->device_close(nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(Buffers, AllocateChecksSizes) {
  const devplug_plugin_api_t* api = rt::api();
  devplug_buffer_handle_t* buffer = reinterpret_cast<devplug_buffer_handle_t*>(0x1);
  EXPECT_EQ(code_of(api->buffer_allocate(rt::device(), 0, &buffer)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(code_of(api->buffer_allocate(rt::device(), UINT64_MAX, &buffer)),
            DEVPLUG_CODE_RESOURCE_EXHAUSTED);
  EXPECT_EQ(code_of(api->buffer_allocate(rt::device(), uint64_t{1} << 60, &buffer)),
            DEVPLUG_CODE_RESOURCE_EXHAUSTED);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(code_of(api->buffer_allocate(nullptr, 16, &buffer)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_allocate(rt::device(), 16, nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_release(nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(Buffers, SizeIsAsAllocated) {
  for (uint64_t size : {uint64_t{1}, uint64_t{63}, uint64_t{64}, uint64_t{65}, uint64_t{1000003}}) {
    ScopedBuffer b(size);
    uint64_t got = 0;
    EXPECT_EQ(code_of(rt::api()->buffer_get_size(b.handle, &got)), DEVPLUG_CODE_OK);
    EXPECT_EQ(got, size);
  }
  ScopedBuffer b(8);
  EXPECT_EQ(code_of(rt::api()->buffer_get_size(b.handle, nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  uint64_t got = 7;
  EXPECT_EQ(code_of(rt::api()->buffer_get_size(nullptr, &got)), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(Buffers, RoundTripWithOffsets) {
  const devplug_plugin_api_t* api = rt::api();
  ScopedBuffer a(256), b(256);
  std::vector<unsigned char> src(100);
  std::iota(src.begin(), src.end(), static_cast<unsigned char>(1));
  std::vector<unsigned char> zeros(256, 0);
  ASSERT_EQ(code_of(api->buffer_copy_from_host(rt::stream(), zeros.data(), b.handle, 0, 256)),
            DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->buffer_copy_from_host(rt::stream(), src.data(), a.handle, 17, 100)),
            DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->buffer_copy(rt::stream(), a.handle, 27, b.handle, 150, 90)), DEVPLUG_CODE_OK);
  std::vector<unsigned char> out(256, 0xEE);
  ASSERT_EQ(code_of(api->buffer_copy_to_host(rt::stream(), b.handle, 0, out.data(), 256)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->stream_synchronize(rt::stream())), DEVPLUG_CODE_OK);
  for (size_t i = 0; i < 256; ++i) {
    const unsigned char expected = (i >= 150 && i < 240) ? src[i - 150 + 10] : 0;
    ASSERT_EQ(out[i], expected) << "byte " << i;
  }
  // Read back a window of `a` at an offset.
  std::vector<unsigned char> window(5);
  ASSERT_EQ(code_of(api->buffer_copy_to_host(rt::stream(), a.handle, 20, window.data(), 5)), DEVPLUG_CODE_OK);
  EXPECT_EQ(window, std::vector<unsigned char>(src.begin() + 3, src.begin() + 8));
}

TEST(Buffers, CopiesOutsideTheBufferAreRefused) {
  const devplug_plugin_api_t* api = rt::api();
  ScopedBuffer a(64), b(64);
  std::vector<unsigned char> host(128);
  devplug_stream_handle_t* s = rt::stream();
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, host.data(), a.handle, 0, 65)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, host.data(), a.handle, 60, 5)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, host.data(), a.handle, 65, 0)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, host.data(), a.handle, UINT64_MAX, 2)),
            DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, host.data(), a.handle, 2, UINT64_MAX)),
            DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy_to_host(s, a.handle, 1, host.data(), 64)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy_to_host(s, a.handle, UINT64_MAX - 1, host.data(), 4)),
            DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy(s, a.handle, 0, b.handle, 1, 64)), DEVPLUG_CODE_OUT_OF_RANGE);
  EXPECT_EQ(code_of(api->buffer_copy(s, a.handle, 10, b.handle, 0, 60)), DEVPLUG_CODE_OUT_OF_RANGE);
  // Overlapping ranges of one buffer are refused; disjoint ones work.
  EXPECT_EQ(code_of(api->buffer_copy(s, a.handle, 0, a.handle, 10, 20)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy(s, a.handle, 0, a.handle, 32, 32)), DEVPLUG_CODE_OK);
}

TEST(Buffers, ZeroByteCopiesAreNoOps) {
  const devplug_plugin_api_t* api = rt::api();
  ScopedBuffer a(8), b(8);
  devplug_stream_handle_t* s = rt::stream();
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, nullptr, a.handle, 8, 0)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->buffer_copy_to_host(s, a.handle, 0, nullptr, 0)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->buffer_copy(s, a.handle, 8, b.handle, 0, 0)), DEVPLUG_CODE_OK);
}

TEST(Buffers, NullArgumentsAreRefused) {
  const devplug_plugin_api_t* api = rt::api();
  ScopedBuffer a(16), b(16);
  std::vector<unsigned char> host(16);
  devplug_stream_handle_t* s = rt::stream();
  EXPECT_EQ(code_of(api->buffer_copy_from_host(nullptr, host.data(), a.handle, 0, 4)),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, nullptr, a.handle, 0, 4)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy_from_host(s, host.data(), nullptr, 0, 4)),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy_to_host(nullptr, a.handle, 0, host.data(), 4)),
            DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy_to_host(s, nullptr, 0, host.data(), 4)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy_to_host(s, a.handle, 0, nullptr, 4)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy(nullptr, a.handle, 0, b.handle, 0, 4)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy(s, nullptr, 0, b.handle, 0, 4)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->buffer_copy(s, a.handle, 0, nullptr, 0, 4)), DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(Buffers, OddSizesHoldTheirLastByte) {
  // Allocations are rounded up internally (64-byte aligned); the usable size is exactly the
  // requested one, and its last byte round-trips.
  for (uint64_t size : {uint64_t{1}, uint64_t{3}, uint64_t{127}}) {
    ScopedBuffer b(size);
    unsigned char in = 0x5A, out = 0;
    ASSERT_EQ(code_of(rt::api()->buffer_copy_from_host(rt::stream(), &in, b.handle, size - 1, 1)),
              DEVPLUG_CODE_OK);
    ASSERT_EQ(code_of(rt::api()->buffer_copy_to_host(rt::stream(), b.handle, size - 1, &out, 1)),
              DEVPLUG_CODE_OK);
    EXPECT_EQ(out, 0x5A);
  }
}

TEST(StreamsAndEvents, Lifecycle) {
  const devplug_plugin_api_t* api = rt::api();
  devplug_stream_handle_t* s1 = nullptr;
  devplug_stream_handle_t* s2 = nullptr;
  devplug_event_handle_t* e = nullptr;
  ASSERT_EQ(code_of(api->stream_create(rt::device(), &s1)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->stream_create(rt::device(), &s2)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->event_create(rt::device(), &e)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->event_synchronize(e)), DEVPLUG_CODE_OK) << "an event never recorded is complete";
  // Work on s1, an event orders s2 after it, and the data is visible from s2.
  ScopedBuffer a(4), b(4);
  const uint32_t value = 0xCAFEF00D;
  uint32_t out = 0;
  ASSERT_EQ(code_of(api->buffer_copy_from_host(s1, &value, a.handle, 0, 4)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->event_record(e, s1)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->stream_wait_event(s2, e)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->buffer_copy(s2, a.handle, 0, b.handle, 0, 4)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->buffer_copy_to_host(s2, b.handle, 0, &out, 4)), DEVPLUG_CODE_OK);
  ASSERT_EQ(code_of(api->stream_synchronize(s2)), DEVPLUG_CODE_OK);
  EXPECT_EQ(out, value);
  EXPECT_EQ(code_of(api->event_synchronize(e)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->event_destroy(e)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->stream_destroy(s1)), DEVPLUG_CODE_OK);
  EXPECT_EQ(code_of(api->stream_destroy(s2)), DEVPLUG_CODE_OK);
}

TEST(StreamsAndEvents, NullHandlesAreRefused) {
  const devplug_plugin_api_t* api = rt::api();
  devplug_stream_handle_t* s = reinterpret_cast<devplug_stream_handle_t*>(0x1);
  devplug_event_handle_t* e = reinterpret_cast<devplug_event_handle_t*>(0x1);
  EXPECT_EQ(code_of(api->stream_create(nullptr, &s)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(code_of(api->stream_create(rt::device(), nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->stream_destroy(nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->stream_synchronize(nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->event_create(nullptr, &e)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(e, nullptr);
  EXPECT_EQ(code_of(api->event_create(rt::device(), nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->event_destroy(nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->event_record(nullptr, rt::stream())), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->event_synchronize(nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->stream_wait_event(rt::stream(), nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(api->stream_wait_event(nullptr, nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  // A handle of the wrong kind is recognised.
  EXPECT_EQ(code_of(api->stream_synchronize(reinterpret_cast<devplug_stream_handle_t*>(rt::device()))),
            DEVPLUG_CODE_INVALID_ARGUMENT);
}

TEST(Kernels, BadCallsAreErrorsNotCrashes) {
  rt::Tensor a = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {4});
  rt::Tensor out = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {4});
  const devplug_kernel_t* k = rt::find_kernel(DEVPLUG_OP_exp, DEVPLUG_DTYPE_FLOAT32);
  ASSERT_NE(k, nullptr);
  const devplug_tensor_desc_t* in[] = {&a.desc};
  const devplug_tensor_desc_t* outs[] = {&out.desc};
  devplug_op_call_t call{sizeof(devplug_op_call_t), DEVPLUG_OP_exp, in, 1, outs, 1, nullptr};
  EXPECT_EQ(code_of(k->fn(rt::stream(), nullptr)), DEVPLUG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(code_of(k->fn(nullptr, &call)), DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_op_call_t short_call = call;
  short_call.struct_size = 8;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &short_call)), DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_op_call_t two_inputs = call;
  two_inputs.n_inputs = 2;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &two_inputs)), DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_op_call_t unknown_op = call;
  unknown_op.op = 9999;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &unknown_op)), DEVPLUG_CODE_INVALID_ARGUMENT);
  // An int32 input is not a dtype exp allows.
  rt::Tensor ints = rt::make_tensor(DEVPLUG_DTYPE_INT32, {4});
  const devplug_tensor_desc_t* int_in[] = {&ints.desc};
  devplug_op_call_t int_call = call;
  int_call.inputs = int_in;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &int_call)), DEVPLUG_CODE_INVALID_ARGUMENT);
  // A shape mismatch and a tensor reaching past its buffer.
  rt::Tensor longer = rt::make_tensor(DEVPLUG_DTYPE_FLOAT32, {5});
  const devplug_tensor_desc_t* long_out[] = {&longer.desc};
  devplug_op_call_t mismatch = call;
  mismatch.outputs = long_out;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &mismatch)), DEVPLUG_CODE_INVALID_ARGUMENT);
  devplug_tensor_desc_t past_end = a.desc;
  past_end.byte_offset = 8;
  const devplug_tensor_desc_t* past_in[] = {&past_end};
  devplug_op_call_t outside = call;
  outside.inputs = past_in;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &outside)), DEVPLUG_CODE_OUT_OF_RANGE);
  devplug_tensor_desc_t negative_reach = a.desc;
  negative_reach.strides[0] = -1;
  const devplug_tensor_desc_t* neg_in[] = {&negative_reach};
  devplug_op_call_t before_start = call;
  before_start.inputs = neg_in;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &before_start)), DEVPLUG_CODE_OUT_OF_RANGE);
  devplug_tensor_desc_t null_buffer = a.desc;
  null_buffer.buffer = nullptr;
  const devplug_tensor_desc_t* null_in[] = {&null_buffer};
  devplug_op_call_t no_buffer = call;
  no_buffer.inputs = null_in;
  EXPECT_EQ(code_of(k->fn(rt::stream(), &no_buffer)), DEVPLUG_CODE_INVALID_ARGUMENT);
  // The good call still works.
  EXPECT_EQ(code_of(k->fn(rt::stream(), &call)), DEVPLUG_CODE_OK);
}

// The reference backend is the oracle: its declared table must claim every (op, dtype) pair
// ops.def allows, in every category, and nothing else.
TEST(Coverage, KernelTableClaimsEveryOpAndDtypeOfOpsDef) {
  size_t allowed = 0, claimed = 0;
  for (devplug_op_t op : devplug::sdk::all_ops()) {
    const devplug_op_info_t* info = devplug_op_info(op);
    for (devplug_dtype_t dtype = 0; dtype < DEVPLUG_DTYPE_COUNT; ++dtype) {
      if ((info->dtypes & DEVPLUG_DTYPE_BIT(dtype)) == 0) continue;
      ++allowed;
      if (rt::find_kernel(op, dtype) != nullptr)
        ++claimed;
      else
        ADD_FAILURE() << "no kernel for " << info->name << " " << devplug_dtype_name(dtype);
    }
  }
  // Count the table's claims row by row: every claimed pair is one ops.def allows (the rows
  // are well-formed, see above) and no pair is claimed twice.
  size_t rows_claim = 0;
  const devplug_plugin_api_t* api = rt::api();
  for (size_t i = 0; i < api->kernel_count; ++i)
    rows_claim += static_cast<size_t>(__builtin_popcount(api->kernels[i]->dtypes));
  EXPECT_EQ(claimed, allowed);
  EXPECT_EQ(rows_claim, allowed) << "the table claims a pair twice or one ops.def does not allow";
  EXPECT_GT(allowed, 500u);
}

TEST(Concurrency, KernelsAndCopiesFromSeveralThreads) {
  // Each thread has its own stream and buffers; the plugin keeps no mutable global state.
  const devplug_plugin_api_t* api = rt::api();
  const devplug_kernel_t* add = rt::find_kernel(DEVPLUG_OP_add, DEVPLUG_DTYPE_INT32);
  ASSERT_NE(add, nullptr);
  constexpr int kThreads = 4, kRounds = 50, kN = 1000;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      devplug_stream_handle_t* s = nullptr;
      if (code_of(api->stream_create(rt::device(), &s)) != DEVPLUG_CODE_OK) return void(++failures[t]);
      devplug_buffer_handle_t* buffers[3] = {};
      for (devplug_buffer_handle_t*& b : buffers)
        if (code_of(api->buffer_allocate(rt::device(), kN * sizeof(int32_t), &b)) != DEVPLUG_CODE_OK)
          ++failures[t];
      devplug_tensor_desc_t tensors[3];
      for (int i = 0; i < 3; ++i) {
        std::memset(&tensors[i], 0, sizeof tensors[i]);
        tensors[i].struct_size = sizeof(devplug_tensor_desc_t);
        tensors[i].buffer = buffers[i];
        tensors[i].dtype = DEVPLUG_DTYPE_INT32;
        tensors[i].rank = 1;
        tensors[i].shape[0] = kN;
        tensors[i].strides[0] = 1;
      }
      const devplug_tensor_desc_t* in[] = {&tensors[0], &tensors[1]};
      const devplug_tensor_desc_t* out[] = {&tensors[2]};
      devplug_op_call_t call{sizeof(devplug_op_call_t), DEVPLUG_OP_add, in, 2, out, 1, nullptr};
      std::vector<int32_t> a(kN), b(kN), c(kN);
      for (int round = 0; round < kRounds; ++round) {
        for (int i = 0; i < kN; ++i) a[i] = t * 100000 + round * 1000 + i, b[i] = i * 3;
        code_of(api->buffer_copy_from_host(s, a.data(), buffers[0], 0, kN * sizeof(int32_t)));
        code_of(api->buffer_copy_from_host(s, b.data(), buffers[1], 0, kN * sizeof(int32_t)));
        if (code_of(add->fn(s, &call)) != DEVPLUG_CODE_OK) ++failures[t];
        code_of(api->buffer_copy_to_host(s, buffers[2], 0, c.data(), kN * sizeof(int32_t)));
        code_of(api->stream_synchronize(s));
        for (int i = 0; i < kN; ++i)
          if (c[i] != a[i] + b[i]) ++failures[t];
      }
      for (devplug_buffer_handle_t* b : buffers) code_of(api->buffer_release(b));
      code_of(api->stream_destroy(s));
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
