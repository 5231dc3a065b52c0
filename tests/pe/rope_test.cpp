// Tests for src/pe/schemes/rope.hpp: layouts, partial rotary, every scaling against hand-derived values, precision.
#include "pe/schemes/rope.hpp"

#include <gtest/gtest.h>

#include "support/spec_errors.hpp"
#include <rapidcheck/gtest.h>

#include <Eigen/Dense>
#include <boost/multiprecision/eigen.hpp>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "pe/ops.hpp"
#include "pe/ulp.hpp"

namespace {

using pe::mp_real;
using pe::parse_spec;

// Expected values in this file come from an independent transcription of each published
// definition (HF transformers' modeling_rope_utils.py, ggml's rope_yarn) into mpmath 1.3.0 at
// 60 digits; 40 digits are kept.

// Rounding a 128-bit wide value once to binary64: half an ulp, plus 2^-75 ulp for the wide error.
constexpr double correctly_rounded_ulps = 0.5 + 1e-9;

std::vector<double> inv_freq_double(const std::string& text) {
  return pe::rope_inv_freq<double>(parse_spec(text))[0].value.data;
}

void expect_inv_freq(const std::string& text, const std::vector<const char*>& want) {
  const auto fast = inv_freq_double(text);
  pe::mp_precision scope(256);
  const auto exact = pe::rope_inv_freq<mp_real>(parse_spec(text))[0].value.data;
  ASSERT_EQ(fast.size(), want.size()) << text;
  for (size_t i = 0; i < want.size(); ++i) {
    const mp_real w(want[i]);
    EXPECT_LT(abs(exact[i] - w), abs(w) * mp_real("1e-39")) << text << " i=" << i;
    EXPECT_LE(pe::error_in_ulps(fast[i], w, pe::binary64), correctly_rounded_ulps) << text << " i=" << i;
  }
}

double attention_factor(const std::string& text) {
  return pe::rope_inv_freq<double>(parse_spec(text))[1].value.data.at(0);
}

TEST(rope_inv_freq, unscaled_is_base_to_the_minus_2i_over_r) {
  expect_inv_freq("rope(dim=8)", {"1", "0.1", "0.01", "0.001"});
  expect_inv_freq("rope(dim=12, rotary_dim=8)", {"1", "0.1", "0.01", "0.001"});  // r, not D, in the exponent
  EXPECT_EQ(attention_factor("rope(dim=8)"), 1.0);
}

TEST(rope_inv_freq, linear_divides_by_the_factor) {
  expect_inv_freq("rope(dim=8, scaling=linear(factor=4))", {"0.25", "0.025", "0.0025", "0.00025"});
}

TEST(rope_inv_freq, ntk_raises_the_base) {
  expect_inv_freq("rope(dim=8, scaling=ntk(factor=8))", {"1.0", "0.05", "0.0025", "0.000125"});
}

TEST(rope_inv_freq, dynamic_is_unscaled_up_to_original_max_and_rescaled_past_it) {
  expect_inv_freq("rope(dim=8, scaling=dynamic(factor=2, original_max=16, seq_len=16))", {"1", "0.1", "0.01", "0.001"});
  expect_inv_freq("rope(dim=8, scaling=dynamic(factor=2, original_max=16, seq_len=17))", {"1.0", "0.09614997135382722548810922071867397255946", "0.009244816991341796064578030330479490605946", "0.0008888888888888888888888888888888888888889"});
  // Without seq_len, inv_freq is HF's initial (unscaled) state.
  expect_inv_freq("rope(dim=8, scaling=dynamic(factor=2, original_max=16))", {"1", "0.1", "0.01", "0.001"});
}

TEST(rope_inv_freq, yarn_ramp_truncated_and_not) {
  // dim 16, original_max 64: correction range [floor(-0.99), ceil(2.02)] = [0, 3] truncated, [0, 2.02] not.
  expect_inv_freq("rope(dim=16, scaling=yarn(factor=4, original_max=64))", {"1.0", "0.237170824512628449899917015832453890029", "0.05", "0.007905694150420948329997233861081796334299", "0.0025", "0.0007905694150420948329997233861081796334299", "0.00025", "0.00007905694150420948329997233861081796334299"});
  expect_inv_freq("rope(dim=16, scaling=yarn(factor=4, original_max=64, truncate=false))", {"1.0", "0.1985835201536931713168220188433265506121", "0.02559524589192420852384134441243884758231", "0.007905694150420948329997233861081796334299", "0.0025", "0.0007905694150420948329997233861081796334299", "0.00025", "0.00007905694150420948329997233861081796334299"});
  // original_max 6 < 2 pi: the range collapses to [0, 0] and HF widens it by 0.001.
  expect_inv_freq("rope(dim=8, scaling=yarn(factor=4, original_max=6))", {"1.0", "0.025", "0.0025", "0.00025"});
}

TEST(rope_inv_freq, yarn_hf_and_ggml_differ_when_the_range_inverts) {
  // base 10, original_max 10^6: low = 14 > high = 7 after clamping. HF divides by high - low = -7
  // (every pair interpolated); ggml divides by max(0.001, high - low) (every pair extrapolated).
  expect_inv_freq("rope(dim=8, base=10, scaling=yarn(factor=4, original_max=1000000))", {"0.25", "0.1405853312975872700987377599441203078671", "0.07905694150420948329997233861081796334299", "0.04445698525097307003063552987981712111839"});
  expect_inv_freq("rope(dim=8, base=10, scaling=yarn(factor=4, original_max=1000000, magnitude=ggml))",
                  {"1.0", "0.5623413251903490803949510397764812314683", "0.316227766016837933199889354443271853372", "0.1778279410038922801225421195192684844736"});
}

TEST(rope_inv_freq, yarn_attention_factor) {
  pe::mp_precision scope(256);
  const auto att = [](const char* text) { return pe::rope_inv_freq<mp_real>(parse_spec(text))[1].value.data.at(0); };
  // 0.1 ln 4 + 1 with the paper's exact 0.1 (mpmath, 45 digits); HF's binary64 0.1 gives
  // ...069578926..., 7.7e-18 away, within an ulp of binary64.
  const mp_real hf_default("1.138629436111989061883446424291635313615");
  EXPECT_LT(abs(att("rope(dim=16, scaling=yarn(factor=4, original_max=64))") - hf_default), mp_real("1e-39"));
  // DeepSeek-style ratio: mscale(4, 1) / mscale(4, 0.5).
  EXPECT_LT(abs(att("rope(dim=16, scaling=yarn(factor=4, original_max=64, mscale=1, mscale_all_dim=0.5))") -
                mp_real("1.064821625369571387901044448842333613504")),
            mp_real("1e-39"));
  // Equal mscales cancel; an explicit factor wins; factor <= 1 gives 1 in HF.
  EXPECT_EQ(att("rope(dim=16, scaling=yarn(factor=4, original_max=64, mscale=0.707, mscale_all_dim=0.707))"), mp_real(1));
  EXPECT_EQ(att("rope(dim=16, scaling=yarn(factor=4, original_max=64, attention_factor=0.5))"), mp_real(0.5));
  EXPECT_EQ(att("rope(dim=16, scaling=yarn(factor=0.5, original_max=64))"), mp_real(1));
  // ggml multiplies its own 1 + 0.1 ln(factor) into whatever attn_factor it is given, with no clamp.
  EXPECT_LT(abs(att("rope(dim=16, scaling=yarn(factor=4, original_max=64, attention_factor=0.5, magnitude=ggml))") -
                mp_real(0.5) * hf_default),
            mp_real("1e-39"));
  EXPECT_LT(att("rope(dim=16, scaling=yarn(factor=0.5, original_max=64, magnitude=ggml))"), mp_real(1));
}

TEST(rope_inv_freq, llama3_matches_llama_3_1_8b) {
  // Llama 3.1 8B: head dim 128, base 500000, factor 8, bands 1 and 4, original 8192.
  expect_inv_freq("rope(dim=128, base=500000, scaling=llama3(factor=8, original_max=8192))", {"1.0", "0.8146172338565447041028381524603547328693", "0.6636012376960884433277843565347911951057", "0.5405810046357669884116302474441453418854", "0.4403666026717804735919833118659709950852", "0.3587302237512898979632033192242675377012", "0.2922278225730151302154305524342430350206", "0.2380538204803507196596486629964631166623", "0.1939227447486857733425938556737172409298", "0.1579728099090431850863822346584638370462", "0.1286873734326505148324108557808838165303", "0.1048309521779699624474450609467501118151", "0.08539710028576561128014966171603811275006", "0.06956594961416032554310060619919961886033", "0.05666962144529104774019374204594376337177", "0.04616405026546051832226420087991801396891", "0.03760603093086393568124609234517225252004", "0.03063452089322404022030569073295167500757", "0.02495540867055869272716493086538396437636", "0.02032910598097015396898941701438519226989", "0.01656044008099444554894744455899776985346", "0.01349041989022674837044090179929885101474", "0.01098952853453982521321313894703667624313", "0.008952259336194399810338433462645361007202", "0.007292664737217109047766121943378956218593", "0.0059407303756749668522113337097986886107", "0.004839421345719893146302373616652523969867", "0.003942276030116656472495108469011914544427", "0.003211445994752591018543488854190297620043", "0.00216657076350335860934157994792601152471", "0.001371893567761138160399704428194602044919", "0.0008567514129196320810743358471776225418887", "0.0005248461609929546697272910898678389516137", "0.0003126937503840651322159045352278540644696", "0.0001785078127679964185236747256797135624648", "0.00009556212353964683019868396718270296632579", "0.00007784655273932449744437843225491177035407", "0.00006341514345777614487878581637093775578135", "0.00005165906874818956076324352283640617938807", "0.00004208236768725525550358500772589421543347", "0.00003428102195952591478166533091582882117199", "0.00002792591128244446650189903262244308028006", "0.00002274892860182818419416168427863670249946", "0.00001853166929082130846757183967899286122454", "0.00001509621717643312979053103247814414344509", "0.00001229763867796361387395235729376755637003", "0.00001001786840280997449125944148217788744618", "0.000008160728247435942971696390352336480893091", "0.000006647869871181235770312803572258145188252", "0.000005415469365499922456457943969091372820569", "0.0000044115346745584040984444490537136356914", "0.000003593712173650999306029715337006536316658", "0.000002927499870176167692773509443909909325026", "0.000002384791846358303458492293021135153041986", "0.000001942692537204043116317156193980792373069", "0.000001582550820890910164269207939163143205414", "0.000001289173172151557357476265904042311099437", "0.000001050182683460168764465980521047242342405", "0.0000008554969126443659604806205717498631127746", "0.0000006969025285511674616679705011011843837015", "0.0000005677088100759837066499751451226450913878", "0.0000004624653805000883416073942589235889638579", "0.0000003767322690173963935940289093878800474773", "0.0000003068925988914511089052433708071739404064"});
}

// Llama 4 Scout's scaling: low_freq_factor = high_freq_factor = 1, no band to blend. Each pair is
// kept where its wavelength 2 pi / w is at most original_max = 8192 and divided by 16 past it (HF's
// _compute_llama3_parameters with an empty medium band); checked here pair by pair from base^(-2i/128).
TEST(rope_inv_freq, llama3_with_equal_factors_keeps_or_divides) {
  const auto w = inv_freq_double("rope(dim=128, base=500000, scaling=llama3(factor=16, low_freq_factor=1, high_freq_factor=1, original_max=8192))");
  ASSERT_EQ(w.size(), 64u);
  int kept = 0;
  for (int i = 0; i < 64; ++i) {
    const double plain = std::pow(500000.0, -2.0 * i / 128);
    const bool keep = 2 * M_PI / plain <= 8192;
    kept += keep;
    EXPECT_NEAR(w[i], keep ? plain : plain / 16, 4e-16 * plain) << i;
  }
  // 2 pi 500000^(2i/128) <= 8192 for i <= 34 (i = 35 gives 8218.7): 35 kept, 29 divided.
  EXPECT_EQ(kept, 35);
}

TEST(rope_inv_freq, llama3_is_continuous_at_the_band_edges) {
  // Frequencies whose wavelength sits just inside and just outside each band edge
  // (8192 / 1 and 8192 / 4) give nearly the same scaled frequency: the blend meets both sides.
  for (const double edge : {8192.0, 2048.0}) {
    const double w = 2 * M_PI / edge;
    const auto inside = inv_freq_double(fmt::format("rope(dim=2, freqs=[{}], scaling=llama3(factor=8, original_max=8192))", w * (1 + 1e-12)));
    const auto outside = inv_freq_double(fmt::format("rope(dim=2, freqs=[{}], scaling=llama3(factor=8, original_max=8192))", w * (1 - 1e-12)));
    EXPECT_NEAR(inside[0] / outside[0], 1.0, 1e-10) << "edge " << edge;
  }
}

TEST(rope_inv_freq, longrope_switches_factors_past_original_max) {
  const std::string lists = "short_factor=[1, 1.5, 2, 3], long_factor=[2, 4, 8, 16], original_max=16, max_pos=64";
  expect_inv_freq("rope(dim=8, scaling=longrope(" + lists + ", seq_len=16))", {"1.0", "0.06666666666666666666666666666666666666667", "0.005", "0.0003333333333333333333333333333333333333333"});
  expect_inv_freq("rope(dim=8, scaling=longrope(" + lists + ", seq_len=17))", {"0.5", "0.025", "0.00125", "0.0000625"});
  expect_inv_freq("rope(dim=8, scaling=longrope(" + lists + "))", {"1.0", "0.06666666666666666666666666666666666666667", "0.005", "0.0003333333333333333333333333333333333333333"});
  pe::mp_precision scope(256);
  const auto att = pe::rope_inv_freq<mp_real>(parse_spec("rope(dim=8, scaling=longrope(" + lists + "))"))[1].value.data.at(0);
  EXPECT_LT(abs(att - mp_real("1.224744871391589049098642037352945695983")), mp_real("1e-39"));  // sqrt(1 + ln 4 / ln 16)
}

// Further factors and configurations, the same independent derivation.
TEST(rope_inv_freq, other_factors_and_real_configurations) {
  expect_inv_freq("rope(dim=4, base=500000, scaling=linear(factor=2))", {"0.5", "0.0007071067811865475244008443621048490392848"});
  expect_inv_freq("rope(dim=6, scaling=ntk(factor=2))", {"1.0", "0.03282098939727353589273901012763943035096", "0.00107721734501594186087964678325967524763"});
  // A Qwen2-style YaRN: head dim 32 here, base 10^6, factor 4, original 32768.
  expect_inv_freq("rope(dim=32, base=1000000, scaling=yarn(factor=4, original_max=32768))", {"1.0", "0.421696503428582248569013359509406378251", "0.1778279410038922801225421195192684844736", "0.07498942093324558273021842756151364384419", "0.0316227766016837933199889354443271853372", "0.01333521432163324025675931715295331092416", "0.00477990126411796718335708383810009046748", "0.001659961593963158683156226930235222886998", "0.00055", "0.0001686786013714328994276053438037625513004", "0.00004445698525097307003063552987981712111839", "0.00001874735523331139568255460689037841096105", "0.000007905694150420948329997233861081796334299", "0.000003333803580408310064189829288238327731039", "0.000001405853312975872700987377599441203078671", "0.000000592843426415413815412938189369722459642"});
  // llama3 smoothing at factor 32 (head dim 64 here, Llama 3.2's base and bands).
  expect_inv_freq("rope(dim=64, base=500000, scaling=llama3(factor=32, original_max=8192))", {"1.0", "0.6636012376960884433277843565347911951057", "0.4403666026717804735919833118659709950852", "0.2922278225730151302154305524342430350206", "0.1939227447486857733425938556737172409298", "0.1286873734326505148324108557808838165303", "0.08539710028576561128014966171603811275006", "0.05666962144529104774019374204594376337177", "0.03760603093086393568124609234517225252004", "0.02495540867055869272716493086538396437636", "0.01656044008099444554894744455899776985346", "0.01098952853453982521321313894703667624313", "0.007292664737217109047766121943378956218593", "0.004839421345719893146302373616652523969867", "0.003211445994752591018543488854190297620043", "0.001290547928209263818423337600516917347632", "0.0004295567965593682005407484861883540451542", "0.00009708287802627672260813585287063389784363", "0.00001946163818483112436109460806372794258852", "0.00001291476718704739019081088070910154484702", "0.000008570255489881478695416332728957205292997", "0.000005687232150457046048540421069659175624865", "0.000003774054294108282447632758119536035861274", "0.000002504467100702493622814860370544471861544", "0.000001661967467795308942578200893064536297063", "0.00000110288366863960102461111226342840892285", "0.0000007318749675440419231933773609774773312565", "0.0000004856731343010107790792890484951980932673", "0.0000003222932930378893393690664760105777748593", "0.0000002138742281610914901201551429374657781937", "0.0000001419272025189959266624937862806612728469", "0.00000009418306725434909839850722734697001186934"});
}

TEST(rope_inv_freq, truncate_low_zeroes_the_lowest_frequencies) {
  const auto w = inv_freq_double("rope(dim=8, truncate_low=0.5)");
  EXPECT_EQ(w, (std::vector<double>{1, 0.1, 0, 0}));
  EXPECT_EQ(inv_freq_double("rope(dim=8, truncate_low=0.3)"), (std::vector<double>{1, 0.1, 0.01, 0}));  // floor(1.2) = 1
}

// ---- rotate and matrix ----

pe::tensor<double> vectors(std::int64_t tokens, std::int64_t heads, std::int64_t dim, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  pe::tensor<double> x({tokens, heads, dim});
  for (auto& v : x.data) v = u(rng);
  return x;
}

template <class T>
pe::tensor<T> rotate(const std::string& text, const pe::tensor<double>& x, const std::vector<std::int64_t>& pos) {
  return pe::rope_rotate<T>(parse_spec(text), x, pos);
}

// Seed 004's toy trace: theta = pi/4, m = 3, n = 1, q = k = [1, 0]. The rotated vectors are
// [-sqrt2/2, sqrt2/2] and [sqrt2/2, sqrt2/2] and their inner product is cos(2 theta) = 0 -- for
// the exact pi/4. A spec's numbers are binary64, so theta is the double nearest pi/4, and the
// exact rotation of that input agrees with the lesson to 16 digits: the inner product is
// cos(2 theta) = 6.1e-17, not 0.
TEST(rope_rotate, seed_004_toy_trace) {
  const std::string text = "rope(dim=2, freqs=[0.78539816339744830962])";
  pe::tensor<double> x({2, 1, 2});
  x.data = {1, 0, 1, 0};
  const auto y = rotate<double>(text, x, {3, 1});
  const double half_sqrt2 = std::sqrt(2.0) / 2;
  EXPECT_NEAR(y.data[0], -half_sqrt2, 2e-16);
  EXPECT_NEAR(y.data[1], half_sqrt2, 2e-16);
  EXPECT_NEAR(y.data[2], half_sqrt2, 2e-16);
  EXPECT_NEAR(y.data[3], half_sqrt2, 2e-16);
  pe::mp_precision scope(256);
  const auto e = rotate<mp_real>(text, x, {3, 1});
  // mpmath at 100 digits: cos(3 theta) and sin(3 theta) for theta = 0x1.921fb54442d18p-1.
  EXPECT_LT(abs(e.data[0] - mp_real("-0.70710678118654745945414014444285017179562195999396793629406779627571157266951767")), mp_real("1e-75"));
  EXPECT_LT(abs(e.data[1] - mp_real("0.70710678118654758934754857976684194151604226565804954843805426051282181910739721")), mp_real("1e-75"));
  const mp_real dot = e.data[0] * e.data[2] + e.data[1] * e.data[3];
  EXPECT_LT(abs(dot - mp_real("6.12323399573676588613032966137500146464037779883628305209605e-17")), mp_real("1e-75"));
}

// Weight converters permute W_q and W_k rows between the layouts: gptj pair (2i, 2i+1) is neox
// pair (i, i + r/2). Rotating permuted inputs in one layout is the permuted rotation in the other.
TEST(rope_rotate, neox_and_gptj_are_related_by_the_pair_permutation) {
  const std::int64_t dim = 10, rotary = 8, pairs = 4;
  const auto x = vectors(3, 2, dim, 1);
  const std::vector<std::int64_t> pos{0, 77, std::int64_t{1} << 33};
  std::vector<std::int64_t> perm(dim);  // gptj index -> neox index
  for (std::int64_t i = 0; i < pairs; ++i) perm[2 * i] = i, perm[2 * i + 1] = i + pairs;
  for (std::int64_t d = rotary; d < dim; ++d) perm[d] = d;
  pe::tensor<double> x_neox(x.shape);
  for (std::int64_t row = 0; row < 6; ++row)
    for (std::int64_t d = 0; d < dim; ++d) x_neox.data[row * dim + perm[d]] = x.data[row * dim + d];
  const auto y_gptj = rotate<double>("rope(dim=10, rotary_dim=8, layout=gptj)", x, pos);
  const auto y_neox = rotate<double>("rope(dim=10, rotary_dim=8, layout=neox)", x_neox, pos);
  for (std::int64_t row = 0; row < 6; ++row)
    for (std::int64_t d = 0; d < dim; ++d) EXPECT_EQ(y_neox.data[row * dim + perm[d]], y_gptj.data[row * dim + d]);
  // So the q.k scores agree: every (query token, key token) pair of head 0, both layouts.
  const auto score = [&](const pe::tensor<double>& y, std::int64_t q, std::int64_t k) {
    double sum = 0;
    for (std::int64_t d = 0; d < dim; ++d) sum += y.data[(q * 2) * dim + d] * y.data[(k * 2) * dim + d];
    return sum;
  };
  for (std::int64_t q = 0; q < 3; ++q)
    for (std::int64_t k = 0; k < 3; ++k) EXPECT_NEAR(score(y_neox, q, k), score(y_gptj, q, k), 1e-14) << q << "," << k;
}

TEST(rope_rotate, partial_rotary_passes_the_rest_through) {
  const auto x = vectors(2, 3, 6, 2);
  const auto y = rotate<double>("rope(dim=6, rotary_dim=4)", x, {5, 1000});
  for (std::int64_t row = 0; row < 6; ++row) {
    EXPECT_EQ(y.data[row * 6 + 4], x.data[row * 6 + 4]);
    EXPECT_EQ(y.data[row * 6 + 5], x.data[row * 6 + 5]);
    EXPECT_NE(y.data[row * 6 + 1], x.data[row * 6 + 1]);
  }
  // truncate_low: zeroed pairs (neox pairs (2, 6) and (3, 7) of dim 8) are not rotated at all.
  const auto x8 = vectors(1, 1, 8, 3);
  const auto y8 = rotate<double>("rope(dim=8, truncate_low=0.5)", x8, {123456});
  for (const int d : {2, 3, 6, 7}) EXPECT_EQ(y8.data[d], x8.data[d]);
}

// rotate = attention_factor * R_p x, with R_p the explicit block-diagonal matrix (Eigen, 256 bits).
TEST(rope_rotate, equals_the_attention_factor_times_the_matrix) {
  pe::mp_precision scope(256);
  for (const char* text : {"rope(dim=6, layout=gptj)", "rope(dim=8, rotary_dim=6, scaling=yarn(factor=8, original_max=32))",
                           "rope(dim=8, base=500000, scaling=llama3(factor=8, original_max=64))"}) {
    const pe::spec s = parse_spec(text);
    const std::int64_t dim = s.integer("dim"), rotary = s.integer("rotary_dim");
    const std::int64_t p = 987654321;
    const auto x = vectors(1, 1, dim, 4);
    const auto y = pe::rope_rotate<mp_real>(s, x, std::vector<std::int64_t>{p});
    const auto r = pe::rope_matrix<mp_real>(s, p);
    const mp_real factor = pe::rope_inv_freq<mp_real>(s)[1].value.data.at(0);
    using matrix = Eigen::Matrix<mp_real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const matrix rm = Eigen::Map<const matrix>(r.data.data(), dim, dim);
    Eigen::Matrix<mp_real, Eigen::Dynamic, 1> xv(dim);
    for (std::int64_t d = 0; d < dim; ++d) xv(d) = mp_real(x.data[d]);
    const Eigen::Matrix<mp_real, Eigen::Dynamic, 1> rx = rm * xv;
    for (std::int64_t d = 0; d < dim; ++d) {
      const mp_real want = d < rotary ? factor * rx(d) : rx(d);  // the pass-through is not scaled
      EXPECT_LT(abs(y.data[d] - want), mp_real("1e-70")) << text << " d=" << d;
    }
    // R is a rotation: R^T R = I, det R = 1.
    EXPECT_LT((rm.transpose() * rm - matrix::Identity(dim, dim)).cwiseAbs().maxCoeff(), mp_real("1e-70")) << text;
    EXPECT_LT(abs(rm.determinant() - 1), mp_real("1e-70")) << text;
  }
}

// R_m^T R_n = R_(n - m) (seed 004's identity), exactly enough at 256 bits for far-apart positions.
TEST(rope_matrix, relative_rotation_identity) {
  pe::mp_precision scope(256);
  const pe::spec s = parse_spec("rope(dim=8)");
  using matrix = Eigen::Matrix<mp_real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto m = [&](std::int64_t p) {
    const auto r = pe::rope_matrix<mp_real>(s, p);
    return matrix(Eigen::Map<const matrix>(r.data.data(), 8, 8));
  };
  const std::int64_t a = 1000003, b = (std::int64_t{1} << 40) + 17;
  EXPECT_LT((m(a).transpose() * m(b) - m(b - a)).cwiseAbs().maxCoeff(), mp_real("1e-70"));
}

// Every scaling, positions log-spaced to 2^40: binary64 rotate within its bound of the 256-bit
// result. Each output is formed in MPFR at 128 bits from exactly reduced phases and rounded
// once, so the bound is half an ulp plus the wide path's relative error (2^-120) divided by
// how much the rotation cancels; 1 ulp allows cancellation down to 2^-60 of |x|.
TEST(rope_rotate, binary64_is_within_1_ulp_of_256_bits_at_every_scaling) {
  const char* specs[] = {
      "rope(dim=16)", "rope(dim=16, layout=gptj, base=500000)", "rope(dim=16, rotary_dim=8)",
      "rope(dim=16, scaling=linear(factor=4))", "rope(dim=16, scaling=ntk(factor=8))",
      "rope(dim=16, scaling=dynamic(factor=4, original_max=4096))",
      "rope(dim=16, scaling=yarn(factor=16, original_max=4096))",
      "rope(dim=16, scaling=yarn(factor=16, original_max=4096, magnitude=ggml))",
      "rope(dim=16, base=500000, scaling=llama3(factor=8, original_max=8192))",
      "rope(dim=16, scaling=longrope(short_factor=[1,1,1,1,1.5,2,3,4], long_factor=[1,2,3,4,5,6,7,8], original_max=4096, max_pos=131072))",
  };
  std::vector<std::int64_t> pos;
  for (int k = 0; k <= 40; ++k) pos.push_back((std::int64_t{1} << k) + k);  // log-spaced, off the powers of two
  const auto x = vectors(static_cast<std::int64_t>(pos.size()), 2, 16, 5);
  double worst = 0;
  std::string worst_where;
  for (const char* text : specs) {
    const auto fast = rotate<double>(text, x, pos);
    pe::mp_precision scope(256);
    const auto exact = rotate<mp_real>(text, x, pos);
    for (size_t k = 0; k < fast.data.size(); ++k) {
      const double e = pe::error_in_ulps(fast.data[k], exact.data[k], pe::binary64);
      if (e > worst) worst = e, worst_where = fmt::format("{} element {}", text, k);
      ASSERT_LE(e, 1.0) << text << " element " << k;
    }
  }
  std::cout << "worst binary64 rotate error: " << worst << " ulp (" << worst_where << ")\n";
}

TEST(rope_rotate, float_and_half_outputs_round_the_exact_value_once) {
  const auto x = vectors(4, 1, 8, 6);
  const std::vector<std::int64_t> pos{1, 300, 70000, std::int64_t{1} << 35};
  const std::string text = "rope(dim=8, scaling=yarn(factor=4, original_max=64))";
  pe::mp_precision scope(256);
  const auto exact = rotate<mp_real>(text, x, pos);
  const auto f = rotate<float>(text, x, pos);
  const auto b = rotate<pe::bf16>(text, x, pos);
  for (size_t k = 0; k < exact.data.size(); ++k) {
    EXPECT_LE(pe::error_in_ulps(f.data[k], exact.data[k], pe::binary32), correctly_rounded_ulps) << k;
    EXPECT_LE(pe::error_in_ulps(static_cast<double>(b.data[k]), exact.data[k], pe::bfloat16), correctly_rounded_ulps) << k;
  }
}

// ---- validation ----

std::string error_of(const std::string& text) { return pe_test::spec_error_of(text); }

TEST(rope_spec, canonical_text_fills_rotary_dim) {
  EXPECT_EQ(parse_spec("rope(dim=128, base=500000, scaling=llama3(factor=8, original_max=8192))").text(),
            "rope(dim=128, base=500000, rotary_dim=128, layout=neox, truncate_low=0, scaling=llama3(factor=8, "
            "low_freq_factor=1, high_freq_factor=4, original_max=8192))");
  EXPECT_EQ(parse_spec(parse_spec("rope(dim=64, rotary_dim=16, layout=gptj)").text()).text(),
            "rope(dim=64, base=10000, rotary_dim=16, layout=gptj, truncate_low=0)");
}

TEST(rope_spec, errors_name_the_field) {
  const std::pair<const char*, const char*> cases[] = {
      {"rope(dim=8, rotary_dim=5)", "rope: rotary_dim=5 is odd; rotation pairs need an even rotary_dim"},
      // rotary_dim was never typed: the message names dim, the field that was.
      {"rope(dim=127)", "rope: dim=127 is odd; RoPE rotates pairs, so the rotated dims (rotary_dim, default dim) must be even"},
      {"rope(dim=8, rotary_dim=10)", "rope: rotary_dim=10 must be <= dim=8"},
      {"rope(dim=8, freqs=[1, 2])", "rope: freqs has 2 values; rotary_dim=8 needs 4"},
      {"rope(dim=2, freqs=[-1])", "rope: freqs has -1, which is negative"},
      {"rope(dim=8, truncate_low=1)", "rope: truncate_low=1 must be in [0, 1)"},
      {"rope(dim=8, scaling=linear(factor=0))", "rope: scaling: linear: factor=0 must be > 0"},
      {"rope(dim=8, scaling=lama3(factor=8, original_max=8192))",
       "rope: scaling: unknown rope_scaling scheme 'lama3' (did you mean 'llama3'?)"},
      {"rope(dim=8, scaling=yarn(factor=4))", "rope: scaling: yarn: original_max is required (the trained context length (HF: original_max_position_embeddings))"},
      {"rope(dim=8, scaling=yarn(factor=4, original_max=64, beta_fast=1, beta_slow=32))",
       "yarn: beta_fast=1 must be > beta_slow=32"},
      {"rope(dim=8, scaling=yarn(factor=4, original_max=64, truncate=false, magnitude=ggml))",
       "yarn: magnitude=ggml always truncates the correction range; truncate=false is not ggml"},
      {"rope(dim=8, scaling=llama3(factor=8, original_max=8192, low_freq_factor=4, high_freq_factor=1))",
       "llama3: high_freq_factor=1 must be >= low_freq_factor=4"},
      {"rope(dim=2, scaling=ntk(factor=2))", "rope: scaling=ntk raises base to r/(r-2) and needs rotary_dim >= 4, not 2"},
      {"rope(dim=4, freqs=[1, 0.5], scaling=yarn(factor=2, original_max=8))",
       "rope: scaling=yarn derives its frequencies from base; it cannot be combined with freqs"},
      {"rope(dim=8, scaling=longrope(short_factor=[1], long_factor=[1, 2, 3, 4], original_max=16, max_pos=64))",
       "rope: scaling: longrope: short_factor has 1 values; rotary_dim=8 needs 4"},
      {"rope(dim=4, scaling=longrope(short_factor=[1, 0], long_factor=[1, 2], original_max=16, max_pos=64))",
       "rope: scaling: longrope: short_factor has 0, which is not > 0"},
      {"linear(factor=2)", "unknown scheme 'linear'"},
  };
  for (const auto& [text, message] : cases) EXPECT_EQ(error_of(text), message) << text;
}

}  // namespace

// ---- the working-precision model (src/pe/schemes/rope_working.hpp) ----
#include "pe/schemes/rope_working.hpp"

namespace {

// A float kernel forms the angle from float(position): 2^24 + 1 becomes 2^24, so two tokens get
// the same rotation; the exact reference keeps them apart.
TEST(rope_working, float_positions_merge_above_2_pow_24) {
  const auto x = vectors(2, 1, 8, 7);
  pe::tensor<double> same(x.shape);
  same.data = x.data;
  std::copy(x.data.begin(), x.data.begin() + 8, same.data.begin() + 8);  // token 1 = token 0
  const std::int64_t p = std::int64_t{1} << 24;
  const auto f = pe::rope_rotate_working<float, float>(parse_spec("rope(dim=8)"), same, std::vector<std::int64_t>{p, p + 1});
  for (int d = 0; d < 8; ++d) EXPECT_EQ(f.data[d], f.data[8 + d]) << d;
  const auto exact = rotate<double>("rope(dim=8)", same, {p, p + 1});
  EXPECT_NE(exact.data[0], exact.data[8]);
}

// The float model drifts at long context (its angle p * float(omega) is off by ~p * 2^-24 rad);
// the double model stays near the reference; a bf16 store adds its own 2^-9 rounding.
TEST(rope_working, error_grows_with_position_in_float) {
  const auto x = vectors(1, 1, 64, 8);
  const pe::spec s = parse_spec("rope(dim=64, base=500000)");
  const std::vector<std::int64_t> pos{1000000};
  const auto exact = pe::rope_rotate<double>(s, x, pos);
  const auto in_float = pe::rope_rotate_working<float, float>(s, x, pos);
  const auto in_double = pe::rope_rotate_working<double, double>(s, x, pos);
  const auto in_bf16 = pe::rope_rotate_working<float, pe::bf16>(s, x, pos);
  double worst_float = 0, worst_double = 0, worst_bf16 = 0;
  for (size_t k = 0; k < exact.data.size(); ++k) {
    worst_float = std::max(worst_float, std::fabs(in_float.data[k] - exact.data[k]));
    worst_double = std::max(worst_double, std::fabs(in_double.data[k] - exact.data[k]));
    worst_bf16 = std::max(worst_bf16, std::fabs(static_cast<double>(in_bf16.data[k]) - exact.data[k]));
  }
  std::cout << "max |error| at p = 1e6, |x| <= 2: float " << worst_float << ", double " << worst_double << ", bf16 store "
            << worst_bf16 << "\n";
  // Float: omega rounded to 24 bits and p * omega rounded again put the angle off by up to about
  // p * omega * 2^-23 = 0.12 rad at omega = 1: errors well above 1e-3 are expected.
  EXPECT_GT(worst_float, 1e-3);
  // Double: the same analysis with 2^-52 gives about 2e-10 rad, times |x| <= 2 and sqrt 2.
  EXPECT_LT(worst_double, 1e-9);
  EXPECT_GT(worst_bf16, worst_double);
}

}  // namespace

namespace {

// Found by review: inputs along a continued-fraction convergent of tan(1) make c x_a - s x_b
// cancel to 1e-18 of |x| (2^-110). The wide path (256 bits from 384-bit phases) keeps it.
// mpmath at 200 digits: cos 1 * 5299590348556454 - sin 1 * 3402827830284945 = -5.1326861154437623e-18.
TEST(rope_rotate, deep_cancellation_stays_within_the_bound) {
  pe::tensor<double> x({1, 1, 2});
  x.data = {5299590348556454, 3402827830284945};
  const auto y = rotate<double>("rope(dim=2)", x, {1});
  pe::mp_precision scope(256);
  EXPECT_LE(pe::error_in_ulps(y.data[0], mp_real("-5.132686115443762310415927557796633777023e-18"), pe::binary64), 0.5 + 1e-9);
  const auto e = rotate<mp_real>("rope(dim=2)", x, {1});
  EXPECT_LT(abs(e.data[0] / mp_real("-5.132686115443762310415927557796633777023e-18") - 1), mp_real("1e-38"));
}

// Frequencies far above 1 keep their fraction of a turn exact (mpmath at 200 digits: cos and
// sin of the doubles nearest 1e96 and 1e300).
TEST(rope_rotate, huge_frequencies_are_reduced_exactly) {
  pe::tensor<double> x({1, 1, 2});
  x.data = {1, 0};
  const std::pair<const char*, std::pair<const char*, const char*>> cases[] = {
      {"rope(dim=2, freqs=[1e96])", {"-0.206173057720127522272101666823243372237", "0.9785155442149771823358237780910032050277"}},
      {"rope(dim=2, freqs=[1e300])", {"-0.5753861119575490466882442759658061506357", "-0.8178819121159085970458852827554262120114"}},
  };
  for (const auto& [text, want] : cases) {
    const auto y = rotate<double>(text, x, {1});
    const auto inv = pe::rope_inv_freq<double>(parse_spec(text))[0].value.data;
    pe::mp_precision scope(256);
    EXPECT_LE(pe::error_in_ulps(y.data[0], mp_real(want.first), pe::binary64), 0.5 + 1e-9) << text;
    EXPECT_LE(pe::error_in_ulps(y.data[1], mp_real(want.second), pe::binary64), 0.5 + 1e-9) << text;
    const auto e = rotate<mp_real>(text, x, {1});
    EXPECT_LT(abs(e.data[0] - mp_real(want.first)), mp_real("1e-39")) << text;
  }
  // The same through a scaling: linear(factor=1e-200) makes omega = 1e200 / 1.
  pe::tensor<double> x2({1, 1, 2});
  x2.data = {1, 0};
  const auto fast = rotate<double>("rope(dim=2, scaling=linear(factor=1e-200))", x2, {3});
  pe::mp_precision scope(256);
  const auto exact = rotate<mp_real>("rope(dim=2, scaling=linear(factor=1e-200))", x2, {3});
  EXPECT_LE(pe::error_in_ulps(fast.data[0], exact.data[0], pe::binary64), 1.0);
}

TEST(rope_scaling, seq_len_saturates_at_the_largest_position) {
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  const auto scaled = pe::rope_matrix<double>(parse_spec("rope(dim=4, scaling=dynamic(factor=2, original_max=16))"), top);
  const auto plain = pe::rope_matrix<double>(parse_spec("rope(dim=4)"), top);
  EXPECT_NE(scaled.data[1 * 4 + 1], plain.data[1 * 4 + 1]);  // pair 1 (neox dims 1, 3) is rescaled; pair 0 has omega 1 either way
  EXPECT_EQ(pe::call_seq_len(std::vector<std::int64_t>{5, top, 7}), top);
}

TEST(rope_scaling, longrope_factor_and_checks) {
  pe::mp_precision scope(256);
  const auto att = pe::rope_inv_freq<mp_real>(parse_spec(
      "rope(dim=4, scaling=longrope(short_factor=[1, 1], long_factor=[2, 2], original_max=16, max_pos=64, factor=8))"))[1].value.data.at(0);
  EXPECT_LT(abs(att - sqrt(mp_real("1.75"))), mp_real("1e-70"));  // sqrt(1 + ln 8 / ln 16): the explicit factor wins
  EXPECT_EQ(error_of("rope(dim=4, scaling=longrope(short_factor=[1, 1], long_factor=[2, 2], original_max=1, max_pos=64))"),
            "longrope: original_max=1 makes ln(original_max) = 0 in the attention factor; use >= 2");
  EXPECT_EQ(error_of("rope(dim=8, scaling=yarn(factor=4, original_max=64, magnitude=ggml, mscale=1))"),
            "yarn: magnitude=ggml takes ggml's attn_factor as attention_factor; mscale and mscale_all_dim are HF's");
}

}  // namespace
