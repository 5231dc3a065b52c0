# Model configs to specs (issue 18, item 1): `pecheck spec from-hf` on real configs, each against its
# hand-written expected output (tests/convert/hf/NAME.expected), and `gate`/`audit --hf-config`.
set(convert_fixtures ${CMAKE_CURRENT_SOURCE_DIR}/convert/hf)
file(GLOB convert_fixture_files CONFIGURE_DEPENDS ${convert_fixtures}/*.json)
foreach(fixture ${convert_fixture_files})
  get_filename_component(name ${fixture} NAME_WE)
  shell_test(convert.hf.${name} unit
             "/usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/convert/check_fixture.py $<TARGET_FILE:pecheck> ${convert_fixtures} ${name}")
endforeach()
# The issue asks for at least 20 real models.
shell_test(convert.hf.at_least_20_models unit
           "/usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/convert/check_fixture.py $<TARGET_FILE:pecheck> ${convert_fixtures} --count 20")

# 10^5 layers of distinct types: linear work. The time limit is the check: the test takes 5.5 s
# here, a quadratic path took 231 s at 16,000 layers and nlohmann's callback parser alone 100 s at
# 10^5 (so not in the sanitizer job, whose -O0 build is several times slower).
shell_test(convert.hf.hundred_thousand_layer_types unit
           "/usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/convert/many_layer_types.py $<TARGET_FILE:pecheck> ${CMAKE_CURRENT_BINARY_DIR}/many_layer_types")
set_tests_properties(convert.hf.hundred_thousand_layer_types PROPERTIES TIMEOUT 60)

# gate and audit --hf-config: every spec of the config checked, layers without a position reported.
set(convert_pecheck $<TARGET_FILE:pecheck>)
set(convert_gate "${convert_pecheck} gate --impl-reference --cases 5 --golden ${PROJECT_SOURCE_DIR}/golden --golden-scope spec")
shell_test(convert.gate_hf_config_llama3_1 unit
           "out=$(${convert_gate} --hf-config ${convert_fixtures}/llama3_1_8b.json); status=$?; echo \"$out\"; test $status -eq 0 && echo \"$out\" | grep -qx -- '--hf-config ${convert_fixtures}/llama3_1_8b.json: all 32 layers: rope(dim=128, base=500000, rotary_dim=128, layout=neox, truncate_low=0, scaling=llama3(factor=8, low_freq_factor=1, high_freq_factor=4, original_max=8192))' && echo \"$out\" | grep -q '^PASS *conformance.rotate *rope(dim=128, base=500000, .*scaling=llama3(factor=8' && echo \"$out\" | grep -qx 'gate: PASS at positions up to 2^40'")
shell_test(convert.gate_hf_config_t5_reports_cross_attention unit
           "out=$(${convert_gate} --hf-config ${convert_fixtures}/t5_small.json); status=$?; echo \"$out\"; test $status -eq 0 && echo \"$out\" | grep -qx -- '--hf-config .*: decoder: all 6 layers (cross-attention, no positional encoding): no positional encoding, nothing to check' && echo \"$out\" | grep -q '^PASS .*t5(buckets=32, max_distance=128, bidirectional=true' && echo \"$out\" | grep -q '^PASS .*t5(buckets=32, max_distance=128, bidirectional=false' && ! echo \"$out\" | grep -q 'none(dim=0)'")
shell_test(convert.gate_hf_config_without_positions_exits_2 unit
           "out=$(${convert_gate} --hf-config ${CMAKE_CURRENT_SOURCE_DIR}/convert/configs/all_nope.json 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && echo \"$out\" | grep -qx -- '--hf-config .*all_nope.json: all 4 layers (nope, no positional encoding): no positional encoding, nothing to check' && echo \"$out\" | grep -qx 'pecheck: gate: no layer of .*all_nope.json has a positional encoding: nothing was checked'")
shell_test(convert.gate_hf_config_bad_config_gets_one_line unit
           "cd ${convert_fixtures} && out=$(${convert_gate} --hf-config error_unknown_rope_type.json 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && test \"$out\" = \"$(cat error_unknown_rope_type.expected)\"")
shell_test(convert.gate_spec_and_hf_config_exclude_each_other unit
           "out=$(${convert_gate} --spec 'rope(dim=8)' --hf-config ${convert_fixtures}/llama3_8b.json 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && test \"$out\" = 'pecheck: --spec excludes --hf-config'")
set(convert_audit "${convert_pecheck} audit --impl-reference --positions 0:64 --tokens-per-call 32")
shell_test(convert.audit_hf_config_sweeps_each_kind unit
           "out=$(${convert_audit} --hf-config ${convert_fixtures}/gemma3_4b_it.json); status=$?; echo \"$out\"; test $status -eq 0 && echo \"$out\" | grep -qx 'audit of rope(dim=256, base=10000, rotary_dim=256, layout=neox, truncate_low=0)' && echo \"$out\" | grep -qx 'audit of rope(dim=256, base=1000000, rotary_dim=256, layout=neox, truncate_low=0, scaling=linear(factor=8))' && test \"$(echo \"$out\" | grep -cx 'audit: PASS')\" -eq 2")
shell_test(convert.audit_hf_config_reports_what_it_cannot_sweep unit
           "out=$(${convert_audit} --hf-config ${convert_fixtures}/llama4_maverick.json); status=$?; echo \"$out\"; test $status -eq 0 && echo \"$out\" | grep -qx -- '--hf-config .*: llama4_temperature(floor_scale=8192, attn_scale=0.1): no op runs position by position, nothing to sweep (pecheck gate checks it)' && test \"$(echo \"$out\" | grep -cx 'audit: PASS')\" -eq 1")
shell_test(convert.audit_hf_config_files_need_one_spec unit
           "cd ${convert_fixtures} && out=$(${convert_audit} --hf-config gemma3_4b_it.json --json ${CMAKE_CURRENT_BINARY_DIR}/convert_audit.json 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && test \"$out\" = 'pecheck: audit: --hf-config gemma3_4b_it.json gives 2 specs to sweep, and --json, --html, --baseline and --save-baseline hold one audit: audit them one at a time with --spec' && test ! -e ${CMAKE_CURRENT_BINARY_DIR}/convert_audit.json")
# A layer type name is the config's text: a newline in it stays inside its comment line (a fuzz finding).
shell_test(convert.layer_type_names_stay_one_line unit
           "/usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/convert/check_fixture.py $<TARGET_FILE:pecheck> ${CMAKE_CURRENT_SOURCE_DIR}/convert/configs layer_type_with_newline")

# spec from-gguf and gate/audit --gguf.
include(${CMAKE_CURRENT_SOURCE_DIR}/convert/gguf.cmake)
