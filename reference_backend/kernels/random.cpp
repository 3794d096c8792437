// SPDX-License-Identifier: Apache-2.0
// Reference kernels for philox_bits, philox_uniform and philox_normal (docs/random.md).
//
// Philox4x32-10 (Random123) with key = seed and counter block n = offset + w / 4; word w of
// the stream is output word (w % 4) of block n. Element k of the output is the k-th
// element in row-major logical order, whatever the output's strides, so the values never
// depend on layout or on how a device splits the work.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels.hpp"
#include "kernels/elementary.hpp"
#include "kernels/trig.hpp"
#include "structured_common.hpp"

namespace devplug::reference {
namespace {

using namespace structured;

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

struct Block {
  uint32_t w[4];
};

// Ten Philox rounds on counter `c` with key (k0, k1).
Block philox4x32_10(Block c, uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c.w[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c.w[2];
    c = Block{{static_cast<uint32_t>(p1 >> 32) ^ c.w[1] ^ k0, static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ c.w[3] ^ k1, static_cast<uint32_t>(p0)}};
    k0 += kW0;
    k1 += kW1;
  }
  return c;
}

// The word stream of one (seed, offset); remembers the last block it computed, because
// consecutive words mostly come from the same block.
class WordStream {
 public:
  WordStream(uint64_t seed, uint64_t offset)
      : k0_(static_cast<uint32_t>(seed)), k1_(static_cast<uint32_t>(seed >> 32)), offset_(offset) {}

  uint32_t word(uint64_t w) {
    const uint64_t n = offset_ + w / 4;  // wraps modulo 2^64, as the spec says
    if (!have_ || n != block_index_) {
      block_ =
          philox4x32_10(Block{{static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32), 0, 0}}, k0_, k1_);
      block_index_ = n;
      have_ = true;
    }
    return block_.w[w % 4];
  }
  // Words w (low) and w + 1 (high) as one 64-bit value.
  uint64_t pair(uint64_t w) { return static_cast<uint64_t>(word(w + 1)) << 32 | word(w); }

 private:
  uint32_t k0_, k1_;
  uint64_t offset_;
  uint64_t block_index_ = 0;
  bool have_ = false;
  Block block_{};
};

// Writes `value(k)` to element k of the output, k in row-major logical order.
template <typename T, typename Value>
void fill_elements(const devplug_op_call_t& call, Value&& value) {
  const devplug_tensor_desc_t& out = *call.outputs[0];
  check_fits(out, "output");
  T* dst = tensor_base<T>(out);
  uint64_t k = 0;
  sdk::for_each_offset<1>(out.rank, out.shape, {out.strides},
                          [&](const std::array<int64_t, 1>& at) { dst[at[0]] = value(k++); });
}

WordStream stream_of(const devplug_op_call_t& call) {
  const devplug_philox_attrs_t& attrs = attrs_of<devplug_philox_attrs_t>(call);
  return WordStream(attrs.seed, attrs.offset);
}

template <typename T>
void philox_bits(const devplug_op_call_t& call) {
  WordStream words = stream_of(call);
  fill_elements<T>(call, [&](uint64_t k) {
    if constexpr (sizeof(T) == 4)
      return from_bits<T>(words.word(k));
    else
      return from_bits<T>(words.pair(2 * k));
  });
}

// The uniform rules keep as many top bits of the word as the dtype has significand bits,
// so every value is a multiple of 2^-p in [0, 1) and exact.
template <typename T>
void philox_uniform(const devplug_op_call_t& call) {
  WordStream words = stream_of(call);
  fill_elements<T>(call, [&](uint64_t k) {
    if constexpr (std::is_same_v<T, double>)
      return static_cast<double>(words.pair(2 * k) >> 11) * 0x1p-53;
    else if constexpr (std::is_same_v<T, float>)
      return static_cast<float>(words.word(k) >> 8) * 0x1p-24f;
    else if constexpr (std::is_same_v<T, sdk::float16>)
      return sdk::from_double<T>(static_cast<double>(words.word(k) >> 21) * 0x1p-11);
    else
      return sdk::from_double<T>(static_cast<double>(words.word(k) >> 24) * 0x1p-8);
  });
}

// cos(2 pi u) for u in [0, 1), in C (double or long double). The quadrant comes from u
// itself: q = nearest(4u) and r = u - q/4 are exact, so only 2 pi r (|r| <= 1/8) is rounded,
// and the cosine or sine of an argument within pi/4 needs no further reduction. This is
// both faster than cos(2 pi u) (the C library's long double reduction is slow) and exact
// near the zeros of the cosine, where rounding 2 pi u first would cost relative precision.
template <typename C>
C cos_of_turns(C u) {
  constexpr C two_pi = static_cast<C>(6.283185307179586476925286766559005768L);
  const C q = std::floor(4 * u + C(0.5));  // exact; a tie may go either way (|r| = 1/8)
  const C angle = two_pi * (u - q / 4);
  auto cos_small = [](C r) {
    if constexpr (std::is_same_v<C, long double>)
      return math::cos_within_quarter_pi(r);
    else
      return std::cos(r);
  };
  auto sin_small = [](C r) {
    if constexpr (std::is_same_v<C, long double>)
      return math::sin_within_quarter_pi(r);
    else
      return std::sin(r);
  };
  switch (static_cast<int>(q) & 3) {
    case 0:
      return cos_small(angle);
    case 1:
      return -sin_small(angle);
    case 2:
      return -cos_small(angle);
    default:
      return sin_small(angle);
  }
}

// Box-Muller, cos branch: z = sqrt(-2 ln u1) cos(2 pi u2) with u1 in (0, 1] (never 0, so
// the log is finite) and u2 in [0, 1). float64 is computed in long double, the others in
// double; each is rounded once to the dtype.
template <typename T>
void philox_normal(const devplug_op_call_t& call) {
  WordStream words = stream_of(call);
  fill_elements<T>(call, [&](uint64_t k) {
    if constexpr (std::is_same_v<T, double>) {
      const long double u1 = static_cast<long double>((words.pair(4 * k) >> 11) + 1) * 0x1p-53;
      const long double u2 = static_cast<long double>(words.pair(4 * k + 2) >> 11) * 0x1p-53;
      return static_cast<double>(std::sqrt(-2 * math::log(u1)) * cos_of_turns(u2));
    } else {
      const double u1 = static_cast<double>((words.word(2 * k) >> 8) + 1) * 0x1p-24;
      const double u2 = static_cast<double>(words.word(2 * k + 1) >> 8) * 0x1p-24;
      return sdk::from_double<T>(std::sqrt(-2.0 * std::log(u1)) * cos_of_turns(u2));
    }
  });
}

DEVPLUG_STRUCTURED_KERNEL(philox_bits_kernel, DEVPLUG_OP_philox_bits, (philox_bits<T>(c)))
DEVPLUG_STRUCTURED_KERNEL(philox_uniform_kernel, DEVPLUG_OP_philox_uniform, (philox_uniform<T>(c)))
DEVPLUG_STRUCTURED_KERNEL(philox_normal_kernel, DEVPLUG_OP_philox_normal, (philox_normal<T>(c)))

}  // namespace

void philox_words(uint64_t seed, uint64_t offset, uint64_t count, uint32_t* out) {
  WordStream stream(seed, offset);
  for (uint64_t w = 0; w < count; ++w) out[w] = stream.word(w);
}

void register_random_kernels(sdk::KernelTable& table) {
  add_kernel(table, DEVPLUG_OP_philox_bits, &philox_bits_kernel);
  add_kernel(table, DEVPLUG_OP_philox_uniform, &philox_uniform_kernel);
  add_kernel(table, DEVPLUG_OP_philox_normal, &philox_normal_kernel);
}

}  // namespace devplug::reference
