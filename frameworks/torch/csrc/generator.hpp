// SPDX-License-Identifier: Apache-2.0
// The torch.Generator of a devplug device: a Philox4x32-10 key (the seed) and a counter
// offset in blocks of four 32-bit words, exactly the attributes of devplug's philox_* ops
// (docs/random.md). Every random op reserves the words it reads, so the numbers depend
// only on the seed and the order of calls, never on the plugin or the launch geometry:
// torch.manual_seed(s); torch.randn(n, device="devplug") gives the same bits everywhere.
//
// Thread-safety: as every torch generator, guarded by its public `mutex_`, which callers
// hold while they reserve.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

#include "devplug/ops.h"

namespace devplug::bridge {

class PhiloxGenerator final : public c10::GeneratorImpl {
 public:
  explicit PhiloxGenerator(c10::DeviceIndex device, uint64_t seed = c10::default_rng_seed_val);

  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override;
  // The offset in 32-bit words, as torch's Philox generators count it (a multiple of 4).
  void set_offset(uint64_t offset) override;
  uint64_t get_offset() const override { return offset_ * 4; }
  // State: a CPU uint8 tensor of 16 bytes, the seed then the block offset (little endian).
  void set_state(const c10::TensorImpl& new_state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;

  // The philox attributes for an op that reads `words` 32-bit words, and moves past them.
  devplug_philox_attrs_t reserve(uint64_t words);

  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

 private:
  PhiloxGenerator* clone_impl() const override;
  uint64_t seed_;
  uint64_t offset_ = 0;  // in blocks of four words
};

// The default generator of devplug device `device` (-1: the current device).
const at::Generator& default_generator(c10::DeviceIndex device);
// A new generator for `device` (-1: the current device).
at::Generator new_generator(c10::DeviceIndex device);
// Seeds every device's default generator; before the devices exist (no devplug op yet),
// keeps the seed for the generators when they are made, so seeding loads no plugin. In a
// forked child (runtime.hpp) it only keeps the seed.
void manual_seed_all(uint64_t seed);
// `generator` if given (checked to be a devplug generator), else the device's default.
PhiloxGenerator* generator_or_default(const std::optional<at::Generator>& generator, c10::DeviceIndex device);

}  // namespace devplug::bridge
