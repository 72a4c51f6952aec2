// Units of a SpectrumLayout's values, for labels and sidecars.
#include "pipeline/spectrum_layout.hpp"

#include <sstream>

namespace prism {

std::string SpectrumLayout::unit() const {
  std::string base;
  switch (quantity) {
    case SpectrumQuantity::power_spectral_density: base = "V**2/Hz"; break;
    case SpectrumQuantity::power_spectrum: base = "V**2"; break;
    case SpectrumQuantity::magnitude_density: base = "V/sqrt(Hz)"; break;
    case SpectrumQuantity::magnitude_spectrum: base = "V"; break;
    case SpectrumQuantity::complex_density: base = "V/sqrt(Hz)"; break;
    case SpectrumQuantity::complex_spectrum: base = "V"; break;
    case SpectrumQuantity::angle: base = "rad"; break;
    case SpectrumQuantity::phase: base = "rad"; break;
    case SpectrumQuantity::mel:
    case SpectrumQuantity::mfcc_of_log:
    case SpectrumQuantity::mfcc_of_decibels: {
      std::ostringstream text;
      text << "V";
      if (power != 1.0) text << "**" << power;
      // The cepstra keep the unit of the log of the bands (10·log10 as torchaudio's MFCC).
      if (quantity == SpectrumQuantity::mfcc_of_decibels) return "dB re 1 " + text.str();
      base = quantity == SpectrumQuantity::mel ? text.str() : "ln(" + text.str() + ")";
      break;
    }
  }
  return decibels ? "dB re 1 " + base : base;
}

}  // namespace prism
