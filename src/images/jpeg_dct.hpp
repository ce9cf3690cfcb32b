// The 8x8 DCT pair in integer arithmetic: the Loeffler-Ligtenberg-Moschytz factorisation (12
// multiplications per 8-point pass) in 13-bit fixed point with 2 extra bits kept between the
// passes, the method libjpeg calls "islow" and Pillow uses by default. Being the same arithmetic,
// our decoded samples match Pillow's instead of differing by a rounding level. Private to
// agentkit_images.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

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

// One 8x8 block of 16-bit lanes, row-major; both transforms run their passes over rows.
using Block = std::array<std::int16_t, 64>;

inline Block transpose(const Block& in) {
  Block out;
  for (std::size_t y = 0; y < 8; ++y) {
    for (std::size_t x = 0; x < 8; ++x) out[y * 8 + x] = in[x * 8 + y];
  }
  return out;
}

}  // namespace dct

// ---- inverse transform ------------------------------------------------------------------------
//
// libjpeg's jidctint.c arithmetic (columns, then rows; the same rounding), laid out like the
// forward transform below for the vectoriser: 16-bit values, one 8-point pass down all eight
// columns at once with 16x16->32-bit multiplies, a transpose between the passes and after.
// A hostile file's coefficients times its quantisers can be anything, so the dequantised values
// and the pass-1 outputs are narrowed to 16 bits (wrapping, as libjpeg-turbo's SIMD code wraps)
// and clamped to [-2^14, 2^14) in 16-bit lanes (SSE2 has 16-bit min and max, not 32-bit ones).
// With that no 32-bit sum can overflow (the largest stays under 1.4e9), and no valid 8-bit JPEG
// comes near the clamp or the wrap (its dequantised coefficients stay within about +-1100 and
// its pass-1 outputs within about +-6000), so real files decode exactly as libjpeg decodes them.
namespace idct {

using dct::Block;

inline constexpr std::int16_t kLow = -(1 << 14), kHigh = (1 << 14) - 1;

// The low 16 bits of v as a signed value (C++20 defines the conversion as modular).
inline std::int16_t wrap16(std::int32_t v) { return static_cast<std::int16_t>(v); }

inline std::int32_t mul(std::int16_t a, std::int16_t c) { return std::int32_t{a} * c; }
constexpr std::int16_t c16(std::int32_t c) { return static_cast<std::int16_t>(c); }

// Quantisers clamped to 2^14 (a larger one times any non-zero coefficient clamps anyway).
inline std::int16_t quantiser(std::uint32_t q) {
  return static_cast<std::int16_t>(std::min<std::uint32_t>(q, 1u << 14));
}

inline Block dequantise(const std::int16_t* coef, const std::int16_t* quant) {
  Block out;
  for (std::size_t k = 0; k < 64; ++k) {
    out[k] = std::clamp(wrap16(std::int32_t{coef[k]} * quant[k]), kLow, kHigh);
  }
  return out;
}

// One 8-point inverse pass down every column of `in`. Pass 1 keeps kPass1Bits extra bits and
// clamps; pass 2 removes them and the 3 bits of the 8x8 scale, level-shifts and clamps to a
// sample.
template <bool kFirst>
inline Block pass(const Block& in) {
  using namespace dct;
  using std::int16_t;
  using std::int32_t;
  constexpr int kShift = kFirst ? kConstBits - kPass1Bits : kConstBits + kPass1Bits + 3;
  constexpr int32_t kRound = 1 << (kShift - 1);
  // The rotations with their shared terms folded into the constants, as exact integer sums.
  constexpr int16_t k2i2 = c16(k0_541196100), k2i6 = c16(k0_541196100 - k1_847759065);
  constexpr int16_t k3i2 = c16(k0_541196100 + k0_765366865), k3i6 = c16(k0_541196100);
  constexpr int16_t k3z3 = c16(k1_175875602 - k1_961570560), k3z4 = c16(k1_175875602);
  constexpr int16_t k4z3 = c16(k1_175875602), k4z4 = c16(k1_175875602 - k0_390180644);
  Block out;
  for (std::size_t x = 0; x < 8; ++x) {
    auto at = [&](std::size_t row) { return in[row * 8 + x]; };
    // Even part: the rotation of inputs 2 and 6, then the butterflies with 0 and 4.
    // The rounding of every output, added once here: each output is e1x +- a term.
    const int32_t t0 = (int32_t{at(0)} + at(4)) * (1 << kConstBits) + kRound;
    const int32_t t1 = (int32_t{at(0)} - at(4)) * (1 << kConstBits) + kRound;
    const int32_t t2 = mul(at(2), k2i2) + mul(at(6), k2i6);
    const int32_t t3 = mul(at(2), k3i2) + mul(at(6), k3i6);
    const int32_t e10 = t0 + t3, e13 = t0 - t3, e11 = t1 + t2, e12 = t1 - t2;
    // Odd part: inputs 7, 5, 3, 1 through the shared rotation.
    const auto z1 = static_cast<int16_t>(at(7) + at(1));
    const auto z2 = static_cast<int16_t>(at(5) + at(3));
    const auto z3 = static_cast<int16_t>(at(7) + at(3));
    const auto z4 = static_cast<int16_t>(at(5) + at(1));
    const int32_t p1 = mul(z1, c16(-k0_899976223));
    const int32_t p2 = mul(z2, c16(-k2_562915447));
    const int32_t p3 = mul(z3, k3z3) + mul(z4, k3z4);
    const int32_t p4 = mul(z3, k4z3) + mul(z4, k4z4);
    const int32_t a0 = mul(at(7), c16(k0_298631336)) + p1 + p3;
    const int32_t a1 = mul(at(5), c16(k2_053119869)) + p2 + p4;
    const int32_t a2 = mul(at(3), c16(k3_072711026)) + p2 + p3;
    const int32_t a3 = mul(at(1), c16(k1_501321110)) + p1 + p4;
    auto put = [&](std::size_t row, int32_t v) {
      const int16_t narrow = wrap16((v >> kShift) + (kFirst ? 0 : 128));
      out[row * 8 + x] =
          kFirst ? std::clamp(narrow, kLow, kHigh) : std::clamp<int16_t>(narrow, 0, 255);
    };
    put(0, e10 + a3);
    put(7, e10 - a3);
    put(1, e11 + a2);
    put(6, e11 - a2);
    put(2, e12 + a1);
    put(5, e12 - a1);
    put(3, e13 + a0);
    put(4, e13 - a0);
  }
  return out;
}

}  // namespace idct

// Dequantises `coef` (natural order) by `quant` (idct::quantiser values) and writes the 8x8
// samples, level-shifted and clamped to 0..255, at out[y * stride + x].
inline void idct_islow(const std::int16_t* coef, const std::int16_t* quant, std::uint8_t* out,
                       std::size_t stride) {
  using dct::transpose;
  using idct::pass;
  const idct::Block samples =
      transpose(pass<false>(transpose(pass<true>(idct::dequantise(coef, quant)))));
  std::array<std::uint8_t, 64> bytes;  // narrowed here, where the compiler packs whole vectors
  for (std::size_t k = 0; k < 64; ++k) bytes[k] = static_cast<std::uint8_t>(samples[k]);
  for (std::size_t y = 0; y < 8; ++y) std::memcpy(out + y * stride, bytes.data() + y * 8, 8);
}

// idct_islow of a block whose AC terms are all zero: one flat value, the same arithmetic.
inline void idct_dc_only(std::int16_t dc, std::int16_t quant, std::uint8_t* out,
                         std::size_t stride) {
  using namespace dct;
  using idct::wrap16;
  const std::int16_t v = std::clamp(wrap16(std::int32_t{dc} * quant), idct::kLow, idct::kHigh);
  const std::int16_t pass1 = std::clamp(wrap16(v * (1 << kPass1Bits)), idct::kLow, idct::kHigh);
  const std::int16_t level = wrap16(descale(pass1, kPass1Bits + 3) + 128);
  const auto sample = static_cast<std::uint8_t>(std::clamp<std::int16_t>(level, 0, 255));
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

using dct::Block;

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
  using dct::transpose;
  using fdct::pass;
  return pass<false>(transpose(pass<true>(transpose(block))));
}

}  // namespace agentkit::images::detail
