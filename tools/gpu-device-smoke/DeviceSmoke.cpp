//===- DeviceSmoke.cpp - The gpu device of the runtime on a real driver ---===//
//
//   tandem-gpu-device-smoke VADD.ptx
//
// Runs the runtime's own gpu device (runtime/GpuDevice.cpp, what `tandem run
// --device gpu` opens) through the calls a user's launch makes, on whatever
// driver TANDEM_CUDA_LIBRARY or libcuda.so.1 gives: the GPU's information;
// loading VADD.ptx (the suite's vadd(a, b, c, n), as `tandem suite-export`
// writes it); a launch over 2^20 + 37 random elements with the output
// poisoned first, checked element by element; the counters; then three
// errors that must name what failed: PTX the JIT rejects (with its log), an
// unknown kernel, and a pointer outside every allocation.
//
// The lent GPU machine has no LLVM, so `tandem` cannot run there; this
// program links LLVM's Support library and the C++ runtime statically and
// is carried there (docs/GPU.md). Exit status: 0 every check passed, 1 one
// failed (named on stderr), 3 no driver or no GPU, 2 usage.
//
//===----------------------------------------------------------------------===//

#include "CudaDriverApi.h"
#include "GpuDevice.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <random>

using namespace tandem;

namespace {

int Failures = 0;

void check(bool Ok, const llvm::Twine &What) {
  llvm::outs() << (Ok ? "ok    " : "FAIL  ") << What << "\n";
  if (!Ok)
    ++Failures;
}

/// The error's text, or "" when there was none.
std::string errorText(llvm::Error E) { return E ? llvm::toString(std::move(E)) : ""; }

std::vector<uint8_t> bytesOf(const std::vector<uint32_t> &Words) {
  std::vector<uint8_t> B(Words.size() * 4);
  std::memcpy(B.data(), Words.data(), B.size());
  return B;
}

/// vadd over N random elements, the output poisoned first.
void runVadd(Device &D) {
  const uint32_t N = (1u << 20) + 37;
  std::mt19937 Rng(0x5eed);
  std::uniform_real_distribution<float> U(-4, 4);
  std::vector<float> A(N), B(N);
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = U(Rng);
    B[I] = U(Rng);
  }
  auto Alloc = [&](const char *Name) -> DevicePtr {
    llvm::Expected<DevicePtr> P = D.alloc(uint64_t(N) * 4);
    if (!P) {
      check(false, llvm::Twine("alloc ") + Name + ": " + llvm::toString(P.takeError()));
      return 0;
    }
    return *P;
  };
  DevicePtr PA = Alloc("a"), PB = Alloc("b"), PC = Alloc("c");
  std::vector<uint32_t> Poison(N, 0xDEADBEEF);
  auto Raw = [&](const std::vector<float> &V) {
    return llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(V.data()), V.size() * 4);
  };
  std::vector<uint8_t> PoisonBytes = bytesOf(Poison);
  std::string Copy = errorText(D.copyToDevice(PA, Raw(A))) + errorText(D.copyToDevice(PB, Raw(B))) +
                     errorText(D.copyToDevice(PC, PoisonBytes));
  check(Copy.empty(), "copies to the device " + Copy);
  LaunchParams L;
  L.Kernel = "vadd";
  L.Grid.X = (N + 255) / 256;
  L.Block.X = 256;
  L.Args = {KernelArg::ptr(PA), KernelArg::ptr(PB), KernelArg::ptr(PC), KernelArg::u32(N)};
  std::string Launch = errorText(D.launch(L));
  check(Launch.empty(), "launch vadd<<<" + llvm::Twine(L.Grid.X) + ", 256>>> " + Launch);
  std::vector<float> C(N);
  std::string Back = errorText(D.copyFromDevice(
      llvm::MutableArrayRef<uint8_t>(reinterpret_cast<uint8_t *>(C.data()), C.size() * 4), PC));
  check(Back.empty(), "copy from the device " + Back);
  uint32_t Wrong = 0;
  for (uint32_t I = 0; I < N; ++I)
    if (C[I] != A[I] + B[I])
      ++Wrong;
  check(Wrong == 0, llvm::Twine(N) + " sums, " + llvm::Twine(Wrong) + " wrong");
  const Counters &K = D.counters();
  llvm::outs() << "      counters:";
  for (const auto &[Name, Value] : K.Values)
    llvm::outs() << " " << Name << "=" << Value;
  llvm::outs() << "\n";
  check(K.get("launches") == 1 && K.get("kernel_time_ns") > 0 && K.get("blocks") == L.Grid.X,
        "counters: one launch, its blocks, a kernel time");

  // A pointer outside every allocation is refused before the launch.
  L.Args[2] = KernelArg::ptr(PC + uint64_t(N) * 4 + (1u << 20));
  std::string Bad = errorText(D.launch(L));
  check(!Bad.empty(), "a pointer outside every allocation is refused: " + Bad);
  for (DevicePtr P : {PA, PB, PC})
    if (llvm::Error E = D.free(P))
      check(false, "free: " + llvm::toString(std::move(E)));
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    llvm::errs() << "usage: tandem-gpu-device-smoke VADD.ptx\n";
    return 2;
  }
  auto Ptx = llvm::MemoryBuffer::getFile(Argv[1]);
  if (!Ptx) {
    llvm::errs() << "tandem-gpu-device-smoke: cannot read '" << Argv[1]
                 << "': " << Ptx.getError().message() << "\n";
    return 2;
  }
  llvm::Expected<std::unique_ptr<Device>> D =
      openGpuDevice(DeviceOptions{}, cuda::driverLibraryName());
  if (!D) {
    llvm::errs() << "tandem-gpu-device-smoke: " << llvm::toString(D.takeError()) << "\n";
    return 3;
  }
  llvm::Expected<GpuInfo> Info = gpuInfo(**D);
  check(bool(Info), Info ? "gpu: " + Info->Name + ", driver " + llvm::Twine(Info->DriverVersion) +
                               ", sm_" + llvm::Twine(Info->ComputeMajor) +
                               llvm::Twine(Info->ComputeMinor) + ", " +
                               llvm::Twine(Info->Multiprocessors) + " SMs"
                         : "gpu information: " + llvm::toString(Info.takeError()));

  std::string Load = errorText((*D)->loadPtx((*Ptx)->getBuffer(), Argv[1]));
  check(Load.empty(), "load " + llvm::Twine(Argv[1]) + " " + Load);
  if (Load.empty())
    runVadd(**D);

  // An unknown kernel names itself.
  LaunchParams Unknown;
  Unknown.Kernel = "no_such_kernel";
  std::string NoKernel = errorText((*D)->launch(Unknown));
  check(NoKernel.find("no_such_kernel") != std::string::npos, "unknown kernel: " + NoKernel);

  // PTX the JIT rejects (an undeclared register and symbol; the fake driver
  // of the tests rejects FAKE_JIT_ERROR too): the driver's error and its
  // log, naming the source.
  std::string Broken = ".version 7.8\n.target sm_90\n.address_size 64\n"
                       ".visible .entry broken()\n{\n\tmov.u32 %r1, FAKE_JIT_ERROR;\n\tret;\n}\n";
  std::string Jit = errorText((*D)->loadPtx(Broken, "broken.ptx"));
  check(Jit.find("broken.ptx") != std::string::npos &&
            Jit.find("JIT error log") != std::string::npos,
        "rejected PTX: " + Jit);

  llvm::outs() << (Failures ? "FAIL" : "PASS") << ": the runtime's gpu device, " << Failures
               << " failed check(s)\n";
  return Failures ? 1 : 0;
}
