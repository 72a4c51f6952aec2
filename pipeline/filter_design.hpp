// FIR filter design by the window method, in double precision (callers cast the taps):
//   - scipy.signal's firwin, kaiserord, kaiser_beta and kaiser_atten with scipy's semantics
//     (the taps equal scipy 1.10's to about 1e-15 relative);
//   - a complex band-pass with asymmetric edges (SSB, off-centre channels);
//   - FilterDesignSpec -> design_filter(): the one call the filter stages and `prism design`
//     make, with validation that names the spec's field;
//   - the response of any taps: freqz on a grid, H at a frequency, group delay, and a design's
//     figures (passband ripple, stopband attenuation, group delay).
#pragma once

#include <complex>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "filter_taps.hpp"
#include "window.hpp"

namespace prism {

// The longest filter these functions design (2^22 taps).
inline constexpr std::size_t kMaxDesignTaps = std::size_t{1} << 22;

// A design parameter is out of range. field() names it: firwin's parameter ("numtaps",
// "cutoff", "width", "fs", "window") or FilterDesignSpec's member ("edges", "sample_rate",
// "numtaps", "transition", "attenuation", "window"); reason() says what is wrong and what is
// valid, without the name, so that a command line can put its option's name in front.
class FilterDesignError : public UsageError {
 public:
  FilterDesignError(std::string field, std::string reason)
      : UsageError(field + ": " + reason), field_(std::move(field)), reason_(std::move(reason)) {}
  const std::string& field() const noexcept { return field_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string field_;
  std::string reason_;
};

// ---- scipy.signal's functions ------------------------------------------------------------

// scipy's pass_zero: yes = True (the first band, from 0, passes), no = False (0 is stopped);
// the named forms are the same with a check of the number of cutoffs (lowpass and highpass
// take one, bandpass and bandstop two or more).
enum class PassZero { yes, no, lowpass, highpass, bandpass, bandstop };

struct FirwinOptions {
  // Transition width (units of fs): when set, the window is Kaiser's with
  // beta = kaiser_beta(kaiser_atten(numtaps, width / (fs/2))) and `window` is ignored.
  std::optional<double> width = std::nullopt;
  WindowSpec window{WindowKind::hamming};  // used symmetric (get_window fftbins=False)
  PassZero pass_zero = PassZero::yes;
  // Scale so that |H| is exactly 1 at 0 (first band starts at 0), at fs/2 (first band ends
  // there), else at the centre of the first passband.
  bool scale = true;
  double fs = 2.0;  // sample rate, > 0; the cutoffs are in its units
};

// scipy.signal.firwin(numtaps, cutoff, width, window, pass_zero, scale, fs=fs).
// numtaps in 1..kMaxDesignTaps; cutoffs strictly increasing, each in (0, fs/2) exclusive;
// numtaps must be odd when the last band passes fs/2 (an even-length linear-phase filter is
// zero there). Throws FilterDesignError naming the parameter. (scipy accepts numtaps 0 and
// returns nothing; here that is an error.)
std::vector<double> firwin(std::size_t numtaps, const std::vector<double>& cutoff,
                           const FirwinOptions& options = {});

struct KaiserOrder {
  std::size_t numtaps = 0;
  double beta = 0.0;
};

// scipy.signal.kaiserord(ripple, width): the Kaiser window's length and beta for a maximum
// deviation of |ripple| dB (>= 8, where Kaiser's formula holds) in both bands and a transition
// width as a fraction of the Nyquist frequency (> 0; 1 is fs/2). The length is not made odd.
// Throws FilterDesignError ("ripple", "width"), also when the length would exceed
// kMaxDesignTaps.
KaiserOrder kaiserord(double ripple_db, double width);

// scipy.signal.kaiser_beta(a): 0.1102(a − 8.7) above 50 dB, 0.5842(a − 21)^0.4 + 0.07886(a − 21)
// from 21 to 50, else 0.
double kaiser_beta(double attenuation_db);

// scipy.signal.kaiser_atten(numtaps, width): 2.285(numtaps − 1)·π·width + 7.95 dB, width as a
// fraction of the Nyquist frequency.
double kaiser_atten(std::size_t numtaps, double width);

// A complex band-pass from f_low to f_high (units of fs; f_low < f_high, both within
// [−fs/2, fs/2], f_high − f_low < fs): the real low-pass prototype
//   p = firwin(numtaps, (f_high − f_low)/2, width, window, scale, fs)
// shifted to the band's centre fc = (f_low + f_high)/2:
//   h[n] = p[n] · exp(+j·2π·(fc/fs)·(n − (numtaps−1)/2)),   n = 0..numtaps−1.
// The phase is referred to the middle tap, so h[numtaps−1−n] = conj(h[n]) and
// H(f) = P(f − fc): a real-valued (linear-phase) response centred on fc, exactly 1 there when
// scaled, with the prototype's delay of (numtaps−1)/2 samples. The phase ν·k mod 1 (ν = fc/fs)
// is reduced exactly before the exponential, so long filters keep full precision.
// Any numtaps (odd or even). Throws FilterDesignError ("numtaps", "f_low", "f_high", "fs",
// "width").
std::vector<std::complex<double>> complex_bandpass(std::size_t numtaps, double f_low,
                                                   double f_high, double fs,
                                                   const WindowSpec& window = WindowSpec{WindowKind::hamming},
                                                   std::optional<double> width = std::nullopt,
                                                   bool scale = true);

// ---- a design from a specification ----------------------------------------------------

enum class BandKind { lowpass, highpass, bandpass, bandstop, complex_bandpass };

// "lowpass", "highpass", "bandpass", "bandstop", "complex-bandpass".
std::string_view band_kind_name(BandKind kind);

// What a filter stage or the command line asks for. Frequencies in Hz.
//   edges: lowpass, highpass: {cutoff}; bandpass, bandstop: {f1, f2} (or more, strictly
//          increasing: firwin's multi-band with the band kind's pass_zero), each in
//          (0, sample_rate/2) exclusive; complex_bandpass: {f_low, f_high} as complex_bandpass().
//   The length, one of:
//     numtaps [+ window]           firwin(numtaps, edges, window), window default hamming;
//     numtaps + transition         firwin(numtaps, edges, width=transition): Kaiser window;
//     transition + attenuation     kaiserord(attenuation, transition/(sample_rate/2)) gives
//                                  numtaps and beta, numtaps raised to odd when the band passes
//                                  sample_rate/2 (highpass, bandstop, multi-band ending there).
//   numtaps: 1..kMaxDesignTaps, odd when the band passes sample_rate/2 (complex band-pass: any);
//   transition: > 0 Hz; attenuation: 8..300 dB; window: only with numtaps alone.
struct FilterDesignSpec {
  BandKind band = BandKind::lowpass;
  std::vector<double> edges;
  double sample_rate = 0.0;
  std::optional<std::size_t> numtaps;
  std::optional<double> transition;
  std::optional<double> attenuation;
  std::optional<WindowSpec> window;
};

// A band of frequencies in Hz, low < high. A design's bands lie within [0, fs/2] (real taps)
// or [-fs/2, fs/2] (complex taps); measure_response takes any (the response is periodic in fs).
struct FrequencyBand {
  double low = 0.0;
  double high = 0.0;
};

struct FilterDesign {
  FilterDesignSpec spec;  // as given
  FilterTaps taps;        // real, or complex for complex_bandpass
  WindowSpec window;      // the window the taps were made with (kaiser:beta for Kaiser designs)
  // The transition width (Hz) around each edge that the figures leave out: spec.transition
  // when given, else the main-lobe width of the window's spectrum (twice the distance from 0 to
  // its first null), the window method's own transition width.
  double transition = 0.0;
  bool transition_from_window = false;
  std::vector<FrequencyBand> passbands;  // the ideal response is 1 there, transitions left out
  std::vector<FrequencyBand> stopbands;  // the ideal response is 0 there
  double group_delay = 0.0;              // samples: (numtaps − 1)/2, all designs are linear-phase
};

// Throws FilterDesignError naming the FilterDesignSpec field that is out of range.
void validate(const FilterDesignSpec& spec);

// Validates and designs.
FilterDesign design_filter(const FilterDesignSpec& spec);

// ---- the response of any taps --------------------------------------------------------

struct FrequencyResponse {
  std::vector<double> frequencies;              // units of fs
  std::vector<std::complex<double>> values;     // H at each frequency
};

// scipy.signal.freqz(taps, worN=points, whole=whole, fs=fs): H(f) = Σ h[n]·e^(−j2πfn/fs) at
// f = k·fs/(2·points) (whole: k·fs/points), k = 0..points−1; by FFTW in double precision.
// points >= 1, fs > 0.
FrequencyResponse freqz(const FilterTaps& taps, std::size_t points, bool whole, double fs);

// H(f) by the direct sum, at any frequency (units of fs).
std::complex<double> response_at(const FilterTaps& taps, double frequency, double fs);

// scipy.signal.group_delay at one frequency: −dφ/dω in samples,
// Re(Σ n·h[n]·e^(−jωn) / Σ h[n]·e^(−jωn)). NaN where H is 0.
double group_delay_at(const FilterTaps& taps, double frequency, double fs);

// Whether h[M−1−n] = ±conj(h[n]) for all n within `tolerance` × max|h| (real taps: symmetric
// or antisymmetric), which makes the group delay (M − 1)/2 at every frequency.
bool is_linear_phase(const FilterTaps& taps, double tolerance = 1e-12);

struct ResponseFigures {
  // 20·log10|H| over all passbands: its extremes and their difference (peak to peak). NaN
  // without passbands.
  double passband_min_db = 0.0;
  double passband_max_db = 0.0;
  double passband_ripple_db = 0.0;
  // −20·log10 of the largest |H| over all stopbands (infinite where H is 0 there). NaN
  // without stopbands.
  double stopband_attenuation_db = 0.0;
  bool linear_phase = false;
  // Samples: (M − 1)/2 for linear-phase taps, else the group delay at the middle of the first
  // passband (NaN without one).
  double group_delay = 0.0;
};

// The figures of any taps over the given bands (Hz): the extremes of |H| are found on a grid
// of at least 8 points per fs/M (up to 2^23 points), then refined by direct evaluation around
// the largest candidates; band edges are evaluated exactly.
ResponseFigures measure_response(const FilterTaps& taps, double fs,
                                 const std::vector<FrequencyBand>& passbands,
                                 const std::vector<FrequencyBand>& stopbands);

// measure_response over the design's own bands.
ResponseFigures measure_response(const FilterDesign& design);

}  // namespace prism
