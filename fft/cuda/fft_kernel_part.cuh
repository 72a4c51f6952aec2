// Compiles one part of the pass kernels of kCompiledLengths (see fft_pass_kernels.hpp): each
// fft_kernels_part<N>.cu includes this and instantiates kernel_part<N>.
#pragma once

#include <array>
#include <utility>

#include "fft/cuda/fft_pass_kernel.cuh"
#include "fft/cuda/fft_pass_kernels.hpp"

namespace prism::fft::gpu {

constexpr int kernels_in_part(int part) {
  return (kCompiledLengthCount - part + kKernelParts - 1) / kKernelParts;
}

template <int kPart, std::size_t... I>
constexpr auto make_pass_kernels(std::index_sequence<I...>) {
  return std::array<PassKernel, sizeof...(I)>{
      fft_pass_kernel<true, kCompiledLengths[kPart + I * kKernelParts]>...};
}

// fft_bluestein_kernel of each length and BluesteinPass (entry kBluesteinPasses * i + pass).
template <int kPart, std::size_t... I>
constexpr auto make_bluestein_kernels(std::index_sequence<I...>) {
  return std::array<PassKernel, sizeof...(I)>{
      fft_bluestein_kernel<kCompiledLengths[kPart + I / kBluesteinPasses * kKernelParts],
                           static_cast<BluesteinPass>(I % kBluesteinPasses)>...};
}

// fft_plain_rows_kernel of each length and RowsKind (entry 4i + kind), where it has one.
template <int kLength, RowsKind kKind>
constexpr PassKernel plain_rows_kernel_or_null() {
  if constexpr (has_plain_rows_kernel(kLength, kKind)) {
    return fft_plain_rows_kernel<kLength, kKind>;
  } else {
    return nullptr;
  }
}
template <int kPart, std::size_t... I>
constexpr auto make_plain_rows_kernels(std::index_sequence<I...>) {
  return std::array<PassKernel, sizeof...(I)>{
      plain_rows_kernel_or_null<kCompiledLengths[kPart + I / kRowsKinds * kKernelParts],
                                static_cast<RowsKind>(I % kRowsKinds)>()...};
}

template <int kPart>
KernelPart kernel_part() {
  static constexpr auto kernels =
      make_pass_kernels<kPart>(std::make_index_sequence<kernels_in_part(kPart)>{});
  static constexpr auto bluestein = make_bluestein_kernels<kPart>(
      std::make_index_sequence<kBluesteinPasses * kernels_in_part(kPart)>{});
  static constexpr auto plain_rows =
      make_plain_rows_kernels<kPart>(std::make_index_sequence<kRowsKinds * kernels_in_part(kPart)>{});
  return KernelPart{kernels.data(), bluestein.data(), plain_rows.data(),
                    static_cast<int>(kernels.size())};
}

}  // namespace prism::fft::gpu
