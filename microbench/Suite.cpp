//===- Suite.cpp - Inputs, launches and CPU references of the suite -------===//
//
// One Generate and one Reference function per kernel family, then the
// device part (runProblem) that is the same for every case: allocate,
// poison, launch, read back, compare. Problem sizes are never multiples of
// the block or tile sizes, so every bounds check runs with lanes masked off.
// Sizes are small enough that each case runs in well under a second on rtl
// (about 300k cycles/s); docs/Suite.md lists them with the tolerances.
//
//===----------------------------------------------------------------------===//

#include "Suite.h"
#include "SpmmShape.h"

#include "sparse/Generators.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

#ifndef TANDEM_SUITE_DIR
#error "TANDEM_SUITE_DIR must name the folder of the suite's .cu files"
#endif
#ifndef TANDEM_INSTALL_SUITE_DIR
#error "TANDEM_INSTALL_SUITE_DIR must name the installed suite folder"
#endif

using namespace llvm;

namespace tandem::suite {

namespace {

float asFloat(uint32_t Bits) { return llvm::bit_cast<float>(Bits); }
uint32_t asBits(float F) { return llvm::bit_cast<uint32_t>(F); }
uint32_t ceilDiv(uint32_t A, uint32_t B) { return (A + B - 1) / B; }

Error caseError(StringRef Case, StringRef Dev, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "suite case '" + Case + "' on " + Dev + ": " + Msg);
}

//===--- Random inputs ----------------------------------------------------===//

std::vector<uint32_t> randomFloats(std::mt19937 &Rng, size_t N, float Lo, float Hi) {
  std::uniform_real_distribution<float> Dist(Lo, Hi);
  std::vector<uint32_t> V(N);
  for (uint32_t &W : V)
    W = asBits(Dist(Rng));
  return V;
}

std::vector<uint32_t> randomInts(std::mt19937 &Rng, size_t N, uint32_t Lo, uint32_t Hi) {
  std::uniform_int_distribution<uint32_t> Dist(Lo, Hi);
  std::vector<uint32_t> V(N);
  for (uint32_t &W : V)
    W = Dist(Rng);
  return V;
}

/// \p Preferred threads per block, or the largest power of two allowed.
uint32_t blockSize(const Limits &L, uint32_t Preferred) {
  return std::min(Preferred, uint32_t(llvm::bit_floor(L.MaxThreadsPerBlock)));
}

Launch launch1D(StringRef Kernel, uint32_t Blocks, uint32_t Threads,
                std::vector<Arg> Args, uint32_t DynamicShared = 0) {
  Launch La;
  La.Kernel = Kernel.str();
  La.Grid = {Blocks, 1, 1};
  La.Block = {Threads, 1, 1};
  La.DynamicSharedBytes = DynamicShared;
  La.Args = std::move(Args);
  return La;
}

Check exact(unsigned Buffer, std::vector<uint32_t> Want) {
  Check C;
  C.BufferIndex = Buffer;
  C.Want = std::move(Want);
  return C;
}

Check approx(unsigned Buffer, const std::vector<double> &Want,
             std::vector<double> Magnitude, double RelTol) {
  Check C;
  C.BufferIndex = Buffer;
  for (double W : Want)
    C.Want.push_back(asBits(float(W)));
  C.Magnitude = std::move(Magnitude);
  C.RelTol = RelTol;
  return C;
}

unsigned indexOf(const Problem &P, StringRef Name) {
  for (unsigned I = 0; I < P.Buffers.size(); ++I)
    if (P.Buffers[I].Name == Name)
      return I;
  llvm_unreachable("a reference names a buffer its generator did not add");
}

std::vector<float> floats(const Buffer &B) {
  std::vector<float> F(B.Data.size());
  for (size_t I = 0; I < F.size(); ++I)
    F[I] = asFloat(B.Data[I]);
  return F;
}

//===--- vadd, saxpy ------------------------------------------------------===//

Problem genVadd(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 5000 + 37, B = blockSize(L, 256);
  P.Sizes["n"] = N;
  unsigned A = P.addBuffer("a", Role::In, Elem::F32, randomFloats(Rng, N, -100, 100));
  unsigned Bb = P.addBuffer("b", Role::In, Elem::F32, randomFloats(Rng, N, -100, 100));
  unsigned C = P.addOutput("c", Elem::F32, N);
  P.Launches.push_back(launch1D("vadd", ceilDiv(N, B), B,
                                {Arg::buffer(A), Arg::buffer(Bb), Arg::buffer(C), Arg::s32(N)}));
  return P;
}

// One correctly rounded fadd per element: bit-exact.
void refVadd(Problem &P) {
  std::vector<float> A = floats(P.buffer("a")), B = floats(P.buffer("b"));
  std::vector<uint32_t> Want(A.size());
  for (size_t I = 0; I < A.size(); ++I)
    Want[I] = asBits(A[I] + B[I]);
  P.Checks.push_back(exact(indexOf(P, "c"), std::move(Want)));
}

Problem genSaxpy(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 5000 + 13, B = blockSize(L, 256);
  P.Sizes["n"] = N;
  std::uniform_real_distribution<float> Scale(0.5f, 4.0f);
  float A = Scale(Rng);
  P.Sizes["a_bits"] = asBits(A);
  unsigned X = P.addBuffer("x", Role::In, Elem::F32, randomFloats(Rng, N, -10, 10));
  unsigned Y = P.addBuffer("y", Role::InOut, Elem::F32, randomFloats(Rng, N, -10, 10));
  P.Launches.push_back(launch1D("saxpy", ceilDiv(N, B), B,
                                {Arg::s32(N), Arg::f32(A), Arg::buffer(X), Arg::buffer(Y)}));
  return P;
}

// a*x + y, fused or not (contraction is allowed): within 1e-6 of |a*x| + |y|.
void refSaxpy(Problem &P) {
  float A = asFloat(P.size("a_bits"));
  std::vector<float> X = floats(P.buffer("x")), Y = floats(P.buffer("y"));
  std::vector<double> Want(X.size()), Mag(X.size());
  for (size_t I = 0; I < X.size(); ++I) {
    Want[I] = double(A) * X[I] + Y[I];
    Mag[I] = std::fabs(double(A) * X[I]) + std::fabs(Y[I]);
  }
  P.Checks.push_back(approx(indexOf(P, "y"), Want, std::move(Mag), 1e-6));
}

//===--- block_reduce, warp_reduce ----------------------------------------===//

Problem genBlockReduce(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 20000 + 123, B = blockSize(L, 256), Blocks = 8;
  P.Sizes["n"] = N;
  unsigned In = P.addBuffer("in", Role::In, Elem::F32, randomFloats(Rng, N, -1, 1));
  unsigned Out = P.addOutput("partial", Elem::F32, Blocks);
  P.Launches.push_back(
      launch1D("block_reduce", Blocks, B, {Arg::buffer(In), Arg::buffer(Out), Arg::s32(N)}));
  return P;
}

// Each block's grid-stride slice, summed in double: within 1e-5 of the sum
// of |x| (the device sums ~10 values per thread, then an 8-level tree).
void refBlockReduce(Problem &P) {
  const Launch &La = P.Launches[0];
  const uint32_t Blocks = La.Grid.X, B = La.Block.X, Stride = Blocks * B;
  std::vector<float> In = floats(P.buffer("in"));
  std::vector<double> Want(Blocks, 0), Mag(Blocks, 0);
  for (size_t I = 0; I < In.size(); ++I) {
    uint32_t Block = uint32_t(I % Stride) / B;
    Want[Block] += In[I];
    Mag[Block] += std::fabs(In[I]);
  }
  P.Checks.push_back(approx(indexOf(P, "partial"), Want, std::move(Mag), 1e-5));
}

Problem genWarpReduce(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 20000 + 55, B = blockSize(L, 256), Blocks = 8;
  P.Sizes["n"] = N;
  unsigned In = P.addBuffer("in", Role::In, Elem::U32, randomInts(Rng, N, 0, UINT32_MAX));
  unsigned Total = P.addBuffer("total", Role::InOut, Elem::U32, randomInts(Rng, 1, 1, 1000));
  P.Launches.push_back(
      launch1D("warp_reduce", Blocks, B, {Arg::buffer(In), Arg::buffer(Total), Arg::s32(N)}));
  return P;
}

// Wrapping u32 sum onto the initial total: exact whatever the atomic order.
void refWarpReduce(Problem &P) {
  uint32_t Sum = P.buffer("total").Data[0];
  for (uint32_t V : P.buffer("in").Data)
    Sum += V;
  P.Checks.push_back(exact(indexOf(P, "total"), {Sum}));
}

//===--- histogram --------------------------------------------------------===//

constexpr uint32_t HistogramBins = 256;

Problem genHistogram(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 12000 + 77, B = blockSize(L, 256), Blocks = 8;
  P.Sizes["n"] = N;
  // Half the low bytes cluster around 40, so the lanes of a warp collide on
  // bins; the high bytes are random (the kernel must mask them off).
  std::normal_distribution<double> Peak(40.0, 6.0);
  std::uniform_int_distribution<uint32_t> Any(0, UINT32_MAX);
  std::bernoulli_distribution Clustered(0.5);
  std::vector<uint32_t> In(N);
  for (uint32_t &W : In) {
    uint32_t Low = Clustered(Rng) ? uint32_t(std::clamp(Peak(Rng), 0.0, 255.0))
                                  : Any(Rng) & 0xffu;
    W = (Any(Rng) & ~0xffu) | Low;
  }
  unsigned DIn = P.addBuffer("in", Role::In, Elem::U32, std::move(In));
  unsigned Bins = P.addBuffer("bins", Role::InOut, Elem::U32,
                              randomInts(Rng, HistogramBins, 0, 1000));
  P.Launches.push_back(
      launch1D("histogram", Blocks, B, {Arg::buffer(DIn), Arg::buffer(Bins), Arg::s32(N)}));
  return P;
}

void refHistogram(Problem &P) {
  std::vector<uint32_t> Want = P.buffer("bins").Data;
  for (uint32_t V : P.buffer("in").Data)
    ++Want[V & 0xff];
  P.Checks.push_back(exact(indexOf(P, "bins"), std::move(Want)));
}

//===--- sgemm_tiled, transpose, stencil5 ---------------------------------===//

Problem genGemm(std::mt19937 &Rng, const Limits &) {
  Problem P;
  const uint32_t M = 29, N = 22, K = 21, Tile = 16;
  P.Sizes["M"] = M;
  P.Sizes["N"] = N;
  P.Sizes["K"] = K;
  unsigned A = P.addBuffer("A", Role::In, Elem::F32, randomFloats(Rng, M * K, -1, 1));
  unsigned B = P.addBuffer("B", Role::In, Elem::F32, randomFloats(Rng, K * N, -1, 1));
  unsigned C = P.addOutput("C", Elem::F32, M * N);
  Launch La;
  La.Kernel = "sgemm_tiled";
  La.Grid = {ceilDiv(N, Tile), ceilDiv(M, Tile), 1};
  La.Block = {Tile, Tile, 1};
  La.Args = {Arg::buffer(A), Arg::buffer(B), Arg::buffer(C),
             Arg::s32(M),    Arg::s32(N),    Arg::s32(K)};
  P.Launches.push_back(std::move(La));
  return P;
}

// A K-term dot product per element: within 1e-5 of sum |a_ik * b_kj|
// (K = 21 roundings of at most 2^-24 each, fused or not).
void refGemm(Problem &P) {
  const uint32_t M = P.size("M"), N = P.size("N"), K = P.size("K");
  std::vector<float> A = floats(P.buffer("A")), B = floats(P.buffer("B"));
  std::vector<double> Want(M * N, 0), Mag(M * N, 0);
  for (uint32_t R = 0; R < M; ++R)
    for (uint32_t C = 0; C < N; ++C)
      for (uint32_t I = 0; I < K; ++I) {
        double T = double(A[R * K + I]) * B[I * N + C];
        Want[R * N + C] += T;
        Mag[R * N + C] += std::fabs(T);
      }
  P.Checks.push_back(approx(indexOf(P, "C"), Want, std::move(Mag), 1e-5));
}

Problem genTranspose(std::mt19937 &Rng, const Limits &) {
  Problem P;
  const uint32_t Rows = 70, Cols = 45, Tile = 32, BlockRows = 8;
  P.Sizes["rows"] = Rows;
  P.Sizes["cols"] = Cols;
  unsigned In = P.addBuffer("in", Role::In, Elem::F32, randomFloats(Rng, Rows * Cols, -50, 50));
  unsigned Out = P.addOutput("out", Elem::F32, Rows * Cols);
  Launch La;
  La.Kernel = "transpose";
  La.Grid = {ceilDiv(Cols, Tile), ceilDiv(Rows, Tile), 1};
  La.Block = {Tile, BlockRows, 1};
  La.Args = {Arg::buffer(In), Arg::buffer(Out), Arg::s32(Rows), Arg::s32(Cols)};
  P.Launches.push_back(std::move(La));
  return P;
}

// A copy: bit-exact.
void refTranspose(Problem &P) {
  const uint32_t Rows = P.size("rows"), Cols = P.size("cols");
  const std::vector<uint32_t> &In = P.buffer("in").Data;
  std::vector<uint32_t> Want(Rows * Cols);
  for (uint32_t R = 0; R < Rows; ++R)
    for (uint32_t C = 0; C < Cols; ++C)
      Want[C * Rows + R] = In[R * Cols + C];
  P.Checks.push_back(exact(indexOf(P, "out"), std::move(Want)));
}

constexpr float StencilCenter = 0.5f, StencilEdge = 0.125f;

Problem genStencil(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t W = 67, H = 43, BX = 32, BY = blockSize(L, 256) / BX;
  P.Sizes["width"] = W;
  P.Sizes["height"] = H;
  unsigned In = P.addBuffer("in", Role::In, Elem::F32, randomFloats(Rng, W * H, -10, 10));
  unsigned Out = P.addOutput("out", Elem::F32, W * H);
  Launch La;
  La.Kernel = "stencil5";
  La.Grid = {ceilDiv(W, BX), ceilDiv(H, BY), 1};
  La.Block = {BX, BY, 1};
  La.Args = {Arg::buffer(In),         Arg::buffer(Out),        Arg::s32(W),
             Arg::s32(H), Arg::f32(StencilCenter), Arg::f32(StencilEdge)};
  P.Launches.push_back(std::move(La));
  return P;
}

// Interior: ~6 roundings, within 2e-6 of |c*x| + |e|*sum|neighbours|.
// Boundary: a copy, so magnitude 0 makes it bit-exact.
void refStencil(Problem &P) {
  const uint32_t W = P.size("width"), H = P.size("height");
  std::vector<float> In = floats(P.buffer("in"));
  std::vector<double> Want(W * H), Mag(W * H, 0);
  for (uint32_t Y = 0; Y < H; ++Y)
    for (uint32_t X = 0; X < W; ++X) {
      uint32_t I = Y * W + X;
      if (X == 0 || Y == 0 || X == W - 1 || Y == H - 1) {
        Want[I] = In[I];
        continue;
      }
      double Nb[4] = {In[I - W], In[I + W], In[I - 1], In[I + 1]};
      Want[I] = double(StencilCenter) * In[I] + double(StencilEdge) * (Nb[0] + Nb[1] + Nb[2] + Nb[3]);
      Mag[I] = std::fabs(StencilCenter * double(In[I]));
      for (double V : Nb)
        Mag[I] += StencilEdge * std::fabs(V);
    }
  P.Checks.push_back(approx(indexOf(P, "out"), Want, std::move(Mag), 2e-6));
}

//===--- const_conv -------------------------------------------------------===//

// The tables kernels/const_conv.cu initialises its __constant__ variables
// with (the reference must repeat them; the kernel cannot take them as
// arguments, that is the point of the case). The host overwrites the
// coefficients and the gain and bias with drawn values before the launch
// (Problem::SymbolWrites, cudaMemcpyToSymbol), so the case also shows that
// host writes to __constant__ memory reach the kernel; the tap offsets and
// lane phases keep their initializers.
constexpr int ConvTapOffset[9] = {-4, -3, -2, -1, 0, 1, 2, 3, 4};
constexpr unsigned ConvLanePhase[8] = {3, 1, 4, 1, 5, 9, 2, 6};

Problem genConstConv(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 3000 + 29, B = blockSize(L, 128);
  P.Sizes["n"] = N;
  P.Sizes["block"] = B;
  // Away from the initializers' values, so a write that did not arrive
  // fails the check: coefficients in [-1, -0.25] or [0.25, 1], gain in
  // [1.5, 2], bias in [2, 3].
  std::vector<uint32_t> Coef = randomFloats(Rng, 9, 0.25f, 1.0f);
  for (size_t I = 0; I < Coef.size(); I += 2)
    Coef[I] ^= 0x80000000u;
  P.SymbolWrites.push_back({"conv_coef", Coef});
  std::vector<uint32_t> GainBias = randomFloats(Rng, 1, 1.5f, 2.0f);
  GainBias.push_back(randomFloats(Rng, 1, 2.0f, 3.0f)[0]);
  P.SymbolWrites.push_back({"conv_params", GainBias});
  unsigned In = P.addBuffer("in", Role::In, Elem::F32, randomFloats(Rng, N, -10, 10));
  unsigned Out = P.addOutput("out", Elem::F32, N);
  P.Launches.push_back(
      launch1D("const_conv", ceilDiv(N, B), B, {Arg::s32(N), Arg::buffer(In), Arg::buffer(Out)}));
  return P;
}

// 9 products summed in order, then gain, bias and a per-lane coefficient:
// ~12 roundings (or fewer with contraction), within 2e-6 of the sum of the
// terms' magnitudes.
void refConstConv(Problem &P) {
  const int N = static_cast<int>(P.size("n"));
  const uint32_t B = P.size("block");
  std::vector<float> In = floats(P.buffer("in"));
  std::vector<float> ConvCoef(9);
  float ConvGain = 0, ConvBias = 0;
  for (const SymbolWrite &W : P.SymbolWrites) {
    if (W.Name == "conv_coef")
      for (size_t I = 0; I < 9; ++I)
        ConvCoef[I] = asFloat(W.Words[I]);
    if (W.Name == "conv_params") {
      ConvGain = asFloat(W.Words[0]);
      ConvBias = asFloat(W.Words[1]);
    }
  }
  std::vector<double> Want(N), Mag(N);
  for (int I = 0; I < N; ++I) {
    double Acc = 0, AccMag = 0;
    for (int T = 0; T < 9; ++T) {
      int J = std::clamp(I + ConvTapOffset[T], 0, N - 1);
      Acc += double(ConvCoef[T]) * In[J];
      AccMag += std::fabs(double(ConvCoef[T]) * In[J]);
    }
    uint32_t Lane = uint32_t(I) % B; // threadIdx.x
    double Extra = ConvCoef[(Lane + ConvLanePhase[Lane % 8]) % 9];
    Want[I] = Acc * ConvGain + ConvBias + Extra;
    Mag[I] = AccMag * ConvGain + std::fabs(ConvBias) + std::fabs(Extra);
  }
  P.Checks.push_back(approx(indexOf(P, "out"), Want, std::move(Mag), 2e-6));
}

//===--- scan -------------------------------------------------------------===//

Problem genScan(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t B = blockSize(L, 256), N = 7 * B + B / 3, Blocks = ceilDiv(N, B);
  P.Sizes["n"] = N;
  unsigned In = P.addBuffer("in", Role::In, Elem::U32, randomInts(Rng, N, 0, UINT32_MAX));
  unsigned Out = P.addOutput("out", Elem::U32, N);
  unsigned Sums = P.addOutput("blockSums", Elem::U32, Blocks);
  unsigned Offsets = P.addOutput("blockOffsets", Elem::U32, Blocks);
  // Blocks <= B: the block totals fit one block's scan.
  P.Launches.push_back(launch1D("scan_blocks", Blocks, B,
                                {Arg::buffer(In), Arg::buffer(Out), Arg::buffer(Sums), Arg::s32(N)}));
  P.Launches.push_back(launch1D("scan_blocks", 1, B,
                                {Arg::buffer(Sums), Arg::buffer(Offsets), Arg::null(),
                                 Arg::s32(Blocks)}));
  P.Launches.push_back(
      launch1D("add_offsets", Blocks, B, {Arg::buffer(Out), Arg::buffer(Offsets), Arg::s32(N)}));
  return P;
}

// Wrapping u32 inclusive scan; the intermediate buffers are checked too.
void refScan(Problem &P) {
  const uint32_t N = P.size("n"), B = P.Launches[0].Block.X, Blocks = ceilDiv(N, B);
  const std::vector<uint32_t> &In = P.buffer("in").Data;
  std::vector<uint32_t> Out(N), Sums(Blocks, 0), Offsets(Blocks);
  uint32_t Running = 0;
  for (uint32_t I = 0; I < N; ++I) {
    Running += In[I];
    Out[I] = Running;
    Sums[I / B] += In[I];
  }
  uint32_t Acc = 0;
  for (uint32_t Bl = 0; Bl < Blocks; ++Bl)
    Offsets[Bl] = Acc += Sums[Bl];
  P.Checks.push_back(exact(indexOf(P, "out"), std::move(Out)));
  P.Checks.push_back(exact(indexOf(P, "blockSums"), std::move(Sums)));
  P.Checks.push_back(exact(indexOf(P, "blockOffsets"), std::move(Offsets)));
}

//===--- spmv -------------------------------------------------------------===//

/// A random CSR matrix: row lengths 0..40 (some empty rows, some longer than
/// a warp), random columns, values in [-1, 1); and a vector x.
Problem genSpmvCommon(std::mt19937 &Rng) {
  Problem P;
  const uint32_t Rows = 300, Cols = 256;
  P.Sizes["rows"] = Rows;
  P.Sizes["cols"] = Cols;
  std::uniform_int_distribution<uint32_t> Len(0, 40), Col(0, Cols - 1);
  std::vector<uint32_t> RowPtr(Rows + 1, 0), ColIdx;
  for (uint32_t R = 0; R < Rows; ++R) {
    uint32_t L = Len(Rng);
    for (uint32_t J = 0; J < L; ++J)
      ColIdx.push_back(Col(Rng));
    RowPtr[R + 1] = RowPtr[R] + L;
  }
  P.Sizes["nnz"] = RowPtr[Rows];
  P.addBuffer("rowPtr", Role::In, Elem::S32, std::move(RowPtr));
  P.addBuffer("colIdx", Role::In, Elem::S32, std::move(ColIdx));
  P.addBuffer("vals", Role::In, Elem::F32, randomFloats(Rng, P.size("nnz"), -1, 1));
  P.addBuffer("x", Role::In, Elem::F32, randomFloats(Rng, Cols, -1, 1));
  P.addOutput("y", Elem::F32, Rows);
  return P;
}

std::vector<Arg> spmvArgs(const Problem &P) {
  return {Arg::s32(P.size("rows")), Arg::buffer(indexOf(P, "rowPtr")),
          Arg::buffer(indexOf(P, "colIdx")), Arg::buffer(indexOf(P, "vals")),
          Arg::buffer(indexOf(P, "x")), Arg::buffer(indexOf(P, "y"))};
}

Problem genSpmvScalar(std::mt19937 &Rng, const Limits &L) {
  Problem P = genSpmvCommon(Rng);
  const uint32_t B = blockSize(L, 128);
  P.Launches.push_back(launch1D("spmv_scalar", ceilDiv(P.size("rows"), B), B, spmvArgs(P)));
  return P;
}

Problem genSpmvVector(std::mt19937 &Rng, const Limits &L) {
  Problem P = genSpmvCommon(Rng);
  const uint32_t B = blockSize(L, 128); // a multiple of 32: one warp per row
  P.Launches.push_back(
      launch1D("spmv_vector", ceilDiv(P.size("rows") * 32, B), B, spmvArgs(P)));
  return P;
}

// At most 40 terms per row in either order: within 1e-5 of sum |a_ij * x_j|.
// An empty row must be written as exactly 0 (magnitude 0).
void refSpmv(Problem &P) {
  const uint32_t Rows = P.size("rows");
  const std::vector<uint32_t> &RowPtr = P.buffer("rowPtr").Data;
  const std::vector<uint32_t> &ColIdx = P.buffer("colIdx").Data;
  std::vector<float> Vals = floats(P.buffer("vals")), X = floats(P.buffer("x"));
  std::vector<double> Want(Rows, 0), Mag(Rows, 0);
  for (uint32_t R = 0; R < Rows; ++R)
    for (uint32_t J = RowPtr[R]; J < RowPtr[R + 1]; ++J) {
      double T = double(Vals[J]) * X[ColIdx[J]];
      Want[R] += T;
      Mag[R] += std::fabs(T);
    }
  P.Checks.push_back(approx(indexOf(P, "y"), Want, std::move(Mag), 1e-5));
}

//===--- spmv_balanced, spmm ----------------------------------------------===//

/// A seed for the sparse generators, drawn from the case's generator.
uint64_t sparseSeed(std::mt19937 &Rng) {
  uint64_t Hi = Rng();
  return Hi << 32 | Rng();
}

/// Adds A as the buffers rowPtr, colIdx (s32) and vals (f32), and its sizes.
void addCsr(Problem &P, const sparse::CsrMatrix &A) {
  P.Sizes["rows"] = A.Rows;
  P.Sizes["cols"] = A.Cols;
  P.Sizes["nnz"] = uint32_t(A.nnz());
  std::vector<uint32_t> Vals(A.Values.size());
  for (size_t I = 0; I < Vals.size(); ++I)
    Vals[I] = asBits(A.Values[I]);
  P.addBuffer("rowPtr", Role::In, Elem::S32, A.RowPtr);
  P.addBuffer("colIdx", Role::In, Elem::S32, A.ColIdx);
  P.addBuffer("vals", Role::In, Elem::F32, std::move(Vals));
}

/// A power-law CSR matrix (lengths 0..300, P(k) ~ (k+1)^-1.2: many short
/// and empty rows, a few rows several slices long; ~13k nonzeros), merged by
/// 256 threads in 2 blocks (~53 items each); about 280k cycles on rtl.
Problem genSpmvBalanced(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t Rows = 500, Cols = 400;
  addCsr(P, cantFail(sparse::generatePowerLaw(sparseSeed(Rng), Rows, Cols, 1.2, 0, 300)));
  unsigned X = P.addBuffer("x", Role::In, Elem::F32, randomFloats(Rng, Cols, -1, 1));
  unsigned Y = P.addOutput("y", Elem::F32, Rows);
  const uint32_t B = blockSize(L, 128), Threads = 2 * B;
  const uint32_t Items = ceilDiv(Rows + P.size("nnz"), Threads);
  P.Sizes["threads"] = Threads;
  P.Sizes["items_per_thread"] = Items;
  unsigned CarryRow = P.addOutput("carryRow", Elem::S32, Threads);
  unsigned CarryVal = P.addOutput("carryVal", Elem::F32, Threads);
  P.Launches.push_back(launch1D(
      "spmv_merge", Threads / B, B,
      {Arg::s32(Rows), Arg::s32(P.size("nnz")), Arg::buffer(indexOf(P, "rowPtr")),
       Arg::buffer(indexOf(P, "colIdx")), Arg::buffer(indexOf(P, "vals")), Arg::buffer(X),
       Arg::buffer(Y), Arg::s32(Items), Arg::buffer(CarryRow), Arg::buffer(CarryVal)}));
  P.Launches.push_back(launch1D("spmv_merge_fixup", ceilDiv(Threads, B), B,
                                {Arg::s32(Rows), Arg::s32(Threads), Arg::buffer(CarryRow),
                                 Arg::buffer(CarryVal), Arg::buffer(Y)}));
  return P;
}

// y as refSpmv (a row's terms are summed in slices, then the carries in
// slice order: at most ~53 terms per slice plus a few carries): 1e-5 of
// sum |a x|, empty rows exactly 0. The carries are replayed on the host by
// the same merge (row ends before nonzeros at equal positions): carryRow
// exact, carryVal within 1e-5 of its slice's sum |a x|.
void refSpmvBalanced(Problem &P) {
  refSpmv(P);
  const uint32_t Rows = P.size("rows"), Nnz = P.size("nnz");
  const uint32_t Threads = P.size("threads"), Items = P.size("items_per_thread");
  const std::vector<uint32_t> &RowPtr = P.buffer("rowPtr").Data;
  const std::vector<uint32_t> &ColIdx = P.buffer("colIdx").Data;
  std::vector<float> Vals = floats(P.buffer("vals")), X = floats(P.buffer("x"));
  std::vector<uint32_t> CarryRow(Threads);
  std::vector<double> CarryVal(Threads, 0), CarryMag(Threads, 0);
  uint32_t Row = 0, Nz = 0; // the merge, walked once across all slices
  for (uint32_t T = 0; T < Threads; ++T) {
    const uint64_t End = std::min<uint64_t>(uint64_t(T + 1) * Items, Rows + Nnz);
    while (Row + Nz < End) {
      if (Nz < RowPtr[Row + 1]) {
        double Term = double(Vals[Nz]) * X[ColIdx[Nz]];
        CarryVal[T] += Term;
        CarryMag[T] += std::fabs(Term);
        ++Nz;
      } else {
        CarryVal[T] = CarryMag[T] = 0; // the row ended inside the slice
        ++Row;
      }
    }
    CarryRow[T] = Row;
  }
  P.Checks.push_back(exact(indexOf(P, "carryRow"), std::move(CarryRow)));
  P.Checks.push_back(approx(indexOf(P, "carryVal"), CarryVal, std::move(CarryMag), 1e-5));
}

/// C = A * B for \p A (rows x k) and a random dense B (k x N in [-1, 1)):
/// a thread per element of C in spmm::BlockColumns x spmm::BlockRows blocks,
/// rows on x (SpmmShape.h); no reference.
Problem spmmInputs(const sparse::CsrMatrix &A, uint32_t N, std::mt19937 &Rng) {
  Problem P;
  addCsr(P, A);
  P.Sizes["n"] = N;
  unsigned B = P.addBuffer("B", Role::In, Elem::F32, randomFloats(Rng, size_t(A.Cols) * N, -1, 1));
  unsigned C = P.addOutput("C", Elem::F32, size_t(A.Rows) * N);
  Launch La;
  La.Kernel = "spmm_csr";
  La.Grid = {uint32_t(spmm::gridX(A.Rows)), uint32_t(spmm::gridY(N)), 1};
  La.Block = {spmm::BlockColumns, spmm::BlockRows, 1};
  La.Args = {Arg::s32(A.Rows), Arg::s32(N), Arg::buffer(indexOf(P, "rowPtr")),
             Arg::buffer(indexOf(P, "colIdx")), Arg::buffer(indexOf(P, "vals")), Arg::buffer(B),
             Arg::buffer(C)};
  P.Launches.push_back(std::move(La));
  return P;
}

/// A 75 x 120 power-law CSR matrix (0..24 nonzeros per row, some rows
/// empty) times B 120 x 45 (the second block column mostly masked off).
Problem genSpmm(std::mt19937 &Rng, const Limits &) {
  return spmmInputs(cantFail(sparse::generatePowerLaw(sparseSeed(Rng), 75, 120, 0.5, 0, 24)), 45,
                    Rng);
}

// Every row's terms in order: within 1e-5 of sum |a_ik * b_kj|; the rows
// of empty A rows exactly 0.
void refSpmm(Problem &P) {
  const uint32_t Rows = P.size("rows"), N = P.size("n");
  const std::vector<uint32_t> &RowPtr = P.buffer("rowPtr").Data;
  const std::vector<uint32_t> &ColIdx = P.buffer("colIdx").Data;
  std::vector<float> Vals = floats(P.buffer("vals")), B = floats(P.buffer("B"));
  std::vector<double> Want(size_t(Rows) * N, 0), Mag(size_t(Rows) * N, 0);
  for (uint32_t R = 0; R < Rows; ++R)
    for (uint32_t J = RowPtr[R]; J < RowPtr[R + 1]; ++J)
      for (uint32_t Col = 0; Col < N; ++Col) {
        double T = double(Vals[J]) * B[size_t(ColIdx[J]) * N + Col];
        Want[size_t(R) * N + Col] += T;
        Mag[size_t(R) * N + Col] += std::fabs(T);
      }
  // Float sums of up to L terms: relative error ~L * 2^-24 of sum |terms|.
  uint32_t Longest = 0;
  for (uint32_t R = 0; R < Rows; ++R)
    Longest = std::max(Longest, RowPtr[R + 1] - RowPtr[R]);
  P.Checks.push_back(
      approx(indexOf(P, "C"), Want, std::move(Mag), std::max(1e-5, 4.0 * (Longest + 1) * 6e-8)));
}

} // namespace

Problem spmmProblem(const sparse::CsrMatrix &A, uint32_t N, std::mt19937 &Rng) {
  Problem P = spmmInputs(A, N, Rng);
  refSpmm(P);
  return P;
}

namespace {

//===--- divergent --------------------------------------------------------===//

Problem genDivergent(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 3000 + 45, B = blockSize(L, 128);
  P.Sizes["n"] = N;
  unsigned In = P.addBuffer("in", Role::In, Elem::U32, randomInts(Rng, N, 1, 1000000));
  unsigned Out = P.addOutput("out", Elem::U32, N);
  P.Launches.push_back(
      launch1D("divergent", ceilDiv(N, B), B, {Arg::buffer(In), Arg::buffer(Out), Arg::s32(N)}));
  return P;
}

/// divergent.cu's per-element function, line for line.
uint32_t divergentElement(uint32_t X) {
  if (X % 11 == 0)
    return 0xA5A5A5A5u;
  uint32_t Acc;
  if (X & 1) {
    if (X % 3 == 0)
      Acc = X * 5;
    else if (X > 500000)
      Acc = ~X + 77;
    else
      Acc = X ^ 0x1234u;
  } else if ((X & 6) == 2) {
    Acc = X >> 2;
  } else {
    Acc = 1;
    uint32_t Trips = (X >> 3) & 31;
    for (uint32_t K = 0; K < Trips; ++K) {
      if ((Acc ^ K) & 4)
        Acc += K * X;
      else
        Acc -= K;
      if ((Acc & 0xff) == 0x42)
        continue;
      Acc = (Acc << 1) | (Acc >> 31);
      if (Acc > 0xF0000000u)
        break;
    }
  }
  uint32_t Y = (X & 0xffff) | 1, Steps = 0;
  while (Y != 1 && Steps < 64) {
    Y = (Y & 1) ? 3 * Y + 1 : Y >> 1;
    ++Steps;
  }
  return Acc + Steps;
}

void refDivergent(Problem &P) {
  std::vector<uint32_t> Want;
  for (uint32_t X : P.buffer("in").Data)
    Want.push_back(divergentElement(X));
  P.Checks.push_back(exact(indexOf(P, "out"), std::move(Want)));
}

//===--- many_live (spill) ------------------------------------------------===//

constexpr unsigned SpillAccumulators = 40;

Problem genSpill(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 200 + 17, Iters = 4, B = blockSize(L, 128);
  P.Sizes["n"] = N;
  P.Sizes["iters"] = Iters;
  unsigned In = P.addBuffer("in", Role::In, Elem::U32, randomInts(Rng, N + Iters, 0, UINT32_MAX));
  unsigned Out = P.addOutput("out", Elem::U32, N);
  P.Launches.push_back(launch1D("many_live", ceilDiv(N, B), B,
                                {Arg::buffer(In), Arg::buffer(Out), Arg::s32(N), Arg::s32(Iters)}));
  return P;
}

/// spill.cu's per-thread function (its macros unrolled as a loop).
uint32_t manyLiveElement(const std::vector<uint32_t> &In, uint32_t I, uint32_t Iters) {
  uint32_t A[SpillAccumulators];
  for (uint32_t K = 0; K < SpillAccumulators; ++K)
    A[K] = In[I] + K * 0x9E3779B9u;
  for (uint32_t T = 0; T < Iters; ++T) {
    uint32_t X = In[I + T];
    for (uint32_t K = 0; K < SpillAccumulators; ++K)
      A[K] = (A[K] ^ (X >> (K & 7))) * 0x01000193u + K;
  }
  uint32_t H = 0;
  for (uint32_t K = 0; K < SpillAccumulators; ++K)
    H = (H ^ A[K]) * 31u + (H >> 7);
  return H;
}

void refSpill(Problem &P) {
  const uint32_t N = P.size("n"), Iters = P.size("iters");
  const std::vector<uint32_t> &In = P.buffer("in").Data;
  std::vector<uint32_t> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = manyLiveElement(In, I, Iters);
  P.Checks.push_back(exact(indexOf(P, "out"), std::move(Want)));
}

//===--- hash64 -----------------------------------------------------------===//

Problem genHash64(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 2000 + 33, B = blockSize(L, 256);
  P.Sizes["n"] = N;
  std::vector<uint32_t> Seed = randomInts(Rng, 2, 1, UINT32_MAX);
  P.Sizes["seed_lo"] = Seed[0];
  P.Sizes["seed_hi"] = Seed[1];
  unsigned Keys = P.addBuffer("keys", Role::In, Elem::U32, randomInts(Rng, 2 * N, 0, UINT32_MAX));
  unsigned Out = P.addOutput("out", Elem::U32, 2 * N);
  P.Launches.push_back(launch1D("hash64", ceilDiv(N, B), B,
                                {Arg::buffer(Keys), Arg::buffer(Out), Arg::s32(N),
                                 Arg::u32(Seed[0]), Arg::u32(Seed[1])}));
  return P;
}

uint64_t splitmix64(uint64_t Z) {
  Z += 0x9E3779B97F4A7C15ull;
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
  return Z ^ (Z >> 31);
}

uint64_t fmix64(uint64_t K) {
  K ^= K >> 33;
  K *= 0xFF51AFD7ED558CCDull;
  K ^= K >> 33;
  K *= 0xC4CEB9FE1A85EC53ull;
  K ^= K >> 33;
  return K;
}

void refHash64(Problem &P) {
  const uint32_t N = P.size("n");
  const uint64_t Seed = (uint64_t(P.size("seed_hi")) << 32) | P.size("seed_lo");
  const std::vector<uint32_t> &Keys = P.buffer("keys").Data;
  std::vector<uint32_t> Want(2 * N);
  for (uint32_t I = 0; I < N; ++I) {
    uint64_t Key = (uint64_t(Keys[2 * I + 1]) << 32) | Keys[2 * I];
    uint64_t H = fmix64(splitmix64(Key ^ Seed) + (Key << 7) - (Seed >> 3));
    if (H < Seed)
      H = ~H;
    Want[2 * I] = uint32_t(H);
    Want[2 * I + 1] = uint32_t(H >> 32);
  }
  P.Checks.push_back(exact(indexOf(P, "out"), std::move(Want)));
}

//===--- softmax_rows -----------------------------------------------------===//

Problem genSoftmax(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t Rows = 12, Cols = 300, B = blockSize(L, 128);
  P.Sizes["rows"] = Rows;
  P.Sizes["cols"] = Cols;
  unsigned In = P.addBuffer("in", Role::In, Elem::F32, randomFloats(Rng, Rows * Cols, -8, 8));
  unsigned Out = P.addOutput("out", Elem::F32, Rows * Cols);
  P.Launches.push_back(launch1D("softmax_rows", Rows, B,
                                {Arg::buffer(In), Arg::buffer(Out), Arg::s32(Cols)},
                                /*DynamicShared=*/B * 4));
  return P;
}

// expf within 2 ulp, a 300-term positive sum in another order, one fdiv:
// within 1e-5 of the value itself.
void refSoftmax(Problem &P) {
  const uint32_t Rows = P.size("rows"), Cols = P.size("cols");
  std::vector<float> In = floats(P.buffer("in"));
  std::vector<double> Want(Rows * Cols);
  for (uint32_t R = 0; R < Rows; ++R) {
    const float *Row = &In[R * Cols];
    float Max = *std::max_element(Row, Row + Cols);
    double Sum = 0;
    for (uint32_t C = 0; C < Cols; ++C)
      Sum += std::exp(double(Row[C] - Max)); // the device subtracts in fp32 too
    for (uint32_t C = 0; C < Cols; ++C)
      Want[R * Cols + C] = std::exp(double(Row[C] - Max)) / Sum;
  }
  P.Checks.push_back(approx(indexOf(P, "out"), Want, {}, 1e-5));
}

//===--- math_functions ---------------------------------------------------===//

/// The slices of math_functions's output, in the kernel's order.
constexpr unsigned MathFunctionCount = 10;

Problem genMathFunctions(std::mt19937 &Rng, const Limits &L) {
  Problem P;
  const uint32_t N = 2048 + 29, B = blockSize(L, 128);
  P.Sizes["n"] = N;
  unsigned X = P.addBuffer("x", Role::In, Elem::F32, randomFloats(Rng, N, -80, 80));
  unsigned Pos = P.addBuffer("p", Role::In, Elem::F32, randomFloats(Rng, N, 1e-3f, 80));
  unsigned Y = P.addBuffer("y", Role::In, Elem::F32, randomFloats(Rng, N, -4, 4));
  unsigned Out = P.addOutput("out", Elem::F32, MathFunctionCount * N);
  P.Launches.push_back(
      launch1D("math_functions", ceilDiv(N, B), B,
               {Arg::buffer(X), Arg::buffer(Pos), Arg::buffer(Y), Arg::buffer(Out), Arg::s32(N)}));
  return P;
}

// The double-precision C library, rounded to float: the correctly rounded
// result but for rare double roundings. The library promises 2 ulp, at
// most 2^-22 of the value; the tolerance adds a little for the reference.
void refMathFunctions(Problem &P) {
  const uint32_t N = P.size("n");
  std::vector<float> X = floats(P.buffer("x")), Pos = floats(P.buffer("p")),
                     Y = floats(P.buffer("y"));
  std::vector<double> Want(MathFunctionCount * N);
  for (uint32_t I = 0; I < N; ++I) {
    double A = X[I], B = Pos[I];
    const double Results[MathFunctionCount] = {
        std::exp(A), std::exp2(A), std::log(B),        std::log2(B), std::sin(A),
        std::cos(A), std::tanh(A), 1.0 / std::sqrt(B), std::sqrt(B), std::pow(B, double(Y[I]))};
    for (unsigned F = 0; F < MathFunctionCount; ++F)
      Want[F * N + I] = Results[F];
  }
  P.Checks.push_back(approx(indexOf(P, "out"), Want, {}, 2.5e-7));
}

//===--- Comparing results ------------------------------------------------===//

std::string showValue(uint32_t Bits, Elem Type) {
  std::string S;
  raw_string_ostream OS(S);
  OS << format_hex(Bits, 10);
  if (Type == Elem::S32)
    OS << " (" << int32_t(Bits) << ")";
  else if (Type == Elem::F32)
    OS << " (" << format("%.9g", asFloat(Bits)) << ")";
  else
    OS << " (" << Bits << ")";
  if (Bits == PoisonWord)
    OS << " [poison: never written]";
  return S;
}

/// Collects mismatches; the message names the first few exactly.
class Verdict {
public:
  void fail(const Twine &What) {
    if (++Count <= MaxShown)
      Details += (Details.empty() ? "" : "; ") + What.str();
  }
  uint64_t count() const { return Count; }
  std::string message() const {
    if (Count == 0)
      return "";
    return std::to_string(Count) + (Count == 1 ? " error: " : " errors: ") + Details +
           (Count > MaxShown ? "; ..." : "");
  }

private:
  static constexpr unsigned MaxShown = 3;
  uint64_t Count = 0;
  std::string Details;
};

/// Compares \p Got (the buffer's words, guard words cut off) with \p C.
void compare(const Buffer &B, const Check &C, ArrayRef<uint32_t> Got, Verdict &V,
             double &MaxRelError) {
  for (size_t I = 0; I < C.Want.size(); ++I) {
    uint32_t G = Got[I], W = C.Want[I];
    if (C.RelTol == 0) {
      if (G != W)
        V.fail(formatv("{0}[{1}] = {2}, want {3}", B.Name, I, showValue(G, B.Type),
                       showValue(W, B.Type)));
      continue;
    }
    double Mag = C.Magnitude.empty() ? std::fabs(double(asFloat(W))) : C.Magnitude[I];
    double Err = std::fabs(double(asFloat(G)) - double(asFloat(W)));
    bool Ok = std::isfinite(asFloat(G)) && Err <= C.RelTol * Mag;
    if (Ok && Mag > 0)
      MaxRelError = std::max(MaxRelError, Err / Mag);
    if (!Ok)
      V.fail(formatv("{0}[{1}] = {2}, want {3} within {4:e} of {5:e}", B.Name, I,
                     showValue(G, B.Type), format("%.9g", asFloat(W)), C.RelTol, Mag));
  }
}

/// The summed counters of several launches.
Counters sumCounters(ArrayRef<Counters> PerLaunch) {
  Counters Total;
  for (const Counters &C : PerLaunch)
    for (const auto &[Name, V] : C.Values)
      Total.add(Name, V);
  uint64_t Warp = Total.get("warp_instructions"), Thread = Total.get("thread_instructions");
  if (Total.has("active_lane_pct_x100"))
    Total.set("active_lane_pct_x100", Warp ? Thread * 10000 / (32 * Warp) : 0);
  return Total;
}

/// The device buffers of one run; frees them whatever happens.
class DeviceBuffers {
public:
  explicit DeviceBuffers(Device &D) : Dev(D) {}
  ~DeviceBuffers() {
    for (DevicePtr P : Ptrs)
      consumeError(Dev.free(P));
  }
  Expected<DevicePtr> upload(const Buffer &B) {
    std::vector<uint32_t> Words = B.Data;
    if (B.R != Role::In)
      Words.resize(Words.size() + GuardWords, PoisonWord);
    Expected<DevicePtr> P = Dev.alloc(std::max<uint64_t>(4, Words.size() * 4));
    if (!P)
      return P.takeError();
    Ptrs.push_back(*P);
    if (Error E = Dev.write(*P, ArrayRef<uint32_t>(Words)))
      return E;
    return *P;
  }
  DevicePtr operator[](unsigned I) const { return Ptrs[I]; }

private:
  Device &Dev;
  std::vector<DevicePtr> Ptrs;
};

} // namespace

std::optional<std::string> doesNotFit(const Problem &P, const Limits &L) {
  for (const Launch &La : P.Launches)
    if (La.Block.count() > L.MaxThreadsPerBlock)
      return std::string(formatv("{0} needs {1} threads per block; the configuration allows {2}",
                                 La.Kernel, La.Block.count(), L.MaxThreadsPerBlock));
  return std::nullopt;
}

namespace {

/// A harness bug (a reference that leaves an output unchecked) or a launch
/// the configuration cannot hold, before anything touches the device.
Error validate(const Problem &P, StringRef Case, StringRef Dev, const Limits &L) {
  for (unsigned I = 0; I < P.Buffers.size(); ++I)
    if (P.Buffers[I].R != Role::In &&
        llvm::none_of(P.Checks, [&](const Check &C) { return C.BufferIndex == I; }))
      return caseError(Case, Dev, "harness bug: output '" + P.Buffers[I].Name +
                                      "' has no reference check");
  for (const Check &C : P.Checks)
    if (C.Want.size() != P.Buffers[C.BufferIndex].Data.size() ||
        (!C.Magnitude.empty() && C.Magnitude.size() != C.Want.size()))
      return caseError(Case, Dev, "harness bug: the reference of '" +
                                      P.Buffers[C.BufferIndex].Name +
                                      "' does not match its size");
  if (std::optional<std::string> Why = doesNotFit(P, L))
    return caseError(Case, Dev, *Why + " (raise warps_per_core)");
  return Error::success();
}

} // namespace

//===--- Problem, Limits, Arg ---------------------------------------------===//

Arg Arg::f32(float V) { return u32(asBits(V)); }

unsigned Problem::addBuffer(std::string Name, Role R, Elem Type, std::vector<uint32_t> Data) {
  Buffers.push_back({std::move(Name), R, Type, std::move(Data)});
  return Buffers.size() - 1;
}

unsigned Problem::addOutput(std::string Name, Elem Type, size_t Words) {
  return addBuffer(std::move(Name), Role::Out, Type, std::vector<uint32_t>(Words, PoisonWord));
}

const Buffer &Problem::buffer(StringRef Name) const { return Buffers[indexOf(*this, Name)]; }

uint32_t Problem::size(StringRef Name) const {
  auto It = Sizes.find(Name.str());
  assert(It != Sizes.end() && "a reference reads a size its generator did not set");
  return It->second;
}

std::string Problem::describe() const {
  std::string S;
  raw_string_ostream OS(S);
  ListSeparator Sep(", ");
  for (const auto &[Name, V] : Sizes)
    if (!StringRef(Name).ends_with("_bits") && !StringRef(Name).starts_with("seed"))
      OS << Sep << Name << "=" << V;
  auto Dim = [](const Dim3 &D) {
    return D.Y == 1 && D.Z == 1 ? std::to_string(D.X)
                                : formatv("({0},{1},{2})", D.X, D.Y, D.Z).str();
  };
  for (const Launch &La : Launches)
    OS << "; " << La.Kernel << "<<<" << Dim(La.Grid) << ", " << Dim(La.Block)
       << (La.DynamicSharedBytes ? ", " + std::to_string(La.DynamicSharedBytes) : "")
       << ">>>";
  return S;
}

Limits Limits::of(const AcceleratorConfig &C) {
  return {C.maxThreadsPerBlock(), C.Shared.SizeBytes};
}

//===--- Cases ------------------------------------------------------------===//

ArrayRef<SuiteCase> suiteCases() {
  static const SuiteCase Cases[] = {
      {"vadd", "vadd.cu", "c = a + b, one thread per element", genVadd, refVadd},
      {"saxpy", "saxpy.cu", "y = a*x + y: float parameter, in-out buffer, FMA", genSaxpy, refSaxpy},
      {"block_reduce", "reduce.cu", "shared-memory tree reduction with __syncthreads",
       genBlockReduce, refBlockReduce},
      {"warp_reduce", "shfl_reduce.cu", "__shfl_down_sync reduction + atomicAdd per warp",
       genWarpReduce, refWarpReduce},
      {"histogram", "histogram.cu", "shared atomics under collisions, then global atomics",
       genHistogram, refHistogram},
      {"sgemm_tiled", "gemm.cu", "16x16 shared tiles, M, N, K not multiples of 16", genGemm,
       refGemm},
      {"transpose", "transpose.cu", "32x33 padded shared tile, partial edge tiles", genTranspose,
       refTranspose},
      {"stencil5", "stencil.cu", "2-D 5-point stencil, boundary copied", genStencil, refStencil},
      {"const_conv", "const_conv.cu",
       "9-tap convolution, coefficients and tables in __constant__ memory (ld.const)", genConstConv,
       refConstConv},
      {"scan", "scan.cu", "Hillis-Steele block scan + block offsets, three launches", genScan,
       refScan},
      {"spmv_scalar", "spmv.cu", "CSR SpMV, a thread per row (per-lane trip counts)", genSpmvScalar,
       refSpmv},
      {"spmv_vector", "spmv.cu", "CSR SpMV, a warp per row with a shuffle reduction", genSpmvVector,
       refSpmv},
      {"spmv_balanced", "spmv_balanced.cu",
       "CSR SpMV by merge path on a power-law matrix: equal work per thread, carry fixup",
       genSpmvBalanced, refSpmvBalanced},
      {"spmm", "spmm.cu", "CSR x dense: a thread per output, warp shares a row of A", genSpmm,
       refSpmm},
      {"divergent", "divergent.cu",
       "nested data-dependent branches, per-lane loop trips, break/continue, early return",
       genDivergent, refDivergent},
      {"many_live", "spill.cu", "40 live accumulators: spills at 16 and 32 registers", genSpill,
       refSpill, /*MustSpill=*/true},
      {"hash64", "hash64.cu", "64-bit splitmix64 + fmix64 on a 32-bit machine", genHash64,
       refHash64},
      {"softmax_rows", "softmax.cu", "row softmax: dynamic shared, max/sum trees, expf", genSoftmax,
       refSoftmax},
      {"math_functions", "math.cu",
       "every math-library function (expf .. powf) on its own slice: branch-free FPU code",
       genMathFunctions, refMathFunctions},
  };
  return Cases;
}

const SuiteCase *findCase(StringRef Name) {
  for (const SuiteCase &C : suiteCases())
    if (C.Name == Name)
      return &C;
  return nullptr;
}

std::string kernelsDir() {
  if (const char *Env = std::getenv("TANDEM_SUITE_DIR"))
    return Env;
  if (sys::fs::is_directory(TANDEM_SUITE_DIR))
    return TANDEM_SUITE_DIR;
  return TANDEM_INSTALL_SUITE_DIR;
}

std::string SuiteCase::sourcePath() const {
  SmallString<256> P(kernelsDir());
  sys::path::append(P, Source);
  return std::string(P);
}

Problem SuiteCase::makeProblem(const RunOptions &Opts) const {
  uint64_t Mixed = xxh3_64bits(Name) ^ Opts.Seed;
  std::seed_seq Seq{uint32_t(Mixed), uint32_t(Mixed >> 32), uint32_t(Opts.Seed),
                    uint32_t(Opts.Seed >> 32)};
  std::mt19937 Rng(Seq);
  Problem P = Generate(Rng, Opts.Limit);
  Reference(P);
  return P;
}

Expected<compiler::CompileResult> compileCase(const SuiteCase &C, compiler::CompileOptions O) {
  O.Target = "simt";
  O.Emit = compiler::EmitKind::Obj;
  return compiler::compileFile(C.sourcePath(), O);
}

Error SuiteCase::run(Device &D, const KernelImage &Img, SuiteResult &Result,
                     const RunOptions &Opts) const {
  Problem P = makeProblem(Opts);
  for (const Launch &La : P.Launches)
    if (!Img.findKernel(La.Kernel))
      return caseError(Name, D.name(),
                       "the image has no kernel '" + La.Kernel + "' (compiled from " +
                           sourcePath() + "?)");
  if (Error E = D.loadImage(Img))
    return caseError(Name, D.name(), toString(std::move(E)));
  return runProblem(D, P, Name, Result, Opts);
}

Error runProblem(Device &D, const Problem &P, StringRef CaseName, SuiteResult &Result,
                 const RunOptions &Opts) {
  Result = SuiteResult();
  Result.Case = CaseName.str();
  Result.Device = D.name().str();
  Result.Size = P.describe();
  if (Error E = validate(P, CaseName, D.name(), Opts.Limit))
    return E;
  if (Opts.Fault != Sabotage::SkipSymbolWrites)
    for (const SymbolWrite &W : P.SymbolWrites)
      if (Error E = D.copyToSymbol(W.Name, {reinterpret_cast<const uint8_t *>(W.Words.data()),
                                            W.Words.size() * 4}))
        return caseError(CaseName, D.name(),
                         "writing variable '" + W.Name + "': " + toString(std::move(E)));

  DeviceBuffers Bufs(D);
  for (const Buffer &B : P.Buffers)
    if (Expected<DevicePtr> Ptr = Bufs.upload(B); !Ptr)
      return caseError(CaseName, D.name(),
                       "buffer '" + B.Name + "': " + toString(Ptr.takeError()));

  auto Start = std::chrono::steady_clock::now();
  for (size_t I = 0; I < P.Launches.size() && Opts.Fault != Sabotage::SkipLaunch; ++I) {
    const Launch &La = P.Launches[I];
    LaunchParams LP;
    LP.Kernel = La.Kernel;
    LP.Grid = La.Grid;
    LP.Block = La.Block;
    LP.DynamicSharedBytes = La.DynamicSharedBytes;
    for (const Arg &A : La.Args)
      LP.Args.push_back(KernelArg::u32(A.K == Arg::Kind::Buffer ? Bufs[A.BufferIndex] : A.Bits));
    if (Error E = D.launch(LP))
      return caseError(CaseName, D.name(),
                       formatv("launch {0} ({1}): {2}", I + 1, La.Kernel, toString(std::move(E))));
    Result.PerLaunch.push_back(D.counters());
  }
  Result.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  Result.Total = sumCounters(Result.PerLaunch);

  Verdict V;
  bool Corrupt = Opts.Fault == Sabotage::CorruptOutput;
  for (const Check &C : P.Checks) {
    const Buffer &B = P.Buffers[C.BufferIndex];
    std::vector<uint32_t> Words(B.Data.size() + GuardWords, PoisonWord);
    if (Error E = D.read(MutableArrayRef<uint32_t>(Words), Bufs[C.BufferIndex]))
      return caseError(CaseName, D.name(), "reading '" + B.Name + "': " + toString(std::move(E)));
    for (size_t G = B.Data.size(); G < Words.size(); ++G)
      if (Words[G] != PoisonWord)
        V.fail(formatv("{0} was written past its end: {0}[{1}] = {2}", B.Name, G,
                       showValue(Words[G], Elem::U32)));
    Words.resize(B.Data.size());
    if (Corrupt && !Words.empty()) {
      Words[Words.size() / 2] ^= 0x40000000u; // high bit: no tolerance absorbs it
      Corrupt = false;
    }
    compare(B, C, Words, V, Result.MaxRelError);
    Result.Outputs.push_back(std::move(Words));
  }
  Result.Mismatches = V.count();
  Result.Passed = V.count() == 0;
  Result.Message = V.message();
  return Error::success();
}

} // namespace tandem::suite
