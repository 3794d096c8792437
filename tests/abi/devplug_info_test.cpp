// SPDX-License-Identifier: Apache-2.0
// devplug-info as a user runs it: `--check` diagnoses each broken fixture with the right
// reason, fix and exit status (0 fine, 1 will not load, 2 no devices), and `--json` lists
// plugins, devices, kernels and failures in the documented shape.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "abi_test_support.hpp"

namespace {

using devplug_abi_test::CommandResult;
using devplug_abi_test::fixture;
using devplug_abi_test::quoted;
using devplug_abi_test::run;
using devplug_abi_test::TempFolder;

const std::string kTool = DEVPLUG_INFO_EXE;

CommandResult check(const std::string& plugin) {
  return run(quoted(kTool) + " --no-discovery --check " + quoted(plugin));
}

void expect_contains(const CommandResult& result, const std::string& text) {
  EXPECT_NE(result.output.find(text), std::string::npos) << "expected \"" << text << "\" in the output:\n"
                                                         << result.output;
}

TEST(DevplugInfoCheck, ValidPluginIsOk) {
  const CommandResult result = check(fixture("fixture_ok"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, "OK: the plugin loads and has devices");
  expect_contains(result, "device 0: fixture device");
  expect_contains(result, "loads it as 'fixture_ok'");
  expect_contains(result, "exports only devplug_plugin_get_api");
}

TEST(DevplugInfoCheck, ExtraExportIsAWarning) {
  const CommandResult result = check(fixture("fixture_extra_export"));
  EXPECT_EQ(result.exit_code, 0) << result.output;  // it loads and works
  expect_contains(result,
                  "warn  exports 1 symbol besides devplug_plugin_get_api (first: fixture_left_visible)");
  expect_contains(result, "devplug_add_plugin()");
}

TEST(DevplugInfoCheck, MissingFile) {
  const CommandResult result = check(std::string(DEVPLUG_FIXTURE_DIR) + "/libdevplug_nope.so");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "does not exist");
}

TEST(DevplugInfoCheck, TextFileIsNotASharedLibrary) {
  TempFolder folder;
  const std::string path = folder.path() + "/libdevplug_text.so";
  std::ofstream(path) << "just text\n";
  const CommandResult result = check(path);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "not an ELF file");
  expect_contains(result, "fix: build the plugin as a shared library");
}

TEST(DevplugInfoCheck, MissingLibraryIsNamed) {
  const CommandResult result = check(fixture("fixture_missing_dep"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "needs libdevplug_missing_dep.so, which is not found");
  expect_contains(result, "fix: ");
}

TEST(DevplugInfoCheck, MissingEntrySymbol) {
  const CommandResult result = check(fixture("fixture_no_entry"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "no exported devplug_plugin_get_api");
  expect_contains(result, "found 'devplug_plugin_get_api_v0' instead");
}

TEST(DevplugInfoCheck, EntryReturnsNull) {
  const CommandResult result = check(fixture("fixture_get_api_null"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "returns NULL");
}

TEST(DevplugInfoCheck, AbiMajorMismatchNamesBothVersionsAndTheFix) {
  const CommandResult result = check(fixture("fixture_abi_major2"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "plugin ABI 2." + std::to_string(DEVPLUG_ABI_MINOR) + " vs dispatcher ABI " +
                              std::to_string(DEVPLUG_ABI_MAJOR) + "." + std::to_string(DEVPLUG_ABI_MINOR));
  expect_contains(result,
                  "rebuild the plugin against devplug ABI " + std::to_string(DEVPLUG_ABI_MAJOR) + ".x");
}

TEST(DevplugInfoCheck, SmallTable) {
  const CommandResult result = check(fixture("fixture_small_table"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result,
                  "struct_size " + std::to_string(offsetof(devplug_plugin_api_t, kernels)) + " is too small");
}

TEST(DevplugInfoCheck, NewerMinorIsCompatible) {
  const CommandResult result = check(fixture("fixture_newer_minor"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, "newer minor");
}

TEST(DevplugInfoCheck, MinimumSizeTableBehindGuardPage) {
  const CommandResult result = check(fixture("fixture_exact_min_size"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, "struct_size " + std::to_string(DEVPLUG_PLUGIN_API_MIN_SIZE));
}

TEST(DevplugInfoCheck, InitializeFails) {
  const CommandResult result = check(fixture("fixture_init_fails"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(
      result, "plugin_initialize fails: UNAVAILABLE: fixture_init_fails: initialization failed on purpose");
}

TEST(DevplugInfoCheck, InitializeThrows) {
  const CommandResult result = check(fixture("fixture_init_throws"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "initialize threw on purpose");
}

// The loading checks run in a child process: a plugin that kills its host is reported.
TEST(DevplugInfoCheck, PluginThatAbortsIsReportedNotFatal) {
  const CommandResult result = check(fixture("fixture_init_crashes"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "the plugin crashed the process with signal " + std::to_string(SIGABRT));
  expect_contains(result, "WILL NOT LOAD");
}

TEST(DevplugInfoCheck, PluginThatHangsIsGivenUpOn) {
  const CommandResult result = run("DEVPLUG_INFO_CHECK_TIMEOUT=2 " + quoted(kTool) +
                                   " --no-discovery --check " + quoted(fixture("fixture_init_hangs")));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "the plugin did not finish within 2 s");
  expect_contains(result, "WILL NOT LOAD");
}

// Every bad plugin the tests build (the loader's fixtures here, the dispatcher's, and the
// conformance runner's plugins with injected bugs, which crash or hang inside a kernel):
// the doctor ends with exit status 0, 1 or 2 and one verdict line, and is never taken down.
TEST(DevplugInfoCheck, SurvivesEveryBadPluginFixture) {
  int checked = 0;
  for (const char* folder :
       {DEVPLUG_FIXTURE_DIR, DEVPLUG_DISPATCHER_FIXTURE_DIR, DEVPLUG_BROKEN_PLUGIN_DIR}) {
    if (!std::filesystem::is_directory(folder)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() != ".so") continue;
      const std::string path = entry.path().string();
      const CommandResult result =
          run("DEVPLUG_INFO_CHECK_TIMEOUT=2 " + quoted(kTool) + " --no-discovery --check " + quoted(path));
      ++checked;
      EXPECT_TRUE(result.exit_code >= 0 && result.exit_code <= 2) << path << ":\n" << result.output;
      int verdicts = 0;
      for (const char* verdict : {"\nOK: ", "\nNO DEVICES: ", "\nWILL NOT LOAD: "})
        for (size_t at = result.output.find(verdict); at != std::string::npos;
             at = result.output.find(verdict, at + 1))
          ++verdicts;
      EXPECT_EQ(verdicts, 1) << path << ":\n" << result.output;
    }
  }
  std::printf("[ checked  ] %d plugin files\n", checked);
  EXPECT_GE(checked, 14) << "fewer fixtures than expected were found";
}

TEST(DevplugInfoCheck, NoDeviceExitsTwoWithTheNote) {
  const CommandResult result = check(fixture("fixture_no_device"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  expect_contains(result, "zero devices: fixture: no device on purpose");
  expect_contains(result, "NO DEVICES");
}

TEST(DevplugInfoCheck, ByNameAmongLoadedPlugins) {
  const CommandResult result = run(quoted(kTool) + " --no-discovery --plugin " +
                                   quoted(fixture("fixture_ok")) + " --check fixture_ok");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, fixture("fixture_ok"));
}

TEST(DevplugInfoCheck, ByNameOfAPluginThatFailedToLoad) {
  const CommandResult result = run(quoted(kTool) + " --no-discovery --plugin " +
                                   quoted(fixture("fixture_abi_major2")) + " --check fixture_abi_major2");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "plugin ABI 2.");
}

TEST(DevplugInfoCheck, BareFileNameInTheCurrentDirectory) {
  const CommandResult result = run("cd " + quoted(DEVPLUG_FIXTURE_DIR) + " && " + quoted(kTool) +
                                   " --no-discovery --check libdevplug_fixture_ok.so");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, "loads it as 'fixture_ok'");
}

TEST(DevplugInfoCheck, UnknownName) {
  const CommandResult result = run(quoted(kTool) + " --no-discovery --check no_such_plugin");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  expect_contains(result, "no plugin named 'no_such_plugin'");
}

TEST(DevplugInfoJson, ListsPluginsDevicesKernelsAndFailures) {
  const CommandResult result =
      run(quoted(kTool) + " --json --no-discovery --plugin " + quoted(fixture("fixture_ok")) + " --plugin " +
          quoted(fixture("fixture_abi_major2")) + " --plugin " + quoted(fixture("fixture_no_device")) +
          " 2>/dev/null");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json root = nlohmann::json::parse(result.output, nullptr, false);
  ASSERT_FALSE(root.is_discarded()) << result.output;
  ASSERT_EQ(root["plugins"].size(), 2u) << result.output;
  const nlohmann::json& ok = root["plugins"][0];
  EXPECT_EQ(ok["name"], "fixture_ok");
  EXPECT_EQ(ok["path"], std::filesystem::canonical(fixture("fixture_ok")).string());
  EXPECT_EQ(ok["version"], "1.0.0-test");
  EXPECT_EQ(ok["abi"]["major"], DEVPLUG_ABI_MAJOR);
  EXPECT_EQ(ok["abi"]["minor"], DEVPLUG_ABI_MINOR);
  EXPECT_EQ(ok["opset"], DEVPLUG_OPSET_VERSION);
  EXPECT_TRUE(ok["device_note"].is_null());
  ASSERT_EQ(ok["devices"].size(), 1u);
  const nlohmann::json& device = ok["devices"][0];
  EXPECT_EQ(device["name"], "fixture device");
  EXPECT_EQ(device["vendor"], "devplug tests");
  EXPECT_EQ(device["driver_version"], "1.0");
  EXPECT_EQ(device["memory_bytes"], 1u << 20);
  EXPECT_EQ(device["compute_units"], 1);
  EXPECT_EQ(device["capabilities"], nlohmann::json({"fp64", "unified_memory"}));
  ASSERT_EQ(ok["kernels"].size(), 1u);
  EXPECT_EQ(ok["kernels"][0]["op"], "fill");
  EXPECT_EQ(ok["kernels"][0]["dtypes"], nlohmann::json({"int32", "float32"}));

  const nlohmann::json& none = root["plugins"][1];
  EXPECT_EQ(none["name"], "fixture_no_device");
  EXPECT_EQ(none["devices"].size(), 0u);
  EXPECT_EQ(none["device_note"], "fixture: no device on purpose");

  ASSERT_EQ(root["failed"].size(), 1u);
  EXPECT_EQ(std::filesystem::canonical(root["failed"][0]["path"].get<std::string>()),
            std::filesystem::canonical(fixture("fixture_abi_major2")));
  EXPECT_NE(root["failed"][0]["reason"].get<std::string>().find("plugin ABI 2."), std::string::npos);
}

TEST(DevplugInfoText, ShowsTheKernelMatrixAndFailures) {
  const CommandResult result =
      run(quoted(kTool) + " --no-discovery --plugin " + quoted(fixture("fixture_ok")) + " --plugin " +
          quoted(fixture("fixture_init_fails")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, "plugin fixture_ok 1.0.0-test");
  expect_contains(result, "kernels: 1 ops, 2 (op, dtype) pairs");
  expect_contains(result, "failed to load");
  expect_contains(result, "initialization failed on purpose");
}

}  // namespace
