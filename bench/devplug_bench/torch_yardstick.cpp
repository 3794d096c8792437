// SPDX-License-Identifier: Apache-2.0
// at::add_out as the dispatch yardstick (see torch_yardstick.hpp).
#include "torch_yardstick.hpp"

#ifdef DEVPLUG_HAVE_TORCH
#include <ATen/ATen.h>
#endif

namespace devplug::bench {

#ifdef DEVPLUG_HAVE_TORCH
bool has_torch() { return true; }

Workload torch_add_out_workload() {
  struct Tensors {
    at::Tensor a = at::ones({1}, at::kFloat), b = at::ones({1}, at::kFloat), out = at::empty({1}, at::kFloat);
  };
  auto t = std::make_shared<Tensors>();
  Workload w{"at::add_out", "float32", 1, Measure::kLatency, 0, {}, t};
  w.run = [raw = t.get()] { at::add_out(raw->out, raw->a, raw->b); };
  return w;
}
#else
bool has_torch() { return false; }
Workload torch_add_out_workload() {
  return Workload{"at::add_out", "float32", 1, Measure::kLatency, 0, {}, {}};
}
#endif

}  // namespace devplug::bench
