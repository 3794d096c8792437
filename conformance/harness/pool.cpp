// SPDX-License-Identifier: Apache-2.0
// Forked workers (see pool.hpp). Protocol: the coordinator writes a uint32 case index; the
// worker answers with the index, status, errors, seconds and a message. A worker first
// sends a handshake: 0 (ready) or 1 followed by why it could not set up.
#include "harness/pool.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "devplug/ops.h"
#include "harness/case_queue.hpp"

namespace devplug::conform {
namespace {

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}
bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}
bool write_string(int fd, const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  return write_all(fd, &n, sizeof n) && write_all(fd, s.data(), n);
}
bool read_string(int fd, std::string* s) {
  uint32_t n = 0;
  if (!read_all(fd, &n, sizeof n)) return false;
  s->resize(n);
  return read_all(fd, s->data(), n);
}
bool write_result(int fd, const Result& r) {
  const int32_t status = static_cast<int32_t>(r.status);
  const double nums[4] = {r.max_ulp, r.max_abs, r.max_rel, r.seconds};
  return write_all(fd, &status, sizeof status) && write_all(fd, nums, sizeof nums) &&
         write_string(fd, r.message);
}
bool read_result(int fd, Result* r) {
  int32_t status = 0;
  double nums[4];
  if (!read_all(fd, &status, sizeof status) || !read_all(fd, nums, sizeof nums)) return false;
  r->status = static_cast<Status>(status);
  r->max_ulp = nums[0];
  r->max_abs = nums[1];
  r->max_rel = nums[2];
  r->seconds = nums[3];
  return read_string(fd, &r->message);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Closes every descriptor of a freshly forked child but `keep_a` and `keep_b` (and stdio),
// so that no worker holds another worker's pipe open: closing a pipe must mean EOF.
void close_other_fds(int keep_a, int keep_b) {
  const unsigned lo = static_cast<unsigned>(std::min(keep_a, keep_b));
  const unsigned hi = static_cast<unsigned>(std::max(keep_a, keep_b));
  if (lo > 3) ::close_range(3, lo - 1, 0);
  if (hi > lo + 1) ::close_range(lo + 1, hi - 1, 0);
  ::close_range(hi + 1, ~0u, 0);
}

// Waits for `pid` and describes how it ended.
std::string reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFSIGNALED(status)) return "killed by signal " + signal_text(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

struct Worker {
  pid_t pid = -1;
  int to = -1, from = -1;
  long current = -1;  // index into `which`, or -1 when idle
  double started = 0;
};

void worker_main(int in, int out, const Options& options, const std::vector<Case>& cases) {
  Session session(options);
  if (!session.error().empty()) {
    const uint32_t fail = 1;
    write_all(out, &fail, sizeof fail);
    write_string(out, session.error());
    ::_exit(0);
  }
  const uint32_t ready = 0;
  write_all(out, &ready, sizeof ready);
  uint32_t index = 0;
  while (read_all(in, &index, sizeof index)) {
    const Result r = run_case(session, cases[index], options);
    if (!write_result(out, r)) break;
  }
  ::_exit(0);  // skip static destructors of the coordinator's copy of the heap
}

// Starts a worker; on failure to set up, `*setup_error` says why.
Worker start_worker(const Options& options, const std::vector<Case>& cases, std::string* setup_error) {
  int down[2], up[2];
  Worker w;
  if (::pipe(down) != 0 || ::pipe(up) != 0) {
    *setup_error = "pipe failed";
    return w;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    close_other_fds(down[0], up[1]);
    worker_main(down[0], up[1], options, cases);
  }
  ::close(down[0]);
  ::close(up[1]);
  w.pid = pid;
  w.to = down[1];
  w.from = up[0];
  uint32_t hello = 2;
  if (!read_all(w.from, &hello, sizeof hello)) {
    *setup_error = "the worker died while loading the plugins: " + reap(pid);
    ::close(w.to);
    ::close(w.from);
    w.pid = -1;
    return w;
  }
  if (hello != 0) {
    read_string(w.from, setup_error);
    reap(pid);
    ::close(w.to);
    ::close(w.from);
    w.pid = -1;
  }
  return w;
}

void stop_worker(Worker& w) {
  ::close(w.to);
  ::close(w.from);
  w.pid = -1;
}

// Ends a worker busy with a case that will not be waited for (a hang, or --fail-fast).
void kill_worker(Worker& w) {
  ::kill(w.pid, SIGKILL);
  reap(w.pid);
  stop_worker(w);
}

}  // namespace

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  return std::string("SIG") + (name ? name : "?") + " (" + std::to_string(sig) + ")";
}

std::vector<std::optional<Result>> run_in_workers(const Options& options, const std::vector<Case>& cases,
                                                  const std::vector<size_t>& which,
                                                  const std::function<void(size_t, size_t)>& progress,
                                                  const std::function<bool(const Result&, size_t)>& stop) {
  ::signal(SIGPIPE, SIG_IGN);
  std::vector<std::optional<Result>> results(which.size());
  std::vector<std::string> groups;
  for (size_t k : which) groups.push_back(kernel_group(devplug_op_name(cases[k].op), cases[k].dtype_label));
  CaseQueue pending(groups);
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, options.jobs)));
  size_t done = 0;
  bool stopping = false;
  std::string setup_error;
  auto finish = [&](size_t slot, Result r) {
    if (stop && stop(r, slot)) stopping = true;
    results[slot] = std::move(r);
    progress(++done, which.size());
  };
  while (done < which.size() && !stopping) {
    // Hand out work, starting workers as needed.
    for (size_t id = 0; id < workers.size(); ++id) {
      Worker& w = workers[id];
      if (pending.empty()) break;
      if (w.current >= 0) continue;
      if (w.pid < 0) {
        w = start_worker(options, cases, &setup_error);
        if (w.pid < 0) {
          // Nothing can run: every remaining case fails with the reason.
          for (long slot = pending.next(id); slot >= 0; slot = pending.next(id)) {
            Result r;
            r.status = Status::Fail;
            r.message = "could not set up: " + setup_error;
            finish(static_cast<size_t>(slot), r);
          }
          break;
        }
      }
      w.current = pending.next(id);
      const uint32_t index = static_cast<uint32_t>(which[static_cast<size_t>(w.current)]);
      w.started = now_s();
      write_all(w.to, &index, sizeof index);
    }
    std::vector<pollfd> fds;
    std::vector<Worker*> busy;
    for (Worker& w : workers)
      if (w.current >= 0) {
        fds.push_back({w.from, POLLIN, 0});
        busy.push_back(&w);
      }
    if (fds.empty()) continue;
    ::poll(fds.data(), fds.size(), 100);
    for (size_t i = 0; i < fds.size(); ++i) {
      Worker& w = *busy[i];
      const size_t slot = static_cast<size_t>(w.current);
      if (fds[i].revents != 0) {
        Result r;
        if (read_result(w.from, &r)) {
          w.current = -1;
          finish(slot, r);
        } else {
          r.status = Status::Crash;
          r.message = "the worker " + reap(w.pid) + " while running this case";
          stop_worker(w);
          w.current = -1;
          finish(slot, r);
        }
      } else if (now_s() - w.started > options.timeout_s) {
        kill_worker(w);
        w.current = -1;
        Result r;
        r.status = Status::Timeout;
        r.message = "no answer within " + std::to_string(options.timeout_s) + " s (worker killed)";
        finish(slot, r);
      }
    }
  }
  for (Worker& w : workers) {
    if (stopping && w.current >= 0 && w.pid >= 0) kill_worker(w);  // its case is left unrun
    if (w.pid < 0) continue;
    const pid_t pid = w.pid;
    stop_worker(w);  // closing its pipe ends the worker's loop
    // A worker stuck in a plugin's shutdown gets 5 s, then is killed.
    bool gone = false;
    for (int i = 0; i < 500 && !gone; ++i) {
      gone = ::waitpid(pid, nullptr, WNOHANG) == pid;
      if (!gone) ::usleep(10000);
    }
    if (!gone) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  return results;
}

Result run_isolated(const std::function<std::string()>& body, double timeout_s) {
  int up[2];
  Result r;
  if (::pipe(up) != 0) {
    r.status = Status::Fail;
    r.message = "pipe failed";
    return r;
  }
  std::fflush(nullptr);
  const double start = now_s();
  const pid_t pid = ::fork();
  if (pid == 0) {
    close_other_fds(up[1], up[1]);
    write_string(up[1], body());
    ::_exit(0);
  }
  ::close(up[1]);
  pollfd fd{up[0], POLLIN, 0};
  const int ready = ::poll(&fd, 1, static_cast<int>(timeout_s * 1000));
  std::string message;
  if (ready > 0 && read_string(up[0], &message)) {
    reap(pid);
    r.status = message.empty() ? Status::Pass : Status::Fail;
    r.message = message;
  } else if (ready == 0) {
    ::kill(pid, SIGKILL);
    reap(pid);
    r.status = Status::Timeout;
    r.message = "no answer within " + std::to_string(timeout_s) + " s";
  } else {
    r.status = Status::Crash;
    r.message = "the test process " + reap(pid);
  }
  ::close(up[0]);
  r.seconds = now_s() - start;
  return r;
}

}  // namespace devplug::conform
