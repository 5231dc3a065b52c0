# C++ consumers: examples/cpp_consumer (and the C plugin examples/c_rope_plugin) built against `cmake --install` of this build, found through find_package(pecheck) alone.
# The example rotates x = (1, 0, 0, 1) at position 3 with rope(dim=4, base=10000): neox pairs
# (0, 2) at angle 3*1 and (1, 3) at angle 3*10000^(-1/2) = 0.03, so y = (cos 3, -sin 0.03, sin 3, cos 0.03).
# The expected digits are mpmath's, not pecheck's:
#   /usr/bin/python3 -c "import mpmath as m; m.mp.dps = 100; y = (m.cos(3), -m.sin(m.mpf(3) / 100), m.sin(3), m.cos(m.mpf(3) / 100));
#                        print(*[m.nstr(v, 15) for v in y]); print(*[m.nstr(v, 76) for v in y])"
# binary64 is printed to 15 digits (none of the four is near a rounding tie there); 256 bits to the
# 76 digits pecheck prints at that precision (floor(255 log10 2)), trailing zeros dropped.
# Only the library component is installed (not the 5 MB CLI), and the consumer compiles one file
# without optimisation. A sanitizer build hands its flags on: an instrumented libpecheck.so links
# only into an instrumented program.
string(JOIN " " consumer_flags ${pecheck_sanitizers})
set(pecheck_binary "$<TARGET_FILE:pecheck>")
string(CONFIGURE [=[
set -e
fail() { echo "$1"; exit 1; }
d='@PROJECT_BINARY_DIR@/consumer_test'
rm -rf "$d"
cmake --install '@PROJECT_BINARY_DIR@' --prefix "$d/prefix" --component library > /dev/null
! grep -rIlF -e '@PROJECT_SOURCE_DIR@/src' -e '@PROJECT_BINARY_DIR@' "$d/prefix" || fail 'the installed files above name the source or build tree'
cmake -S '@PROJECT_SOURCE_DIR@/examples/cpp_consumer' -B "$d/build" -G '@CMAKE_GENERATOR@' -DCMAKE_MAKE_PROGRAM='@CMAKE_MAKE_PROGRAM@' \
      -DCMAKE_CXX_COMPILER='@CMAKE_CXX_COMPILER@' -DCMAKE_CXX_FLAGS='@consumer_flags@' -DCMAKE_EXE_LINKER_FLAGS='@consumer_flags@' \
      -DCMAKE_PREFIX_PATH="$d/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$d/configure.log" 2>&1 || { cat "$d/configure.log"; fail 'configuring the example failed'; }
grep -qxF "pecheck_DIR:PATH=$d/prefix/@CMAKE_INSTALL_LIBDIR@/cmake/pecheck" "$d/build/CMakeCache.txt" || fail 'find_package(pecheck) did not take the installed prefix'
cmake --build "$d/build" > "$d/build.log" 2>&1 || { cat "$d/build.log"; fail 'building the example failed'; }
out=$("$d/build/rotate_example")
echo "$out"
echo "$out" | sed -n 1p | grep -q '^rope(dim=4, base=10000' || fail 'line 1 is not the spec'
test "$(echo "$out" | sed -n 2p)" = 'binary64: -0.989992496600445 -0.0299955002024957 0.141120008059867 0.999550033748988' || fail 'binary64 differs from mpmath'
test "$(echo "$out" | sed -n 3p)" = '256 bits: -0.9899924966004454572715727947312613023936790966155883288140859329283291975131 -0.02999550020249566076852634192626161802319618294771156724504111048549438630621 0.141120008059867222100744802808110279846933264252265584151882641232422009967 0.9995500337489875162721587064666138317803321212572590354251436652860979889969' || fail '256 bits differs from mpmath'
# A plugin built against the same install: the C ABI's headers under P/include/pecheck, through
# pecheck::impl_abi, and the gate passes it.
cmake -S '@PROJECT_SOURCE_DIR@/examples/c_rope_plugin' -B "$d/plugin" -G '@CMAKE_GENERATOR@' -DCMAKE_MAKE_PROGRAM='@CMAKE_MAKE_PROGRAM@' \
      -DCMAKE_C_COMPILER='@CMAKE_C_COMPILER@' -DCMAKE_CXX_COMPILER='@CMAKE_CXX_COMPILER@' -DCMAKE_C_FLAGS='@consumer_flags@' \
      -DCMAKE_MODULE_LINKER_FLAGS='@consumer_flags@' -DCMAKE_PREFIX_PATH="$d/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$d/plugin.log" 2>&1 || { cat "$d/plugin.log"; fail 'configuring the example plugin failed'; }
test -f "$d/prefix/@CMAKE_INSTALL_INCLUDEDIR@/pecheck/impl.h" && test -f "$d/prefix/@CMAKE_INSTALL_INCLUDEDIR@/pecheck/impl_helpers.h" || fail 'the C ABI headers are not installed'
cmake --build "$d/plugin" > "$d/plugin_build.log" 2>&1 || { cat "$d/plugin_build.log"; fail 'building the example plugin failed'; }
! grep -F '@PROJECT_SOURCE_DIR@/src/gate' "$d/plugin/compile_commands.json" "$d/plugin/build.ninja" 2>/dev/null || fail 'the plugin was compiled with the source tree on its include path'
'@pecheck_binary@' gate --impl "$d/plugin/librope_plugin.so" --spec 'rope(dim=64)' --cases 20 --golden-scope none | grep -q '^gate: PASS' || fail 'the plugin built against the install does not pass'
]=] consumer_command @ONLY)
shell_test(consumer.cpp_example_against_the_installed_tree unit "${consumer_command}")

# The gate's verdict does not depend on where it runs: the same run of the example plugin from the
# source tree, from / and from an installed prefix (cmake --install: the binary finds
# PREFIX/share/pecheck/golden from its own location) writes byte-identical JSON, golden checks
# included; a --golden that is no golden tree is exit 2, never a SKIPPED golden check.
set(plugin "$<TARGET_FILE:example_rope_plugin>")
set(pecheck "$<TARGET_FILE:pecheck>")
string(CONFIGURE [=[
set -e
fail() { echo "$1"; exit 1; }
d='@PROJECT_BINARY_DIR@/golden_anywhere_test'
rm -rf "$d" && mkdir -p "$d"
cmake --install '@PROJECT_BINARY_DIR@' --prefix "$d/prefix" > /dev/null
test -f "$d/prefix/@CMAKE_INSTALL_DATADIR@/pecheck/golden/MANIFEST.json" || fail 'cmake --install put no golden tree in share/pecheck/golden'
run() { "$1" gate --impl '@plugin@' --spec 'rope(dim=64)' --cases 10 --json "$2" > /dev/null; }
(cd '@PROJECT_SOURCE_DIR@' && run '@pecheck@' "$d/source.json")
(cd / && run '@pecheck@' "$d/root.json")
(cd / && run "$d/prefix/@CMAKE_INSTALL_BINDIR@/pecheck" "$d/installed.json")
grep -q '"check": "golden:rope/llama2_7b.json"' "$d/root.json" || fail 'the run from / has no golden check'
cmp "$d/source.json" "$d/root.json" || fail 'the JSON from / differs from the source tree run'
cmp "$d/source.json" "$d/installed.json" || fail "the installed binary's JSON differs from the build's"
# The installed binary reads the installed tree, not the source tree's: a case dropped there is
# missing from its golden line (the gate takes a golden file's cases and recomputes their values).
/usr/bin/python3 -c "import json, sys; f = sys.argv[1]; g = json.load(open(f)); g['cases'].pop(); json.dump(g, open(f, 'w'))" "$d/prefix/@CMAKE_INSTALL_DATADIR@/pecheck/golden/rope/llama2_7b.json"
set +e
out=$(cd / && "$d/prefix/@CMAKE_INSTALL_BINDIR@/pecheck" gate --impl '@plugin@' --spec 'rope(dim=64)' --cases 10)
echo "$out" | grep -Eq '^PASS +golden:rope/llama2_7b.json .*\(9 cases;' || fail "the installed binary did not judge with its installed tree: $out"
out=$(cd / && '@pecheck@' gate --impl '@plugin@' --spec 'rope(dim=64)' --golden "$d" 2>&1); status=$?
test $status -eq 2 && echo "$out" | grep -q "^pecheck: --golden $d: no MANIFEST.json there" || fail "a --golden with no tree gave exit $status: $out"
]=] golden_anywhere_command @ONLY)
shell_test(gate.same_verdict_from_any_directory_and_installed gate "${golden_anywhere_command}")
