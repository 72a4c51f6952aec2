// Host executor of our CUDA FFT plans (see fft_host_executor.hpp). Each transform of a pass is
// run on its own: what a thread block does with its shared memory is done here on a local
// buffer, and the read-all / barrier / write-all of a GPU stage becomes a ping-pong between two
// buffers, which computes the same values.
#include "fft/cuda/fft_host_executor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace prism::fft::gpu {
namespace {

template <int R>
void host_stage(const StageDesc& st, int n, const Cf* twiddles, const std::vector<Cf>& from,
                std::vector<Cf>& to) {
  Cf v[R];
  for (int j = 0; j < n / R; ++j) {
    stage_compute<R>(st, n, j, twiddles, [&](int i) { return from[static_cast<std::size_t>(i)]; },
                     v);
    stage_store<R>(st, j, v, [&](int i, Cf value) { to[static_cast<std::size_t>(i)] = value; });
  }
}

// A prime stage (prime_stage_item): the twiddled inputs of each butterfly, then its items.
void host_prime_stage(const StageDesc& st, int n, const Cf* twiddles, const std::vector<Cf>& from,
                      std::vector<Cf>& to) {
  const int p = st.radix;
  const int n_over_radix = n / p;
  const Cf* roots = twiddles + stage_roots_offset(st);
  const RuntimeDivisor by_n_over_radix(n_over_radix);
  const RuntimeDivisor by_ns(st.ns);
  std::vector<Cf> inputs(static_cast<std::size_t>(p));
  Cf out[kPrimeItemOutputs];
  for (int j = 0; j < n_over_radix; ++j) {
    for (int r = 0; r < p; ++r) {
      const int i = stage_input_index(n_over_radix, j, r);
      const Cf x = from[static_cast<std::size_t>(i)];
      inputs[static_cast<std::size_t>(r)] =
          r > 0 && st.ns > 1 ? cmul(x, twiddles[prime_stage_twiddle_index(st, by_n_over_radix, by_ns, i)]) : x;
    }
    for (int g = 0; g < prime_stage_groups(p); ++g) {
      prime_stage_item(p, g, [&](int r) { return inputs[static_cast<std::size_t>(r)]; }, roots, out);
      prime_stage_store(st, j, by_ns.remainder(j), g, out, [&](int i, Cf value) { to[static_cast<std::size_t>(i)] = value; });
    }
  }
}

void host_stages(const PassDesc& p, std::vector<Cf>& data, std::vector<Cf>& other) {
  for (int s = 0; s < p.num_stages; ++s) {
    const StageDesc& st = p.stages[s];
    if (is_prime_stage_radix(st.radix)) {
      host_prime_stage(st, p.n, p.stage_tw, data, other);
      data.swap(other);
      continue;
    }
    switch (st.radix) {
      case 2: host_stage<2>(st, p.n, p.stage_tw, data, other); break;
      case 3: host_stage<3>(st, p.n, p.stage_tw, data, other); break;
      case 4: host_stage<4>(st, p.n, p.stage_tw, data, other); break;
      case 5: host_stage<5>(st, p.n, p.stage_tw, data, other); break;
      case 7: host_stage<7>(st, p.n, p.stage_tw, data, other); break;
      case 8: host_stage<8>(st, p.n, p.stage_tw, data, other); break;
      case 9: host_stage<9>(st, p.n, p.stage_tw, data, other); break;
      case 10: host_stage<10>(st, p.n, p.stage_tw, data, other); break;
      case 11: host_stage<11>(st, p.n, p.stage_tw, data, other); break;
      case 13: host_stage<13>(st, p.n, p.stage_tw, data, other); break;
      case 15: host_stage<15>(st, p.n, p.stage_tw, data, other); break;
      case 16: host_stage<16>(st, p.n, p.stage_tw, data, other); break;
      case 17: host_stage<17>(st, p.n, p.stage_tw, data, other); break;
      case 19: host_stage<19>(st, p.n, p.stage_tw, data, other); break;
      case 21: host_stage<21>(st, p.n, p.stage_tw, data, other); break;
      case 23: host_stage<23>(st, p.n, p.stage_tw, data, other); break;
      case 29: host_stage<29>(st, p.n, p.stage_tw, data, other); break;
      case 31: host_stage<31>(st, p.n, p.stage_tw, data, other); break;
      default: throw std::logic_error("host executor: no butterfly of radix " + std::to_string(st.radix));
    }
    data.swap(other);
  }
}

void host_transform(const PassDesc& p, const void* src, void* dst, long long outer,
                    long long inner, std::vector<Cf>& data, std::vector<Cf>& other) {
  data.assign(static_cast<std::size_t>(p.smem_elems), Cf{0.0f, 0.0f});
  other.assign(static_cast<std::size_t>(p.smem_elems), Cf{0.0f, 0.0f});
  for (int i = 0; i < p.load_n; ++i) data[static_cast<std::size_t>(i)] = load_element<true>(p, src, outer, inner, i);

  if (p.real_step == RealStep::c2r_pre) {
    const int h = p.n;
    data[0].im = 0.0f;
    data[static_cast<std::size_t>(h)].im = 0.0f;
    for (int k = 0; 2 * k <= h; ++k) {
      const Cf x_k = data[static_cast<std::size_t>(k)];
      const Cf x_hk = data[static_cast<std::size_t>(h - k)];
      data[static_cast<std::size_t>(k)] = conj(c2r_pre_value(x_k, x_hk, p.real_tw[k]));
      if (k > 0 && 2 * k != h) {
        data[static_cast<std::size_t>(h - k)] = conj(c2r_pre_value(x_hk, x_k, p.real_tw[h - k]));
      }
    }
  }

  host_stages(p, data, other);
  if (p.mid_conv) {
    for (int k = 0; k < p.n; ++k) {
      data[static_cast<std::size_t>(k)] =
          conj(cmul(data[static_cast<std::size_t>(k)], p.conv[inner * p.conv_inner_dist + k]));
    }
    host_stages(p, data, other);
  }

  for (int k = 0; k < p.store_n; ++k) {
    if (p.real_step == RealStep::pair_split) {
      store_pair_split(p, dst, outer, inner, k, [&](int i) { return data[static_cast<std::size_t>(i)]; });
      continue;
    }
    Cf v;
    if (p.real_step == RealStep::r2c_post) {
      const int h = p.n;
      v = r2c_post_value(data[static_cast<std::size_t>(k % h)],
                         data[static_cast<std::size_t>((h - k) % h)], p.real_tw[k]);
    } else {
      v = data[static_cast<std::size_t>(k)];
    }
    store_element(p, dst, outer, inner, k, v);
  }
}

// The blocks of a real four-step pass (r2c_post_rows, c2r_pre_columns) as the four-step kernel
// runs them: block(outer, lines) for each, lines[t] the row (or column) of team t
// (four_step_real_row over `count` of them).
template <class Block>
void for_each_real_block(long long transforms, int count, int teams, Block&& block) {
  std::vector<int> lines(static_cast<std::size_t>(teams));
  for (long long outer = 0; outer < transforms; ++outer) {
    for (int group_first = 0; group_first < count; group_first += teams) {
      for (int t = 0; t < teams; ++t) lines[static_cast<std::size_t>(t)] = four_step_real_row(group_first, t, teams, count);
      block(outer, lines);
    }
  }
}

// Elements 0..length-1 of transform `line` (a row or column of the pass) at `outer`.
void load_line(const PassDesc& p, const void* src, long long outer, int line, int length,
               std::vector<Cf>& data) {
  data.resize(static_cast<std::size_t>(length));
  for (int i = 0; i < length; ++i) data[static_cast<std::size_t>(i)] = load_element<true>(p, src, outer, line, i);
}

// A team's plane of the real exchange: element e of `line` at four_step_real_slot(line, e), the
// slot no element takes poisoned.
void fill_real_plane(int line, const std::vector<Cf>& data, std::vector<Cf>& plane) {
  plane.assign(data.size() + 1, Cf{std::nanf(""), std::nanf("")});
  for (std::size_t e = 0; e < data.size(); ++e) {
    plane[static_cast<std::size_t>(four_step_real_slot(line, static_cast<int>(e)))] = data[e];
  }
}

// The row pass of an r2c over a four-step half length (RealStep::r2c_post_rows): each block's
// rows' spectra Z, exchanged through planes at the kernel's slots (four_step_real_slot), then X
// from each row and its partner's with the kernel's twiddles.
void host_four_step_real_rows(const PassDesc& p, const void* src, void* dst, long long transforms,
                              std::vector<Cf>& other) {
  const int n2 = p.n;
  const int n1 = static_cast<int>(p.inner_count);
  const int teams = p.per_block;
  const int radix = p.stages[p.num_stages - 1].radix;
  const int butterflies = n2 / radix;
  std::vector<std::vector<Cf>> z(static_cast<std::size_t>(teams));
  std::vector<std::vector<Cf>> planes(static_cast<std::size_t>(teams));
  for_each_real_block(transforms, n1, teams, [&](long long outer, const std::vector<int>& rows) {
    for (int t = 0; t < teams; ++t) {
      const int row = rows[static_cast<std::size_t>(t)];
      std::vector<Cf>& data = z[static_cast<std::size_t>(t)];
      load_line(p, src, outer, row, n2, data);
      other.assign(static_cast<std::size_t>(n2), Cf{0.0f, 0.0f});
      host_stages(p, data, other);
      fill_real_plane(row, data, planes[static_cast<std::size_t>(t)]);
    }
    for (int t = 0; t < teams; ++t) {
      const int row = rows[static_cast<std::size_t>(t)];
      const std::vector<Cf>& own = z[static_cast<std::size_t>(t)];
      const std::vector<Cf>& partner =
          planes[static_cast<std::size_t>(four_step_real_partner_team(t, row, teams, n1))];
      for (int k = 0; k < n2; ++k) {
        const int j = k % butterflies;
        const Cf z_mirror = row == 0 && k == 0 ? own[0] : partner[static_cast<std::size_t>(four_step_real_mirror_slot(n2, k))];
        const Cf w = real_butterfly_twiddle(radix, four_step_real_twiddle(p.real_tw, row, j, n1),
                                            four_step_real_twiddle(p.real_tw, row, j + butterflies, n1),
                                            k / butterflies);
        store_element(p, dst, outer, row, k, r2c_post_value(own[static_cast<std::size_t>(k)], z_mirror, w));
      }
      if (row == 0) {
        store_element(p, dst, outer, 0, n2,
                      r2c_post_value(own[0], own[0], four_step_real_twiddle(p.real_tw, 0, n2, n1)));
      }
    }
  });
}

// The column pass of a c2r over a four-step half length (RealStep::c2r_pre_columns): conj(2Z)
// from each of the block's columns of X and its partner's, exchanged through planes at the
// kernel's slots (four_step_real_slot) with its twiddles, then the stages.
void host_four_step_real_columns(const PassDesc& p, const void* src, void* dst, long long transforms,
                                 std::vector<Cf>& other) {
  const int n1 = p.n;
  const int n2 = static_cast<int>(p.inner_count);
  const int teams = p.per_block;
  const int radix = p.stages[0].radix;
  const int butterflies = n1 / radix;
  std::vector<std::vector<Cf>> x(static_cast<std::size_t>(teams));
  std::vector<std::vector<Cf>> planes(static_cast<std::size_t>(teams));
  std::vector<Cf> data;
  for_each_real_block(transforms, n2, teams, [&](long long outer, const std::vector<int>& columns) {
    for (int t = 0; t < teams; ++t) {
      const int column = columns[static_cast<std::size_t>(t)];
      load_line(p, src, outer, column, n1, x[static_cast<std::size_t>(t)]);
      fill_real_plane(column, x[static_cast<std::size_t>(t)], planes[static_cast<std::size_t>(t)]);
    }
    const Cf x_h = static_cast<const Cf*>(src)[outer * p.in.outer_dist + static_cast<long long>(n1) * n2];
    for (int t = 0; t < teams; ++t) {
      const int column = columns[static_cast<std::size_t>(t)];
      const std::vector<Cf>& partner =
          planes[static_cast<std::size_t>(four_step_real_partner_team(t, column, teams, n2))];
      data.resize(static_cast<std::size_t>(n1));
      for (int i = 0; i < n1; ++i) {
        const int j = i % butterflies;
        const int r = i / butterflies;
        Cf x_k = x[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)];
        Cf x_mirror = partner[static_cast<std::size_t>(four_step_real_mirror_slot(n1, i))];
        if (column == 0 && i == 0) {  // X[0] pairs with X[h]; both imaginary parts ignored
          x_mirror = x_h;
          x_k.im = 0.0f;
          x_mirror.im = 0.0f;
        }
        const Cf w = real_butterfly_twiddle(radix, four_step_real_twiddle(p.real_tw, column, j, n2),
                                         four_step_real_twiddle(p.real_tw, column, j + butterflies, n2), r);
        data[static_cast<std::size_t>(i)] = conj(c2r_pre_value(x_k, x_mirror, w));
      }
      other.assign(static_cast<std::size_t>(n1), Cf{0.0f, 0.0f});
      host_stages(p, data, other);
      for (int k = 0; k < n1; ++k) store_element(p, dst, outer, column, k, data[static_cast<std::size_t>(k)]);
    }
  });
}

// The transpose step with r2c_post for transform t, as transpose_r2c_kernel does it: each tile
// of the first half of the rows with its mirror tile, each read with the row after it, the
// mirrors taken from the other (transpose_in_mirror_tile), row 0's read directly.
void host_transpose_r2c(const TransposeDesc& d, const Cf* from, Cf* to, long long t) {
  constexpr int T = kTransposeTile;
  std::vector<Cf> tile((T + 1) * T);
  std::vector<Cf> mirror((T + 1) * T);
  for (long long r0 = 0; r0 < d.rows / 2; r0 += T) {
    for (long long k0 = 0; k0 < d.columns; k0 += T) {
      long long mirror_r0 = 0;
      long long mirror_k0 = 0;
      transpose_mirror_tile(d, r0, k0, mirror_r0, mirror_k0);
      for (int i = 0; i <= T; ++i) {
        for (int j = 0; j < T; ++j) {
          tile[i * T + j] = from[transpose_in_offset(d, t, r0 + i, k0 + j)];
          if (mirror_r0 + i < d.rows) mirror[i * T + j] = from[transpose_in_offset(d, t, mirror_r0 + i, mirror_k0 + j)];
        }
      }
      for (int i = 0; i < T; ++i) {
        for (int j = 0; j < T; ++j) {
          transpose_r2c_store(
              d, from, to, t, r0, k0, mirror_r0, mirror_k0, i, j, [&](int a, int b) { return tile[a * T + b]; },
              [&](int a, int b) { return mirror[a * T + b]; });
        }
      }
    }
  }
}

void host_real_rows(const RealRowsDesc& r, const void* src, void* dst, std::size_t count) {
  const Cf* in = static_cast<const Cf*>(src);
  Cf* out = static_cast<Cf*>(dst);
  const int h = r.h;
  for (std::size_t row = 0; row < count; ++row) {
    const Cf* x = in + static_cast<long long>(row) * r.in_row_dist;
    Cf* y = out + static_cast<long long>(row) * r.out_row_dist;
    if (r.c2r) {
      for (int k = 0; k < h; ++k) y[k] = c2r_pre_of_row_at(x, h, k, real_rows_twiddle(r, k));
    } else {
      // In place: each pair (k, h-k) is read before either is written.
      for (int k = 0; 2 * k <= h; ++k) {
        const Cf z_k = x[k];
        const Cf z_hk = x[(h - k) % h];
        if (k == 0) {
          y[0] = r2c_post_value(z_k, z_k, real_rows_twiddle(r, 0));
          y[h] = r2c_post_value(z_k, z_k, real_rows_twiddle(r, h));
        } else {
          y[k] = r2c_post_value(z_k, z_hk, real_rows_twiddle(r, k));
          if (2 * k != h) y[h - k] = r2c_post_value(z_hk, z_k, real_rows_twiddle(r, h - k));
        }
      }
    }
  }
}

// Row by row, as the kernel's threads: every pair's folded input staged before any output of
// the row is stored (in place, the row is read whole first). Rows the GPU computes a row per
// thread (direct_thread_rows) go through a scratch row of direct_thread_row_stride floats, as
// there through shared memory: only direct_in_floats come in (the rest is NaN) and only
// direct_out_floats go out.
void host_direct_dft(const DirectDftDesc& d, const void* src, void* dst, std::size_t count) {
  std::vector<Cd> roots(static_cast<std::size_t>(direct_roots_count(d)));
  for (int t = 0; t < direct_roots_count(d); ++t) roots[static_cast<std::size_t>(t)] = direct_root(d.roots, t);
  std::vector<Cd> staged(static_cast<std::size_t>(direct_staged_values(d.h)));
  const bool thread_rows = direct_thread_rows(d.h);
  std::vector<float> scratch(thread_rows ? static_cast<std::size_t>(direct_thread_row_stride(d)) : 0);
  for (std::size_t row = 0; row < count; ++row) {
    const float* x = static_cast<const float*>(src) + static_cast<long long>(row) * d.in_row_dist;
    float* y = static_cast<float*>(dst) + static_cast<long long>(row) * d.out_row_dist;
    if (thread_rows) {
      std::fill(scratch.begin(), scratch.end(), std::numeric_limits<float>::quiet_NaN());
      std::copy(x, x + direct_in_floats(d), scratch.begin());
      x = scratch.data();
    }
    float* out = thread_rows ? scratch.data() : y;
    for (int j = 0; j <= direct_folds(d.h); ++j) direct_stage(d, x, roots.data(), staged.data(), j);
    for (int k = 0; k < direct_pairs(d.h); ++k) {
      Cd out_k;
      Cd out_hk;
      direct_pair(d, staged.data(), roots.data(), k, out_k, out_hk);
      direct_store(d, roots.data(), k, out_k, out_hk, out);
    }
    if (thread_rows) std::copy(scratch.begin(), scratch.begin() + direct_out_floats(d), y);
  }
}

void host_pair_split(const PairSplitDesc& d, const void* src, void* dst, std::size_t rows,
                     std::size_t transforms) {
  for (std::size_t t = 0; t < transforms; ++t) {
    for (int k = 0; 2 * k <= d.n; ++k) {
      pair_split_element(d, static_cast<const Cf*>(src), static_cast<Cf*>(dst),
                         static_cast<long long>(rows), static_cast<long long>(t), k);
    }
  }
}

void host_cluster_combine(const ClusterPassDesc& d, int k2, Cf* a) {
  switch (d.cluster) {
    case 2: cluster_combine<2>(d, k2, a); break;
    case 4: cluster_combine<4>(d, k2, a); break;
    case 8: cluster_combine<8>(d, k2, a); break;
    default: throw std::logic_error("cluster pass of " + std::to_string(d.cluster) + " blocks");
  }
}

// A cluster pass: the C blocks' shared memories become C local sequences (scatter, M-point
// stages, combine as in fft_cluster_kernel.cuh).
void host_cluster_pass(const ClusterPassDesc& d, const PassDesc& stages, const void* src,
                       void* dst, std::size_t count) {
  const int c = d.cluster;
  const int m = d.m;
  const long long n = d.n;
  std::vector<std::vector<Cf>> blocks(static_cast<std::size_t>(c));
  std::vector<Cf> other;
  std::vector<Cf> z(static_cast<std::size_t>(n));
  Cf a[16] = {};
  for (std::size_t t = 0; t < count; ++t) {
    const Cf* x = static_cast<const Cf*>(src) + static_cast<long long>(t) * d.in_dist;
    for (auto& block : blocks) block.assign(static_cast<std::size_t>(m), Cf{0.0f, 0.0f});
    for (long long j = 0; j < n; ++j) {
      Cf v;
      if (d.real_step == RealStep::c2r_pre) {
        v = c2r_pre_of_row(x, static_cast<int>(n), static_cast<int>(j), d.real_tw);
      } else {
        v = d.conj_in ? conj(x[j]) : x[j];
      }
      blocks[static_cast<std::size_t>(cluster_block_of(j, c))]
            [static_cast<std::size_t>(cluster_position_of(j, c))] = v;
    }
    for (auto& block : blocks) {
      other.assign(block.size(), Cf{0.0f, 0.0f});
      host_stages(stages, block, other);
    }
    for (int k2 = 0; k2 < m; ++k2) {
      for (int r = 0; r < c; ++r) a[r] = blocks[static_cast<std::size_t>(r)][static_cast<std::size_t>(k2)];
      host_cluster_combine(d, k2, a);
      for (int k1 = 0; k1 < c; ++k1) z[static_cast<std::size_t>(k2 + static_cast<long long>(m) * k1)] = a[k1];
    }
    Cf* out = static_cast<Cf*>(dst) + static_cast<long long>(t) * d.out_dist;
    if (d.real_step == RealStep::r2c_post) {
      for (long long k = 0; k <= n; ++k) {
        out[k] = r2c_post_value(z[static_cast<std::size_t>(k % n)],
                                z[static_cast<std::size_t>((n - k) % n)], d.real_tw[k]);
      }
    } else {
      for (long long k = 0; k < n; ++k) {
        out[k] = d.conj_out ? conj(z[static_cast<std::size_t>(k)]) : z[static_cast<std::size_t>(k)];
      }
    }
  }
}

const Cf* table_or_null(const PlanLayout& layout, int id) {
  return id < 0 ? nullptr : layout.tables[static_cast<std::size_t>(id)].data();
}
const int* index_table_or_null(const PlanLayout& layout, int id) {
  return id < 0 ? nullptr : layout.index_tables[static_cast<std::size_t>(id)].data();
}

// Rader's X[0] of each transform, and x[0] into its convolution (RaderDcDesc): the column sums
// added in order.
void host_rader_dc(const Step& step, const void* src, Cf* scratch, void* dst, std::size_t rows,
                   std::size_t transforms) {
  PassDesc p = step.pass;
  p.rows = static_cast<long long>(rows);
  const RaderDcDesc& d = step.rader;
  for (std::size_t t = 0; t < transforms; ++t) {
    const Cf x0 = rader_x0(p, src, static_cast<long long>(t));
    Cf total{0.0f, 0.0f};
    Cf* sums = scratch + static_cast<long long>(t) * d.scratch_dist;
    for (int c = 0; c < d.columns; ++c) {
      total = total + sums[c];
      sums[c] = rader_column_sum_less_x0(d, sums[c], x0);
    }
    store_rader_dc(p, dst, static_cast<long long>(t), x0, total);
  }
}

}  // namespace

void execute_on_host(const PlanLayout& layout, const void* in, void* out, std::size_t rows) {
  const std::size_t count = layout.paired_rows ? (rows + 1) / 2 : rows;  // transforms
  std::vector<Cf> scratch(static_cast<std::size_t>(layout.scratch_row) * count);
  std::vector<Cf> pair_spectra(static_cast<std::size_t>(layout.pair_spectra_row) * count);
  auto resolve = [&](BufferRef ref) -> void* {
    switch (ref) {
      case BufferRef::input: return const_cast<void*>(in);
      case BufferRef::output: return out;
      case BufferRef::scratch: return scratch.data();
      case BufferRef::pair_spectra: return pair_spectra.data();
    }
    return nullptr;
  };
  std::vector<Cf> data;
  std::vector<Cf> other;
  for (const Step& step : layout.steps) {
    const void* src = resolve(step.src);
    void* dst = resolve(step.dst);
    if (step.kind == Step::Kind::real_rows) {
      RealRowsDesc r = step.rows;
      r.real_tw = table_or_null(layout, step.real_tw);
      host_real_rows(r, src, dst, count);
      continue;
    }
    if (step.kind == Step::Kind::pair_split) {
      host_pair_split(step.split, src, dst, rows, count);
      continue;
    }
    if (step.kind == Step::Kind::rader_dc) {
      host_rader_dc(step, src, scratch.data(), dst, rows, count);
      continue;
    }
    if (step.kind == Step::Kind::rader_gather) {
      PassDesc p = step.pass;
      p.rows = static_cast<long long>(rows);
      p.load_index = index_table_or_null(layout, step.load_index);
      const long long kept = rader_outputs_kept(p, step.rader);
      for (std::size_t t = 0; t < count; ++t) {
        for (long long k = 1; k <= kept; ++k) {
          store_rader_output(p, step.rader, static_cast<const Cf*>(src), dst, static_cast<long long>(t), k);
        }
      }
      continue;
    }
    if (step.kind == Step::Kind::transpose) {
      TransposeDesc d = step.transpose;
      d.real_tw = table_or_null(layout, step.real_tw);
      const Cf* from = static_cast<const Cf*>(src);
      Cf* to = static_cast<Cf*>(dst);
      for (long long t = 0; t < static_cast<long long>(count); ++t) {
        if (d.r2c_post) {
          host_transpose_r2c(d, from, to, t);
          continue;
        }
        for (long long r = 0; r < d.rows; ++r) {
          for (long long k = 0; k < d.columns; ++k) {
            const Cf x = from[transpose_in_offset(d, t, r, k)];
            to[transpose_out_offset(d, t, r, k)] = d.conj ? conj(x) : x;
          }
        }
      }
      continue;
    }
    if (step.kind == Step::Kind::direct_dft) {
      DirectDftDesc d = step.direct;
      d.roots = table_or_null(layout, step.real_tw);
      host_direct_dft(d, src, dst, count);
      continue;
    }
    if (step.kind == Step::Kind::cluster_pass) {
      ClusterPassDesc d = step.cluster;
      d.stage_tw = table_or_null(layout, step.stage_tw);
      d.cluster_tw = table_or_null(layout, step.pass_tw);
      d.real_tw = table_or_null(layout, step.real_tw);
      PassDesc stages = step.pass;
      stages.stage_tw = d.stage_tw;
      host_cluster_pass(d, stages, src, dst, count);
      continue;
    }
    PassDesc p = step.pass;
    p.stage_tw = table_or_null(layout, step.stage_tw);
    p.pass_tw = table_or_null(layout, step.pass_tw);
    p.chirp = table_or_null(layout, step.chirp);
    p.conv = table_or_null(layout, step.conv);
    p.real_tw = table_or_null(layout, step.real_tw);
    p.load_index = index_table_or_null(layout, step.load_index);
    p.rows = static_cast<long long>(rows);
    if (p.real_step == RealStep::r2c_post_rows) {
      host_four_step_real_rows(p, src, dst, static_cast<long long>(count), other);
      continue;
    }
    if (p.real_step == RealStep::c2r_pre_columns) {
      host_four_step_real_columns(p, src, dst, static_cast<long long>(count), other);
      continue;
    }
    const long long outer_count = p.inner_is_batch ? 1 : static_cast<long long>(count);
    const long long inner_count = p.inner_is_batch ? static_cast<long long>(count) * step.batch_rows : p.inner_count;
    // A pass reading and writing the same buffer (in place) must read a whole transform before
    // writing it, as each GPU block does; host_transform loads everything first.
    for (long long outer = 0; outer < outer_count; ++outer) {
      for (long long inner = 0; inner < inner_count; ++inner) {
        host_transform(p, src, dst, outer, inner, data, other);
      }
    }
  }
}

Cf real_butterfly_twiddle(int radix, Cf w_even, Cf w_odd, int r) {
  switch (radix) {
    case 2: return real_butterfly_twiddle_of<2>(w_even, w_odd, r);
    case 3: return real_butterfly_twiddle_of<3>(w_even, w_odd, r);
    case 4: return real_butterfly_twiddle_of<4>(w_even, w_odd, r);
    case 5: return real_butterfly_twiddle_of<5>(w_even, w_odd, r);
    case 7: return real_butterfly_twiddle_of<7>(w_even, w_odd, r);
    case 8: return real_butterfly_twiddle_of<8>(w_even, w_odd, r);
    case 9: return real_butterfly_twiddle_of<9>(w_even, w_odd, r);
    case 10: return real_butterfly_twiddle_of<10>(w_even, w_odd, r);
    case 11: return real_butterfly_twiddle_of<11>(w_even, w_odd, r);
    case 13: return real_butterfly_twiddle_of<13>(w_even, w_odd, r);
    case 16: return real_butterfly_twiddle_of<16>(w_even, w_odd, r);
    default: throw std::invalid_argument("real butterfly twiddle: no unit roots for radix " + std::to_string(radix));
  }
}

}  // namespace prism::fft::gpu
