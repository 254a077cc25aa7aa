//===- DataSegment.h - An image's __device__ variables in device memory -*- C++ -*-===//
//
// CUDA semantics for writable __device__ variables on the simulated devices
// (iss, rtl): one instance per loaded image, initialized from the image's
// data section when the image is loaded, persisting and shared across the
// launches of its kernels, plain global memory to every thread.
//
// Loading an image with a data section allocates the section in the
// device's global memory (the runtime's allocator, so the segment is one
// more live allocation: out-of-bounds checks and copies treat it like a
// cudaMalloc'd buffer), copies the initial bytes there and hands the device
// a copy of the image whose const word at DataBaseSlot holds the segment's
// address (docs/KernelImage.md); the kernels read that word. The segment of
// the previous image is freed once the new image is loaded, and kept if the
// load fails (the device then keeps the previous image too).
//
// Private to the runtime library.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DeviceMemory.h"

#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace tandem {

class DataSegment {
public:
  explicit DataSegment(iss::DeviceMemory &Mem) : Mem(Mem) {}

  /// Places \p Img's data section, then calls \p Load with the image the
  /// device must run (\p Img itself when it has no data section).
  llvm::Error load(const KernelImage &Img,
                   llvm::function_ref<llvm::Error(const KernelImage &)> Load);

  /// The device address of the loaded image's data section; 0 if none.
  DevicePtr address() const { return Base; }

private:
  iss::DeviceMemory &Mem;
  DevicePtr Base = 0;
};

} // namespace tandem
