// quantile() and nanquantile() against NumPy: expected values computed with
// numpy 2.4.6 (np.quantile(a, qs, method=m) with qs a float64 array) and written
// here as hexadecimal literals, since CI has no NumPy. Regenerate with the Python
// script at the end of this file. float32 inputs: NumPy returns float64 for an
// array of q; kselect returns that value rounded to float (quantile_math.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "common/reference.hpp"
#include "kselect/kselect.hpp"

namespace kselect {
namespace {

using expected_table = std::vector<std::pair<quantile_method, std::vector<double>>>;

const std::vector<double> k_qs = {0.0, 0.001, 0.05, 0.1, 0.25, 1.0 / 3, 0.5, 0.6, 2.0 / 3,
                                  0.75, 0.9, 0.95, 0.999, 1.0};

// numpy 2.4.6
// double, n = 1000
const expected_table k_double = {
    {quantile_method::linear, {-0x1.9000000000000p+5, -0x1.8edbb89cd17b2p+5, -0x1.56ea0ea0ea0eap+5, -0x1.1dd41d41d41d4p+5, -0x1.ca49249249249p+3, -0x1.36db6db6db6e0p+1, 0x1.55b6db6db6db8p+4, 0x1.1d07507507506p+5, 0x1.6924924924924p+5, 0x1.c849249249249p+5, 0x1.39c57c57c57c5p+6, 0x1.5650750750751p+6, 0x1.72494a05442b5p+6, 0x1.72db6db6db6dcp+6}},
    {quantile_method::lower, {-0x1.9000000000000p+5, -0x1.9000000000000p+5, -0x1.5800000000000p+5, -0x1.1edb6db6db6dcp+5, -0x1.cdb6db6db6db8p+3, -0x1.36db6db6db6e0p+1, 0x1.5492492492494p+4, 0x1.1c92492492492p+5, 0x1.6924924924924p+5, 0x1.c800000000000p+5, 0x1.39b6db6db6db6p+6, 0x1.564924924924ap+6, 0x1.724924924924ap+6, 0x1.72db6db6db6dcp+6}},
    {quantile_method::higher, {-0x1.9000000000000p+5, -0x1.8edb6db6db6dbp+5, -0x1.56db6db6db6dbp+5, -0x1.1db6db6db6db7p+5, -0x1.c924924924924p+3, -0x1.36db6db6db6e0p+1, 0x1.56db6db6db6dcp+4, 0x1.1db6db6db6db6p+5, 0x1.6924924924924p+5, 0x1.c924924924924p+5, 0x1.3a4924924924ap+6, 0x1.56db6db6db6dcp+6, 0x1.72db6db6db6dcp+6, 0x1.72db6db6db6dcp+6}},
    {quantile_method::nearest, {-0x1.9000000000000p+5, -0x1.8edb6db6db6dbp+5, -0x1.56db6db6db6dbp+5, -0x1.1db6db6db6db7p+5, -0x1.c924924924924p+3, -0x1.36db6db6db6e0p+1, 0x1.56db6db6db6dcp+4, 0x1.1c92492492492p+5, 0x1.6924924924924p+5, 0x1.c800000000000p+5, 0x1.39b6db6db6db6p+6, 0x1.564924924924ap+6, 0x1.724924924924ap+6, 0x1.72db6db6db6dcp+6}},
    {quantile_method::midpoint, {-0x1.9000000000000p+5, -0x1.8f6db6db6db6ep+5, -0x1.576db6db6db6ep+5, -0x1.1e4924924924ap+5, -0x1.cb6db6db6db6ep+3, -0x1.36db6db6db6e0p+1, 0x1.55b6db6db6db8p+4, 0x1.1d24924924924p+5, 0x1.6924924924924p+5, 0x1.c892492492492p+5, 0x1.3a00000000000p+6, 0x1.5692492492493p+6, 0x1.7292492492493p+6, 0x1.72db6db6db6dcp+6}},
};
// float, n = 777
const expected_table k_float = {
    {quantile_method::linear, {-0x1.9000000000000p+5, -0x1.8f1cf726e978dp+5, -0x1.583a83999999ap+5, -0x1.1d7c586666666p+5, -0x1.cdb6dc0000000p+3, -0x1.4f3cf35555562p+1, 0x1.5249240000000p+4, 0x1.1c1d41fffffffp+5, 0x1.686185ffffffep+5, 0x1.c800000000000p+5, 0x1.38cccd3333333p+6, 0x1.55d41d9999999p+6, 0x1.7269e8ccccccdp+6, 0x1.72db6e0000000p+6}},
    {quantile_method::lower, {-0x1.9000000000000p+5, -0x1.9000000000000p+5, -0x1.5924920000000p+5, -0x1.1edb6e0000000p+5, -0x1.cdb6dc0000000p+3, -0x1.5b6db60000000p+1, 0x1.5249240000000p+4, 0x1.1b6db60000000p+5, 0x1.6800000000000p+5, 0x1.c800000000000p+5, 0x1.38924a0000000p+6, 0x1.55b6dc0000000p+6, 0x1.7249240000000p+6, 0x1.72db6e0000000p+6}},
    {quantile_method::higher, {-0x1.9000000000000p+5, -0x1.8edb6e0000000p+5, -0x1.5800000000000p+5, -0x1.1c924a0000000p+5, -0x1.cdb6dc0000000p+3, -0x1.4924920000000p+1, 0x1.5249240000000p+4, 0x1.1c924a0000000p+5, 0x1.6924920000000p+5, 0x1.c800000000000p+5, 0x1.3924920000000p+6, 0x1.5649240000000p+6, 0x1.72db6e0000000p+6, 0x1.72db6e0000000p+6}},
    {quantile_method::nearest, {-0x1.9000000000000p+5, -0x1.8edb6e0000000p+5, -0x1.5800000000000p+5, -0x1.1c924a0000000p+5, -0x1.cdb6dc0000000p+3, -0x1.4924920000000p+1, 0x1.5249240000000p+4, 0x1.1c924a0000000p+5, 0x1.6800000000000p+5, 0x1.c800000000000p+5, 0x1.38924a0000000p+6, 0x1.55b6dc0000000p+6, 0x1.7249240000000p+6, 0x1.72db6e0000000p+6}},
    {quantile_method::midpoint, {-0x1.9000000000000p+5, -0x1.8f6db70000000p+5, -0x1.5892490000000p+5, -0x1.1db6dc0000000p+5, -0x1.cdb6dc0000000p+3, -0x1.5249240000000p+1, 0x1.5249240000000p+4, 0x1.1c00000000000p+5, 0x1.6892490000000p+5, 0x1.c800000000000p+5, 0x1.38db6e0000000p+6, 0x1.5600000000000p+6, 0x1.7292490000000p+6, 0x1.72db6e0000000p+6}},
};
// int32, n = 501
const expected_table k_int32 = {
    {quantile_method::linear, {-0x1.ffa0107c00000p+30, -0x1.fe08f79c00000p+30, -0x1.cbb480c000000p+30, -0x1.99001a6000000p+30, -0x1.006b9cec00000p+30, -0x1.53c6056555556p+29, 0x0.0p+0, 0x1.8dc7117000000p+28, 0x1.5157b2ad55554p+29, 0x1.fbfa946800000p+29, 0x1.9888d00c00000p+30, 0x1.cc745fc800000p+30, 0x1.fdcd527200000p+30, 0x1.fe68e72000000p+30}},
    {quantile_method::lower, {-0x1.ffa0107c00000p+30, -0x1.ffa0107c00000p+30, -0x1.cbb480c000000p+30, -0x1.99001a6000000p+30, -0x1.006b9cec00000p+30, -0x1.5664bb4000000p+29, 0x0.0p+0, 0x1.8dc7117000000p+28, 0x1.500857c000000p+29, 0x1.fbfa946800000p+29, 0x1.9888d00c00000p+30, 0x1.cc745fc800000p+30, 0x1.fd31bdc400000p+30, 0x1.fe68e72000000p+30}},
    {quantile_method::higher, {-0x1.ffa0107c00000p+30, -0x1.fc71debc00000p+30, -0x1.cbb480c000000p+30, -0x1.99001a6000000p+30, -0x1.006b9cec00000p+30, -0x1.5276aa7800000p+29, 0x0.0p+0, 0x1.8dc7117000000p+28, 0x1.53f6688800000p+29, 0x1.fbfa946800000p+29, 0x1.9888d00c00000p+30, 0x1.cc745fc800000p+30, 0x1.fe68e72000000p+30, 0x1.fe68e72000000p+30}},
    {quantile_method::nearest, {-0x1.ffa0107c00000p+30, -0x1.ffa0107c00000p+30, -0x1.cbb480c000000p+30, -0x1.99001a6000000p+30, -0x1.006b9cec00000p+30, -0x1.5276aa7800000p+29, 0x0.0p+0, 0x1.8dc7117000000p+28, 0x1.500857c000000p+29, 0x1.fbfa946800000p+29, 0x1.9888d00c00000p+30, 0x1.cc745fc800000p+30, 0x1.fe68e72000000p+30, 0x1.fe68e72000000p+30}},
    {quantile_method::midpoint, {-0x1.ffa0107c00000p+30, -0x1.fe08f79c00000p+30, -0x1.cbb480c000000p+30, -0x1.99001a6000000p+30, -0x1.006b9cec00000p+30, -0x1.546db2dc00000p+29, 0x0.0p+0, 0x1.8dc7117000000p+28, 0x1.51ff602400000p+29, 0x1.fbfa946800000p+29, 0x1.9888d00c00000p+30, 0x1.cc745fc800000p+30, 0x1.fdcd527200000p+30, 0x1.fe68e72000000p+30}},
};
// uint32, n = 501
const expected_table k_uint32 = {
    {quantile_method::linear, {0x0.0p+0, 0x1.f708640000000p+21, 0x1.85eaefe000000p+27, 0x1.8dc7117000000p+28, 0x1.fbfa946800000p+29, 0x1.52ced10c00000p+30, 0x1.fe68e72000000p+30, 0x1.32846e9e00000p+31, 0x1.5465e9ec00000p+31, 0x1.7ecead5800000p+31, 0x1.cc14704400000p+31, 0x1.e56ea37400000p+31, 0x1.fee6a93900000p+31, 0x1.ff646b5200000p+31}},
    {quantile_method::lower, {0x0.0p+0, 0x0.0p+0, 0x1.85eaefe000000p+27, 0x1.8dc7117000000p+28, 0x1.fbfa946800000p+29, 0x1.51ff602400000p+30, 0x1.fe68e72000000p+30, 0x1.32846e9e00000p+31, 0x1.54320db200000p+31, 0x1.7ecead5800000p+31, 0x1.cc14704400000p+31, 0x1.e56ea37400000p+31, 0x1.fe68e72000000p+31, 0x1.ff646b5200000p+31}},
    {quantile_method::higher, {0x0.0p+0, 0x1.f708640000000p+22, 0x1.85eaefe000000p+27, 0x1.8dc7117000000p+28, 0x1.fbfa946800000p+29, 0x1.5336898000000p+30, 0x1.fe68e72000000p+30, 0x1.32846e9e00000p+31, 0x1.54cda26000000p+31, 0x1.7ecead5800000p+31, 0x1.cc14704400000p+31, 0x1.e56ea37400000p+31, 0x1.ff646b5200000p+31, 0x1.ff646b5200000p+31}},
    {quantile_method::nearest, {0x0.0p+0, 0x0.0p+0, 0x1.85eaefe000000p+27, 0x1.8dc7117000000p+28, 0x1.fbfa946800000p+29, 0x1.5336898000000p+30, 0x1.fe68e72000000p+30, 0x1.32846e9e00000p+31, 0x1.54320db200000p+31, 0x1.7ecead5800000p+31, 0x1.cc14704400000p+31, 0x1.e56ea37400000p+31, 0x1.ff646b5200000p+31, 0x1.ff646b5200000p+31}},
    {quantile_method::midpoint, {0x0.0p+0, 0x1.f708640000000p+21, 0x1.85eaefe000000p+27, 0x1.8dc7117000000p+28, 0x1.fbfa946800000p+29, 0x1.529af4d200000p+30, 0x1.fe68e72000000p+30, 0x1.32846e9e00000p+31, 0x1.547fd80900000p+31, 0x1.7ecead5800000p+31, 0x1.cc14704400000p+31, 0x1.e56ea37400000p+31, 0x1.fee6a93900000p+31, 0x1.ff646b5200000p+31}},
};
// int64, n = 300
const expected_table k_int64 = {
    {quantile_method::linear, {-0x1.fcae14025a8cdp+62, -0x1.fca5fd444cb02p+62, -0x1.ced1b9fb5416dp+62, -0x1.96cb247639530p+62, -0x1.f19aaa72fde68p+61, -0x1.4b3306a0b07cfp+61, 0x1.7c31422a3a2d5p+56, 0x1.af440019d411cp+60, 0x1.51e9ff61df1b1p+61, 0x1.ff0aeec090776p+61, 0x1.9cf0eeb3e9491p+62, 0x1.d06dfaff3e6d0p+62, 0x1.fe423e4837065p+62, 0x1.fe4a550644e30p+62}},
    {quantile_method::lower, {-0x1.fcae14025a8cdp+62, -0x1.fcae14025a8cdp+62, -0x1.d398efccbc9fdp+62, -0x1.9b51f921a9d4cp+62, -0x1.f94ea13d0b82fp+61, -0x1.4b5718b51f643p+61, 0x1.afb962a784f2ap+55, 0x1.a70c92758148ap+60, 0x1.4e8f9abcf4108p+61, 0x1.fc872344e02f4p+61, 0x1.9cee3a25942afp+62, 0x1.d02d99d94665cp+62, 0x1.fe2f4776f1b59p+62, 0x1.fe4a550644e30p+62}},
    {quantile_method::higher, {-0x1.fcae14025a8cdp+62, -0x1.fc930673075f6p+62, -0x1.ce9158d55c0fap+62, -0x1.964a622a49449p+62, -0x1.ef09582fa407bp+61, -0x1.4b20fd9679095p+61, 0x1.1042e98058f0bp+57, 0x1.bb972490503f2p+60, 0x1.589ec8abb530ep+61, 0x1.034b2899d0a7dp+62, 0x1.9d0947b4e7586p+62, 0x1.d53530d0a6f60p+62, 0x1.fe4a550644e30p+62, 0x1.fe4a550644e30p+62}},
    {quantile_method::nearest, {-0x1.fcae14025a8cdp+62, -0x1.fcae14025a8cdp+62, -0x1.ce9158d55c0fap+62, -0x1.964a622a49449p+62, -0x1.ef09582fa407bp+61, -0x1.4b20fd9679095p+61, 0x1.1042e98058f0bp+57, 0x1.a70c92758148ap+60, 0x1.4e8f9abcf4108p+61, 0x1.fc872344e02f4p+61, 0x1.9cee3a25942afp+62, 0x1.d02d99d94665cp+62, 0x1.fe4a550644e30p+62, 0x1.fe4a550644e30p+62}},
    {quantile_method::midpoint, {-0x1.fcae14025a8cdp+62, -0x1.fca08d3ab0f61p+62, -0x1.d11524510c57cp+62, -0x1.98ce2da5f98cbp+62, -0x1.f42bfcb657c55p+61, -0x1.4b3c0b25cc36cp+61, 0x1.7c31422a3a2d5p+56, 0x1.b151db82e8c3ep+60, 0x1.539731b454a0bp+61, 0x1.00c75d1e205fbp+62, 0x1.9cfbc0ed3dc1bp+62, 0x1.d2b16554f6adep+62, 0x1.fe3cce3e9b4c5p+62, 0x1.fe4a550644e30p+62}},
};
// uint64, n = 300
const expected_table k_uint64 = {
    {quantile_method::linear, {0x1.afb962a784f2ap+55, 0x1.3a21b1ec96583p+56, 0x1.b4ebc18eb5ad5p+59, 0x1.a4feb70c6c967p+60, 0x1.f9f5d10186507p+61, 0x1.53922393f0a19p+62, 0x1.fe3cce3e9b4c5p+62, 0x1.324ee5c42bbb4p+63, 0x1.56257109a65dcp+63, 0x1.7fc97f13f8e93p+63, 0x1.c99cf75d0db99p+63, 0x1.e57f646909d04p+63, 0x1.fe59dd1e1bfe7p+63, 0x1.ff1e671f4da62p+63}},
    {quantile_method::lower, {0x1.afb962a784f2ap+55, 0x1.afb962a784f2ap+55, 0x1.b41e274d70ba8p+59, 0x1.9282005ab2522p+60, 0x1.f241da3778b40p+61, 0x1.5037beef0596dp+62, 0x1.fe2f4776f1b59p+62, 0x1.32497ca7817efp+63, 0x1.5620eec71880ep+63, 0x1.7f288c350cd73p+63, 0x1.c95b3befeb233p+63, 0x1.e57eb7457488bp+63, 0x1.fc8d14dbf3c75p+63, 0x1.ff1e671f4da62p+63}},
    {quantile_method::higher, {0x1.afb962a784f2ap+55, 0x1.1042e98058f0bp+57, 0x1.b4f693c80a25ep+59, 0x1.a70c92758148ap+60, 0x1.fc872344e02f4p+61, 0x1.553f55e666270p+62, 0x1.fe4a550644e30p+62, 0x1.3257036f2b15ap+63, 0x1.562e758ec2179p+63, 0x1.81ac57b0bd1f4p+63, 0x1.cbec8e3345020p+63, 0x1.e58c3e0d1e1f7p+63, 0x1.ff1e671f4da62p+63, 0x1.ff1e671f4da62p+63}},
    {quantile_method::nearest, {0x1.afb962a784f2ap+55, 0x1.afb962a784f2ap+55, 0x1.b4f693c80a25ep+59, 0x1.a70c92758148ap+60, 0x1.fc872344e02f4p+61, 0x1.553f55e666270p+62, 0x1.fe4a550644e30p+62, 0x1.32497ca7817efp+63, 0x1.5620eec71880ep+63, 0x1.7f288c350cd73p+63, 0x1.c95b3befeb233p+63, 0x1.e57eb7457488bp+63, 0x1.ff1e671f4da62p+63, 0x1.ff1e671f4da62p+63}},
    {quantile_method::midpoint, {0x1.afb962a784f2ap+55, 0x1.7c31422a3a2d5p+56, 0x1.b48a5d8abd703p+59, 0x1.9cc7496819cd6p+60, 0x1.f7647ebe2c71ap+61, 0x1.52bb8a6ab5deep+62, 0x1.fe3cce3e9b4c5p+62, 0x1.3250400b564a4p+63, 0x1.5627b22aed4c3p+63, 0x1.806a71f2e4fb3p+63, 0x1.caa3e51198129p+63, 0x1.e5857aa949541p+63, 0x1.fdd5bdfda0b6bp+63, 0x1.ff1e671f4da62p+63}},
};

// The inputs of the tables, built exactly as the script builds them.
template <class T>
std::vector<T> numpy_input();
template <>
std::vector<double> numpy_input<double>() {
  std::vector<double> v;
  for (std::int64_t i = 0; i < 1000; ++i) v.push_back(static_cast<double>((i * 7919) % 1000) / 7.0 - 50.0);
  return v;
}
template <>
std::vector<float> numpy_input<float>() {
  std::vector<float> v;
  for (std::int64_t i = 0; i < 777; ++i)
    v.push_back(static_cast<float>(static_cast<double>((i * 7919) % 1000) / 7.0 - 50.0));
  return v;
}
template <>
std::vector<std::uint32_t> numpy_input<std::uint32_t>() {
  std::vector<std::uint32_t> v;
  for (std::uint64_t i = 0; i < 501; ++i) v.push_back(static_cast<std::uint32_t>(i * 2654435761u));
  return v;
}
template <>
std::vector<std::int32_t> numpy_input<std::int32_t>() {
  std::vector<std::int32_t> v;
  for (const std::uint32_t u : numpy_input<std::uint32_t>()) v.push_back(static_cast<std::int32_t>(u));
  return v;
}
template <>
std::vector<std::uint64_t> numpy_input<std::uint64_t>() {
  std::vector<std::uint64_t> v;
  for (std::uint64_t i = 0; i < 300; ++i) v.push_back(i * 6364136223846793005ull + 1442695040888963407ull);
  return v;
}
template <>
std::vector<std::int64_t> numpy_input<std::int64_t>() {
  std::vector<std::int64_t> v;
  for (const std::uint64_t u : numpy_input<std::uint64_t>()) v.push_back(static_cast<std::int64_t>(u));
  return v;
}

template <class T>
void expect_table(const expected_table& table) {
  const std::vector<T> v = numpy_input<T>();
  for (const auto& [method, expected] : table) {
    SCOPED_TRACE(to_string(method));
    ASSERT_EQ(expected.size(), k_qs.size());
    const auto got = quantile(v, k_qs, method);
    ASSERT_EQ(got.size(), k_qs.size());
    for (std::size_t i = 0; i < k_qs.size(); ++i) {
      const auto want = static_cast<quantile_value_t<T>>(expected[i]);
      EXPECT_TRUE(test::same_value(got[i], want))
          << "q = " << k_qs[i] << ": got " << std::hexfloat << got[i] << ", NumPy " << want;
    }
    // No NaN in these inputs: nanquantile agrees.
    const auto nan_got = nanquantile(v, k_qs, method);
    for (std::size_t i = 0; i < k_qs.size(); ++i) EXPECT_TRUE(test::same_value(nan_got[i], got[i]));
  }
}

TEST(QuantileNumpy, Double) { expect_table<double>(k_double); }
TEST(QuantileNumpy, Float) { expect_table<float>(k_float); }
TEST(QuantileNumpy, Int32) { expect_table<std::int32_t>(k_int32); }
TEST(QuantileNumpy, Uint32) { expect_table<std::uint32_t>(k_uint32); }
TEST(QuantileNumpy, Int64) { expect_table<std::int64_t>(k_int64); }
TEST(QuantileNumpy, Uint64) { expect_table<std::uint64_t>(k_uint64); }

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
const std::vector<double> k_edge_qs = {0.0, 0.25, 0.5, 0.75, 1.0};

void expect_values(const std::vector<double>& v, quantile_method m, const std::vector<double>& want) {
  SCOPED_TRACE(to_string(m));
  const auto got = quantile(v, k_edge_qs, m);
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(test::same_value(got[i], want[i]))
        << "q = " << k_edge_qs[i] << ": got " << std::hexfloat << got[i] << ", NumPy " << want[i];
}

// NumPy's lerp turns infinities next to an interpolated position into NaN (inf * 0,
// inf - inf); kselect gives the same answers. (numpy 2.4.6, see the script below.)
TEST(QuantileNumpy, Infinities) {
  using qm = quantile_method;
  const std::vector<double> right = {0.0, 1.0, inf};
  expect_values(right, qm::linear, {0.0, 0.5, nan, nan, nan});
  expect_values(right, qm::lower, {0.0, 0.0, 1.0, 1.0, inf});
  expect_values(right, qm::higher, {0.0, 1.0, 1.0, inf, inf});
  expect_values(right, qm::nearest, {0.0, 0.0, 1.0, inf, inf});
  expect_values(right, qm::midpoint, {0.0, 0.5, nan, nan, nan});
  const std::vector<double> left = {-inf, 1.0};
  expect_values(left, qm::linear, {nan, nan, -inf, -inf, 1.0});
  expect_values(left, qm::lower, {-inf, -inf, -inf, -inf, 1.0});
  expect_values(left, qm::higher, {-inf, 1.0, 1.0, 1.0, 1.0});
  expect_values(left, qm::nearest, {-inf, -inf, -inf, 1.0, 1.0});
  expect_values(left, qm::midpoint, {nan, -inf, -inf, -inf, 1.0});
  expect_values({inf}, qm::linear, {nan, nan, nan, nan, nan});
  expect_values({inf}, qm::lower, {inf, inf, inf, inf, inf});
  expect_values({inf}, qm::midpoint, {nan, nan, nan, nan, nan});
  // b - a overflows to inf.
  const std::vector<double> huge = {-1e308, 1e308};
  expect_values(huge, qm::linear, {nan, inf, -inf, -inf, 1e308});
  expect_values(huge, qm::midpoint, {nan, -inf, -inf, -inf, 1e308});
  expect_values(huge, qm::nearest, {-1e308, -1e308, -1e308, 1e308, 1e308});
}

TEST(QuantileNumpy, SmallAndSubnormal) {
  using qm = quantile_method;
  for (const qm m : {qm::linear, qm::lower, qm::higher, qm::nearest, qm::midpoint})
    expect_values({5.0}, m, {5.0, 5.0, 5.0, 5.0, 5.0});
  const std::vector<double> d = {0x0.0000000000001p-1022, 0x0.0000000000002p-1022,
                                 -0x0.0000000000001p-1022, 0x1.0000000000000p-1022};
  expect_values(d, qm::linear, {-0x0.0000000000001p-1022, 0x0.0000000000001p-1022,
                                0x0.0000000000002p-1022, 0x0.4000000000002p-1022, 0x1p-1022});
  expect_values(d, qm::midpoint, {-0x0.0000000000001p-1022, 0.0, 0x0.0000000000002p-1022,
                                  0x0.8000000000001p-1022, 0x1p-1022});
  expect_values(d, qm::nearest, {-0x0.0000000000001p-1022, 0x0.0000000000001p-1022,
                                 0x0.0000000000002p-1022, 0x0.0000000000002p-1022, 0x1p-1022});
  // -0.0 and +0.0 are equal; kselect may answer +0.0 where NumPy answers -0.0.
  expect_values({-0.0, 0.0, -0.0}, qm::lower, {0.0, 0.0, 0.0, 0.0, 0.0});
}

TEST(QuantileNumpy, NanHandling) {
  const std::vector<double> v = {3.0, nan, 1.0, nan, 2.0, 10.0};
  for (const double r : quantile(v, k_edge_qs)) EXPECT_TRUE(std::isnan(r));
  for (const double r : quantile(v, k_edge_qs, quantile_method::lower)) EXPECT_TRUE(std::isnan(r));
  const auto got = nanquantile(v, k_edge_qs);
  const std::vector<double> want = {1.0, 1.75, 2.5, 4.75, 10.0};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]);
  const auto mid = nanquantile(v, k_edge_qs, quantile_method::midpoint);
  const std::vector<double> want_mid = {1.0, 1.5, 2.5, 6.5, 10.0};
  for (std::size_t i = 0; i < want_mid.size(); ++i) EXPECT_EQ(mid[i], want_mid[i]);
  // float32 input: NumPy's float64 result, rounded to float.
  const std::vector<float> f = {3.0f, NAN, 1.0f, NAN, 2.0f, 10.0f};
  const auto fq = nanquantile(f, std::vector<double>{0.1, 0.3, 0.7});
  EXPECT_EQ(fq[0], static_cast<float>(0x1.4cccccccccccdp+0));
  EXPECT_EQ(fq[1], static_cast<float>(0x1.e666666666666p+0));
  EXPECT_EQ(fq[2], static_cast<float>(0x1.d999999999994p+1));
  // All NaN: NaN results (NumPy warns "All-NaN slice").
  for (const float r : nanquantile(std::vector<float>{NAN, NAN}, k_edge_qs)) EXPECT_TRUE(std::isnan(r));
  for (const double r : quantile(std::vector<double>{nan}, k_edge_qs)) EXPECT_TRUE(std::isnan(r));
  // Integers have no NaN.
  EXPECT_EQ(nanquantile(std::vector<std::int32_t>{4, 1, 2}, std::vector<double>{0.5})[0], 2.0);
}

TEST(QuantileNumpy, Float32RoundsTheFloat64Result) {
  // np.quantile(np.array([0.1, 0.7, 0.3], dtype=np.float32), [0.1, 0.3, 0.7])
  const auto got = quantile(std::vector<float>{0.1f, 0.7f, 0.3f}, std::vector<double>{0.1, 0.3, 0.7});
  EXPECT_EQ(got[0], static_cast<float>(0x1.1eb852999999ap-3));
  EXPECT_EQ(got[1], static_cast<float>(0x1.c28f5ccccccccp-3));
  EXPECT_EQ(got[2], static_cast<float>(0x1.d70a3d9999999p-2));
}

TEST(QuantileNumpy, IntegerDifferenceDoesNotWrap) {
  // NumPy computes b - a in int32 and wraps: it answers 2147483647.5 here. kselect
  // computes the difference exactly and answers the true midpoint.
  const std::vector<std::int32_t> v = {INT32_MIN, INT32_MAX};
  EXPECT_EQ(quantile(v, std::vector<double>{0.5})[0], -0.5);
}

// Hand-checked: n = 4 values 1, 2, 3, 4 (h = 3q).
TEST(QuantileHand, FourValues) {
  const std::vector<std::int64_t> v = {4, 2, 1, 3};
  const std::vector<double> qs = {0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0};
  using qm = quantile_method;
  const std::vector<std::pair<qm, std::vector<double>>> want = {
      {qm::linear, {1.0, 1.3, 1.75, 2.5, 3.25, 3.7, 4.0}},
      {qm::lower, {1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 4.0}},
      {qm::higher, {1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 4.0}},
      {qm::nearest, {1.0, 1.0, 2.0, 3.0, 3.0, 4.0, 4.0}},  // 1.5 -> 2 (even), 2.25 -> 2
      {qm::midpoint, {1.0, 1.5, 1.5, 2.5, 3.5, 3.5, 4.0}},
  };
  for (const auto& [m, w] : want) {
    const auto got = quantile(v, qs, m);
    for (std::size_t i = 0; i < qs.size(); ++i)
      EXPECT_DOUBLE_EQ(got[i], w[i]) << to_string(m) << " q = " << qs[i];
  }
}

}  // namespace
}  // namespace kselect

/* The script that produced the tables (numpy 2.4.6):
   # Produces the expected values of tests/cpu/quantile_numpy_test.cpp.
   import numpy as np
   M64 = (1 << 64) - 1
   def s64(x): x &= M64; return x - (1 << 64) if x >> 63 else x
   def s32(x): x &= 0xffffffff; return x - (1 << 32) if x >> 31 else x
   inputs = {
     'double': np.array([((i * 7919) % 1000) / 7.0 - 50.0 for i in range(1000)], dtype=np.float64),
     'float':  np.array([((i * 7919) % 1000) / 7.0 - 50.0 for i in range(777)], dtype=np.float64).astype(np.float32),
     'int32':  np.array([s32(i * 2654435761) for i in range(501)], dtype=np.int32),
     'uint32': np.array([(i * 2654435761) & 0xffffffff for i in range(501)], dtype=np.uint32),
     'int64':  np.array([s64(i * 6364136223846793005 + 1442695040888963407) for i in range(300)], dtype=np.int64),
     'uint64': np.array([(i * 6364136223846793005 + 1442695040888963407) & M64 for i in range(300)], dtype=np.uint64),
   }
   qs = np.array([0.0, 0.001, 0.05, 0.1, 0.25, 1/3, 0.5, 0.6, 2/3, 0.75, 0.9, 0.95, 0.999, 1.0])
   methods = ['linear', 'lower', 'higher', 'nearest', 'midpoint']
   print('// numpy', np.__version__)
   for name, a in inputs.items():
       print(f'// {name}, n = {len(a)}')
       print(f'const expected_table k_{name} = {{')
       for m in methods:
           r = np.quantile(a, qs, method=m)
           vals = ', '.join(float(x).hex() for x in r)
           print(f'    {{quantile_method::{m}, {{{vals}}}}},')
       print('};')
   The edge cases: np.quantile(np.array(a), [0, 0.25, 0.5, 0.75, 1], method=m) for the
   arrays in the tests above, printed with float.hex(). */
