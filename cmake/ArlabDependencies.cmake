# MPI is required (bootstrap and the baseline). Every other dependency is optional: it is
# detected, its ARLAB_WITH_* option defaults to whether it was found, and asking for one
# that is missing stops with a message naming the package and the flag that turns it off.

find_package(MPI REQUIRED COMPONENTS C)

function(arlab_optional_dependency option found description package)
  option(${option} "Build with ${description}" ${${found}})
  if(${option} AND NOT ${${found}})
    message(FATAL_ERROR "${option}=ON but ${description} was not found: install ${package} or configure with -D${option}=OFF")
  endif()
  message(STATUS "arlab: ${option}=${${option}} (${description})")
endfunction()

# UCX
find_package(PkgConfig QUIET)
set(ARLAB_UCX_FOUND OFF)
if(PkgConfig_FOUND)
  pkg_check_modules(UCX QUIET IMPORTED_TARGET ucx)
  if(UCX_FOUND)
    set(ARLAB_UCX_FOUND ON)
  endif()
endif()
arlab_optional_dependency(ARLAB_WITH_UCX ARLAB_UCX_FOUND "UCX (ucp)" "libucx-dev")

# rdma-core verbs
find_path(IBVERBS_INCLUDE_DIR infiniband/verbs.h)
find_library(IBVERBS_LIBRARY ibverbs)
set(ARLAB_IBVERBS_FOUND OFF)
if(IBVERBS_INCLUDE_DIR AND IBVERBS_LIBRARY)
  set(ARLAB_IBVERBS_FOUND ON)
endif()
arlab_optional_dependency(ARLAB_WITH_IBVERBS ARLAB_IBVERBS_FOUND "rdma-core libibverbs" "libibverbs-dev")

# CUDA toolkit and NCCL (/usr/local/cuda on the lab's machines). Found, never required.
if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit QUIET)
set(ARLAB_CUDA_FOUND ${CUDAToolkit_FOUND})
if(NOT ARLAB_CUDA_FOUND)
  set(ARLAB_CUDA_FOUND OFF)
endif()
arlab_optional_dependency(ARLAB_WITH_CUDA ARLAB_CUDA_FOUND "the CUDA toolkit" "the CUDA toolkit (CUDAToolkit_ROOT)")
if(ARLAB_WITH_CUDA)
  # One translation unit of kernels; Ampere (sm_80) and Hopper (sm_90) machine code plus
  # compute_90 PTX that newer GPUs compile when they load it. Override with
  # -DCMAKE_CUDA_ARCHITECTURES=native (the GPU of the build machine) or a list.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90" CACHE STRING "CUDA architectures")
  endif()
  if(NOT CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 knows no C++20 flag for nvcc; the kernels need 17
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  message(STATUS "arlab: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
set(ARLAB_NCCL_FOUND OFF)
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY AND ARLAB_WITH_CUDA)
  set(ARLAB_NCCL_FOUND ON)
endif()
arlab_optional_dependency(ARLAB_WITH_NCCL ARLAB_NCCL_FOUND "NCCL" "NCCL (libnccl-dev or the CUDA toolkit's copy)")
