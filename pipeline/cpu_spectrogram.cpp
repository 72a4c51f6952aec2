// CpuSpectrogram (cpu_spectrogram.hpp): scipy.signal.spectrogram, streamed, on FFTW.
//
// Contents:
//   1. small tools        aligned buffers, the channel gather, fast decibels
//   2. Engine: set-up     tables (window, scales, frequencies), layout, scratch, workers
//   3. Engine: one frame  load (history + block), detrend and window, FFT, detect
//   4. Engine: one block  frames -> averaging groups -> rows, shared among the threads
//
// The engine is written once for float and double (precision double: the samples converted to
// double, FFTW's double-precision plans, double rows).
//   5. the public class
//
// How a block is cut into work: frame f covers samples [f·hop, f·hop + nperseg). The frames
// a block completes are [F0, F1). Averaging groups are frames [gK, gK+K); a group is the unit
// of work, so one thread computes all of a group's frames that lie in this block, in order.
// A group begun in an earlier block continues from `carry_in` (its running sum or maximum);
// a group this block cannot finish leaves its running value in `carry_out`. Accumulating in
// frame order whichever block holds the frames keeps the rows independent of the cutting.
#include "pipeline/cpu_spectrogram.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <semaphore>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#include "fft/dct.hpp"
#include "fft/fft.hpp"
#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "pipeline/window.hpp"

namespace prism {
namespace {

// ---- 1. small tools ----------------------------------------------------------------------

// Every per-thread buffer starts on its own cache line and has the same alignment, so FFTW
// runs the same plan on every thread's buffers (see fft/fftw_backend.cpp) and no two threads
// write to one cache line.
constexpr std::size_t kBufferAlignment = 64;

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

template <typename T>
std::unique_ptr<T[], AlignedFree> aligned_zeroed(std::size_t count) {
  std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 1);
  bytes = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  void* p = std::aligned_alloc(kBufferAlignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return std::unique_ptr<T[], AlignedFree>(static_cast<T*>(p));
}

// Copies `count` samples of `sample_bytes` each, `stride` bytes apart, into a packed buffer.
template <std::size_t SampleBytes>
void gather_fixed(const std::byte* src, std::size_t stride, std::size_t count, std::byte* dst) {
  for (std::size_t i = 0; i < count; ++i)
    std::memcpy(dst + i * SampleBytes, src + i * stride, SampleBytes);
}

void gather_samples(const std::byte* src, std::size_t stride, std::size_t sample_bytes,
                    std::size_t count, std::byte* dst) {
  switch (sample_bytes) {
    case 1: gather_fixed<1>(src, stride, count, dst); return;
    case 2: gather_fixed<2>(src, stride, count, dst); return;
    case 4: gather_fixed<4>(src, stride, count, dst); return;
    case 8: gather_fixed<8>(src, stride, count, dst); return;
    default:
      for (std::size_t i = 0; i < count; ++i)
        std::memcpy(dst + i * sample_bytes, src + i * stride, sample_bytes);
  }
}

// multiplier·log10(max(x, floor)) for a row, in float, without a libm call per value (the
// libm log10f costs more than the FFT it follows). log2 x = e + log2 m with m in [√½, √2)
// taken from the float's bits, ln m from the atanh series 2s(1 + s²/3 + … + s⁸/9),
// s = (m-1)/(m+1), |s| <= 0.172: the series' error is below 1e-9, so the result is good to a
// few float roundings (~1e-5 dB at -300 dB). Infinity and NaN pass through unchanged.
void decibels_in_place(float* v, std::size_t n, float multiplier, float floor) {
  const float per_octave = multiplier * 0.30102999566398120f;  // multiplier·log10(2)
  const float per_neper = multiplier * 0.43429448190325182f;   // multiplier·log10(e)
  constexpr std::uint32_t kSqrtHalfBits = 0x3f3504f3u;         // bits of √½
  for (std::size_t i = 0; i < n; ++i) {
    const float value = v[i];
    const float x = value < floor ? floor : value;
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t shifted = bits - kSqrtHalfBits;
    const auto exponent = static_cast<float>(static_cast<std::int32_t>(shifted) >> 23);
    const float m = std::bit_cast<float>((shifted & 0x007fffffu) + kSqrtHalfBits);
    const float s = (m - 1.0f) / (m + 1.0f);
    const float s2 = s * s;
    float series = s2 * (1.0f / 9.0f) + (1.0f / 7.0f);
    series = series * s2 + (1.0f / 5.0f);
    series = series * s2 + (1.0f / 3.0f);
    series = series * s2 + 1.0f;
    const float ln_m = 2.0f * s * series;
    const float db = exponent * per_octave + ln_m * per_neper;
    // An integer select keeps the loop free of branches (so it vectorises).
    const std::uint32_t keep_x = (bits & 0x7f800000u) == 0x7f800000u ? ~0u : 0u;
    v[i] = std::bit_cast<float>((std::bit_cast<std::uint32_t>(db) & ~keep_x) | (bits & keep_x));
  }
}

enum class Combine { store, add, max };
// What a bin's value is: |X|², |X|, or (|X|²)^(power/2) = |X|^power (the mel modes).
enum class Detector { power, magnitude, general_power };

// Writes the detected values of `count` complex values (interleaved) into acc, combined with
// what acc holds according to C. `half_power`: power/2 for Detector::general_power.
template <typename Real, Combine C, Detector D>
void detect(const Real* spectrum, Real* acc, std::size_t count, Real half_power) {
  for (std::size_t k = 0; k < count; ++k) {
    const Real re = spectrum[2 * k];
    const Real im = spectrum[2 * k + 1];
    Real value = re * re + im * im;
    if constexpr (D == Detector::magnitude) value = std::sqrt(value);
    if constexpr (D == Detector::general_power) value = std::pow(value, half_power);
    if constexpr (C == Combine::store) acc[k] = value;
    if constexpr (C == Combine::add) acc[k] += value;
    if constexpr (C == Combine::max) acc[k] = acc[k] < value ? value : acc[k];
  }
}

template <typename Real>
using DetectFunction = void (*)(const Real*, Real*, std::size_t, Real);

template <typename Real, Detector D>
DetectFunction<Real> detect_for(Combine c) {
  switch (c) {
    case Combine::store: return &detect<Real, Combine::store, D>;
    case Combine::add: return &detect<Real, Combine::add, D>;
    case Combine::max: return &detect<Real, Combine::max, D>;
  }
  return nullptr;
}

template <typename Real>
DetectFunction<Real> detect_for(Detector d, Combine c) {
  switch (d) {
    case Detector::power: return detect_for<Real, Detector::power>(c);
    case Detector::magnitude: return detect_for<Real, Detector::magnitude>(c);
    case Detector::general_power: return detect_for<Real, Detector::general_power>(c);
  }
  return nullptr;
}

// Samples of any format to the engine's real type.
void convert_samples(SampleFormat f, const std::byte* src, std::size_t components, float* dst, IntegerScale scale) {
  convert_to_float(f, src, components, dst, scale);
}
void convert_samples(SampleFormat f, const std::byte* src, std::size_t components, double* dst, IntegerScale scale) {
  convert_to_double(f, src, components, dst, scale);
}

// Double rows take libm's log10: the fast float form above is good to float rounding only.
void decibels_in_place(double* v, std::size_t n, double multiplier, double floor) {
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(v[i])) v[i] = multiplier * std::log10(v[i] < floor ? floor : v[i]);
}

// The column scales in the engine's real type.
void column_scales(const StreamInfo& stream, const SpectrogramParams& params, const std::vector<double>& window,
                   std::vector<float>& out) {
  out = spectrogram_column_scales(stream, params, window);
}
void column_scales(const StreamInfo& stream, const SpectrogramParams& params, const std::vector<double>& window,
                   std::vector<double>& out) {
  out = spectrogram_column_scales_double(stream, params, window);
}

// A block is shared among the threads only when it holds at least this much FFT work
// (frames · nfft): waking a worker costs some tens of microseconds.
constexpr std::uint64_t kMinParallelWork = 1u << 16;

}  // namespace

// ---- 2. Engine: set-up ---------------------------------------------------------------------

// What the public class sees of an engine, whichever its precision.
struct CpuSpectrogramEngine {
  virtual ~CpuSpectrogramEngine() = default;
  // `rows`: room for max_output rows of the engine's real type.
  virtual std::size_t process(const std::byte* data, std::size_t samples, void* rows) = 0;
  virtual void reset() = 0;
  virtual StageCounters counters() const = 0;
  virtual unsigned thread_count() const = 0;
  SpectrumLayout layout;
  std::string backend_description;
};

namespace {

// The spectrogram in float (Real = float) or double throughout.
template <typename Real>
struct Engine final : CpuSpectrogramEngine {
  // Per-thread buffers.
  struct Scratch {
    std::unique_ptr<Real[], AlignedFree> frame;     // nfft·components; zero beyond nperseg
    std::unique_ptr<Real[], AlignedFree> spectrum;  // the FFT's output
    std::unique_ptr<Real[], AlignedFree> acc;       // one row of linear (or complex) values
    std::unique_ptr<std::byte[], AlignedFree> native;  // one frame of one channel, packed
    std::vector<double> mel;        // modes mel, mfcc: one row's band energies (n_mels)
    std::vector<double> cepstrum;   // mode mfcc: their DCT (n_mels)
  };

  // What the threads share while a block is processed (written before they are woken).
  struct BlockJob {
    const std::byte* data = nullptr;
    std::uint64_t first_sample = 0;  // absolute index of the block's first sample
    std::uint64_t first_frame = 0;   // F0
    std::uint64_t end_frame = 0;     // F1
    std::uint64_t end_group = 0;     // groups [F0/K, ceil(F1/K)) have frames in this block
    std::uint64_t first_row_group = 0;  // F0/K: the group that writes rows[0]
    std::uint64_t claim = 1;         // groups taken per claim
    Real* rows = nullptr;
  };

  // Configuration.
  StreamInfo stream;
  SpectrogramParams params;
  std::size_t components = 1;  // floats per sample: 2 for complex input
  std::size_t sample_bytes = 0;
  std::size_t frame_bytes = 0;  // bytes of one sample of every channel
  std::size_t channel_offset = 0;
  std::size_t hop = 0;
  std::size_t columns = 0;
  ColumnRange kept;            // the columns that the rows keep (frequency_range)
  std::size_t row_floats = 0;  // kept columns, twice that for complex rows
  bool complex_input = false;
  std::vector<Real> window;       // nperseg
  std::vector<Real> final_scale;  // columns: scaling, one-sided doubling, 1/K for mean
  Real decibel_multiplier = 10.0f;
  Real decibel_floor = 1e-30f;
  DetectFunction<Real> detect_first = nullptr;  // first frame of a group
  DetectFunction<Real> detect_more = nullptr;   // the group's other frames
  Real half_power = 1.0f;                // mel modes: power/2
  MelFilterbank mel_bank;                 // modes mel, mfcc
  std::unique_ptr<fft::CpuDct<double>> cepstrum_dct;  // mode mfcc: DCT-II ortho of n_mels
  std::unique_ptr<fft::Backend> backend;
  std::unique_ptr<fft::Plan> plan;

  // Stream state.
  std::unique_ptr<Real[], AlignedFree> history;  // samples [history_first, samples_in)
  std::uint64_t history_first = 0;
  std::unique_ptr<Real[], AlignedFree> carry_in;   // running value of an unfinished group
  std::unique_ptr<Real[], AlignedFree> carry_out;
  std::atomic<std::uint64_t> samples_in{0};
  std::atomic<std::uint64_t> frames_done{0};

  // Threads: scratch[0] belongs to the calling thread, scratch[i] to workers[i-1].
  std::vector<Scratch> scratch;
  std::vector<std::thread> workers;
  std::vector<std::unique_ptr<std::binary_semaphore>> wake;
  std::counting_semaphore<> finished{0};
  std::atomic<bool> stopping{false};
  BlockJob job;
  // Claimed by every thread: on a cache line of its own, away from what they only read.
  alignas(64) std::atomic<std::uint64_t> next_group{0};
  char next_group_padding[64 - sizeof(std::atomic<std::uint64_t>)] = {};

  Engine(const StreamInfo& stream_info, const SpectrogramParams& p, unsigned thread_count, const KeyNamer& name)
      : stream(stream_info), params(p) {
    if (!(stream.sample_rate > 0))
      throw std::invalid_argument("the sample rate must be positive");
    if (stream.channels < 1) throw std::invalid_argument("the stream has no channels");
    if (params.channel >= stream.channels)
      throw UsageError(name("channel") + " " + std::to_string(params.channel) +
                       " is out of range: the input has " + std::to_string(stream.channels) +
                       (stream.channels == 1 ? " channel" : " channels") + " (0.." +
                       std::to_string(stream.channels - 1) + ")");

    complex_input = is_complex(stream.format);
    components = components_per_sample(stream.format);
    sample_bytes = prism::sample_bytes(stream.format);
    frame_bytes = stream.frame_bytes();
    channel_offset = params.channel * sample_bytes;
    hop = params.hop();
    columns = complex_input ? params.nfft : params.nfft / 2 + 1;
    check_mel_stream(stream, params, name);
    kept = spectrogram_column_range(stream, params, name);
    row_floats = params.mode == SpectrumMode::complex ? 2 * kept.count : kept.count;
    if (params.mode == SpectrumMode::mel) row_floats = params.n_mels;
    if (params.mode == SpectrumMode::mfcc) row_floats = params.n_mfcc;

    make_tables();
    layout = spectrogram_layout(stream, params);

    backend = fft::make_cpu_backend(std::is_same_v<Real, double> ? fft::Precision::float64 : fft::Precision::float32);
    backend_description = backend->describe();
    fft::PlanSpec spec;
    spec.n = params.nfft;
    spec.batch = 1;
    spec.transform = complex_input ? fft::Transform::c2c_forward : fft::Transform::r2c;
    spec.in_place = false;
    plan = backend->plan(spec);

    history = aligned_zeroed<Real>(params.nperseg * components);
    carry_in = aligned_zeroed<Real>(columns);
    carry_out = aligned_zeroed<Real>(columns);

    if (thread_count == 0) thread_count = std::max(1u, std::thread::hardware_concurrency());
    scratch.resize(thread_count);
    for (Scratch& s : scratch) {
      s.frame = aligned_zeroed<Real>(params.nfft * components);
      s.spectrum = aligned_zeroed<Real>(2 * fft::output_row_elements(spec));
      s.acc = aligned_zeroed<Real>(2 * columns);
      s.native = aligned_zeroed<std::byte>(params.nperseg * sample_bytes);
      if (params.is_mel()) s.mel.resize(params.n_mels);
      if (params.mode == SpectrumMode::mfcc) s.cepstrum.resize(params.n_mels);
    }
    for (unsigned i = 1; i < thread_count; ++i)
      wake.push_back(std::make_unique<std::binary_semaphore>(0));
    for (unsigned i = 1; i < thread_count; ++i)
      workers.emplace_back([this, i] { worker_loop(i); });
  }

  ~Engine() override {
    stopping.store(true);
    for (auto& w : wake) w->release();
    for (auto& t : workers) t.join();
  }

  void make_tables() {
    const std::vector<double> w = make_window(params.window, params.nperseg);
    window.assign(w.begin(), w.end());
    column_scales(stream, params, w, final_scale);
    const DecibelScale db = spectrogram_decibels(params);
    decibel_multiplier = db.multiplier;
    decibel_floor = db.floor;
    Detector detector = params.mode == SpectrumMode::magnitude ? Detector::magnitude : Detector::power;
    if (params.is_mel()) {
      detector = params.power == 2.0   ? Detector::power
                 : params.power == 1.0 ? Detector::magnitude
                                       : Detector::general_power;
      half_power = static_cast<Real>(params.power / 2.0);
      mel_bank = spectrogram_mel_filterbank(stream, params);
    }
    if (params.mode == SpectrumMode::mfcc)
      cepstrum_dct = std::make_unique<fft::CpuDct<double>>(
          fft::DctSpec{params.n_mels, 1, fft::DctType::type2, fft::DctNorm::ortho});
    const Combine more = params.average_kind == AverageKind::mean ? Combine::add : Combine::max;
    detect_first = detect_for<Real>(detector, Combine::store);
    detect_more = detect_for<Real>(detector, more);
  }

  // ---- 3. Engine: one frame ----------------------------------------------------------------

  // Converts `count` samples of the analysed channel, starting at the block's sample `first`,
  // to Real.
  void load_from_block(const std::byte* data, std::size_t first, std::size_t count, Real* dst,
                       std::byte* native) const {
    if (count == 0) return;
    const std::byte* src = data + first * frame_bytes + channel_offset;
    if (stream.channels == 1) {
      convert_samples(stream.format, src, count * components, dst, params.integer_scale);
      return;
    }
    const std::size_t chunk = params.nperseg;
    for (std::size_t done = 0; done < count; done += chunk) {
      const std::size_t n = std::min(chunk, count - done);
      gather_samples(src + done * frame_bytes, frame_bytes, sample_bytes, n, native);
      convert_samples(stream.format, native, n * components, dst + done * components,
                       params.integer_scale);
    }
  }

  // The frame's samples, from the history and/or the block, into s.frame.
  void load_frame(std::uint64_t frame, Scratch& s) const {
    const std::uint64_t start = frame * hop;
    Real* dst = s.frame.get();
    std::size_t from_history = 0;
    if (start < job.first_sample) {
      from_history = static_cast<std::size_t>(job.first_sample - start);
      std::memcpy(dst, history.get() + (start - history_first) * components,
                  from_history * components * sizeof(Real));
    }
    const std::size_t block_first =
        from_history > 0 ? 0 : static_cast<std::size_t>(start - job.first_sample);
    load_from_block(job.data, block_first, params.nperseg - from_history,
                    dst + from_history * components, s.native.get());
  }

  // Subtracts the least-squares line through the n values x[offset], x[offset + stride], ...
  // (scipy.signal.detrend type='linear'), in double: with t centred on the segment's middle the
  // line's mean and slope are independent sums.
  static void remove_line(Real* x, std::size_t n, std::size_t stride, std::size_t offset) {
    const double middle = (static_cast<double>(n) - 1.0) / 2.0;
    double sum = 0.0, weighted = 0.0, t_squares = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) - middle;
      const double v = x[i * stride + offset];
      sum += v;
      weighted += t * v;
      t_squares += t * t;
    }
    const double mean = sum / static_cast<double>(n);
    const double slope = t_squares > 0.0 ? weighted / t_squares : 0.0;
    for (std::size_t i = 0; i < n; ++i)
      x[i * stride + offset] = static_cast<Real>(x[i * stride + offset] - (mean + slope * (static_cast<double>(i) - middle)));
  }

  // Subtracts the segment's mean (detrend constant) or its least-squares line (linear) and
  // multiplies by the window, in place.
  // The mean is summed in double over 8 fixed lanes: the order of additions is fixed by
  // the code, not by alignment or the compiler, and the 8 lanes keep real and imaginary
  // parts apart for complex frames.
  void detrend_and_window(Real* x) const {
    const std::size_t n = params.nperseg;
    const std::size_t floats = n * components;
    Real mean_re = 0.0f, mean_im = 0.0f;
    if (params.detrend == Detrend::constant) {
      double lanes[8] = {};
      std::size_t i = 0;
      for (; i + 8 <= floats; i += 8)
        for (std::size_t j = 0; j < 8; ++j) lanes[j] += x[i + j];
      for (; i < floats; ++i) lanes[i % 8] += x[i];
      const double count = static_cast<double>(n);
      if (complex_input) {
        mean_re = static_cast<Real>(((lanes[0] + lanes[2]) + (lanes[4] + lanes[6])) / count);
        mean_im = static_cast<Real>(((lanes[1] + lanes[3]) + (lanes[5] + lanes[7])) / count);
      } else {
        mean_re = static_cast<Real>((((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
                                      ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))) /
                                     count);
      }
    }
    const Real* w = window.data();
    if (params.detrend == Detrend::linear) {
      remove_line(x, n, components, 0);
      if (complex_input) remove_line(x, n, components, 1);
      for (std::size_t i = 0; i < n * components; ++i) x[i] *= w[i / components];
      return;
    }
    if (complex_input) {
      for (std::size_t i = 0; i < n; ++i) {
        x[2 * i] = (x[2 * i] - mean_re) * w[i];
        x[2 * i + 1] = (x[2 * i + 1] - mean_im) * w[i];
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) x[i] = (x[i] - mean_re) * w[i];
    }
  }

  // One frame's |X| or |X|², combined into s.acc; for complex input in centred order.
  void compute_frame(std::uint64_t frame, bool first_of_group, Scratch& s) const {
    load_frame(frame, s);
    detrend_and_window(s.frame.get());
    plan->execute(s.frame.get(), s.spectrum.get(), 1);
    const Real* spectrum = s.spectrum.get();
    Real* acc = s.acc.get();
    if (params.keeps_phase()) {
      // X itself (a group is one frame), centred for complex input as below.
      const std::size_t negative = complex_input ? params.nfft / 2 : 0;
      const std::size_t first_bin = complex_input ? params.nfft - negative : 0;
      std::memcpy(acc, spectrum + 2 * first_bin, 2 * negative * sizeof(Real));
      std::memcpy(acc + 2 * negative, spectrum, 2 * (columns - negative) * sizeof(Real));
      return;
    }
    const DetectFunction<Real> detect_into = first_of_group ? detect_first : detect_more;
    if (complex_input) {
      // fftshift: column j holds bin (j - nfft/2) mod nfft.
      const std::size_t nfft = params.nfft;
      const std::size_t negative = nfft / 2;  // bins nfft-negative .. nfft-1 come first
      detect_into(spectrum + 2 * (nfft - negative), acc, negative, half_power);
      detect_into(spectrum, acc + negative, nfft - negative, half_power);
    } else {
      detect_into(spectrum, acc, columns, half_power);
    }
  }

  // np.unwrap along the row: each step between neighbours taken into (-π, π], the corrections
  // summed in double from the first column on.
  static void unwrap_in_place(Real* angles, std::size_t n) {
    constexpr double kPi = 3.14159265358979323846;
    double correction = 0.0;
    for (std::size_t k = 1; k < n; ++k) {
      const double step = static_cast<double>(angles[k]) - static_cast<double>(angles[k - 1] - correction);
      double wrapped = std::fmod(step + kPi, 2.0 * kPi);
      if (wrapped < 0) wrapped += 2.0 * kPi;
      wrapped -= kPi;
      if (wrapped == -kPi && step > 0) wrapped = kPi;
      if (std::abs(step) >= kPi) correction += wrapped - step;
      angles[k] = static_cast<Real>(static_cast<double>(angles[k]) + correction);
    }
  }

  // Modes mel and mfcc: the row from `acc` (|X|^power of every bin, summed over the group).
  // The bands, their logarithm and the DCT are computed in double.
  void finish_mel_row(const Real* acc, Real* row, Scratch& s) const {
    double* mel = s.mel.data();
    mel_bank.apply(acc, mel);
    const double averaging = final_scale[0];  // 1/K for a mean, 1 otherwise: alike for every bin
    for (std::size_t m = 0; m < params.n_mels; ++m) mel[m] *= averaging;
    if (params.mode == SpectrumMode::mel) {
      for (std::size_t m = 0; m < params.n_mels; ++m) row[m] = static_cast<Real>(mel[m]);
      if (params.decibels) decibels_in_place(row, params.n_mels, decibel_multiplier, decibel_floor);
      return;
    }
    for (std::size_t m = 0; m < params.n_mels; ++m) mel[m] = mfcc_log_band(mel[m], params.log_mels);
    cepstrum_dct->execute(mel, s.cepstrum.data());
    for (std::size_t i = 0; i < params.n_mfcc; ++i) row[i] = static_cast<Real>(s.cepstrum[i]);
  }

  // The kept columns of a row, from `acc` (all columns).
  void finish_row(const Real* acc, Real* row, Scratch& s) const {
    if (params.is_mel()) {
      finish_mel_row(acc, row, s);
      return;
    }
    const Real* scale = final_scale.data() + kept.first;
    const std::size_t n = kept.count;
    switch (params.mode) {
      case SpectrumMode::complex:
        acc += 2 * kept.first;
        for (std::size_t k = 0; k < n; ++k) {
          row[2 * k] = acc[2 * k] * scale[k];
          row[2 * k + 1] = acc[2 * k + 1] * scale[k];
        }
        return;
      case SpectrumMode::angle:
      case SpectrumMode::phase:
        // A positive scale changes no angle.
        acc += 2 * kept.first;
        for (std::size_t k = 0; k < n; ++k) row[k] = std::atan2(acc[2 * k + 1], acc[2 * k]);
        if (params.mode == SpectrumMode::phase) unwrap_in_place(row, n);
        return;
      case SpectrumMode::psd:
      case SpectrumMode::magnitude:
      case SpectrumMode::mel:
      case SpectrumMode::mfcc: break;
    }
    acc += kept.first;
    for (std::size_t k = 0; k < n; ++k) row[k] = acc[k] * scale[k];
    if (params.decibels) decibels_in_place(row, n, decibel_multiplier, decibel_floor);
  }

  // ---- 4. Engine: one block ----------------------------------------------------------------

  void compute_group(std::uint64_t group, Scratch& s) const {
    const std::uint64_t k = params.average;
    const std::uint64_t group_first = group * k;
    const std::uint64_t group_end = group_first + k;
    const std::uint64_t first = std::max(group_first, job.first_frame);
    const std::uint64_t end = std::min(group_end, job.end_frame);
    if (first > group_first)
      std::memcpy(s.acc.get(), carry_in.get(), columns * sizeof(Real));
    for (std::uint64_t f = first; f < end; ++f) compute_frame(f, f == group_first, s);
    if (end == group_end)
      finish_row(s.acc.get(), job.rows + (group - job.first_row_group) * row_floats, s);
    else
      std::memcpy(carry_out.get(), s.acc.get(), columns * sizeof(Real));
  }

  void compute_claimed_groups(Scratch& s) {
    for (;;) {
      const std::uint64_t first = next_group.fetch_add(job.claim, std::memory_order_relaxed);
      if (first >= job.end_group) return;
      const std::uint64_t end = std::min(first + job.claim, job.end_group);
      for (std::uint64_t g = first; g < end; ++g) compute_group(g, s);
    }
  }

  void worker_loop(unsigned index) {
    for (;;) {
      wake[index - 1]->acquire();
      if (stopping.load()) return;
      compute_claimed_groups(scratch[index]);
      finished.release();
    }
  }

  // Back to the state before the first chunk.
  void reset() override {
    std::fill_n(history.get(), params.nperseg * components, 0.0f);
    std::fill_n(carry_in.get(), columns, 0.0f);
    std::fill_n(carry_out.get(), columns, 0.0f);
    history_first = 0;
    samples_in.store(0, std::memory_order_relaxed);
    frames_done.store(0, std::memory_order_relaxed);
  }

  std::size_t process(const std::byte* data, std::size_t samples, void* rows_out) override {
    Real* rows = static_cast<Real*>(rows_out);
    const std::uint64_t block_first = samples_in.load(std::memory_order_relaxed);
    const std::uint64_t block_end = block_first + samples;
    const std::uint64_t nperseg = params.nperseg;
    const std::uint64_t k = params.average;
    const std::uint64_t f0 = frames_done.load(std::memory_order_relaxed);
    const std::uint64_t f1 =
        block_end >= nperseg ? std::max(f0, (block_end - nperseg) / hop + 1) : f0;

    std::size_t rows_written = 0;
    if (f1 > f0) {
      job.data = data;
      job.first_sample = block_first;
      job.first_frame = f0;
      job.end_frame = f1;
      job.first_row_group = f0 / k;
      job.end_group = (f1 + k - 1) / k;
      job.rows = rows;
      const std::uint64_t groups = job.end_group - job.first_row_group;
      const std::size_t participants = scratch.size();
      const bool share = participants > 1 && groups >= 2 &&
                         (f1 - f0) * params.nfft >= kMinParallelWork;
      job.claim = std::max<std::uint64_t>(1, groups / (participants * 8));
      next_group.store(job.first_row_group, std::memory_order_relaxed);
      if (share) {
        for (auto& w : wake) w->release();
        compute_claimed_groups(scratch[0]);
        for (std::size_t i = 1; i < participants; ++i) finished.acquire();
      } else {
        compute_claimed_groups(scratch[0]);
      }
      if (f1 % k != 0) std::swap(carry_in, carry_out);
      rows_written = static_cast<std::size_t>(f1 / k - f0 / k);
    }

    keep_history(data, samples, block_first, block_end, f1 * hop);
    frames_done.store(f1, std::memory_order_relaxed);
    samples_in.store(block_end, std::memory_order_relaxed);
    return rows_written;
  }

  // Keeps samples [next_frame_start, block_end): all that later frames need of the past.
  void keep_history(const std::byte* data, std::size_t samples, std::uint64_t block_first,
                    std::uint64_t block_end, std::uint64_t next_frame_start) {
    Real* h = history.get();
    std::byte* native = scratch[0].native.get();
    if (next_frame_start >= block_first) {
      load_from_block(data, static_cast<std::size_t>(next_frame_start - block_first),
                      static_cast<std::size_t>(block_end - next_frame_start), h, native);
    } else {
      const auto kept = static_cast<std::size_t>(block_first - next_frame_start);
      std::memmove(h, h + (next_frame_start - history_first) * components,
                   kept * components * sizeof(Real));
      load_from_block(data, 0, samples, h + kept * components, native);
    }
    history_first = next_frame_start;
  }

  unsigned thread_count() const override { return static_cast<unsigned>(scratch.size()); }

  StageCounters counters() const override {
    return spectrogram_counters(params, samples_in.load(std::memory_order_relaxed),
                                frames_done.load(std::memory_order_relaxed));
  }
};

}  // namespace

// ---- 5. the public class -----------------------------------------------------------------

CpuSpectrogram::CpuSpectrogram(const SpectrogramParams& params, unsigned threads, KeyNamer name)
    : params_(params.resolved()), threads_(threads), name_(std::move(name)) {
  params_.validate(name_);
}

CpuSpectrogram::~CpuSpectrogram() = default;

PortDescription CpuSpectrogram::configure(const PortDescription& input, std::size_t) {
  impl_.reset();
  if (params_.double_precision)
    impl_ = std::make_unique<Engine<double>>(input.samples, params_, threads_, name_);
  else
    impl_ = std::make_unique<Engine<float>>(input.samples, params_, threads_, name_);
  return PortDescription::of_rows(impl_->layout);
}

const SpectrumLayout& CpuSpectrogram::layout() const {
  if (!impl_) throw std::logic_error("CpuSpectrogram::layout before configure");
  return impl_->layout;
}

std::size_t CpuSpectrogram::max_output(std::size_t input_items) const {
  return spectrogram_max_rows_per_block(params_, input_items);
}

std::size_t CpuSpectrogram::process(const Chunk& input, Chunk& output) {
  return impl_->process(input.data, input.items, output.data);
}

void CpuSpectrogram::reset() {
  if (impl_) impl_->reset();
}

StageCounters CpuSpectrogram::counters() const {
  return impl_ ? impl_->counters() : spectrogram_counters(params_, 0, 0);
}

std::string CpuSpectrogram::describe() const {
  if (!impl_) return "cpu: FFTW";
  const unsigned n = threads();
  return "cpu: " + impl_->backend_description + ", " + std::to_string(n) + (n == 1 ? " thread" : " threads");
}

unsigned CpuSpectrogram::threads() const { return impl_ ? impl_->thread_count() : threads_; }

}  // namespace prism
