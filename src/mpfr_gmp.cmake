# MPFR and GMP as the imported target pecheck::mpfr, found the same way by pecheck's own build and by the installed pecheckConfig.cmake.
# Debian's libmpfr-dev and libgmp-dev ship no CMake package, so the libraries and mpfr.h are
# searched for by name; the caller decides what a miss means (pecheck_mpfr_FOUND).
find_library(MPFR_LIBRARY mpfr)
find_library(GMP_LIBRARY gmp)
find_path(MPFR_INCLUDE_DIR mpfr.h)
if(MPFR_LIBRARY AND GMP_LIBRARY AND MPFR_INCLUDE_DIR)
  set(pecheck_mpfr_FOUND TRUE)
  if(NOT TARGET pecheck::mpfr)
    add_library(pecheck::mpfr INTERFACE IMPORTED)
    set_target_properties(pecheck::mpfr PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${MPFR_INCLUDE_DIR}"
                                                   INTERFACE_LINK_LIBRARIES "${MPFR_LIBRARY};${GMP_LIBRARY}")
  endif()
else()
  set(pecheck_mpfr_FOUND FALSE)
  set(pecheck_mpfr_missing "MPFR and GMP (libmpfr-dev, libgmp-dev) were not found: MPFR_LIBRARY=${MPFR_LIBRARY}, GMP_LIBRARY=${GMP_LIBRARY}, MPFR_INCLUDE_DIR=${MPFR_INCLUDE_DIR}")
endif()
