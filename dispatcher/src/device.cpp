// SPDX-License-Identifier: Apache-2.0
// Devices: opened lazily, a default stream made on first use, and shut down with
// everything still alive on them when the context goes.
#include "device.hpp"

#include <vector>

#include "api_guard.hpp"
#include "comm.hpp"
#include "dlpack.hpp"
#include "fused.hpp"
#include "graph.hpp"
#include "host_memory.hpp"
#include "plugin_record.hpp"
#include "stream_event.hpp"
#include "tensor.hpp"

using namespace devplug::detail;

devplug_device_handle_t* devplug_device_t::open() {
  devplug_device_handle_t* handle = native.load(std::memory_order_acquire);
  if (handle != nullptr) return handle;
  std::lock_guard<std::mutex> lock(mutex);
  handle = native.load(std::memory_order_relaxed);
  if (handle != nullptr) return handle;
  check_plugin(*plugin, plugin->api->device_open(index, &handle), "device_open");
  if (handle == nullptr)
    throw Error(DEVPLUG_CODE_INTERNAL, "plugin " + plugin->name + ": device_open returned no device");
  native.store(handle, std::memory_order_release);
  return handle;
}

devplug_stream_t* devplug_device_t::default_stream() {
  devplug_stream_t* stream = default_stream_.load(std::memory_order_acquire);
  if (stream != nullptr) return stream;
  open();
  // create_stream takes `mutex` to list the stream; serialize creators with a second check.
  static std::mutex creating;
  std::lock_guard<std::mutex> lock(creating);
  stream = default_stream_.load(std::memory_order_relaxed);
  if (stream != nullptr) return stream;
  stream = create_stream(*this, /*is_default=*/true);
  default_stream_.store(stream, std::memory_order_release);
  return stream;
}

void devplug_device_t::synchronize() {
  if (native.load(std::memory_order_acquire) == nullptr) return;  // never used: nothing runs
  std::vector<devplug_stream_handle_t*> handles;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (devplug_stream_t* s = streams.head(); s != nullptr; s = s->live_next) handles.push_back(s->native);
  }
  for (devplug_stream_handle_t* handle : handles)
    check_plugin(*plugin, plugin->api->stream_synchronize(handle), "stream_synchronize");
}

void devplug_device_t::shut_down() noexcept {
  devplug_device_handle_t* handle = native.load(std::memory_order_acquire);
  forget_dlpack_exports(*this);
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (devplug_stream_t* s = streams.head(); s != nullptr; s = s->live_next)
      devplug::detail::abandon_capture(*s);
    while (devplug_graph_t* g = graphs.head()) {
      graphs.remove(g);
      devplug::detail::free_graph(g);
    }
    while (devplug_fused_program_t* f = programs.head()) {
      programs.remove(f);
      devplug::detail::free_fused_program(f);
    }
    // Before the streams go: a communicator leaves once its enqueued collectives have finished.
    while (devplug_comm_t* c = comms.head()) {
      comms.remove(c);
      devplug::detail::free_comm(c);
    }
  }
  {
    std::lock_guard<std::mutex> lock(tensors_mutex);
    while (devplug_tensor_t* t = tensors.head()) {
      tensors.remove(t);
      release_unlinked_tensor(t);
    }
  }
  devplug::detail::host_free_all(*this);  // the plugin's own pinned memory needs the device open
  if (handle == nullptr) {
    magic = 0;
    return;  // never opened: no stream, event or buffer can exist
  }
  std::lock_guard<std::mutex> lock(mutex);
  while (devplug_event_t* e = events.head()) {
    events.remove(e);
    drop_plugin_error(*plugin, plugin->api->event_destroy(e->native));
    e->magic = 0;
    delete e;
  }
  while (devplug_stream_t* s = streams.head()) {
    streams.remove(s);
    drop_plugin_error(*plugin, plugin->api->stream_destroy(s->native));
    s->magic = 0;
    delete s;
  }
  default_stream_.store(nullptr);
  allocator.release_all(*this);
  drop_plugin_error(*plugin, plugin->api->device_close(handle));
  native.store(nullptr);
  magic = 0;
}

const devplug::detail::KernelSlot& devplug_device_t::kernel(devplug_op_t op, devplug_dtype_t dtype,
                                                            devplug_dtype_mask_t call_dtypes) const noexcept {
  static const devplug::detail::KernelSlot none;
  if ((call_dtypes & ~dtypes) != 0) return none;  // a dtype this device does not claim
  return plugin->kernel(op, dtype);
}
