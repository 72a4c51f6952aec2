// CallbackSink: each RowSink call reaches the application's function, rows are counted, the end
// is reported once with how the run ended, and abort() never throws.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "sinks/callback_sink.hpp"

namespace prism {
namespace {

TEST(CallbackSink, HandsOverTheLayoutTheRowsAndTheEnd) {
  SpectrumLayout layout;
  layout.columns = 2;
  layout.frequencies = {0, 1};
  std::size_t begun_columns = 0;
  std::vector<float> received;
  std::vector<std::uint64_t> first_rows;
  std::vector<CallbackSink::End> ends;
  CallbackSink sink({.on_begin = [&](const SpectrumLayout& l) { begun_columns = l.columns; },
                     .on_rows =
                         [&](const float* rows, std::size_t count, std::uint64_t first_row) {
                           received.insert(received.end(), rows, rows + 2 * count);
                           first_rows.push_back(first_row);
                         },
                     .on_end = [&](CallbackSink::End how) { ends.push_back(how); }},
                    "peak tracker");
  sink.begin(layout);
  const float batch1[] = {1, 2, 3, 4};
  const float batch2[] = {5, 6};
  sink.write(batch1, 2, 0);
  sink.write(batch2, 1, 2);
  sink.finish(true);
  EXPECT_EQ(begun_columns, 2u);
  EXPECT_EQ(received, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(first_rows, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(sink.rows_written(), 3u);
  EXPECT_EQ(ends, std::vector<CallbackSink::End>{CallbackSink::End::completed});
  EXPECT_EQ(sink.describe(), "peak tracker");
}

TEST(CallbackSink, SaysHowTheRunEnded) {
  std::vector<CallbackSink::End> ends;
  CallbackSink interrupted({.on_end = [&](CallbackSink::End how) { ends.push_back(how); }});
  interrupted.finish(false);
  CallbackSink failed({.on_end = [&](CallbackSink::End how) {
    ends.push_back(how);
    throw std::runtime_error("the application's own failure");
  }});
  EXPECT_NO_THROW(failed.abort());
  EXPECT_EQ(ends, (std::vector<CallbackSink::End>{CallbackSink::End::interrupted, CallbackSink::End::failed}));
}

TEST(CallbackSink, FunctionsLeftOutAreSkippedAndAThrowReachesTheRun) {
  CallbackSink quiet({});
  const float row[] = {1};
  quiet.begin(SpectrumLayout{});
  quiet.write(row, 1, 0);
  quiet.finish(true);
  EXPECT_EQ(quiet.rows_written(), 1u);
  CallbackSink throwing({.on_rows = [](const float*, std::size_t, std::uint64_t) {
    throw std::runtime_error("disk full");
  }});
  EXPECT_THROW(throwing.write(row, 1, 0), std::runtime_error);  // the pipeline fails the run with it
  EXPECT_EQ(throwing.describe(), "callback");
}

}  // namespace
}  // namespace prism
