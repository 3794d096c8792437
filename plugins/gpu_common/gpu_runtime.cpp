// Devices, buffers, streams and events for the GPU plugins, on the gpu* names of
// gpu_port.hpp. Every entry point checks its arguments and runs inside sdk::guard.
#include "gpu_runtime.hpp"

#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "devplug/sdk/error.hpp"
#include "gpu_ops.hpp"
#include "gpu_status.hpp"

namespace devplug::gpu {
namespace {

using sdk::check_argument;
using sdk::check_not_null;
using sdk::guard;

const Backend* g_backend = nullptr;

struct DeviceCount {
  int32_t count = 0;
  std::string note;
};

const DeviceCount& device_count_once() {
  static const DeviceCount counted = [] {
    DeviceCount c;
    int n = 0;  // left unwritten by the runtime when it fails
    const gpuError_t e = gpuGetDeviceCount(&n);
    if (e != gpuSuccess) {
      (void)gpuGetLastError();  // clear the sticky-free error so later calls start clean
      const char* name = gpuGetErrorName(e);
      const char* hint = e == gpuErrorInsufficientDriver ? g_backend->no_driver_hint
                         : e == gpuErrorNoDevice          ? g_backend->no_device_hint
                                                          : "";
      c.note = device_count_note(static_cast<int64_t>(e), name ? name : "unknown error", hint);
      return c;
    }
    c.count = n;
    if (n == 0) c.note = std::string(GPU_RUNTIME_PREFIX "GetDeviceCount: 0 devices");
    return c;
  }();
  return counted;
}

void check_index(int32_t index) {
  const int32_t count = device_count_once().count;
  if (index < 0 || index >= count)
    sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT, "device index " + std::to_string(index) +
                                                 " is outside [0, " + std::to_string(count) + ")");
}

void copy_text(char* dst, size_t capacity, const char* src) {
  std::snprintf(dst, capacity, "%s", src ? src : "");
}

void check_range(const devplug_buffer_handle_t* b, uint64_t offset, uint64_t size, const char* what) {
  if (offset > b->size || size > b->size - offset)
    sdk::fail(DEVPLUG_CODE_OUT_OF_RANGE, std::string(what) + ": range [" + std::to_string(offset) +
                                             ", +" + std::to_string(size) + ") outside a buffer of " +
                                             std::to_string(b->size) + " bytes");
}

devplug_error_t* plugin_initialize(const devplug_plugin_init_args_t* args) {
  return guard([&] {
    sdk::check_struct(args, DEVPLUG_SIZE_THROUGH(devplug_plugin_init_args_t, host_abi_minor),
                      "args");
    if (args->host_abi_major != DEVPLUG_ABI_MAJOR)
      sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION,
                "host ABI " + std::to_string(args->host_abi_major) + " but plugin ABI " +
                    std::to_string(DEVPLUG_ABI_MAJOR));
    (void)device_count_once();
  });
}

void plugin_shutdown() {}

devplug_error_t* device_count(int32_t* out_count, const char** out_note) {
  return guard([&] {
    check_not_null(out_count, "out_count");
    *out_count = 0;
    if (out_note) *out_note = nullptr;
    const DeviceCount& c = device_count_once();
    *out_count = c.count;
    if (out_note && c.count == 0) *out_note = c.note.c_str();
  });
}

devplug_error_t* device_get_properties(int32_t index, devplug_device_properties_t* out) {
  return guard([&] {
    sdk::check_struct(out, DEVPLUG_SIZE_THROUGH(devplug_device_properties_t, name), "out_properties");
    check_index(index);
    gpuDeviceProp prop;
    std::memset(&prop, 0, sizeof prop);
    GPU_CHECK(gpuGetDeviceProperties(&prop, index), "describing a device");
    int driver = 0;
    (void)gpuDriverGetVersion(&driver);
    devplug_device_properties_t p;
    std::memset(&p, 0, sizeof p);
    copy_text(p.name, sizeof p.name, prop.name);
#if defined(DEVPLUG_GPU_CUDA)
    copy_text(p.vendor, sizeof p.vendor, "NVIDIA");
    const bool bf16 = prop.major >= 8;
#else
    copy_text(p.vendor, sizeof p.vendor, "AMD");
    const bool bf16 = true;
#endif
    copy_text(p.driver_version, sizeof p.driver_version, std::to_string(driver).c_str());
    p.memory_bytes = static_cast<uint64_t>(prop.totalGlobalMem);
    p.compute_units = prop.multiProcessorCount;
    p.capabilities = DEVPLUG_DEVICE_FP64 | DEVPLUG_DEVICE_FP16 | (bf16 ? DEVPLUG_DEVICE_BF16 : 0u);
    // Write only what the caller's struct holds.
    const size_t n = out->struct_size < sizeof p ? out->struct_size : sizeof p;
    p.struct_size = out->struct_size;
    std::memcpy(out, &p, n);
  });
}

devplug_error_t* device_open(int32_t index, devplug_device_handle_t** out_device) {
  return guard([&] {
    check_not_null(out_device, "out_device");
    *out_device = nullptr;
    check_index(index);
    GPU_CHECK(gpuSetDevice(index), "opening a device");
    auto* d = new devplug_device_handle_t;
    d->index = index;
    *out_device = d;
  });
}

devplug_error_t* device_close(devplug_device_handle_t* device) {
  return guard([&] {
    check_not_null(device, "device");
    if (device->matmul && g_backend->matmul_destroy) g_backend->matmul_destroy(device->matmul);
    delete device;
  });
}

devplug_error_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size, devplug_buffer_handle_t** out) {
  return guard([&] {
    check_not_null(out, "out_buffer");
    *out = nullptr;
    check_not_null(device, "device");
    check_argument(size > 0, "buffer_allocate: size_bytes is 0");
    use_device(device);
    void* ptr = nullptr;
    const std::string context = "allocating " + std::to_string(size) + " bytes";
    GPU_CHECK(gpuMalloc(&ptr, static_cast<size_t>(size)), context.c_str());
    auto* b = new (std::nothrow) devplug_buffer_handle_t{device, ptr, size};
    if (b == nullptr) {
      (void)gpuFree(ptr);
      throw std::bad_alloc();
    }
    *out = b;
  });
}

devplug_error_t* buffer_release(devplug_buffer_handle_t* buffer) {
  return guard([&] {
    check_not_null(buffer, "buffer");
    use_device(buffer->device);
    // gpuFree waits for work already enqueued on the device.
    const gpuError_t e = gpuFree(buffer->ptr);
    delete buffer;
    GPU_CHECK(e, "releasing a buffer");
  });
}

devplug_error_t* buffer_get_size(devplug_buffer_handle_t* buffer, uint64_t* out_size) {
  return guard([&] {
    check_not_null(out_size, "out_size_bytes");
    *out_size = 0;
    check_not_null(buffer, "buffer");
    *out_size = buffer->size;
  });
}

devplug_error_t* buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src,
                                       devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
  return guard([&] {
    check_not_null(stream, "stream");
    check_not_null(dst, "dst");
    if (size == 0) return;
    check_not_null(src, "src");
    check_range(dst, dst_offset, size, "buffer_copy_from_host");
    use_device(stream->device);
    GPU_CHECK(gpuMemcpyAsync(static_cast<char*>(dst->ptr) + dst_offset, src, size,
                             gpuMemcpyHostToDevice, stream->stream),
              "copying from the host");
  });
}

devplug_error_t* buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                     uint64_t src_offset, void* dst, uint64_t size) {
  return guard([&] {
    check_not_null(stream, "stream");
    check_not_null(src, "src");
    if (size == 0) return;
    check_not_null(dst, "dst");
    check_range(src, src_offset, size, "buffer_copy_to_host");
    use_device(stream->device);
    GPU_CHECK(gpuMemcpyAsync(dst, static_cast<const char*>(src->ptr) + src_offset, size,
                             gpuMemcpyDeviceToHost, stream->stream),
              "copying to the host");
  });
}

devplug_error_t* buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                             devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
  return guard([&] {
    check_not_null(stream, "stream");
    check_not_null(src, "src");
    check_not_null(dst, "dst");
    if (size == 0) return;
    check_range(src, src_offset, size, "buffer_copy source");
    check_range(dst, dst_offset, size, "buffer_copy destination");
    use_device(stream->device);
    GPU_CHECK(gpuMemcpyAsync(static_cast<char*>(dst->ptr) + dst_offset,
                             static_cast<const char*>(src->ptr) + src_offset, size,
                             gpuMemcpyDeviceToDevice, stream->stream),
              "copying between buffers");
  });
}

devplug_error_t* stream_create(devplug_device_handle_t* device, devplug_stream_handle_t** out) {
  return guard([&] {
    check_not_null(out, "out_stream");
    *out = nullptr;
    check_not_null(device, "device");
    use_device(device);
    gpuStream_t s = nullptr;
    GPU_CHECK(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking), "creating a stream");
    auto* stream = new (std::nothrow) devplug_stream_handle_t;
    if (stream == nullptr) {
      (void)gpuStreamDestroy(s);
      throw std::bad_alloc();
    }
    stream->device = device;
    stream->stream = s;
    *out = stream;
  });
}

devplug_error_t* stream_destroy(devplug_stream_handle_t* stream) {
  return guard([&] {
    check_not_null(stream, "stream");
    use_device(stream->device);
    const gpuError_t waited = gpuStreamSynchronize(stream->stream);
    if (stream->scratch) (void)gpuFree(stream->scratch);
    const gpuError_t destroyed = gpuStreamDestroy(stream->stream);
    delete stream;
    GPU_CHECK(waited, "draining a stream before destroying it");
    GPU_CHECK(destroyed, "destroying a stream");
  });
}

devplug_error_t* stream_synchronize(devplug_stream_handle_t* stream) {
  return guard([&] {
    check_not_null(stream, "stream");
    use_device(stream->device);
    GPU_CHECK(gpuStreamSynchronize(stream->stream), "synchronizing a stream");
  });
}

devplug_error_t* event_create(devplug_device_handle_t* device, devplug_event_handle_t** out) {
  return guard([&] {
    check_not_null(out, "out_event");
    *out = nullptr;
    check_not_null(device, "device");
    use_device(device);
    gpuEvent_t e = nullptr;
    GPU_CHECK(gpuEventCreateWithFlags(&e, gpuEventDisableTiming), "creating an event");
    *out = new devplug_event_handle_t{device, e};
  });
}

devplug_error_t* event_destroy(devplug_event_handle_t* event) {
  return guard([&] {
    check_not_null(event, "event");
    use_device(event->device);
    const gpuError_t e = gpuEventDestroy(event->event);
    delete event;
    GPU_CHECK(e, "destroying an event");
  });
}

devplug_error_t* event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
  return guard([&] {
    check_not_null(event, "event");
    check_not_null(stream, "stream");
    check_argument(event->device == stream->device, "event_record: event and stream on different devices");
    use_device(stream->device);
    GPU_CHECK(gpuEventRecord(event->event, stream->stream), "recording an event");
  });
}

devplug_error_t* stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
  return guard([&] {
    check_not_null(stream, "stream");
    check_not_null(event, "event");
    use_device(stream->device);
    GPU_CHECK(gpuStreamWaitEvent(stream->stream, event->event, 0), "making a stream wait for an event");
  });
}

devplug_error_t* event_synchronize(devplug_event_handle_t* event) {
  return guard([&] {
    check_not_null(event, "event");
    use_device(event->device);
    GPU_CHECK(gpuEventSynchronize(event->event), "waiting for an event");
  });
}

}  // namespace

std::string device_count_note(int64_t code, const char* code_name, const char* hint) {
  std::string note = std::string(GPU_RUNTIME_PREFIX "GetDeviceCount: ") + code_name + " (" +
                     std::to_string(code) + ")";
  if (hint != nullptr && *hint != '\0') note += std::string(": ") + hint;
  return note;
}

void use_device(const devplug_device_handle_t* device) {
  int current = -1;
  if (gpuGetDevice(&current) == gpuSuccess && current == device->index) return;
  GPU_CHECK(gpuSetDevice(device->index), "selecting the device");
}

void* stream_scratch(devplug_stream_handle_t* stream, uint64_t bytes) {
  if (bytes <= stream->scratch_size) return stream->scratch;
  // Work already enqueued may still read the old scratch: drain before freeing it.
  GPU_CHECK(gpuStreamSynchronize(stream->stream), "draining a stream to grow its scratch");
  if (stream->scratch) GPU_CHECK(gpuFree(stream->scratch), "freeing scratch memory");
  stream->scratch = nullptr;
  stream->scratch_size = 0;
  const uint64_t size = bytes < (1u << 20) ? (1u << 20) : bytes;
  GPU_CHECK(gpuMalloc(&stream->scratch, size), "allocating scratch memory");
  stream->scratch_size = size;
  return stream->scratch;
}

const devplug_plugin_api_t* plugin_api(const Backend& backend) {
  static const devplug_plugin_api_t* table = [&] {
    g_backend = &backend;
    static devplug_plugin_api_t api;
    std::memset(&api, 0, sizeof api);
    api.struct_size = sizeof api;
    api.abi_major = DEVPLUG_ABI_MAJOR;
    api.abi_minor = DEVPLUG_ABI_MINOR;
    api.plugin_name = backend.name;
    api.plugin_version = backend.version;
    api.opset_version = DEVPLUG_OPSET_VERSION;
    // Buffers come from the dispatcher's caching allocator: per-op allocations never reach
    // gpuMalloc on the hot path (gpuMalloc/gpuFree synchronize the device).
    api.flags = DEVPLUG_PLUGIN_CACHING_ALLOCATOR;
    api.error_create = sdk::error_create;
    api.error_destroy = sdk::error_destroy;
    api.plugin_initialize = plugin_initialize;
    api.plugin_shutdown = plugin_shutdown;
    api.device_count = device_count;
    api.device_get_properties = device_get_properties;
    api.device_open = device_open;
    api.device_close = device_close;
    api.buffer_allocate = buffer_allocate;
    api.buffer_release = buffer_release;
    api.buffer_get_size = buffer_get_size;
    api.buffer_copy_from_host = buffer_copy_from_host;
    api.buffer_copy_to_host = buffer_copy_to_host;
    api.buffer_copy = buffer_copy;
    api.stream_create = stream_create;
    api.stream_destroy = stream_destroy;
    api.stream_synchronize = stream_synchronize;
    api.event_create = event_create;
    api.event_destroy = event_destroy;
    api.event_record = event_record;
    api.stream_wait_event = stream_wait_event;
    api.event_synchronize = event_synchronize;
    const sdk::KernelTable& kernels = kernel_table(backend.matmul);
    api.kernels = kernels.data();
    api.kernel_count = kernels.size();
    return &api;
  }();
  return table;
}

}  // namespace devplug::gpu
