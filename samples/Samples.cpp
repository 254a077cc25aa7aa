//===- Samples.cpp - Host drivers and CPU references of the samples -------===//
//
// One setup function per sample: it draws the inputs, allocates and fills
// the device buffers, and returns the launch plus a check that reads the
// outputs back and compares them with a host reference. runSample() does the
// rest in the same order for every sample: assemble, load, set up, launch,
// check, free.
//
// Device calls inside a setup or check go through a Session, which keeps
// the first error (later calls become no-ops returning poison) so a setup
// reads as a plain list of buffers; runSample() turns a kept error into the
// sample's llvm::Error. Problem sizes are never multiples of the block size,
// so every bounds check runs with some lanes masked off.
//
//===----------------------------------------------------------------------===//

#include "Samples.h"

#include "Assembler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>

#ifndef TANDEM_SAMPLES_DIR
#error "TANDEM_SAMPLES_DIR must name the folder of the sample .s files"
#endif
#ifndef TANDEM_INSTALL_SAMPLES_DIR
#error "TANDEM_INSTALL_SAMPLES_DIR must name the installed sample folder"
#endif

using namespace tandem;
using namespace tandem::samples;

namespace {

llvm::Error sampleError(llvm::StringRef Sample, const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "sample '" + Sample + "': " + Msg);
}

float asFloat(uint32_t Bits) { return llvm::bit_cast<float>(Bits); }
uint32_t asBits(float F) { return llvm::bit_cast<uint32_t>(F); }
uint32_t ceilDiv(uint32_t A, uint32_t B) { return (A + B - 1) / B; }

//===--- Comparing results ------------------------------------------------===//

/// How a value is shown in a mismatch message.
enum class Show { U32, S32, F32 };

std::string showValue(uint32_t Bits, Show How) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::format_hex(Bits, 10);
  if (How == Show::S32)
    OS << " (" << int32_t(Bits) << ")";
  else if (How == Show::F32)
    OS << " (" << llvm::format("%.9g", asFloat(Bits)) << ")";
  else
    OS << " (" << Bits << ")";
  if (Bits == PoisonWord)
    OS << " [poison: never written]";
  return S;
}

/// Collects mismatches; the message names the first few exactly.
class Verdict {
public:
  void expectBits(llvm::StringRef Buffer, size_t Index, uint32_t Got,
                  uint32_t Want, Show How) {
    if (Got != Want)
      record(Buffer, Index, showValue(Got, How), showValue(Want, How));
  }

  /// |Got - Want| <= Tol, Got read as fp32.
  void expectNear(llvm::StringRef Buffer, size_t Index, uint32_t Got,
                  double Want, double Tol) {
    double G = asFloat(Got);
    if (std::isfinite(G) && std::fabs(G - Want) <= Tol)
      return;
    std::string W;
    llvm::raw_string_ostream(W)
        << llvm::format("%.9g", Want) << " +- " << llvm::format("%.3g", Tol);
    record(Buffer, Index, showValue(Got, Show::F32), W);
  }

  void fail(const llvm::Twine &What) {
    ++Count;
    appendDetail(What.str());
  }

  bool passed() const { return Count == 0; }

  std::string message() const {
    if (Count == 0)
      return "";
    std::string S =
        std::to_string(Count) + (Count == 1 ? " error: " : " errors: ");
    S += Details;
    if (Count > MaxShown)
      S += "; ...";
    return S;
  }

private:
  static constexpr unsigned MaxShown = 3;

  void record(llvm::StringRef Buffer, size_t Index, const std::string &Got,
              const std::string &Want) {
    ++Count;
    appendDetail(
        (Buffer + "[" + llvm::Twine(Index) + "] = " + Got + ", want " + Want)
            .str());
  }

  void appendDetail(const std::string &D) {
    if (Count > MaxShown)
      return;
    if (!Details.empty())
      Details += "; ";
    Details += D;
  }

  uint64_t Count = 0;
  std::string Details;
};

//===--- Device buffers ---------------------------------------------------===//

/// One sample's device buffers and random inputs. Keeps the first device
/// error; after it, every call is a no-op (buffers are 0, reads are poison).
class Session {
  Device &Dev;
  bool CorruptNextRead;
  uint32_t MaxBlock;

public:
  Session(Device &D, const SampleOptions &Opts, llvm::StringRef Sample)
      : Dev(D), CorruptNextRead(Opts.Fault == Sabotage::CorruptOutput),
        MaxBlock(Opts.MaxThreadsPerBlock), Scale(Opts.Scale) {
    uint64_t Mixed = llvm::xxh3_64bits(Sample) ^ Opts.Seed;
    std::seed_seq Seq{uint32_t(Mixed), uint32_t(Mixed >> 32),
                      uint32_t(Opts.Seed), uint32_t(Opts.Seed >> 32)};
    Rng.seed(Seq);
  }

  /// Frees what release() did not (the sample stopped early): its own
  /// errors are moot then, the sample already failed with the first one.
  ~Session() {
    for (auto &[P, Info] : Buffers)
      llvm::consumeError(Dev.free(P));
    llvm::consumeError(std::move(Err));
  }

  std::mt19937 Rng;
  const unsigned Scale;

  /// \p Preferred threads per block, or the largest power of two the
  /// configuration allows if that is fewer.
  uint32_t block(uint32_t Preferred) const {
    return std::min(Preferred, uint32_t(llvm::bit_floor(MaxBlock)));
  }

  /// Read-only input.
  DevicePtr input(llvm::ArrayRef<uint32_t> Words) {
    return upload(Words, /*Guarded=*/false);
  }
  /// Output of \p Words words, poisoned, with poisoned guard words after it.
  DevicePtr output(size_t Words) {
    return upload(std::vector<uint32_t>(Words, PoisonWord), /*Guarded=*/true);
  }
  /// Output that starts with \p Initial (the kernel reads or accumulates into
  /// it), with poisoned guard words after it.
  DevicePtr inout(llvm::ArrayRef<uint32_t> Initial) {
    return upload(Initial, /*Guarded=*/true);
  }

  /// Reads \p Words words of an output called \p Name; a written guard word
  /// is reported to \p V.
  std::vector<uint32_t> read(llvm::StringRef Name, DevicePtr P, size_t Words,
                             Verdict &V) {
    auto It = Buffers.find(P);
    if (!Err && (It == Buffers.end() || It->second.Words != Words))
      keep(
          llvm::createStringError(llvm::inconvertibleErrorCode(),
                                  "harness bug: output '" + Name +
                                      "' read with the wrong pointer or size"));
    if (Err)
      return std::vector<uint32_t>(Words, PoisonWord);
    size_t Total = Words + (It->second.Guarded ? GuardWords : 0);
    std::vector<uint32_t> All(Total, PoisonWord);
    keep(Dev.read(llvm::MutableArrayRef<uint32_t>(All), P));
    for (size_t G = Words; G < Total; ++G)
      if (All[G] != PoisonWord)
        V.fail(Name + " was written past its end: guard word " +
               llvm::Twine(G - Words) + " (" + Name + "[" + llvm::Twine(G) +
               "]) = " + showValue(All[G], Show::U32));
    All.resize(Words);
    if (CorruptNextRead && !All.empty()) {
      // A high bit, so that a tolerance check cannot absorb the change.
      All[Words / 2] ^= 0x40000000u;
      CorruptNextRead = false;
    }
    return All;
  }

  /// Uniform fp32 values in [Lo, Hi), as bits.
  std::vector<uint32_t> randomFloats(size_t N, float Lo, float Hi) {
    std::uniform_real_distribution<float> Dist(Lo, Hi);
    std::vector<uint32_t> V(N);
    for (uint32_t &W : V)
      W = asBits(Dist(Rng));
    return V;
  }
  /// Uniform integers in [Lo, Hi], as bits.
  std::vector<uint32_t> randomInts(size_t N, int64_t Lo, int64_t Hi) {
    std::uniform_int_distribution<int64_t> Dist(Lo, Hi);
    std::vector<uint32_t> V(N);
    for (uint32_t &W : V)
      W = uint32_t(Dist(Rng));
    return V;
  }

  void keep(llvm::Error E) {
    if (E && !Err)
      Err = std::move(E);
    else
      llvm::consumeError(std::move(E));
  }
  llvm::Error takeError() { return std::move(Err); }

  /// Frees every buffer, returning the first failure.
  llvm::Error release() {
    llvm::Error First = llvm::Error::success();
    for (auto &[P, Info] : Buffers)
      if (llvm::Error E = Dev.free(P); E && !First)
        First = std::move(E);
      else
        llvm::consumeError(std::move(E));
    Buffers.clear();
    return First;
  }

private:
  struct BufferInfo {
    size_t Words;
    bool Guarded;
  };

  DevicePtr upload(llvm::ArrayRef<uint32_t> Words, bool Guarded) {
    if (Err)
      return 0;
    std::vector<uint32_t> Data(Words.begin(), Words.end());
    if (Guarded)
      Data.resize(Data.size() + GuardWords, PoisonWord);
    llvm::Expected<DevicePtr> P = Dev.alloc(uint64_t(Data.size()) * 4);
    if (!P) {
      keep(P.takeError());
      return 0;
    }
    Buffers[*P] = {Words.size(), Guarded};
    keep(Dev.write(*P, llvm::ArrayRef<uint32_t>(Data)));
    return *P;
  }

  std::map<DevicePtr, BufferInfo> Buffers;
  llvm::Error Err = llvm::Error::success();
};

//===--- Samples ----------------------------------------------------------===//

/// What a setup returns: the launch, a description of the problem size and
/// the check of the outputs.
struct Plan {
  LaunchParams Launch;
  uint64_t Elements = 0;
  std::string Size;
  std::function<void(Session &, Verdict &)> Check;
};

Plan plan1D(llvm::StringRef Kernel, uint32_t N, uint32_t Blocks,
            uint32_t BlockSize, std::vector<KernelArg> Args) {
  Plan P;
  P.Launch.Kernel = Kernel.str();
  P.Launch.Grid = {Blocks, 1, 1};
  P.Launch.Block = {BlockSize, 1, 1};
  P.Launch.Args = std::move(Args);
  P.Elements = N;
  P.Size = ("n=" + llvm::Twine(N) + ", grid " + llvm::Twine(Blocks) +
            ", block " + llvm::Twine(BlockSize))
               .str();
  return P;
}

KernelArg ptrArg(DevicePtr P) { return KernelArg::ptr(P); }
KernelArg u32Arg(uint32_t V) { return KernelArg::u32(V); }
KernelArg f32Arg(uint32_t Bits) { return KernelArg::u32(Bits); }

// vadd: c = a + b; one fadd per element, compared bit for bit.
Plan setupVadd(Session &S) {
  const uint32_t N = 10000 * S.Scale + 37, Block = S.block(256);
  std::vector<uint32_t> A = S.randomFloats(N, -100, 100);
  std::vector<uint32_t> B = S.randomFloats(N, -100, 100);
  DevicePtr DA = S.input(A), DB = S.input(B), DC = S.output(N);
  Plan P = plan1D("vadd", N, ceilDiv(N, Block), Block,
                  {ptrArg(DA), ptrArg(DB), ptrArg(DC), u32Arg(N)});
  P.Check = [=, A = std::move(A), B = std::move(B)](Session &S, Verdict &V) {
    std::vector<uint32_t> C = S.read("c", DC, N, V);
    for (uint32_t I = 0; I < N; ++I)
      V.expectBits("c", I, C[I], asBits(asFloat(A[I]) + asFloat(B[I])),
                   Show::F32);
  };
  return P;
}

// reduce: per-block u32 partial sums; exact, each partial checked.
Plan setupReduce(Session &S) {
  const uint32_t N = 50000 * S.Scale + 123, Block = S.block(256), Blocks = 23;
  std::vector<uint32_t> In = S.randomInts(N, 0, UINT32_MAX);
  DevicePtr DIn = S.input(In), DOut = S.output(Blocks);
  Plan P = plan1D("reduce_u32", N, Blocks, Block,
                  {ptrArg(DIn), ptrArg(DOut), u32Arg(N)});
  P.Check = [=, In = std::move(In)](Session &S, Verdict &V) {
    std::vector<uint32_t> Want(Blocks, 0);
    const uint32_t Stride = Blocks * Block;
    for (uint32_t J = 0; J < N; ++J)
      Want[(J % Stride) / Block] += In[J];
    std::vector<uint32_t> Got = S.read("out", DOut, Blocks, V);
    for (uint32_t B = 0; B < Blocks; ++B)
      V.expectBits("out", B, Got[B], Want[B], Show::U32);
  };
  return P;
}

uint32_t collatzSteps(uint32_t X, uint32_t Cap) {
  uint32_t Steps = 0;
  for (uint32_t Y = X; Y != 1 && Steps < Cap; ++Steps)
    Y = (Y & 1) ? Y * 3 + 1 : Y >> 1;
  return Steps;
}

// divergent: early exits, if/else, capped Collatz loop; exact.
Plan setupDivergent(Session &S) {
  const uint32_t N = 3000 * S.Scale + 45, Block = S.block(128), Cap = 150;
  std::vector<uint32_t> In = S.randomInts(N, 1, 100000);
  DevicePtr DIn = S.input(In), DHalf = S.output(N), DSteps = S.output(N);
  Plan P = plan1D(
      "divergent", N, ceilDiv(N, Block), Block,
      {ptrArg(DIn), ptrArg(DHalf), ptrArg(DSteps), u32Arg(N), u32Arg(Cap)});
  P.Check = [=, In = std::move(In)](Session &S, Verdict &V) {
    std::vector<uint32_t> Half = S.read("half", DHalf, N, V);
    std::vector<uint32_t> Steps = S.read("steps", DSteps, N, V);
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t X = In[I];
      bool Exits = X % 7 == 0;
      uint32_t WantHalf = Exits ? PoisonWord : (X & 1) ? X * 3 + 1 : X >> 1;
      uint32_t WantSteps = Exits ? 0xffffffffu : collatzSteps(X, Cap);
      V.expectBits("half", I, Half[I], WantHalf, Show::U32);
      V.expectBits("steps", I, Steps[I], WantSteps, Show::U32);
    }
  };
  return P;
}

/// Values whose low bytes cluster (so lanes of a warp collide on bins) and
/// whose high bytes are random.
std::vector<uint32_t> histogramInput(Session &S, uint32_t N) {
  std::normal_distribution<double> Peak(40.0, 6.0);
  std::uniform_int_distribution<uint32_t> Any(0, UINT32_MAX);
  std::bernoulli_distribution Clustered(0.5);
  std::vector<uint32_t> V(N);
  for (uint32_t &W : V) {
    uint32_t High = Any(S.Rng) & ~0xffu;
    uint32_t Low = Clustered(S.Rng)
                       ? uint32_t(std::clamp(Peak(S.Rng), 0.0, 255.0))
                       : Any(S.Rng) & 0xffu;
    W = High | Low;
  }
  return V;
}

// histogram: 256 bins accumulated onto random initial counts; exact.
Plan setupHistogram(Session &S, llvm::StringRef Kernel, uint32_t Blocks) {
  const uint32_t N = 20000 * S.Scale + 77, Block = S.block(256), Bins = 256;
  std::vector<uint32_t> In = histogramInput(S, N);
  std::vector<uint32_t> Init = S.randomInts(Bins, 0, 1000);
  DevicePtr DIn = S.input(In), DBins = S.inout(Init);
  Plan P =
      plan1D(Kernel, N, Blocks, Block, {ptrArg(DIn), ptrArg(DBins), u32Arg(N)});
  P.Check = [=, In = std::move(In), Init = std::move(Init)](Session &S,
                                                            Verdict &V) {
    std::vector<uint32_t> Want = Init;
    for (uint32_t X : In)
      ++Want[X & 0xff];
    std::vector<uint32_t> Got = S.read("bins", DBins, Bins, V);
    for (uint32_t B = 0; B < Bins; ++B)
      V.expectBits("bins", B, Got[B], Want[B], Show::U32);
  };
  return P;
}
Plan setupHistogramGlobal(Session &S) {
  return setupHistogram(S, "histogram_global", 16);
}
Plan setupHistogramShared(Session &S) {
  return setupHistogram(S, "histogram_shared", 12);
}

// shuffle_reduce: per-warp sum (wrapping), max and count of x > 0; exact.
Plan setupShuffleReduce(Session &S) {
  const uint32_t N = 8000 * S.Scale + 50, Block = S.block(128);
  const uint32_t Warps = ceilDiv(N, 32);
  std::vector<uint32_t> In = S.randomInts(N, -(1 << 20), 1 << 20);
  DevicePtr DIn = S.input(In), DSums = S.output(Warps),
            DMaxes = S.output(Warps), DPos = S.output(Warps);
  Plan P = plan1D(
      "warp_reduce", N, ceilDiv(N, Block), Block,
      {ptrArg(DIn), ptrArg(DSums), ptrArg(DMaxes), ptrArg(DPos), u32Arg(N)});
  P.Check = [=, In = std::move(In)](Session &S, Verdict &V) {
    std::vector<uint32_t> Sums = S.read("sums", DSums, Warps, V);
    std::vector<uint32_t> Maxes = S.read("maxes", DMaxes, Warps, V);
    std::vector<uint32_t> Pos = S.read("positives", DPos, Warps, V);
    for (uint32_t W = 0; W < Warps; ++W) {
      uint32_t Sum = 0, Positives = 0;
      int32_t Max = INT32_MIN;
      for (uint32_t L = 0; L < 32; ++L) {
        uint32_t I = W * 32 + L;
        int32_t X = I < N ? int32_t(In[I]) : 0; // lanes past n hold 0
        Sum += uint32_t(X);
        Max = std::max(Max, X);
        Positives += X > 0;
      }
      V.expectBits("sums", W, Sums[W], Sum, Show::S32);
      V.expectBits("maxes", W, Maxes[W], uint32_t(Max), Show::S32);
      V.expectBits("positives", W, Pos[W], Positives, Show::U32);
    }
  };
  return P;
}

// saxpy: y = a*x + y with one ffma; bit for bit against std::fma.
Plan setupSaxpy(Session &S) {
  const uint32_t N = 30000 * S.Scale + 11, Block = S.block(128), Blocks = 24;
  std::vector<uint32_t> X = S.randomFloats(N, -10, 10);
  std::vector<uint32_t> Y = S.randomFloats(N, -10, 10);
  const uint32_t A = S.randomFloats(1, -2, 2)[0];
  DevicePtr DX = S.input(X), DY = S.inout(Y);
  Plan P = plan1D("saxpy", N, Blocks, Block,
                  {ptrArg(DX), ptrArg(DY), f32Arg(A), u32Arg(N)});
  P.Check = [=, X = std::move(X), Y = std::move(Y)](Session &S, Verdict &V) {
    std::vector<uint32_t> Got = S.read("y", DY, N, V);
    for (uint32_t I = 0; I < N; ++I)
      V.expectBits("y", I, Got[I],
                   asBits(std::fma(asFloat(A), asFloat(X[I]), asFloat(Y[I]))),
                   Show::F32);
  };
  return P;
}

// transpose: 2D grid of 16x16 blocks; data moved, so exact.
Plan setupTranspose(Session &S) {
  // The tile is T x T threads: 16 x 16, or smaller where the configuration
  // allows fewer threads per block (the kernel reads T from %ntid.x).
  const uint32_t Rows = 64 * S.Scale + 3, Cols = 93;
  const uint32_t T = S.block(256) >= 256 ? 16 : S.block(256) >= 64 ? 8 : 4;
  std::vector<uint32_t> In = S.randomFloats(size_t(Rows) * Cols, -1e6f, 1e6f);
  DevicePtr DIn = S.input(In), DOut = S.output(size_t(Rows) * Cols);
  Plan P;
  P.Launch.Kernel = "transpose";
  P.Launch.Grid = {ceilDiv(Cols, T), ceilDiv(Rows, T), 1};
  P.Launch.Block = {T, T, 1};
  P.Launch.Args = {ptrArg(DIn), ptrArg(DOut), u32Arg(Rows), u32Arg(Cols)};
  P.Elements = uint64_t(Rows) * Cols;
  P.Size = (llvm::Twine(Rows) + "x" + llvm::Twine(Cols) + ", grid " +
            llvm::Twine(P.Launch.Grid.X) + "x" + llvm::Twine(P.Launch.Grid.Y) +
            ", block " + llvm::Twine(T) + "x" + llvm::Twine(T))
               .str();
  P.Check = [=, In = std::move(In)](Session &S, Verdict &V) {
    std::vector<uint32_t> Out = S.read("out", DOut, size_t(Rows) * Cols, V);
    for (uint32_t R = 0; R < Rows; ++R)
      for (uint32_t C = 0; C < Cols; ++C)
        V.expectBits("out", size_t(C) * Rows + R, Out[size_t(C) * Rows + R],
                     In[size_t(R) * Cols + C], Show::F32);
  };
  return P;
}

// The ISA's division rules (SimtInstrInfo.td: DIV, REM, DIVU, REMU).
uint32_t refDiv(uint32_t A, uint32_t B) {
  if (B == 0)
    return 0xffffffffu;
  if (A == 0x80000000u && B == 0xffffffffu)
    return A;
  return uint32_t(int32_t(A) / int32_t(B));
}
uint32_t refRem(uint32_t A, uint32_t B) {
  if (B == 0)
    return A;
  if (A == 0x80000000u && B == 0xffffffffu)
    return 0;
  return uint32_t(int32_t(A) % int32_t(B));
}
uint32_t refDivu(uint32_t A, uint32_t B) { return B ? A / B : 0xffffffffu; }
uint32_t refRemu(uint32_t A, uint32_t B) { return B ? A % B : A; }

/// Dividends and divisors: full-range values, small values and the corner
/// cases (0, -1, INT_MIN) mixed.
std::vector<uint32_t> divisionOperands(Session &S, uint32_t N, bool Divisor) {
  std::uniform_int_distribution<uint32_t> Any(0, UINT32_MAX);
  std::uniform_int_distribution<int32_t> Small(-20, 20);
  std::uniform_int_distribution<int> Kind(0, 9);
  std::vector<uint32_t> V(N);
  for (uint32_t &W : V) {
    int K = Kind(S.Rng);
    if (K == 0)
      W = Divisor ? 0xffffffffu : 0x80000000u;
    else if (K == 1 && Divisor)
      W = 0;
    else if (K < 5)
      W = uint32_t(Small(S.Rng));
    else
      W = Any(S.Rng);
  }
  return V;
}

// divrem: signed/unsigned quotient and remainder with the corner cases; exact.
Plan setupDivrem(Session &S) {
  const uint32_t N = 4000 * S.Scale + 19, Block = S.block(96);
  std::vector<uint32_t> A = divisionOperands(S, N, false);
  std::vector<uint32_t> B = divisionOperands(S, N, true);
  DevicePtr DA = S.input(A), DB = S.input(B), DQ = S.output(N),
            DR = S.output(N), DQU = S.output(N), DRU = S.output(N);
  Plan P = plan1D("divrem", N, ceilDiv(N, Block), Block,
                  {ptrArg(DA), ptrArg(DB), ptrArg(DQ), ptrArg(DR), ptrArg(DQU),
                   ptrArg(DRU), u32Arg(N)});
  P.Check = [=, A = std::move(A), B = std::move(B)](Session &S, Verdict &V) {
    std::vector<uint32_t> Q = S.read("q", DQ, N, V);
    std::vector<uint32_t> R = S.read("r", DR, N, V);
    std::vector<uint32_t> QU = S.read("qu", DQU, N, V);
    std::vector<uint32_t> RU = S.read("ru", DRU, N, V);
    for (uint32_t I = 0; I < N; ++I) {
      V.expectBits("q", I, Q[I], refDiv(A[I], B[I]), Show::S32);
      V.expectBits("r", I, R[I], refRem(A[I], B[I]), Show::S32);
      V.expectBits("qu", I, QU[I], refDivu(A[I], B[I]), Show::U32);
      V.expectBits("ru", I, RU[I], refRemu(A[I], B[I]), Show::U32);
      // Independent of the reference: q*b + r == a holds under every rule.
      if (Q[I] * B[I] + R[I] != A[I])
        V.fail("q[" + llvm::Twine(I) + "] * b + r[" + llvm::Twine(I) +
               "] != a for a = " + showValue(A[I], Show::S32) +
               ", b = " + showValue(B[I], Show::S32));
    }
  };
  return P;
}

// dot: fp32 dot product accumulated onto a random initial value.
//
// Tolerance: every term reaches result[0] through at most K roundings in its
// thread's ffma chain (K = elements per thread), 5 in the warp's butterfly
// and W + 1 in the chain of atomic adds (W warps, plus the initial value).
// Recursive summation of depth d errs by at most d*u*sum|terms| (u = 2^-24,
// ignoring O(u^2)), so the check allows (K + 5 + W + 2) * 2^-24 *
// (|initial| + sum |x*y|) around the exact sum, computed in double.
Plan setupDot(Session &S) {
  const uint32_t N = 40000 * S.Scale + 99, Block = S.block(256), Blocks = 8;
  std::vector<uint32_t> X = S.randomFloats(N, -1, 1);
  std::vector<uint32_t> Y = S.randomFloats(N, -1, 1);
  std::vector<uint32_t> Init = S.randomFloats(1, -10, 10);
  DevicePtr DX = S.input(X), DY = S.input(Y), DR = S.inout(Init);
  Plan P = plan1D("dot", N, Blocks, Block,
                  {ptrArg(DX), ptrArg(DY), ptrArg(DR), u32Arg(N)});
  P.Check = [=, X = std::move(X), Y = std::move(Y)](Session &S, Verdict &V) {
    double Exact = asFloat(Init[0]), Magnitude = std::fabs(Exact);
    for (uint32_t I = 0; I < N; ++I) {
      double T = double(asFloat(X[I])) * double(asFloat(Y[I]));
      Exact += T;
      Magnitude += std::fabs(T);
    }
    const uint32_t Threads = Blocks * Block;
    const double Depth = ceilDiv(N, Threads) + 5 + Threads / 32 + 2;
    std::vector<uint32_t> Got = S.read("result", DR, 1, V);
    V.expectNear("result", 0, Got[0], Exact, Depth * 0x1p-24 * Magnitude);
  };
  return P;
}

// fma_loop: 4*iters dependent ffma per element; bit for bit against std::fma.
Plan setupFmaLoop(Session &S) {
  const uint32_t N = 4000 * S.Scale + 13, Block = S.block(128), Iters = 64;
  std::vector<uint32_t> X = S.randomFloats(N, -100, 100);
  const uint32_t A = S.randomFloats(1, 0.5f, 0.99f)[0];
  const uint32_t B = S.randomFloats(1, -1, 1)[0];
  DevicePtr DX = S.input(X), DY = S.output(N);
  Plan P = plan1D(
      "fma_loop", N, ceilDiv(N, Block), Block,
      {ptrArg(DX), ptrArg(DY), f32Arg(A), f32Arg(B), u32Arg(N), u32Arg(Iters)});
  P.Size += ", iters " + std::to_string(Iters);
  P.Check = [=, X = std::move(X)](Session &S, Verdict &V) {
    std::vector<uint32_t> Got = S.read("y", DY, N, V);
    for (uint32_t I = 0; I < N; ++I) {
      float Want = asFloat(X[I]);
      for (uint32_t K = 0; K < 4 * Iters; ++K)
        Want = std::fma(Want, asFloat(A), asFloat(B));
      V.expectBits("y", I, Got[I], asBits(Want), Show::F32);
    }
  };
  return P;
}

struct SampleDef {
  SampleInfo Info;
  Plan (*Setup)(Session &);
};

const SampleDef Samples[] = {
    {{"vadd", "vadd.s", "vadd",
      "fp32 vector add, one thread per element, bounds check via exec mask"},
     setupVadd},
    {{"reduce", "reduce.s", "reduce_u32",
      "u32 block sum: grid-stride gather, shared-memory tree, barriers"},
     setupReduce},
    {{"divergent", "divergent.s", "divergent",
      "early exits, if/else and a data-dependent loop through exec masks"},
     setupDivergent},
    {{"histogram", "histogram.s", "histogram_global",
      "256-bin histogram with one atom.global.add per element"},
     setupHistogramGlobal},
    {{"histogram_shared", "histogram.s", "histogram_shared",
      "256-bin histogram privatized in shared memory, merged with atomics"},
     setupHistogramShared},
    {{"shuffle_reduce", "shuffle_reduce.s", "warp_reduce",
      "per-warp sum (shfl.down), max (shfl.xor), positives (vote.ballot)"},
     setupShuffleReduce},
    {{"saxpy", "saxpy.s", "saxpy", "fp32 y = a*x + y with ffma, grid-stride"},
     setupSaxpy},
    {{"transpose", "transpose.s", "transpose",
      "2D grid and blocks, transpose through a padded shared tile"},
     setupTranspose},
    {{"divrem", "divrem.s", "divrem",
      "signed/unsigned div and rem including x/0 and INT_MIN/-1"},
     setupDivrem},
    {{"dot", "dot.s", "dot",
      "fp32 dot product: ffma, shfl.xor butterfly, atom.global.fadd"},
     setupDot},
    {{"fma_loop", "fma_loop.s", "fma_loop",
      "compute-bound chain of ffma in a uniform loop"},
     setupFmaLoop},
};

const SampleDef *findDef(llvm::StringRef Name) {
  for (const SampleDef &D : Samples)
    if (Name == D.Info.Name)
      return &D;
  return nullptr;
}

std::string knownNames() {
  std::string S;
  for (const SampleDef &D : Samples) {
    if (!S.empty())
      S += ", ";
    S += D.Info.Name;
  }
  return S;
}

llvm::Expected<SampleResult> runDef(Device &D, const SampleDef &Def,
                                    const SampleOptions &Opts) {
  llvm::StringRef Name = Def.Info.Name;
  llvm::Expected<KernelImage> Img = assembleSampleFile(Def.Info.File, Opts.Dir);
  if (!Img)
    return sampleError(Name, llvm::toString(Img.takeError()));
  if (llvm::Error E = D.loadImage(*Img))
    return sampleError(Name, llvm::toString(std::move(E)));

  Session S(D, Opts, Name);
  Plan P = Def.Setup(S);
  if (llvm::Error E = S.takeError())
    return sampleError(Name,
                       "setting up buffers: " + llvm::toString(std::move(E)));

  SampleResult R;
  R.Name = Name.str();
  R.Elements = P.Elements;
  R.Grid = P.Launch.Grid;
  R.Block = P.Launch.Block;
  if (Opts.Fault != Sabotage::SkipLaunch) {
    if (Opts.Trace)
      *Opts.Trace << "# sample " << Name << ": kernel " << P.Launch.Kernel
                  << ", " << P.Size << "\n";
    auto Start = std::chrono::steady_clock::now();
    llvm::Error E = D.launch(P.Launch);
    R.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    if (E)
      return sampleError(Name, llvm::toString(std::move(E)));
    R.Counters = D.counters();
  }

  Verdict V;
  P.Check(S, V);
  if (llvm::Error E = S.takeError())
    return sampleError(Name,
                       "reading results: " + llvm::toString(std::move(E)));
  if (llvm::Error E = S.release())
    return sampleError(Name,
                       "freeing buffers: " + llvm::toString(std::move(E)));
  R.Passed = V.passed();
  R.Message = R.Passed ? P.Size : V.message();
  return R;
}

} // namespace

llvm::ArrayRef<SampleInfo> tandem::samples::sampleTable() {
  static const std::vector<SampleInfo> Table = [] {
    std::vector<SampleInfo> T;
    for (const SampleDef &D : Samples)
      T.push_back(D.Info);
    return T;
  }();
  return Table;
}

const SampleInfo *tandem::samples::findSample(llvm::StringRef Name) {
  const SampleDef *D = findDef(Name);
  return D ? &D->Info : nullptr;
}

std::string tandem::samples::defaultSamplesDir() {
  if (const char *Env = std::getenv("TANDEM_SAMPLES_DIR"); Env && *Env)
    return Env;
  // The source tree wins while it exists, so an edited sample runs without
  // reinstalling; an installed tandem uses its own copy.
  if (llvm::sys::fs::is_directory(TANDEM_SAMPLES_DIR))
    return TANDEM_SAMPLES_DIR;
  return TANDEM_INSTALL_SAMPLES_DIR;
}

llvm::Expected<KernelImage>
tandem::samples::assembleSampleFile(llvm::StringRef File, llvm::StringRef Dir) {
  llvm::SmallString<256> Path(Dir.empty() ? llvm::StringRef(defaultSamplesDir())
                                          : Dir);
  llvm::sys::path::append(Path, File);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(
        Buf.getError(),
        "cannot read %s: %s (set TANDEM_SAMPLES_DIR or --samples-dir to the "
        "folder holding the sample .s files)",
        Path.c_str(), Buf.getError().message().c_str());
  return assemble((*Buf)->getBuffer(), Path);
}

llvm::Error tandem::samples::checkOptions(const SampleOptions &Opts) {
  if (Opts.Scale < 1 || Opts.Scale > MaxScale)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "scale %u out of range: use 1..%u",
                                   Opts.Scale, MaxScale);
  if (Opts.MaxThreadsPerBlock < 32)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "at most %u threads per block: the samples need at least one warp "
        "(32 threads) per block",
        Opts.MaxThreadsPerBlock);
  for (const std::string &N : Opts.Only)
    if (!findDef(N))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "no sample named '%s'; the samples are: %s", N.c_str(),
          knownNames().c_str());
  return llvm::Error::success();
}

llvm::Expected<SampleResult>
tandem::samples::runSample(Device &D, llvm::StringRef Name,
                           const SampleOptions &Opts) {
  SampleOptions One = Opts;
  One.Only = {Name.str()};
  if (llvm::Error E = checkOptions(One))
    return E;
  return runDef(D, *findDef(Name), Opts);
}

llvm::Expected<std::vector<SampleResult>>
tandem::samples::runSamples(Device &D, const SampleOptions &Opts) {
  if (llvm::Error E = checkOptions(Opts))
    return E;
  std::vector<SampleResult> Results;
  for (const SampleDef &Def : Samples) {
    if (!Opts.Only.empty() && !llvm::is_contained(Opts.Only, Def.Info.Name))
      continue;
    llvm::Expected<SampleResult> R = runDef(D, Def, Opts);
    if (!R)
      return R.takeError();
    Results.push_back(std::move(*R));
  }
  return Results;
}
