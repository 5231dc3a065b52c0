# Precompiled headers: the third-party and standard headers that nearly every translation unit
# parses, parsed once per kind of target instead of once per file. Headers of pecheck itself stay
# out, so a .cpp still has to include what it uses (and tests/include_alone_check compiles each pe
# header on its own, with at most Boost.Multiprecision precompiled, and only for the headers that
# include it anyway: tests/CMakeLists.txt). PECHECK_PRECOMPILED_HEADERS=OFF builds without them.
#
# Why: CI builds everything twice on two cores (gcc Release, clang -O0 under ASan), and every
# translation unit parsed these headers again: CLI11 about 6.5 s, Boost.Multiprecision over MPFR
# 2.6 s, GoogleTest 1.6 s, RapidCheck 1.4 s, nlohmann-json 1.6 s (g++ -O3, an empty file including
# each). The gain measured: 14 % of the gcc -O3 build's CPU time (1,466 -> 1,264 s), nearer half
# of the clang -O0 one; the rest of a gcc translation unit is mostly optimiser and code generation.
#
# One PCH is built per owner below and reused by every target of its kind (REUSE_FROM), which
# needs the same compiler flags: the owners link what their users link, and none of the users sets
# its own compile options (a file that does, as pe's fast_kernels_* with -O3 -mavx2, skips the PCH).
option(PECHECK_PRECOMPILED_HEADERS "Precompile the third-party headers (faster builds)" ON)

# GCC 12's middle-end access warnings (array-bounds, stringop-overflow, stringop-overread) fire
# inside libstdc++'s std::string copies, inlined into pecheck's code, once those headers come from
# a PCH; without one they count as system headers and stay quiet (the same family of false
# positives as -Wrestrict, off in src/). Measured on this tree: 0 such warnings without PCH, 11
# with at -O3, 12 at -O2, every one in char_traits.h's memcpy. The ASan builds check real bounds.
if(PECHECK_PRECOMPILED_HEADERS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wno-array-bounds;-Wno-stringop-overflow;-Wno-stringop-overread>")
endif()

set(pecheck_pch_standard <algorithm> <array> <cmath> <cstdint> <cstring> <functional> <map> <memory>
    <optional> <set> <sstream> <string> <string_view> <vector>)
set(pecheck_pch_common ${pecheck_pch_standard} <boost/multiprecision/mpfr.hpp> <fmt/format.h> <nlohmann/json.hpp>)

# pecheck_pch_owner(<name> <link targets> <headers...>): an object library that only holds the PCH of
# <headers>, compiled with the flags that linking <link targets> gives.
function(pecheck_pch_owner name links)
  if(NOT PECHECK_PRECOMPILED_HEADERS)
    return()
  endif()
  set(source ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT "// The precompiled headers of ${name} (src/precompiled_headers.cmake).\n")
  add_library(${name} OBJECT ${source})
  target_link_libraries(${name} PRIVATE ${links})
  target_precompile_headers(${name} PRIVATE ${ARGN})
endfunction()

# pecheck_use_pch(<target> <owner>): <target> compiles with <owner>'s PCH.
function(pecheck_use_pch target owner)
  if(PECHECK_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  endif()
endfunction()
