// SPDX-License-Identifier: Apache-2.0
// DLPack export and import through devplug.h on the reference plugin (host memory): both
// forms, storage shared in both directions, views and strides, every dtype's DLDataType,
// what a consumer may change before importing, deleters (also after the context is gone),
// and the exact error of each bad argument.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "api_test_util.hpp"
#include "dlpack_abi.hpp"

namespace devplug::test {
namespace {

class ApiDlpack : public ReferenceContext {
 protected:
  // A [3, 4] float32 tensor holding 0..11.
  devplug_tensor_t* iota() {
    std::vector<float> v(12);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
    return floats({3, 4}, v);
  }
  DLManagedTensorVersioned* to_dlpack(const devplug_tensor_t* t, uint32_t flags = 0) {
    DLManagedTensorVersioned* managed = nullptr;
    EXPECT_TRUE(Ok(devplug_tensor_to_dlpack(t, flags, &managed)));
    return managed;
  }
  devplug_tensor_t* from_dlpack(DLManagedTensorVersioned* managed) {
    devplug_tensor_t* t = nullptr;
    EXPECT_TRUE(Ok(devplug_tensor_from_dlpack(managed, &t)));
    return t;
  }
  int64_t live_allocations() {
    devplug_memory_stats_t stats{};
    stats.struct_size = sizeof(stats);
    EXPECT_TRUE(Ok(devplug_device_memory_stats(device_, &stats)));
    return stats.allocations.current;
  }
};

TEST_F(ApiDlpack, ExtDevExportDescribesTheTensorAndSharesItsStorage) {
  devplug_tensor_t* t = iota();
  devplug_tensor_t* transposed = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_transpose(t, 0, 1, &transposed)));
  DLManagedTensorVersioned* managed = to_dlpack(transposed);
  ASSERT_NE(managed, nullptr);
  EXPECT_EQ(managed->version.major, 1u);
  EXPECT_EQ(managed->version.minor, 0u);
  EXPECT_EQ(managed->flags, 0u);
  const DLTensor& dl = managed->dl_tensor;
  EXPECT_EQ(dl.device.device_type, kDLExtDev);
  EXPECT_EQ(dl.device.device_id, 0);
  EXPECT_EQ(dl.data, describe(t).buffer);
  EXPECT_EQ(dl.byte_offset, 0u);
  EXPECT_EQ(dl.dtype.code, kDLFloat);
  EXPECT_EQ(dl.dtype.bits, 32);
  EXPECT_EQ(dl.dtype.lanes, 1);
  ASSERT_EQ(dl.ndim, 2);
  EXPECT_EQ(std::vector<int64_t>(dl.shape, dl.shape + 2), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 2), (std::vector<int64_t>{1, 4}));

  // The export holds the storage: released tensors leave it alive until the import.
  devplug_tensor_release(transposed);
  devplug_tensor_release(t);
  devplug_tensor_t* back = from_dlpack(managed);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(shape_of(back), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(strides_of(back), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(download<float>(back), (std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  devplug_tensor_release(back);
}

TEST_F(ApiDlpack, ImportedTensorWritesTheExportedStorage) {
  devplug_tensor_t* t = iota();
  devplug_tensor_t* back = from_dlpack(to_dlpack(t));
  ASSERT_NE(back, nullptr);
  std::vector<float> minus(12);
  for (size_t i = 0; i < minus.size(); ++i) minus[i] = -static_cast<float>(i);
  ASSERT_TRUE(Ok(devplug_tensor_copy_from_host(nullptr, back, minus.data(), 48, DEVPLUG_COPY_BLOCKING)));
  EXPECT_EQ(download<float>(t), minus);
}

TEST_F(ApiDlpack, HostFormIsTheTensorsHostMemory) {
  devplug_tensor_t* t = iota();
  devplug_tensor_t* row = nullptr;  // row 1, columns 1..3: an offset and a stride
  ASSERT_TRUE(Ok(devplug_tensor_slice(t, 0, 1, 2, 1, &row)));
  devplug_tensor_t* part = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_slice(row, 1, 1, 4, 2, &part)));
  DLManagedTensorVersioned* managed = to_dlpack(part, DEVPLUG_DLPACK_HOST | DEVPLUG_DLPACK_READ_ONLY);
  ASSERT_NE(managed, nullptr);
  EXPECT_EQ(managed->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
  const DLTensor& dl = managed->dl_tensor;
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  EXPECT_EQ(dl.device.device_id, 0);
  EXPECT_EQ(dl.byte_offset, 0u);
  void* address = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_host_address(part, &address)));
  EXPECT_EQ(dl.data, address);
  ASSERT_EQ(dl.ndim, 2);
  EXPECT_EQ(std::vector<int64_t>(dl.shape, dl.shape + 2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 2), (std::vector<int64_t>{4, 2}));
  const auto* values = static_cast<const float*>(dl.data);
  EXPECT_EQ(values[0], 5.0f);
  EXPECT_EQ(values[dl.strides[1]], 7.0f);
  managed->deleter(managed);

  // Writable host memory: the host's writes are the tensor's elements.
  managed = to_dlpack(part, DEVPLUG_DLPACK_HOST);
  ASSERT_NE(managed, nullptr);
  EXPECT_EQ(managed->flags, 0u);
  auto* writable = static_cast<float*>(managed->dl_tensor.data);
  writable[0] = 50.0f;
  writable[managed->dl_tensor.strides[1]] = 70.0f;
  EXPECT_EQ(download<float>(t), (std::vector<float>{0, 1, 2, 3, 4, 50, 6, 70, 8, 9, 10, 11}));
  // The host form comes back in as a view of the same storage.
  devplug_tensor_t* back = from_dlpack(managed);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(describe(back).byte_offset, 5 * sizeof(float));
  EXPECT_EQ(download<float>(back), (std::vector<float>{50, 70}));
}

TEST_F(ApiDlpack, HostFormWaitsForTheDevicesWork) {
  const int64_t n = int64_t{1} << 20;
  devplug_tensor_t* t = make(DEVPLUG_DTYPE_FLOAT32, {n});
  const std::vector<float> ones(static_cast<size_t>(n), 1.0f);
  // Not blocking: the export must synchronize before the host reads.
  ASSERT_TRUE(Ok(devplug_tensor_copy_from_host(stream_, t, ones.data(), n * sizeof(float), 0)));
  DLManagedTensorVersioned* managed = to_dlpack(t, DEVPLUG_DLPACK_HOST);
  ASSERT_NE(managed, nullptr);
  const auto* values = static_cast<const float*>(managed->dl_tensor.data);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[n - 1], 1.0f);
  managed->deleter(managed);
}

TEST_F(ApiDlpack, AConsumerMayReshapeAndMoveTheStartBeforeImporting) {
  devplug_tensor_t* t = iota();
  DLManagedTensorVersioned* managed = to_dlpack(t);
  ASSERT_NE(managed, nullptr);
  // Rows 1 and 2, columns 2 and 3 (a consumer's slice), through both data and byte_offset.
  DLTensor& dl = managed->dl_tensor;
  dl.data = static_cast<unsigned char*>(dl.data) + 4 * sizeof(float);
  dl.byte_offset = 2 * sizeof(float);
  dl.shape[0] = 2;
  dl.shape[1] = 2;
  devplug_tensor_t* corner = from_dlpack(managed);
  ASSERT_NE(corner, nullptr);
  EXPECT_EQ(download<float>(corner), (std::vector<float>{6, 7, 10, 11}));

  // NULL strides: compact row-major. And a dtype of the same bytes read another way.
  managed = to_dlpack(t);
  ASSERT_NE(managed, nullptr);
  managed->dl_tensor.strides = nullptr;
  managed->dl_tensor.dtype = {kDLInt, 32, 1};
  managed->dl_tensor.shape[0] = 12;
  managed->dl_tensor.ndim = 1;
  devplug_tensor_t* bits = from_dlpack(managed);
  ASSERT_NE(bits, nullptr);
  const std::vector<int32_t> words = download<int32_t>(bits);
  ASSERT_EQ(words.size(), 12u);
  float three = 0;
  std::memcpy(&three, &words[3], sizeof three);
  EXPECT_EQ(three, 3.0f);
}

TEST_F(ApiDlpack, EveryDtypeHasItsDLDataType) {
  struct Expected {
    devplug_dtype_t dtype;
    uint8_t code;
    uint8_t bits;
  };
  const Expected expected[] = {
      {DEVPLUG_DTYPE_BOOL, devplug::detail::kDLPackBool, 8},
      {DEVPLUG_DTYPE_UINT8, kDLUInt, 8},
      {DEVPLUG_DTYPE_INT8, kDLInt, 8},
      {DEVPLUG_DTYPE_INT16, kDLInt, 16},
      {DEVPLUG_DTYPE_INT32, kDLInt, 32},
      {DEVPLUG_DTYPE_INT64, kDLInt, 64},
      {DEVPLUG_DTYPE_FLOAT16, kDLFloat, 16},
      {DEVPLUG_DTYPE_BFLOAT16, kDLBfloat, 16},
      {DEVPLUG_DTYPE_FLOAT32, kDLFloat, 32},
      {DEVPLUG_DTYPE_FLOAT64, kDLFloat, 64},
  };
  static_assert(sizeof expected / sizeof expected[0] == DEVPLUG_DTYPE_COUNT);
  for (const Expected& e : expected) {
    SCOPED_TRACE(devplug_dtype_name(e.dtype));
    devplug_tensor_t* t = make(e.dtype, {5});
    DLManagedTensorVersioned* managed = to_dlpack(t);
    ASSERT_NE(managed, nullptr);
    EXPECT_EQ(managed->dl_tensor.dtype.code, e.code);
    EXPECT_EQ(managed->dl_tensor.dtype.bits, e.bits);
    EXPECT_EQ(managed->dl_tensor.dtype.lanes, 1);
    devplug_tensor_t* back = from_dlpack(managed);
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(describe(back).dtype, e.dtype);
  }
}

TEST_F(ApiDlpack, TheDeleterFreesTheStorageWithItsLastHolder) {
  const int64_t before = live_allocations();
  devplug_tensor_t* t = iota();
  DLManagedTensorVersioned* managed = to_dlpack(t);
  ASSERT_NE(managed, nullptr);
  devplug_tensor_release(t);
  EXPECT_EQ(live_allocations(), before + 1) << "the export keeps the storage";
  managed->deleter(managed);
  EXPECT_EQ(live_allocations(), before);
}

TEST(ApiDlpackContext, DeletersRunAfterTheContextIsDestroyed) {
  devplug_context_t* context = nullptr;
  devplug_device_t* device = nullptr;
  ASSERT_TRUE(OpenPlugin(DEVPLUG_REFERENCE_PLUGIN_PATH, &context, &device));
  const int64_t n = 16;
  devplug_tensor_t* t = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_create(device, DEVPLUG_DTYPE_INT32, 1, &n, &t)));
  DLManagedTensorVersioned* ext = nullptr;
  DLManagedTensorVersioned* host = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_to_dlpack(t, 0, &ext)));
  ASSERT_TRUE(Ok(devplug_tensor_to_dlpack(t, DEVPLUG_DLPACK_HOST, &host)));
  devplug_context_destroy(context);  // frees the tensor, its storage and the exports' views
  devplug_tensor_t* back = poison<devplug_tensor_t>();
  EXPECT_TRUE(Invalid(devplug_tensor_from_dlpack(ext, &back), "context destroyed"));
  EXPECT_EQ(back, nullptr);
  ext->deleter(ext);  // frees the managed tensor only (the sanitizer jobs check no more)
  host->deleter(host);
}

TEST_F(ApiDlpack, ExportErrors) {
  devplug_tensor_t* t = iota();
  DLManagedTensorVersioned* managed = poison<DLManagedTensorVersioned>();
  EXPECT_TRUE(Invalid(devplug_tensor_to_dlpack(t, 0, nullptr), "out_managed is NULL"));
  EXPECT_TRUE(Invalid(devplug_tensor_to_dlpack(nullptr, 0, &managed), "tensor is NULL"));
  EXPECT_EQ(managed, nullptr);
  EXPECT_TRUE(Invalid(devplug_tensor_to_dlpack(reinterpret_cast<devplug_tensor_t*>(stream_), 0, &managed),
                      "not a live tensor"));
  EXPECT_TRUE(Invalid(devplug_tensor_to_dlpack(t, 4, &managed), "unknown bits 4"));
  EXPECT_EQ(managed, nullptr);
}

#ifdef DEVPLUG_FIXTURE_PLUGIN_PATH
// The fixture plugin offers no host_address extension: the host form is UNIMPLEMENTED there,
// while the kDLExtDev form round-trips as on every plugin.
TEST(ApiDlpackFixture, HostFormNeedsTheHostAddressExtension) {
  devplug_context_t* context = nullptr;
  devplug_device_t* device = nullptr;
  ASSERT_TRUE(OpenPlugin(DEVPLUG_FIXTURE_PLUGIN_PATH, &context, &device));
  const int64_t n = 4;
  devplug_tensor_t* t = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_create(device, DEVPLUG_DTYPE_FLOAT32, 1, &n, &t)));
  DLManagedTensorVersioned* managed = poison<DLManagedTensorVersioned>();
  EXPECT_TRUE(Fails(devplug_tensor_to_dlpack(t, DEVPLUG_DLPACK_HOST, &managed), DEVPLUG_CODE_UNIMPLEMENTED,
                    "host_address extension"));
  EXPECT_EQ(managed, nullptr);
  ASSERT_TRUE(Ok(devplug_tensor_to_dlpack(t, 0, &managed)));
  devplug_tensor_t* back = nullptr;
  ASSERT_TRUE(Ok(devplug_tensor_from_dlpack(managed, &back)));
  devplug_context_destroy(context);
}
#endif

// A managed tensor devplug did not make, with the DLPack 1.0 layout.
struct Foreign {
  DLManagedTensorVersioned managed{};
  int64_t shape[1] = {4};
  float data[4] = {1, 2, 3, 4};
  int deleted = 0;
};

TEST_F(ApiDlpack, ImportErrorsLeaveTheManagedTensorToTheCaller) {
  devplug_tensor_t* out = poison<devplug_tensor_t>();
  EXPECT_TRUE(Invalid(devplug_tensor_from_dlpack(nullptr, &out), "managed is NULL"));
  EXPECT_EQ(out, nullptr);

  Foreign foreign;
  foreign.managed.version = {1, 0};
  foreign.managed.manager_ctx = &foreign;
  foreign.managed.deleter = [](DLManagedTensorVersioned* self) {
    ++static_cast<Foreign*>(self->manager_ctx)->deleted;
  };
  foreign.managed.dl_tensor = {foreign.data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, foreign.shape, nullptr, 0};
  EXPECT_TRUE(Invalid(devplug_tensor_from_dlpack(&foreign.managed, nullptr), "out_tensor is NULL"));
  EXPECT_TRUE(
      Invalid(devplug_tensor_from_dlpack(&foreign.managed, &out), "not made by devplug_tensor_to_dlpack"));
  foreign.managed.version = {2, 0};
  EXPECT_TRUE(Invalid(devplug_tensor_from_dlpack(&foreign.managed, &out), "major version 2"));
  EXPECT_EQ(foreign.deleted, 0);

  devplug_tensor_t* t = iota();
  // Each case changes one thing of a fresh export; the export is still the caller's after.
  const auto refused = [&](const char* part, auto&& change) {
    DLManagedTensorVersioned* managed = to_dlpack(t);
    if (managed == nullptr) return ::testing::AssertionFailure() << "no export";
    change(*managed);
    devplug_tensor_t* result = poison<devplug_tensor_t>();
    ::testing::AssertionResult r = Invalid(devplug_tensor_from_dlpack(managed, &result), part);
    if (r && result != nullptr) r = ::testing::AssertionFailure() << "out_tensor was not cleared";
    managed->deleter(managed);
    return r;
  };
  EXPECT_TRUE(refused("read-only", [](auto& m) { m.flags |= DLPACK_FLAG_BITMASK_READ_ONLY; }));
  EXPECT_TRUE(refused("is not the export's", [](auto& m) { m.dl_tensor.device = {kDLCPU, 0}; }));
  EXPECT_TRUE(refused("is not the export's", [](auto& m) { m.dl_tensor.device.device_id = 1; }));
  EXPECT_TRUE(refused("no dtype (code 5, bits 64, lanes 1)", [](auto& m) {
    m.dl_tensor.dtype = {5, 64, 1};
  }));
  EXPECT_TRUE(refused("lanes 4", [](auto& m) { m.dl_tensor.dtype.lanes = 4; }));
  EXPECT_TRUE(refused("ndim 9", [](auto& m) { m.dl_tensor.ndim = 9; }));
  EXPECT_TRUE(refused("ndim -1", [](auto& m) { m.dl_tensor.ndim = -1; }));
  EXPECT_TRUE(refused("shape is NULL", [](auto& m) { m.dl_tensor.shape = nullptr; }));
  EXPECT_TRUE(refused("dims must be >= 0", [](auto& m) { m.dl_tensor.shape[0] = -3; }));
  EXPECT_TRUE(refused("before its storage",
                      [](auto& m) { m.dl_tensor.data = static_cast<unsigned char*>(m.dl_tensor.data) - 4; }));
  EXPECT_TRUE(refused("boundary of its 4-byte elements", [](auto& m) { m.dl_tensor.byte_offset = 2; }));
  EXPECT_TRUE(refused("outside a storage", [](auto& m) { m.dl_tensor.shape[0] = 4; }));
  EXPECT_TRUE(refused("outside a storage", [](auto& m) { m.dl_tensor.byte_offset = 4; }));
  // The tensor is untouched by it all.
  EXPECT_EQ(download<float>(t), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

}  // namespace
}  // namespace devplug::test
