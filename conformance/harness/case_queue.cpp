// SPDX-License-Identifier: Apache-2.0
// Groups of cases handed to workers a group at a time (see case_queue.hpp).
#include "harness/case_queue.hpp"

#include <unordered_map>

namespace devplug::conform {

CaseQueue::CaseQueue(const std::vector<std::string>& keys) : left_(keys.size()) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, added] = index.emplace(keys[i], groups_.size());
    if (added) groups_.emplace_back();
    groups_[it->second].push_back(i);
  }
}

long CaseQueue::next(size_t worker) {
  if (left_ == 0) return -1;
  if (worker >= group_of_.size()) group_of_.resize(worker + 1, -1);
  long& group = group_of_[worker];
  if (group < 0 || groups_[static_cast<size_t>(group)].empty()) {
    if (next_group_ < groups_.size()) {
      group = static_cast<long>(next_group_++);
    } else {
      // Every group is started: help with the one that has the most left, from its back.
      size_t most = 0;
      for (size_t g = 0; g < groups_.size(); ++g)
        if (groups_[g].size() > groups_[most].size()) most = g;
      std::deque<size_t>& from = groups_[most];
      const size_t entry = from.back();
      from.pop_back();
      --left_;
      return static_cast<long>(entry);
    }
  }
  std::deque<size_t>& mine = groups_[static_cast<size_t>(group)];
  const size_t entry = mine.front();
  mine.pop_front();
  --left_;
  return static_cast<long>(entry);
}

std::string kernel_group(const std::string& op_name, const std::string& dtype_label) {
  return op_name + "/" + dtype_label;
}

}  // namespace devplug::conform
