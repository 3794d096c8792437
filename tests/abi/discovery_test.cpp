// SPDX-License-Identifier: Apache-2.0
// DEVPLUG_PLUGIN_PATH: entries may be files or folders; empty entries are ignored and never
// mean the current directory; a plugin reached twice is loaded once; a missing entry is a
// recorded failure, not an error of the context.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "abi_test_support.hpp"

namespace {

using devplug_abi_test::Context;
using devplug_abi_test::fixture;
using devplug_abi_test::TempFolder;

// Sets DEVPLUG_PLUGIN_PATH (and optionally the current directory) for one test and
// restores both afterwards.
class PluginPath : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("DEVPLUG_PLUGIN_PATH")) saved_path_ = old;
    saved_cwd_ = std::filesystem::current_path().string();
  }
  void TearDown() override {
    if (saved_path_)
      setenv("DEVPLUG_PLUGIN_PATH", saved_path_->c_str(), 1);
    else
      unsetenv("DEVPLUG_PLUGIN_PATH");
    EXPECT_EQ(chdir(saved_cwd_.c_str()), 0);
  }
  static void set_path(const std::string& value) { setenv("DEVPLUG_PLUGIN_PATH", value.c_str(), 1); }

 private:
  std::optional<std::string> saved_path_;
  std::string saved_cwd_;
};

TEST_F(PluginPath, FolderEntryLoadsEveryPluginInIt) {
  TempFolder folder;
  folder.add(fixture("fixture_ok"));
  folder.add(fixture("fixture_no_device"));
  set_path(folder.path());
  Context context(/*discovery=*/true);
  EXPECT_EQ(context.count_named("fixture_ok"), 1u);
  EXPECT_EQ(context.count_named("fixture_no_device"), 1u);
}

TEST_F(PluginPath, FileEntryLoadsThatFile) {
  TempFolder folder;
  const std::string file = folder.add(fixture("fixture_newer_minor"));
  folder.add(fixture("fixture_ok"));  // in the same folder but not named: not loaded
  set_path(file);
  Context context(/*discovery=*/true);
  EXPECT_EQ(context.count_named("fixture_newer_minor"), 1u);
  EXPECT_EQ(context.count_named("fixture_ok"), 0u);
}

TEST_F(PluginPath, PluginReachedSeveralTimesIsLoadedOnce) {
  TempFolder folder;
  const std::string file = folder.add(fixture("fixture_ok"));
  set_path(folder.path() + ":" + file + ":" + folder.path() + "/:" + file);
  Context context(/*discovery=*/true);
  EXPECT_EQ(context.count_named("fixture_ok"), 1u);
  size_t failures = 0;
  context.failure_for(file, &failures);
  EXPECT_EQ(failures, 0u);
}

TEST_F(PluginPath, EmptyEntriesAreIgnoredAndTheCurrentDirectoryIsNeverScanned) {
  TempFolder cwd, listed;
  cwd.add(fixture("fixture_no_device"));  // would be found if "" meant "."
  listed.add(fixture("fixture_ok"));
  ASSERT_EQ(chdir(cwd.path().c_str()), 0);
  for (const std::string& value : {std::string(""), std::string(":"),
                                   "::" + listed.path() + "::", ":" + listed.path(), listed.path() + ":"}) {
    set_path(value);
    Context context(/*discovery=*/true);
    EXPECT_EQ(context.count_named("fixture_no_device"), 0u) << "DEVPLUG_PLUGIN_PATH=\"" << value << "\"";
    size_t failures = 0;
    context.failure_for(cwd.path() + "/libdevplug_fixture_no_device.so", &failures);
    EXPECT_EQ(failures, 0u) << "DEVPLUG_PLUGIN_PATH=\"" << value << "\"";
    const bool lists_folder = value.find(listed.path()) != std::string::npos;
    EXPECT_EQ(context.count_named("fixture_ok"), lists_folder ? 1u : 0u)
        << "DEVPLUG_PLUGIN_PATH=\"" << value << "\"";
  }
}

// "Each plugin is loaded once" holds for broken plugins too: one try, one failure record.
TEST_F(PluginPath, BrokenPluginReachedSeveralTimesIsReportedOnce) {
  TempFolder folder;
  const std::string file = folder.add(fixture("fixture_abi_major2"));
  set_path(folder.path() + ":" + file + ":" + folder.path() + "/");
  Context context(/*discovery=*/true);
  size_t failures = 0;
  EXPECT_NE(context.failure_for(file, &failures).find("plugin ABI 2."), std::string::npos);
  EXPECT_EQ(failures, 1u) << "the same broken file was tried and recorded " << failures << " times";
}

TEST_F(PluginPath, MissingEntryIsARecordedFailure) {
  TempFolder folder;
  const std::string missing = folder.path() + "/libdevplug_gone.so";
  set_path(missing);
  Context context(/*discovery=*/true);
  size_t failures = 0;
  EXPECT_NE(context.failure_for(missing, &failures), "");
  EXPECT_EQ(failures, 1u);
}

TEST_F(PluginPath, BrokenPluginInAFolderDoesNotStopTheOthers) {
  TempFolder folder;
  folder.add(fixture("fixture_abi_major2"));
  folder.add(fixture("fixture_ok"));
  set_path(folder.path());
  Context context(/*discovery=*/true);
  EXPECT_EQ(context.count_named("fixture_ok"), 1u);
  size_t failures = 0;
  EXPECT_NE(context.failure_for(folder.path() + "/libdevplug_fixture_abi_major2.so", &failures)
                .find("plugin ABI 2."),
            std::string::npos);
  EXPECT_EQ(failures, 1u);
}

TEST_F(PluginPath, NoDiscoveryIgnoresThePath) {
  TempFolder folder;
  folder.add(fixture("fixture_ok"));
  set_path(folder.path());
  Context context(/*discovery=*/false);
  EXPECT_EQ(context.plugin_count(), 0u);
}

}  // namespace
