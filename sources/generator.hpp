// The built-in test signal: tones, linear chirps and Gaussian noise at a chosen rate, real or
// complex baseband, written as f32, cf32, f64, cf64, i16, ci16, i8, ci8, u8 or cu8, in one or more channels. It lets every part of prism run without
// a file or a device, and gives the tests signals whose spectrum is known exactly.
//
// Spec strings (the CLI's INPUT argument):
//   gen  or  gen:                 the default signal (below)
//   gen:key=value,key=value,...   with the keys
//     rate=HZ               sample rate, > 0 (default 48000; k, M, G suffixes allowed)
//     duration=SECONDS      >= 0 (default 10); inf or 0 = endless
//     tone=FREQ[@AMP]       a tone, repeatable; linear amplitude >= 0, default 0.5
//     chirp=F0-F1[@AMP]     a linear sweep F0 -> F1 over the duration (every 10 s when
//                           endless), repeatable; amplitude default 0.5
//     noise=AMP             Gaussian noise with standard deviation AMP (for complex output
//                           the total: each of I and Q gets AMP/sqrt(2))
//     complex               complex baseband (tones are e^{i2 pi f t}; frequencies may be
//                           negative, within +-rate/2); otherwise real, 0 <= f <= rate/2
//     seed=N                noise seed, an unsigned integer (default 1)
//     format=F              output format: f32, cf32, f64, cf64, i16, ci16, i8, ci8, u8, cu8 (default f32,
//                           or cf32 when complex); the complex ones imply complex. Integers
//                           are the float values scaled as format.hpp reads them back
//                           (v·32768, v·128, v·128 + 128), rounded, clipped and counted
//     channels=N            N interleaved channels (1..1024, default 1), each the same signal
//     live                  paced in real time, as a device: samples are delivered no sooner
//                           than they are due at the rate, in periods of 10 ms, and the stream
//                           is live (the graph drops and counts what it has no free chunk for).
//                           Samples due more than a second before they are read are lost, as
//                           in a device's buffer that overflows, and counted as dropped.
//     stall=SECONDS         with live: after SECONDS of signal no more samples come, and no
//                           error and no end either (a device that hangs), until interrupted
//
// The default components are 1000 Hz @0.5, 6000 Hz @0.25, a chirp 200 -> 20000 Hz @0.3 and
// noise 0.01 at 48 kHz. They are used whenever no tone, chirp or noise key is given (so
// `gen:duration=inf` is the default signal without end, not silence); at other rates they
// scale with the rate (rate/48, rate/8, rate/240 -> rate*5/12) so they always fit below
// Nyquist. Once any tone, chirp or noise key is given, the signal holds exactly those.
//
// Every sample is computed from its absolute index in double precision: chirp phases
// directly, tone phases as the phase at the start of the sample's 4096-sample piece times a
// table of phase steps, noise from a counter-based generator keyed by the index. So the
// output does not depend on how reads are cut, and is the same on every platform.
#pragma once

#include <cstddef>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../pipeline/format.hpp"
#include "../pipeline/source.hpp"
#include "../pipeline/stream_info.hpp"

namespace prism {

struct GeneratorTone {
  double frequency_hz = 0.0;  // real: [0, rate/2]; complex: [-rate/2, rate/2]
  double amplitude = 0.5;     // linear, >= 0
};

struct GeneratorChirp {
  double start_hz = 0.0;  // same range as a tone's frequency
  double end_hz = 0.0;
  double amplitude = 0.5;
};

struct GeneratorSpec {
  double sample_rate = 48000.0;  // Hz, > 0
  double duration_s = 10.0;      // seconds, >= 0; 0 = endless
  std::vector<GeneratorTone> tones;
  std::vector<GeneratorChirp> chirps;
  double noise_stddev = 0.0;     // >= 0
  bool complex_output = false;
  std::uint64_t seed = 1;
  std::optional<SampleFormat> format;  // f32, cf32, f64, cf64, i16, ci16, i8, ci8, u8, cu8; unset: f32 / cf32
  unsigned channels = 1;               // interleaved, each the same signal
  bool live = false;                   // paced in real time (see the top of this file)
  std::optional<double> stall_s;       // live: seconds of signal after which delivery stops

  // The length of one sweep of an endless chirp.
  static constexpr double kEndlessChirpPeriod_s = 10.0;

  // The format samples are written in.
  SampleFormat output_format() const;
  bool endless() const { return duration_s == 0.0; }
  // Samples in the signal (round(duration * rate)); nullopt when endless.
  std::optional<std::uint64_t> length_samples() const;

  // The canonical spec string ("gen:rate=48000,duration=10,tone=1000@0.5,..."); parsing it
  // gives back this spec.
  std::string to_string() const;
  // A one-line human description for summaries and `prism info`:
  // "48000 Hz real f32, 10 s: tone 1000 Hz @0.5, chirp 200-20000 Hz @0.3, noise sd 0.01".
  std::string describe() const;
};

// True for "gen" and "gen:...": the inputs the generator takes.
bool is_generator_spec(std::string_view input);

// Parses a generator spec string (see the top of this file). Throws UsageError naming the key
// and what is wrong, e.g. "gen: unknown key 'tonee' (known: rate, duration, ...)".
GeneratorSpec parse_generator_spec(std::string_view spec);

// The default signal's spec at 48 kHz, 10 s: what `gen` gives.
GeneratorSpec default_generator_spec();

class GeneratorSource final : public Source {
 public:
  // Throws UsageError when the spec is out of range (the parser's checks, for specs built in
  // code).
  explicit GeneratorSource(GeneratorSpec spec);

  const StreamInfo& info() const override { return info_; }
  // A live spec's read waits until the samples are due; interrupt() makes a waiting read
  // return 0.
  std::size_t read(std::byte* dst, std::size_t max_samples) override;
  void interrupt() override { interrupts_.fetch_add(1, std::memory_order_acq_rel); }
  // Live: samples lost because they were due more than a second before they were read.
  std::uint64_t dropped_samples() const override { return dropped_.load(std::memory_order_relaxed); }
  // The canonical spec string, "gen:rate=...": names the signal as a path names a file.
  std::string describe() const override;

  // Output values (real or imaginary parts) that did not fit the integer format and were
  // clipped to its range. Always 0 for f32 and cf32.
  std::uint64_t clipped_samples() const { return clipped_; }

  const GeneratorSpec& spec() const { return spec_; }

  // Labels the stream with a centre frequency (the signal itself does not change). Call
  // before the run starts.
  void set_center_frequency(double hz) { info_.center_frequency = hz; }

 private:
  void generate(std::uint64_t first, std::size_t count, std::byte* dst);
  // Live: skips the samples that fell out of the device's buffer, waits until a period's
  // samples (or `count`, if fewer) are due and returns how many of `count` are due then; 0 at
  // the end, at a stall that was interrupted, or when interrupted first.
  std::size_t wait_until_due(std::size_t count);

  GeneratorSpec spec_;
  StreamInfo info_;
  std::uint64_t next_sample_ = 0;
  std::uint64_t clipped_ = 0;
  std::uint64_t noise_key_ = 0;
  std::uint64_t chirp_period_samples_ = 0;  // samples per sweep
  std::optional<std::chrono::steady_clock::time_point> live_start_;  // when sample 0 was due
  std::atomic<std::uint64_t> interrupts_{0};
  std::atomic<std::uint64_t> dropped_{0};
  // Samples are computed in pieces that never cross a multiple of this: large enough to
  // amortise the set-up per piece, small enough for the tables to stay in L2.
  static constexpr std::size_t kChunkSamples = 4096;
  std::vector<double> sample_buffer_;  // one piece as double: real parts, then imaginary
  // Per tone, e^{i 2 pi f j / rate} for j in [0, kChunkSamples).
  std::vector<std::complex<double>> tone_steps_;
};

}  // namespace prism
