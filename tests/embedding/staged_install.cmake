# The installed prism as a host project sees it (cmake -P): `cmake --install` of the built tree
# into a temporary prefix, then embed_spectrogram.cpp built twice against that prefix alone —
# with find_package(prism) (consumer/CMakeLists.txt) and with `pkg-config --cflags --libs prism`
# — and both programs run; then the Python package installed alone and imported from there. Also
# checks that no installed header names nlohmann/json. With VIEWER=ON (the build has the viewer),
# embed_viewer.cpp is built against the component `viewer` too and run without a display.
# Variables: BUILD_DIR (prism's build tree), WORK_DIR (scratch, emptied), SOURCE_DIR (this folder),
# CXX (the compiler), LAUNCHER (optional compiler launcher, e.g. ccache), PYTHON (optional: the
# interpreter for the installed Python package), VIEWER (optional: ON when the build has the viewer).
foreach(var BUILD_DIR WORK_DIR SOURCE_DIR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "staged_install.cmake needs -D${var}=...")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component development)

file(GLOB_RECURSE headers ${prefix}/include/*)
foreach(header ${headers})
  file(STRINGS ${header} json_lines REGEX "nlohmann")
  if(json_lines)
    message(FATAL_ERROR "${header} names nlohmann/json, which the public headers must not expose")
  endif()
endforeach()
if(NOT EXISTS ${prefix}/include/prism/prism.hpp OR NOT EXISTS ${prefix}/include/prism/version.hpp)
  message(FATAL_ERROR "the umbrella or version header is not installed")
endif()

# 1. CMake: find_package(prism) from the prefix only.
set(launcher_args "")
if(LAUNCHER)
  set(launcher_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
set(viewer_args "")
if(VIEWER)
  if(NOT EXISTS ${prefix}/include/prism/gui/viewer.hpp)
    message(FATAL_ERROR "the build has the viewer, but its headers are not installed")
  endif()
  set(viewer_args -DEMBED_VIEWER_SOURCE=${SOURCE_DIR}/embed_viewer.cpp)
endif()
run_step("configure the find_package consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/cmake-build
         -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=${CXX} ${launcher_args}
         -DCMAKE_PREFIX_PATH=${prefix} -DEMBED_SOURCE=${SOURCE_DIR}/embed_spectrogram.cpp ${viewer_args})
run_step("build the find_package consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run_step("run the find_package consumer" ${WORK_DIR}/cmake-build/embed_spectrogram)
if(VIEWER)
  # No display: the viewer must refuse with its message, not crash.
  unset(ENV{DISPLAY})
  unset(ENV{WAYLAND_DISPLAY})
  run_step("run the viewer consumer" ${WORK_DIR}/cmake-build/embed_viewer)
  if(NOT step_output MATCHES "cannot open a window")
    message(FATAL_ERROR "embed_viewer without a display: ${step_output}")
  endif()
endif()

# 2. pkg-config: prism.pc from the prefix (the search path keeps what the environment adds, where
# prism's own dependencies' .pc files may be).
file(GLOB pc_file ${prefix}/*/pkgconfig/prism.pc ${prefix}/*/*/pkgconfig/prism.pc)
if(NOT pc_file)
  message(FATAL_ERROR "prism.pc is not installed under ${prefix}")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
if(DEFINED ENV{PKG_CONFIG_PATH} AND NOT "$ENV{PKG_CONFIG_PATH}" STREQUAL "")
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}:$ENV{PKG_CONFIG_PATH}")
else()
  set(ENV{PKG_CONFIG_PATH} ${pc_dir})
endif()
run_step("pkg-config --cflags --libs prism" pkg-config --cflags --libs prism)
string(STRIP "${step_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run_step("build the pkg-config consumer" ${LAUNCHER} ${CXX} -std=c++20 -o ${WORK_DIR}/embed_pkgconfig
         ${SOURCE_DIR}/embed_spectrogram.cpp ${flags})
run_step("run the pkg-config consumer" ${WORK_DIR}/embed_pkgconfig)

# 3. The Python package, installed (when the build has it): imported from the prefix alone.
if(PYTHON AND EXISTS ${BUILD_DIR}/python/prism/__init__.py)
  set(python_prefix ${WORK_DIR}/python-prefix)
  run_step("cmake --install --component python" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${python_prefix}
           --component python)
  file(GLOB_RECURSE init_files ${python_prefix}/__init__.py)
  list(GET init_files 0 init_file)
  get_filename_component(package_dir ${init_file} DIRECTORY)
  get_filename_component(site_dir ${package_dir} DIRECTORY)
  set(ENV{PYTHONPATH} ${site_dir})
  run_step("import the installed Python package" ${PYTHON} -c
           "import numpy as np, prism; assert prism.__file__.startswith('${site_dir}'), prism.__file__; f, t, s = prism.spectrogram(np.ones(1000), nperseg=100); assert s.shape == (51, 11), s.shape; print(prism.__version__)")
endif()
