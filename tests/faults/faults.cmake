# The gate's isolation tests: faulty plugins (faulty_plugins.c, one fault per build) and faulty
# wire processes (faulty_wire.py, one per mode), each with the exit status and the line naming the
# cause it must get, within a time limit, leaving no process behind (expect_fault.sh).
set(fault_runner ${CMAKE_CURRENT_LIST_DIR}/expect_fault.sh)
set(fault_golden --golden ${PROJECT_SOURCE_DIR}/golden)
# fault_fields(ENTRY VAR...): the |-separated fields of ENTRY, in order, into VAR..., empty past the
# last field (a function, not a macro: a macro would expand the regexes' backslashes once more).
function(fault_fields entry)
  string(REPLACE "|" ";" fields "${entry}")
  list(LENGTH fields count)
  set(index 0)
  foreach(var ${ARGN})
    set(value "")
    if(index LESS count)
      list(GET fields ${index} value)
    endif()
    set(${var} "${value}" PARENT_SCOPE)
    math(EXPR index "${index} + 1")
  endforeach()
endfunction()
# name|FAULT number|exit status|seconds at most|the line that must appear|--timeout-ms|more gate arguments
# Each call of touch_1_5_gib faults in a whole GiB before the gate kills it (about 0.5 s of kernel time
# here, and ten times that on a loaded CI machine; its deadline, 20 s, is far above that: at 5 s the
# wire child's call timed out once under ctest -j2 beside another job): without the golden files it makes 9 such calls,
# not 17. The golden path's handling of a crash is the same call policy, tested by the others. The
# heap corruption and the leak only show in a process that serves many calls: the default worker.
set(plugin_faults
  "ctor_exit0|1|2|10|--impl .*: exited with status 0 while loading it \\(dlopen and its constructors\\)|1000"
  "ctor_segv|2|2|10|--impl .*: killed by signal 11 \\(Segmentation fault\\) while loading it|1000"
  "ctor_hang|3|2|10|--impl .*: no answer within 1000 ms while loading it|1000|--start-timeout-ms 1000"
  "version_segv|4|2|10|--impl .*: killed by signal 11 \\(Segmentation fault\\) in pe_impl_abi_version|1000"
  "name_wild_pointer|5|2|10|--impl .*: killed by signal 11 \\(Segmentation fault\\) in pe_impl_name|1000"
  "name_no_nul_64k|6|2|10|--impl .*: pe_impl_name returned a name of more than 256 bytes|1000"
  "name_control_byte|17|2|10|--impl .*: pe_impl_name returned a name with the unprintable byte 0x07 at 6|1000"
  "write_65_past|7|1|20|wrote outside an output: wrote past the [0-9]+ bytes of output y, at byte|1000"
  "write_1mib_past|8|1|20|wrote outside an output: wrote past the [0-9]+ bytes of output y, at byte 1[0-9]{6}|1000"
  "write_before|14|1|20|wrote outside an output: wrote before the [0-9]+ bytes of output y, 1 bytes before it|1000"
  "write_input|9|1|20|wrote outside an output: wrote into input x|1000"
  "message_overrun|15|1|20|wrote outside an output: wrote past the 1024 bytes of the message buffer|1000"
  "touch_1_5_gib|10|1|40|crashed: out of memory: the call grew past 1024 MiB|20000|--golden-scope none"
  "touch_1_5_gib_at_256_mib|10|1|40|crashed: out of memory: the call grew past 256 MiB|20000|--golden-scope none --memory-limit-mib 256"
  "run_exit0|11|1|20|crashed: exited with status 0 inside pe_impl_run|1000"
  "run__exit0|12|1|20|crashed: exited with status 0 inside pe_impl_run|1000"
  "bad_status_value|13|1|20|bad output: pe_impl_run returned 7, not PE_OK, PE_UNSUPPORTED or PE_ERROR|1000"
  # Each call leaves a spinning child, which the worker kills in its sandbox when the call returns
  # (without the sandbox, a new worker per call: --sandbox require). The whole run, 1,515 calls,
  # takes 2.5 s here alone; the limit catches a hang, not slowness.
  "run_forks_spinner|16|0|60|^note: [0-9]+ call\\(s\\) left a process behind: the worker killed every process|1000|--sandbox require"
  # Not a fault: a helper started while loading is kept, so the worker is replaced after each call
  # instead (a new worker per call: 20 cases and no golden files keep it to a few hundred).
  "keeps_helper_from_load|42|0|60|^note: the plugin's worker process was replaced [0-9]+ time\\(s\\): a call left a process behind|1000|--golden-scope none --cases 20"
  "heap_corrupt_on_call_5|18|1|20|crashed: killed by signal 6 \\(Aborted\\) inside pe_impl_run \\(after [0-9]+ earlier calls in the same worker process. in a fresh one the same call answered ok|1000"
  # A worker per call: 20 cases a check and no golden files keep the workers to a few hundred.
  "heap_corrupt_on_call_5_call_isolation|18|0|60|^gate: PASS|1000|--isolation call --golden-scope none --cases 20"
  "child_touches_1_5_gib|20|1|40|crashed: out of memory: the call grew past 1024 MiB|20000|--golden-scope none"
  # Its first call forks a child that returns from pe_impl_run too: killed in place, once.
  "forked_child_returns|21|0|60|^note: 1 call\\(s\\) left a process behind|1000|--sandbox require"
  # A CUDA-like plugin (64 GiB of address space reserved, none of it used): the default cap stops
  # it, --address-space-gib unlimited lets it pass.
  "reserves_64_gib|26|1|30|error: cannot reserve 64 GiB of address space|1000|--golden-scope none"
  "reserves_64_gib_unlimited|26|0|30|^gate: PASS|1000|--golden-scope none --address-space-gib unlimited"
  "leak_64_mib_per_call|19|0|40|^note: the plugin's worker process was replaced [0-9]+ time\\(s\\): it held more than 1024 MiB|1000|--golden-scope none --cases 10"
  # One fault in the whole run (PECHECK_FAULT_ONCE): its check fails, every other, on a second spec
  # too, passes (the last field, FAULT_FAILS). The plugin is loaded by a relative path (expect_fault.sh).
  "ignores_signals_hangs|22|1|30|timed out: no answer within 1000 ms|1000|--spec rope(dim=32) --golden-scope spec|1"
  "closes_std_fds_aborts|23|1|30|crashed: killed by signal 6 \\(Aborted\\) inside pe_impl_run|1000|--spec rope(dim=32) --golden-scope spec|1"
  "chdir_away_segv|24|1|30|killed by signal 11 \\(Segmentation fault\\) inside pe_impl_run|1000|--spec rope(dim=32) --golden-scope spec|1"
  "writes_on_channel|25|1|30|wrote outside an output: wrote onto the worker's channel to the gate: a byte that is no answer of the worker's|1000|--spec rope(dim=32) --golden-scope spec|1"
  # Declining to earn a PASS (issue 38, section 1): an identity answered only at position 0 leaves
  # every band past it never answered (INCOMPLETE); inv_freq alone shows nothing of the positions
  # (the spec is unchecked). Both exit 1 with the verdict line saying INCOMPLETE.
  "unsupported_unless_position_0|27|1|60|^INCOMPLETE +conformance\\.rotate +rope\\(dim=64, |1000"
  "unsupported_unless_position_0_verdict|27|1|60|^gate: INCOMPLETE at positions up to 2\\^40 |1000"
  "inv_freq_only|28|1|30|^NOTHING +checked +rope\\(dim=64, |1000"
  # Declining every case with values at the I/O dtype's edges (subnormals, large magnitudes): the
  # class is drawn and never answered.
  "unsupported_on_edge_values|41|1|60|never answered: .*values at the I/O dtype's edges|1000"
  # Writes into every regular file it inherited: nothing of the gate's is open to it (the report
  # below), so its answers, all correct, pass.
  "writes_inherited_files|29|0|30|^gate: PASS|1000"
  # Accepting the declined cases of every op that turns does not make position 0 a check of the spec.
  "unsupported_unless_position_0_accepted|27|1|60|^gate: INCOMPLETE at positions up to 2\\^40, partial accepted: rotate, rotate_grad, rotate_qk, apply_tables \\(0 checks INCOMPLETE, 1 spec unchecked|1000|--allow-partial rotate,rotate_grad,rotate_qk,apply_tables"
  "inv_freq_only_verdict|28|1|30|^gate: INCOMPLETE |1000"
  # Attacks on the gate's processes from inside the sandbox (--sandbox require; skipped, exit 77,
  # where the system does not allow the namespaces): each is without effect, so the run passes,
  # and leaves no process behind (the daemons end with the namespace, before the gate ends).
  "kills_gate|30|0|30|^gate: PASS|1000|--sandbox require"
  "stops_gate|31|0|30|^gate: PASS|1000|--sandbox require"
  "traces_gate|32|0|30|^gate: PASS|1000|--sandbox require"
  "opens_gate_memory|33|0|30|^gate: PASS|1000|--sandbox require"
  "joins_gate_group|34|0|30|^gate: PASS|1000|--sandbox require"
  "leaves_100_daemons|35|0|60|^gate: PASS|1000|--sandbox require --golden-scope none --cases 10"
  "forges_report_later|36|0|30|^gate: PASS|1000|--sandbox require --golden-scope none --cases 10 --json report.json"
  # Each call within its deadline, the run past its budget (--time-budget): the calls after it fail
  # at once, the note says how many, and the run ends in seconds, not the 77 s its calls would take.
  "sleeps_50_ms_past_time_budget|37|1|30|timed out: the run's time budget of 2 s \\(--time-budget\\) was spent by earlier calls|1000|--time-budget 2"
  "sleeps_50_ms_past_time_budget_note|37|1|30|^note: the implementation's calls took [0-9.]+ s, past the run's time budget of 2 s \\(--time-budget\\): [0-9]+ later calls failed without running|1000|--time-budget 2"
  "sandbox_says_what_is_on|30|0|30|^sandbox: on: user namespace, PID namespace, IPC and network namespaces, file writes, (signals, )?system calls$|1000|--sandbox require"
  # Creates a file in the test's directory and truncates every file there, on each call: the
  # sandbox refuses both (the canary and the listing in expect_fault.sh), and lets it write its
  # scratch directory, so the run passes.
  "writes_into_gate_dir|39|0|30|^gate: PASS|1000|--sandbox require --golden-scope none --cases 20"
  # Tries, on each call, the system calls the filter refuses (each would succeed without it): all
  # refused, its answers pass.
  "tries_refused_syscalls|40|0|30|^gate: PASS|1000|--sandbox require --golden-scope none --cases 20"
  # 4 MiB of stderr a call, under a run's budget of 1 MiB: the call that passes it fails, every
  # later one fails at once, and the gate shows 1 MiB of it (FAULT_MAX_OUTPUT, below).
  "floods_stderr|38|1|30|error: earlier calls wrote past the run's stderr budget of 1048576 bytes \\(--stderr-budget-mib\\)|1000|--stderr-budget-mib 1 --golden-scope none --cases 20"
  "floods_stderr_note|38|1|30|^note: the implementation wrote [0-9]+ bytes to stderr, past the run's budget of 1048576 \\(--stderr-budget-mib\\): the call during which it passed it failed, and [0-9]+ later calls failed without running|1000|--stderr-budget-mib 1 --golden-scope none --cases 20"
  # Without the sandbox a worker that left its process group for the gate's is still ended by the
  # gate, which would otherwise wait for it forever.
  "joins_gate_group_unsandboxed|34|0|30|^gate: PASS|1000|--sandbox off")
# What expect_fault.sh checks beyond the above, by test name: a report forged once the gate has
# ended would pass the checks above, so the report itself is read; a flood of stderr is cut at the
# budget (1 MiB) plus the gate's own report.
set(fault_environment "forges_report_later|FAULT_REPORT=report.json" "floods_stderr|FAULT_MAX_OUTPUT=1200000"
                      "floods_stderr_note|FAULT_MAX_OUTPUT=1200000" "wire_floods_stderr|FAULT_MAX_OUTPUT=1200000")
# fault_plugin(N): the faulty plugin with fault N, target fault_N (once).
function(fault_plugin number)
  if(NOT TARGET fault_${number})
    add_library(fault_${number} MODULE ${CMAKE_CURRENT_LIST_DIR}/faulty_plugins.c)
    target_compile_definitions(fault_${number} PRIVATE FAULT=${number})
    target_include_directories(fault_${number} PRIVATE ${PROJECT_SOURCE_DIR}/src/gate)
    target_link_libraries(fault_${number} PRIVATE m)
  endif()
endfunction()
foreach(entry ${plugin_faults})
  fault_fields("${entry}" name number status seconds pattern timeout extra fails)
  separate_arguments(extra UNIX_COMMAND "${extra}")
  fault_plugin(${number})
  add_test(NAME gate.fault_${name} COMMAND ${fault_runner} $<TARGET_FILE:pecheck> impl $<TARGET_FILE:fault_${number}> ${status} ${seconds} "${pattern}"
                                           --spec "rope(dim=64)" --timeout-ms ${timeout} ${fault_golden} ${extra})
  set_tests_properties(gate.fault_${name} PROPERTIES LABELS gate SKIP_RETURN_CODE 77)
  if(NOT fails STREQUAL "")  # the example kernel answers rotate alone: inv_freq and attend unsupported on both specs
    set_tests_properties(gate.fault_${name} PROPERTIES ENVIRONMENT "FAULT_FAILS=${fails};FAULT_UNSUPPORTED=4")
  endif()
endforeach()
# A plugin's worker keeps a call's memory mapped for the next call of the same layout (every call of
# an audit): what a plugin did to the mapping must not outlive its call. Input x made writable by one
# call is read-only again in the next, whose write into it fails that call; an output the plugin
# unmapped is mapped again, so its correct answers pass.
fault_plugin(43)
fault_plugin(44)
set(mapping_audit "a='audit --spec rope(dim=64) --positions 0:2048 --tokens-per-call 256'")
shell_test(audit.fault_input_made_writable_is_read_only_in_the_next_call gate
           "${mapping_audit}; out=$($<TARGET_FILE:pecheck> $a --impl $<TARGET_FILE:fault_43>); status=$?; echo \"$out\"; test $status -eq 1 && echo \"$out\" | grep -q 'positions 256..511: .*wrote into input x'")
shell_test(audit.fault_output_unmapped_is_mapped_again_in_the_next_call gate
           "${mapping_audit}; out=$($<TARGET_FILE:pecheck> $a --impl $<TARGET_FILE:fault_44>); status=$?; echo \"$out\"; test $status -eq 0 && echo \"$out\" | grep -q '^audit: PASS$'")
# The memory budget a plugin call is given (implementation_flags::memory_limit_mib), on the plugin that touches 1.5 GiB.
pecheck_test(gate/call_memory_limit_test.cpp unit)
target_link_libraries(call_memory_limit_test PRIVATE pe_gate)
target_compile_definitions(call_memory_limit_test PRIVATE FAULT_TOUCH_PLUGIN="$<TARGET_FILE:fault_10>")
add_dependencies(call_memory_limit_test fault_10)  # the test loads it: built with the test, not only with "all"
# The wire's memory watch over a process tree (tree_memory.hpp).
pecheck_test(gate/tree_memory_test.cpp unit)
target_link_libraries(tree_memory_test PRIVATE pe_gate)
# The JSON report carries the notes too; --isolation is --impl's alone (exit 2 with another implementation).
add_test(NAME gate.fault_notes_in_the_json_report
         COMMAND sh -c "$<TARGET_FILE:pecheck> gate --impl $<TARGET_FILE:fault_19> --spec 'rope(dim=64)' --golden-scope none --cases 3 --json ${CMAKE_CURRENT_BINARY_DIR}/fault_notes.json > /dev/null && /usr/bin/python3 -c \"import json, sys; notes = json.load(open(sys.argv[1]))['notes']; assert len(notes) == 1 and 'worker process was replaced' in notes[0], notes\" ${CMAKE_CURRENT_BINARY_DIR}/fault_notes.json")
set_tests_properties(gate.fault_notes_in_the_json_report PROPERTIES LABELS gate)
# A plugin that writes into every regular file it inherited (a report held open through the run
# would be one): the report stays the gate's, whole and valid, and the run passes.
add_test(NAME gate.fault_writes_inherited_files_leave_the_report_whole
         COMMAND sh -c "rm -f ${CMAKE_CURRENT_BINARY_DIR}/inherited.json && $<TARGET_FILE:pecheck> gate --impl $<TARGET_FILE:fault_29> --spec 'rope(dim=64)' --golden-scope none --cases 20 --json ${CMAKE_CURRENT_BINARY_DIR}/inherited.json --junit ${CMAKE_CURRENT_BINARY_DIR}/inherited.xml > /dev/null && /usr/bin/python3 -c \"import json, sys; r = json.load(open(sys.argv[1])); assert r['verdict'] == 'PASS', r['verdict']; x = open(sys.argv[2]).read(); assert x.startswith('<?xml') and 'forged' not in x\" ${CMAKE_CURRENT_BINARY_DIR}/inherited.json ${CMAKE_CURRENT_BINARY_DIR}/inherited.xml")
set_tests_properties(gate.fault_writes_inherited_files_leave_the_report_whole PROPERTIES LABELS gate)
# Without an address-space cap the worker is not replaced for its reserved address space either:
# one worker serves the whole run (no note); --address-space-gib takes GiB from 1 or unlimited.
add_test(NAME gate.address_space_unlimited_keeps_one_worker
         COMMAND sh -c "$<TARGET_FILE:pecheck> gate --impl $<TARGET_FILE:fault_26> --address-space-gib unlimited --spec 'rope(dim=64)' --golden-scope none --cases 3 --json ${CMAKE_CURRENT_BINARY_DIR}/address_space_notes.json > /dev/null && /usr/bin/python3 -c \"import json, sys; r = json.load(open(sys.argv[1])); assert r['notes'] == [], r['notes']\" ${CMAKE_CURRENT_BINARY_DIR}/address_space_notes.json")
set_tests_properties(gate.address_space_unlimited_keeps_one_worker PROPERTIES LABELS gate)
add_test(NAME gate.address_space_gib_is_checked
         COMMAND sh -c "out=$($<TARGET_FILE:pecheck> gate --impl $<TARGET_FILE:fault_26> --address-space-gib 0 --spec 'rope(dim=8)' 2>&1); test $? -eq 2 && echo \"$out\" | grep -q \"address-space-gib: '0' is not a whole number of GiB\"")
set_tests_properties(gate.address_space_gib_is_checked PROPERTIES LABELS gate)
add_test(NAME gate.isolation_needs_impl
         COMMAND sh -c "out=$($<TARGET_FILE:pecheck> gate --impl-cmd true --isolation call --spec 'rope(dim=8)' 2>&1); test $? -eq 2 && echo \"$out\" | grep -q 'isolation requires --impl'")
set_tests_properties(gate.isolation_needs_impl PROPERTIES LABELS gate)
# A plugin that hangs on one position: each hung call costs one deadline (the short one of the hang
# tests, tests/CMakeLists.txt), and nothing outlives the gate.
add_test(NAME gate.fault_hang_leaves_no_process COMMAND ${fault_runner} $<TARGET_FILE:pecheck> impl $<TARGET_FILE:mutant_hang> 1 60
                                                        "timed out: no answer within ${plugin_hang_timeout_ms} ms" --spec "rope(dim=64)"
                                                        --timeout-ms ${plugin_hang_timeout_ms} ${fault_golden})
set_tests_properties(gate.fault_hang_leaves_no_process PROPERTIES LABELS gate)

set(faulty_wire "/usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/faulty_wire.py")
# mode|spec|seconds at most|the line that must appear[|exit status (default 1)|--timeout-ms (default
# 1000)|checks that fail (FAULT_FAILS: none other may)|more gate arguments]. The closes_ modes run
# with exec: under a plain `sh -c` the shell keeps the pipe open, and the gate sees a plain hang
# instead of EOF. chdir_away is started by a path relative to the gate's directory (this one), which
# the restarted process must find again.
set(wire_faults
  "closes_stdout_stays_alive|rope(dim=32)|20|timed out: the process closed its stdout and was still running after 1000 ms"
  "never_answers|rope(dim=32)|20|timed out: declared hung after 3 consecutive deadlines of 1000 ms"
  "sigstop_self|rope(dim=32)|20|timed out: no answer within 1000 ms"
  "grandchild_spins|rope(dim=32)|20|timed out: no answer within 1000 ms"
  # Nothing of the spec supported: exit 2. 19 to 29 s under ctest -j2 (2026-12-05): the limit,
  # there to catch a deadlock, is 90 s.
  "unsupported_without_reading_big_payload|rope(dim=4096)|90|^gate: NOTHING SUPPORTED: |2"
  "wrong_json_types_id|rope(dim=32)|30|bad output: malformed answer: field id is string \"[0-9]+\", not an integer"
  "wrong_json_types_status|rope(dim=32)|30|bad output: malformed answer: field status is number 0, not a string"
  "wrong_json_types_message|rope(dim=32)|30|bad output: malformed answer: field message is array \\[\"no\"\\], not a string"
  "wrong_json_types_outputs|rope(dim=32)|30|bad output: malformed answer: field outputs is object, not an array"
  "wrong_json_types_name|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.name is number 1, not a string"
  "wrong_json_types_dtype|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.dtype is null, not a string"
  "wrong_json_types_shape|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.shape is array .*, not an array of non-negative integers"
  "wrong_json_types_offset|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.offset is number -1, not a non-negative integer"
  "wrong_json_types_nbytes|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.nbytes is number 1.5, not a non-negative integer"
  "wrong_json_types_payload_bytes|rope(dim=32)|30|bad output: malformed answer: field payload_bytes is string \"[0-9]+\", not a non-negative integer"
  # The NumPy adapter with one fault in the whole run (faulty_wire.py's SERVED_MODES): its check
  # fails, and every other, on the next spec too, passes.
  "ignores_signals|rope(dim=32)|30|timed out: no answer within 1000 ms|1|1000|1|--spec rope(dim=64)"
  "closes_std_fds|rope(dim=32)|30|timed out: the process closed its stdout and was still running after 1000 ms|1|1000|1|--spec rope(dim=64)"
  "chdir_away|rope(dim=32)|30|crashed: the process exited with status 3 mid-answer|1|1000|1|--spec rope(dim=64)"
  "sleeps_after_answer|rope(dim=32)|30|timed out: no answer within 1000 ms|1|1000|1|--spec rope(dim=64)"
  "answers_twice|rope(dim=32)|30|bad output: the process wrote [0-9]+ bytes (more )?after its answer.*unasked \\(a second answer\\?\\): \"\\{|1|1000|1|--spec rope(dim=64)"
  "answers_twice_late|rope(dim=32)|30|bad output: answer id 1 for request 2: the process is out of step|1|1000|1|--spec rope(dim=64)"
  # The memory limit per call (--memory-limit-mib, default 1024), the process's children included; a
  # process that held 1.5 GiB before its first call passes.
  "touches_1_5_gib|rope(dim=32)|30|crashed: out of memory: the call grew past 1024 MiB of resident memory, the gate's limit per call \\(beyond twice its [0-9]+ bytes of inputs and outputs\\)|1|20000|1|--spec rope(dim=64)"
  "touches_1_5_gib_at_256_mib|rope(dim=32)|30|crashed: out of memory: the call grew past 256 MiB|1|20000|1|--spec rope(dim=64) --memory-limit-mib 256"
  "child_touches_1_5_gib|rope(dim=32)|30|crashed: out of memory: the call grew past 1024 MiB|1|20000|1|--spec rope(dim=64)"
  "holds_1_5_gib_from_start|rope(dim=32)|30|^gate: PASS|0|20000||--spec rope(dim=64) --golden-scope spec"
  # Declining to earn a PASS, as the plugins unsupported_unless_position_0 and inv_freq_only do.
  "unsupported_unless_position_0|rope(dim=32)|60|^INCOMPLETE +conformance\\.rotate +rope\\(dim=32, "
  "inv_freq_only|rope(dim=32)|30|^NOTHING +checked +rope\\(dim=32, "
  "unsupported_on_edge_values|rope(dim=32)|60|never answered: .*values at the I/O dtype's edges"
  # Attacks on the gate's processes from inside the sandbox (skipped where the system does not allow it).
  "kills_gate|rope(dim=32)|30|^gate: PASS|0|1000||--golden-scope spec --sandbox require"
  "joins_gate_group|rope(dim=32)|30|^gate: PASS|0|1000||--golden-scope spec --sandbox require"
  "leaves_100_daemons|rope(dim=32)|30|^gate: PASS|0|1000||--golden-scope spec --sandbox require"
  "joins_gate_group_unsandboxed|rope(dim=32)|30|^gate: PASS|0|1000||--golden-scope spec --sandbox off"
  "writes_into_gate_dir|rope(dim=32)|30|^gate: PASS|0|1000||--golden-scope spec --sandbox require"
  "floods_stderr|rope(dim=32)|30|error: earlier calls wrote past the run's stderr budget of 1048576 bytes \\(--stderr-budget-mib\\)|1|1000||--golden-scope spec --stderr-budget-mib 1"
  "garbage_before_hello|rope(dim=32)|20|--impl-cmd .*: bad answer to hello: the answer line is not JSON \\(stdout carries the protocol alone. logs go to stderr\\): \"loading weights... done\"$|2"
  # The wire's limits: refused at once (a deadline of a minute would fail the time limit), one line naming field and value.
  "binary_before_hello|rope(dim=32)|20|--impl-cmd .*: bad answer to hello: the answer's head line passed the wire's limit of 4194304 bytes \\(4 MiB\\): |2|60000||--start-timeout-ms 60000"
  "line_without_newline|rope(dim=32)|20|bad output: the answer's head line passed the wire's limit of 4194304 bytes \\(4 MiB\\): \"xxxx|1|60000|1|--spec rope(dim=64)"
  "line_over_limit|rope(dim=32)|20|bad output: the answer's head line passed the wire's limit of 4194304 bytes \\(4 MiB\\): \"\\{|1|60000|1|--spec rope(dim=64)"
  "payload_bytes_2_63|rope(dim=32)|20|bad output: the answer announces 9223372036854775808 payload bytes, more than the [0-9]+ its outputs take \\(refused unread\\)|1|60000|1|--spec rope(dim=64)"
  "payload_larger_than_outputs|rope(dim=32)|20|bad output: the answer announces [0-9]+ payload bytes, more than the [0-9]+ its outputs take|1|1000|1|--spec rope(dim=64)"
  "payload_bytes_1e300|rope(dim=32)|20|bad output: malformed answer: field payload_bytes is number 1e\\+300, not a non-negative integer|1|1000|1|--spec rope(dim=64)"
  "payload_bytes_minus_1_5|rope(dim=32)|20|bad output: malformed answer: field payload_bytes is number -1.5, not a non-negative integer|1|1000|1|--spec rope(dim=64)"
  "payload_bytes_2_64|rope(dim=32)|20|bad output: malformed answer: field payload_bytes is number 1.8446744073709552e\\+19, not a non-negative integer|1|1000|1|--spec rope(dim=64)"
  "offset_1e300|rope(dim=32)|20|bad output: malformed answer: field outputs\\[0\\]\\.offset is number 1e\\+300, not a non-negative integer|1|1000|1|--spec rope(dim=64)"
  "offset_2_64_minus_1|rope(dim=32)|20|bad output: output y claims [0-9]+ bytes at offset 18446744073709551615 of a [0-9]+-byte payload|1|1000|1|--spec rope(dim=64)"
  "nbytes_minus_1_5|rope(dim=32)|20|bad output: malformed answer: field outputs\\[0\\]\\.nbytes is number -1.5, not a non-negative integer|1|1000|1|--spec rope(dim=64)"
  "nbytes_2_63|rope(dim=32)|20|bad output: output y claims 9223372036854775808 bytes at offset 0 of a [0-9]+-byte payload|1|1000|1|--spec rope(dim=64)")
foreach(entry ${wire_faults})
  fault_fields("${entry}" mode spec seconds pattern status timeout fails extra)
  if(status STREQUAL "")
    set(status 1)
  endif()
  if(timeout STREQUAL "")
    set(timeout 1000)
  endif()
  if(NOT fails STREQUAL "")  # the NumPy adapter declines the golden files of other RoPE configurations
    string(APPEND extra " --golden-scope spec")
  endif()
  separate_arguments(extra UNIX_COMMAND "${extra}")
  set(command "${faulty_wire} ${mode}")
  set(directory ${CMAKE_CURRENT_BINARY_DIR})
  if(mode MATCHES "^closes_")
    set(command "exec ${command}")
  elseif(mode STREQUAL "chdir_away")
    set(command "/usr/bin/python3 ./faulty_wire.py ${mode}")
    set(directory ${CMAKE_CURRENT_LIST_DIR})
  endif()
  add_test(NAME gate.fault_wire_${mode} COMMAND ${fault_runner} $<TARGET_FILE:pecheck> impl-cmd "${command}" ${status} ${seconds} "${pattern}"
                                                --spec "${spec}" --cases 20 --timeout-ms ${timeout} ${fault_golden} ${extra}
                                                WORKING_DIRECTORY ${directory})
  set_tests_properties(gate.fault_wire_${mode} PROPERTIES LABELS gate SKIP_RETURN_CODE 77)
  if(NOT fails STREQUAL "")
    set_tests_properties(gate.fault_wire_${mode} PROPERTIES ENVIRONMENT FAULT_FAILS=${fails})
  endif()
endforeach()
foreach(entry ${fault_environment})
  fault_fields("${entry}" name variable)
  set_tests_properties(gate.fault_${name} PROPERTIES ENVIRONMENT ${variable})
endforeach()
# The project's hanging wire mutant (NumPy): the hung process and its shell are killed, group and all.
add_test(NAME gate.fault_wire_hang_leaves_no_process
         COMMAND ${fault_runner} $<TARGET_FILE:pecheck> impl-cmd "/usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/mutants/wire_mutants.py hangs" 1 60
                 "timed out: no answer within ${wire_hang_timeout_ms} ms" --spec "rope(dim=32)" --timeout-ms ${wire_hang_timeout_ms} ${fault_golden})
set_tests_properties(gate.fault_wire_hang_leaves_no_process PROPERTIES LABELS "gate;slow")  # 20 deadlines and restarts
# A gate stopped by SIGTERM in the middle of a call takes the implementation's group along (the
# shell, the process under it and its spinning child, none of which reads stdin), not just its own
# child; with SIGKILL, since the process and its child ignore and block SIGTERM (ignores_signals).
foreach(mode grandchild_spins ignores_signals)
  set(name gate.fault_gate_terminated_leaves_no_process)
  if(mode STREQUAL "ignores_signals")
    set(name ${name}_ignoring_sigterm)
  endif()
  add_test(NAME ${name}
         COMMAND sh -c "marker=pecheck-fault-term-$$; $<TARGET_FILE:pecheck> gate --impl-cmd '${faulty_wire} ${mode} '$marker --spec 'rope(dim=32)' --timeout-ms 60000 >/dev/null 2>&1 & gate=$!; sleep 2; kill -TERM $gate; wait $gate; status=$?; sleep 0.5; left=$(pgrep -f $marker); if [ -n \"$left\" ]; then echo \"left behind: $left\"; kill -KILL $left; exit 1; fi; echo \"gate exit status $status\"; test $status -eq 143")
  set_tests_properties(${name} PROPERTIES LABELS gate)
endforeach()
# Where the system refuses the namespaces, the verdict says which protections were off, --sandbox
# require refuses to run, and the system call filter still ends daemons and group joins.
add_test(NAME gate.sandbox_unavailable_is_said COMMAND ${CMAKE_CURRENT_LIST_DIR}/sandbox_unavailable.sh $<TARGET_FILE:pecheck> $<TARGET_FILE:example_rope_plugin>
                                                       $<TARGET_FILE:fault_35> $<TARGET_FILE:fault_34>)
set_tests_properties(gate.sandbox_unavailable_is_said PROPERTIES LABELS gate SKIP_RETURN_CODE 77 TIMEOUT 60)
