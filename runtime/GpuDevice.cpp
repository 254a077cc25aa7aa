//===- GpuDevice.cpp - The gpu device: PTX through the CUDA driver API ----===//
//
// Input invariants: none; the driver may be missing, old, fake or failing at
// any call. Guarantees: every driver failure is an llvm::Error naming the
// call and what it was doing (the module, or the kernel with its grid and
// block; the JIT's logs when a module does not load); counters() always
// holds every counter name of the gpu device (zeros before a launch).
//
// The sequence: open = load the library, cuInit, cuDeviceGet(0), retain the
// primary context, two events; loadPtx = cuModuleLoadDataEx with log
// buffers, and the .entry signatures parsed from the same text; launch =
// translate pointer handles, pack by the signature, event, cuLaunchKernel,
// event, synchronize, elapsed time; findSymbol = cuModuleGetGlobal, the
// variable's address registered as one more handle (not freeable, dropped
// with the module).
//
//===----------------------------------------------------------------------===//

#include "GpuDevice.h"

#include "CudaDriverApi.h"
#include "PtxEntry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>

using namespace llvm;

namespace tandem {

namespace {

using namespace cuda;

/// The gpu device's counters, in this order (docs/GPU.md, docs/Counters.md).
constexpr StringRef GpuCounterNames[] = {"kernel_time_ns", "launches", "blocks",
                                         "warps_launched"};

/// Handles start above 0 (never a valid allocation) and leave the first
/// page free, so a small integer passed as a pointer is not mistaken for one.
constexpr uint64_t FirstHandle = 0x10000;
constexpr uint64_t HandleAlign = 256;
/// Enough for any JIT log we have seen; a longer one is cut, not overrun.
constexpr size_t JitLogBytes = 16384;

std::string describeLaunch(const LaunchParams &P) {
  return formatv("kernel '{0}' (grid {1},{2},{3}, block {4},{5},{6}, {7} bytes "
                 "dynamic shared)",
                 P.Kernel, P.Grid.X, P.Grid.Y, P.Grid.Z, P.Block.X, P.Block.Y,
                 P.Block.Z, P.DynamicSharedBytes)
      .str();
}

class GpuDevice final : public Device {
public:
  ~GpuDevice() override { close(); }

  /// Everything open needs, in order; the first failure is returned.
  Error open(const std::string &Library);

  StringRef name() const override { return "gpu"; }
  Expected<DevicePtr> alloc(uint64_t Bytes) override;
  Error free(DevicePtr P) override;
  Error copyToDevice(DevicePtr Dst, ArrayRef<uint8_t> Src) override;
  Error copyFromDevice(MutableArrayRef<uint8_t> Dst, DevicePtr Src) override;
  Error loadImage(const KernelImage &Img) override;
  Error loadPtx(StringRef Ptx, StringRef SourceName) override;
  Error launch(const LaunchParams &P) override;
  const Counters &counters() const override { return Last; }
  Expected<SymbolInfo> findSymbol(StringRef Name) override;
  Error copyToSymbol(StringRef Name, ArrayRef<uint8_t> Src, uint64_t Offset) override;
  Error copyFromSymbol(MutableArrayRef<uint8_t> Dst, StringRef Name, uint64_t Offset) override;

  const GpuInfo &info() const { return Info; }

private:
  struct Allocation {
    uint64_t Bytes = 0;
    CUdeviceptr Real = 0;
    /// Not empty: the module's variable of this name (findSymbol), owned by
    /// the module, not by alloc/free.
    std::string Symbol;
  };

  /// An error for a failed driver call: "gpu: CALL failed for WHAT: RESULT".
  Error fail(StringRef Call, const Twine &What, CUresult R) const {
    return createStringError(inconvertibleErrorCode(),
                             "gpu: " + Call + " failed" +
                                 (What.isTriviallyEmpty() ? "" : " for " + What) +
                                 ": " + describeResult(Api, R));
  }
  Error queryInfo();
  /// The real address of [P, P + Bytes), which must lie in one allocation.
  Expected<CUdeviceptr> resolve(DevicePtr P, uint64_t Bytes, StringRef What) const;
  /// The argument values for \p E: handles translated for 64-bit parameters.
  Expected<std::vector<uint64_t>> argumentValues(const ptx::PtxEntry &E,
                                                 const LaunchParams &P) const;
  Expected<CUfunction> function(const LaunchParams &P);
  /// A handle for [Real, Real + Bytes), reserved from the 32-bit range.
  Expected<DevicePtr> newHandle(uint64_t Bytes, CUdeviceptr Real, std::string Symbol);
  /// findSymbol's answer with the range check of a copy.
  Expected<SymbolInfo> symbolRange(StringRef Name, uint64_t Offset, uint64_t Bytes,
                                   StringRef What);
  void unloadModule();
  void close();

  DriverApi Api; // first member: destroyed (dlclose) after everything else
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  bool HaveContext = false;
  CUevent Start = nullptr, Stop = nullptr;
  CUmodule Module = nullptr;
  std::string ModuleName;
  std::vector<ptx::PtxVariable> Variables; ///< of the loaded module
  std::map<std::string, SymbolInfo> Symbols; ///< found so far, by name
  std::vector<ptx::PtxEntry> Entries;
  std::map<std::string, CUfunction> Functions;
  std::map<uint64_t, Allocation> Allocations; // by handle
  uint64_t NextHandle = FirstHandle;
  Counters Last;
  GpuInfo Info;
};

Error GpuDevice::open(const std::string &Library) {
  for (StringRef N : GpuCounterNames)
    Last.set(N, 0);
  std::string Why;
  if (!loadDriverApi(Library, Api, Why))
    return createStringError(inconvertibleErrorCode(), "cannot open device 'gpu': " + Why);
  if (CUresult R = Api.cuInit(0))
    return fail("cuInit", "", R);
  int Count = 0;
  if (CUresult R = Api.cuDeviceGetCount(&Count))
    return fail("cuDeviceGetCount", "", R);
  if (Count == 0)
    return createStringError(inconvertibleErrorCode(),
                             "cannot open device 'gpu': the CUDA driver loaded from '" +
                                 Api.LibraryName +
                                 "' sees no GPU (is one visible? nvidia-smi lists them)");
  if (CUresult R = Api.cuDeviceGet(&Dev, 0))
    return fail("cuDeviceGet", "GPU 0", R);
  if (CUresult R = Api.cuDevicePrimaryCtxRetain(&Ctx, Dev))
    return fail("cuDevicePrimaryCtxRetain", "GPU 0", R);
  HaveContext = true;
  if (CUresult R = Api.cuCtxSetCurrent(Ctx))
    return fail("cuCtxSetCurrent", "GPU 0", R);
  if (CUresult R = Api.cuEventCreate(&Start, CU_EVENT_DEFAULT))
    return fail("cuEventCreate", "the launch timer", R);
  if (CUresult R = Api.cuEventCreate(&Stop, CU_EVENT_DEFAULT))
    return fail("cuEventCreate", "the launch timer", R);
  return queryInfo();
}

Error GpuDevice::queryInfo() {
  char Name[256] = {};
  if (CUresult R = Api.cuDeviceGetName(Name, sizeof(Name) - 1, Dev))
    return fail("cuDeviceGetName", "GPU 0", R);
  Info.Name = Name;
  if (CUresult R = Api.cuDriverGetVersion(&Info.DriverVersion))
    return fail("cuDriverGetVersion", "", R);
  struct {
    CUdevice_attribute Attr;
    int *Into;
    const char *Name;
  } const Attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &Info.ComputeMajor, "compute capability"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &Info.ComputeMinor, "compute capability"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &Info.Multiprocessors, "multiprocessors"},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &Info.SmClockKHz, "SM clock"},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &Info.MemoryClockKHz, "memory clock"},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &Info.L2Bytes, "L2 size"},
  };
  for (const auto &A : Attrs)
    if (CUresult R = Api.cuDeviceGetAttribute(A.Into, A.Attr, Dev))
      return fail("cuDeviceGetAttribute", A.Name, R);
  return Error::success();
}

void GpuDevice::unloadModule() {
  if (Module)
    Api.cuModuleUnload(Module);
  Module = nullptr;
  Entries.clear();
  Functions.clear();
  Variables.clear();
  Symbols.clear();
  for (auto It = Allocations.begin(); It != Allocations.end();)
    It = It->second.Symbol.empty() ? std::next(It) : Allocations.erase(It);
}

void GpuDevice::close() {
  if (!Api.Library)
    return;
  // Errors here cannot be reported (a destructor); the context's release
  // frees whatever is left anyway.
  for (const auto &[Handle, A] : Allocations)
    if (A.Symbol.empty())
      Api.cuMemFree(A.Real);
  Allocations.clear();
  unloadModule();
  if (Start)
    Api.cuEventDestroy(Start);
  if (Stop)
    Api.cuEventDestroy(Stop);
  if (HaveContext)
    Api.cuDevicePrimaryCtxRelease(Dev);
  HaveContext = false;
}

Expected<DevicePtr> GpuDevice::newHandle(uint64_t Bytes, CUdeviceptr Real,
                                         std::string Symbol) {
  uint64_t Span = std::max<uint64_t>(alignTo(Bytes, HandleAlign), HandleAlign);
  if (NextHandle + Span > (uint64_t(1) << 32))
    return createStringError(
        inconvertibleErrorCode(),
        formatv("gpu: cannot address {0} more bytes: the device API's 32-bit addresses "
                "are used up ({1} bytes handed out; at most 4 GiB in all, freed "
                "ranges are not reused)",
                Bytes, NextHandle - FirstHandle));
  uint64_t Handle = NextHandle;
  NextHandle += Span;
  Allocations[Handle] = {Bytes, Real, std::move(Symbol)};
  return DevicePtr(Handle);
}

Expected<DevicePtr> GpuDevice::alloc(uint64_t Bytes) {
  CUdeviceptr Real = 0;
  if (CUresult R = Api.cuMemAlloc(&Real, std::max<uint64_t>(Bytes, 1)))
    return fail("cuMemAlloc", formatv("{0} bytes", Bytes), R);
  Expected<DevicePtr> Handle = newHandle(Bytes, Real, "");
  if (!Handle)
    Api.cuMemFree(Real);
  return Handle;
}

Error GpuDevice::free(DevicePtr P) {
  auto It = Allocations.find(P);
  if (It == Allocations.end())
    return createStringError(inconvertibleErrorCode(),
                             formatv("gpu: free({0:x8}): not an address alloc() returned", P));
  if (!It->second.Symbol.empty())
    return createStringError(inconvertibleErrorCode(),
                             formatv("gpu: free({0:x8}): the address of the module's variable "
                                     "'{1}' (findSymbol), which lives as long as the module",
                                     P, It->second.Symbol));
  CUresult R = Api.cuMemFree(It->second.Real);
  Allocations.erase(It);
  if (R)
    return fail("cuMemFree", formatv("{0:x8}", P), R);
  return Error::success();
}

Expected<CUdeviceptr> GpuDevice::resolve(DevicePtr P, uint64_t Bytes, StringRef What) const {
  auto It = Allocations.upper_bound(P);
  if (It != Allocations.begin()) {
    --It;
    uint64_t Offset = P - It->first;
    if (Offset <= It->second.Bytes && Bytes <= It->second.Bytes - Offset)
      return It->second.Real + Offset;
  }
  return createStringError(inconvertibleErrorCode(),
                           formatv("gpu: {0}: {1} bytes at {2:x8} are not inside one "
                                   "allocation of this device",
                                   What, Bytes, P));
}

Error GpuDevice::copyToDevice(DevicePtr Dst, ArrayRef<uint8_t> Src) {
  Expected<CUdeviceptr> Real = resolve(Dst, Src.size(), "copy to device");
  if (!Real)
    return Real.takeError();
  if (CUresult R = Api.cuMemcpyHtoD(*Real, Src.data(), Src.size()))
    return fail("cuMemcpyHtoD", formatv("{0} bytes to {1:x8}", Src.size(), Dst), R);
  return Error::success();
}

Error GpuDevice::copyFromDevice(MutableArrayRef<uint8_t> Dst, DevicePtr Src) {
  Expected<CUdeviceptr> Real = resolve(Src, Dst.size(), "copy from device");
  if (!Real)
    return Real.takeError();
  if (CUresult R = Api.cuMemcpyDtoH(Dst.data(), *Real, Dst.size()))
    return fail("cuMemcpyDtoH", formatv("{0} bytes from {1:x8}", Dst.size(), Src), R);
  return Error::success();
}

Error GpuDevice::loadImage(const KernelImage &) {
  return createStringError(inconvertibleErrorCode(),
                           "device 'gpu' runs PTX, not SIMT kernel images: compile "
                           "with --target ptx and load the text with loadPtx "
                           "(tandem run does this for a .cu source with --device gpu)");
}

Error GpuDevice::loadPtx(StringRef Ptx, StringRef SourceName) {
  std::string Why;
  std::vector<ptx::PtxEntry> NewEntries;
  if (!ptx::parsePtxEntries(Ptx.str(), NewEntries, Why))
    return createStringError(inconvertibleErrorCode(), SourceName + ": " + Why);
  unloadModule();
  std::string ErrorLog(JitLogBytes, '\0'), InfoLog(JitLogBytes, '\0');
  CUjit_option Options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_LOG_VERBOSE};
  // The driver reads sizes and flags from the pointer values themselves.
  void *Values[] = {ErrorLog.data(), reinterpret_cast<void *>(JitLogBytes - 1),
                    InfoLog.data(), reinterpret_cast<void *>(JitLogBytes - 1),
                    reinterpret_cast<void *>(uintptr_t(1))};
  std::string Text = Ptx.str(); // the driver wants it NUL-terminated
  if (CUresult R = Api.cuModuleLoadDataEx(&Module, Text.c_str(), std::size(Options),
                                          Options, Values)) {
    Module = nullptr;
    return createStringError(
        inconvertibleErrorCode(),
        formatModuleLoadError(SourceName, describeResult(Api, R), ErrorLog.c_str(),
                              InfoLog.c_str()));
  }
  Entries = std::move(NewEntries);
  Variables = ptx::parsePtxVariables(Text);
  ModuleName = SourceName.str();
  return Error::success();
}

Expected<SymbolInfo> GpuDevice::findSymbol(StringRef Name) {
  if (!Module)
    return createStringError(inconvertibleErrorCode(),
                             "gpu: symbol '" + Name + "': no PTX module is loaded (call "
                                                      "loadPtx first)");
  auto Known = Symbols.find(Name.str());
  if (Known != Symbols.end())
    return Known->second;
  CUdeviceptr Real = 0;
  size_t Bytes = 0;
  if (CUresult R = Api.cuModuleGetGlobal(&Real, &Bytes, Module, Name.str().c_str())) {
    std::vector<std::string> Names;
    for (const ptx::PtxVariable &V : Variables)
      Names.push_back(V.Name);
    return createStringError(inconvertibleErrorCode(),
                             "gpu: cuModuleGetGlobal failed for symbol '" + Name + "' in '" +
                                 ModuleName + "': " + describeResult(Api, R) + " (variables: " +
                                 (Names.empty() ? "none" : join(Names, ", ")) + ")");
  }
  SymbolInfo Info;
  Info.Name = Name.str();
  Info.Bytes = Bytes;
  Info.Section = SymbolSection::Data;
  for (const ptx::PtxVariable &V : Variables)
    if (V.Name == Name && V.IsConst)
      Info.Section = SymbolSection::Const;
  Expected<DevicePtr> Handle = newHandle(Bytes, Real, Name.str());
  if (!Handle)
    return Handle.takeError();
  Info.Address = *Handle;
  Symbols[Name.str()] = Info;
  return Info;
}

Expected<SymbolInfo> GpuDevice::symbolRange(StringRef Name, uint64_t Offset, uint64_t Bytes,
                                            StringRef What) {
  Expected<SymbolInfo> S = findSymbol(Name);
  if (!S)
    return S.takeError();
  if (Offset > S->Bytes || Bytes > S->Bytes - Offset)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("gpu: {0} symbol '{1}': bytes [{2}, {3}) are outside the variable ({4} bytes)",
                What, Name, Offset, Offset + Bytes, S->Bytes));
  return S;
}

Error GpuDevice::copyToSymbol(StringRef Name, ArrayRef<uint8_t> Src, uint64_t Offset) {
  Expected<SymbolInfo> S = symbolRange(Name, Offset, Src.size(), "copy to");
  if (!S)
    return S.takeError();
  return copyToDevice(S->Address + DevicePtr(Offset), Src);
}

Error GpuDevice::copyFromSymbol(MutableArrayRef<uint8_t> Dst, StringRef Name, uint64_t Offset) {
  Expected<SymbolInfo> S = symbolRange(Name, Offset, Dst.size(), "copy from");
  if (!S)
    return S.takeError();
  return copyFromDevice(Dst, S->Address + DevicePtr(Offset));
}

Expected<CUfunction> GpuDevice::function(const LaunchParams &P) {
  if (!Module)
    return createStringError(inconvertibleErrorCode(),
                             "gpu: launch of " + describeLaunch(P) +
                                 ": no PTX module is loaded (call loadPtx first)");
  auto It = Functions.find(P.Kernel);
  if (It != Functions.end())
    return It->second;
  CUfunction Fn = nullptr;
  if (CUresult R = Api.cuModuleGetFunction(&Fn, Module, P.Kernel.c_str())) {
    std::vector<std::string> Names;
    for (const ptx::PtxEntry &E : Entries)
      Names.push_back(E.Name);
    return createStringError(inconvertibleErrorCode(),
                             "gpu: cuModuleGetFunction failed for " + describeLaunch(P) +
                                 " in '" + ModuleName + "': " + describeResult(Api, R) +
                                 " (kernels: " + (Names.empty() ? "none" : join(Names, ", ")) +
                                 ")");
  }
  Functions[P.Kernel] = Fn;
  return Fn;
}

Expected<std::vector<uint64_t>> GpuDevice::argumentValues(const ptx::PtxEntry &E,
                                                          const LaunchParams &P) const {
  if (P.Args.size() != E.Params.size())
    return createStringError(inconvertibleErrorCode(),
                             formatv("gpu: {0} takes {1} arguments but {2} were given",
                                     describeLaunch(P), E.Params.size(), P.Args.size()));
  std::vector<uint64_t> Values;
  for (size_t I = 0; I < E.Params.size(); ++I) {
    const ptx::PtxParam &Param = E.Params[I];
    uint32_t Bits = P.Args[I].Bits;
    bool Wide = !Param.isArray() && Param.bytes() == 8 && !Param.isFloat();
    if (!Wide) {
      Values.push_back(Bits); // packParams refuses what does not fit
      continue;
    }
    // A 64-bit integer parameter receives a pointer: the handle becomes the
    // real address; 0 stays the null pointer (a kernel may test for it).
    if (Bits == 0) {
      Values.push_back(0);
      continue;
    }
    Expected<CUdeviceptr> Real =
        resolve(Bits, 0, formatv("argument {0} of {1}", I + 1, describeLaunch(P)).str());
    if (!Real)
      return Real.takeError();
    Values.push_back(*Real);
  }
  return Values;
}

Error GpuDevice::launch(const LaunchParams &P) {
  for (StringRef N : GpuCounterNames)
    Last.set(N, 0);
  Expected<CUfunction> Fn = function(P);
  if (!Fn)
    return Fn.takeError();
  const ptx::PtxEntry *E = ptx::findEntry(Entries, P.Kernel);
  if (!E)
    return createStringError(inconvertibleErrorCode(),
                             "gpu: " + describeLaunch(P) + ": the driver has it but its .entry "
                                                           "signature was not found in '" +
                                 ModuleName + "'");
  Expected<std::vector<uint64_t>> Values = argumentValues(*E, P);
  if (!Values)
    return Values.takeError();
  ptx::PackedParams Packed;
  std::string Why;
  if (!ptx::packParams(*E, *Values, Packed, Why))
    return createStringError(inconvertibleErrorCode(), "gpu: " + Why);
  std::string What = describeLaunch(P);
  // Above 48 KiB a kernel must opt in to more dynamic shared memory.
  if (P.DynamicSharedBytes > 48 * 1024)
    if (CUresult R = Api.cuFuncSetAttribute(*Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            int(P.DynamicSharedBytes)))
      return fail("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", What, R);
  if (CUresult R = Api.cuEventRecord(Start, nullptr))
    return fail("cuEventRecord", What, R);
  if (CUresult R = Api.cuLaunchKernel(*Fn, P.Grid.X, P.Grid.Y, P.Grid.Z, P.Block.X, P.Block.Y,
                                      P.Block.Z, P.DynamicSharedBytes, nullptr,
                                      Packed.pointers(), nullptr))
    return fail("cuLaunchKernel", What, R);
  if (CUresult R = Api.cuEventRecord(Stop, nullptr))
    return fail("cuEventRecord", What, R);
  // A fault inside the kernel surfaces here, asynchronously.
  if (CUresult R = Api.cuEventSynchronize(Stop))
    return fail("cuEventSynchronize (the kernel failed while running)", What, R);
  float Ms = 0;
  if (CUresult R = Api.cuEventElapsedTime(&Ms, Start, Stop))
    return fail("cuEventElapsedTime", What, R);
  uint64_t WarpsPerBlock = (P.Block.count() + 31) / 32;
  Last.set("kernel_time_ns", uint64_t(std::llround(double(Ms) * 1e6)));
  Last.set("launches", 1);
  Last.set("blocks", P.Grid.count());
  Last.set("warps_launched", P.Grid.count() * WarpsPerBlock);
  return Error::success();
}

} // namespace

std::string formatModuleLoadError(StringRef SourceName, StringRef Result, StringRef ErrorLog,
                                  StringRef InfoLog) {
  std::string S = ("gpu: cuModuleLoadDataEx failed for the PTX of '" + SourceName +
                   "': " + Result)
                      .str();
  StringRef Err = ErrorLog.rtrim(), Info = InfoLog.rtrim();
  if (Err.empty() && Info.empty())
    return S + " (the JIT wrote no log)";
  if (!Err.empty())
    S += "\nJIT error log:\n" + Err.str();
  if (!Info.empty())
    S += "\nJIT info log:\n" + Info.str();
  return S;
}

Expected<std::unique_ptr<Device>> openGpuDevice(const DeviceOptions &Opts,
                                                const std::string &DriverLibrary) {
  (void)Opts; // the accelerator configuration describes our SIMT machine, not a GPU
  auto D = std::make_unique<GpuDevice>();
  if (Error E = D->open(DriverLibrary))
    return E;
  return std::unique_ptr<Device>(std::move(D));
}

Expected<GpuInfo> gpuInfo(const Device &D) {
  if (const auto *G = dynamic_cast<const GpuDevice *>(&D))
    return G->info();
  return createStringError(inconvertibleErrorCode(),
                           "device '" + D.name() + "' is not a GPU; GPU information "
                                                   "exists only for device 'gpu'");
}

Expected<std::vector<KernelInfo>> ptxKernelTable(StringRef Ptx, StringRef SourceName) {
  std::vector<ptx::PtxEntry> Entries;
  std::string Why;
  if (!ptx::parsePtxEntries(Ptx.str(), Entries, Why))
    return createStringError(inconvertibleErrorCode(), SourceName + ": " + Why);
  std::vector<KernelInfo> Table;
  for (const ptx::PtxEntry &E : Entries) {
    KernelInfo K;
    K.Name = E.Name;
    uint32_t Offset = 0;
    for (const ptx::PtxParam &P : E.Params) {
      KernelParam KP;
      KP.Name = P.Name;
      if (!P.isArray() && P.bytes() == 8 && !P.isFloat())
        KP.Kind = ParamKind::Pointer;
      else if (!P.isArray() && P.bytes() == 4)
        KP.Kind = P.Type == "f32"   ? ParamKind::F32
                  : P.Type == "s32" ? ParamKind::S32
                                    : ParamKind::U32;
      else
        return createStringError(
            inconvertibleErrorCode(),
            formatv("{0}: kernel '{1}' parameter '{2}' is .{3}{4}: the device API "
                    "passes 32-bit scalars and pointers only",
                    SourceName, E.Name, P.Name, P.Type,
                    P.isArray() ? "[" + std::to_string(P.Count) + "]" : ""));
      KP.Offset = Offset;
      KP.Size = 4;
      Offset += 4;
      K.Params.push_back(std::move(KP));
    }
    Table.push_back(std::move(K));
  }
  return Table;
}

} // namespace tandem
