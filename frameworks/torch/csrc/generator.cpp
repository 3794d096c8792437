// SPDX-License-Identifier: Apache-2.0
// The devplug Philox generator and the per-device defaults (see generator.hpp).
#include "generator.hpp"

#include <ATen/Functions.h>
#include <ATen/core/GeneratorForPrivateuseone.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <deque>
#include <mutex>

#include "runtime.hpp"

namespace devplug::bridge {

PhiloxGenerator::PhiloxGenerator(c10::DeviceIndex device, uint64_t seed)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, device),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
      seed_(seed) {}

void PhiloxGenerator::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t PhiloxGenerator::seed() {
  const uint64_t fresh = c10::detail::getNonDeterministicRandom();
  set_current_seed(fresh);
  return fresh;
}

void PhiloxGenerator::set_offset(uint64_t offset) {
  TORCH_CHECK(offset % 4 == 0, "devplug: the Philox offset counts 32-bit words in whole blocks of 4, got ",
              offset);
  offset_ = offset / 4;
}

void PhiloxGenerator::set_state(const c10::TensorImpl& new_state) {
  TORCH_CHECK(new_state.device().is_cpu() && new_state.dtype() == caffe2::TypeMeta::Make<uint8_t>() &&
                  new_state.numel() == 16,
              "devplug: a generator state is a CPU uint8 tensor of 16 bytes (seed, offset)");
  TORCH_CHECK(new_state.is_contiguous(), "devplug: the generator state must be contiguous");
  const auto* bytes = static_cast<const uint8_t*>(new_state.data());
  std::memcpy(&seed_, bytes, 8);
  std::memcpy(&offset_, bytes + 8, 8);
}

c10::intrusive_ptr<c10::TensorImpl> PhiloxGenerator::get_state() const {
  at::Tensor state = at::empty({16}, at::TensorOptions().dtype(at::kByte).device(at::kCPU));
  auto* bytes = state.data_ptr<uint8_t>();
  std::memcpy(bytes, &seed_, 8);
  std::memcpy(bytes + 8, &offset_, 8);
  return state.getIntrusivePtr();
}

devplug_philox_attrs_t PhiloxGenerator::reserve(uint64_t words) {
  devplug_philox_attrs_t attrs{};
  attrs.struct_size = sizeof(attrs);
  attrs.seed = seed_;
  attrs.offset = offset_;
  offset_ += (words + 3) / 4;
  return attrs;
}

PhiloxGenerator* PhiloxGenerator::clone_impl() const {
  auto* copy = new PhiloxGenerator(device_.index(), seed_);
  copy->offset_ = offset_;
  return copy;
}

namespace {

c10::DeviceIndex resolve(c10::DeviceIndex device) {
  const c10::DeviceIndex index = device < 0 ? current_device() : device;
  Runtime::get().slot(index);  // checks the range
  return index;
}

std::mutex g_mutex;
std::deque<at::Generator> g_generators;  // deque: references stay valid as it grows
uint64_t g_initial_seed = c10::default_rng_seed_val;

}  // namespace

const at::Generator& default_generator(c10::DeviceIndex device) {
  const c10::DeviceIndex index = resolve(device);
  std::lock_guard<std::mutex> lock(g_mutex);
  while (g_generators.size() < static_cast<size_t>(Runtime::get().device_count()))
    g_generators.push_back(at::make_generator<PhiloxGenerator>(
        static_cast<c10::DeviceIndex>(g_generators.size()), g_initial_seed));
  return g_generators[static_cast<size_t>(index)];
}

void manual_seed_all(uint64_t seed) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_initial_seed = seed;
  }
  if (!Runtime::exists() || in_bad_fork()) return;
  for (c10::DeviceIndex i = 0; i < Runtime::get().device_count(); ++i) {
    at::Generator g = default_generator(i);
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_current_seed(seed);
  }
}

at::Generator new_generator(c10::DeviceIndex device) {
  return at::make_generator<PhiloxGenerator>(resolve(device));
}

PhiloxGenerator* generator_or_default(const std::optional<at::Generator>& generator,
                                      c10::DeviceIndex device) {
  const at::Generator& g =
      generator.has_value() && generator->defined() ? *generator : default_generator(device);
  TORCH_CHECK(g.device().type() == c10::DeviceType::PrivateUse1,
              "devplug: a random op on a devplug tensor needs a devplug generator, got one for ", g.device());
  return at::check_generator<PhiloxGenerator>(g);
}

}  // namespace devplug::bridge
