/// \file
/// \brief Implementation of the seeded input generators.
#include "common/distributions.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "common/errors.hpp"
#include "common/key_traits.hpp"

namespace sortlab {
namespace {

struct NamedDistribution {
  Distribution distribution;
  const char* name;
};

constexpr NamedDistribution kNames[] = {
    {Distribution::kUniform, "uniform"},     {Distribution::kEntropyReduced, "entropy"},
    {Distribution::kFewDistinct, "few"},     {Distribution::kAllEqual, "equal"},
    {Distribution::kSorted, "sorted"},       {Distribution::kReversed, "reversed"},
    {Distribution::kNearlySorted, "nearly"}, {Distribution::kFloatSpecials, "specials"},
};

/// Exponent width of each floating key type; the mantissa is what remains after the sign bit.
template <typename Key>
constexpr int exponent_bits() {
  if constexpr (std::is_same_v<Key, __half>) return 5;
  if constexpr (std::is_same_v<Key, __nv_bfloat16>) return 8;
  if constexpr (std::is_same_v<Key, float>) return 8;
  return 11;  // double
}

/// Bit patterns of the values that break naive float sorts.
template <typename Key>
std::vector<typename KeyTraits<Key>::Bits> special_bit_patterns() {
  using Traits = KeyTraits<Key>;
  using Bits = typename Traits::Bits;
  std::vector<Bits> specials;
  if constexpr (Traits::kIsFloating) {
    constexpr int kMantissaBits = Traits::kNumBits - 1 - exponent_bits<Key>();
    const Bits sign = Traits::kHighBit;
    const Bits infinity = static_cast<Bits>(Traits::kHighBit - (Bits{1} << kMantissaBits));
    const Bits quiet_nan = static_cast<Bits>(infinity | (Bits{1} << (kMantissaBits - 1)));
    const Bits max_denormal = static_cast<Bits>((Bits{1} << kMantissaBits) - 1);
    const Bits max_finite = static_cast<Bits>(infinity - 1);
    const Bits one =
        static_cast<Bits>(((Bits{1} << (exponent_bits<Key>() - 1)) - 1) << kMantissaBits);
    for (Bits magnitude : {Bits{0}, infinity, quiet_nan, Bits{1}, max_denormal, max_finite, one}) {
      specials.push_back(magnitude);
      specials.push_back(static_cast<Bits>(magnitude | sign));
    }
  } else {
    const Bits all_ones = static_cast<Bits>(~Bits{0});
    const Bits low = std::is_signed_v<Key> ? Traits::kHighBit : Bits{0};
    const Bits high = std::is_signed_v<Key> ? static_cast<Bits>(Traits::kHighBit - 1) : all_ones;
    specials = {low,
                high,
                Bits{0},
                Bits{1},
                all_ones,
                static_cast<Bits>(low + 1),
                static_cast<Bits>(high - 1)};
  }
  return specials;
}

template <typename Key>
void sort_by_key_order(std::vector<Key>& keys, bool descending) {
  std::stable_sort(keys.begin(), keys.end(), [descending](Key a, Key b) {
    return KeyTraits<Key>::to_ordered(a, descending) < KeyTraits<Key>::to_ordered(b, descending);
  });
}

}  // namespace

const std::vector<Distribution>& all_distributions() {
  static const std::vector<Distribution> all = [] {
    std::vector<Distribution> list;
    for (const auto& entry : kNames) list.push_back(entry.distribution);
    return list;
  }();
  return all;
}

std::string to_string(Distribution distribution) {
  for (const auto& entry : kNames)
    if (entry.distribution == distribution) return entry.name;
  throw Error("to_string: unknown Distribution value");
}

Distribution parse_distribution(const std::string& name) {
  std::string valid;
  for (const auto& entry : kNames) {
    if (name == entry.name) return entry.distribution;
    valid += std::string(valid.empty() ? "" : ", ") + entry.name;
  }
  throw Error("unknown distribution '" + name + "' (valid: " + valid + ")");
}

double entropy_per_bit(int and_count) {
  const double p = std::ldexp(1.0, -(and_count + 1));  // chance a bit is 1 after and_count ANDs
  if (and_count <= 0) return 1.0;
  return -(p * std::log2(p) + (1 - p) * std::log2(1 - p));
}

template <typename Key>
std::vector<Key> generate_keys(Distribution distribution, std::size_t n, std::uint64_t seed,
                               const GeneratorOptions& options) {
  using Traits = KeyTraits<Key>;
  using Bits = typename Traits::Bits;
  require(options.and_count >= 0, "generate_keys: and_count must be >= 0");
  require(options.distinct_values >= 1, "generate_keys: distinct_values must be >= 1");
  std::mt19937_64 engine(seed);
  auto draw = [&engine]() { return static_cast<Bits>(engine()); };

  std::vector<Bits> bits(n);
  switch (distribution) {
    case Distribution::kUniform:
    case Distribution::kSorted:
    case Distribution::kReversed:
    case Distribution::kNearlySorted:
      for (auto& b : bits) b = draw();
      break;
    case Distribution::kEntropyReduced:
      for (auto& b : bits) {
        b = draw();
        for (int i = 0; i < options.and_count; ++i) b = static_cast<Bits>(b & draw());
      }
      break;
    case Distribution::kFewDistinct: {
      std::vector<Bits> palette(options.distinct_values);
      for (auto& p : palette) p = draw();
      std::uniform_int_distribution<std::size_t> pick(0, palette.size() - 1);
      for (auto& b : bits) b = palette[pick(engine)];
      break;
    }
    case Distribution::kAllEqual: {
      const Bits value = draw();
      std::fill(bits.begin(), bits.end(), value);
      break;
    }
    case Distribution::kFloatSpecials: {
      const auto specials = special_bit_patterns<Key>();
      std::uniform_int_distribution<std::size_t> pick(0, 2 * specials.size() - 1);
      for (auto& b : bits) {
        const std::size_t choice = pick(engine);
        b = choice < specials.size() ? specials[choice] : draw();  // half specials, half uniform
      }
      break;
    }
  }

  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = Traits::from_raw_bits(bits[i]);
  if (distribution == Distribution::kSorted || distribution == Distribution::kNearlySorted)
    sort_by_key_order(keys, false);
  if (distribution == Distribution::kReversed) sort_by_key_order(keys, true);
  if (distribution == Distribution::kNearlySorted && n > 1) {
    std::uniform_int_distribution<std::size_t> position(0, n - 1);
    for (std::size_t swaps = 0; swaps < std::max<std::size_t>(1, n / 100); ++swaps)
      std::swap(keys[position(engine)], keys[position(engine)]);
  }
  return keys;
}

std::vector<std::uint32_t> iota_values(std::size_t n) {
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  return values;
}

#define SORTLAB_INSTANTIATE_GENERATOR(Key)                                               \
  template std::vector<Key> generate_keys<Key>(Distribution, std::size_t, std::uint64_t, \
                                               const GeneratorOptions&);
SORTLAB_INSTANTIATE_GENERATOR(std::uint8_t)
SORTLAB_INSTANTIATE_GENERATOR(std::uint16_t)
SORTLAB_INSTANTIATE_GENERATOR(std::uint32_t)
SORTLAB_INSTANTIATE_GENERATOR(std::uint64_t)
SORTLAB_INSTANTIATE_GENERATOR(std::int8_t)
SORTLAB_INSTANTIATE_GENERATOR(std::int16_t)
SORTLAB_INSTANTIATE_GENERATOR(std::int32_t)
SORTLAB_INSTANTIATE_GENERATOR(std::int64_t)
SORTLAB_INSTANTIATE_GENERATOR(float)
SORTLAB_INSTANTIATE_GENERATOR(double)
SORTLAB_INSTANTIATE_GENERATOR(__half)
SORTLAB_INSTANTIATE_GENERATOR(__nv_bfloat16)
#undef SORTLAB_INSTANTIATE_GENERATOR

}  // namespace sortlab
