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
# here, and ten times that on a loaded CI machine): without the golden files it makes 9 such calls,
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
  "touch_1_5_gib|10|1|40|crashed: out of memory: the call grew past 1024 MiB|5000|--golden-scope none"
  "run_exit0|11|1|20|crashed: exited with status 0 inside pe_impl_run|1000"
  "run__exit0|12|1|20|crashed: exited with status 0 inside pe_impl_run|1000"
  "bad_status_value|13|1|20|bad output: pe_impl_run returned 7, not PE_OK, PE_UNSUPPORTED or PE_ERROR|1000"
  "run_forks_spinner|16|0|20|^gate: PASS|1000"
  "heap_corrupt_on_call_5|18|1|20|crashed: killed by signal 6 \\(Aborted\\) inside pe_impl_run \\(after [0-9]+ earlier calls in the same worker process. in a fresh one the same call answered ok|1000"
  "heap_corrupt_on_call_5_call_isolation|18|0|30|^gate: PASS|1000|--isolation call"
  "child_touches_1_5_gib|20|1|40|crashed: out of memory: the call grew past 1024 MiB|5000|--golden-scope none"
  "forked_child_returns|21|0|30|^gate: PASS|1000|--golden-scope none"
  "leak_64_mib_per_call|19|0|40|^note: the plugin's worker process was replaced [0-9]+ time\\(s\\): it held more than 1024 MiB|1000|--golden-scope none --cases 10")
foreach(entry ${plugin_faults})
  fault_fields("${entry}" name number status seconds pattern timeout extra)
  separate_arguments(extra UNIX_COMMAND "${extra}")
  if(NOT TARGET fault_${number})
    add_library(fault_${number} MODULE ${CMAKE_CURRENT_LIST_DIR}/faulty_plugins.c)
    target_compile_definitions(fault_${number} PRIVATE FAULT=${number})
    target_include_directories(fault_${number} PRIVATE ${PROJECT_SOURCE_DIR}/src/gate)
    target_link_libraries(fault_${number} PRIVATE m)
  endif()
  add_test(NAME gate.fault_${name} COMMAND ${fault_runner} $<TARGET_FILE:pecheck> impl $<TARGET_FILE:fault_${number}> ${status} ${seconds} "${pattern}"
                                           --spec "rope(dim=64)" --timeout-ms ${timeout} ${fault_golden} ${extra})
  set_tests_properties(gate.fault_${name} PROPERTIES LABELS gate)
endforeach()
# The JSON report carries the notes too; --isolation is --impl's alone (exit 2 with another implementation).
add_test(NAME gate.fault_notes_in_the_json_report
         COMMAND sh -c "$<TARGET_FILE:pecheck> gate --impl $<TARGET_FILE:fault_19> --spec 'rope(dim=64)' --golden-scope none --cases 3 --json ${CMAKE_CURRENT_BINARY_DIR}/fault_notes.json > /dev/null && /usr/bin/python3 -c \"import json, sys; notes = json.load(open(sys.argv[1]))['notes']; assert len(notes) == 1 and 'worker process was replaced' in notes[0], notes\" ${CMAKE_CURRENT_BINARY_DIR}/fault_notes.json")
set_tests_properties(gate.fault_notes_in_the_json_report PROPERTIES LABELS gate)
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
# mode|spec|seconds at most|the line that must appear. closes_stdout_stays_alive runs with exec:
# under a plain `sh -c` the shell keeps the pipe open, and the gate sees a plain hang instead of EOF.
set(wire_faults
  "closes_stdout_stays_alive|rope(dim=32)|20|timed out: the process closed its stdout and was still running after 1000 ms"
  "never_answers|rope(dim=32)|20|timed out: declared hung after 3 consecutive deadlines of 1000 ms"
  "sigstop_self|rope(dim=32)|20|timed out: no answer within 1000 ms"
  "grandchild_spins|rope(dim=32)|20|timed out: no answer within 1000 ms"
  "unsupported_without_reading_big_payload|rope(dim=4096)|30|^NOTHING +checked"
  "wrong_json_types_id|rope(dim=32)|30|bad output: malformed answer: field id is string \"[0-9]+\", not an integer"
  "wrong_json_types_status|rope(dim=32)|30|bad output: malformed answer: field status is number 0, not a string"
  "wrong_json_types_message|rope(dim=32)|30|bad output: malformed answer: field message is array \\[\"no\"\\], not a string"
  "wrong_json_types_outputs|rope(dim=32)|30|bad output: malformed answer: field outputs is object, not an array"
  "wrong_json_types_name|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.name is number 1, not a string"
  "wrong_json_types_dtype|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.dtype is null, not a string"
  "wrong_json_types_shape|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.shape is array .*, not an array of non-negative integers"
  "wrong_json_types_offset|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.offset is number -1, not a non-negative integer"
  "wrong_json_types_nbytes|rope(dim=32)|30|bad output: malformed answer: field outputs\\[0\\]\\.nbytes is number 1.5, not a non-negative integer"
  "wrong_json_types_payload_bytes|rope(dim=32)|30|bad output: malformed answer: field payload_bytes is string \"[0-9]+\", not a non-negative integer")
foreach(entry ${wire_faults})
  fault_fields("${entry}" mode spec seconds pattern)
  set(launcher "")
  if(mode STREQUAL "closes_stdout_stays_alive")
    set(launcher "exec ")
  endif()
  add_test(NAME gate.fault_wire_${mode} COMMAND ${fault_runner} $<TARGET_FILE:pecheck> impl-cmd "${launcher}${faulty_wire} ${mode}" 1 ${seconds} "${pattern}"
                                                --spec "${spec}" --cases 20 --timeout-ms 1000 ${fault_golden})
  set_tests_properties(gate.fault_wire_${mode} PROPERTIES LABELS gate)
endforeach()
# The project's hanging wire mutant (NumPy): the hung process and its shell are killed, group and all.
add_test(NAME gate.fault_wire_hang_leaves_no_process
         COMMAND ${fault_runner} $<TARGET_FILE:pecheck> impl-cmd "/usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/mutants/wire_mutants.py hangs" 1 60
                 "timed out: no answer within ${wire_hang_timeout_ms} ms" --spec "rope(dim=32)" --timeout-ms ${wire_hang_timeout_ms} ${fault_golden})
set_tests_properties(gate.fault_wire_hang_leaves_no_process PROPERTIES LABELS "gate;slow")  # 20 deadlines and restarts
# A gate stopped by SIGTERM in the middle of a call takes the implementation's group along (the
# shell, the process under it and its spinning child, none of which reads stdin), not just its own child.
add_test(NAME gate.fault_gate_terminated_leaves_no_process
         COMMAND sh -c "marker=pecheck-fault-term-$$; $<TARGET_FILE:pecheck> gate --impl-cmd '${faulty_wire} grandchild_spins '$marker --spec 'rope(dim=32)' --timeout-ms 60000 >/dev/null 2>&1 & gate=$!; sleep 2; kill -TERM $gate; wait $gate; status=$?; sleep 0.5; left=$(pgrep -f $marker); if [ -n \"$left\" ]; then echo \"left behind: $left\"; kill -KILL $left; exit 1; fi; echo \"gate exit status $status\"; test $status -eq 143")
set_tests_properties(gate.fault_gate_terminated_leaves_no_process PROPERTIES LABELS gate)
