# Run by the CTest test "package" (see CMakeLists.txt next to this file):
#   1. cmake --install <KSELECT_BUILD_DIR> --prefix <WORK_DIR>/prefix
#   2. configure consumer/ with CMAKE_PREFIX_PATH=<WORK_DIR>/prefix and check that
#      find_package(kselect) found that copy (not one under /usr/local)
#   3. build it and run it (it checks kselect::select's answers itself).
cmake_minimum_required(VERSION 3.25)

foreach(v KSELECT_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "check_package.cmake: -D${v}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step name)
  string(REPLACE ";" " " cmd "${ARGN}")
  message(STATUS "package test: ${name}: ${cmd}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: step '${name}' failed (${rc})")
  endif()
endfunction()

# 1. install
set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run_step(install ${CMAKE_COMMAND} --install ${KSELECT_BUILD_DIR} --prefix ${prefix} ${config_args})

file(GLOB_RECURSE config_file "${prefix}/*/kselectConfig.cmake")
if(NOT config_file)
  message(FATAL_ERROR "package test: no kselectConfig.cmake under ${prefix}")
endif()
foreach(f include/kselect/kselect.hpp include/kselect/types.hpp)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "package test: ${f} was not installed")
  endif()
endforeach()

# 2. configure the consumer against the scratch prefix only
set(configure_args
  -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -G ${GENERATOR}
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DKSELECT_EXPECT_CUDA=${EXPECT_CUDA})
if(MAKE_PROGRAM)
  list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(CONFIG)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${CONFIG})
endif()
if(EXPECT_CUDA AND CUDA_TOOLKIT_ROOT AND EXISTS "${CUDA_TOOLKIT_ROOT}")
  # The installed config calls find_dependency(CUDAToolkit); help it find the
  # same toolkit even where nvcc is not on PATH.
  get_filename_component(cuda_root "${CUDA_TOOLKIT_ROOT}" ABSOLUTE)
  list(APPEND configure_args -DCUDAToolkit_ROOT=${cuda_root})
endif()
run_step(configure ${CMAKE_COMMAND} ${configure_args})

file(STRINGS "${consumer_build}/CMakeCache.txt" dir_line REGEX "^kselect_DIR:")
string(REGEX REPLACE "^kselect_DIR:[A-Z]+=" "" found_dir "${dir_line}")
file(REAL_PATH "${prefix}" real_prefix)
if(EXISTS "${found_dir}")
  file(REAL_PATH "${found_dir}" found_dir)
endif()
string(FIND "${found_dir}" "${real_prefix}/" pos)
if(NOT pos EQUAL 0)
  message(FATAL_ERROR "package test: find_package(kselect) found '${found_dir}', not the copy in ${prefix}")
endif()

# 3. build and run
run_step(build ${CMAKE_COMMAND} --build ${consumer_build} ${config_args})
if(EXISTS "${consumer_build}/${CONFIG}/kselect_consumer")
  set(exe "${consumer_build}/${CONFIG}/kselect_consumer")
else()
  set(exe "${consumer_build}/kselect_consumer")
endif()
run_step(run ${exe})
message(STATUS "package test: passed")
