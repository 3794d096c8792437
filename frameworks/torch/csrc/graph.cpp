// SPDX-License-Identifier: Apache-2.0
// torch.accelerator.Graph (and torch.devplug.graph over it) on devplug devices: torch 2.15
// creates a backend's graph through at::GraphImplRegistry, keyed by the device type's name;
// this implementation captures the current devplug stream with devplug's host API
// (devplug_stream_begin_capture, docs/host_guide.md "Graphs") and replays on the current
// stream at replay time.
//
// Memory: torch's storages on devplug are devplug tensors (storage.cpp), so what the capture
// allocated and torch freed before capture_end becomes the graph's private pool, planned by
// liveness; what torch still holds (the static outputs) stays the tensors' own. A pool id
// given to share memory between graphs is accepted and each graph keeps its own pool.
//
// Random numbers: the device's generator hands out Philox offsets in blocks
// (generator.hpp). A capture notes the generator's offset before and after, and puts it back
// (the capture ran nothing); each replay shifts every recorded offset by how far the
// generator has moved since the capture began and then advances the generator past the
// graph's span, so a replay draws exactly what the same ops would draw eagerly at that point
// (torch.cuda graphs do the same).
#include "graph.hpp"

#include <ATen/core/GraphImplInterface.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <optional>

#include "generator.hpp"
#include "runtime.hpp"

namespace devplug::bridge {
namespace {

std::atomic<c10::CaptureId_t> g_next_pool{1};

class DevplugGraph final : public at::GraphImplInterface {
 public:
  explicit DevplugGraph(const at::GraphImplArgs& /*args*/) {}
  ~DevplugGraph() override { drop(); }

  void capture_begin(c10::MempoolId_t pool, at::GraphCaptureMode /*mode*/) override {
    TORCH_CHECK(graph_ == nullptr && !capturing_,
                "devplug: this graph already holds a capture; call reset() before capturing again");
    check_not_forked();
    device_ = current_device();
    pool_ = pool.first != 0 || pool.second != 0 ? pool : c10::MempoolId_t{0, g_next_pool.fetch_add(1)};
    PhiloxGenerator* generator = generator_or_default(std::nullopt, device_);
    {
      std::lock_guard<std::mutex> lock(generator->mutex_);
      offset_begin_ = generator->get_offset() / 4;
    }
    stream_.emplace(stream_for(device_));
    try {
      devplug::api_detail::check(devplug_stream_begin_capture(stream_->handle()));
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
    capturing_ = true;
  }

  void capture_end() override {
    TORCH_CHECK(capturing_, "devplug: capture_end() without capture_begin()");
    capturing_ = false;
    try {
      devplug::api_detail::check(devplug_stream_end_capture(stream_->handle(), &graph_));
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
    // The capture ran nothing: the generator goes back to where it was, and the first replay
    // draws what the captured ops would have drawn eagerly.
    PhiloxGenerator* generator = generator_or_default(std::nullopt, device_);
    std::lock_guard<std::mutex> lock(generator->mutex_);
    span_ = generator->get_offset() / 4 - offset_begin_;
    generator->set_offset(offset_begin_ * 4);
  }

  void instantiate() override {
    TORCH_CHECK(graph_ != nullptr, "devplug: instantiate() before a capture ended");
  }

  void replay() override {
    TORCH_CHECK(graph_ != nullptr, "devplug: replay() before a capture ended");
    check_not_forked();
    devplug_graph_launch_options_t options{};
    options.struct_size = sizeof(options);
    options.flags = DEVPLUG_GRAPH_LAUNCH_PHILOX_SHIFT;
    PhiloxGenerator* generator = generator_or_default(std::nullopt, device_);
    std::lock_guard<std::mutex> lock(generator->mutex_);
    const uint64_t now = generator->get_offset() / 4;
    options.philox_shift = now - offset_begin_;
    try {
      devplug::Stream stream = stream_for(device_);
      devplug::api_detail::check(devplug_graph_launch(graph_, stream.handle(), &options));
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
    generator->set_offset((now + span_) * 4);
  }

  void reset() override { drop(); }

  c10::MempoolId_t pool() const override { return pool_; }

  void enable_debug_mode() override { debug_ = true; }

  void debug_dump(const std::string& path) override {
    TORCH_CHECK(debug_, "devplug: debug_dump() needs enable_debug_mode() before the capture");
    TORCH_CHECK(graph_ != nullptr, "devplug: debug_dump() before a capture ended");
    devplug_graph_info_t info{};
    info.struct_size = sizeof(info);
    try {
      devplug::api_detail::check(devplug_graph_get_info(graph_, &info));
    } catch (const devplug::Error& e) {
      throw_torch_error(e);
    }
    std::ofstream out(path);
    TORCH_CHECK(out.good(), "devplug: cannot write ", path);
    out << "kernel_nodes " << info.kernel_nodes << "\ncopy_nodes " << info.copy_nodes << "\ntemporaries "
        << info.temporaries << "\ntemporary_bytes " << info.temporary_bytes << "\npool_buffers "
        << info.pool_buffers << "\npool_bytes " << info.pool_bytes << "\nphilox_blocks " << span_
        << "\nlaunches " << info.launches << "\n";
  }

 private:
  void drop() noexcept {
    if (in_bad_fork()) return;  // the parent's graph: left alone
    if (capturing_) {
      devplug_graph_t* graph = nullptr;
      devplug_error_destroy(devplug_stream_end_capture(stream_->handle(), &graph));
      devplug_error_destroy(devplug_graph_destroy(graph));
      capturing_ = false;
    }
    if (graph_ != nullptr) devplug_error_destroy(devplug_graph_destroy(graph_));
    graph_ = nullptr;
  }

  c10::DeviceIndex device_ = 0;
  std::optional<devplug::Stream> stream_;  // the capturing stream
  devplug_graph_t* graph_ = nullptr;
  bool capturing_ = false;
  bool debug_ = false;
  c10::MempoolId_t pool_{0, 0};
  uint64_t offset_begin_ = 0, span_ = 0;
};

}  // namespace

void register_graph_impl() {
  const std::string key = c10::DeviceTypeName(c10::DeviceType::PrivateUse1, /*lower_case=*/false);
  if (at::GraphImplRegistry()->Has(key)) return;
  at::GraphImplRegistry()->Register(
      key, [](const at::GraphImplArgs& args) -> std::unique_ptr<at::GraphImplInterface> {
        return std::make_unique<DevplugGraph>(args);
      });
}

}  // namespace devplug::bridge
