// SPDX-License-Identifier: Apache-2.0
// `devplug-info --check`: the checks that need no loading (file, ELF, needed libraries,
// exported entry point), then the loading checks in a child process (doctor_live.cpp),
// then one verdict line. See doctor.hpp.
#include "doctor.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include "devplug/devplug.h"
#include "elf_file.hpp"
#include "inventory.hpp"
#include "library_search.hpp"

namespace devplug::tools {
namespace {

std::string file_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Turns a plugin name into the path discovery found it at, or "" with a message.
std::string resolve_name(const std::string& name, const std::vector<std::string>& extra_plugins,
                         bool discovery, std::ostream& out) {
  devplug_context_t* context = open_context(extra_plugins, discovery);
  std::string path;
  devplug_plugin_t* plugin = nullptr;
  if (devplug_error_t* error = devplug_context_find_plugin(context, name.c_str(), &plugin)) {
    devplug_error_destroy(error);
    // A plugin that failed to load has no name yet: match its file name instead.
    const Inventory inventory = take_inventory(context);
    for (const FailureReport& f : inventory.failed) {
      const std::string file = file_name(f.path);
      if (file == name || file == "libdevplug_" + name + ".so") path = f.path;
    }
    if (path.empty()) {
      out << "devplug-info --check: no plugin named '" << name << "' was found";
      if (!inventory.plugins.empty()) {
        out << " (loaded:";
        for (const PluginReport& p : inventory.plugins) out << " " << p.name;
        out << ")";
      }
      out << ".\n  fix: pass the plugin's path, or add its folder to DEVPLUG_PLUGIN_PATH\n";
    }
  } else {
    devplug_plugin_info_t info{};
    info.struct_size = sizeof(info);
    check(devplug_plugin_get_info(plugin, &info), "devplug_plugin_get_info");
    path = info.path ? info.path : "";
  }
  // The child process loads the plugin afresh; nothing of this context may stay around.
  devplug_context_destroy(context);
  return path;
}

// File, ELF and library checks. Returns false when loading cannot succeed.
bool check_file(const std::string& path, Findings& findings) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    findings.fail("the file does not exist: " + std::string(std::strerror(errno)),
                  "check the path; installed plugins live in lib/devplug/plugins, others are "
                  "found through DEVPLUG_PLUGIN_PATH");
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    findings.fail("not a regular file", "pass the plugin's .so file, not a folder");
    return false;
  }
  if (::access(path.c_str(), R_OK) != 0) {
    findings.fail("the file is not readable by this user", "chmod a+r " + path);
    return false;
  }
  findings.ok("the file exists and is readable (" + std::to_string(st.st_size) + " bytes)");

  const ElfInfo elf = read_elf(path);
  if (!elf.problem.empty()) {
    findings.fail("not a loadable shared library: " + elf.problem,
                  "build the plugin as a shared library for this machine with "
                  "devplug_add_plugin() (a MODULE library)");
    return false;
  }
  findings.ok("ELF " + elf.kind);

  bool all_found = true;
  for (const std::string& needed : elf.needed) {
    const std::string found = find_library(needed, path, elf.runpath);
    if (found.empty()) {
      findings.fail("needs " + needed + ", which is not found", missing_library_fix(needed));
      all_found = false;
    }
  }
  if (all_found)
    findings.ok(
        "all " + std::to_string(elf.needed.size()) + " needed libraries are found" +
        (elf.needed.empty() ? "" : " (" + elf.needed.front() + (elf.needed.size() > 1 ? ", ..." : "") + ")"));

  if (elf.has_dynsym) {
    const bool exported = std::find(elf.exported.begin(), elf.exported.end(), DEVPLUG_PLUGIN_ENTRY_SYMBOL) !=
                          elf.exported.end();
    std::string mangled;
    for (const std::string& symbol : elf.exported)
      if (symbol != DEVPLUG_PLUGIN_ENTRY_SYMBOL &&
          symbol.find(DEVPLUG_PLUGIN_ENTRY_SYMBOL) != std::string::npos)
        mangled = symbol;
    if (!exported) {
      std::string fix =
          "export it: extern \"C\" DEVPLUG_PLUGIN_EXPORT const devplug_plugin_api_t* "
          "devplug_plugin_get_api(void)";
      if (!mangled.empty())
        fix = "found '" + mangled +
              "' instead: declare the entry point extern \"C\" and name it "
              "exactly " DEVPLUG_PLUGIN_ENTRY_SYMBOL;
      findings.fail(std::string("the symbol table has no exported ") + DEVPLUG_PLUGIN_ENTRY_SYMBOL, fix);
      return false;
    }
    // docs/abi.md, "One symbol": exactly one export. More still loads, but the extra symbols can
    // interpose on another plugin's or the host's (two copies of a C++ runtime's inline
    // functions, a static library's globals).
    if (elf.exported.size() > 1)
      findings.warn(
          "exports " + std::to_string(elf.exported.size() - 1) +
              (elf.exported.size() == 2 ? " symbol" : " symbols") + " besides " +
              DEVPLUG_PLUGIN_ENTRY_SYMBOL + " (first: " +
              (elf.exported.front() == DEVPLUG_PLUGIN_ENTRY_SYMBOL ? elf.exported[1] : elf.exported.front()) +
              ")",
          "build it with devplug_add_plugin(), whose version script exports only the entry point");
    else
      findings.ok(std::string("exports only ") + DEVPLUG_PLUGIN_ENTRY_SYMBOL);
  }
  return all_found;
}

// resolve_name in a child process, the path coming back through a pipe: loading plugins to
// learn their names initializes them, and libdevplug refuses every call in a child forked
// after that (device drivers do not survive fork()), so the doctor's own process loads none.
std::string resolve_name_in_child(const std::string& name, const std::vector<std::string>& extra_plugins,
                                  bool discovery, std::ostream& out) {
  int fds[2];
  out << std::flush;
  std::cout << std::flush;
  if (::pipe(fds) != 0) return resolve_name(name, extra_plugins, discovery, out);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return resolve_name(name, extra_plugins, discovery, out);
  }
  if (child == 0) {
    ::close(fds[0]);
    std::string path;
    try {
      path = resolve_name(name, extra_plugins, discovery, out);
    } catch (const std::exception& e) {
      out << "devplug-info --check: finding plugin '" << name << "' failed: " << e.what() << "\n";
    }
    out << std::flush;
    std::cout << std::flush;
    size_t written = 0;
    while (written < path.size()) {
      const ssize_t n = ::write(fds[1], path.data() + written, path.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string path;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      path.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out << "devplug-info --check: a plugin crashed the process while looking for '" << name
        << "'; pass the plugin's path instead\n";
    return "";
  }
  return path;
}

// Runs check_loaded_plugin in a child process and reports a crash as a finding.
int check_in_child(const std::string& path, Findings& findings, std::ostream& out) {
  out << std::flush;
  std::cout << std::flush;
  const pid_t child = ::fork();
  if (child < 0) return check_loaded_plugin(path, findings);  // no fork: take the risk
  if (child == 0) {
    int status = kDoctorWillNotLoad;
    try {
      status = check_loaded_plugin(path, findings);
    } catch (const std::exception& e) {
      findings.fail(std::string("the checks stopped: ") + e.what(), "");
    }
    out << std::flush;
    std::cout << std::flush;
    ::_exit(status);
  }
  // A plugin that hangs must not hang the doctor: give it DEVPLUG_INFO_CHECK_TIMEOUT seconds
  // (default 60), then end the child and say so.
  double limit_s = 60;
  if (const char* text = std::getenv("DEVPLUG_INFO_CHECK_TIMEOUT"); text && std::atof(text) > 0)
    limit_s = std::atof(text);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  int wait_status = 0;
  for (;;) {
    const pid_t done = ::waitpid(child, &wait_status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      while (::waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {}
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", limit_s);
      findings.fail(std::string("the plugin did not finish within ") + seconds +
                        " s during the step after the last line above (it hangs)",
                    "a plugin must never hang its host: attach `gdb -p` to a process stuck in it and report "
                    "the backtrace to the plugin's vendor (DEVPLUG_INFO_CHECK_TIMEOUT sets the limit)");
      return kDoctorWillNotLoad;
    }
    ::usleep(10000);
  }
  if (WIFEXITED(wait_status)) {
    const int code = WEXITSTATUS(wait_status);
    if (code <= kDoctorNoDevices) return code;
    findings.fail("the plugin ended the process with exit status " + std::to_string(code) +
                      " during the step after the last line above",
                  "a plugin must never exit or abort its host: report it to the plugin's vendor");
    return kDoctorWillNotLoad;
  }
  const int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  findings.fail(std::string("the plugin crashed the process with signal ") + std::to_string(sig) + " (" +
                    (sig ? strsignal(sig) : "unknown") + ") during the step after the last line above",
                "a plugin must never crash its host: run `gdb --args devplug-info --check " + path +
                    "` and report the backtrace to the plugin's vendor");
  return kDoctorWillNotLoad;
}

}  // namespace

int run_doctor(const std::string& target, const std::vector<std::string>& extra_plugins, bool discovery,
               std::ostream& out) {
  std::string path = target;
  // A bare word that is not a file is a plugin name.
  struct stat st {};
  if (target.find('/') == std::string::npos && ::stat(target.c_str(), &st) != 0) {
    path = resolve_name_in_child(target, extra_plugins, discovery, out);
    if (path.empty()) return kDoctorWillNotLoad;
  } else if (target.find('/') == std::string::npos) {
    // dlopen searches the library path for a bare file name, never the current directory.
    path = "./" + target;
  }
  out << "devplug-info --check " << path << "\n" << std::flush;
  Findings findings(out);
  int status = kDoctorWillNotLoad;
  if (check_file(path, findings)) status = check_in_child(path, findings, out);
  if (findings.failed() && status == kDoctorOk) status = kDoctorWillNotLoad;
  switch (status) {
    case kDoctorOk:
      out << "OK: the plugin loads and has devices\n";
      break;
    case kDoctorNoDevices:
      out << "NO DEVICES: the plugin loads but reports zero devices (see the fix above)\n";
      break;
    default:
      out << "WILL NOT LOAD: fix the FAIL lines above\n";
      break;
  }
  return status;
}

}  // namespace devplug::tools
