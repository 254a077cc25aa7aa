//===- Runtime.h - One device API over iss, rtl and gpu --------*- C++ -*-===//
//
// Open a device by name, allocate device memory, copy data in and out, load
// a kernel image, launch a kernel, read the counters of the last launch.
// Errors are values (llvm::Error / llvm::Expected), never aborts: a fault in
// a kernel (out-of-bounds access, illegal instruction, barrier deadlock, step
// limit) comes back as an error naming the kernel, block, warp, lane, pc and
// address.
//
// Devices today: "iss" (the functional simulator), "rtl" (the Verilated
// SIMT core, docs/RTL.md) and "gpu" (PTX on an NVIDIA GPU through the CUDA
// driver, loaded at run time: docs/GPU.md). iss and rtl run kernel images
// (loadImage); gpu runs PTX text (loadPtx).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Config.h"
#include "tandem/KernelImage.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tandem {

/// A device address. Device allocations are 256-byte aligned, like
/// cudaMalloc; 0 is never a valid allocation.
using DevicePtr = uint32_t;

struct Dim3 {
  uint32_t X = 1, Y = 1, Z = 1;
  uint64_t count() const { return uint64_t(X) * Y * Z; }
};

/// One kernel argument: 4 bytes, placed at the parameter's offset.
struct KernelArg {
  uint32_t Bits = 0;
  static KernelArg ptr(DevicePtr P) { return {P}; }
  static KernelArg u32(uint32_t V) { return {V}; }
  static KernelArg s32(int32_t V) { return {static_cast<uint32_t>(V)}; }
  static KernelArg f32(float V);
};

struct LaunchParams {
  std::string Kernel;
  Dim3 Grid;
  Dim3 Block;
  uint32_t DynamicSharedBytes = 0; ///< added to the kernel's static shared bytes
  std::vector<KernelArg> Args;
};

/// Named counters of the last launch, in a fixed order. Names are shared
/// between devices where the quantity is the same (see docs/Counters.md).
struct Counters {
  std::vector<std::pair<std::string, uint64_t>> Values;

  /// The value of \p Name, or 0 if the device does not count it.
  uint64_t get(llvm::StringRef Name) const;
  bool has(llvm::StringRef Name) const;
  void set(llvm::StringRef Name, uint64_t V);
  void add(llvm::StringRef Name, uint64_t V);
};

/// A variable of the loaded image or PTX module, found by its name (the
/// name in the IR and the PTX: a C identifier as written, a C++ name
/// mangled). CUDA's cudaMemcpyToSymbol / cudaGetSymbolAddress, or the
/// driver's cuModuleGetGlobal.
struct SymbolInfo {
  std::string Name;
  /// Const: a __constant__ variable; Data: a __device__ variable.
  SymbolSection Section = SymbolSection::Data;
  uint64_t Bytes = 0;
  /// A global-memory address of the variable, usable with copyToDevice,
  /// copyFromDevice and as a pointer argument: every __device__ variable,
  /// and on gpu a __constant__ one too (constant memory is global memory
  /// there). 0 for a __constant__ variable on iss and rtl, where the const
  /// space has no global address: use copyToSymbol / copyFromSymbol.
  DevicePtr Address = 0;
};

/// Options a device takes when opened.
struct DeviceOptions {
  AcceleratorConfig Config;
  /// Stop a launch after this many warp instructions (endless loops fault
  /// instead of hanging). 0: no limit.
  uint64_t StepLimit = 1ull << 32;
  /// Where the per-warp-instruction trace goes (--trace); null: no trace.
  llvm::raw_ostream *Trace = nullptr;
  /// Device memory in bytes (global memory size).
  uint64_t MemoryBytes = 256ull << 20;
  /// rtl only (--vcd, --fst): write a waveform of every signal of the core
  /// for each launch to this file (the last launch's replaces earlier
  /// ones). Empty: none. Other devices refuse to open with it set.
  std::string WaveformPath;
  /// The waveform in GTKWave's FST format (compressed, much smaller than
  /// the VCD) rather than VCD.
  bool WaveformAsFst = false;
  /// rtl only (--timeline): write a Chrome/Perfetto trace (Trace Event
  /// Format JSON, one track per warp: issue and stall intervals by cause) of
  /// each launch to this file (the last launch's replaces earlier ones).
  /// Empty: none. Other devices refuse to open with it set.
  std::string TimelinePath;
};

class Device {
public:
  virtual ~Device();

  /// "iss", "rtl" or "gpu".
  virtual llvm::StringRef name() const = 0;

  virtual llvm::Expected<DevicePtr> alloc(uint64_t Bytes) = 0;
  virtual llvm::Error free(DevicePtr P) = 0;
  virtual llvm::Error copyToDevice(DevicePtr Dst, llvm::ArrayRef<uint8_t> Src) = 0;
  virtual llvm::Error copyFromDevice(llvm::MutableArrayRef<uint8_t> Dst,
                                     DevicePtr Src) = 0;

  /// Makes the kernels of \p Img launchable (replaces any earlier image).
  /// iss and rtl also allocate the image's data section (its __device__
  /// variables) in device memory and copy its initial bytes there; it stays
  /// until the next loadImage, shared by every launch (docs/KernelImage.md).
  virtual llvm::Error loadImage(const KernelImage &Img) = 0;
  /// Makes the kernels of a PTX module launchable (replaces any earlier
  /// module). Only the gpu device runs PTX; the others return an error that
  /// says so. \p SourceName names the module in messages.
  virtual llvm::Error loadPtx(llvm::StringRef Ptx, llvm::StringRef SourceName);
  virtual llvm::Error launch(const LaunchParams &P) = 0;

  /// The variable \p Name of the loaded image (iss, rtl: its symbol table)
  /// or PTX module (gpu); an error lists the names there are.
  virtual llvm::Expected<SymbolInfo> findSymbol(llvm::StringRef Name) = 0;
  /// Writes \p Src into the variable \p Name from byte \p Offset on (the
  /// range must lie inside it). A __constant__ variable keeps the new bytes
  /// for every later launch until the next load, as with cudaMemcpyToSymbol.
  virtual llvm::Error copyToSymbol(llvm::StringRef Name, llvm::ArrayRef<uint8_t> Src,
                                   uint64_t Offset = 0) = 0;
  /// Reads \p Dst.size() bytes of the variable \p Name from byte \p Offset.
  virtual llvm::Error copyFromSymbol(llvm::MutableArrayRef<uint8_t> Dst,
                                     llvm::StringRef Name, uint64_t Offset = 0) = 0;
  /// Counters of the last successful or faulted launch.
  virtual const Counters &counters() const = 0;

  // Typed conveniences over copyToDevice / copyFromDevice.
  template <typename T> llvm::Error write(DevicePtr Dst, llvm::ArrayRef<T> V) {
    return copyToDevice(Dst, {reinterpret_cast<const uint8_t *>(V.data()),
                              V.size() * sizeof(T)});
  }
  template <typename T> llvm::Error read(llvm::MutableArrayRef<T> V, DevicePtr Src) {
    return copyFromDevice({reinterpret_cast<uint8_t *>(V.data()), V.size() * sizeof(T)},
                          Src);
  }
};

/// Opens "iss", "rtl" or "gpu" ("gpu" fails with a message naming the driver
/// library it looked for on a machine without an NVIDIA driver).
llvm::Expected<std::unique_ptr<Device>> openDevice(llvm::StringRef Name,
                                                   const DeviceOptions &Opts);

/// Device names the API knows, built or not.
llvm::ArrayRef<llvm::StringRef> knownDevices();

} // namespace tandem
