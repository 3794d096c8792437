// SPDX-License-Identifier: Apache-2.0
// Property tests of the view metadata on many small random layouts, checked by brute
// force: every element a view reaches is enumerated and compared with what the function
// claims (reshape keeps the row-major element order, overlap answers are sound, bounds
// checks agree with the reached elements).
#include "layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace devplug::detail {
namespace {

// The storage element of every index of `l`, in row-major logical order.
std::vector<int64_t> reached(const Layout& l) {
  std::vector<int64_t> out;
  if (numel(l) == 0) return out;
  std::vector<int64_t> index(l.rank, 0);
  while (true) {
    int64_t e = l.offset;
    for (int32_t d = 0; d < l.rank; ++d) e += index[d] * l.strides[d];
    out.push_back(e);
    int32_t d = l.rank - 1;
    while (d >= 0 && ++index[d] == l.shape[d]) index[d--] = 0;
    if (d < 0) return out;
  }
}

// A random strided view of a random contiguous tensor: permuted, sliced with steps
// (possibly negative), sometimes expanded.
Layout random_view(std::mt19937& rng, bool allow_expand) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t rank = pick(0, 4);
  std::vector<int64_t> shape(rank);
  for (auto& s : shape) s = pick(0, 9) == 0 ? pick(0, 1) : pick(1, 5);
  Layout l = contiguous_layout(DEVPLUG_DTYPE_FLOAT32, rank, shape.data());
  l.offset = pick(0, 3);
  for (int k = 0; k < 3 && l.rank > 0; ++k) {
    const int32_t r = l.rank;
    Layout next;
    switch (pick(0, 3)) {
      case 0: {
        std::vector<int32_t> dims(r);
        for (int32_t d = 0; d < r; ++d) dims[d] = d;
        std::shuffle(dims.begin(), dims.end(), rng);
        EXPECT_EQ(view_permute(l, dims.data(), &next), "");
        break;
      }
      case 1: {
        int step = pick(-3, 3);
        if (step == 0) step = 1;
        EXPECT_EQ(view_slice(l, pick(0, r - 1), pick(-6, 6), pick(-6, 6), step, &next), "");
        break;
      }
      case 2: {
        if (!allow_expand) continue;
        std::vector<int64_t> target(l.shape, l.shape + r);
        for (auto& t : target)
          if (t == 1) t = pick(1, 3);
        EXPECT_EQ(view_expand(l, r, target.data(), &next), "");
        break;
      }
      default:
        if (r >= 6) continue;
        EXPECT_EQ(view_unsqueeze(l, pick(0, r), &next), "");
    }
    l = next;
  }
  return l;
}

// Any small layout: random shape, strides in [-3, 3] (zero and negative included) and an
// offset that keeps it inside a storage, as as_strided could make.
Layout random_strided(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Layout l;
  l.rank = pick(0, 4);
  int64_t low = 0;
  for (int32_t d = 0; d < l.rank; ++d) {
    l.shape[d] = pick(1, 4);
    l.strides[d] = pick(-3, 3);
    if (l.strides[d] < 0) low += (l.shape[d] - 1) * l.strides[d];
  }
  l.offset = -low + pick(0, 2);
  return l;
}

// Splits `count` into a random shape of up to 4 dims.
std::vector<int64_t> random_shape_of(std::mt19937& rng, int64_t count) {
  std::vector<int64_t> shape;
  int64_t left = count;
  const int dims = std::uniform_int_distribution<int>(0, 3)(rng);
  for (int i = 0; i < dims && left > 0; ++i) {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= left; ++d)
      if (left % d == 0) divisors.push_back(d);
    int64_t d = divisors[std::uniform_int_distribution<size_t>(0, divisors.size() - 1)(rng)];
    shape.push_back(d);
    left /= d;
  }
  if (left != 1 || count == 0 || std::uniform_int_distribution<int>(0, 3)(rng) == 0) shape.push_back(left);
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0)
    shape.insert(shape.begin() + std::uniform_int_distribution<size_t>(0, shape.size())(rng), 1);
  return shape;
}

TEST(LayoutProperties, ReshapeKeepsTheRowMajorOrder) {
  std::mt19937 rng(1234);
  int views = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    Layout in = random_view(rng, true);
    std::vector<int64_t> target = random_shape_of(rng, numel(in));
    if (static_cast<int32_t>(target.size()) > DEVPLUG_MAX_RANK) continue;
    Layout out;
    Problem p = view_reshape(in, static_cast<int32_t>(target.size()), target.data(), &out);
    if (is_contiguous(in)) {
      EXPECT_EQ(p, "") << "a contiguous tensor always reshapes";
    }
    if (!p.empty()) {
      ++refused;
      continue;
    }
    ++views;
    ASSERT_EQ(std::vector<int64_t>(out.shape, out.shape + out.rank), target);
    EXPECT_EQ(reached(out), reached(in)) << "trial " << trial;
  }
  EXPECT_GT(views, 1000);
  EXPECT_GT(refused, 100);
}

TEST(LayoutProperties, OverlapAnswersAreSound) {
  std::mt19937 rng(99);
  int exact_false = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    Layout l = random_view(rng, true);
    std::vector<int64_t> elements = reached(l);
    std::set<int64_t> distinct(elements.begin(), elements.end());
    const bool really_overlaps = distinct.size() != elements.size();
    if (really_overlaps) {
      EXPECT_TRUE(overlaps_itself(l)) << "trial " << trial;
    }
    if (!overlaps_itself(l)) ++exact_false;
  }
  EXPECT_GT(exact_false, 1000);
  // Views made without expand never overlap, and the answer must be exact for them.
  for (int trial = 0; trial < 2000; ++trial) {
    EXPECT_FALSE(overlaps_itself(random_view(rng, false))) << "trial " << trial;
  }
  for (int trial = 0; trial < 20000; ++trial) {
    Layout l = random_strided(rng);
    std::vector<int64_t> elements = reached(l);
    std::set<int64_t> distinct(elements.begin(), elements.end());
    if (distinct.size() != elements.size()) {
      EXPECT_TRUE(overlaps_itself(l)) << "as_strided trial " << trial;
    }
  }
}

TEST(LayoutProperties, MayOverlapIsSoundAndBoundsMatchTheReachedElements) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 4000; ++trial) {
    Layout a = trial % 2 ? random_view(rng, true) : random_strided(rng);
    Layout b = trial % 3 ? random_view(rng, true) : random_strided(rng);
    std::vector<int64_t> ea = reached(a), eb = reached(b);
    std::set<int64_t> sa(ea.begin(), ea.end());
    bool shared = std::any_of(eb.begin(), eb.end(), [&](int64_t e) { return sa.count(e) > 0; });
    if (shared) {
      EXPECT_TRUE(may_overlap(a, b)) << "trial " << trial;
    }
    int64_t lo = 0, hi = 0;
    ASSERT_EQ(element_range(a, &lo, &hi), !ea.empty());
    if (ea.empty()) continue;
    EXPECT_EQ(lo, *std::min_element(ea.begin(), ea.end()));
    EXPECT_EQ(hi, *std::max_element(ea.begin(), ea.end()));
    EXPECT_EQ(check_in_storage(a, static_cast<uint64_t>(hi + 1) * 4, "a"), "");
    EXPECT_NE(check_in_storage(a, static_cast<uint64_t>(hi + 1) * 4 - 1, "a"), "");
  }
}

}  // namespace
}  // namespace devplug::detail
