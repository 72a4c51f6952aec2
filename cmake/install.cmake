# Installing prism for hosts that find it: the static libraries, the public headers (each folder
# lists its own with prism_public_headers), the CMake package `prism` (find_package(prism CONFIG)
# -> prism::prism, with components for the optional parts) and the pkg-config file prism.pc.
# Included by the top-level CMakeLists.txt when PRISM_INSTALL is on. docs/embedding.md.
include(CMakePackageConfigHelpers)

set(PRISM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/prism)

install(TARGETS prism_config prism_all ${PRISM_LIBRARIES} EXPORT prismTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(FILES ${PRISM_BUILD_INCLUDE_DIR}/prism/version.hpp ${PRISM_BUILD_INCLUDE_DIR}/prism/prism.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/prism COMPONENT development)
install(EXPORT prismTargets NAMESPACE prism:: DESTINATION ${PRISM_CMAKE_INSTALL_DIR}
        COMPONENT development)

# The optional parts this build has, as the package's components.
foreach(feature CUDA SNDFILE PORTAUDIO SOAPYSDR ZMQ)
  if(PRISM_HAVE_${feature})
    set(PRISM_CONFIG_HAVE_${feature} TRUE)
  else()
    set(PRISM_CONFIG_HAVE_${feature} FALSE)
  endif()
endforeach()
# The viewer: its libraries and what they link (GLFW, OpenGL, and EGL where the waterfall has a
# headless context).
set(PRISM_CONFIG_HAVE_VIEWER FALSE)
set(PRISM_CONFIG_VIEWER_EGL FALSE)
if(TARGET prism_gui)
  set(PRISM_CONFIG_HAVE_VIEWER TRUE)
  if(TARGET OpenGL::EGL)
    set(PRISM_CONFIG_VIEWER_EGL TRUE)
  endif()
endif()
configure_package_config_file(cmake/prismConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/prismConfig.cmake
                              INSTALL_DESTINATION ${PRISM_CMAKE_INSTALL_DIR} NO_SET_AND_CHECK_MACRO)
# Before 1.0 a minor step may change the API: find_package(prism 0.1) takes 0.1.x only.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/prismConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/prismConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/prismConfigVersion.cmake
        DESTINATION ${PRISM_CMAKE_INSTALL_DIR} COMPONENT development)

# prism.pc: static libraries, so the libraries they need are in Requires and Libs (a plain
# `pkg-config --libs prism` links). Libraries in link order: a library before those it uses.
set(PRISM_PC_LIBS "")
foreach(library prism_stages prism_cuda_engine prism_sinks prism_sources prism_net prism_pipeline prism_fft
                prism_fft_cuda prism_fft_plan)
  if(TARGET ${library})
    string(APPEND PRISM_PC_LIBS " -l${library}")
  endif()
endforeach()
set(PRISM_PC_REQUIRES "fftw3f fftw3 libpng cairo cairo-ft fontconfig")
if(PRISM_HAVE_SNDFILE)
  string(APPEND PRISM_PC_REQUIRES " sndfile")
endif()
if(PRISM_HAVE_PORTAUDIO)
  string(APPEND PRISM_PC_REQUIRES " portaudio-2.0")
endif()
if(PRISM_HAVE_SOAPYSDR)
  string(APPEND PRISM_PC_REQUIRES " SoapySDR")
endif()
if(PRISM_HAVE_ZMQ)
  string(APPEND PRISM_PC_REQUIRES " libzmq")
endif()
set(PRISM_PC_EXTRA_LIBS "-pthread")
if(PRISM_HAVE_CUDA)
  string(APPEND PRISM_PC_EXTRA_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcufft -lcudart")
endif()
# The prefix relative to the folder of prism.pc, so that the installation can be moved.
file(RELATIVE_PATH PRISM_PC_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/prism.pc.in ${CMAKE_CURRENT_BINARY_DIR}/prism.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/prism.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT development)
