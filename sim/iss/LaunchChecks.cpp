//===- LaunchChecks.cpp - What every device checks before it runs a kernel ===//
//
// The iss and the rtl harness accept the same images and launches and refuse
// the rest with the same words, so a program that faults on one device is
// reported identically on the other. Both call these functions; neither keeps
// a copy. Input invariants: none (images and launches are untrusted).
//
//===----------------------------------------------------------------------===//

#include "IssInternal.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tandem::iss::detail {

namespace {

constexpr uint64_t MaxParamBytes = 64 * 1024;

Error checkKernel(const KernelImage &Img, const KernelInfo &K) {
  auto Bad = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "kernel '" + K.Name + "': " + Why);
  };
  uint64_t CodeBytes = uint64_t(Img.Code.size()) * 4;
  if (K.EntryOffset % 4 || K.CodeBytes % 4)
    return Bad(formatv("entry {0} and code size {1} must be multiples of 4",
                       K.EntryOffset, K.CodeBytes));
  if (K.CodeBytes == 0)
    return Bad("has no code");
  if (uint64_t(K.EntryOffset) + K.CodeBytes > CodeBytes)
    return Bad(formatv(
        "code [{0}, {1}) lies outside the image's {2} bytes of code",
        K.EntryOffset, uint64_t(K.EntryOffset) + K.CodeBytes, CodeBytes));
  for (const KernelParam &P : K.Params) {
    if (P.Size != 4 || P.Offset % 4)
      return Bad(
          formatv("parameter '{0}' has size {1} at offset {2}; parameters "
                  "are 4 bytes at 4-aligned offsets",
                  P.Name, P.Size, P.Offset));
  }
  if (paramBufferBytes(K) > MaxParamBytes)
    return Bad(formatv("parameter buffer of {0} bytes exceeds the limit of {1}",
                       paramBufferBytes(K), MaxParamBytes));
  return Error::success();
}

} // namespace

std::string dimText(const Dim3 &D) {
  return formatv("({0},{1},{2})", D.X, D.Y, D.Z).str();
}

std::string waitingWarpText(unsigned Warp, uint32_t BarPc) {
  return formatv("{0} (bar at pc {1})", Warp, pcHex(BarPc)).str();
}

std::string barrierDeadlockText(StringRef Waiting, StringRef Finished) {
  return formatv("barrier deadlock: warps {0} wait at a barrier but warps {1} have finished; "
                 "every warp that waits at a bar needs all warps of its block there",
                 Waiting, Finished)
      .str();
}

std::string pcOutsideCodeText(StringRef Kernel, uint32_t Entry, uint32_t CodeBytes, uint32_t From) {
  return formatv("illegal instruction: pc is outside kernel '{0}' code [{1}, {2}) (reached "
                 "from pc {3})",
                 Kernel, pcHex(Entry), pcHex(Entry + CodeBytes), pcHex(From))
      .str();
}

std::string paramList(const KernelInfo &K) {
  if (K.Params.empty())
    return "none";
  std::string S;
  for (const KernelParam &P : K.Params) {
    if (!S.empty())
      S += ", ";
    S += P.Name + ": " + paramKindName(P.Kind);
  }
  return S;
}

/// Parameter buffer bytes the kernel's parameters cover.
uint64_t paramBufferBytes(const KernelInfo &K) {
  uint64_t Bytes = 0;
  for (const KernelParam &P : K.Params)
    Bytes = std::max(Bytes, uint64_t(P.Offset) + P.Size);
  return Bytes;
}

const char *spaceName(simt::MemSpace S) {
  switch (S) {
  case simt::MemSpace::Global:
    return "global";
  case simt::MemSpace::Shared:
    return "shared";
  case simt::MemSpace::Local:
    return "local";
  case simt::MemSpace::Param:
    return "param";
  case simt::MemSpace::Const:
    return "const";
  case simt::MemSpace::None:
    break;
  }
  return "?";
}

std::string globalBoundsDetail(const DeviceMemory &Mem, uint32_t Addr,
                               unsigned Bytes) {
  const Allocation *A = Mem.nearest(Addr);
  if (!A)
    return "no global memory is allocated";
  std::string Range =
      formatv("{0}..{1}, {2} bytes", hex8(A->Base),
              hex8(uint32_t(uint64_t(A->Base) + A->Size)), A->Size)
          .str();
  if (Addr >= A->Base && uint64_t(Addr) < uint64_t(A->Base) + A->Size)
    return formatv("runs {0} bytes past the end of the allocation {1}",
                   uint64_t(Addr) + Bytes - (uint64_t(A->Base) + A->Size),
                   Range)
        .str();
  return "nearest allocation " + Range;
}

Error checkImage(const KernelImage &Img) {
  StringSet<> Names;
  for (const KernelInfo &K : Img.Kernels) {
    if (!Names.insert(K.Name).second)
      return createStringError(inconvertibleErrorCode(),
                               "kernel '" + K.Name +
                                   "' is defined twice in the image");
    if (Error E = checkKernel(Img, K))
      return E;
  }
  return Error::success();
}

Error checkLaunch(const KernelInfo &K, const LaunchParams &P,
                  const DeviceOptions &O) {
  auto Bad = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "kernel '" + K.Name + "': cannot launch: " + Why);
  };
  const AcceleratorConfig &C = O.Config;
  if (P.Grid.count() == 0)
    return Bad("grid " + dimText(P.Grid) +
               " has no blocks; every dimension must be >= 1");
  if (P.Block.count() == 0)
    return Bad("block " + dimText(P.Block) +
               " has no threads; every dimension must be >= 1");
  if (P.Block.count() > C.maxThreadsPerBlock())
    return Bad(
        formatv("block {0} has {1} threads, more than the configuration's "
                "limit of {2} (WarpsPerCore {3} x 32 threads); use smaller "
                "blocks or a configuration with more warps",
                dimText(P.Block), P.Block.count(), C.maxThreadsPerBlock(),
                C.WarpsPerCore));
  if (P.Args.size() != K.Params.size())
    return Bad(formatv("it takes {0} arguments ({1}) but the launch passes {2}",
                       K.Params.size(), paramList(K), P.Args.size()));
  if (K.RegistersUsed > C.Registers)
    return Bad(formatv("it uses {0} registers but the configuration has {1} "
                       "(registers); recompile for this configuration",
                       K.RegistersUsed, C.Registers));
  uint64_t Shared = uint64_t(K.SharedBytes) + P.DynamicSharedBytes;
  if (Shared > C.Shared.SizeBytes)
    return Bad(formatv("it needs {0} bytes of shared memory ({1} static + {2} "
                       "dynamic) but a core has {3} (shared.size_bytes)",
                       Shared, K.SharedBytes, P.DynamicSharedBytes,
                       C.Shared.SizeBytes));
  uint64_t Threads = alignTo(P.Block.count(), 32);
  if (uint64_t(K.LocalBytes) * Threads > O.MemoryBytes)
    return Bad(formatv("{0} bytes of local memory per thread for {1} threads "
                       "exceed the device memory of {2} bytes",
                       K.LocalBytes, Threads, O.MemoryBytes));
  return Error::success();
}

Expected<const KernelInfo *> findLaunchKernel(const KernelImage *Image,
                                              StringRef Name) {
  if (!Image)
    return createStringError("cannot launch kernel '%s': no image is loaded "
                             "(call loadImage first)",
                             Name.str().c_str());
  const KernelInfo *K = Image->findKernel(Name);
  if (!K) {
    std::string Known;
    for (const KernelInfo &KI : Image->Kernels)
      Known += (Known.empty() ? "" : ", ") + KI.Name;
    return createStringError(
        "kernel '%s' is not in the loaded image (kernels: %s)",
        Name.str().c_str(), Known.empty() ? "none" : Known.c_str());
  }
  return K;
}

} // namespace tandem::iss::detail
