// SPDX-License-Identifier: Apache-2.0
// An intrusive doubly linked list of the live objects a device made (tensors, streams,
// events), so that destroying a context can free what the host forgot, with O(1) insert
// and remove and no allocation. Not thread-safe: the owner holds a mutex. And LiveSet, the
// handles of one kind handed out and not destroyed yet.
#pragma once

#include <mutex>
#include <unordered_set>

namespace devplug::detail {

// T has members `T* live_prev` and `T* live_next`.
template <typename T>
class LiveList {
 public:
  void insert(T* item) noexcept {
    item->live_prev = nullptr;
    item->live_next = head_;
    if (head_ != nullptr) head_->live_prev = item;
    head_ = item;
  }
  void remove(T* item) noexcept {
    if (item->live_prev != nullptr)
      item->live_prev->live_next = item->live_next;
    else if (head_ == item)
      head_ = item->live_next;
    if (item->live_next != nullptr) item->live_next->live_prev = item->live_prev;
    item->live_prev = item->live_next = nullptr;
  }
  T* head() const noexcept { return head_; }
  bool empty() const noexcept { return head_ == nullptr; }

 private:
  T* head_ = nullptr;
};

// The handles of one kind (graphs, fused programs, communicators) handed out and not destroyed
// yet, so that a destroyed handle is refused without reading freed memory. Thread-safe.
template <typename T>
class LiveSet {
 public:
  void add(const T* item) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.insert(item);
  }
  void remove(const T* item) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.erase(item);
  }
  bool contains(const T* item) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return items_.count(item) != 0;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<const T*> items_;
};

}  // namespace devplug::detail
