// SPDX-License-Identifier: Apache-2.0
// A small host for the OpenCL plugin tests: loads a plugin file with dlopen, opens device 0
// and a stream, moves bytes in and out, and runs one op call. Errors become test failures.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "devplug/plugin_api.h"

namespace devplug::opencl_test {

// Owns an error and frees it through its plugin.
struct ErrorText {
  devplug_code_t code = DEVPLUG_CODE_OK;
  int64_t native_code = 0;
  std::string message;
};

inline ErrorText take(const devplug_plugin_api_t* api, devplug_error_t* error) {
  ErrorText text;
  if (error != nullptr) {
    text.code = error->code;
    text.native_code = error->native_code;
    text.message = error->message;
    api->error_destroy(error);
  }
  return text;
}

#define DEVPLUG_EXPECT_OK(api, call)                                          \
  do {                                                                        \
    const auto text_ = ::devplug::opencl_test::take(api, (call));             \
    ASSERT_EQ(text_.code, DEVPLUG_CODE_OK) << #call << ": " << text_.message; \
  } while (0)

// A temporary folder removed at the end of the scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "devplug_ocl_XXXXXX").string();
    path_ = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A loaded plugin. `copy_to` loads a private copy of the file so that its process-wide
// state (library handle, device list) starts fresh, as in a second process.
class LoadedPlugin {
 public:
  explicit LoadedPlugin(const std::string& file, const std::string& copy_to = "") {
    std::string path = file;
    if (!copy_to.empty()) {
      std::filesystem::copy_file(file, copy_to, std::filesystem::copy_options::overwrite_existing);
      path = copy_to;
    }
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) return;
    auto get = reinterpret_cast<devplug_plugin_get_api_fn>(dlsym(handle_, DEVPLUG_PLUGIN_ENTRY_SYMBOL));
    api_ = get ? get() : nullptr;
    if (api_ != nullptr) {
      devplug_plugin_init_args_t args{sizeof args, DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR};
      init_ = take(api_, api_->plugin_initialize(&args));
    }
  }
  ~LoadedPlugin() {
    if (api_ != nullptr) api_->plugin_shutdown();
    // Plugins are not unloaded: OpenCL runtimes keep threads that outlive dlclose.
  }
  const devplug_plugin_api_t* api() const { return api_; }
  const ErrorText& init_error() const { return init_; }

 private:
  void* handle_ = nullptr;
  const devplug_plugin_api_t* api_ = nullptr;
  ErrorText init_;
};

// Device 0 of a plugin with one stream.
class Session {
 public:
  explicit Session(const devplug_plugin_api_t* api) : api_(api) {
    take_or_fail(api_->device_open(0, &device_));
    if (device_ != nullptr) take_or_fail(api_->stream_create(device_, &stream_));
  }
  ~Session() {
    for (devplug_buffer_handle_t* b : buffers_) take(api_, api_->buffer_release(b));
    if (stream_ != nullptr) take(api_, api_->stream_destroy(stream_));
    if (device_ != nullptr) take(api_, api_->device_close(device_));
  }
  bool ok() const { return stream_ != nullptr; }
  const devplug_plugin_api_t* api() const { return api_; }
  devplug_device_handle_t* device() const { return device_; }
  devplug_stream_handle_t* stream() const { return stream_; }

  // A buffer holding `bytes` (at least 8 bytes allocated).
  devplug_buffer_handle_t* upload(const std::vector<unsigned char>& bytes) {
    devplug_buffer_handle_t* buffer = nullptr;
    take_or_fail(api_->buffer_allocate(device_, std::max<size_t>(bytes.size(), 8), &buffer));
    if (buffer == nullptr) return nullptr;
    buffers_.push_back(buffer);
    if (!bytes.empty())
      take_or_fail(api_->buffer_copy_from_host(stream_, bytes.data(), buffer, 0, bytes.size()));
    take_or_fail(api_->stream_synchronize(stream_));
    return buffer;
  }
  std::vector<unsigned char> download(devplug_buffer_handle_t* buffer, size_t size) {
    std::vector<unsigned char> bytes(size);
    if (size == 0) return bytes;
    take_or_fail(api_->buffer_copy_to_host(stream_, buffer, 0, bytes.data(), size));
    take_or_fail(api_->stream_synchronize(stream_));
    return bytes;
  }
  // Runs `op` through the plugin's kernel table; returns the error (code OK on success).
  ErrorText run(devplug_op_t op, const std::vector<devplug_tensor_desc_t>& inputs,
                const devplug_tensor_desc_t& output, const void* attrs) {
    std::vector<const devplug_tensor_desc_t*> in;
    for (const devplug_tensor_desc_t& t : inputs) in.push_back(&t);
    const devplug_tensor_desc_t* out[1] = {&output};
    const devplug_dtype_t dtype = dispatch_dtype(op, inputs, output);
    for (size_t i = 0; i < api_->kernel_count; ++i) {
      const devplug_kernel_t* k = api_->kernels[i];
      if (k->op != op || (k->dtypes & DEVPLUG_DTYPE_BIT(dtype)) == 0) continue;
      devplug_op_call_t call{sizeof call, op, in.data(), in.size(), out, 1, attrs};
      ErrorText e = take(api_, k->fn(stream_, &call));
      if (e.code == DEVPLUG_CODE_OK) e = take(api_, api_->stream_synchronize(stream_));
      return e;
    }
    return ErrorText{DEVPLUG_CODE_UNIMPLEMENTED, 0, "no kernel"};
  }

 private:
  static devplug_dtype_t dispatch_dtype(devplug_op_t op, const std::vector<devplug_tensor_desc_t>& inputs,
                                        const devplug_tensor_desc_t& output) {
    const devplug_op_info_t* info = devplug_op_info(op);
    if (info->result == DEVPLUG_RESULT_made) return output.dtype;
    if (info->result == DEVPLUG_RESULT_select) return inputs[1].dtype;
    return inputs[0].dtype;
  }
  void take_or_fail(devplug_error_t* error) {
    const ErrorText text = take(api_, error);
    EXPECT_EQ(text.code, DEVPLUG_CODE_OK) << text.message;
  }

  const devplug_plugin_api_t* api_;
  devplug_device_handle_t* device_ = nullptr;
  devplug_stream_handle_t* stream_ = nullptr;
  std::vector<devplug_buffer_handle_t*> buffers_;
};

// A tensor descriptor over `buffer`.
inline devplug_tensor_desc_t tensor(devplug_buffer_handle_t* buffer, devplug_dtype_t dtype,
                                    std::vector<int64_t> shape, std::vector<int64_t> strides = {},
                                    uint64_t byte_offset = 0) {
  devplug_tensor_desc_t t{};
  t.struct_size = sizeof t;
  t.buffer = buffer;
  t.byte_offset = byte_offset;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int64_t step = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    t.shape[d] = shape[static_cast<size_t>(d)];
    t.strides[d] = strides.empty() ? step : strides[static_cast<size_t>(d)];
    step *= shape[static_cast<size_t>(d)];
  }
  return t;
}

template <typename T>
std::vector<unsigned char> bytes_of(const std::vector<T>& values) {
  std::vector<unsigned char> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> values_of(const std::vector<unsigned char>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// Points the plugin's disk cache (`variable`) at a temporary folder unless ctest already
// set it, so a test run by hand never writes to the user's cache.
class CacheEnvironment : public ::testing::Environment {
 public:
  explicit CacheEnvironment(const char* variable) : variable_(variable) {}
  void SetUp() override {
    const char* dir = std::getenv(variable_);
    if (dir == nullptr || *dir == '\0') setenv(variable_, dir_.path().c_str(), 1);
  }

 private:
  const char* variable_;
  TempDir dir_;
};

// ---- event timestamps (the event_timestamps extension) ----

// The plugin's event_timestamps extension, or null when it offers none.
inline const devplug_ext_event_timestamps_t* event_timestamps(const devplug_plugin_api_t* api) {
  return reinterpret_cast<const devplug_ext_event_timestamps_t*>(
      devplug_extension_find(api, DEVPLUG_EXTENSION_EVENT_TIMESTAMPS));
}

// What check_event_timestamps measured, in nanoseconds.
struct TimedWork {
  int64_t short_ns = -1;  // one small fill kernel (the least of three tries)
  int64_t long_ns = -1;   // eight copies of 32 MiB
};

// Checks the event_timestamps extension on `s`'s device: a short kernel timed between two
// events takes zero or more nanoseconds, much longer work (256 MiB of copies) measures longer,
// the time from `end` back to `start` is its negation, and an event never recorded is
// FAILED_PRECONDITION (for either argument). Work is enqueued between the records without
// waiting, so the device's time covers the work, not the host's.
inline void check_event_timestamps(Session& s, TimedWork* out = nullptr) {
  const devplug_plugin_api_t* api = s.api();
  const devplug_ext_event_timestamps_t* ext = event_timestamps(api);
  ASSERT_NE(ext, nullptr) << "the plugin offers no event_timestamps extension";
  ASSERT_GE(ext->base.struct_size, sizeof(devplug_ext_event_timestamps_t));
  ASSERT_NE(ext->event_elapsed_ns, nullptr);
  devplug_event_handle_t* start = nullptr;
  devplug_event_handle_t* end = nullptr;
  devplug_event_handle_t* never = nullptr;
  DEVPLUG_EXPECT_OK(api, api->event_create(s.device(), &start));
  DEVPLUG_EXPECT_OK(api, api->event_create(s.device(), &end));
  DEVPLUG_EXPECT_OK(api, api->event_create(s.device(), &never));

  // Never recorded: the start is checked first.
  int64_t ns = 12345;
  EXPECT_EQ(take(api, ext->event_elapsed_ns(never, never, &ns)).code, DEVPLUG_CODE_FAILED_PRECONDITION);
  EXPECT_EQ(ns, 0) << "the out-parameter is cleared on failure";
  DEVPLUG_EXPECT_OK(api, api->event_record(end, s.stream()));
  const ErrorText no_start = take(api, ext->event_elapsed_ns(never, end, &ns));
  EXPECT_EQ(no_start.code, DEVPLUG_CODE_FAILED_PRECONDITION);
  EXPECT_NE(no_start.message.find("start"), std::string::npos) << no_start.message;
  DEVPLUG_EXPECT_OK(api, api->event_record(start, s.stream()));
  const ErrorText no_end = take(api, ext->event_elapsed_ns(start, never, &ns));
  EXPECT_EQ(no_end.code, DEVPLUG_CODE_FAILED_PRECONDITION);
  EXPECT_NE(no_end.message.find("end"), std::string::npos) << no_end.message;

  // A short kernel: fill 64 int32 (run once first, so no build or first-launch cost counts).
  const devplug_kernel_t* fill = nullptr;
  for (size_t i = 0; i < api->kernel_count; ++i)
    if (api->kernels[i]->op == DEVPLUG_OP_fill &&
        (api->kernels[i]->dtypes & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_INT32)))
      fill = api->kernels[i];
  ASSERT_NE(fill, nullptr);
  devplug_buffer_handle_t* small = s.upload(std::vector<unsigned char>(64 * 4));
  const devplug_tensor_desc_t small_t = tensor(small, DEVPLUG_DTYPE_INT32, {64});
  const devplug_tensor_desc_t* outs[1] = {&small_t};
  const devplug_fill_attrs_t fill_attrs{sizeof fill_attrs, {3.0, 3}};
  const devplug_op_call_t call{sizeof call, DEVPLUG_OP_fill, nullptr, 0, outs, 1, &fill_attrs};
  DEVPLUG_EXPECT_OK(api, fill->fn(s.stream(), &call));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(s.stream()));
  const auto time = [&](const std::function<void()>& work) {
    int64_t elapsed = -1;
    const ErrorText a = take(api, api->event_record(start, s.stream()));
    work();
    const ErrorText b = take(api, api->event_record(end, s.stream()));
    EXPECT_EQ(a.code, DEVPLUG_CODE_OK) << a.message;
    EXPECT_EQ(b.code, DEVPLUG_CODE_OK) << b.message;
    const ErrorText e = take(api, ext->event_elapsed_ns(start, end, &elapsed));
    EXPECT_EQ(e.code, DEVPLUG_CODE_OK) << e.message;
    return elapsed;
  };
  TimedWork measured;
  for (int i = 0; i < 3; ++i) {
    const int64_t t = time([&] { EXPECT_EQ(take(api, fill->fn(s.stream(), &call)).code, DEVPLUG_CODE_OK); });
    EXPECT_GE(t, 0);
    measured.short_ns = i == 0 ? t : std::min(measured.short_ns, t);
  }
  EXPECT_EQ(values_of<int32_t>(s.download(small, 64 * 4)).back(), 3);

  // Much longer work: eight copies of 32 MiB.
  constexpr uint64_t kBig = uint64_t{32} << 20;
  devplug_buffer_handle_t* a = nullptr;
  devplug_buffer_handle_t* b = nullptr;
  DEVPLUG_EXPECT_OK(api, api->buffer_allocate(s.device(), kBig, &a));
  DEVPLUG_EXPECT_OK(api, api->buffer_allocate(s.device(), kBig, &b));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  DEVPLUG_EXPECT_OK(api, api->buffer_copy(s.stream(), a, 0, b, 0, kBig));  // first touch
  DEVPLUG_EXPECT_OK(api, api->buffer_copy(s.stream(), b, 0, a, 0, kBig));
  DEVPLUG_EXPECT_OK(api, api->stream_synchronize(s.stream()));
  measured.long_ns = time([&] {
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(take(api, api->buffer_copy(s.stream(), i % 2 ? b : a, 0, i % 2 ? a : b, 0, kBig)).code,
                DEVPLUG_CODE_OK);
  });
  EXPECT_GT(measured.long_ns, measured.short_ns);
  EXPECT_GT(measured.long_ns, 0);

  // Backwards, and an event against itself.
  int64_t back = 0;
  DEVPLUG_EXPECT_OK(api, ext->event_elapsed_ns(end, start, &back));
  EXPECT_EQ(back, -measured.long_ns);
  int64_t self = -1;
  DEVPLUG_EXPECT_OK(api, ext->event_elapsed_ns(end, end, &self));
  EXPECT_EQ(self, 0);

  std::printf("[ timing   ] short fill %lld ns, 8 x 32 MiB copies %lld ns\n",
              static_cast<long long>(measured.short_ns), static_cast<long long>(measured.long_ns));
  if (out != nullptr) *out = measured;
  DEVPLUG_EXPECT_OK(api, api->buffer_release(a));
  DEVPLUG_EXPECT_OK(api, api->buffer_release(b));
  for (devplug_event_handle_t* e : {start, end, never}) DEVPLUG_EXPECT_OK(api, api->event_destroy(e));
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline int count_lines_starting(const std::string& text, const std::string& prefix) {
  int n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) ++n;
  return n;
}

}  // namespace devplug::opencl_test
