//===- Suite.h - The CUDA C kernel suite with CPU references ----*- C++ -*-===//
//
// The kernels in microbench/kernels/*.cu, each with a host driver that is
// split in three so that every runner (the ctest harness on iss and rtl,
// `tandem report`, the GPU runner) shares it:
//
//   Generate   draws the inputs (seeded std::mt19937, never all zeros) and
//              fixes the launches (kernel, grid, block, dynamic shared,
//              arguments). Pure host data: no device, no compiler.
//   Reference  computes the expected outputs on the host from those inputs
//              and says how to compare them (bit-exact, or fp32 within a
//              relative error of a per-element magnitude).
//   run        the device part: allocates the buffers (outputs poisoned with
//              0xDEADBEEF, followed by poisoned guard words), launches in
//              order, reads the outputs back and checks them.
//
// docs/Suite.md describes every kernel, its sizes and its tolerance.
//
// Input invariants: none; every failure is a value. Guarantees: a device
// error (fault, allocation, unknown kernel, a block larger than the
// configuration allows) comes back as an llvm::Error naming the case and the
// device; a case that runs but computes a wrong result comes back with
// SuiteResult::Passed == false and a Message naming the buffer, the index,
// the value read and the value expected. Buffers are freed before run()
// returns.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Compiler.h"
#include "sparse/Csr.h"
#include "tandem/Config.h"
#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tandem::suite {

/// What output buffers hold before the launch: a word still equal to it was
/// never written.
constexpr uint32_t PoisonWord = 0xDEADBEEF;
/// Poisoned words after every output buffer; a kernel writing one of them
/// fails its check.
constexpr uint32_t GuardWords = 16;

/// How a buffer's words are read when they are shown or compared.
enum class Elem : uint8_t { U32, S32, F32 };

enum class Role : uint8_t {
  In,    ///< read-only input
  Out,   ///< written by the kernel; poisoned before the launch
  InOut, ///< starts with Data (the kernel accumulates into it)
};

struct Buffer {
  std::string Name;
  Role R = Role::In;
  Elem Type = Elem::U32;
  /// In and InOut: the initial contents. Out: PoisonWord, one per word.
  std::vector<uint32_t> Data;
};

/// One kernel argument: a buffer of the problem (its device address) or a
/// 4-byte value.
struct Arg {
  enum class Kind : uint8_t { Buffer, Value } K = Kind::Value;
  unsigned BufferIndex = 0; ///< Kind::Buffer: index in Problem::Buffers
  uint32_t Bits = 0;        ///< Kind::Value

  static Arg buffer(unsigned Index) { return {Kind::Buffer, Index, 0}; }
  static Arg u32(uint32_t V) { return {Kind::Value, 0, V}; }
  static Arg s32(int32_t V) { return {Kind::Value, 0, uint32_t(V)}; }
  static Arg f32(float V);
  /// A null pointer (a kernel that checks for one skips that output).
  static Arg null() { return u32(0); }
};

struct Launch {
  std::string Kernel;
  Dim3 Grid, Block;
  uint32_t DynamicSharedBytes = 0;
  std::vector<Arg> Args;
};

/// The expected contents of one output buffer.
struct Check {
  unsigned BufferIndex = 0;
  std::vector<uint32_t> Want;
  /// 0: bit-exact. Otherwise (fp32 buffers) element I passes when
  /// |got - want| <= RelTol * Magnitude[I] (and got is not NaN/inf): the
  /// error is relative to the size of the terms that made the result (e.g.
  /// the sum of |a_ik * b_kj| for GEMM), so cancellation does not make a
  /// correct result fail. Magnitude empty: |want| per element.
  double RelTol = 0;
  std::vector<double> Magnitude;
};

/// Bytes the host writes into a __constant__ or __device__ variable of the
/// kernel's image (module) by name after loading it and before the first
/// launch (Device::copyToSymbol; cudaMemcpyToSymbol), from its first byte.
struct SymbolWrite {
  std::string Name;
  std::vector<uint32_t> Words;
};

/// Everything a runner needs, with no device in it.
struct Problem {
  std::vector<Buffer> Buffers;
  /// Written in order before the launches.
  std::vector<SymbolWrite> SymbolWrites;
  std::vector<Launch> Launches;
  /// Filled by the case's Reference; every Out/InOut buffer has one.
  std::vector<Check> Checks;
  /// Named problem dimensions (n, rows, cols, ...), in name order.
  std::map<std::string, uint32_t> Sizes;

  unsigned addBuffer(std::string Name, Role R, Elem Type, std::vector<uint32_t> Data);
  unsigned addOutput(std::string Name, Elem Type, size_t Words);
  const Buffer &buffer(llvm::StringRef Name) const;
  uint32_t size(llvm::StringRef Name) const;
  /// "n=5037; vadd<<<20, 256>>>"-style summary of the sizes and launches.
  std::string describe() const;
};

/// What the device allows; Generate shrinks nothing below what a kernel
/// needs (gemm and transpose need 256-thread blocks) - run() reports a
/// launch that does not fit.
struct Limits {
  uint32_t MaxThreadsPerBlock = 256;
  uint32_t SharedBytesPerBlock = 16 * 1024;
  static Limits of(const AcceleratorConfig &C);
};

/// Why \p P's launches cannot run within \p L ("K needs N threads per
/// block; the configuration allows M"), or nothing. run() refuses such a
/// problem; `tandem report` leaves its case out.
std::optional<std::string> doesNotFit(const Problem &P, const Limits &L);

/// Deliberate faults in the harness, so tests can prove the checks fail
/// when a result is wrong.
enum class Sabotage {
  None,
  SkipLaunch,    ///< do not launch: outputs stay poisoned
  CorruptOutput, ///< flip a high bit of one element of the first output read
  SkipSymbolWrites, ///< leave the variables at their initializers
};

struct RunOptions {
  /// Mixed with the case name: a case gets the same inputs whichever other
  /// cases run.
  uint64_t Seed = 1;
  Limits Limit;
  Sabotage Fault = Sabotage::None;
};

struct SuiteResult {
  std::string Case, Device;
  bool Passed = false;
  /// Empty if it passed; else the mismatches (the first few exactly).
  std::string Message;
  uint64_t Mismatches = 0;
  /// Largest |got - want| / magnitude over the fp checks (0 if all exact).
  double MaxRelError = 0;
  /// The words of every checked buffer as read back, in Checks order.
  std::vector<std::vector<uint32_t>> Outputs;
  /// Counters of each launch, and their sum (active_lane_pct_x100 is
  /// recomputed from the summed instruction counts, not summed).
  std::vector<Counters> PerLaunch;
  Counters Total;
  std::string Size;
  double Seconds = 0; ///< wall time of the launches
};

struct SuiteCase {
  std::string Name;    ///< e.g. "vadd"
  std::string Source;  ///< file in the kernels folder, e.g. "vadd.cu"
  std::string Summary; ///< one line: what it exercises
  /// Inputs and launches; no device, no reference.
  Problem (*Generate)(std::mt19937 &Rng, const Limits &L);
  /// Fills P.Checks from P's inputs: the host reference.
  void (*Reference)(Problem &P);
  /// The kernel must spill at 16 and at 32 registers (the suite test checks
  /// the compiler's report says so).
  bool MustSpill = false;

  /// The kernel source: kernelsDir()/Source.
  std::string sourcePath() const;
  /// Generate and Reference with the case's own seeded generator.
  Problem makeProblem(const RunOptions &Opts) const;
  /// Loads \p Img on \p D and runs makeProblem(Opts) on it.
  llvm::Error run(Device &D, const KernelImage &Img, SuiteResult &Result,
                  const RunOptions &Opts = {}) const;
};

/// Every case, in docs/Suite.md order.
llvm::ArrayRef<SuiteCase> suiteCases();
/// The case called \p Name, or null.
const SuiteCase *findCase(llvm::StringRef Name);

/// C = A * B on spmm_csr (the spmm case's kernel) for any CSR matrix \p A
/// (rows x k) and a random dense B (k x \p N, drawn from \p Rng): a thread
/// per element of C in SpmmShape.h's blocks, with its host reference. `tandem
/// report` runs it on matrices.
Problem spmmProblem(const sparse::CsrMatrix &A, uint32_t N, std::mt19937 &Rng);

/// Columns of the dense B (and C) in `tandem report`'s SpMM rows on
/// matrices, on every device (suite-export writes it into the GPU bundle as
/// "spmm_columns"): one warp covers a row of C.
constexpr uint32_t ReportSpmmColumns = 32;

/// The kernels folder: $TANDEM_SUITE_DIR if set, else the source tree's
/// microbench/kernels if it exists, else the installed copy
/// (<prefix>/share/tandem/microbench).
std::string kernelsDir();

/// Compiles the case's source with \p O (compiler::optionsFor a
/// configuration: -O2 with its registers and DRAM latency), for simt, to a
/// kernel image.
llvm::Expected<compiler::CompileResult> compileCase(const SuiteCase &C,
                                                    compiler::CompileOptions O);

/// Runs an already built problem (for runners that change it, e.g. larger
/// sizes); run() is makeProblem + loadImage + runProblem.
llvm::Error runProblem(Device &D, const Problem &P, llvm::StringRef CaseName,
                       SuiteResult &Result, const RunOptions &Opts = {});

} // namespace tandem::suite
