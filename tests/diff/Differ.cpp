//===- Differ.cpp - Run one program on two devices and compare ------------===//
//
// See Differ.h. Inputs are a function of the program's seed and launch only,
// so both devices (and every reduction candidate) see the same data.
//
//===----------------------------------------------------------------------===//

#include "Differ.h"

#include "Assembler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <random>

using namespace llvm;

namespace tandem::diff {
namespace {

Error setupError(const Twine &What, Error E) {
  return createStringError(inconvertibleErrorCode(),
                           What + ": " + toString(std::move(E)));
}

/// Initial contents of buffer \p Index: random words (never all zero); the
/// input buffer mixes ordinary floats, small integers and raw bits.
std::vector<uint8_t> initialBuffer(const RandomProgram &P, unsigned Index) {
  std::mt19937_64 R(P.Seed * 1000003u + Index * 7919u + 17);
  std::vector<uint8_t> Bytes(bufferBytes(P, Index));
  for (size_t I = 0; I + 4 <= Bytes.size(); I += 4) {
    uint32_t W = uint32_t(R());
    if (Index == 0 && (R() & 3) == 0) {
      float F = float(int32_t(W % 200001) - 100000) / 1000.0f;
      std::memcpy(&W, &F, 4);
    } else if (Index == 0 && (R() & 3) == 1) {
      W = uint32_t(int32_t(W % 81) - 40);
    }
    std::memcpy(&Bytes[I], &W, 4);
  }
  return Bytes;
}

std::string describeOffset(const RandomProgram &P, unsigned Buffer,
                           uint64_t Off) {
  const char *Name = programParams()[Buffer].Name;
  std::string S = formatv("buffer '{0}' byte {1}", Name, Off).str();
  uint32_t T = P.threadsPerBlock();
  auto thread = [&](uint64_t G) {
    return formatv("block {0} thread {1} (warp {2} lane {3})", G / T, G % T,
                   (G % T) / 32, (G % T) % 32)
        .str();
  };
  switch (Buffer) {
  case 1: {
    uint64_t G = Off / layout::SlotBytes, W = Off % layout::SlotBytes;
    std::string What;
    if (W < 48)
      What = formatv("data register r{0} at exit", 10 + W / 4).str();
    else if (W >= 64 && W < 96)
      What = "a word the program stored to global memory";
    else if (W >= 96 && W < 112)
      What = "its private shared memory at exit";
    else if (W >= 112 && W < 144)
      What = "its local memory at exit";
    else if (W == 144 || (W > 144 && W < 148))
      What = "its shared exchange word at exit";
    else
      What = "an unused slot word (poison)";
    return S + " = " + thread(G) + ", " + What;
  }
  case 2:
    return S + " = private atomic word of " + thread(Off / layout::PrivAtomBytes);
  case 3:
    return S + " = contended global atomic word " + std::to_string(Off / 4);
  case 4:
  case 6: {
    uint64_t Warp = Off / layout::WarpAtomBytes;
    return S + formatv(" = {0} word of block {1} warp {2}",
                       Buffer == 4 ? "global per-warp atomic"
                                   : "shared per-warp atomic",
                       Warp / P.warpsPerBlock(), Warp % P.warpsPerBlock())
                   .str();
  }
  case 5:
    return S + formatv(" = shared counter {0} of block {1}",
                       (Off / 4) % layout::BlockCounterWords,
                       Off / 4 / layout::BlockCounterWords)
                   .str();
  default:
    return S;
  }
}

uint32_t wordAt(const std::vector<uint8_t> &B, uint64_t Off) {
  uint32_t W = 0;
  uint64_t Base = Off & ~uint64_t(3);
  for (unsigned K = 0; K < 4 && Base + K < B.size(); ++K)
    W |= uint32_t(B[Base + K]) << (8 * K);
  return W;
}

/// Block and warp of a trace line "b=B w=W ...", for sorting.
std::pair<uint64_t, uint64_t> blockAndWarp(StringRef Line) {
  uint64_t B = 0, W = 0;
  SmallVector<StringRef, 3> F;
  Line.split(F, ' ', 2);
  if (F.size() >= 2) {
    F[0].consume_front("b=");
    F[1].consume_front("w=");
    F[0].getAsInteger(10, B);
    F[1].getAsInteger(10, W);
  }
  return {B, W};
}

} // namespace

DeviceFactory namedDevice(std::string Name) {
  return [Name](const DeviceOptions &O) { return openDevice(Name, O); };
}

Expected<RunResult> runProgram(const RandomProgram &P, const DeviceFactory &Open,
                               const AcceleratorConfig &Config, bool WithTrace) {
  Expected<KernelImage> Img =
      assemble(printAssembly(P), formatv("seed-{0}.s", P.Seed).str());
  if (!Img)
    return setupError(formatv("generated program of seed {0} does not "
                              "assemble (a generator bug)",
                              P.Seed),
                      Img.takeError());
  RunResult Result;
  raw_string_ostream TraceOS(Result.Trace);
  DeviceOptions Opts;
  Opts.Config = Config;
  Opts.StepLimit = 10'000'000; // generated loops are bounded far below
  Opts.Trace = WithTrace ? &TraceOS : nullptr;
  Opts.MemoryBytes = 64ull << 20;
  Expected<std::unique_ptr<Device>> Dev = Open(Opts);
  if (!Dev)
    return setupError("cannot open the device", Dev.takeError());
  if (Error E = (*Dev)->loadImage(*Img))
    return setupError("loadImage", std::move(E));

  LaunchParams L;
  L.Kernel = "rand";
  L.Grid = P.Grid;
  L.Block = P.Block;
  std::vector<DevicePtr> Ptrs;
  const auto &Params = programParams();
  for (unsigned I = 0; I < Params.size(); ++I) {
    if (!Params[I].IsBuffer) {
      L.Args.push_back(KernelArg::u32(I == 7 ? P.U0 : P.U1));
      continue;
    }
    Expected<DevicePtr> Ptr = (*Dev)->alloc(bufferBytes(P, I));
    if (!Ptr)
      return setupError(formatv("alloc of buffer '{0}'", Params[I].Name),
                        Ptr.takeError());
    if (Error E = (*Dev)->copyToDevice(*Ptr, initialBuffer(P, I)))
      return setupError("copyToDevice", std::move(E));
    Ptrs.push_back(*Ptr);
    L.Args.push_back(KernelArg::ptr(*Ptr));
  }
  if (Error E = (*Dev)->launch(L))
    Result.Fault = toString(std::move(E));
  const Counters &C = (*Dev)->counters();
  Result.WarpInstructions = C.get("warp_instructions");
  Result.ThreadInstructions = C.get("thread_instructions");
  unsigned BufIndex = 0;
  for (unsigned I = 0; I < Params.size(); ++I) {
    if (!Params[I].IsBuffer)
      continue;
    std::vector<uint8_t> Bytes(bufferBytes(P, I));
    if (Error E = (*Dev)->copyFromDevice(Bytes, Ptrs[BufIndex++]))
      return setupError("copyFromDevice", std::move(E));
    Result.Buffers.push_back(std::move(Bytes));
  }
  TraceOS.flush();
  return Result;
}

std::optional<std::string> compareRuns(const RandomProgram &P,
                                       const RunResult &A, const RunResult &B) {
  std::string Out;
  raw_string_ostream OS(Out);
  if (A.Fault || B.Fault) {
    if (A.Fault && B.Fault && *A.Fault == *B.Fault)
      return std::nullopt;
    OS << "  fault: A: " << (A.Fault ? *A.Fault : "none")
       << "\n         B: " << (B.Fault ? *B.Fault : "none") << "\n";
  }
  if (A.WarpInstructions != B.WarpInstructions)
    OS << formatv("  counter warp_instructions: A {0}, B {1}\n",
                  A.WarpInstructions, B.WarpInstructions);
  if (A.ThreadInstructions != B.ThreadInstructions)
    OS << formatv("  counter thread_instructions: A {0}, B {1}\n",
                  A.ThreadInstructions, B.ThreadInstructions);
  unsigned BufIndex = 0;
  for (unsigned I = 0; I < programParams().size(); ++I) {
    if (!programParams()[I].IsBuffer)
      continue;
    const std::vector<uint8_t> &X = A.Buffers[BufIndex], &Y = B.Buffers[BufIndex];
    ++BufIndex;
    uint64_t First = UINT64_MAX, Count = 0;
    for (uint64_t K = 0; K < std::min(X.size(), Y.size()); ++K)
      if (X[K] != Y[K]) {
        First = std::min(First, K);
        ++Count;
      }
    if (Count == 0)
      continue;
    OS << "  memory: " << describeOffset(P, I, First) << ": A "
       << format_hex(wordAt(X, First), 10) << ", B "
       << format_hex(wordAt(Y, First), 10) << " (word at byte "
       << (First & ~uint64_t(3)) << "); " << Count << " byte(s) differ in '"
       << programParams()[I].Name << "'\n";
  }
  if (Out.empty())
    return std::nullopt;
  return Out;
}

std::vector<std::string> sortedTrace(StringRef Trace) {
  std::vector<std::string> Lines;
  SmallVector<StringRef, 0> All;
  Trace.split(All, '\n');
  for (StringRef L : All)
    if (L.starts_with("b="))
      Lines.push_back(L.str());
  std::stable_sort(Lines.begin(), Lines.end(),
                   [](const std::string &X, const std::string &Y) {
                     return blockAndWarp(X) < blockAndWarp(Y);
                   });
  return Lines;
}

std::optional<std::string> firstTraceDivergence(StringRef A, StringRef B) {
  std::vector<std::string> X = sortedTrace(A), Y = sortedTrace(B);
  size_t N = std::max(X.size(), Y.size());
  for (size_t I = 0; I < N; ++I) {
    const std::string *LX = I < X.size() ? &X[I] : nullptr;
    const std::string *LY = I < Y.size() ? &Y[I] : nullptr;
    if (LX && LY && *LX == *LY)
      continue;
    std::string S;
    raw_string_ostream OS(S);
    OS << "  first diverging trace line (traces sorted per block, warp), line "
       << I + 1 << " of " << X.size() << " / " << Y.size() << ":\n";
    if (I > 0 && I - 1 < X.size())
      OS << "    both: " << X[I - 1] << "\n";
    OS << "    A:    " << (LX ? *LX : "<end of trace>") << "\n";
    OS << "    B:    " << (LY ? *LY : "<end of trace>") << "\n";
    return S;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Reduction
//===----------------------------------------------------------------------===//

namespace {

void collectLists(std::vector<Node> &L, std::vector<std::vector<Node> *> &Out) {
  Out.push_back(&L);
  for (Node &N : L) {
    collectLists(N.Body, Out);
    collectLists(N.Else, Out);
  }
}

std::vector<std::vector<Node> *> lists(RandomProgram &P) {
  std::vector<std::vector<Node> *> Out;
  collectLists(P.Body, Out);
  return Out;
}

class Reducer {
public:
  Reducer(RandomProgram P, const std::function<bool(const RandomProgram &)> &F,
          unsigned Budget)
      : Best(std::move(P)), StillFails(F), Budget(Budget) {}

  RandomProgram run() {
    bool Changed = true;
    while (Changed && Budget > 0) {
      Changed = shrinkLaunch();
      Changed |= dropChunks();
      Changed |= hoistRegions();
      Changed |= simplifyLoops();
    }
    return Best;
  }

private:
  bool tryCandidate(const RandomProgram &C) {
    if (Budget == 0)
      return false;
    --Budget;
    if (!StillFails(C))
      return false;
    Best = C;
    return true;
  }

  bool shrinkLaunch() {
    bool Changed = false;
    if (Best.Grid.count() > 1) {
      RandomProgram C = Best;
      C.Grid = {1, 1, 1};
      Changed |= tryCandidate(C);
    }
    static const Dim3 Blocks[] = {{1, 1, 1}, {2, 1, 1}, {32, 1, 1}, {33, 1, 1},
                                  {64, 1, 1}};
    for (const Dim3 &B : Blocks) {
      if (B.count() >= Best.Block.count())
        break;
      RandomProgram C = Best;
      C.Block = B;
      if (tryCandidate(C)) {
        Changed = true;
        break;
      }
    }
    return Changed;
  }

  /// ddmin over every list of the tree: drop chunks of halving size.
  bool dropChunks() {
    bool Changed = false;
    for (size_t Li = 0; Li < lists(Best).size() && Budget > 0; ++Li) {
      size_t Size = lists(Best)[Li]->size();
      for (size_t Chunk = std::max<size_t>(Size / 2, 1); Chunk >= 1; Chunk /= 2) {
        for (size_t Start = 0; Start < lists(Best)[Li]->size() && Budget > 0;) {
          RandomProgram C = Best;
          std::vector<Node> &L = *lists(C)[Li];
          size_t End = std::min(L.size(), Start + Chunk);
          L.erase(L.begin() + Start, L.begin() + End);
          if (tryCandidate(C))
            Changed = true;
          else
            Start += Chunk;
        }
        if (Chunk == 1)
          break;
      }
      if (Li >= lists(Best).size())
        break;
    }
    return Changed;
  }

  /// Replaces a region by its bodies (then followed by else).
  bool hoistRegions() {
    bool Changed = false;
    for (size_t Li = 0; Li < lists(Best).size() && Budget > 0; ++Li) {
      for (size_t I = 0; I < lists(Best)[Li]->size() && Budget > 0; ++I) {
        if ((*lists(Best)[Li])[I].Kind == NodeKind::Leaf)
          continue;
        RandomProgram C = Best;
        std::vector<Node> &L = *lists(C)[Li];
        Node N = std::move(L[I]);
        L.erase(L.begin() + I);
        std::vector<Node> Inner = std::move(N.Body);
        for (Node &E : N.Else)
          Inner.push_back(std::move(E));
        L.insert(L.begin() + I, std::make_move_iterator(Inner.begin()),
                 std::make_move_iterator(Inner.end()));
        Changed |= tryCandidate(C);
      }
    }
    return Changed;
  }

  bool simplifyLoops() {
    bool Changed = false;
    for (size_t Li = 0; Li < lists(Best).size() && Budget > 0; ++Li)
      for (size_t I = 0; I < lists(Best)[Li]->size() && Budget > 0; ++I) {
        const Node &N = (*lists(Best)[Li])[I];
        if (N.Kind != NodeKind::UniLoop || N.Trips == 1)
          continue;
        RandomProgram C = Best;
        (*lists(C)[Li])[I].Trips = 1;
        Changed |= tryCandidate(C);
      }
    return Changed;
  }

  RandomProgram Best;
  const std::function<bool(const RandomProgram &)> &StillFails;
  unsigned Budget;
};

} // namespace

RandomProgram
reduceProgram(const RandomProgram &P,
              const std::function<bool(const RandomProgram &)> &StillFails,
              unsigned Budget) {
  return Reducer(P, StillFails, Budget).run();
}

Expected<DiffOutcome> diffProgram(const RandomProgram &P,
                                  const DiffOptions &Opts) {
  DiffOutcome Out;
  Expected<RunResult> A = runProgram(P, Opts.OpenA, Opts.Config, false);
  if (!A)
    return A.takeError();
  Expected<RunResult> B = runProgram(P, Opts.OpenB, Opts.Config, false);
  if (!B)
    return B.takeError();
  Out.WarpInstructions = A->WarpInstructions;
  Out.ThreadInstructions = A->ThreadInstructions;
  std::string Header = formatv("MISMATCH seed {0}: A = {1}, B = {2}\n", P.Seed,
                               Opts.NameA, Opts.NameB)
                           .str();
  if (A->Fault) {
    Out.Agree = false;
    Out.GeneratorBug = true;
    Out.Report = formatv("GENERATOR BUG seed {0}: the reference device {1} "
                         "faulted on a generated program:\n  {2}\n{3}",
                         P.Seed, Opts.NameA, *A->Fault, printAssembly(P))
                     .str();
    return Out;
  }
  std::optional<std::string> Diff = compareRuns(P, *A, *B);
  if (!Diff)
    return Out;
  Out.Agree = false;
  std::string Report = Header + *Diff;

  auto traceDivergence = [&](const RandomProgram &Q) -> std::string {
    Expected<RunResult> TA = runProgram(Q, Opts.OpenA, Opts.Config, true);
    Expected<RunResult> TB = runProgram(Q, Opts.OpenB, Opts.Config, true);
    if (!TA || !TB) {
      std::string Why = !TA ? toString(TA.takeError()) : "";
      if (!TB)
        Why += toString(TB.takeError());
      else if (TA)
        consumeError(TB.takeError());
      return "  (no traces: " + Why + ")\n";
    }
    if (std::optional<std::string> T = firstTraceDivergence(TA->Trace, TB->Trace))
      return *T;
    return "  traces agree line for line (the difference is in memory or "
           "counters only)\n";
  };
  Report += traceDivergence(P);

  if (Opts.Reduce) {
    auto StillFails = [&](const RandomProgram &Q) {
      Expected<RunResult> QA = runProgram(Q, Opts.OpenA, Opts.Config, false);
      if (!QA) {
        consumeError(QA.takeError());
        return false;
      }
      if (QA->Fault)
        return false; // invalid on the reference: not a valid reduction
      Expected<RunResult> QB = runProgram(Q, Opts.OpenB, Opts.Config, false);
      if (!QB) {
        consumeError(QB.takeError());
        return false;
      }
      return compareRuns(Q, *QA, *QB).has_value();
    };
    RandomProgram R = reduceProgram(P, StillFails, Opts.ReduceBudget);
    Expected<RunResult> RA = runProgram(R, Opts.OpenA, Opts.Config, false);
    Expected<RunResult> RB = runProgram(R, Opts.OpenB, Opts.Config, false);
    if (RA && RB) {
      std::optional<std::string> RDiff = compareRuns(R, *RA, *RB);
      Report += formatv("reduced program: {0} of {1} regions, grid {2},{3} "
                        "block {4},{5}; it still disagrees:\n",
                        countNodes(R.Body), countNodes(P.Body), R.Grid.X,
                        R.Grid.Y, R.Block.X, R.Block.Y)
                    .str();
      Report += RDiff ? *RDiff : "  (no longer?)\n";
      Report += traceDivergence(R);
      Report += "----- reduced program (seed " + std::to_string(P.Seed) +
                ") -----\n" + printAssembly(R) + "----- end -----\n";
    } else {
      if (!RA)
        Report += "  (reduced program did not run: " + toString(RA.takeError()) + ")\n";
      if (!RB)
        Report += "  (reduced program did not run: " + toString(RB.takeError()) + ")\n";
    }
    Out.Reduced = std::move(R);
  }
  Out.Report = std::move(Report);
  return Out;
}

} // namespace tandem::diff
