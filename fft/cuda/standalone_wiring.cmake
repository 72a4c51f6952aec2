# Adds fft/cuda, tests/fft/cuda and bench/fft to a configure of the whole project before the
# lines that add them are in fft/, tests/fft/ and bench/ CMakeLists (used by scripts/device-check):
#   cmake -DCMAKE_PROJECT_INCLUDE=<repo>/fft/cuda/standalone_wiring.cmake ...
# Deferred to the end of the top-level CMakeLists so that prism_config, GTest and the test
# helpers exist. Deferred code may not add subdirectories, so the three CMakeLists are included
# (they name their sources through CMAKE_CURRENT_LIST_DIR for this). A part already wired in is
# left alone.
function(prism_fft_cuda_standalone_wiring)
  if(NOT TARGET prism_fft_plan)
    include("${CMAKE_SOURCE_DIR}/fft/cuda/CMakeLists.txt")
  endif()
  if(PRISM_BUILD_TESTS AND NOT TARGET qa_FftPlanHost)
    include("${CMAKE_SOURCE_DIR}/tests/fft/cuda/CMakeLists.txt")
  endif()
  if(PRISM_BUILD_BENCH AND NOT TARGET fft_bench AND EXISTS "${CMAKE_SOURCE_DIR}/bench/fft/CMakeLists.txt")
    include("${CMAKE_SOURCE_DIR}/bench/fft/CMakeLists.txt")
  endif()
endfunction()
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL prism_fft_cuda_standalone_wiring)
