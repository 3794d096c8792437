# SPDX-License-Identifier: Apache-2.0
# Sanitizer builds (the asan and tsan presets; docs/reliability.md, "Sanitizers"): every
# target of the tree, C and C++, is compiled and linked with DEVPLUG_SANITIZE.
#
# clang (the presets use clang-14 and the runtimes of libclang-rt-14-dev) links its sanitizer
# runtime statically into each executable, and a sanitized shared library or plugin takes the
# runtime's symbols from the executable that loads it. So in these builds libraries are
# linked without --no-undefined (DEVPLUG_SANITIZE is read by devplug_add_plugin too); every
# program that loads them is built here, sanitized. -O1 keeps the tests fast enough for CI
# (the emulated GPU's kernel files excepted, plugins/gpu_emulated/CMakeLists.txt), and the
# presets keep only line tables of debug information (-gline-tables-only: reports still name
# file and line, and the objects are smaller and quicker to make). UBSan reports abort
# (-fno-sanitize-recover), so a report fails the test that made it.
set(DEVPLUG_SANITIZE "" CACHE STRING
    "Sanitizers for every target, as for -fsanitize= (address,undefined or thread); empty for none")
option(DEVPLUG_BUILD_FUZZERS "Build the libFuzzer harnesses of tests/fuzz (clang, DEVPLUG_SANITIZE=address,undefined)" OFF)

if(DEVPLUG_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DEVPLUG_SANITIZE needs clang (the presets use clang-14), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  # libquadmath's header (binary128 in the reference backend and its tests) lives in gcc's
  # own include folder, which clang does not search; that folder's other headers are gcc's
  # and must stay out of clang's way, so only the two quadmath headers are linked in.
  include(CheckIncludeFileCXX)
  check_include_file_cxx(quadmath.h DEVPLUG_HAVE_QUADMATH_H)
  if(NOT DEVPLUG_HAVE_QUADMATH_H)
    execute_process(COMMAND gcc -print-file-name=include OUTPUT_VARIABLE gcc_include OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(quadmath_include ${PROJECT_BINARY_DIR}/quadmath-include)
    file(MAKE_DIRECTORY ${quadmath_include})
    foreach(header quadmath.h quadmath_weak.h)
      file(CREATE_LINK ${gcc_include}/${header} ${quadmath_include}/${header} SYMBOLIC)
    endforeach()
    include_directories(SYSTEM ${quadmath_include})
  endif()
  set(DEVPLUG_SANITIZER_OPTIMIZATION -O1 CACHE STRING "Optimization level of the sanitizer builds")
  add_compile_options(-fsanitize=${DEVPLUG_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer
                      ${DEVPLUG_SANITIZER_OPTIMIZATION})
  add_link_options(-fsanitize=${DEVPLUG_SANITIZE})
  # The runtimes' default options and third-party suppressions (tests/sanitizers/options.c),
  # linked into every executable, so a test run by hand behaves as under ctest and CI.
  set(options_source ${PROJECT_SOURCE_DIR}/tests/sanitizers/options.c)
  # Named by its source's hash: a changed options.c changes every link line, so everything
  # relinks (the object is made here, at configure time, where no build rule can depend on it).
  file(MD5 ${options_source} options_hash)
  set(options_object ${PROJECT_BINARY_DIR}/sanitizer_options-${options_hash}.o)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -c -O1 -fPIC ${options_source} -o ${options_object}
                  RESULT_VARIABLE options_rc)
  if(NOT options_rc EQUAL 0)
    message(FATAL_ERROR "cannot compile ${options_source}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${options_source})
  string(APPEND CMAKE_EXE_LINKER_FLAGS " ${options_object}")
  message(STATUS "devplug: sanitizers ${DEVPLUG_SANITIZE} on every target")
endif()

if(DEVPLUG_BUILD_FUZZERS AND NOT DEVPLUG_SANITIZE MATCHES "address")
  message(FATAL_ERROR "DEVPLUG_BUILD_FUZZERS needs DEVPLUG_SANITIZE=address,undefined (the asan preset)")
endif()
