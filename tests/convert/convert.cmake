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
