// Comparison of plugin and reference outputs (see compare.hpp).
#include "harness/compare.hpp"

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

Judgement judge(const Case& c, const Tolerance& tol, const Bytes& ref, const Bytes& got,
                const Bytes& magnitude, const std::vector<char>& unspecified, const Bytes& poison,
                size_t output) {
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
          case TolKind::Exact: ok = ok && ulps == 0; break;
          case TolKind::Ulp: ok = ok && (ulps <= tol.ulps || err <= tol.abs_eps * epsilon(d)); break;
          case TolKind::Normwise:
            if (!std::isfinite(rv) || !std::isfinite(gv)) ok = ok && rv == gv;
            else ok = ok && err <= tol.c * len * eps_acc * ref_norm + ulp_at(d, rv);
            break;
          case TolKind::Accumulate:
          case TolKind::Relative: {
            if (!std::isfinite(rv) || !std::isfinite(gv)) { ok = ok && rv == gv; break; }
            double scale = std::fabs(rv);
            if (tol.kind == TolKind::Accumulate && magnitude.size() == ref.size())
              scale = std::fabs(load_float(d, &magnitude[e * es]));
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
      if (poison.size() == es && std::memcmp(g, poison.data(), es) == 0) detail << " (unwritten: still the poison pattern)";
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
