// SPDX-License-Identifier: Apache-2.0
// Host API graphs on the reference plugin (devplug.h, "graphs"): the pool plan shares buffers
// between temporaries whose uses do not overlap and gives its memory back with the graph,
// the graph keeps what it uses alive after the host releases it, and get_info and launch
// check their arguments. Replay against eager on every plugin: devplug-conform's
// Abi.graph_replay and Abi.graph_misuse.
#include <vector>

#include "api_test_util.hpp"

namespace devplug::test {
namespace {

class ApiGraph : public ReferenceContext {
 protected:
  devplug_graph_info_t info_of(const devplug_graph_t* graph) {
    devplug_graph_info_t info{};
    info.struct_size = sizeof(info);
    EXPECT_TRUE(Ok(devplug_graph_get_info(graph, &info)));
    return info;
  }
  int64_t allocated_now() {
    devplug_memory_stats_t stats{};
    stats.struct_size = sizeof(stats);
    EXPECT_TRUE(Ok(devplug_device_memory_stats(device_, &stats)));
    return stats.allocations.current;
  }
  // A chain x -> neg -> neg ... (`length` ops) on a capturing stream; each intermediate is
  // released right after its one use, the last one is copied into `out`.
  void chain(devplug_tensor_t* x, devplug_tensor_t* out, int length) {
    devplug_tensor_t* value = x;
    for (int i = 0; i < length; ++i) {
      devplug_tensor_t* next = nullptr;
      ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_neg, &value, 1, &next)));
      if (value != x) devplug_tensor_release(value);
      value = next;
    }
    ASSERT_TRUE(Ok(devplug_tensor_copy(stream_, out, value)));
    devplug_tensor_release(value);
  }
};

TEST_F(ApiGraph, TemporariesOfAChainShareTwoPoolBuffers) {
  devplug_tensor_t* x = floats({1000}, std::vector<float>(1000, 1.5f));
  devplug_tensor_t* out = make(DEVPLUG_DTYPE_FLOAT32, {1000});
  const int64_t before = allocated_now();
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(stream_)));
  chain(x, out, 9);
  devplug_graph_t* graph = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_end_capture(stream_, &graph)));
  const devplug_graph_info_t info = info_of(graph);
  EXPECT_EQ(info.kernel_nodes, 9u);
  EXPECT_EQ(info.copy_nodes, 1u);
  EXPECT_EQ(info.temporaries, 9u);
  // Value k is written by op k and read by op k + 1: k and k + 2 never meet.
  EXPECT_EQ(info.pool_buffers, 2u);
  EXPECT_EQ(info.temporary_bytes, 9u * 4000u);
  EXPECT_LT(info.pool_bytes, info.temporary_bytes);
  EXPECT_EQ(allocated_now(), before + 2);  // the pool's two buffers, nothing else

  ASSERT_TRUE(Ok(devplug_graph_launch(graph, stream_, nullptr)));
  EXPECT_EQ(download<float>(out), std::vector<float>(1000, -1.5f));  // nine negations
  std::vector<float> two(1000, 2.0f);
  ASSERT_TRUE(Ok(devplug_tensor_copy_from_host(stream_, x, two.data(), 4000, DEVPLUG_COPY_BLOCKING)));
  ASSERT_TRUE(Ok(devplug_graph_launch(graph, stream_, nullptr)));
  EXPECT_EQ(download<float>(out), std::vector<float>(1000, -2.0f));
  EXPECT_EQ(info_of(graph).launches, 2u);
  ASSERT_TRUE(Ok(devplug_graph_destroy(graph)));
  EXPECT_EQ(allocated_now(), before);
}

TEST_F(ApiGraph, TheGraphKeepsReleasedTensorsAlive) {
  devplug_tensor_t* x = floats({4}, {1, 2, 3, 4});
  devplug_tensor_t* out = make(DEVPLUG_DTYPE_FLOAT32, {4});
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(stream_)));
  devplug_tensor_t* in[2] = {x, x};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_add, in, 2, &out, 1, nullptr)));
  devplug_graph_t* graph = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_end_capture(stream_, &graph)));
  const int64_t held = allocated_now();
  devplug_tensor_release(x);  // the graph still reads x's storage
  EXPECT_EQ(allocated_now(), held);
  ASSERT_TRUE(Ok(devplug_graph_launch(graph, stream_, nullptr)));
  EXPECT_EQ(download<float>(out), (std::vector<float>{2, 4, 6, 8}));
  ASSERT_TRUE(Ok(devplug_graph_destroy(graph)));
  EXPECT_EQ(allocated_now(), held - 1);
}

TEST_F(ApiGraph, ARandomCallDrawsNewNumbersOnEachLaunchOrAtTheShiftGiven) {
  devplug_tensor_t* out = make(DEVPLUG_DTYPE_FLOAT32, {8});
  auto draw = [&](uint64_t offset) {
    devplug_philox_attrs_t attrs{sizeof(attrs), 42, offset};
    EXPECT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_philox_uniform, nullptr, 0, &out, 1, &attrs)));
  };
  std::vector<std::vector<float>> eager;
  for (uint64_t k = 0; k < 3; ++k) {
    draw(10 + 2 * k);  // eight floats: eight words, two blocks
    eager.push_back(download<float>(out));
  }
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(stream_)));
  draw(10);
  devplug_graph_t* graph = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_end_capture(stream_, &graph)));
  EXPECT_EQ(info_of(graph).philox_blocks, 2u);
  for (size_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(Ok(devplug_graph_launch(graph, stream_, nullptr)));
    EXPECT_EQ(download<float>(out), eager[k]) << "launch " << k;
  }
  devplug_graph_launch_options_t options{sizeof(options), DEVPLUG_GRAPH_LAUNCH_PHILOX_SHIFT, 2};
  ASSERT_TRUE(Ok(devplug_graph_launch(graph, stream_, &options)));
  EXPECT_EQ(download<float>(out), eager[1]);
  ASSERT_TRUE(Ok(devplug_graph_destroy(graph)));
}

TEST_F(ApiGraph, OnlyTheAttributesAnOpHasAreRecorded) {
  devplug_tensor_t* x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  devplug_tensor_t* sum = make(DEVPLUG_DTYPE_FLOAT32, {2, 1});
  devplug_tensor_t* twice = make(DEVPLUG_DTYPE_FLOAT32, {2, 3});
  // add takes no attributes: whatever the pointer holds is not read, eagerly or recorded.
  const size_t not_attrs[1] = {size_t{1} << 40};
  // A reduce attrs struct inside a larger one, as a newer caller's would be.
  struct {
    devplug_reduce_attrs_t attrs;
    double appended;
  } newer{{sizeof(newer), 2u, 0.0}, 7.0};
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(stream_)));
  devplug_tensor_t* in[2] = {x, x};
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_add, in, 2, &twice, 1, not_attrs)));
  ASSERT_TRUE(Ok(devplug_op_call(stream_, DEVPLUG_OP_sum, &x, 1, &sum, 1, &newer)));
  devplug_graph_t* graph = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_end_capture(stream_, &graph)));
  ASSERT_TRUE(Ok(devplug_graph_launch(graph, stream_, nullptr)));
  EXPECT_EQ(download<float>(twice), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(download<float>(sum), (std::vector<float>{6, 15}));
  ASSERT_TRUE(Ok(devplug_graph_destroy(graph)));
}

TEST_F(ApiGraph, AHostExportEndsTheCaptureOfItsThread) {
  devplug_tensor_t* x = floats({3}, {1, 2, 3});
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(stream_)));
  DLManagedTensorVersioned* managed = nullptr;
  EXPECT_TRUE(Fails(devplug_tensor_to_dlpack(x, DEVPLUG_DLPACK_HOST, &managed),
                    DEVPLUG_CODE_FAILED_PRECONDITION, "DLPack export to the host"));
  EXPECT_EQ(managed, nullptr);
  bool capturing = true;
  EXPECT_TRUE(Ok(devplug_stream_is_capturing(stream_, &capturing)));
  EXPECT_FALSE(capturing);
}

TEST_F(ApiGraph, BadArgumentsAreRefused) {
  devplug_graph_t* graph = nullptr;
  EXPECT_TRUE(Invalid(devplug_stream_begin_capture(nullptr), "stream is NULL"));
  EXPECT_TRUE(Invalid(devplug_stream_end_capture(stream_, nullptr), "out_graph is NULL"));
  bool capturing = true;
  EXPECT_TRUE(Invalid(devplug_stream_is_capturing(stream_, nullptr), "out_capturing is NULL"));
  EXPECT_TRUE(Ok(devplug_stream_is_capturing(stream_, &capturing)));
  EXPECT_FALSE(capturing);
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(stream_)));
  ASSERT_TRUE(Ok(devplug_stream_end_capture(stream_, &graph)));
  devplug_graph_info_t small{};
  small.struct_size = sizeof(small) - 8;
  EXPECT_TRUE(Invalid(devplug_graph_get_info(graph, &small), "out_info->struct_size"));
  EXPECT_TRUE(Invalid(devplug_graph_get_info(graph, nullptr), "out_info is NULL"));
  devplug_graph_launch_options_t options{8, 0, 0};
  EXPECT_TRUE(Invalid(devplug_graph_launch(graph, stream_, &options), "options->struct_size"));
  EXPECT_TRUE(Invalid(devplug_graph_launch(nullptr, stream_, nullptr), "graph is NULL"));
  EXPECT_TRUE(Invalid(devplug_graph_launch(graph, nullptr, nullptr), "stream is NULL"));
  EXPECT_TRUE(Invalid(devplug_graph_launch(reinterpret_cast<devplug_graph_t*>(stream_), stream_, nullptr),
                      "graph is not a live graph handle"));
  EXPECT_TRUE(Ok(devplug_graph_destroy(nullptr)));
  EXPECT_TRUE(Ok(devplug_graph_destroy(graph)));
}

TEST_F(ApiGraph, TheContextFreesGraphsAndCapturesTheHostLeft) {
  devplug_tensor_t* x = floats({4}, {1, 2, 3, 4});
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(stream_)));
  devplug_tensor_t* in[2] = {x, x};
  devplug_tensor_t* r = nullptr;
  ASSERT_TRUE(Ok(devplug_elementwise(stream_, DEVPLUG_OP_mul, in, 2, &r)));
  devplug_graph_t* graph = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_end_capture(stream_, &graph)));
  devplug_stream_t* other = nullptr;
  ASSERT_TRUE(Ok(devplug_stream_create(device_, &other)));
  ASSERT_TRUE(Ok(devplug_stream_begin_capture(other)));
  ASSERT_TRUE(Ok(devplug_elementwise(other, DEVPLUG_OP_add, in, 2, &r)));
  // TearDown destroys the context with both left: the sanitizer builds see any leak.
}

}  // namespace
}  // namespace devplug::test
