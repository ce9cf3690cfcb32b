// The 8x8 DCT pair in integer arithmetic: the Loeffler-Ligtenberg-Moschytz factorisation (12
// multiplications per 8-point pass) in 13-bit fixed point with 2 extra bits kept between the
// passes, the method libjpeg calls "islow" and Pillow uses by default. Being the same arithmetic,
// our decoded samples match Pillow's instead of differing by a rounding level. Private to
// agentkit_images.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace agentkit::images::detail {

namespace dct {

inline constexpr int kConstBits = 13;
inline constexpr int kPass1Bits = 2;

// Round(x * 2^13): the rotation constants of the factorisation.
constexpr std::int32_t fix(double x) {
  return static_cast<std::int32_t>(x * (1 << kConstBits) + 0.5);
}
inline constexpr std::int32_t k0_298631336 = fix(0.298631336);
inline constexpr std::int32_t k0_390180644 = fix(0.390180644);
inline constexpr std::int32_t k0_541196100 = fix(0.541196100);
inline constexpr std::int32_t k0_765366865 = fix(0.765366865);
inline constexpr std::int32_t k0_899976223 = fix(0.899976223);
inline constexpr std::int32_t k1_175875602 = fix(1.175875602);
inline constexpr std::int32_t k1_501321110 = fix(1.501321110);
inline constexpr std::int32_t k1_847759065 = fix(1.847759065);
inline constexpr std::int32_t k1_961570560 = fix(1.961570560);
inline constexpr std::int32_t k2_053119869 = fix(2.053119869);
inline constexpr std::int32_t k2_562915447 = fix(2.562915447);
inline constexpr std::int32_t k3_072711026 = fix(3.072711026);

// x / 2^n rounded to nearest (arithmetic shift: C++20 defines it for negative values).
constexpr std::int32_t descale(std::int32_t x, int n) { return (x + (1 << (n - 1))) >> n; }

// One 8-point inverse pass. The outputs are returned un-descaled (scaled by 2^13) for the
// caller's own shift. 64-bit: a hostile file's coefficients times 16-bit quantisers would
// overflow 32 bits.
using Wide = std::int64_t;
constexpr Wide descale_wide(Wide x, int n) { return (x + (Wide{1} << (n - 1))) >> n; }
struct Idct8 {
  Wide o[8];
};
inline Idct8 idct8(Wide i0, Wide i1, Wide i2, Wide i3, Wide i4, Wide i5, Wide i6, Wide i7) {
  // Even part: the rotation of inputs 2 and 6, then the butterflies with 0 and 4.
  Wide z1 = (i2 + i6) * k0_541196100;
  const Wide t2 = z1 - i6 * k1_847759065;
  const Wide t3 = z1 + i2 * k0_765366865;
  const Wide t0 = (i0 + i4) * (1 << kConstBits);
  const Wide t1 = (i0 - i4) * (1 << kConstBits);
  const Wide e10 = t0 + t3, e13 = t0 - t3, e11 = t1 + t2, e12 = t1 - t2;
  // Odd part: inputs 7, 5, 3, 1 through the shared rotation z5.
  z1 = i7 + i1;
  Wide z2 = i5 + i3;
  Wide z3 = i7 + i3;
  Wide z4 = i5 + i1;
  const Wide z5 = (z3 + z4) * k1_175875602;
  Wide a0 = i7 * k0_298631336, a1 = i5 * k2_053119869;
  Wide a2 = i3 * k3_072711026, a3 = i1 * k1_501321110;
  z1 *= -k0_899976223;
  z2 *= -k2_562915447;
  z3 = z3 * -k1_961570560 + z5;
  z4 = z4 * -k0_390180644 + z5;
  a0 += z1 + z3;
  a1 += z2 + z4;
  a2 += z2 + z3;
  a3 += z1 + z4;
  return {{e10 + a3, e11 + a2, e12 + a1, e13 + a0, e13 - a0, e12 - a1, e11 - a2, e10 - a3}};
}

}  // namespace dct

// Dequantises `coef` (natural order) by `quant` and writes the 8x8 samples, level-shifted and
// clamped to 0..255, at out[y * stride + x].
inline void idct_islow(const std::int16_t* coef, const std::uint16_t* quant, std::uint8_t* out,
                       std::size_t stride) {
  using namespace dct;
  std::array<Wide, 64> ws;
  for (int x = 0; x < 8; ++x) {  // columns
    const std::int16_t* c = coef + x;
    const std::uint16_t* q = quant + x;
    if ((c[8] | c[16] | c[24] | c[32] | c[40] | c[48] | c[56]) == 0) {
      // Only the DC term: the column is flat (the common case after quantisation).
      const Wide dc = Wide{c[0]} * q[0] * (1 << kPass1Bits);
      for (int y = 0; y < 8; ++y) ws[static_cast<std::size_t>(y * 8 + x)] = dc;
      continue;
    }
    const Idct8 r =
        idct8(Wide{c[0]} * q[0], Wide{c[8]} * q[8], Wide{c[16]} * q[16], Wide{c[24]} * q[24],
              Wide{c[32]} * q[32], Wide{c[40]} * q[40], Wide{c[48]} * q[48], Wide{c[56]} * q[56]);
    for (int y = 0; y < 8; ++y) {
      ws[static_cast<std::size_t>(y * 8 + x)] = descale_wide(r.o[y], kConstBits - kPass1Bits);
    }
  }
  constexpr int kShift = kConstBits + kPass1Bits + 3;
  auto sample = [](Wide v) { return static_cast<std::uint8_t>(std::clamp<Wide>(v + 128, 0, 255)); };
  for (int y = 0; y < 8; ++y) {  // rows
    const Wide* w = ws.data() + y * 8;
    std::uint8_t* row = out + static_cast<std::size_t>(y) * stride;
    if ((w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) == 0) {
      std::fill_n(row, 8, sample(descale_wide(w[0], kPass1Bits + 3)));
      continue;
    }
    const Idct8 r = idct8(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]);
    for (int x = 0; x < 8; ++x) row[x] = sample(descale_wide(r.o[x], kShift));
  }
}

// idct_islow of a block whose AC terms are all zero: one flat value, the same arithmetic.
inline void idct_dc_only(std::int16_t dc, std::uint16_t quant, std::uint8_t* out,
                         std::size_t stride) {
  using namespace dct;
  const Wide v = descale_wide(Wide{dc} * quant * (1 << kPass1Bits), kPass1Bits + 3);
  const auto sample = static_cast<std::uint8_t>(std::clamp<Wide>(v + 128, 0, 255));
  for (int y = 0; y < 8; ++y) std::fill_n(out + static_cast<std::size_t>(y) * stride, 8, sample);
}

// ---- forward transform ------------------------------------------------------------------------
//
// The same LLM arithmetic as libjpeg's jfdctint.c (rows, then columns, the same rounding), laid
// out for the compiler's vectoriser: a block is 64 int16 values, a pass runs one 8-point transform
// down each of the 8 columns at once (the loop body is the same for every column, so it becomes
// 8-lane vector code with 16x16->32-bit multiplies), and a transpose in front of each pass makes
// "down the columns" mean "along the rows" for the first pass and "down the columns" for the
// second. Every intermediate fits its type for 8-bit samples: pass-1 outputs are within +-4096,
// the int16 sums formed from them within +-16384 (sums of four are never formed in 16 bits: the
// products are distributed instead), and no 32-bit sum exceeds 2^30.
namespace fdct {

using Block = std::array<std::int16_t, 64>;

inline std::int32_t mul(std::int16_t a, std::int16_t c) { return std::int32_t{a} * c; }
constexpr std::int16_t c16(std::int32_t c) { return static_cast<std::int16_t>(c); }

// One 8-point pass down every column of `in`. Pass 1 keeps kPass1Bits extra bits; pass 2
// removes them.
template <bool kFirst>
inline Block pass(const Block& in) {
  using namespace dct;
  using std::int16_t;
  using std::int32_t;
  constexpr int kShift = kFirst ? kConstBits - kPass1Bits : kConstBits + kPass1Bits;
  constexpr int32_t kRound = 1 << (kShift - 1);
  // The rotations with their shared terms folded into the constants, as exact integer sums.
  constexpr int16_t k2e12 = c16(k0_541196100), k2e13 = c16(k0_541196100 + k0_765366865);
  constexpr int16_t k6e12 = c16(k0_541196100 - k1_847759065), k6e13 = c16(k0_541196100);
  constexpr int16_t k3z3 = c16(k1_175875602 - k1_961570560), k3z4 = c16(k1_175875602);
  constexpr int16_t k4z3 = c16(k1_175875602), k4z4 = c16(k1_175875602 - k0_390180644);
  Block out;
  for (std::size_t x = 0; x < 8; ++x) {
    auto at = [&](std::size_t row) { return in[row * 8 + x]; };
    const auto s07 = static_cast<int16_t>(at(0) + at(7));
    const auto d07 = static_cast<int16_t>(at(0) - at(7));
    const auto s16 = static_cast<int16_t>(at(1) + at(6));
    const auto d16 = static_cast<int16_t>(at(1) - at(6));
    const auto s25 = static_cast<int16_t>(at(2) + at(5));
    const auto d25 = static_cast<int16_t>(at(2) - at(5));
    const auto s34 = static_cast<int16_t>(at(3) + at(4));
    const auto d34 = static_cast<int16_t>(at(3) - at(4));
    const auto e10 = static_cast<int16_t>(s07 + s34);
    const auto e13 = static_cast<int16_t>(s07 - s34);
    const auto e11 = static_cast<int16_t>(s16 + s25);
    const auto e12 = static_cast<int16_t>(s16 - s25);
    auto put = [&](std::size_t row, int32_t v) { out[row * 8 + x] = static_cast<int16_t>(v); };
    if constexpr (kFirst) {
      put(0, (e10 + e11) * (1 << kPass1Bits));
      put(4, (e10 - e11) * (1 << kPass1Bits));
    } else {
      put(0, descale(int32_t{e10} + e11, kPass1Bits));
      put(4, descale(int32_t{e10} - e11, kPass1Bits));
    }
    put(2, (mul(e12, k2e12) + mul(e13, k2e13) + kRound) >> kShift);
    put(6, (mul(e12, k6e12) + mul(e13, k6e13) + kRound) >> kShift);
    const auto z3 = static_cast<int16_t>(d34 + d16);
    const auto z4 = static_cast<int16_t>(d25 + d07);
    const int32_t o1 = mul(static_cast<int16_t>(d34 + d07), c16(-k0_899976223));
    const int32_t o2 = mul(static_cast<int16_t>(d25 + d16), c16(-k2_562915447));
    const int32_t o3 = mul(z3, k3z3) + mul(z4, k3z4);
    const int32_t o4 = mul(z3, k4z3) + mul(z4, k4z4);
    put(7, (mul(d34, c16(k0_298631336)) + o1 + o3 + kRound) >> kShift);
    put(5, (mul(d25, c16(k2_053119869)) + o2 + o4 + kRound) >> kShift);
    put(3, (mul(d16, c16(k3_072711026)) + o2 + o3 + kRound) >> kShift);
    put(1, (mul(d07, c16(k1_501321110)) + o1 + o4 + kRound) >> kShift);
  }
  return out;
}

inline Block transpose(const Block& in) {
  Block out;
  for (std::size_t y = 0; y < 8; ++y) {
    for (std::size_t x = 0; x < 8; ++x) out[y * 8 + x] = in[x * 8 + y];
  }
  return out;
}

}  // namespace fdct

// The forward transform of the 8x8 samples at `src` (rows `stride` apart), level-shifted, into
// 64 coefficients in natural order, each 8 times the orthonormal DCT coefficient (within
// +-8192); the caller divides by 8 * quant when quantising.
inline fdct::Block fdct_islow(const std::uint8_t* src, std::size_t stride) {
  fdct::Block block;
  for (std::size_t y = 0; y < 8; ++y) {
    for (std::size_t x = 0; x < 8; ++x) {
      block[y * 8 + x] = static_cast<std::int16_t>(src[y * stride + x] - 128);
    }
  }
  using fdct::pass;
  using fdct::transpose;
  return pass<false>(transpose(pass<true>(transpose(block))));
}

}  // namespace agentkit::images::detail
