// Reading one sample of a chunk in its native format on the device (the GPU stages convert on
// load, so that samples cross the bus as they came): the format's code, the channel to take,
// and the integer scaling that convert_to_float (pipeline/format.hpp) applies on the host, for
// every SampleFormat (the sources hand them over in the machine's byte order).
#pragma once

#include <cuda_runtime.h>

#include "pipeline/format.hpp"

namespace prism::cuda::device {

enum FormatCode : int { f32 = 0, cf32, i16, ci16, i8, ci8, u8, cu8, f64, cf64, i32, ci32, u16, cu16, u32, cu32 };

// What a kernel needs to read a sample of one channel, fixed for a run.
struct NativeSamples {
  int format = 0;
  int complex_input = 0;
  int channels = 1;
  int channel = 0;
  int sample_bytes = 4;
  int frame_bytes = 4;
  float offset = 0.0f;  // integer zero point (128 for u8 with unit scale)
  float scale = 1.0f;   // integer scale (1/32768 for i16 with unit scale)
  // The 32-bit integers and doubles, converted in double precision as convert_to_float does.
  double wide_offset = 0.0;
  double wide_scale = 1.0;
};

// The format, channel and scaling of `stream` (unit_scale: integers scaled to [-1, 1), as
// convert_to_float does; else their stored values).
inline NativeSamples native_samples_of(const StreamInfo& stream, unsigned channel, bool unit_scale) {
  NativeSamples k;
  switch (stream.format) {
    case SampleFormat::f32: k.format = f32; break;
    case SampleFormat::cf32: k.format = cf32; break;
    case SampleFormat::i16: k.format = i16; break;
    case SampleFormat::ci16: k.format = ci16; break;
    case SampleFormat::i8: k.format = i8; break;
    case SampleFormat::ci8: k.format = ci8; break;
    case SampleFormat::u8: k.format = u8; break;
    case SampleFormat::cu8: k.format = cu8; break;
    case SampleFormat::f64: k.format = f64; break;
    case SampleFormat::cf64: k.format = cf64; break;
    case SampleFormat::i32: k.format = i32; break;
    case SampleFormat::ci32: k.format = ci32; break;
    case SampleFormat::u16: k.format = u16; break;
    case SampleFormat::cu16: k.format = cu16; break;
    case SampleFormat::u32: k.format = u32; break;
    case SampleFormat::cu32: k.format = cu32; break;
  }
  k.complex_input = is_complex(stream.format) ? 1 : 0;
  k.channels = static_cast<int>(stream.channels);
  k.channel = static_cast<int>(channel);
  k.sample_bytes = static_cast<int>(sample_bytes(stream.format));
  k.frame_bytes = static_cast<int>(stream.frame_bytes());
  switch (stream.format) {
    case SampleFormat::i16:
    case SampleFormat::ci16: k.scale = unit_scale ? 1.0f / 32768.0f : 1.0f; break;
    case SampleFormat::i8:
    case SampleFormat::ci8: k.scale = unit_scale ? 1.0f / 128.0f : 1.0f; break;
    case SampleFormat::u8:
    case SampleFormat::cu8:
      k.scale = unit_scale ? 1.0f / 128.0f : 1.0f;
      k.offset = unit_scale ? 128.0f : 0.0f;
      break;
    case SampleFormat::u16:
    case SampleFormat::cu16:
      k.scale = unit_scale ? 1.0f / 32768.0f : 1.0f;
      k.offset = unit_scale ? 32768.0f : 0.0f;
      break;
    case SampleFormat::i32:
    case SampleFormat::ci32: k.wide_scale = unit_scale ? 1.0 / 2147483648.0 : 1.0; break;
    case SampleFormat::u32:
    case SampleFormat::cu32:
      k.wide_scale = unit_scale ? 1.0 / 2147483648.0 : 1.0;
      k.wide_offset = unit_scale ? 2147483648.0 : 0.0;
      break;
    default: break;
  }
  return k;
}

// Sample `index` of the chunk `raw` (its frames side by side), channel k.channel, as (re, im).
__device__ __forceinline__ float2 convert_sample(const NativeSamples& k, const unsigned char* raw,
                                                 unsigned long long index) {
  const unsigned char* p =
      raw + index * static_cast<unsigned long long>(k.frame_bytes) + k.channel * k.sample_bytes;
  const bool complex_input = k.complex_input != 0;
  // The wide formats: (v - offset) · scale in double, one rounding, as convert_to_float.
  auto wide = [&](auto component) {
    using T = decltype(component);
    const T* v = reinterpret_cast<const T*>(p);
    const float re = static_cast<float>((static_cast<double>(v[0]) - k.wide_offset) * k.wide_scale);
    const float im = complex_input ? static_cast<float>((static_cast<double>(v[1]) - k.wide_offset) * k.wide_scale) : 0.0f;
    return make_float2(re, im);
  };
  switch (k.format) {
    case f64:
    case cf64: return wide(0.0);
    case i32:
    case ci32: return wide(0);
    case u32:
    case cu32: return wide(0u);
    default: break;
  }
  float re = 0.0f, im = 0.0f;
  switch (k.format) {
    case f32: re = *reinterpret_cast<const float*>(p); break;
    case cf32:
      re = reinterpret_cast<const float*>(p)[0];
      im = reinterpret_cast<const float*>(p)[1];
      break;
    case i16: re = static_cast<float>(*reinterpret_cast<const short*>(p)); break;
    case ci16:
      re = static_cast<float>(reinterpret_cast<const short*>(p)[0]);
      im = static_cast<float>(reinterpret_cast<const short*>(p)[1]);
      break;
    case u16: re = static_cast<float>(*reinterpret_cast<const unsigned short*>(p)); break;
    case cu16:
      re = static_cast<float>(reinterpret_cast<const unsigned short*>(p)[0]);
      im = static_cast<float>(reinterpret_cast<const unsigned short*>(p)[1]);
      break;
    case i8: re = static_cast<float>(static_cast<signed char>(p[0])); break;
    case ci8:
      re = static_cast<float>(static_cast<signed char>(p[0]));
      im = static_cast<float>(static_cast<signed char>(p[1]));
      break;
    case u8: re = static_cast<float>(p[0]); break;
    case cu8:
      re = static_cast<float>(p[0]);
      im = static_cast<float>(p[1]);
      break;
  }
  if (k.format != f32 && k.format != cf32) {  // as convert_to_float: (v - offset) · scale
    re = (re - k.offset) * k.scale;
    if (complex_input) im = (im - k.offset) * k.scale;
  }
  return make_float2(re, im);
}

// The same sample in double precision, as convert_to_double (pipeline/format.hpp): every
// format's values exactly, the unit scale's one rounding (the double-precision spectrogram's).
__device__ __forceinline__ double2 convert_sample_wide(const NativeSamples& k, const unsigned char* raw,
                                                       unsigned long long index) {
  const unsigned char* p =
      raw + index * static_cast<unsigned long long>(k.frame_bytes) + k.channel * k.sample_bytes;
  const bool complex_input = k.complex_input != 0;
  auto scaled = [&](auto component, double offset, double scale) {
    using T = decltype(component);
    const T* v = reinterpret_cast<const T*>(p);
    const double re = (static_cast<double>(v[0]) - offset) * scale;
    const double im = complex_input ? (static_cast<double>(v[1]) - offset) * scale : 0.0;
    return make_double2(re, im);
  };
  // The narrow integers' offset and scale (0, 128 or 32768; 1 or a power of two) are exact in float.
  const double offset = k.offset, scale = k.scale;
  switch (k.format) {
    case f32:
    case cf32: return scaled(0.0f, 0.0, 1.0);
    case f64:
    case cf64: return scaled(0.0, 0.0, 1.0);
    case i32:
    case ci32: return scaled(0, k.wide_offset, k.wide_scale);
    case u32:
    case cu32: return scaled(0u, k.wide_offset, k.wide_scale);
    case i16:
    case ci16: return scaled(static_cast<short>(0), offset, scale);
    case u16:
    case cu16: return scaled(static_cast<unsigned short>(0), offset, scale);
    case i8:
    case ci8: return scaled(static_cast<signed char>(0), offset, scale);
    default: return scaled(static_cast<unsigned char>(0), offset, scale);  // u8, cu8
  }
}

}  // namespace prism::cuda::device
