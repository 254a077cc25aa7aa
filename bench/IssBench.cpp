//===- IssBench.cpp - Speed of the functional simulator -------------------===//
//
// How many thread instructions per second `iss` executes, on one core:
//   ComputeBound  samples/asm/fma_loop.s: 4 ffma per loop trip, one load and
//                 one store per thread (almost all register arithmetic);
//   MemoryBound   samples/asm/vadd.s over 4 Mi elements (48 MiB moved per
//                 launch): every fourth or fifth instruction touches memory;
//   Barriers      samples/asm/reduce.s: shared memory, a bar per tree level,
//                 divergent exec masks.
// The goal (issue 2) is at least 100 million thread instructions per second.
// Figures come from the device's own counters (thread_instructions,
// warp_instructions, global bytes), summed over the timed launches, and are
// reported as rates: thread_instr_per_s, warp_instr_per_s, bytes_per_second.
// Measured figures and the command are in docs/NOTES.md.
//
// Input invariants: the sample .s files exist (TANDEM_SAMPLES_DIR); the
// benchmark stops with an error message otherwise, as for any device error.
//
//===----------------------------------------------------------------------===//

#include "Samples.h"

#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/Error.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace tandem;

namespace {

/// One kernel launch set up on a fresh iss device, ready to repeat.
struct Workload {
  std::unique_ptr<Device> Dev;
  LaunchParams Launch;
};

/// \p N uniform fp32 values in [Lo, Hi), as bits.
std::vector<uint32_t> randomFloats(size_t N, float Lo, float Hi,
                                   uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<float> Dist(Lo, Hi);
  std::vector<uint32_t> V(N);
  for (uint32_t &W : V)
    W = llvm::bit_cast<uint32_t>(Dist(Rng));
  return V;
}

llvm::Expected<DevicePtr> upload(Device &D,
                                 const std::vector<uint32_t> &Words) {
  llvm::Expected<DevicePtr> P = D.alloc(Words.size() * 4);
  if (!P)
    return P.takeError();
  if (llvm::Error E = D.write(*P, llvm::ArrayRef<uint32_t>(Words)))
    return E;
  return *P;
}

/// Opens iss with the default configuration and loads \p File's kernels.
llvm::Expected<std::unique_ptr<Device>> openWith(llvm::StringRef File) {
  llvm::Expected<AcceleratorConfig> Config = loadConfig(defaultConfigPath());
  if (!Config)
    return Config.takeError();
  DeviceOptions Opts;
  Opts.Config = *Config;
  Opts.MemoryBytes = 512ull << 20;
  llvm::Expected<std::unique_ptr<Device>> D = openDevice("iss", Opts);
  if (!D)
    return D.takeError();
  llvm::Expected<KernelImage> Img = samples::assembleSampleFile(File);
  if (!Img)
    return Img.takeError();
  if (llvm::Error E = (*D)->loadImage(*Img))
    return E;
  return std::move(*D);
}

uint32_t blocksFor(uint32_t N, uint32_t Block) {
  return (N + Block - 1) / Block;
}

llvm::Expected<Workload> computeBound() {
  const uint32_t N = 8192, Block = 256, Iters = 256;
  llvm::Expected<std::unique_ptr<Device>> D = openWith("fma_loop.s");
  if (!D)
    return D.takeError();
  llvm::Expected<DevicePtr> X = upload(**D, randomFloats(N, -100, 100, 1));
  if (!X)
    return X.takeError();
  llvm::Expected<DevicePtr> Y =
      upload(**D, std::vector<uint32_t>(N, 0xDEADBEEF));
  if (!Y)
    return Y.takeError();
  Workload W{std::move(*D), {}};
  W.Launch.Kernel = "fma_loop";
  W.Launch.Grid = {blocksFor(N, Block), 1, 1};
  W.Launch.Block = {Block, 1, 1};
  W.Launch.Args = {KernelArg::ptr(*X),    KernelArg::ptr(*Y),
                   KernelArg::f32(0.75f), KernelArg::f32(0.25f),
                   KernelArg::u32(N),     KernelArg::u32(Iters)};
  return W;
}

llvm::Expected<Workload> memoryBound() {
  const uint32_t N = 4u << 20, Block = 256;
  llvm::Expected<std::unique_ptr<Device>> D = openWith("vadd.s");
  if (!D)
    return D.takeError();
  llvm::Expected<DevicePtr> A = upload(**D, randomFloats(N, -1, 1, 2));
  if (!A)
    return A.takeError();
  llvm::Expected<DevicePtr> B = upload(**D, randomFloats(N, -1, 1, 3));
  if (!B)
    return B.takeError();
  llvm::Expected<DevicePtr> C =
      upload(**D, std::vector<uint32_t>(N, 0xDEADBEEF));
  if (!C)
    return C.takeError();
  Workload W{std::move(*D), {}};
  W.Launch.Kernel = "vadd";
  W.Launch.Grid = {blocksFor(N, Block), 1, 1};
  W.Launch.Block = {Block, 1, 1};
  W.Launch.Args = {KernelArg::ptr(*A), KernelArg::ptr(*B), KernelArg::ptr(*C),
                   KernelArg::u32(N)};
  return W;
}

llvm::Expected<Workload> barriers() {
  const uint32_t N = 1u << 20, Block = 256, Blocks = 64;
  llvm::Expected<std::unique_ptr<Device>> D = openWith("reduce.s");
  if (!D)
    return D.takeError();
  std::mt19937 Rng(4);
  std::vector<uint32_t> In(N);
  for (uint32_t &V : In)
    V = Rng();
  llvm::Expected<DevicePtr> P = upload(**D, In);
  if (!P)
    return P.takeError();
  llvm::Expected<DevicePtr> Out =
      upload(**D, std::vector<uint32_t>(Blocks, 0xDEADBEEF));
  if (!Out)
    return Out.takeError();
  Workload W{std::move(*D), {}};
  W.Launch.Kernel = "reduce_u32";
  W.Launch.Grid = {Blocks, 1, 1};
  W.Launch.Block = {Block, 1, 1};
  W.Launch.Args = {KernelArg::ptr(*P), KernelArg::ptr(*Out), KernelArg::u32(N)};
  return W;
}

/// Times repeated launches of \p Make's workload; rates from the counters.
void runWorkload(benchmark::State &State, llvm::Expected<Workload> (*Make)()) {
  llvm::Expected<Workload> W = Make();
  if (!W) {
    State.SkipWithError(llvm::toString(W.takeError()).c_str());
    return;
  }
  uint64_t Thread = 0, Warp = 0, Bytes = 0;
  for (auto _ : State) {
    if (llvm::Error E = W->Dev->launch(W->Launch)) {
      State.SkipWithError(llvm::toString(std::move(E)).c_str());
      return;
    }
    const Counters &C = W->Dev->counters();
    Thread += C.get("thread_instructions");
    Warp += C.get("warp_instructions");
    Bytes += C.get("global_load_bytes") + C.get("global_store_bytes") +
             C.get("shared_load_bytes") + C.get("shared_store_bytes");
  }
  if (Thread == 0) {
    State.SkipWithError("the device counted no thread_instructions");
    return;
  }
  State.counters["thread_instr_per_s"] =
      benchmark::Counter(double(Thread), benchmark::Counter::kIsRate);
  State.counters["warp_instr_per_s"] =
      benchmark::Counter(double(Warp), benchmark::Counter::kIsRate);
  State.counters["thread_instr_per_launch"] =
      benchmark::Counter(double(Thread) / double(State.iterations()));
  State.counters["active_lanes_pct"] =
      benchmark::Counter(100.0 * double(Thread) / (32.0 * double(Warp)));
  State.SetBytesProcessed(int64_t(Bytes));
}

void BM_ComputeBound(benchmark::State &State) {
  runWorkload(State, computeBound);
}
void BM_MemoryBound(benchmark::State &State) {
  runWorkload(State, memoryBound);
}
void BM_Barriers(benchmark::State &State) { runWorkload(State, barriers); }

} // namespace

BENCHMARK(BM_ComputeBound)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MemoryBound)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Barriers)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
