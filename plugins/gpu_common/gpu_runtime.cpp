// SPDX-License-Identifier: Apache-2.0
// Devices, buffers, streams and events for the GPU plugins, on the gpu* names of
// gpu_port.hpp. The table comes from sdk::make_plugin_api, whose shims check every argument
// the ABI's error contract names and run each entry inside sdk::guard.
#include "gpu_runtime.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "devplug/sdk/error.hpp"
#include "devplug/sdk/index_status.hpp"
#include "devplug/sdk/plugin.hpp"
#include "gpu_ccl.hpp"
#include "gpu_ops.hpp"
#include "gpu_status.hpp"

namespace devplug::gpu {
namespace {

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
                         : e == gpuErrorNoDevice         ? g_backend->no_device_hint
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

void copy_text(char* dst, size_t capacity, const char* src) {
  std::snprintf(dst, capacity, "%s", src ? src : "");
}

// The device work behind each table entry; the shims of sdk::make_plugin_api check the
// arguments (handles, indices, ranges, devices) first.
// Live pinned host allocations and the device each was made for.
std::mutex g_pinned_mutex;
std::unordered_map<void*, devplug_device_handle_t*>& pinned() {
  static auto* map = new std::unordered_map<void*, devplug_device_handle_t*>();  // outlives statics
  return *map;
}

struct GpuPlugin {
  static const char* name() { return g_backend->name; }
  static const char* version() { return g_backend->version; }
  // Buffers come from the dispatcher's caching allocator: per-op allocations never reach
  // gpuMalloc on the hot path (gpuMalloc/gpuFree synchronize the device).
  static uint32_t flags() { return DEVPLUG_PLUGIN_CACHING_ALLOCATOR; }
  static void initialize(const devplug_plugin_init_args_t&) { (void)device_count_once(); }
  static void shutdown() noexcept {}

  static int32_t device_count(const char** note) {
    const DeviceCount& c = device_count_once();
    *note = c.count == 0 ? c.note.c_str() : nullptr;
    return c.count;
  }

  static void device_properties(int32_t index, devplug_device_properties_t& p) {
    gpuDeviceProp prop;
    std::memset(&prop, 0, sizeof prop);
    GPU_CHECK(gpuGetDeviceProperties(&prop, index), "describing a device");
    int driver = 0;
    (void)gpuDriverGetVersion(&driver);
    copy_text(p.name, sizeof p.name, prop.name);
#if defined(DEVPLUG_GPU_CUDA)
    copy_text(p.vendor, sizeof p.vendor, "NVIDIA");
    const bool bf16 = prop.major >= 8;
#elif defined(DEVPLUG_GPU_HIP)
    copy_text(p.vendor, sizeof p.vendor, "AMD");
    const bool bf16 = true;
#else
    copy_text(p.vendor, sizeof p.vendor, "devplug (emulated GPU)");
    const bool bf16 = true;
#endif
    copy_text(p.driver_version, sizeof p.driver_version, std::to_string(driver).c_str());
    p.memory_bytes = static_cast<uint64_t>(prop.totalGlobalMem);
    p.compute_units = prop.multiProcessorCount;
    p.capabilities = DEVPLUG_DEVICE_FP64 | DEVPLUG_DEVICE_FP16 | (bf16 ? DEVPLUG_DEVICE_BF16 : 0u);
    // Every dtype, explicitly (what device_get_claims says and the kernels' prologue checks,
    // KernelTraits::claimed_dtypes): 16-bit floats are stored as bits and computed in float32.
    p.dtypes = KernelTraits::claimed_dtypes(nullptr);
  }

  static devplug_device_handle_t* device_open(int32_t index) {
    GPU_CHECK(gpuSetDevice(index), "opening a device");
    auto* d = new devplug_device_handle_t;
    d->index = index;
    return d;
  }

  static void device_close(devplug_device_handle_t* device) {
    if (device->matmul && g_backend->matmul_destroy) g_backend->matmul_destroy(device->matmul);
    delete device;
  }

  static devplug_buffer_handle_t* buffer_allocate(devplug_device_handle_t* device, uint64_t size) {
    use_device(device);
    void* ptr = nullptr;
    const std::string context = "allocating " + std::to_string(size) + " bytes";
    // Whole 32-bit words: scatter_add updates 8- and 16-bit elements by a compare-and-swap of
    // the aligned word around them, which must not reach past the end of the allocation.
    if (size > SIZE_MAX - 3)
      sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, context + ": more than the address space");
    const size_t words = static_cast<size_t>((size + 3) / 4 * 4);
    if (const gpuError_t status = gpuMalloc(&ptr, words); status != gpuSuccess) {
      // A failed gpuMalloc also sets the runtime's last error; clear it, or the next
      // launch's gpuGetLastError check would report this allocation as its own failure.
      (void)gpuGetLastError();
      fail_gpu(status, "gpuMalloc(&ptr, words)", context.c_str(), __FILE__, __LINE__);
    }
    auto* b = new (std::nothrow) devplug_buffer_handle_t{device, ptr, size};
    if (b == nullptr) {
      (void)gpuFree(ptr);
      throw std::bad_alloc();
    }
    return b;
  }

  static void buffer_release(devplug_buffer_handle_t* buffer) {
    use_device(buffer->device);
    // gpuFree waits for work already enqueued on the device.
    const gpuError_t e = gpuFree(buffer->ptr);
    delete buffer;
    GPU_CHECK(e, "releasing a buffer");
  }

  static uint64_t buffer_size(devplug_buffer_handle_t* buffer) { return buffer->size; }
  static devplug_device_handle_t* device_of(devplug_buffer_handle_t* buffer) { return buffer->device; }
  static devplug_device_handle_t* device_of(devplug_stream_handle_t* stream) { return stream->device; }
  static devplug_device_handle_t* device_of(devplug_event_handle_t* event) { return event->device; }

  static void buffer_copy_from_host(devplug_stream_handle_t* stream, const void* src,
                                    devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
    use_device(stream->device);
    GPU_CHECK(gpuMemcpyAsync(static_cast<char*>(dst->ptr) + dst_offset, src, size, gpuMemcpyHostToDevice,
                             stream->stream),
              "copying from the host");
  }

  static void buffer_copy_to_host(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src,
                                  uint64_t src_offset, void* dst, uint64_t size) {
    use_device(stream->device);
    GPU_CHECK(gpuMemcpyAsync(dst, static_cast<const char*>(src->ptr) + src_offset, size,
                             gpuMemcpyDeviceToHost, stream->stream),
              "copying to the host");
  }

  static void buffer_copy(devplug_stream_handle_t* stream, devplug_buffer_handle_t* src, uint64_t src_offset,
                          devplug_buffer_handle_t* dst, uint64_t dst_offset, uint64_t size) {
    use_device(stream->device);
    GPU_CHECK(gpuMemcpyAsync(static_cast<char*>(dst->ptr) + dst_offset,
                             static_cast<const char*>(src->ptr) + src_offset, size, gpuMemcpyDeviceToDevice,
                             stream->stream),
              "copying between buffers");
  }

  static devplug_stream_handle_t* stream_create(devplug_device_handle_t* device) {
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
    return stream;
  }

  static void stream_destroy(devplug_stream_handle_t* stream) {
    use_device(stream->device);
    const gpuError_t waited = gpuStreamSynchronize(stream->stream);
    // A bad index found by work that was still on the stream is this call's error.
    const std::exception_ptr index_error =
        waited == gpuSuccess ? sdk::index_error_of([&] { check_index_status(stream); }) : nullptr;
    if (stream->scratch) (void)gpuFree(stream->scratch);
    if (stream->index_status) (void)gpuFree(stream->index_status);
    const gpuError_t destroyed = gpuStreamDestroy(stream->stream);
    delete stream;
    GPU_CHECK(waited, "draining a stream before destroying it");
    GPU_CHECK(destroyed, "destroying a stream");
    if (index_error) std::rethrow_exception(index_error);
  }

  static void stream_synchronize(devplug_stream_handle_t* stream) {
    use_device(stream->device);
    GPU_CHECK(gpuStreamSynchronize(stream->stream), "synchronizing a stream");
    check_index_status(stream);
  }

  // Reads the stream's index status block when an index kernel ran since the last look,
  // clears it, and throws INVALID_ARGUMENT when a kernel recorded a bad index
  // (sdk/index_status.hpp). The stream has drained.
  static void check_index_status(devplug_stream_handle_t* stream) {
    if (stream->index_status == nullptr || !stream->index_status_armed.exchange(false)) return;
    sdk::IndexStatus found{};
    GPU_CHECK(
        gpuMemcpyAsync(&found, stream->index_status, sizeof found, gpuMemcpyDeviceToHost, stream->stream),
        "reading the index status block");
    GPU_CHECK(gpuStreamSynchronize(stream->stream), "reading the index status block");
    if (found.op == 0) return;
    GPU_CHECK(gpuMemsetAsync(stream->index_status, 0, sizeof found, stream->stream),
              "clearing the index status block");
    sdk::throw_index_status(found);
  }

  static devplug_event_handle_t* event_create(devplug_device_handle_t* device) {
    use_device(device);
    gpuEvent_t e = nullptr;
    // Every event is timed (the event_timestamps extension), so none is made with
    // gpuEventDisableTiming: a timed record costs the device one timestamp write.
    GPU_CHECK(gpuEventCreateWithFlags(&e, gpuEventDefault), "creating an event");
    return new devplug_event_handle_t{device, e};
  }

  static void event_destroy(devplug_event_handle_t* event) {
    use_device(event->device);
    const gpuError_t e = gpuEventDestroy(event->event);
    delete event;
    GPU_CHECK(e, "destroying an event");
  }

  static void event_record(devplug_event_handle_t* event, devplug_stream_handle_t* stream) {
    use_device(stream->device);
    GPU_CHECK(gpuEventRecord(event->event, stream->stream), "recording an event");
    event->recorded.store(true, std::memory_order_release);
  }

  static void stream_wait_event(devplug_stream_handle_t* stream, devplug_event_handle_t* event) {
    use_device(stream->device);
    GPU_CHECK(gpuStreamWaitEvent(stream->stream, event->event, 0), "making a stream wait for an event");
  }

  static void event_synchronize(devplug_event_handle_t* event) {
    use_device(event->device);
    GPU_CHECK(gpuEventSynchronize(event->event), "waiting for an event");
  }

  // The event_timestamps extension: the runtime's own event timing (cudaEventElapsedTime,
  // hipEventElapsedTime, emuEventElapsedTime), which gives float milliseconds (CUDA documents
  // a resolution of about 0.5 us) and refuses events that are not complete: wait first.
  // The pinned_host_memory extension: gpuHostAlloc (cudaHostAlloc, hipHostMalloc; the
  // emulator's page-aligned, locked host memory), from which gpuMemcpyAsync copies without
  // staging and without waiting for the host.
  static void* host_allocate(devplug_device_handle_t* device, uint64_t size) {
    use_device(device);
    if (size > SIZE_MAX)
      sdk::fail(DEVPLUG_CODE_RESOURCE_EXHAUSTED, "host_allocate: more than the address space");
    void* ptr = nullptr;
    if (const gpuError_t status = gpuHostAlloc(&ptr, static_cast<size_t>(size), 0); status != gpuSuccess) {
      (void)gpuGetLastError();
      fail_gpu(status, "gpuHostAlloc(&ptr, size, 0)",
               ("allocating " + std::to_string(size) + " bytes of pinned host memory").c_str(), __FILE__,
               __LINE__);
    }
    try {
      std::lock_guard<std::mutex> lock(g_pinned_mutex);
      pinned()[ptr] = device;
    } catch (...) {
      (void)gpuFreeHost(ptr);
      throw;
    }
    return ptr;
  }

  static void host_release(devplug_device_handle_t* device, void* ptr) {
    {
      std::lock_guard<std::mutex> lock(g_pinned_mutex);
      auto it = pinned().find(ptr);
      if (it == pinned().end() || it->second != device)
        sdk::fail(DEVPLUG_CODE_INVALID_ARGUMENT,
                  "host_release: ptr was not given by host_allocate for this device (or was released)");
      pinned().erase(it);
    }
    use_device(device);
    // gpuFreeHost waits for the copies already enqueued on the memory.
    GPU_CHECK(gpuFreeHost(ptr), "releasing pinned host memory");
  }

  static int64_t event_elapsed_ns(devplug_event_handle_t* start, devplug_event_handle_t* end) {
    if (!start->recorded.load(std::memory_order_acquire))
      sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION, "event_elapsed_ns: `start` was never recorded");
    if (!end->recorded.load(std::memory_order_acquire))
      sdk::fail(DEVPLUG_CODE_FAILED_PRECONDITION, "event_elapsed_ns: `end` was never recorded");
    use_device(start->device);
    GPU_CHECK(gpuEventSynchronize(start->event), "waiting for an event to time");
    GPU_CHECK(gpuEventSynchronize(end->event), "waiting for an event to time");
    float ms = 0.0f;
    if (const gpuError_t status = gpuEventElapsedTime(&ms, start->event, end->event); status != gpuSuccess) {
      (void)gpuGetLastError();  // not the next launch's error
      fail_gpu(status, "gpuEventElapsedTime(&ms, start, end)", "timing two events", __FILE__, __LINE__);
    }
    return static_cast<int64_t>(std::llround(static_cast<double>(ms) * 1e6));
  }

  static const sdk::KernelTable& kernels() { return kernel_table(g_backend->matmul); }

#if defined(GPU_HAS_CCL)
  // The collectives extension (gpu_ccl.hpp).
  static devplug_comm_unique_id_t comm_unique_id(devplug_device_handle_t* device) {
    return ccl::unique_id(device);
  }
  static devplug_comm_handle_t* comm_create(devplug_device_handle_t* device,
                                            const devplug_comm_unique_id_t& id, uint32_t world_size,
                                            uint32_t rank) {
    return ccl::create(device, id, world_size, rank);
  }
  static void comm_destroy(devplug_comm_handle_t* comm) { ccl::destroy(comm); }
  static void all_reduce(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                         const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv,
                         devplug_reduce_op_t op) {
    ccl::all_reduce(stream, comm, send, recv, op);
  }
  static void all_gather(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                         const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv) {
    ccl::all_gather(stream, comm, send, recv);
  }
  static void reduce_scatter(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                             const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv,
                             devplug_reduce_op_t op) {
    ccl::reduce_scatter(stream, comm, send, recv, op);
  }
  static void broadcast(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                        const devplug_tensor_desc_t& tensor, uint32_t root) {
    ccl::broadcast(stream, comm, tensor, root);
  }
  static void all_to_all(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                         const devplug_tensor_desc_t& send, const devplug_tensor_desc_t& recv) {
    ccl::all_to_all(stream, comm, send, recv);
  }
  static void send(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                   const devplug_tensor_desc_t& tensor, uint32_t peer) {
    ccl::send(stream, comm, tensor, peer);
  }
  static void recv(devplug_stream_handle_t* stream, devplug_comm_handle_t* comm,
                   const devplug_tensor_desc_t& tensor, uint32_t peer) {
    ccl::recv(stream, comm, tensor, peer);
  }
#endif
};

}  // namespace

std::string device_count_note(int64_t code, const char* code_name, const char* hint) {
  std::string note =
      std::string(GPU_RUNTIME_PREFIX "GetDeviceCount: ") + code_name + " (" + std::to_string(code) + ")";
  if (hint != nullptr && *hint != '\0') note += std::string(": ") + hint;
  return note;
}

void use_device(const devplug_device_handle_t* device) {
  int current = -1;
  if (gpuGetDevice(&current) == gpuSuccess && current == device->index) return;
  GPU_CHECK(gpuSetDevice(device->index), "selecting the device");
}

int64_t* index_status(devplug_stream_handle_t* stream) {
  if (stream->index_status == nullptr) {
    void* block = nullptr;
    if (const gpuError_t status = gpuMalloc(&block, sizeof(sdk::IndexStatus)); status != gpuSuccess) {
      (void)gpuGetLastError();  // as in buffer_allocate: not the next launch's error
      fail_gpu(status, "gpuMalloc(&block, sizeof(sdk::IndexStatus))", "allocating the index status block",
               __FILE__, __LINE__);
    }
    if (const gpuError_t status = gpuMemsetAsync(block, 0, sizeof(sdk::IndexStatus), stream->stream);
        status != gpuSuccess) {
      (void)gpuFree(block);
      fail_gpu(status, "gpuMemsetAsync(block, 0, 32, stream)", "clearing the index status block", __FILE__,
               __LINE__);
    }
    stream->index_status = block;
  }
  stream->index_status_armed = true;
  return static_cast<int64_t*>(stream->index_status);
}

void* stream_scratch(devplug_stream_handle_t* stream, uint64_t bytes) {
  if (bytes <= stream->scratch_size) return stream->scratch;
  // Work already enqueued may still read the old scratch: drain before freeing it.
  GPU_CHECK(gpuStreamSynchronize(stream->stream), "draining a stream to grow its scratch");
  if (stream->scratch) GPU_CHECK(gpuFree(stream->scratch), "freeing scratch memory");
  stream->scratch = nullptr;
  stream->scratch_size = 0;
  const uint64_t size = bytes < (1u << 20) ? (1u << 20) : bytes;
  if (const gpuError_t status = gpuMalloc(&stream->scratch, size); status != gpuSuccess) {
    (void)gpuGetLastError();  // as in buffer_allocate: not the next launch's error
    fail_gpu(status, "gpuMalloc(&stream->scratch, size)", "allocating scratch memory", __FILE__, __LINE__);
  }
  stream->scratch_size = size;
  return stream->scratch;
}

const devplug_plugin_api_t* plugin_api(const Backend& backend) {
  g_backend = &backend;  // one backend per library: the CUDA, HIP or emulated build
  return sdk::plugin_api_or_null<GpuPlugin>();
}

}  // namespace devplug::gpu
