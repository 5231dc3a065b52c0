# The Python package (python/): `pip install ./python` into a venv in the build tree (offline: numpy,
# torch and pytest come from the system's site-packages), then the package's unit tests and the
# example pytest suite run with that venv's interpreter against this build's pecheck (PECHECK).
# SKIPPED (77) where the interpreter lacks venv, pytest or numpy; scripts/setup installs them.
set(python_dir ${CMAKE_CURRENT_BINARY_DIR}/python_package)
set(python_venv ${python_dir}/venv)
set(python_needs "/usr/bin/python3 -c 'import ensurepip, venv, pytest, numpy' 2>/dev/null || { echo 'python3 lacks venv, pytest or numpy: skipped'; exit 77; }")
# A copy of python/ is installed: pip builds in the directory it is given, and the source tree stays clean.
shell_test(python.install gate
           "${python_needs}; rm -rf ${python_dir} && mkdir -p ${python_dir} && cp -r ${PROJECT_SOURCE_DIR}/python ${python_dir}/python && rm -rf ${python_dir}/python/build ${python_dir}/python/*.egg-info && /usr/bin/python3 -m venv --system-site-packages ${python_venv} && cd ${python_dir} && ${python_venv}/bin/pip install --quiet --disable-pip-version-check --cache-dir ${python_dir}/pip-cache --no-build-isolation --no-index ./python")
set_tests_properties(python.install PROPERTIES FIXTURES_SETUP python_venv SKIP_RETURN_CODE 77)
# python_pytest(<name> <test files> [<needs>]): the venv's pytest on files of tests/python, from the
# build tree; <needs>, a further check that exits 77 (SKIPPED) where a module the files import is missing.
function(python_pytest name files)
  list(TRANSFORM files PREPEND "${CMAKE_CURRENT_LIST_DIR}/")
  list(JOIN files " " files)
  set(needs "${python_needs}")
  if(ARGC GREATER 2)
    string(APPEND needs "; ${ARGV2}")
  endif()
  shell_test(${name} gate
             "${needs}; cd ${python_dir} && env PECHECK=$<TARGET_FILE:pecheck> PYTHONDONTWRITEBYTECODE=1 ${python_venv}/bin/python -m pytest -p no:cacheprovider -q --basetemp=${python_dir}/tmp-${name} ${files}")
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED python_venv SKIP_RETURN_CODE 77)
endfunction()
python_pytest(python.package "test_wire.py;test_arrays.py;test_target.py;test_run_gate.py")
# The example suite must show 1 passed and 1 failed, with the counterexample and reproduce line.
python_pytest(python.example_suite "test_example_suite.py")
# The Dask runner (python/pecheck/dask_audit.py) on a LocalCluster: needs dask.distributed
# (python3-distributed; psutil comes with it).
python_pytest(python.dask_audit "test_dask_audit.py"
              "/usr/bin/python3 -c 'import distributed, psutil' 2>/dev/null || { echo 'python3 lacks dask.distributed: skipped'; exit 77; }")
