// The GPU FIR filter's plan and schedule (gpu_fir_plan.hpp).
#include "pipeline/gpu_fir_plan.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <numbers>
#include <stdexcept>

#include "pipeline/errors.hpp"
#include "fft/fftw_planner_locks.hpp"

namespace prism {

namespace {

bool power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// Whether decimation by d folds into one spectrum's transform of n with hop B: d of 2, 4 or 8 at
// the fold kernels' lengths, and a hop of at least d.
bool folds(std::size_t n, std::size_t hop, std::size_t d) {
  return power_of_two(d) && d >= 2 && d <= kGpuFirFoldDecimationMax && n >= kGpuFirFoldLengthMin &&
         n <= kGpuFirFoldLengthMax && hop >= d;
}

// Whether decimation by d folds into a partitioned filter's inverse transforms at length n: d of
// 2, 4 or 8 (the hop n/2 is a multiple of it) and n/d a length of the team FFT.
bool folds_partitioned(std::size_t n, std::size_t d) {
  return power_of_two(d) && d >= 2 && d <= kGpuFirFoldDecimationMax && n / d >= kGpuFirMinFftLength;
}

std::size_t next_power_of_two(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// The forward DFT of `x` (length n) in double precision.
std::vector<std::complex<double>> forward_dft(std::vector<std::complex<double>> x) {
  const int n = static_cast<int>(x.size());
  auto* data = reinterpret_cast<fftw_complex*>(x.data());
  fftw_plan plan = nullptr;
  {
    std::lock_guard lock(fft::fftw_double_planner_mutex());
    plan = fftw_plan_dft_1d(n, data, data, FFTW_FORWARD, FFTW_ESTIMATE);
  }
  fftw_execute(plan);
  {
    std::lock_guard lock(fft::fftw_double_planner_mutex());
    fftw_destroy_plan(plan);
  }
  return x;
}

}  // namespace

std::vector<GpuFirChoice> gpu_fir_auto_choices(std::size_t taps, std::size_t decimation) {
  std::vector<GpuFirChoice> choices;
  if (taps > kGpuFirMaxUnpartitionedAutoTaps) return choices;
  for (std::size_t n = kGpuFirFoldLengthMax; n >= 2 * taps && folds(n, n - taps + 1, decimation); n /= 2)
    choices.push_back({n, true});
  const std::size_t shortest = std::max(next_power_of_two(4 * taps), kGpuFirMinAutoFftLength);
  for (std::size_t n = kGpuFirMaxAutoFftLength; n >= shortest; n /= 2) choices.push_back({n, false});
  return choices;
}

namespace {

// Whether the one-spectrum plans of `spec` are packed (GpuFirPlan::packed).
bool packable(const FirSpec& spec) { return !spec.complex_input && !spec.taps.is_complex && !spec.shift_hz; }

// The taps the plan has room for: max_taps when set (set_taps may grow to it), else the taps'.
std::size_t capacity_of(const FirSpec& spec) { return std::max(spec.max_taps, spec.taps.size()); }

// The plan at length n (partitioned when the capacity is longer than n, or beyond one spectrum's
// auto choices), folded where fold_allowed and the length and decimation take it.
GpuFirPlan plan_at(const FirSpec& spec, std::size_t n, bool partitioned, bool fold_allowed);

// The double-precision plan: one spectrum at N (kGpuFir64MinAutoFftLength's comment).
GpuFirPlan plan_gpu_fir64(const FirSpec& spec) {
  const std::size_t m = capacity_of(spec);
  if (!gpu_fir64_takes(m, spec.fft_length)) {
    if (m > kGpuFir64MaxTaps)
      throw UsageError("taps: " + std::to_string(m) + " taps; the GPU filter in double takes up to " +
                       std::to_string(kGpuFir64MaxTaps) + " (the CPU backend takes more)");
    throw UsageError("fft_length=" + std::to_string(spec.fft_length) +
                     ": the GPU filter in double takes a length from the tap count (" + std::to_string(m) + ") to " +
                     std::to_string(kGpuFir64MaxFftLength) + " (or 0: chosen from the taps)");
  }
  const std::size_t n =
      spec.fft_length != 0 ? spec.fft_length : std::max(next_power_of_two(4 * m), kGpuFir64MinAutoFftLength);
  return plan_at(spec, std::min(n, kGpuFir64MaxFftLength), false, false);
}

}  // namespace

GpuFirPlan plan_gpu_fir(const FirSpec& spec, bool fold_allowed) {
  check_fir_spec(spec);
  if (spec.double_precision) return plan_gpu_fir64(spec);
  const std::size_t m = capacity_of(spec);
  std::size_t n = spec.fft_length;
  if (n == 0) {
    if (m > kGpuFirMaxUnpartitionedAutoTaps)
      return plan_at(spec, m <= kGpuFirShortPartitionsMaxTaps ? kGpuFirShortPartitionsFftLength : kGpuFirMaxFftLength,
                     true, fold_allowed);
    for (const GpuFirChoice& choice : gpu_fir_auto_choices(m, spec.decimation))
      if (fold_allowed || !choice.fold) return plan_at(spec, choice.fft_length, false, choice.fold);
  }
  if (!gpu_fir_takes_fft_length(n))
    throw UsageError("fft_length=" + std::to_string(n) + ": the GPU filter takes a power of two from " +
                     std::to_string(kGpuFirMinFftLength) + " to " + std::to_string(kGpuFirMaxFftLength) +
                     " (or 0: chosen from the taps)");
  return plan_at(spec, n, m > n, fold_allowed);
}

GpuFirPlan plan_gpu_fir(const FirSpec& spec, const GpuFirChoice& choice) {
  check_fir_spec(spec);
  if (spec.double_precision || spec.fft_length != 0 || capacity_of(spec) > kGpuFirMaxUnpartitionedAutoTaps)
    throw std::invalid_argument("plan_gpu_fir: an automatic choice for a spec the choices do not serve");
  return plan_at(spec, choice.fft_length, false, choice.fold);
}

std::vector<GpuFirPlan> gpu_fir_plan_options(const FirSpec& spec, GpuFirFold fold) {
  std::vector<GpuFirPlan> all;  // in the choices' order
  if (spec.double_precision) {  // one plan, which does not fold
    all.push_back(plan_gpu_fir(spec));
    return all;
  }
  const std::vector<GpuFirChoice> choices =
      spec.fft_length == 0 ? gpu_fir_auto_choices(capacity_of(spec), spec.decimation)
                           : std::vector<GpuFirChoice>{};
  if (!choices.empty()) {
    for (const GpuFirChoice& choice : choices) all.push_back(plan_gpu_fir(spec, choice));
  } else {
    all.push_back(plan_gpu_fir(spec, true));
    if (all.back().fold > 1) all.push_back(plan_gpu_fir(spec, false));
  }
  const bool any_folded = std::any_of(all.begin(), all.end(), [](const GpuFirPlan& p) { return p.fold > 1; });
  if (fold == GpuFirFold::automatic || (fold == GpuFirFold::always && !any_folded)) return all;
  std::vector<GpuFirPlan> pinned;
  for (GpuFirPlan& plan : all)
    if ((plan.fold > 1) == (fold == GpuFirFold::always)) pinned.push_back(std::move(plan));
  return pinned;
}

std::size_t pick_gpu_fir_plan(const std::vector<GpuFirPlan>& options, const std::vector<int>& segments_per_cta,
                              std::size_t max_items, int multiprocessors) {
  if (options.empty() || segments_per_cta.size() != options.size())
    throw std::invalid_argument("pick_gpu_fir_plan: one CTA size per option");
  // The items a plan may hold back from the output: a hop, two when a segment waits for its pair.
  const auto held_back = [](const GpuFirPlan& p) { return p.map.hop * (p.packed ? 2 : 1); };
  std::size_t widest = 0, widest_ctas = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::size_t per_cta = static_cast<std::size_t>(std::max(segments_per_cta[i], 1));
    const std::size_t segments = static_cast<std::size_t>((max_items + options[i].map.hop - 1) / options[i].map.hop);
    if (multiprocessors > 0 && segments >= per_cta * static_cast<std::size_t>(multiprocessors)) return i;
    const std::size_t ctas = (segments + per_cta - 1) / per_cta;
    if (ctas > widest_ctas || (ctas == widest_ctas && held_back(options[i]) < held_back(options[widest])))
      widest = i, widest_ctas = ctas;
  }
  return widest;
}

namespace {

GpuFirPlan plan_at(const FirSpec& spec, std::size_t n, bool partitioned, bool fold_allowed) {
  const std::size_t m = capacity_of(spec);
  GpuFirPlan plan;
  plan.map.n = n;
  plan.map.hop = partitioned ? n / 2 : n - m + 1;
  plan.partitions = partitioned ? (m + plan.map.hop - 1) / plan.map.hop : 1;
  plan.map.decimation = spec.decimation;
  plan.map.offset = spec.align == FirAlign::same ? (m - 1) / 2 : 0;
  const std::size_t d = spec.decimation;
  if (fold_allowed && (partitioned ? folds_partitioned(n, d) : folds(n, plan.map.hop, d))) {
    plan.fold = d;
    plan.map.hop -= plan.map.hop % d;
  }
  plan.complex_input = spec.complex_input;
  plan.shifted = spec.shift_hz.has_value();
  plan.complex_output = plan.complex_input || spec.taps.is_complex || plan.shifted;
  plan.double_precision = spec.double_precision;
  plan.packed = !partitioned && !spec.double_precision && packable(spec);
  plan.taps_capacity = m;
  plan.same_alignment = spec.align == FirAlign::same;
  plan.partition_taps = partitioned ? plan.map.hop : m;
  plan.first_index = spec.first_index;
  if (plan.shifted) {
    plan.phase.emplace(*spec.shift_hz, spec.sample_rate);
    const double step = *spec.shift_hz / spec.sample_rate;
    plan.step_cycles = step - std::floor(step);
  }
  plan.set_taps(spec.taps);

  if (plan.phase && !plan.double_precision) {
    const std::size_t outputs = (plan.map.hop + plan.map.decimation - 1) / plan.map.decimation;
    plan.output_phasors.resize(outputs);
    for (std::size_t r = 0; r < outputs; ++r)
      plan.output_phasors[r] =
          std::complex<float>(plan.phase->phasor(static_cast<std::uint64_t>(r) * plan.map.decimation, -1));
  }
  return plan;
}

}  // namespace

void GpuFirPlan::set_taps(const FilterTaps& new_taps) {
  check_fir_taps_switch(new_taps, taps_capacity, complex_output);
  const std::size_t m = new_taps.size();
  const std::size_t n = static_cast<std::size_t>(map.n);
  const std::size_t first = first_tap_slot(same_alignment, static_cast<std::size_t>(map.offset), m);
  const std::size_t delta = fold > 1 ? static_cast<std::size_t>(map.offset % fold) : 0;
  // Each partition's taps (rotated by the shift, as FirFilter rotates them), its spectrum scaled
  // by 1/N.
  std::vector<std::complex<float>> spectra(double_precision ? 0 : partitions * n);
  std::vector<std::complex<double>> spectra64(double_precision ? partitions * n : 0);
  const double scale = 1.0 / static_cast<double>(n);
  for (std::size_t k = 0; k < partitions; ++k) {
    std::vector<std::complex<double>> time(n);
    for (std::size_t i = 0; i < partition_taps; ++i) {
      const std::size_t j = k * partition_taps + i;  // the tap's index inside the capacity
      if (j < first || j >= first + m) continue;
      std::complex<double> v = new_taps[j - first];
      if (phase) v *= phase->phasor(j, +1);
      time[i] = v;
    }
    const std::vector<std::complex<double>> spectrum = forward_dft(std::move(time));
    for (std::size_t b = 0; b < n; ++b) {
      std::complex<double> h = spectrum[b] * scale;
      // Folded: the circular convolution moved by δ, so that the points δ + D·r are rows r of
      // the inverse transform of N/D (the exponent reduced mod N before the division).
      if (delta != 0)
        h *= std::polar(1.0, 2.0 * std::numbers::pi * static_cast<double>((b * delta) % n) / static_cast<double>(n));
      if (double_precision) spectra64[k * n + b] = h;
      else spectra[k * n + b] = std::complex<float>(h);
    }
  }
  filter_spectrum = std::move(spectra);
  filter_spectrum64 = std::move(spectra64);
  taps = m;
  complex_taps = new_taps.is_complex;
}

std::size_t GpuFirPlan::max_output(std::size_t n) const {
  const std::uint64_t segments = (static_cast<std::uint64_t>(n) + map.hop - 1) / map.hop + (packed ? 1 : 0);
  return static_cast<std::size_t>((segments * map.hop + map.decimation - 1) / map.decimation);
}

std::size_t GpuFirPlan::max_segments(std::size_t max_items) const {
  // Fewer than B items may wait from earlier calls (packed, 2B), so a call completes at most
  // this many.
  return static_cast<std::size_t>((max_items + map.hop - 1) / map.hop + (packed ? 1 : 0));
}

std::size_t GpuFirPlan::spectra_ring_segments(std::size_t max_items) const {
  return max_segments(max_items) + 2 + partitions + static_cast<std::size_t>((map.offset + map.decimation) / map.hop) + 2;
}

double GpuFirPlan::anchor_cycles(std::uint64_t s) const {
  if (!phase) return 0.0;
  return phase->cycles(first_index + map.offset + map.first_output(s) * map.decimation);
}

std::string GpuFirPlan::describe() const {
  std::string text = "FFT " + std::to_string(map.n) + " (hop " + std::to_string(map.hop) + "), " +
                     std::to_string(taps) + (complex_taps ? " complex" : " real") + " taps";
  if (taps_capacity > taps) text += " (room for " + std::to_string(taps_capacity) + ")";
  if (partitions > 1)
    text += " in " + std::to_string(partitions) + " partitions of " + std::to_string(map.hop);
  if (fold > 1)
    text += ", decimation " + std::to_string(map.decimation) + " in frequency (inverse FFT " +
            std::to_string(map.n / fold) + ")";
  else if (map.decimation > 1)
    text += ", decimation " + std::to_string(map.decimation) + " (every " + std::to_string(map.decimation) +
            "th point of the inverse FFT)";
  if (packed) text += ", two real segments per transform";
  if (shifted) text += ", shifted (exact phase)";
  if (double_precision) text += ", in double precision";
  return text;
}

// ---- the schedule ------------------------------------------------------------------------------

unsigned long long GpuFirSchedule::count_with_outputs(unsigned long long first, unsigned long long end,
                                                      unsigned long long limit) const {
  unsigned long long count = 0;
  for (unsigned long long s = first; s < end; ++s)
    if (std::min(map_.first_output(s + 1), limit) > std::min(map_.first_output(s), limit)) ++count;
  return count;
}

FirCall GpuFirSchedule::process(std::size_t n) {
  if (flushing_) throw std::logic_error("GpuFirSchedule::process after flush: reset() first");
  FirCall call;
  call.block_first = items_in_;
  call.block_items = n;
  call.out_first = items_out_;
  call.out_end = FirSegmentMap::kNone;
  call.first_segment = call.end_segment = segments_done_;
  call.history_first = call.keep_first = history_first_;
  if (n == 0) return call;
  const std::uint64_t call_end = items_in_ + n;
  call.valid_end = call_end;
  call.end_segment = std::max<std::uint64_t>(segments_done_, call_end / map_.hop);
  if (paired_) call.end_segment -= call.end_segment % 2;  // done is even, so still at least done
  call.written = map_.first_output(call.end_segment) - map_.first_output(call.first_segment);
  call.segments_with_outputs = count_with_outputs(call.first_segment, call.end_segment, FirSegmentMap::kNone);
  const long long start = map_.window_start(call.end_segment);
  call.keep_first = start > 0 ? static_cast<unsigned long long>(start) : 0;
  segments_done_ = call.end_segment;
  segments_ += call.segments_with_outputs;
  items_in_ = call_end;
  items_out_ += call.written;
  history_first_ = call.keep_first;
  return call;
}

FirCall GpuFirSchedule::flush(std::size_t capacity) {
  if (!flushing_) {
    flushing_ = true;
    output_limit_ = (items_in_ + map_.decimation - 1) / map_.decimation;
  }
  FirCall call;
  call.block_first = items_in_;
  call.block_items = 0;
  call.valid_end = items_in_;
  call.history_first = call.keep_first = history_first_;
  call.out_first = items_out_;
  call.out_end = std::min<std::uint64_t>(output_limit_, items_out_ + capacity);
  if (call.out_end <= call.out_first) {
    call.out_end = call.out_first;
    call.first_segment = call.end_segment = segments_done_;
    return call;
  }
  // The segments holding outputs [out_first, out_end).
  unsigned long long s = segments_done_;
  while (map_.first_output(s + 1) <= call.out_first) ++s;
  call.first_segment = s;
  unsigned long long e = s;
  while (map_.first_output(e) < call.out_end) ++e;
  call.end_segment = e;
  call.written = call.out_end - call.out_first;
  // Segments whose outputs all went out now; a segment cut by the capacity is computed again.
  for (unsigned long long t = call.first_segment; t < call.end_segment; ++t) {
    const unsigned long long lo = std::min<unsigned long long>(map_.first_output(t), output_limit_);
    const unsigned long long hi = std::min<unsigned long long>(map_.first_output(t + 1), output_limit_);
    if (hi > lo && hi <= call.out_end) ++call.segments_with_outputs;
  }
  unsigned long long next = call.first_segment;
  while (next < call.end_segment && map_.first_output(next + 1) <= call.out_end) ++next;
  segments_done_ = next;
  segments_ += call.segments_with_outputs;
  items_out_ = call.out_end;
  return call;
}

void GpuFirSchedule::reset() {
  items_in_ = items_out_ = segments_done_ = segments_ = history_first_ = 0;
  flushing_ = false;
  output_limit_ = 0;
}

}  // namespace prism
