# `pecheck spec from-gguf` (issue 18, item 2): GGUF files written byte by byte by gguf/make_gguf.py into
# the build directory, each against its hand-written gguf/NAME.expected (real-model headers and corrupt
# files alike), and gate/audit --gguf.
set(gguf_sources ${CMAKE_CURRENT_SOURCE_DIR}/convert/gguf)
set(gguf_files ${CMAKE_CURRENT_BINARY_DIR}/convert_gguf)
set(gguf_pecheck $<TARGET_FILE:pecheck>)
shell_test(convert.gguf.generate unit "rm -rf ${gguf_files} && /usr/bin/python3 ${gguf_sources}/make_gguf.py ${gguf_files}")
set_tests_properties(convert.gguf.generate PROPERTIES FIXTURES_SETUP convert_gguf_files)
# gguf_test(<name> <command>): a test that needs the generated files.
function(gguf_test name command)
  shell_test(convert.gguf.${name} unit "${command}")
  set_tests_properties(convert.gguf.${name} PROPERTIES FIXTURES_REQUIRED convert_gguf_files)
endfunction()

file(GLOB gguf_expected CONFIGURE_DEPENDS ${gguf_sources}/*.expected)
foreach(expected ${gguf_expected})
  get_filename_component(name ${expected} NAME_WE)
  gguf_test(${name} "/usr/bin/python3 ${gguf_sources}/check_gguf.py ${gguf_pecheck} ${gguf_files} ${name}")
endforeach()

# Only the header and metadata are read: a 10 GiB (sparse) file costs one buffer of reads. Leak
# detection off under strace: LeakSanitizer cannot run under ptrace (the sanitizer job's build).
gguf_test(reads_only_metadata
          "cd ${gguf_files} && cp llama3_8b.gguf big.gguf && truncate -s 10G big.gguf && ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" strace -y -e trace=read,pread64 -o big.log ${gguf_pecheck} spec from-gguf big.gguf > big.out; status=$?; rm -f big.gguf; test $status -eq 0 && grep -q '^rope(dim=128, base=500000' big.out && bytes=$(grep 'big.gguf>' big.log | sed 's/.*= //' | awk '{s += $1} END {print s + 0}') && echo \"read $bytes bytes of the file\" && test $bytes -gt 0 && test $bytes -le 65536")

# gate and audit --gguf: the same specs as spec from-gguf, checked or swept.
set(gguf_gate "${gguf_pecheck} gate --impl-reference --cases 5 --golden ${PROJECT_SOURCE_DIR}/golden --golden-scope spec")
gguf_test(gate_llama3
          "cd ${gguf_files} && out=$(${gguf_gate} --gguf llama3_8b.gguf); status=$?; echo \"$out\"; test $status -eq 0 && echo \"$out\" | grep -qx -- '--gguf llama3_8b.gguf: all 32 layers: rope(dim=128, base=500000, rotary_dim=128, layout=gptj, truncate_low=0)' && echo \"$out\" | grep -q '^PASS *conformance.rotate *rope(dim=128, base=500000, rotary_dim=128, layout=gptj' && echo \"$out\" | grep -qx 'gate: PASS at positions up to 2^40'")
gguf_test(gate_bad_file_gets_one_line
          "cd ${gguf_files} && out=$(${gguf_gate} --gguf error_truncated_array.gguf 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && test \"$out\" = \"$(cat error_truncated_array.expected)\"")
gguf_test(gguf_excludes_spec_and_hf_config
          "cd ${gguf_files} && out=$(${gguf_gate} --spec 'rope(dim=8)' --gguf llama3_8b.gguf 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && test \"$out\" = 'pecheck: --spec excludes --gguf' && out=$(${gguf_gate} --hf-config x.json --gguf llama3_8b.gguf 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && test \"$out\" = 'pecheck: --hf-config excludes --gguf'")
set(gguf_audit "${gguf_pecheck} audit --impl-reference --positions 0:64 --tokens-per-call 32")
gguf_test(audit_sweeps_rope
          "cd ${gguf_files} && out=$(${gguf_audit} --gguf qwen2_7b.gguf); status=$?; echo \"$out\"; test $status -eq 0 && echo \"$out\" | grep -qx -- '--gguf qwen2_7b.gguf: all 28 layers: rope(dim=128, base=1000000, rotary_dim=128, layout=neox, truncate_low=0)' && echo \"$out\" | grep -qx 'audit: PASS'")
gguf_test(audit_of_alibi_alone_exits_2
          "cd ${gguf_files} && out=$(${gguf_audit} --gguf bloom_560m.gguf 2>&1); status=$?; echo \"$out\"; test $status -eq 2 && echo \"$out\" | grep -qx -- '--gguf bloom_560m.gguf: alibi(heads=16, causal=true): no op runs position by position, nothing to sweep (pecheck gate checks it)' && echo \"$out\" | grep -qx 'pecheck: audit: no layer of bloom_560m.gguf has a spec to sweep: nothing was audited'")
