# The CUDA toolkit, optional: with it the host driver gets the `cuda` backend (host/gpu/cuda_gpu.cc,
# host/driver/cuda_backend.cc); with a working nvcc as well, its GEMM kernel (host/gpu/cuda_gemm.cu), else the
# backend's GEMM bounces through the host. Only the toolkit is needed at build time: the runtime is linked
# statically and the driver's calls are looked up at run time, so no GPU or driver is needed to build or to run
# (the backend then reports UNAVAILABLE). Sets STRATA_HAVE_CUDA and STRATA_HAVE_CUDA_KERNELS.
include_guard(GLOBAL)

option(STRATA_WITH_CUDA "Build the cuda backend when find_package(CUDAToolkit) finds the toolkit" ON)
set(STRATA_HAVE_CUDA OFF)
set(STRATA_HAVE_CUDA_KERNELS OFF)
if(STRATA_WITH_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(STRATA_HAVE_CUDA ON)
    # nvcc gets no -fsanitize (add_compile_options would hand it the flag): sanitizer builds use the host path.
    if(NOT STRATA_SANITIZE)
      include(CheckLanguage)
      check_language(CUDA)  # compiles a test program: a missing nvcc or an unsupported host compiler leaves it empty
    endif()
    if(CMAKE_CUDA_COMPILER)
      if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
        # Turing SASS + PTX (JIT-compiled on anything newer), and Hopper SASS (H100, H200).
        set(CMAKE_CUDA_ARCHITECTURES 75 90-real)
      endif()
      enable_language(CUDA)
      set(STRATA_HAVE_CUDA_KERNELS ON)
    endif()
  endif()
endif()
if(STRATA_HAVE_CUDA)
  message(STATUS "cuda backend: ON (CUDA ${CUDAToolkit_VERSION}); GEMM kernel: ${STRATA_HAVE_CUDA_KERNELS}")
else()
  message(STATUS "cuda backend: OFF (STRATA_WITH_CUDA=${STRATA_WITH_CUDA}, CUDA toolkit found: ${CUDAToolkit_FOUND})")
endif()
