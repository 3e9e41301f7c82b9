# Build kp 0.9.0 against system / pip copies of its dependencies instead of downloading them
# (kp's setup.py hard-codes its CMake arguments; CMake >= 3.21 reads this file from
# $CMAKE_TOOLCHAIN_FILE). See ../shared/PLATFORM.md, "Installing from nothing".
set(KOMPUTE_OPT_USE_BUILT_IN_VULKAN_HEADER OFF CACHE BOOL "" FORCE)
set(KOMPUTE_OPT_USE_BUILT_IN_FMT OFF CACHE BOOL "" FORCE)
set(KOMPUTE_OPT_USE_BUILT_IN_PYBIND11 OFF CACHE BOOL "" FORCE)
set(KOMPUTE_OPT_USE_BUILT_IN_SPDLOG OFF CACHE BOOL "" FORCE)
set(KOMPUTE_OPT_INSTALL OFF CACHE BOOL "" FORCE)
# kp's setup.py drops a comma, so its -DPYTHON_EXECUTABLE never arrives; without it pybind11 picks
# whatever python3.x it finds first. bootstrap.sh exports the venv's interpreter here.
if(DEFINED ENV{DMLC_KP_PYTHON})
  set(PYTHON_EXECUTABLE "$ENV{DMLC_KP_PYTHON}" CACHE FILEPATH "" FORCE)
endif()
