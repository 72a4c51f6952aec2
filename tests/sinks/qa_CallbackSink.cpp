// CallbackSink: each call reaches the application's function, items are counted, the end is
// reported once with how the run ended, abort() never throws, and it takes the kind it was made
// for only.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "sinks/callback_sink.hpp"

namespace prism {
namespace {

TEST(CallbackSink, HandsOverTheDescriptionTheChunksAndTheEnd) {
  SpectrumLayout layout;
  layout.columns = 2;
  layout.frequencies = {0, 1};
  std::size_t begun_columns = 0;
  std::vector<float> received;
  std::vector<std::uint64_t> first_rows;
  std::vector<CallbackSink::End> ends;
  CallbackSink sink(PortKind::rows,
                    {.on_begin = [&](const PortDescription& d) { begun_columns = d.rows.columns; },
                     .on_chunk =
                         [&](const Chunk& c) {
                           received.insert(received.end(), c.as<float>(), c.as<float>() + 2 * c.items);
                           first_rows.push_back(c.first_item);
                         },
                     .on_end = [&](CallbackSink::End how) { ends.push_back(how); }},
                    "peak tracker");
  EXPECT_TRUE(sink.accepts(PortKind::rows));
  EXPECT_FALSE(sink.accepts(PortKind::samples));
  sink.begin(PortDescription::of_rows(layout));
  const float batch1[] = {1, 2, 3, 4};
  const float batch2[] = {5, 6};
  sink.write(chunk_view(batch1, 2, 2 * sizeof(float), 0));
  sink.write(chunk_view(batch2, 1, 2 * sizeof(float), 2));
  sink.finish(true);
  EXPECT_EQ(begun_columns, 2u);
  EXPECT_EQ(received, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(first_rows, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(sink.items_written(), 3u);
  EXPECT_EQ(ends, std::vector<CallbackSink::End>{CallbackSink::End::completed});
  EXPECT_EQ(sink.describe(), "peak tracker");
}

TEST(CallbackSink, SaysHowTheRunEnded) {
  std::vector<CallbackSink::End> ends;
  CallbackSink interrupted(PortKind::samples, {.on_end = [&](CallbackSink::End how) { ends.push_back(how); }});
  interrupted.finish(false);
  CallbackSink failed(PortKind::samples, {.on_end = [&](CallbackSink::End how) {
                        ends.push_back(how);
                        throw std::runtime_error("the application's own failure");
                      }});
  EXPECT_NO_THROW(failed.abort());
  EXPECT_EQ(ends, (std::vector<CallbackSink::End>{CallbackSink::End::interrupted, CallbackSink::End::failed}));
}

TEST(CallbackSink, FunctionsLeftOutAreSkippedAndAThrowReachesTheRun) {
  CallbackSink quiet(PortKind::rows, {});
  const float row[] = {1};
  quiet.begin(PortDescription::of_rows(SpectrumLayout{}));
  quiet.write(chunk_view(row, 1, sizeof(float), 0));
  quiet.finish(true);
  EXPECT_EQ(quiet.items_written(), 1u);
  CallbackSink throwing(PortKind::rows, {.on_chunk = [](const Chunk&) { throw std::runtime_error("disk full"); }});
  EXPECT_THROW(throwing.write(chunk_view(row, 1, sizeof(float), 0)), std::runtime_error);  // the graph fails the run
  EXPECT_EQ(throwing.describe(), "callback");
}

}  // namespace
}  // namespace prism
