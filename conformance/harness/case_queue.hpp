// SPDX-License-Identifier: Apache-2.0
// The order in which worker processes get cases. Cases that share their kernels (one op on
// one dtype) form a group, and a worker runs a whole group before it starts another, so a
// plugin that compiles its kernels at first use (OpenCL, Level Zero) compiles each of them in
// one worker only: when two workers take consecutive cases of one op, both compile the same
// kernels at once (opencl on PoCL: about 1.7 times the compile work of one worker), or one
// waits for the other's build (level_zero, whose cache locks across processes). Once no
// group is left untouched, an idle worker takes cases from the back of the group with the
// most left, so the run still ends together.
//
// Not thread-safe: the coordinator alone uses it.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace devplug::conform {

class CaseQueue {
 public:
  // Entry i of the queue belongs to the group named `keys[i]`; groups start in the order
  // their first entry appears, entries within a group stay in order.
  explicit CaseQueue(const std::vector<std::string>& keys);

  // The next entry for worker `worker` (any small number), or -1 when none is left.
  long next(size_t worker);

  bool empty() const { return left_ == 0; }

 private:
  std::vector<std::deque<size_t>> groups_;
  size_t next_group_ = 0;       // the first group no worker has started
  std::vector<long> group_of_;  // per worker: the group it is on, or -1
  size_t left_ = 0;
};

// The group key of a case: the op and its dtype label ("exp/float32",
// "convert_element_type/float64_to_float16").
std::string kernel_group(const std::string& op_name, const std::string& dtype_label);

}  // namespace devplug::conform
