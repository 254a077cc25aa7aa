//===- LoadedImage.h - The kernel image a simulated device has loaded -*- C++ -*-===//
//
// What iss and rtl share about the image they run: CUDA semantics for its
// variables and lookup by name.
//
// __device__ variables (the data section): one instance per loaded image,
// initialized from the image's data section when the image is loaded,
// persisting and shared across the launches of its kernels, plain global
// memory to every thread. Loading an image with a data section allocates
// the section in the device's global memory (the runtime's allocator, so the
// segment is one more live allocation: out-of-bounds checks and copies treat
// it like a cudaMalloc'd buffer), copies the initial bytes there and hands
// the simulator a copy of the image whose const word at DataBaseSlot holds
// the segment's address (docs/KernelImage.md); the kernels read that word.
// The segment of the previous image is freed once the new image is loaded,
// and kept if the load fails (the device then keeps the previous image too).
//
// Symbols (the image's symbol table): find() names a variable's section,
// size and, for a __device__ variable, its global address; copyTo/copyFrom
// read and write one by name. A write to a __constant__ variable changes the
// const bytes of the image the simulator runs (it is loaded again, which
// leaves the data segment alone), so every later launch sees it, as after
// cudaMemcpyToSymbol.
//
// SimulatedDevice is the Device both build on: device memory with the
// runtime's allocator, a LoadedImage, the last launch's counters; iss and
// rtl add the simulator that runs the kernels.
//
// Private to the runtime library.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DeviceMemory.h"

#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>

namespace tandem {

class LoadedImage {
public:
  /// \p LoadIntoSimulator hands the simulator the image it must run.
  using SimulatorLoader = std::function<llvm::Error(const KernelImage &)>;

  LoadedImage(iss::DeviceMemory &Mem, SimulatorLoader LoadIntoSimulator)
      : Mem(Mem), LoadIntoSimulator(std::move(LoadIntoSimulator)) {}

  /// Places \p Img's data section, then loads the image the simulator must
  /// run (\p Img itself, with the slot filled when it has data).
  llvm::Error load(const KernelImage &Img);

  /// The device address of the loaded image's data section; 0 if none.
  DevicePtr dataAddress() const { return Base; }

  llvm::Expected<SymbolInfo> find(llvm::StringRef Name) const;
  llvm::Error copyTo(llvm::StringRef Name, llvm::ArrayRef<uint8_t> Src, uint64_t Offset);
  llvm::Error copyFrom(llvm::MutableArrayRef<uint8_t> Dst, llvm::StringRef Name,
                       uint64_t Offset);

private:
  /// The symbol \p Name and the check that [Offset, Offset + Bytes) lies
  /// inside it; \p What ("copy to", "copy from") starts the message.
  llvm::Expected<const ImageSymbol &> symbolRange(llvm::StringRef Name, uint64_t Offset,
                                                  uint64_t Bytes, llvm::StringRef What) const;

  iss::DeviceMemory &Mem;
  SimulatorLoader LoadIntoSimulator;
  DevicePtr Base = 0;
  /// The image the simulator runs (slot filled); none before the first load.
  std::optional<KernelImage> Running;
};

/// A device whose memory is host memory (sim/iss/DeviceMemory.h) and whose
/// kernels a simulator runs: everything but the launch and the simulator's
/// own load of an image.
class SimulatedDevice : public Device {
public:
  explicit SimulatedDevice(std::unique_ptr<iss::DeviceMemory> Memory)
      : Mem(std::move(Memory)),
        Image(*Mem, [this](const KernelImage &I) { return loadIntoSimulator(I); }) {}

  llvm::Expected<DevicePtr> alloc(uint64_t Bytes) override { return Mem->alloc(Bytes); }
  llvm::Error free(DevicePtr P) override { return Mem->free(P); }
  llvm::Error copyToDevice(DevicePtr Dst, llvm::ArrayRef<uint8_t> Src) override {
    return Mem->copyIn(Dst, Src);
  }
  llvm::Error copyFromDevice(llvm::MutableArrayRef<uint8_t> Dst, DevicePtr Src) override {
    return Mem->copyOut(Dst, Src);
  }
  llvm::Error loadImage(const KernelImage &Img) override { return Image.load(Img); }
  const Counters &counters() const override { return Last; }
  llvm::Expected<SymbolInfo> findSymbol(llvm::StringRef Name) override {
    return Image.find(Name);
  }
  llvm::Error copyToSymbol(llvm::StringRef Name, llvm::ArrayRef<uint8_t> Src,
                           uint64_t Offset) override {
    return Image.copyTo(Name, Src, Offset);
  }
  llvm::Error copyFromSymbol(llvm::MutableArrayRef<uint8_t> Dst, llvm::StringRef Name,
                             uint64_t Offset) override {
    return Image.copyFrom(Dst, Name, Offset);
  }

protected:
  /// Hands the simulator the image it must run (data placed, slot filled).
  virtual llvm::Error loadIntoSimulator(const KernelImage &Img) = 0;
  iss::DeviceMemory &memory() { return *Mem; }

  Counters Last; ///< of the last launch

private:
  std::unique_ptr<iss::DeviceMemory> Mem;
  LoadedImage Image; ///< its __device__ variables and symbols
};

} // namespace tandem
