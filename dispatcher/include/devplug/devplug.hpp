// SPDX-License-Identifier: Apache-2.0
// The C++17 wrapper over the host C API (devplug.h): RAII objects, exceptions, and
// PyTorch-like tensor arithmetic.
//
// Header-only; links libdevplug. Every C error becomes a `devplug::Error` carrying the
// code and message. Ownership:
//   - `Context` owns the C context. Every object made from it (Plugin, Device, Stream,
//     Event, Tensor) keeps the context alive, so destruction order never matters.
//   - `Plugin` and `Device` are handles owned by the context; copying them is free.
//   - `Stream` and `Event` own what they create (a device's default stream is borrowed);
//     copies share the object, which is destroyed with the last copy.
//   - `Tensor` has reference semantics, like a Python torch.Tensor: copying a Tensor gives
//     another reference to the same host tensor (same storage, same view); a view
//     (reshape, slice...) is a new tensor sharing the storage. The host tensor is
//     released with its last reference.
// Thread-safety is that of the C API: a context and its devices are thread-safe, a
// stream is used by one thread at a time, and one Tensor object (its reference count
// aside) by one thread at a time.
//
//   devplug::Context context(DEVPLUG_CONTEXT_NO_DISCOVERY);
//   context.load("lib/devplug/plugins/libdevplug_reference.so");
//   devplug::Device cpu = context.devices().at(0);
//   auto a = devplug::Tensor::from_host<float>(cpu, {1, 2, 3, 4}, {2, 2});
//   auto b = devplug::Tensor::from_host<int32_t>(cpu, {10, 20}, {2});
//   std::vector<float> sum = (a + b).to_host<float>();   // broadcast and promoted
//
// Tensors are not compared with operator== (which would read as a bool test): use eq(),
// ne(), lt(), le(), gt() and ge(), which return bool tensors.
#ifndef DEVPLUG_DEVPLUG_HPP_
#define DEVPLUG_DEVPLUG_HPP_

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "devplug/devplug.h"
#include "devplug/sdk/dtype.hpp"

namespace devplug {

// An error from libdevplug (or a plugin through it): the code, the message and the
// device API's own code when there is one.
class Error : public std::exception {
 public:
  Error(devplug_code_t code, std::string message, int64_t native_code = 0)
      : code_(code),
        native_code_(native_code),
        message_(std::move(message)),
        what_(std::string(devplug_code_name(code)) + ": " + message_) {}

  devplug_code_t code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  int64_t native_code() const noexcept { return native_code_; }
  // "INVALID_ARGUMENT: shape[1] is -3".
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  devplug_code_t code_;
  int64_t native_code_;
  std::string message_;
  std::string what_;
};

// Helpers of this header; not part of the interface.
namespace api_detail {

// Throws `error` as a devplug::Error after destroying it; does nothing for NULL.
inline void check(devplug_error_t* error) {
  if (error == nullptr) return;
  Error thrown(error->code, error->message ? error->message : "", error->native_code);
  devplug_error_destroy(error);
  throw thrown;
}

using ContextPtr = std::shared_ptr<devplug_context_t>;

inline void require(bool ok, const char* message) {
  if (!ok) throw Error(DEVPLUG_CODE_INVALID_ARGUMENT, message);
}

}  // namespace api_detail

// The library's version ("0.1.0").
inline std::string version() { return devplug_version_string(); }

// Frees pinned host memory from Device::host_allocate (NULL is ignored).
inline void host_free(void* ptr) { api_detail::check(devplug_host_free(ptr)); }

// PyTorch's promote_types for two dtypes; throws for an unknown dtype.
inline devplug_dtype_t promote_types(devplug_dtype_t a, devplug_dtype_t b) {
  devplug_dtype_t out = 0;
  api_detail::check(devplug_promote_types(a, b, &out));
  return out;
}

// The shape two shapes broadcast to; throws INVALID_ARGUMENT when they do not.
inline std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  int32_t rank = 0;
  int64_t out[DEVPLUG_MAX_RANK] = {};
  api_detail::check(devplug_broadcast_shapes(static_cast<int32_t>(a.size()), a.data(),
                                             static_cast<int32_t>(b.size()), b.data(), &rank, out));
  return std::vector<int64_t>(out, out + rank);
}

class Device;

// A loaded plugin; owned by its context.
class Plugin {
 public:
  struct Info {
    std::string name, version, path;
    uint32_t abi_major = 0, abi_minor = 0, opset_version = 0;
    int32_t device_count = 0;
    std::string device_note;  // why there are no devices; empty otherwise
  };

  Info info() const {
    devplug_plugin_info_t raw{};
    raw.struct_size = sizeof(raw);
    api_detail::check(devplug_plugin_get_info(handle_, &raw));
    Info info;
    info.name = raw.name ? raw.name : "";
    info.version = raw.version ? raw.version : "";
    info.path = raw.path ? raw.path : "";
    info.abi_major = raw.abi_major;
    info.abi_minor = raw.abi_minor;
    info.opset_version = raw.opset_version;
    info.device_count = raw.device_count;
    info.device_note = raw.device_note ? raw.device_note : "";
    return info;
  }
  // Whether the plugin declares a kernel for `op` with dispatch dtype `dtype`.
  bool supports(devplug_op_t op, devplug_dtype_t dtype, uint32_t* kernel_flags = nullptr) const {
    bool supported = false;
    uint32_t flags = 0;
    api_detail::check(devplug_plugin_supports(handle_, op, dtype, &supported, &flags));
    if (kernel_flags) *kernel_flags = flags;
    return supported;
  }
  devplug_plugin_t* handle() const { return handle_; }

 private:
  friend class Context;
  friend class Device;
  Plugin(api_detail::ContextPtr context, devplug_plugin_t* handle)
      : context_(std::move(context)), handle_(handle) {}
  api_detail::ContextPtr context_;
  devplug_plugin_t* handle_;
};

class Stream;

// A device of a loaded plugin; owned by its context.
class Device {
 public:
  devplug_device_properties_t properties() const {
    devplug_device_properties_t p{};
    p.struct_size = sizeof(p);
    api_detail::check(devplug_device_get_properties(handle_, &p));
    return p;
  }
  std::string name() const { return properties().name; }
  Plugin plugin() const {
    devplug_plugin_t* plugin = nullptr;
    api_detail::check(devplug_device_get_plugin(handle_, &plugin));
    return Plugin(context_, plugin);
  }
  // The device's default stream (borrowed from the device).
  inline Stream default_stream() const;
  // Waits for all work on every stream of the device.
  void synchronize() const { api_detail::check(devplug_device_synchronize(handle_)); }
  // What devplug's caching allocator holds on the device (devplug_device_memory_stats).
  devplug_memory_stats_t memory_stats() const {
    devplug_memory_stats_t stats{};
    stats.struct_size = sizeof(stats);
    api_detail::check(devplug_device_memory_stats(handle_, &stats));
    return stats;
  }
  // Resets peaks and/or totals (DEVPLUG_MEMORY_RESET_* bits).
  void reset_memory_stats(uint32_t what) const {
    api_detail::check(devplug_device_reset_memory_stats(handle_, what));
  }
  // Waits for the device, then returns its cached buffers to the plugin.
  void empty_cache() const { api_detail::check(devplug_device_empty_cache(handle_)); }
  // Pinned host memory for copies with this device (devplug_host_allocate); free it with
  // devplug::host_free.
  void* host_allocate(uint64_t size_bytes) const {
    void* ptr = nullptr;
    api_detail::check(devplug_host_allocate(handle_, size_bytes, &ptr));
    return ptr;
  }
  devplug_device_t* handle() const { return handle_; }
  const api_detail::ContextPtr& context() const { return context_; }

 private:
  friend class Context;
  friend class Tensor;
  friend class Stream;
  Device(api_detail::ContextPtr context, devplug_device_t* handle)
      : context_(std::move(context)), handle_(handle) {}
  api_detail::ContextPtr context_;
  devplug_device_t* handle_;
};

class Event;

// A stream of work on one device. Copies share the stream; a stream made with
// Stream(device) is destroyed (after its work finishes) with its last copy.
class Stream {
 public:
  // Creates a new stream on `device`.
  explicit Stream(const Device& device) : context_(device.context()) {
    devplug_stream_t* raw = nullptr;
    api_detail::check(devplug_stream_create(device.handle(), &raw));
    // Destruction waits for the stream; its error has nowhere to go from a destructor.
    stream_ = std::shared_ptr<devplug_stream_t>(raw, [keep = context_](devplug_stream_t* s) {
      if (devplug_error_t* e = devplug_stream_destroy(s)) devplug_error_destroy(e);
    });
  }
  void synchronize() const { api_detail::check(devplug_stream_synchronize(handle())); }
  // Whether the stream is capturing a graph (devplug_stream_begin_capture).
  bool capturing() const {
    bool capturing = false;
    api_detail::check(devplug_stream_is_capturing(handle(), &capturing));
    return capturing;
  }
  // Makes later work on this stream wait for `event`.
  inline void wait(const Event& event) const;
  Device device() const {
    devplug_device_t* device = nullptr;
    api_detail::check(devplug_stream_get_device(handle(), &device));
    return Device(context_, device);
  }
  devplug_stream_t* handle() const { return stream_.get(); }

 private:
  friend class Device;
  // A borrowed stream (a device's default stream): never destroyed here.
  Stream(api_detail::ContextPtr context, devplug_stream_t* borrowed)
      : context_(std::move(context)),
        stream_(std::shared_ptr<devplug_stream_t>(borrowed, [](devplug_stream_t*) {})) {}

  api_detail::ContextPtr context_;
  std::shared_ptr<devplug_stream_t> stream_;
};

inline Stream Device::default_stream() const {
  devplug_stream_t* raw = nullptr;
  api_detail::check(devplug_device_default_stream(handle_, &raw));
  return Stream(context_, raw);
}

// An event on a device: recorded on a stream, waited for by streams or the host.
class Event {
 public:
  explicit Event(const Device& device) {
    devplug_event_t* raw = nullptr;
    api_detail::check(devplug_event_create(device.handle(), &raw));
    api_detail::ContextPtr context = device.context();
    event_ = std::shared_ptr<devplug_event_t>(raw, [context](devplug_event_t* e) {
      if (devplug_error_t* error = devplug_event_destroy(e)) devplug_error_destroy(error);
    });
  }
  void record(const Stream& stream) const {
    api_detail::check(devplug_event_record(handle(), stream.handle()));
  }
  void synchronize() const { api_detail::check(devplug_event_synchronize(handle())); }
  // The device time from this event to `end` in nanoseconds, once both have completed
  // (devplug_event_elapsed_ns).
  int64_t elapsed_ns(const Event& end) const {
    int64_t ns = 0;
    api_detail::check(devplug_event_elapsed_ns(handle(), end.handle(), &ns));
    return ns;
  }
  devplug_event_t* handle() const { return event_.get(); }

 private:
  std::shared_ptr<devplug_event_t> event_;
};

inline void Stream::wait(const Event& event) const {
  api_detail::check(devplug_stream_wait_event(handle(), event.handle()));
}

// A tensor on a device, with reference semantics (see the top of this file).
class Tensor {
 public:
  // Allocates a contiguous tensor; contents are undefined.
  static Tensor empty(const Device& device, devplug_dtype_t dtype, const std::vector<int64_t>& shape) {
    devplug_tensor_t* raw = nullptr;
    api_detail::check(devplug_tensor_create(device.handle(), dtype, static_cast<int32_t>(shape.size()),
                                            shape.data(), &raw));
    return Tensor(device.context(), raw);
  }

  // A uint8 [size_bytes] tensor whose storage is the caller's host memory at `host`, for a
  // device whose memory is host memory (devplug_tensor_from_host_memory: `release` is called
  // with `release_context` once the storage is gone, and not when this throws).
  static Tensor over_host_memory(const Device& device, void* host, uint64_t size_bytes,
                                 void (*release)(void*), void* release_context) {
    devplug_tensor_t* raw = nullptr;
    api_detail::check(
        devplug_tensor_from_host_memory(device.handle(), host, size_bytes, release, release_context, &raw));
    return Tensor(device.context(), raw);
  }

  // Allocates a tensor of `shape` and copies `values` (row-major) into it, waiting for
  // the copy. T is an element type of devplug/sdk/dtype.hpp (bool, int32_t, float,
  // devplug::sdk::float16...).
  template <typename T>
  static Tensor from_host(const Device& device, const std::vector<T>& values,
                          const std::vector<int64_t>& shape) {
    Tensor t = empty(device, sdk::dtype_of<T>(), shape);
    t.copy_from_host(values);
    return t;
  }

  // Copies `values` into the tensor's elements in row-major logical order and waits.
  template <typename T>
  void copy_from_host(const std::vector<T>& values, const Stream* stream = nullptr) {
    api_detail::require(sdk::dtype_of<T>() == dtype(), "copy_from_host: T does not match the dtype");
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(values.begin(), values.end());
      copy_from_host(bytes.data(), bytes.size(), stream);
    } else {
      copy_from_host(values.data(), values.size() * sizeof(T), stream);
    }
  }
  void copy_from_host(const void* data, uint64_t size_bytes, const Stream* stream = nullptr) {
    api_detail::check(devplug_tensor_copy_from_host(stream ? stream->handle() : nullptr, handle(), data,
                                                    size_bytes, DEVPLUG_COPY_BLOCKING));
  }

  // The elements in row-major logical order; T must match the dtype.
  template <typename T>
  std::vector<T> to_host(const Stream* stream = nullptr) const {
    api_detail::require(sdk::dtype_of<T>() == dtype(), "to_host: T does not match the dtype");
    const size_t count = static_cast<size_t>(numel());
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(count);
      copy_to_host(bytes.data(), bytes.size(), stream);
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> values(count);
      copy_to_host(values.data(), count * sizeof(T), stream);
      return values;
    }
  }
  void copy_to_host(void* data, uint64_t size_bytes, const Stream* stream = nullptr) const {
    api_detail::check(
        devplug_tensor_copy_to_host(stream ? stream->handle() : nullptr, handle(), data, size_bytes));
  }
  // Enqueues the copy to the host without waiting where it can (devplug_tensor_copy_to_host_async);
  // returns whether it waited. `data` holds the elements once the stream has passed the copy.
  bool copy_to_host_async(void* data, uint64_t size_bytes, const Stream* stream = nullptr) const {
    bool waited = true;
    api_detail::check(devplug_tensor_copy_to_host_async(stream ? stream->handle() : nullptr, handle(), data,
                                                        size_bytes, &waited));
    return waited;
  }
  // Enqueues the copy from the host without waiting: `data` must stay valid and unchanged
  // until the stream has passed the copy.
  void copy_from_host_async(const void* data, uint64_t size_bytes, const Stream* stream = nullptr) {
    api_detail::check(
        devplug_tensor_copy_from_host(stream ? stream->handle() : nullptr, handle(), data, size_bytes, 0));
  }
  // The host address of the first element on a device whose memory is host memory
  // (devplug_tensor_host_address).
  void* host_address() const {
    void* address = nullptr;
    api_detail::check(devplug_tensor_host_address(handle(), &address));
    return address;
  }
  // Copies `src` (same shape and dtype, any layout or device) into this tensor.
  void copy_from(const Tensor& src, const Stream* stream = nullptr) {
    api_detail::check(devplug_tensor_copy(stream ? stream->handle() : nullptr, handle(), src.handle()));
  }

  // ---- metadata ----
  devplug_tensor_desc_t describe() const {
    devplug_tensor_desc_t desc{};
    desc.struct_size = sizeof(desc);
    api_detail::check(devplug_tensor_describe(handle(), &desc));
    return desc;
  }
  devplug_dtype_t dtype() const { return describe().dtype; }
  int32_t rank() const { return describe().rank; }
  std::vector<int64_t> shape() const {
    devplug_tensor_desc_t d = describe();
    return std::vector<int64_t>(d.shape, d.shape + d.rank);
  }
  std::vector<int64_t> strides() const {
    devplug_tensor_desc_t d = describe();
    return std::vector<int64_t>(d.strides, d.strides + d.rank);
  }
  int64_t numel() const {
    int64_t n = 0;
    api_detail::check(devplug_tensor_numel(handle(), &n));
    return n;
  }
  uint64_t storage_bytes() const {
    uint64_t n = 0;
    api_detail::check(devplug_tensor_storage_bytes(handle(), &n));
    return n;
  }
  Device device() const {
    devplug_device_t* d = nullptr;
    api_detail::check(devplug_tensor_get_device(handle(), &d));
    return Device(context_, d);
  }

  // ---- views (metadata only; share the storage) ----
  Tensor reshape(const std::vector<int64_t>& shape) const {
    return make_view([&](devplug_tensor_t** out) {
      return devplug_tensor_reshape(handle(), static_cast<int32_t>(shape.size()), shape.data(), out);
    });
  }
  Tensor permute(const std::vector<int32_t>& dims) const {
    api_detail::require(static_cast<int32_t>(dims.size()) == rank(),
                        "permute: dims must name every dim once");
    return make_view(
        [&](devplug_tensor_t** out) { return devplug_tensor_permute(handle(), dims.data(), out); });
  }
  Tensor transpose(int32_t dim0, int32_t dim1) const {
    return make_view(
        [&](devplug_tensor_t** out) { return devplug_tensor_transpose(handle(), dim0, dim1, out); });
  }
  Tensor expand(const std::vector<int64_t>& shape) const {
    return make_view([&](devplug_tensor_t** out) {
      return devplug_tensor_expand(handle(), static_cast<int32_t>(shape.size()), shape.data(), out);
    });
  }
  // Python's t[start:stop:step] along `dim`; INT64_MAX / INT64_MIN stand for an open end.
  Tensor slice(int32_t dim, int64_t start, int64_t stop, int64_t step = 1) const {
    return make_view(
        [&](devplug_tensor_t** out) { return devplug_tensor_slice(handle(), dim, start, stop, step, out); });
  }
  Tensor squeeze(int32_t dim) const {
    return make_view([&](devplug_tensor_t** out) { return devplug_tensor_squeeze(handle(), dim, out); });
  }
  Tensor unsqueeze(int32_t dim) const {
    return make_view([&](devplug_tensor_t** out) { return devplug_tensor_unsqueeze(handle(), dim, out); });
  }
  Tensor diagonal(int64_t offset = 0, int32_t dim0 = 0, int32_t dim1 = 1) const {
    return make_view(
        [&](devplug_tensor_t** out) { return devplug_tensor_diagonal(handle(), offset, dim0, dim1, out); });
  }
  Tensor as_strided(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                    int64_t storage_offset) const {
    api_detail::require(shape.size() == strides.size(), "as_strided: shape and strides differ in rank");
    return make_view([&](devplug_tensor_t** out) {
      return devplug_tensor_as_strided(handle(), static_cast<int32_t>(shape.size()), shape.data(),
                                       strides.data(), storage_offset, out);
    });
  }
  // As as_strided, reading the storage's bytes as `dtype` (strides and offset count
  // elements of `dtype`).
  Tensor as_strided(devplug_dtype_t dtype, const std::vector<int64_t>& shape,
                    const std::vector<int64_t>& strides, int64_t storage_offset) const {
    api_detail::require(shape.size() == strides.size(), "as_strided: shape and strides differ in rank");
    return make_view([&](devplug_tensor_t** out) {
      return devplug_tensor_as_strided_dtype(handle(), dtype, static_cast<int32_t>(shape.size()),
                                             shape.data(), strides.data(), storage_offset, out);
    });
  }

  // The C handle, borrowed; valid while this Tensor (or a copy) lives.
  devplug_tensor_t* handle() const { return tensor_.get(); }
  // How many Tensor objects share this handle.
  long use_count() const { return tensor_.use_count(); }

 private:
  Tensor(api_detail::ContextPtr context, devplug_tensor_t* raw)
      : context_(std::move(context)),
        tensor_(raw, [keep = context_](devplug_tensor_t* t) { devplug_tensor_release(t); }) {}

  // Runs a C view call `make(&raw)` and wraps the new tensor (or throws its error).
  template <typename F>
  Tensor make_view(F&& make) const {
    devplug_tensor_t* raw = nullptr;
    api_detail::check(make(&raw));
    return Tensor(context_, raw);
  }

  friend Tensor elementwise(devplug_op_t, const std::vector<Tensor>&, const Stream*);
  friend void elementwise_into(devplug_op_t, const std::vector<Tensor>&, Tensor&, const Stream*);

  api_detail::ContextPtr context_;
  std::shared_ptr<devplug_tensor_t> tensor_;
};

namespace api_detail {
inline std::vector<devplug_tensor_t*> handles(const std::vector<Tensor>& tensors) {
  std::vector<devplug_tensor_t*> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.handle());
  return out;
}
}  // namespace api_detail

// Runs prim `op` exactly as ops.def defines it (strict shapes and dtypes, outputs given).
// `attrs` is the op's attribute struct or NULL; `stream` NULL uses the first output's
// device's default stream.
inline void call(devplug_op_t op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                 const void* attrs = nullptr, const Stream* stream = nullptr) {
  std::vector<devplug_tensor_t*> in = api_detail::handles(inputs);
  std::vector<devplug_tensor_t*> out = api_detail::handles(outputs);
  api_detail::check(devplug_op_call(stream ? stream->handle() : nullptr, op, in.data(), in.size(), out.data(),
                                    out.size(), attrs));
}

// Runs an elementwise op with PyTorch's broadcasting and type promotion and returns a new
// tensor on the inputs' device.
inline Tensor elementwise(devplug_op_t op, const std::vector<Tensor>& inputs,
                          const Stream* stream = nullptr) {
  api_detail::require(!inputs.empty(), "elementwise: no inputs");
  std::vector<devplug_tensor_t*> in = api_detail::handles(inputs);
  devplug_tensor_t* result = nullptr;
  api_detail::check(
      devplug_elementwise(stream ? stream->handle() : nullptr, op, in.data(), in.size(), &result));
  return Tensor(inputs.front().context_, result);
}

// As elementwise(), writing into `out` (its shape must be the broadcast shape; its dtype
// is cast to, as PyTorch's add(..., out=)).
inline void elementwise_into(devplug_op_t op, const std::vector<Tensor>& inputs, Tensor& out,
                             const Stream* stream = nullptr) {
  std::vector<devplug_tensor_t*> in = api_detail::handles(inputs);
  devplug_tensor_t* result = out.handle();
  api_detail::check(
      devplug_elementwise(stream ? stream->handle() : nullptr, op, in.data(), in.size(), &result));
}

// ---- arithmetic, with broadcasting and promotion ----
inline Tensor operator+(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_add, {a, b}); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_sub, {a, b}); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_mul, {a, b}); }
// True division for floats, truncating for integers (the `div` prim on promoted inputs).
inline Tensor operator/(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_div, {a, b}); }
inline Tensor operator-(const Tensor& a) { return elementwise(DEVPLUG_OP_neg, {a}); }

// ---- comparisons: bool tensors ----
inline Tensor eq(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_eq, {a, b}); }
inline Tensor ne(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_ne, {a, b}); }
inline Tensor lt(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_lt, {a, b}); }
inline Tensor le(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_le, {a, b}); }
inline Tensor gt(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_gt, {a, b}); }
inline Tensor ge(const Tensor& a, const Tensor& b) { return elementwise(DEVPLUG_OP_ge, {a, b}); }
// cond ? a : b, broadcast and promoted.
inline Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return elementwise(DEVPLUG_OP_where, {cond, a, b});
}

// A plugin that failed to load: its path and the reason.
struct LoadFailure {
  std::string path;
  std::string reason;
};

// The registry of plugins and devices. Move-only; the C context is destroyed when this
// object and every object made from it are gone.
class Context {
 public:
  // Creates a context with DEVPLUG_CONTEXT_* `flags` (0: discovery on, strict from
  // DEVPLUG_STRICT).
  explicit Context(uint32_t flags = 0) {
    devplug_context_options_t options{};
    options.struct_size = sizeof(options);
    options.flags = flags;
    devplug_context_t* raw = nullptr;
    api_detail::check(devplug_context_create(&options, &raw));
    context_ = api_detail::ContextPtr(raw, devplug_context_destroy);
  }
  Context(Context&&) noexcept = default;
  Context& operator=(Context&&) noexcept = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Loads the plugin at `path`; throws with the loader's reason on failure.
  Plugin load(const std::string& path) {
    devplug_plugin_t* plugin = nullptr;
    api_detail::check(devplug_context_load_plugin(handle(), path.c_str(), &plugin));
    return Plugin(context_, plugin);
  }
  std::vector<Plugin> plugins() const {
    size_t count = 0;
    api_detail::check(devplug_context_plugin_count(handle(), &count));
    std::vector<Plugin> out;
    for (size_t i = 0; i < count; ++i) {
      devplug_plugin_t* plugin = nullptr;
      api_detail::check(devplug_context_get_plugin(handle(), i, &plugin));
      out.push_back(Plugin(context_, plugin));
    }
    return out;
  }
  // The loaded plugin called `name`; throws NOT_FOUND.
  Plugin find_plugin(const std::string& name) const {
    devplug_plugin_t* plugin = nullptr;
    api_detail::check(devplug_context_find_plugin(handle(), name.c_str(), &plugin));
    return Plugin(context_, plugin);
  }
  std::vector<Device> devices() const {
    size_t count = 0;
    api_detail::check(devplug_context_device_count(handle(), &count));
    std::vector<Device> out;
    for (size_t i = 0; i < count; ++i) {
      devplug_device_t* device = nullptr;
      api_detail::check(devplug_context_get_device(handle(), i, &device));
      out.push_back(Device(context_, device));
    }
    return out;
  }
  std::vector<LoadFailure> failures() const {
    size_t count = 0;
    api_detail::check(devplug_context_failure_count(handle(), &count));
    std::vector<LoadFailure> out;
    for (size_t i = 0; i < count; ++i) {
      const char* path = nullptr;
      const char* reason = nullptr;
      api_detail::check(devplug_context_get_failure(handle(), i, &path, &reason));
      out.push_back(LoadFailure{path ? path : "", reason ? reason : ""});
    }
    return out;
  }
  // Op calls that ran on the CPU fallback (of `op`, or of every op by default).
  uint64_t fallback_count(devplug_op_t op = DEVPLUG_OP_INVALID) const {
    uint64_t count = 0;
    api_detail::check(devplug_context_fallback_count(handle(), op, &count));
    return count;
  }
  devplug_context_t* handle() const { return context_.get(); }

 private:
  api_detail::ContextPtr context_;
};

}  // namespace devplug

#endif  // DEVPLUG_DEVPLUG_HPP_
