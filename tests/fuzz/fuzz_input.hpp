// SPDX-License-Identifier: Apache-2.0
// The harnesses' view of a fuzzer's bytes: read front to back as small values, with every
// read past the end giving zero, so that any input decodes to a complete call and a seed can
// be written by hand (tests/fuzz/README.md gives each harness's layout). Also the one way a
// harness reports a broken promise: a message and abort(), which libFuzzer records as a crash.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace devplug::fuzz {

// Reports a broken property and stops; libFuzzer saves the input that did it.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz property broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool done() const { return pos_ >= size_; }

  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  // `bytes` raw bytes into `out` (zeros past the end).
  void bytes(void* out, size_t n) {
    const size_t have = pos_ < size_ ? (size_ - pos_ < n ? size_ - pos_ : n) : 0;
    if (have) std::memcpy(out, data_ + pos_, have);
    std::memset(static_cast<uint8_t*>(out) + have, 0, n - have);
    pos_ += have;
  }

  template <typename T>
  T raw() {
    T v;
    bytes(&v, sizeof v);
    return v;
  }

  // A value in [lo, hi] from one byte below 0xf0; above, an edge value that breaks naive
  // arithmetic (0xf0..0xfe) or eight raw bytes (0xff). Shapes, strides, offsets, dims.
  int64_t value(int64_t lo, int64_t hi) {
    const uint8_t b = byte();
    if (b < 0xf0) {
      const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
      return static_cast<int64_t>(static_cast<uint64_t>(lo) + b % span);
    }
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    static const int64_t edges[15] = {-1,
                                      kMax,
                                      kMin,
                                      kMax / 2 + 1,
                                      int64_t{1} << 31,
                                      int64_t{1} << 32,
                                      int64_t{1} << 33,
                                      int64_t{1} << 40,
                                      int64_t{1} << 62,
                                      -(int64_t{1} << 62),
                                      -5,
                                      kMin + 1,
                                      (int64_t{1} << 31) - 1,
                                      int64_t{1} << 20,
                                      7};
    if (b < 0xff) return edges[b - 0xf0];
    return raw<int64_t>();
  }

  // The rest of the input as text.
  std::string rest() {
    std::string s =
        pos_ < size_ ? std::string(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_) : "";
    pos_ = size_;
    return s;
  }

  // Text up to (not including) the next `stop` byte, which is consumed.
  std::string until(char stop) {
    std::string s;
    while (pos_ < size_) {
      const char c = static_cast<char>(data_[pos_++]);
      if (c == stop) break;
      s.push_back(c);
    }
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace devplug::fuzz
