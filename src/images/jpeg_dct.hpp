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

// The forward transform of 64 level-shifted samples (natural order), in place. The results are
// 8 times the orthonormal DCT coefficients; the caller divides by 8 * quant when quantising.
inline void fdct_islow(std::array<std::int32_t, 64>& d) {
  using namespace dct;
  for (int pass = 0; pass < 2; ++pass) {
    const int step = pass == 0 ? 1 : 8;   // along a row, then down a column
    const int lanes = pass == 0 ? 8 : 1;  // next row / next column
    for (int lane = 0; lane < 8; ++lane) {
      std::int32_t* p = d.data() + lane * lanes;
      auto at = [&](int k) -> std::int32_t& { return p[k * step]; };
      const std::int32_t s07 = at(0) + at(7), d07 = at(0) - at(7);
      const std::int32_t s16 = at(1) + at(6), d16 = at(1) - at(6);
      const std::int32_t s25 = at(2) + at(5), d25 = at(2) - at(5);
      const std::int32_t s34 = at(3) + at(4), d34 = at(3) - at(4);
      // Even part.
      const std::int32_t e10 = s07 + s34, e13 = s07 - s34, e11 = s16 + s25, e12 = s16 - s25;
      const int out_shift = pass == 0 ? kConstBits - kPass1Bits : kConstBits + kPass1Bits;
      if (pass == 0) {
        at(0) = (e10 + e11) * (1 << kPass1Bits);
        at(4) = (e10 - e11) * (1 << kPass1Bits);
      } else {
        at(0) = descale(e10 + e11, kPass1Bits);
        at(4) = descale(e10 - e11, kPass1Bits);
      }
      const std::int32_t z1 = (e12 + e13) * k0_541196100;
      at(2) = descale(z1 + e13 * k0_765366865, out_shift);
      at(6) = descale(z1 - e12 * k1_847759065, out_shift);
      // Odd part.
      const std::int32_t z5 = (d34 + d16 + d25 + d07) * k1_175875602;
      const std::int32_t o1 = (d34 + d07) * -k0_899976223;
      const std::int32_t o2 = (d25 + d16) * -k2_562915447;
      const std::int32_t o3 = (d34 + d16) * -k1_961570560 + z5;
      const std::int32_t o4 = (d25 + d07) * -k0_390180644 + z5;
      at(7) = descale(d34 * k0_298631336 + o1 + o3, out_shift);
      at(5) = descale(d25 * k2_053119869 + o2 + o4, out_shift);
      at(3) = descale(d16 * k3_072711026 + o2 + o3, out_shift);
      at(1) = descale(d07 * k1_501321110 + o1 + o4, out_shift);
    }
  }
}

}  // namespace agentkit::images::detail
