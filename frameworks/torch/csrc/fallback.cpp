// SPDX-License-Identifier: Apache-2.0
// The boxed CPU fallback for the devplug dispatch key, and its counts (see fallback.hpp).
#include "fallback.hpp"

#include <ATen/native/CPUFallback.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>

namespace devplug::bridge {
namespace {

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && std::string(value) != "0";
}

std::atomic<bool> g_strict{env_flag("TORCH_DEVPLUG_STRICT") || env_flag("DEVPLUG_STRICT")};
std::mutex g_mutex;
std::map<std::string, uint64_t> g_counts;
std::set<std::string> g_warned;

std::string name_of(const c10::OperatorHandle& op) {
  const c10::OperatorName& name = op.schema().operator_name();
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

}  // namespace

void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  note_fallback(name_of(op));
  at::native::cpu_fallback(op, stack);
}

c10::OperatorHandle aten_op(const std::string& aten) {
  const size_t dot = aten.find('.');
  const std::string name = "aten::" + aten.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : aten.substr(dot + 1);
  return c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), overload.c_str());
}

void note_fallback(const std::string& op) {
  TORCH_CHECK_NOT_IMPLEMENTED(
      !g_strict.load(), "devplug strict mode: ", op,
      " has no devplug kernel for this call and would run on the CPU (unset TORCH_DEVPLUG_STRICT, "
      "or call torch_devplug.set_strict(False), to allow the CPU fallback)");
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ++g_counts[op];
    first = g_warned.insert(op).second;
  }
  if (first)
    TORCH_WARN("devplug: ", op,
               " has no devplug kernel for this call; it runs on the CPU through the fallback (warned once "
               "per op; torch_devplug.fallback_report() lists them)");
}

std::map<std::string, uint64_t> fallback_counts() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_counts;
}

void reset_fallback_counts() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_counts.clear();
}

bool strict() { return g_strict.load(); }
void set_strict(bool on) { g_strict.store(on); }

}  // namespace devplug::bridge

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&devplug::bridge::cpu_fallback>());
}

// Ops whose CompositeExplicitAutograd kernel (torch's, for every backend) refuses devices other
// than CPU, CUDA and XPU, so the fallback above never sees them: sent to it by name.
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mode.values", torch::CppFunction::makeFromBoxedFunction<&devplug::bridge::cpu_fallback>());
}
