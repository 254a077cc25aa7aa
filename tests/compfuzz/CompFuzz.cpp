//===- CompFuzz.cpp - Compile a random kernel, run it, compare, reduce ----===//

#include "CompFuzz.h"

#include "compiler/Compiler.h"
#include "tandem/DeviceError.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <bit>
#include <cmath>

using namespace llvm;

namespace tandem::compfuzz {

FuzzOptions FuzzOptions::forSeed(uint64_t Seed, std::string Device) {
  FuzzOptions O;
  O.OptLevel = unsigned(Seed % 3);
  // One seed in four squeezes the allocator (12..16 registers): spill code.
  if ((Seed / 3) % 4 == 1)
    O.NumRegisters = 12 + unsigned((Seed / 12) % 5);
  O.Device = std::move(Device);
  return O;
}

std::string FuzzOptions::describe() const {
  return formatv("-O{0}, {1} registers, {2}", OptLevel, NumRegisters, Device).str();
}

GenFeatures featuresFor(const FuzzOptions &O) {
  GenFeatures F;
  (void)O; // findings 1 and 2 are fixed; nothing known to avoid
  return F;
}

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Pass: return "pass";
  case Verdict::Mismatch: return "MISMATCH";
  case Verdict::DeviceFault: return "DEVICE FAULT";
  case Verdict::CompileError: return "COMPILE ERROR";
  case Verdict::TooLarge: return "SKIPPED (too large for the device)";
  }
  return "?";
}

namespace {

/// Compiles \p Source (written to a temporary .cu file, removed after).
Expected<compiler::CompileResult> compileSource(const std::string &Source,
                                                const FuzzOptions &O) {
  SmallString<128> Path;
  int FD;
  if (std::error_code EC = sys::fs::createTemporaryFile("tandem-compfuzz", "cu", FD, Path))
    return createStringError(EC, "cannot create a temporary .cu file: " + EC.message());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Source;
  }
  compiler::CompileOptions CO;
  CO.OptLevel = O.OptLevel;
  CO.NumRegisters = O.NumRegisters;
  CO.Emit = compiler::EmitKind::Obj;
  // Host and device must do the same float operations: no a*b+c -> fma.
  CO.ExtraClangArgs = {"-ffp-contract=off"};
  Expected<compiler::CompileResult> R = compiler::compileFile(Path, CO);
  sys::fs::remove(Path);
  return R;
}

bool floatWordsEqual(uint32_t A, uint32_t B) {
  auto IsNaN = [](uint32_t X) { return std::isnan(std::bit_cast<float>(X)); };
  return A == B || (IsNaN(A) && IsNaN(B));
}

std::string hexWord(uint32_t W, Ty T) {
  std::string S = formatv("{0:x8}", W).str();
  if (T == Ty::F32)
    S += formatv(" ({0})", std::bit_cast<float>(W)).str();
  else
    S += formatv(" ({0})", int32_t(W)).str();
  return S;
}

/// The first differing word and how many differ, or nullopt.
std::optional<RunOutcome> compareResults(const Kernel &K, const Reference &Want,
                                         const std::vector<uint32_t> &Out,
                                         const std::vector<uint32_t> &Counters) {
  RunOutcome R;
  unsigned WPT = K.wordsPerThread();
  for (size_t I = 0; I < Out.size(); ++I) {
    unsigned W = unsigned(I % WPT), Tid = unsigned(I / WPT);
    Ty T = wordType(K, W);
    bool Same = W < WPT - LocalWords && T == Ty::F32 ? floatWordsEqual(Out[I], Want.Out[I])
                                                     : Out[I] == Want.Out[I];
    if (Same)
      continue;
    if (R.DifferingWords++ == 0)
      R.Detail = formatv("thread {0} (block {1}, threadIdx.x {2}), out word {3} = {4}: got {5}, "
                         "want {6}",
                         Tid, Tid / K.BlockDim, Tid % K.BlockDim, W, wordName(K, W),
                         hexWord(Out[I], T), hexWord(Want.Out[I], T))
                     .str();
  }
  for (unsigned C = 0; C < NumCounters; ++C) {
    if (Counters[C] == Want.Counters[C])
      continue;
    if (R.DifferingWords++ == 0)
      R.Detail = formatv("global counter gc[{0}]: got {1}, want {2}", C,
                         hexWord(Counters[C], Ty::U32), hexWord(Want.Counters[C], Ty::U32))
                     .str();
  }
  if (!R.DifferingWords)
    return std::nullopt;
  R.V = Verdict::Mismatch;
  R.Detail += formatv("; {0} word(s) differ", R.DifferingWords).str();
  return R;
}

Expected<std::vector<uint32_t>> readWords(Device &D, DevicePtr P, size_t N) {
  std::vector<uint32_t> V(N);
  if (Error E = D.read<uint32_t>(V, P))
    return E;
  return V;
}

} // namespace

Expected<RunOutcome> runKernel(const Kernel &K, const FuzzOptions &O, const Sabotage *S) {
  Expected<compiler::CompileResult> C = compileSource(printKernel(K), O);
  if (!C)
    return RunOutcome{Verdict::CompileError, toString(C.takeError()), 0};
  if (!C->Image)
    return RunOutcome{Verdict::CompileError, "compileFile gave no image for --emit obj", 0};
  KernelImage Img = std::move(*C->Image);
  if (S && S->Image)
    S->Image(Img);

  DeviceOptions DO;
  DO.StepLimit = 50'000'000; // generated kernels are short; a hang is a finding
  Expected<std::unique_ptr<Device>> DevOr = openDevice(O.Device, DO);
  if (!DevOr)
    return createStringError("device '" + O.Device + "' does not open: " +
                             toString(DevOr.takeError()));
  Device &D = **DevOr;

  Inputs In = makeInputs(K);
  size_t OutWords = size_t(K.totalThreads()) * K.wordsPerThread();
  std::vector<uint32_t> Poisoned(OutWords, Poison), CounterInit;
  for (unsigned I = 0; I < NumCounters; ++I)
    CounterInit.push_back(counterInit(I));
  auto setup = [&]() -> Expected<LaunchParams> {
    Expected<DevicePtr> PIn = D.alloc(In.In.size() * 4), PFIn = D.alloc(In.FIn.size() * 4),
                        POut = D.alloc(OutWords * 4), PGc = D.alloc(NumCounters * 4);
    for (Expected<DevicePtr> *P : {&PIn, &PFIn, &POut, &PGc})
      if (!*P)
        return P->takeError();
    if (Error E = D.write<int32_t>(*PIn, In.In))
      return E;
    if (Error E = D.write<float>(*PFIn, In.FIn))
      return E;
    if (Error E = D.write<uint32_t>(*POut, Poisoned))
      return E;
    if (Error E = D.write<uint32_t>(*PGc, CounterInit))
      return E;
    LaunchParams LP;
    LP.Kernel = "fuzz";
    LP.Grid.X = K.Blocks;
    LP.Block.X = K.BlockDim;
    LP.Args = {KernelArg::ptr(*PIn), KernelArg::ptr(*PFIn), KernelArg::ptr(*POut),
               KernelArg::ptr(*PGc), KernelArg::s32(K.Param)};
    return LP;
  };
  Expected<LaunchParams> LP = setup();
  if (!LP)
    return LP.takeError();
  if (Error E = D.loadImage(Img)) {
    Verdict V = E.isA<CapacityError>() ? Verdict::TooLarge : Verdict::DeviceFault;
    return RunOutcome{V, "the image does not load: " + toString(std::move(E)), 0};
  }
  if (Error E = D.launch(*LP))
    return RunOutcome{Verdict::DeviceFault, toString(std::move(E)), 0};

  Expected<std::vector<uint32_t>> Out = readWords(D, LP->Args[2].Bits, OutWords);
  if (!Out)
    return Out.takeError();
  Expected<std::vector<uint32_t>> Counters = readWords(D, LP->Args[3].Bits, NumCounters);
  if (!Counters)
    return Counters.takeError();
  if (S && S->Results)
    S->Results(*Out);
  if (std::optional<RunOutcome> Diff = compareResults(K, evaluateKernel(K, In), *Out, *Counters))
    return *Diff;
  return RunOutcome{};
}

// ---- Reduction ---------------------------------------------------------------

namespace {

void collectLists(std::vector<Stmt> &B, std::vector<std::vector<Stmt> *> &Out) {
  Out.push_back(&B);
  for (Stmt &S : B) {
    collectLists(S.Then, Out);
    collectLists(S.Else, Out);
  }
}

void collectExprs(Expr &E, std::vector<Expr *> &Out) {
  Out.push_back(&E);
  for (Expr &K : E.Kids)
    collectExprs(K, Out);
}

void collectExprs(std::vector<Stmt> &B, std::vector<Expr *> &Out) {
  for (Stmt &S : B) {
    collectExprs(S.E, Out);
    collectExprs(S.Cond, Out);
    collectExprs(S.Then, Out);
    collectExprs(S.Else, Out);
  }
}

/// The simpler expressions \p E could become: a zero (or one) of its type,
/// and each operand of the same type.
std::vector<Expr> simplerExprs(const Expr &E) {
  std::vector<Expr> Out;
  if (E.O == Op::Const && (E.Bits == 0 || E.Bits == 1))
    return Out;
  for (uint64_t V : {uint64_t(0), uint64_t(1)}) {
    Expr C;
    C.O = Op::Const;
    C.T = E.T;
    C.Bits = E.T == Ty::F32 ? (V ? 0x3f800000u : 0u) : V;
    Out.push_back(C);
  }
  for (const Expr &K : E.Kids)
    if (K.T == E.T)
      Out.push_back(K);
  return Out;
}

class Reducer {
public:
  Reducer(const Kernel &K, const std::function<bool(const Kernel &)> &StillFails, unsigned Budget)
      : Best(K), StillFails(StillFails), Budget(Budget) {}

  Kernel run() {
    bool Progress = true;
    while (Progress && Budget) {
      Progress = false;
      Progress |= dropStatements();
      Progress |= hoistBranches();
      Progress |= shrinkLaunch();
      if (!Progress)
        Progress |= simplifyExpressions();
    }
    return Best;
  }

private:
  Kernel Best;
  const std::function<bool(const Kernel &)> &StillFails;
  unsigned Budget;

  bool tryCandidate(const Kernel &C) {
    if (!Budget)
      return false;
    --Budget;
    if (!StillFails(C))
      return false;
    Best = C;
    return true;
  }

  /// Chunks of each statement list, halving the chunk size down to one.
  bool dropStatements() {
    bool Any = false;
    for (size_t L = 0;; ++L) {
      std::vector<std::vector<Stmt> *> Lists;
      collectLists(Best.Body, Lists);
      if (L >= Lists.size())
        return Any;
      for (size_t Chunk = std::max<size_t>(1, Lists[L]->size() / 2); Chunk >= 1; Chunk /= 2) {
        for (size_t Start = 0;;) {
          Lists.clear();
          collectLists(Best.Body, Lists);
          if (Start >= Lists[L]->size())
            break;
          Kernel C = Best;
          std::vector<std::vector<Stmt> *> CL;
          collectLists(C.Body, CL);
          std::vector<Stmt> &V = *CL[L];
          V.erase(V.begin() + Start, V.begin() + std::min(V.size(), Start + Chunk));
          if (tryCandidate(C))
            Any = true; // the same Start now names the next chunk
          else
            Start += Chunk;
          if (!Budget)
            return Any;
        }
        if (Chunk == 1)
          break;
      }
    }
  }

  /// if (c) A else B  ->  A, or B.
  bool hoistBranches() {
    bool Any = false;
    for (size_t L = 0;; ++L) {
      std::vector<std::vector<Stmt> *> Lists;
      collectLists(Best.Body, Lists);
      if (L >= Lists.size())
        return Any;
      for (size_t I = 0; I < Lists[L]->size(); ++I) {
        for (bool TakeElse : {false, true}) {
          Lists.clear();
          collectLists(Best.Body, Lists);
          if (I >= Lists[L]->size() || (*Lists[L])[I].K != StmtKind::If)
            break;
          Kernel C = Best;
          std::vector<std::vector<Stmt> *> CL;
          collectLists(C.Body, CL);
          std::vector<Stmt> &V = *CL[L];
          std::vector<Stmt> Body = TakeElse ? V[I].Else : V[I].Then;
          V.erase(V.begin() + I);
          V.insert(V.begin() + I, Body.begin(), Body.end());
          if (tryCandidate(C)) {
            Any = true;
            break;
          }
          if (!Budget)
            return Any;
        }
      }
    }
  }

  bool shrinkLaunch() {
    bool Any = false;
    if (Best.Blocks > 1) {
      Kernel C = Best;
      C.Blocks = 1;
      Any |= tryCandidate(C);
    }
    // Warp operations need whole warps: a block of 32 keeps them valid.
    if (Best.BlockDim > 32) {
      Kernel C = Best;
      C.BlockDim = 32;
      Any |= tryCandidate(C);
    }
    return Any;
  }

  bool simplifyExpressions() {
    bool Any = false;
    for (size_t I = 0; Budget; ++I) {
      std::vector<Expr *> Es;
      collectExprs(Best.Body, Es);
      if (I >= Es.size())
        return Any;
      for (const Expr &Simpler : simplerExprs(*Es[I])) {
        Kernel C = Best;
        std::vector<Expr *> CE;
        collectExprs(C.Body, CE);
        *CE[I] = Simpler;
        if (tryCandidate(C)) {
          Any = true;
          break;
        }
      }
    }
    return Any;
  }
};

} // namespace

Kernel reduceKernel(const Kernel &K, const std::function<bool(const Kernel &)> &StillFails,
                    unsigned Budget) {
  return Reducer(K, StillFails, Budget).run();
}

Expected<CaseResult> fuzzOne(const Kernel &K, const FuzzOptions &O, unsigned ReduceBudget,
                             const Sabotage *S) {
  CaseResult Res;
  Expected<RunOutcome> R = runKernel(K, O, S);
  if (!R)
    return R.takeError();
  Res.Outcome = *R;
  if (R->V == Verdict::Pass || R->V == Verdict::TooLarge)
    return Res;

  std::string Rep;
  raw_string_ostream OS(Rep);
  OS << verdictName(R->V) << " seed " << K.Seed << " (" << O.describe() << "; grid " << K.Blocks
     << ", block " << K.BlockDim << "):\n  " << R->Detail << "\n";
  OS << "----- kernel (seed " << K.Seed << ") -----\n" << printKernel(K) << "----- end -----\n";
  if (ReduceBudget) {
    // Keep the kind of failure: a compile error must stay a compile error.
    Verdict Want = R->V;
    auto StillFails = [&](const Kernel &C) {
      Expected<RunOutcome> CR = runKernel(C, O, S);
      if (!CR) {
        consumeError(CR.takeError());
        return false;
      }
      return CR->V == Want;
    };
    Kernel Red = reduceKernel(K, StillFails, ReduceBudget);
    Expected<RunOutcome> RR = runKernel(Red, O, S);
    if (!RR)
      return RR.takeError();
    OS << formatv("reduced kernel: {0} of {1} statements, {2} of {3} expression nodes, grid {4}, "
                  "block {5}; it still fails:\n  {6}\n",
                  countStmts(Red.Body), countStmts(K.Body), countExprNodes(Red),
                  countExprNodes(K), Red.Blocks, Red.BlockDim, RR->Detail);
    OS << "----- reduced kernel (seed " << K.Seed << ") -----\n"
       << printKernel(Red) << "----- end -----\n";
    Res.Reduced = std::move(Red);
  }
  Res.Report = std::move(Rep);
  return Res;
}

} // namespace tandem::compfuzz
