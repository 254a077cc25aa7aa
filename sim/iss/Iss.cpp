//===- Iss.cpp - Launches on the functional simulator ---------------------===//
//
// Validates an image and a launch, lays out blocks and warps, schedules them
// in the documented order (see Iss.h and docs/ISS.md), detects barrier
// deadlocks and turns the executor's raw statistics into named counters
// (docs/Counters.md).
//
//===----------------------------------------------------------------------===//

#include "Iss.h"
#include "IssInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace tandem::iss {

using namespace detail;

namespace detail {

std::string hex8(uint32_t V) {
  std::string S;
  raw_string_ostream(S) << format_hex(V, 10);
  return S;
}

std::string pcHex(uint32_t Pc) {
  std::string S;
  raw_string_ostream(S) << format_hex(Pc, 6);
  return S;
}

Error makeFault(const Launch &L, const Block &B, const Warp &W, int Lane,
                uint32_t Pc, const Twine &Msg) {
  const Program &P = *L.Prog;
  std::string S;
  raw_string_ostream OS(S);
  OS << "kernel '" << P.Kernel->Name << "': block (" << B.Idx.X << ','
     << B.Idx.Y << ',' << B.Idx.Z << ") warp " << W.Id;
  if (Lane >= 0)
    OS << " lane " << Lane;
  OS << " pc " << pcHex(Pc);
  uint32_t Offset = Pc - P.Entry;
  if (Offset < P.CodeBytes) {
    unsigned Index = Offset / 4;
    if (P.Decoded[Index].Op != simt::Opcode::INVALID)
      OS << " (" << simt::formatInst(P.Decoded[Index], Pc) << ')';
    else
      OS << " (word " << hex8(P.Words[Index]) << ')';
  }
  OS << ": " << Msg;
  return createStringError(inconvertibleErrorCode(), S);
}

} // namespace detail

namespace {

/// The names of the warps of \p B waiting at a barrier, and their bar's pc.
std::string describeWaiting(const Block &B) {
  std::string S;
  for (const Warp &W : B.Warps) {
    if (W.Status != WarpStatus::AtBarrier)
      continue;
    if (!S.empty())
      S += ", ";
    S += waitingWarpText(W.Id, W.Pc - 4);
  }
  return S;
}

/// Faults when some warps wait at a barrier that a finished warp can never
/// reach.
Error checkNoFinishedWarpBehindBarrier(Launch &L, Block &B) {
  Warp *FirstWaiting = nullptr;
  std::string Finished;
  for (Warp &W : B.Warps) {
    if (W.Status == WarpStatus::AtBarrier && !FirstWaiting)
      FirstWaiting = &W;
    if (W.Status == WarpStatus::Finished)
      Finished += (Finished.empty() ? "" : ", ") + std::to_string(W.Id);
  }
  if (!FirstWaiting || Finished.empty())
    return Error::success();
  return makeFault(L, B, *FirstWaiting, -1, FirstWaiting->Pc - 4,
                   barrierDeadlockText(describeWaiting(B), Finished));
}

/// Runs every warp of \p B to completion in the documented order.
Error runBlock(Launch &L, Block &B) {
  for (;;) {
    for (Warp &W : B.Warps) {
      if (W.Status != WarpStatus::Ready)
        continue;
      if (Error E = runWarp(L, B, W))
        return E;
      if (W.Status != WarpStatus::Finished)
        continue;
      std::string Waiting = describeWaiting(B);
      if (!Waiting.empty())
        return makeFault(
            L, B, W, -1, W.Pc - 4,
            formatv("barrier deadlock: warp {0} finished while warps "
                    "{1} wait at a barrier; every warp that has not "
                    "finished must reach each bar",
                    W.Id, Waiting));
    }
    // Every unfinished warp now waits at a barrier. If a warp finished
    // before they arrived, the barrier can never complete either: fault here
    // too, so the verdict does not depend on the order warps ran in.
    if (Error E = checkNoFinishedWarpBehindBarrier(L, B))
      return E;
    bool Released = false;
    for (Warp &W : B.Warps)
      if (W.Status == WarpStatus::AtBarrier) {
        W.Status = WarpStatus::Ready;
        Released = true;
      }
    if (!Released)
      return Error::success();
  }
}

unsigned opcodeSlots() {
  return std::max(simt::numOpcodes(), unsigned(simt::Opcode::INVALID)) + 1;
}

std::string unitCounterName(simt::FuncUnit U) {
  return "warp_instructions." + StringRef(simt::getFuncUnitName(U)).lower();
}

/// Named counters from raw statistics; the order is docs/Counters.md's.
void fillCounters(const Stats &S, Counters &Out) {
  uint64_t Warp = 0, Thread = 0, Barriers = 0;
  SmallVector<uint64_t, 8> PerUnit;
  uint64_t LoadBytes[6] = {}, StoreBytes[6] = {}, Atomics[6] = {};
  for (unsigned I = 0, E = simt::numOpcodes(); I < E; ++I) {
    const simt::InstrDesc &D = simt::getDesc(simt::opcodeAt(I));
    uint64_t WI = I < S.WarpInstrs.size() ? S.WarpInstrs[I] : 0;
    uint64_t TI = I < S.ThreadInstrs.size() ? S.ThreadInstrs[I] : 0;
    Warp += WI;
    Thread += TI;
    unsigned Unit = unsigned(simt::getSchedClassDesc(D.Sched).Unit);
    if (PerUnit.size() <= Unit)
      PerUnit.resize(Unit + 1);
    PerUnit[Unit] += WI;
    unsigned Space = unsigned(D.Space);
    if (D.has(simt::IsLoad))
      LoadBytes[Space] += TI * D.AccessBytes;
    if (D.has(simt::IsStore))
      StoreBytes[Space] += TI * D.AccessBytes;
    if (D.has(simt::IsAtomic))
      Atomics[Space] += TI;
    if (D.has(simt::IsBarrier))
      Barriers += WI;
  }
  auto Put = [&](StringRef Name, uint64_t V) {
    Out.Values.emplace_back(Name.str(), V);
  };
  auto SpaceIx = [](simt::MemSpace M) { return unsigned(M); };
  Out.Values.clear();
  Put("warp_instructions", Warp);
  Put("thread_instructions", Thread);
  Put("active_lane_pct_x100", Warp ? Thread * 10000 / (32 * Warp) : 0);
  for (unsigned U = 0; U < PerUnit.size(); ++U)
    Put(unitCounterName(simt::FuncUnit(U)), PerUnit[U]);
  Put("global_load_bytes", LoadBytes[SpaceIx(simt::MemSpace::Global)]);
  Put("global_store_bytes", StoreBytes[SpaceIx(simt::MemSpace::Global)]);
  Put("shared_load_bytes", LoadBytes[SpaceIx(simt::MemSpace::Shared)]);
  Put("shared_store_bytes", StoreBytes[SpaceIx(simt::MemSpace::Shared)]);
  Put("local_load_bytes", LoadBytes[SpaceIx(simt::MemSpace::Local)]);
  Put("local_store_bytes", StoreBytes[SpaceIx(simt::MemSpace::Local)]);
  Put("param_load_bytes", LoadBytes[SpaceIx(simt::MemSpace::Param)]);
  Put("const_load_bytes", LoadBytes[SpaceIx(simt::MemSpace::Const)]);
  Put("atomics_global", Atomics[SpaceIx(simt::MemSpace::Global)]);
  Put("atomics_shared", Atomics[SpaceIx(simt::MemSpace::Shared)]);
  Put("barriers", Barriers);
  Put("branches_taken", S.BranchesTaken);
  Put("divergent_branches", S.DivergentBranches);
  Put("blocks", S.Blocks);
  Put("warps_launched", S.WarpsLaunched);
}

} // namespace

Simulator::Simulator(const DeviceOptions &Opts, DeviceMemory &Mem)
    : Opts(Opts), Mem(Mem) {}

Simulator::~Simulator() = default;

void Simulator::zeroCounters(Counters &Out) { fillCounters(Stats(), Out); }

Error Simulator::loadImage(const KernelImage &Img) {
  if (Error E = checkImage(Img))
    return E;
  Image = std::make_unique<KernelImage>(Img);
  return Error::success();
}

namespace {

std::vector<uint8_t> buildParamBuffer(const KernelInfo &K,
                                      const LaunchParams &P) {
  std::vector<uint8_t> Buf(paramBufferBytes(K), 0);
  for (size_t I = 0; I < K.Params.size(); ++I) {
    support::endian::write32le(Buf.data() + K.Params[I].Offset, P.Args[I].Bits);
  }
  return Buf;
}

/// Registers, local memory and masks for the warps of one block; storage is
/// reused from block to block and cleared each time.
void resetBlock(Launch &L, Block &B, std::vector<uint32_t> &RegFile,
                std::vector<uint8_t> &LocalMem) {
  const Program &P = *L.Prog;
  std::fill(RegFile.begin(), RegFile.end(), 0);
  std::fill(LocalMem.begin(), LocalMem.end(), 0);
  std::fill(B.Shared.begin(), B.Shared.end(), 0);
  uint64_t Threads = L.Params->Block.count();
  size_t LocalPerWarp = size_t(alignTo(L.LocalBytes, 4)) * 32;
  B.Warps.resize(L.NumWarps);
  for (unsigned I = 0; I < L.NumWarps; ++I) {
    Warp &W = B.Warps[I];
    W.Id = I;
    W.Pc = P.Entry;
    uint64_t Lanes = std::min<uint64_t>(32, Threads - uint64_t(I) * 32);
    W.Alive = Lanes == 32 ? 0xffffffffu : (1u << Lanes) - 1;
    W.Exec = W.Alive;
    W.Status = WarpStatus::Ready;
    W.Regs = RegFile.data() + size_t(I) * P.Rows * 32;
    W.Local = LocalMem.data() + I * LocalPerWarp;
  }
}

/// Blocks one after another in linear order: x fastest, then y, then z.
Error runGrid(Launch &L, std::vector<uint32_t> &RegFile,
              std::vector<uint8_t> &LocalMem) {
  const Dim3 &G = L.Params->Grid;
  Block B;
  B.Shared.resize(L.SharedBytes);
  for (uint32_t Z = 0; Z < G.Z; ++Z)
    for (uint32_t Y = 0; Y < G.Y; ++Y)
      for (uint32_t X = 0; X < G.X; ++X) {
        B.Idx = {X, Y, Z};
        B.Linear = (uint64_t(Z) * G.Y + Y) * G.X + X;
        resetBlock(L, B, RegFile, LocalMem);
        ++L.S.Blocks;
        L.S.WarpsLaunched += L.NumWarps;
        if (Error E = runBlock(L, B))
          return E;
      }
  return Error::success();
}

} // namespace

Error Simulator::launch(const LaunchParams &P, Counters &Out) {
  zeroCounters(Out);
  Expected<const KernelInfo *> Found = findLaunchKernel(Image.get(), P.Kernel);
  if (!Found)
    return Found.takeError();
  const KernelInfo *K = *Found;
  if (Error E = checkLaunch(*K, P, Opts))
    return E;

  Program Prog = predecode(*Image, *K, Opts.Trace != nullptr);
  Launch L;
  L.Prog = &Prog;
  L.Image = Image.get();
  L.Params = &P;
  L.Mem = &Mem;
  L.ParamBuffer = buildParamBuffer(*K, P);
  L.StaticShared = K->SharedBytes;
  L.SharedBytes = K->SharedBytes + P.DynamicSharedBytes;
  L.LocalBytes = K->LocalBytes;
  L.NumWarps = unsigned((P.Block.count() + 31) / 32);
  L.StepLimit = Opts.StepLimit;
  L.Trace = Opts.Trace;
  L.S.WarpInstrs.assign(opcodeSlots(), 0);
  L.S.ThreadInstrs.assign(opcodeSlots(), 0);
  // Every warp's local memory: LocalBytes per thread, interleaved by lane.
  std::vector<uint8_t> LocalMem(size_t(L.NumWarps) * alignTo(L.LocalBytes, 4) * 32);
  if (L.Trace) {
    *L.Trace << "# launch kernel=" << K->Name << " grid=" << P.Grid.X << ','
             << P.Grid.Y << ',' << P.Grid.Z << " block=" << P.Block.X << ','
             << P.Block.Y << ',' << P.Block.Z;
    // Per-thread local bytes, and where the rtl's harness puts the launch's
    // local memory (the next allocation of the same allocator, after the
    // same allocations): the model lays out spill slots as the rtl does.
    if (K->LocalBytes) {
      *L.Trace << " local=" << K->LocalBytes;
      if (Expected<uint32_t> Base = Mem.alloc(LocalMem.size())) {
        *L.Trace << " local_base=" << format_hex(*Base, 10);
        consumeError(Mem.free(*Base));
      } else {
        consumeError(Base.takeError());
      }
    }
    *L.Trace << '\n';
  }

  std::vector<uint32_t> RegFile(size_t(L.NumWarps) * Prog.Rows * 32);
  Error Result = runGrid(L, RegFile, LocalMem);
  fillCounters(L.S, Out);
  return Result;
}

} // namespace tandem::iss
