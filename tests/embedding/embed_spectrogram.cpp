// Embedding prism: a program of its own that feeds its samples through prism's streaming
// spectrogram and receives the rows by callback. What it shows:
//   - a Source of the application's own (here: samples it computes, a tone that steps from
//     1 kHz to 3 kHz halfway), with the StreamInfo that tells prism what they are;
//   - the spectrogram stage for the best backend here (the GPU when one can be set up, else
//     the CPU), chosen as `prism spectrogram` chooses it;
//   - a CallbackSink that keeps the strongest frequency of every row;
//   - a Graph that connects them, its run, its RunReport and the summary prism prints;
//   - the same spectrogram as a synchronous streaming object (prism::Spectrogram) in a loop of
//     the program's own, fed blocks of 1000 samples: the same rows, bit for bit.
// It checks what it computed (exit 0 when the strongest frequency is 1 kHz in the first half
// of the rows and 3 kHz in the second, and the accounting balances), so the test suite runs it.
//
// Build it against an installed prism (find_package(prism CONFIG REQUIRED), then
// target_link_libraries(your_app PRIVATE prism::prism); or `pkg-config --cflags --libs prism`)
// or against prism's source tree (add_subdirectory(prism), the same target). The test suite does
// all three (tests/embedding).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <prism/prism.hpp>

namespace {

constexpr double kRate = 8000;
constexpr std::size_t kSamples = 4 * 8000;  // 4 s

// The application's own samples: real f32, a tone at 1 kHz for 2 s, then at 3 kHz.
class SteppedTone final : public prism::Source {
 public:
  SteppedTone() {
    info_.format = prism::SampleFormat::f32;
    info_.sample_rate = kRate;
    info_.length = kSamples;  // known in advance: prism shows progress against it
  }
  const prism::StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    const std::size_t n = std::min(max_samples, kSamples - next_);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = next_ + i;
      const double f = k < kSamples / 2 ? 1000.0 : 3000.0;
      const auto v = static_cast<float>(0.5 * std::sin(2 * M_PI * f * static_cast<double>(k) / kRate));
      std::memcpy(dst + i * sizeof(float), &v, sizeof v);
    }
    next_ += n;
    return n;  // 0: the input has ended
  }
  std::string describe() const override { return "stepped tone"; }

 private:
  prism::StreamInfo info_;
  std::size_t next_ = 0;
};

}  // namespace

int main() {
  try {
    SteppedTone source;

    prism::SpectrogramParams params;
    params.window = prism::parse_window("hann");
    params.nperseg = 400;  // 20 Hz bins at 8 kHz
    params.noverlap = 200;
    params.nfft = 400;
    params.validate();

    prism::StageEnvironment environment;  // automatic: the GPU when one can be set up, else the CPU
    prism::MadeStage made = prism::make_spectrogram_stage(params, environment);
    if (!made.note.empty()) std::printf("note: %s\n", made.note.c_str());

    prism::SpectrumLayout layout;   // what the rows mean: frequencies, row times, unit
    std::vector<double> strongest;  // Hz, one per row
    std::vector<float> graph_rows;  // every row, for the comparison with the streaming object
    bool completed = false;
    prism::CallbackSink sink(
        prism::PortKind::rows,
        {
            .on_begin = [&](const prism::PortDescription& input) { layout = input.rows; },
            .on_chunk =
                [&](const prism::Chunk& chunk) {
                  for (std::size_t r = 0; r < chunk.items; ++r) {
                    const float* row = chunk.as<float>() + r * layout.columns;
                    const std::size_t peak = std::max_element(row, row + layout.columns) - row;
                    if (strongest.size() != chunk.first_item + r) throw std::runtime_error("rows out of order");
                    strongest.push_back(layout.frequencies[peak]);
                    graph_rows.insert(graph_rows.end(), row, row + layout.columns);
                  }
                },
            .on_end = [&](prism::CallbackSink::End how) { completed = how == prism::CallbackSink::End::completed; },
        });

    // source -> spectrogram -> sink; on a GPU the graph adds the copies to and from the device.
    prism::Graph graph;
    const prism::Graph::Node input = graph.add_source(source);
    const prism::Graph::Node spectrogram = graph.add_stage(std::move(made.stage));
    graph.connect(input, spectrogram);
    graph.connect(spectrogram, graph.add_sink(sink));
    prism::RunConfig config;
    config.block_samples = 4096;
    prism::StopToken stop;
    const prism::RunReport report = graph.run(config, stop);
    std::fputs(prism::format_run_summary(report).c_str(), stdout);
    if (report.outcome != prism::RunOutcome::completed || !completed) {
      std::fprintf(stderr, "the run did not complete: %s\n", report.error.c_str());
      return 1;
    }

    const std::size_t rows = strongest.size();
    std::printf("%zu rows; strongest frequency: row 0 %.0f Hz, row %zu %.0f Hz\n", rows, strongest.front(),
                rows - 1, strongest.back());
    // Rows that straddle the step are left out of the check.
    for (std::size_t r = 0; r < rows; ++r) {
      const double time = layout.row_time(r);  // the centre of the row's frame, s
      const double expected = time < 1.9 ? 1000.0 : time > 2.1 ? 3000.0 : -1;
      if (expected > 0 && std::abs(strongest[r] - expected) > 20) {
        std::fprintf(stderr, "row %zu (%.3f s): strongest at %.0f Hz, expected %.0f Hz\n", r, time,
                     strongest[r], expected);
        return 1;
      }
    }
    if (!report.accounting_mismatch().empty() || report.samples_read != kSamples) {
      std::fprintf(stderr, "accounting: %s\n", report.accounting_mismatch().c_str());
      return 1;
    }

    // The program's own loop: the same samples, block by block, through a streaming object.
    SteppedTone again;
    prism::Spectrogram streaming(params, again.info(), environment);
    std::vector<float> block(1000), streamed_rows;
    while (const std::size_t n = again.read(reinterpret_cast<std::byte*>(block.data()), block.size()))
      streaming.feed(block.data(), n, streamed_rows);
    streaming.flush(streamed_rows);
    if (streamed_rows.size() != graph_rows.size() ||
        std::memcmp(streamed_rows.data(), graph_rows.data(), graph_rows.size() * sizeof(float)) != 0) {
      std::fprintf(stderr, "the streaming object's %zu rows differ from the graph's %zu\n",
                   streamed_rows.size() / streaming.columns(), rows);
      return 1;
    }
    std::printf("streaming object: the same %zu rows\n", rows);
    std::printf("OK\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed_spectrogram: %s\n", e.what());
    return 1;
  }
}
