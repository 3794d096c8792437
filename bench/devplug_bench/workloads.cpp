// SPDX-License-Identifier: Apache-2.0
// The timed workloads of devplug-bench (see workloads.hpp).
#include "workloads.hpp"

#include <cstring>
#include <stdexcept>

namespace devplug::bench {

void check(devplug_error_t* error, const std::string& what) {
  if (error == nullptr) return;
  const std::string text = what + ": " + devplug_code_name(error->code) + ": " + error->message;
  devplug_error_destroy(error);
  throw std::runtime_error(text);
}

namespace {

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Small values of `dtype` as raw bytes: (i % 7) / 8, exact in every float dtype, so sums and
// products stay finite at every size.
std::vector<unsigned char> small_values(devplug_dtype_t dtype, int64_t n) {
  const size_t es = devplug_dtype_size(dtype);
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * es);
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(i % 7) / 8.0f;
    unsigned char* at = bytes.data() + static_cast<size_t>(i) * es;
    uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    switch (dtype) {
      case DEVPLUG_DTYPE_FLOAT32:
        std::memcpy(at, &v, 4);
        break;
      case DEVPLUG_DTYPE_FLOAT64: {
        const double d = v;
        std::memcpy(at, &d, 8);
        break;
      }
      case DEVPLUG_DTYPE_BFLOAT16: {
        const uint16_t h = static_cast<uint16_t>(bits >> 16);
        std::memcpy(at, &h, 2);
        break;
      }
      case DEVPLUG_DTYPE_FLOAT16: {
        // v is k/8 with k < 7: exponent and mantissa fit float16 exactly.
        const uint32_t exp = (bits >> 23) & 0xFF, mant = bits & 0x7FFFFF;
        const uint16_t h = v == 0.0f ? 0 : static_cast<uint16_t>(((exp - 112) << 10) | (mant >> 13));
        std::memcpy(at, &h, 2);
        break;
      }
      default: {
        const int64_t k = i % 7;
        std::memcpy(at, &k, es);
        break;
      }  // little endian
    }
  }
  return bytes;
}

std::shared_ptr<devplug_tensor_t> adopt(devplug_tensor_t* t) {
  return std::shared_ptr<devplug_tensor_t>(t, [](devplug_tensor_t* p) { devplug_tensor_release(p); });
}

devplug_stream_t* default_stream(devplug_device_t* device) {
  devplug_stream_t* stream = nullptr;
  check(devplug_device_default_stream(device, &stream), "devplug_device_default_stream");
  return stream;
}

// Runs `op` on `inputs` into `outputs` and waits: one iteration.
std::function<void()> op_iteration(devplug_stream_t* stream, devplug_op_t op,
                                   std::vector<std::shared_ptr<devplug_tensor_t>> inputs,
                                   std::vector<std::shared_ptr<devplug_tensor_t>> outputs,
                                   std::shared_ptr<void> attrs) {
  auto in = std::make_shared<std::vector<devplug_tensor_t*>>();
  auto out = std::make_shared<std::vector<devplug_tensor_t*>>();
  for (auto& t : inputs) in->push_back(t.get());
  for (auto& t : outputs) out->push_back(t.get());
  return [=] {
    (void)inputs, (void)outputs;  // keep the tensors alive with the closure
    check(devplug_op_call(stream, op, in->data(), in->size(), out->data(), out->size(), attrs.get()),
          devplug_op_name(op));
    check(devplug_stream_synchronize(stream), "devplug_stream_synchronize");
  };
}

}  // namespace

std::shared_ptr<devplug_tensor_t> make_tensor(devplug_device_t* device, devplug_dtype_t dtype,
                                              std::vector<int64_t> shape) {
  devplug_tensor_t* t = nullptr;
  check(devplug_tensor_create(device, dtype, static_cast<int32_t>(shape.size()), shape.data(), &t),
        "devplug_tensor_create");
  auto tensor = adopt(t);
  const int64_t n = numel_of(shape);
  if (n > 0) {
    const std::vector<unsigned char> values = small_values(dtype, n);
    check(devplug_tensor_copy_from_host(default_stream(device), t, values.data(), values.size(),
                                        DEVPLUG_COPY_BLOCKING),
          "devplug_tensor_copy_from_host");
  }
  return tensor;
}

Workload add_workload(devplug_device_t* device, devplug_dtype_t dtype, int64_t numel) {
  Workload w{"add",
             devplug_dtype_name(dtype),
             numel,
             Measure::kBandwidth,
             3.0 * static_cast<double>(numel) * static_cast<double>(devplug_dtype_size(dtype)),
             {},
             {}};
  w.run = op_iteration(default_stream(device), DEVPLUG_OP_add,
                       {make_tensor(device, dtype, {numel}), make_tensor(device, dtype, {numel})},
                       {make_tensor(device, dtype, {numel})}, nullptr);
  return w;
}

std::vector<Workload> bandwidth_workloads(devplug_device_t* device, devplug_dtype_t dtype, int64_t numel) {
  auto a = make_tensor(device, dtype, {numel});
  auto b = make_tensor(device, dtype, {numel});
  auto c = make_tensor(device, dtype, {numel});
  devplug_stream_t* stream = default_stream(device);
  const double bytes = static_cast<double>(numel) * static_cast<double>(devplug_dtype_size(dtype));
  const char* name = devplug_dtype_name(dtype);

  Workload copy{"copy", name, numel, Measure::kBandwidth, 2.0 * bytes, {}, {}};
  copy.run = [stream, a, c] {
    check(devplug_tensor_copy(stream, c.get(), a.get()), "devplug_tensor_copy");
    check(devplug_stream_synchronize(stream), "devplug_stream_synchronize");
  };
  Workload add{"add", name, numel, Measure::kBandwidth, 3.0 * bytes, {}, {}};
  add.run = op_iteration(stream, DEVPLUG_OP_add, {a, b}, {c}, nullptr);
  auto attrs = std::make_shared<devplug_reduce_attrs_t>();
  attrs->struct_size = sizeof(devplug_reduce_attrs_t);
  attrs->dims_mask = 1;  // the one dim: a full reduction
  Workload sum{"sum", name, numel, Measure::kBandwidth, bytes, {}, {}};
  sum.run =
      op_iteration(stream, DEVPLUG_OP_sum, {a}, {make_tensor(device, dtype, {1})}, attrs);  // keeps the rank
  return {copy, add, sum};
}

std::vector<Workload> transfer_workloads(devplug_device_t* device, int64_t bytes) {
  auto dst = make_tensor(device, DEVPLUG_DTYPE_UINT8, {bytes});
  devplug_stream_t* stream = default_stream(device);
  const auto n = static_cast<size_t>(bytes);
  auto pageable = std::make_shared<std::vector<unsigned char>>(n, 1);
  auto copy = std::make_shared<std::vector<unsigned char>>(n, 2);
  void* raw = nullptr;
  check(devplug_host_allocate(device, static_cast<uint64_t>(bytes), &raw), "devplug_host_allocate");
  auto pinned = std::shared_ptr<void>(raw, [](void* p) { devplug_error_destroy(devplug_host_free(p)); });
  std::memset(raw, 1, n);
  const double amount = static_cast<double>(bytes);

  Workload from_pageable{"h2d pageable", "uint8", bytes, Measure::kBandwidth, amount, {}, {}};
  from_pageable.run = [stream, dst, pageable, bytes] {
    check(devplug_tensor_copy_from_host(stream, dst.get(), pageable->data(), static_cast<uint64_t>(bytes),
                                        DEVPLUG_COPY_BLOCKING),
          "devplug_tensor_copy_from_host");
  };
  Workload from_pinned{"h2d pinned", "uint8", bytes, Measure::kBandwidth, amount, {}, {}};
  from_pinned.run = [stream, dst, pinned, bytes] {
    check(devplug_tensor_copy_from_host(stream, dst.get(), pinned.get(), static_cast<uint64_t>(bytes), 0),
          "devplug_tensor_copy_from_host");
    check(devplug_stream_synchronize(stream), "devplug_stream_synchronize");
  };
  Workload memcpy_yardstick{"host memcpy", "uint8", bytes, Measure::kBandwidth, amount, {}, {}};
  memcpy_yardstick.run = [pageable, copy, n] {
    std::memcpy(copy->data(), pageable->data(), n);
    const volatile unsigned char last = copy->back();  // the copy is used, so it stays
    (void)last;
  };
  return {from_pageable, from_pinned, memcpy_yardstick};
}

std::vector<Workload> fusion_workloads(devplug_device_t* device, devplug_dtype_t dtype, int64_t numel,
                                       std::string* native) {
  auto a = make_tensor(device, dtype, {numel});
  auto b = make_tensor(device, dtype, {numel});
  auto out = make_tensor(device, dtype, {numel});
  devplug_stream_t* stream = default_stream(device);
  const char* name = devplug_dtype_name(dtype);
  const double bytes = 3.0 * static_cast<double>(numel) * static_cast<double>(devplug_dtype_size(dtype));

  // The chain as (op, first operand, second operand) over values 0 = a, 1 = b, 2.. = results.
  struct Step {
    devplug_op_t op;
    uint32_t x, y;
  };
  static const Step kChain[] = {{DEVPLUG_OP_mul, 0, 1}, {DEVPLUG_OP_add, 2, 0}, {DEVPLUG_OP_sub, 3, 1},
                                {DEVPLUG_OP_mul, 4, 4}, {DEVPLUG_OP_add, 5, 2}, {DEVPLUG_OP_maximum, 6, 0},
                                {DEVPLUG_OP_neg, 7, 7}, {DEVPLUG_OP_abs, 8, 8}};
  constexpr size_t kSteps = sizeof kChain / sizeof kChain[0];

  auto values = std::make_shared<std::vector<std::shared_ptr<devplug_tensor_t>>>();
  values->push_back(a);
  values->push_back(b);
  for (size_t k = 0; k + 1 < kSteps; ++k) values->push_back(make_tensor(device, dtype, {numel}));
  values->push_back(out);
  Workload unfused{"chain8 unfused", name, numel, Measure::kBandwidth, bytes, {}, values};
  unfused.run = [stream, values] {
    for (size_t k = 0; k < kSteps; ++k) {
      const Step& s = kChain[k];
      const bool binary = devplug_op_info(s.op)->n_inputs == 2;
      devplug_tensor_t* in[2] = {(*values)[s.x].get(), (*values)[s.y].get()};
      devplug_tensor_t* result = (*values)[2 + k].get();
      check(devplug_op_call(stream, s.op, in, binary ? 2 : 1, &result, 1, nullptr), devplug_op_name(s.op));
    }
    check(devplug_stream_synchronize(stream), "devplug_stream_synchronize");
  };

  std::vector<devplug_fused_node_t> nodes;
  for (const Step& s : kChain)
    nodes.push_back({sizeof(devplug_fused_node_t), s.op, dtype, {s.x, s.y, 0}, nullptr});
  std::vector<const devplug_fused_node_t*> pointers;
  for (const devplug_fused_node_t& n : nodes) pointers.push_back(&n);
  const devplug_dtype_t input_dtypes[2] = {dtype, dtype};
  const devplug_fused_value_t last = static_cast<devplug_fused_value_t>(2 + kSteps - 1);
  const devplug_fused_program_desc_t desc{sizeof desc,     2, input_dtypes, static_cast<uint32_t>(kSteps),
                                          pointers.data(), 1, &last};
  devplug_fused_program_t* raw = nullptr;
  check(devplug_fused_program_create(device, &desc, &raw), "devplug_fused_program_create");
  auto program = std::shared_ptr<devplug_fused_program_t>(
      raw, [](devplug_fused_program_t* p) { devplug_error_destroy(devplug_fused_program_destroy(p)); });
  bool is_native = false;
  const char* why = nullptr;
  check(devplug_fused_program_is_native(raw, &is_native, &why), "devplug_fused_program_is_native");
  *native = is_native ? "the plugin's fused_programs extension"
                      : std::string("op by op in the dispatcher: ") + (why != nullptr ? why : "?");
  Workload fused{"chain8 fused", name, numel, Measure::kBandwidth, bytes, {}, program};
  fused.run = [stream, program, a, b, out] {
    devplug_tensor_t* in[2] = {a.get(), b.get()};
    devplug_tensor_t* result = out.get();
    check(devplug_fused_program_run(stream, program.get(), in, 2, &result, 1), "devplug_fused_program_run");
    check(devplug_stream_synchronize(stream), "devplug_stream_synchronize");
  };
  return {unfused, fused};
}

Workload matmul_workload(devplug_device_t* device, devplug_dtype_t dtype, int64_t n) {
  auto attrs = std::make_shared<devplug_matmul_attrs_t>();
  attrs->struct_size = sizeof(devplug_matmul_attrs_t);
  attrs->flags = 0;
  const double dn = static_cast<double>(n);
  Workload w{"matmul", devplug_dtype_name(dtype), n, Measure::kFlops, 2.0 * dn * dn * dn, {}, {}};
  w.run = op_iteration(default_stream(device), DEVPLUG_OP_matmul,
                       {make_tensor(device, dtype, {n, n}), make_tensor(device, dtype, {n, n})},
                       {make_tensor(device, dtype, {n, n})}, attrs);
  return w;
}

Workload op_call_workload(devplug_device_t* device) {
  auto a = make_tensor(device, DEVPLUG_DTYPE_FLOAT32, {1});
  auto b = make_tensor(device, DEVPLUG_DTYPE_FLOAT32, {1});
  auto out = make_tensor(device, DEVPLUG_DTYPE_FLOAT32, {1});
  devplug_stream_t* stream = default_stream(device);
  Workload w{"op_call", "float32", 1, Measure::kLatency, 0, {}, {}};
  // No synchronize: the dispatcher's cost per call is the figure (the reference runs the
  // kernel before the call returns).
  w.run = [stream, a, b, out] {
    devplug_tensor_t* ins[2] = {a.get(), b.get()};
    devplug_tensor_t* outs[1] = {out.get()};
    check(devplug_op_call(stream, DEVPLUG_OP_add, ins, 2, outs, 1, nullptr), "devplug_op_call");
  };
  return w;
}

Workload elementwise_workload(devplug_device_t* device) {
  auto a = make_tensor(device, DEVPLUG_DTYPE_FLOAT32, {1});
  auto b = make_tensor(device, DEVPLUG_DTYPE_FLOAT32, {1});
  auto out = make_tensor(device, DEVPLUG_DTYPE_FLOAT32, {1});
  devplug_stream_t* stream = default_stream(device);
  Workload w{"elementwise", "float32", 1, Measure::kLatency, 0, {}, {}};
  w.run = [stream, a, b, out] {
    devplug_tensor_t* ins[2] = {a.get(), b.get()};
    devplug_tensor_t* result = out.get();
    check(devplug_elementwise(stream, DEVPLUG_OP_add, ins, 2, &result), "devplug_elementwise");
  };
  return w;
}

Workload direct_kernel_workload(devplug_plugin_t* plugin, devplug_device_t* device) {
  // The plugin's own device 0, stream, buffers and float32 add kernel: the kernel's checks
  // include that every buffer lives on the stream's device, so the buffers are the
  // plugin's own too, not the dispatcher's.
  struct Direct {
    const devplug_plugin_api_t* api = nullptr;
    devplug_device_handle_t* device = nullptr;
    devplug_stream_handle_t* stream = nullptr;
    devplug_kernel_fn add = nullptr;
    devplug_buffer_handle_t* buffers[3] = {};
    devplug_tensor_desc_t descs[3] = {};
    ~Direct() {
      for (devplug_buffer_handle_t* b : buffers)
        if (b) api->error_destroy(api->buffer_release(b));
      if (stream) api->error_destroy(api->stream_destroy(stream));
      if (device) api->error_destroy(api->device_close(device));
    }
  };
  (void)device;  // the dispatcher's device: the kernel runs on the plugin's own handle of it
  auto d = std::make_shared<Direct>();
  check(devplug_plugin_get_table(plugin, &d->api), "devplug_plugin_get_table");
  for (size_t i = 0; i < d->api->kernel_count; ++i) {
    const devplug_kernel_t* row = d->api->kernels[i];
    if (row->op == DEVPLUG_OP_add && (row->dtypes & DEVPLUG_DTYPE_BIT(DEVPLUG_DTYPE_FLOAT32)))
      d->add = row->fn;
  }
  if (d->add == nullptr) throw std::runtime_error("the plugin declares no float32 add");
  auto take = [&](devplug_error_t* e, const char* what) {
    if (e == nullptr) return;
    const std::string text = std::string(what) + ": " + e->message;
    d->api->error_destroy(e);
    throw std::runtime_error(text);
  };
  take(d->api->device_open(0, &d->device), "device_open");
  take(d->api->stream_create(d->device, &d->stream), "stream_create");
  for (int i = 0; i < 3; ++i) {
    take(d->api->buffer_allocate(d->device, sizeof(float), &d->buffers[i]), "buffer_allocate");
    devplug_tensor_desc_t& desc = d->descs[i];
    desc.struct_size = sizeof(devplug_tensor_desc_t);
    desc.buffer = d->buffers[i];
    desc.dtype = DEVPLUG_DTYPE_FLOAT32;
    desc.rank = 1;
    desc.shape[0] = 1;
    desc.strides[0] = 1;
  }
  Workload w{"direct_kernel", "float32", 1, Measure::kLatency, 0, {}, d};
  w.run = [raw = d.get()] {
    const devplug_tensor_desc_t* ins[2] = {&raw->descs[0], &raw->descs[1]};
    const devplug_tensor_desc_t* outs[1] = {&raw->descs[2]};
    devplug_op_call_t call{sizeof(call), DEVPLUG_OP_add, ins, 2, outs, 1, nullptr};
    devplug_error_t* e = raw->add(raw->stream, &call);
    if (e != nullptr) {
      const std::string text = std::string("direct add: ") + e->message;
      raw->api->error_destroy(e);
      throw std::runtime_error(text);
    }
  };
  return w;
}

}  // namespace devplug::bench
