// SPDX-License-Identifier: Apache-2.0
// Comparison of plugin and reference outputs (see compare.hpp).
#include "harness/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "harness/elements.hpp"

namespace devplug::conform {
namespace {

std::string element_text(devplug_dtype_t d, const uint8_t* p) {
  std::ostringstream s;
  if (is_float(d)) {
    s.precision(17);
    s << load_float(d, p) << " (0x" << std::hex << load_bits(d, p) << ")";
  } else {
    s << load_int(d, p);
  }
  return s.str();
}

}  // namespace

std::vector<double> var_second_moments(const Case& c, const Bytes& input) {
  const TensorSpec& in = c.inputs[0];
  const std::vector<int64_t>& shape = in.shape;
  const size_t rank = shape.size();
  const uint32_t mask = c.attrs.reduce.dims_mask;
  // Row-major strides of the output (reduced dims have size 1 there).
  std::vector<int64_t> out_stride(rank, 1);
  for (size_t k = rank; k-- > 1;) out_stride[k - 1] = out_stride[k] * ((mask >> k) & 1u ? 1 : shape[k]);
  std::vector<double> sums(static_cast<size_t>(numel(c.outputs[0].shape)), 0.0);
  const size_t es = devplug_dtype_size(in.dtype);
  const int64_t n = numel(shape);
  std::vector<int64_t> index(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t o = 0;
    for (size_t k = 0; k < rank; ++k)
      if (!((mask >> k) & 1u)) o += index[k] * out_stride[k];
    const double x = load_float(in.dtype, &input[static_cast<size_t>(e) * es]);
    sums[static_cast<size_t>(o)] += x * x;
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  const double divisor = std::max(1.0, static_cast<double>(c.reduction_length) - c.attrs.reduce.correction);
  for (double& s : sums) s /= divisor;
  return sums;
}

Judgement judge(const Case& c, const Tolerance& tol, const Bytes& ref, const Bytes& got,
                const Bytes& magnitude, const std::vector<char>& unspecified, const Bytes& poison,
                size_t output, const std::vector<double>& moments) {
  Judgement j;
  const devplug_dtype_t d = c.outputs[output].dtype;
  const size_t es = devplug_dtype_size(d);
  const size_t n = ref.size() / es;
  const bool flt = is_float(d);
  const double eps_acc = is_16bit_float(d) ? epsilon(DEVPLUG_DTYPE_FLOAT32) : epsilon(d);
  const double len = static_cast<double>(c.reduction_length);
  // Normwise rows scale by the largest finite |ref| of the whole output.
  double ref_norm = 0;
  if (flt && tol.kind == TolKind::Normwise)
    for (size_t e = 0; e < n; ++e) {
      const double rv = std::fabs(load_float(d, &ref[e * es]));
      if (std::isfinite(rv)) ref_norm = std::max(ref_norm, rv);
    }
  size_t bad = 0, ref_nonzero = 0, zero_instead = 0;
  std::ostringstream detail;
  for (size_t e = 0; e < n; ++e) {
    if (e < unspecified.size() && unspecified[e]) continue;
    const uint8_t* r = &ref[e * es];
    const uint8_t* g = &got[e * es];
    bool ok = true;
    double ulps = 0;
    if (!flt) {
      ok = load_int(d, r) == load_int(d, g);
      if (load_int(d, r) != 0) {
        ++ref_nonzero;
        zero_instead += load_int(d, g) == 0;
      }
    } else {
      const double rv = load_float(d, r), gv = load_float(d, g);
      if (rv != 0 && !std::isnan(rv)) {
        ++ref_nonzero;
        zero_instead += gv == 0;
      }
      if (std::isnan(rv) || std::isnan(gv)) {
        ok = std::isnan(rv) && std::isnan(gv);
      } else {
        ulps = ulp_distance(d, r, g);
        const double err = std::fabs(rv - gv);
        if (std::isfinite(err)) {
          j.max_abs = std::max(j.max_abs, err);
          if (rv != 0) j.max_rel = std::max(j.max_rel, err / std::fabs(rv));
        }
        j.max_ulp = std::max(j.max_ulp, ulps);
        if (tol.signed_zero && rv == 0 && gv == 0 && sign_bit(d, r) != sign_bit(d, g)) ok = false;
        switch (tol.kind) {
          case TolKind::Exact:
            ok = ok && ulps == 0;
            break;
          case TolKind::Ulp:
            ok = ok && (ulps <= tol.ulps || err <= tol.abs_eps * epsilon(d));
            break;
          case TolKind::Normwise:
            if (!std::isfinite(rv) || !std::isfinite(gv))
              ok = ok && rv == gv;
            else
              ok = ok && err <= tol.c * len * eps_acc * ref_norm + ulp_at(d, rv);
            break;
          case TolKind::Accumulate:
          case TolKind::Relative:
          case TolKind::Variance: {
            if (!std::isfinite(rv) || !std::isfinite(gv)) {
              ok = ok && rv == gv;
              break;
            }
            double scale = std::fabs(rv);
            if (tol.kind == TolKind::Accumulate && magnitude.size() == ref.size())
              scale = std::fabs(load_float(d, &magnitude[e * es]));
            // Two-pass variance: the mean's error delta adds n delta^2 <= (n eps)^2 sum x^2.
            if (tol.kind == TolKind::Variance && e < moments.size()) scale += len * eps_acc * moments[e];
            if (!std::isfinite(scale)) break;  // terms overflow: any finite answer is as good
            ok = ok && err <= tol.c * len * eps_acc * scale + ulp_at(d, rv);
            break;
          }
        }
      }
    }
    if (ok) continue;
    if (bad++ < 5) {
      detail << "  element " << e << ": got " << element_text(d, g) << ", expected " << element_text(d, r);
      if (flt && !std::isnan(ulps)) detail << ", " << ulps << " ulp";
      if (poison.size() == es && std::memcmp(g, poison.data(), es) == 0)
        detail << " (unwritten: still the poison pattern)";
      detail << "\n";
    }
  }
  if (bad > 0) {
    j.ok = false;
    j.detail = std::to_string(bad) + " of " + std::to_string(n) + " elements differ\n" + detail.str();
  }
  if (ref_nonzero >= 4 && zero_instead * 2 > ref_nonzero) {
    j.ok = false;
    j.detail = "suspicious: " + std::to_string(zero_instead) + " of " + std::to_string(ref_nonzero) +
               " outputs are zero where the reference is not\n" + j.detail;
  }
  return j;
}

}  // namespace devplug::conform
