// Tests that every scheme's real parameters written as expressions are exact at MPFR precision (pe/exact_number.hpp).
// Each expected value is mpmath's at 90 digits (the formula beside it); a parameter read as its
// rounded binary64 double would agree to about 16 digits, and these ask for 74.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pe/mp.hpp"
#include "pe/ops.hpp"

namespace {

using pe::mp_real;

// Output `name` of `op` at 256 bits, element `at`, against the decimal `want`: relative error < 1e-74.
void expect_exact(const std::string& op, const std::string& spec, const pe::op_inputs& in, std::size_t at, const char* want) {
  pe::mp_precision scope(256);
  const auto out = pe::run_op<mp_real>(op, pe::parse_spec(spec), in)[0].value.data;
  const mp_real w(want);
  EXPECT_LT(abs(mp_real(out.at(at) - w) / w), mp_real("1e-74")) << spec << ": " << out.at(at).str(80) << " is not " << want;
}

}  // namespace

// rope_nd's base: pair 1 of axis [4] is (1e4 pi)^(-1/2).
TEST(exact_parameters, rope_nd_axial_base) {
  expect_exact("inv_freq", "rope_nd(axes=[4], base=1e4*pi)", {}, 1,
               "0.005641895835477562869480794515607725858440506293289988568440857217106424684414934144867");
}

// xpos: dim 4, pair 1 = dims 2 and 3 (gptj). zeta_1 = (2/4 + gamma)/(1 + gamma) = 9/14 at gamma = 2/5;
// at p = 1000 and scale_base = 1000/3 the query's scale is (9/14)^3, the key's (14/9)^3, and the
// angle is 1000 (1e4 pi)^(-1/2): base, gamma and scale_base are all three exact.
TEST(exact_parameters, xpos_base_gamma_and_scale_base) {
  const std::string spec = "xpos(dim=4, base=1e4*pi, gamma=2/5, scale_base=1000/3)";
  pe::op_inputs in;
  in.pos = {1000};
  in.x = pe::tensor<double>({1, 1, 4});
  in.x.data = {0, 0, 1, 0};
  in.role = 0;
  // (9/14)^3 cos(1000 w_1) and (9/14)^3 sin(1000 w_1), w_1 = (1e4 pi)^(-1/2)
  expect_exact("rotate", spec, in, 2, "0.2128884631783287240041781530536177570744181979697618836189864147412916145475265502493");
  expect_exact("rotate", spec, in, 3, "-0.158931889418568554822816529695612741811149054360753233438823927305438525789771198368");
  in.role = 1;  // (14/9)^3 cos(1000 w_1)
  expect_exact("rotate", spec, in, 2, "3.016235758035041608049667891319497050718869076093957775438794698387000435107048329087");
}

// llama4_temperature: at p = 8191, floor((p + 1)/8192) = 1, so tau = ln(2) attn_scale + 1 = ln(2)/10 + 1.
TEST(exact_parameters, llama4_temperature_attn_scale) {
  pe::op_inputs in;
  in.pos = {8191};
  expect_exact("scale", "llama4_temperature(floor_scale=8192, attn_scale=1/10)", in, 0,
               "1.069314718055994530941723212145817656807550013436025525412068000949339362196969471561");
}

// kerple at distance 3: log variant -(pi/4) ln(1 + 3/3) = -(pi/4) ln 2; power variant -(pi/4) 3^(1/3).
TEST(exact_parameters, kerple_r1_and_r2) {
  pe::op_inputs in;
  in.qpos = {3};
  in.kpos = {0};
  expect_exact("bias", "kerple(heads=1, r1=[pi/4], r2=[1/3])", in, 0,
               "-0.5443965225759005326251722245594034868346459250923215735814488132985771372941854966076");
  expect_exact("bias", "kerple(heads=1, r1=[pi/4], r2=[1/3], variant=power)", in, 0,
               "-1.132740163680197542528809066502093169199872676253886513062068668822965151921388580341");
}
