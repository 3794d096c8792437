// SPDX-License-Identifier: Apache-2.0
// Loads plugin libraries with Boost.DLL, checks their tables and keeps one initialized copy
// of each per process (see loader.hpp).
#include "loader.hpp"

#include <boost/dll/shared_library.hpp>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <system_error>

#include "api_guard.hpp"
#include "elf_check.hpp"

namespace devplug::detail {

struct LibraryEntry {
  std::string path;
  boost::dll::shared_library library;
  const devplug_plugin_api_t* raw = nullptr;
  devplug_plugin_api_t api{};  // the known prefix of *raw, zero past the plugin's size
  int users = 0;
};

namespace {

// Every library loaded by any context, by canonical path. Entries are never moved
// (std::map), so LibraryRef keeps a plain pointer.
std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::string, LibraryEntry>& registry() {
  static auto* entries = new std::map<std::string, LibraryEntry>();  // never destroyed:
  return *entries;  // contexts alive at exit must not find it gone
}

std::string version_text(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// Rejects a table whose required function is NULL: calling it later would crash the host.
void check_required_functions(const devplug_plugin_api_t& api) {
#define DEVPLUG_REQUIRE_FN(field) \
  if (api.field == nullptr) throw LoadError("plugin table field " #field " is NULL");
  DEVPLUG_REQUIRE_FN(error_create)
  DEVPLUG_REQUIRE_FN(error_destroy)
  DEVPLUG_REQUIRE_FN(plugin_initialize)
  DEVPLUG_REQUIRE_FN(plugin_shutdown)
  DEVPLUG_REQUIRE_FN(device_count)
  DEVPLUG_REQUIRE_FN(device_get_properties)
  DEVPLUG_REQUIRE_FN(device_open)
  DEVPLUG_REQUIRE_FN(device_close)
  DEVPLUG_REQUIRE_FN(buffer_allocate)
  DEVPLUG_REQUIRE_FN(buffer_release)
  DEVPLUG_REQUIRE_FN(buffer_get_size)
  DEVPLUG_REQUIRE_FN(buffer_copy_from_host)
  DEVPLUG_REQUIRE_FN(buffer_copy_to_host)
  DEVPLUG_REQUIRE_FN(buffer_copy)
  DEVPLUG_REQUIRE_FN(stream_create)
  DEVPLUG_REQUIRE_FN(stream_destroy)
  DEVPLUG_REQUIRE_FN(stream_synchronize)
  DEVPLUG_REQUIRE_FN(event_create)
  DEVPLUG_REQUIRE_FN(event_destroy)
  DEVPLUG_REQUIRE_FN(event_record)
  DEVPLUG_REQUIRE_FN(stream_wait_event)
  DEVPLUG_REQUIRE_FN(event_synchronize)
#undef DEVPLUG_REQUIRE_FN
  if (api.kernel_count > 0 && api.kernels == nullptr)
    throw LoadError("plugin table has kernel_count " + std::to_string(api.kernel_count) +
                    " but kernels is NULL");
}

// Reads and checks the table of a freshly loaded library into `entry`.
void read_table(LibraryEntry& entry) {
  if (!entry.library.has(DEVPLUG_PLUGIN_ENTRY_SYMBOL))
    throw LoadError("missing symbol " DEVPLUG_PLUGIN_ENTRY_SYMBOL
                    " (not a devplug plugin, or the symbol is not exported)");
  auto get_api = entry.library.get<const devplug_plugin_api_t*()>(DEVPLUG_PLUGIN_ENTRY_SYMBOL);
  const devplug_plugin_api_t* raw = get_api();
  if (raw == nullptr)
    throw LoadError(DEVPLUG_PLUGIN_ENTRY_SYMBOL " returned NULL (the plugin cannot serve this process)");
  constexpr size_t version_size = DEVPLUG_SIZE_THROUGH(devplug_plugin_api_t, abi_minor);
  if (raw->struct_size < version_size)
    throw LoadError("plugin table struct_size is " + std::to_string(raw->struct_size) +
                    " bytes, too small to hold its ABI version (" + std::to_string(version_size) + " bytes)");
  if (raw->abi_major != DEVPLUG_ABI_MAJOR)
    throw LoadError("plugin ABI " + version_text(raw->abi_major, raw->abi_minor) + " vs dispatcher ABI " +
                    version_text(DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR) + ": the major versions differ");
  if (raw->struct_size < DEVPLUG_PLUGIN_API_MIN_SIZE)
    throw LoadError("plugin table struct_size is " + std::to_string(raw->struct_size) +
                    " bytes; dispatcher ABI " + version_text(DEVPLUG_ABI_MAJOR, DEVPLUG_ABI_MINOR) +
                    " needs at least " + std::to_string(DEVPLUG_PLUGIN_API_MIN_SIZE));
  // Read only what both sides know: a newer plugin's extra fields are ignored, an older
  // plugin's missing fields stay zero and DEVPLUG_HAS_FIELD on the copy says so.
  const size_t known =
      raw->struct_size < sizeof(devplug_plugin_api_t) ? raw->struct_size : sizeof(devplug_plugin_api_t);
  std::memset(&entry.api, 0, sizeof(entry.api));
  std::memcpy(&entry.api, raw, known);
  entry.api.struct_size = known;
  entry.raw = raw;
  check_required_functions(entry.api);
}

void initialize(LibraryEntry& entry) {
  devplug_plugin_init_args_t args{};
  args.struct_size = sizeof(args);
  args.host_abi_major = DEVPLUG_ABI_MAJOR;
  args.host_abi_minor = DEVPLUG_ABI_MINOR;
  note_plugin_initialized();  // from here on a fork() child may not use devplug (fork.cpp)
  devplug_error_t* error = entry.api.plugin_initialize(&args);
  if (error != nullptr) {
    std::string reason = std::string("plugin_initialize failed: ") + devplug_code_name(error->code) + ": " +
                         (error->message ? error->message : "");
    entry.api.error_destroy(error);
    throw LoadError(reason);
  }
}

// The loader's own text from Boost.DLL's exception, without the wrapper Boost adds around it
// ("boost::dll::shared_library::load() failed (dlerror system message: X): Bad file
// descriptor" becomes "X"), and a hint when a library the plugin needs is missing.
std::string loader_reason(const std::string& what, const std::string& path) {
  const std::string marker = "dlerror system message: ";
  std::string text = what;
  const size_t start = what.find(marker);
  const size_t end = what.rfind("): ");
  if (start != std::string::npos && end != std::string::npos && end > start)
    text = what.substr(start + marker.size(), end - start - marker.size());
  if (text.find("cannot open shared object file") != std::string::npos &&
      text.compare(0, path.size(), path) != 0)
    text += " (a library the plugin depends on is missing: install it or add its folder to LD_LIBRARY_PATH)";
  return text;
}

}  // namespace

std::string canonical_plugin_path(const std::string& path) {
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::canonical(path, ec);
  if (!ec) return canonical.string();
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

LibraryRef load_library(const std::string& canonical_path) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& entries = registry();
  auto found = entries.find(canonical_path);
  if (found != entries.end()) {
    ++found->second.users;
    return LibraryRef(&found->second);
  }
  LibraryEntry& entry = entries[canonical_path];
  entry.path = canonical_path;
  try {
    // A file that is not a well-formed shared object for this machine never reaches dlopen.
    if (std::string problem = elf_load_problem(canonical_path); !problem.empty())
      throw LoadError(canonical_path + ": " + problem);  // worded like the loader's own messages
    try {
      // rtld_now: an unresolved symbol is reported here, not as a crash in the first call.
      entry.library.load(canonical_path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
      throw LoadError(loader_reason(e.what(), canonical_path));  // the loader's own message
    }
    try {
      read_table(entry);
      initialize(entry);
    } catch (const LoadError&) {
      throw;
    } catch (...) {
      // The plugin let a C++ exception out of devplug_plugin_get_api or plugin_initialize.
      // Nothing may cross the C boundary; when the unwinder could still carry it here
      // (plugin and host share the C++ runtime), report it instead of failing the host.
      throw LoadError(
          "the plugin let a C++ exception escape while loading (plugins must catch "
          "everything at the ABI boundary, see devplug::sdk::guard)");
    }
  } catch (...) {
    entries.erase(canonical_path);  // unloads the library
    throw;
  }
  entry.users = 1;
  return LibraryRef(&entry);
}

LibraryRef& LibraryRef::operator=(LibraryRef&& other) noexcept {
  if (this != &other) {
    reset();
    entry_ = other.entry_;
    other.entry_ = nullptr;
  }
  return *this;
}

void LibraryRef::reset() noexcept {
  if (entry_ == nullptr) return;
  std::lock_guard<std::mutex> lock(registry_mutex());
  if (--entry_->users == 0) {
    entry_->api.plugin_shutdown();
    registry().erase(entry_->path);  // unloads the library
  }
  entry_ = nullptr;
}

const devplug_plugin_api_t& LibraryRef::api() const { return entry_->api; }
const devplug_plugin_api_t* LibraryRef::raw_api() const { return entry_->raw; }
const std::string& LibraryRef::path() const { return entry_->path; }

}  // namespace devplug::detail
