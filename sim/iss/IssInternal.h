//===- IssInternal.h - State shared by the simulator's parts ---*- C++ -*-===//
//
// The predecoded program, the per-launch context, block and warp state, and
// the raw statistics the executor collects. Private to sim/iss.
//
// Invariants the executor relies on (established by predecode() and
// Simulator::launch()): every register index in a legal PInst is below
// Program::Rows; Rd == 0 is redirected to the sink row so r0 stays zero;
// a warp's register file holds Program::Rows rows of 32 lanes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DeviceMemory.h"
#include "ISA.h"

#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::iss::detail {

/// A predecoded instruction: what the executor's switch reads.
struct PInst {
  simt::Opcode Op = simt::Opcode::INVALID;
  uint8_t Rd = 0, Rs1 = 0, Rs2 = 0, Rs3 = 0; ///< register rows
  int32_t Imm = 0;
};

/// One kernel, decoded once per launch.
struct Program {
  const KernelInfo *Kernel = nullptr;
  uint32_t Entry = 0;     ///< code byte address of the first instruction
  uint32_t CodeBytes = 0; ///< Insts.size() * 4
  std::vector<PInst> Insts;
  std::vector<simt::DecodedInst> Decoded; ///< as decoded, for messages
  std::vector<uint32_t> Words;
  std::vector<std::string> IllegalWhy; ///< non-empty for illegal instructions
  std::vector<std::string> Asm;        ///< disassembly, filled when tracing
  unsigned Rows = 0;                   ///< register rows per warp
  unsigned SinkRow = 0;                ///< where writes to r0 go

  const char *asmAt(unsigned Index) const;
};

/// Builds the program for \p K of \p Img. Words that do not decode, or that
/// name registers beyond the kernel's RegistersUsed or an unknown special
/// register, become INVALID with a reason; they fault only if executed.
Program predecode(const KernelImage &Img, const KernelInfo &K, bool WithAsm);

/// Raw per-launch statistics; Simulator turns them into named counters.
struct Stats {
  std::vector<uint64_t> WarpInstrs;   ///< by opcode
  std::vector<uint64_t> ThreadInstrs; ///< active lanes summed, by opcode
  uint64_t BranchesTaken = 0;
  uint64_t DivergentBranches = 0;
  uint64_t Blocks = 0;
  uint64_t WarpsLaunched = 0;
};

enum class WarpStatus : uint8_t { Ready, AtBarrier, Finished };

struct Warp {
  unsigned Id = 0;
  uint32_t Pc = 0;
  uint32_t Exec = 0;
  uint32_t Alive = 0;
  WarpStatus Status = WarpStatus::Ready;
  uint32_t *Regs = nullptr; ///< Program::Rows rows of 32 lanes
  uint8_t *Local = nullptr; ///< LocalBytes * 32, interleaved word by word
};

struct Block {
  Dim3 Idx;
  uint64_t Linear = 0;
  std::vector<uint8_t> Shared;
  std::vector<Warp> Warps;
};

/// The last global allocation an access hit: most accesses of a warp hit the
/// same buffer, so one compare usually replaces a map lookup.
struct AllocCache {
  uint32_t Base = 0;
  uint32_t Size = 0;
  uint8_t *Data = nullptr;
};

struct Launch {
  const Program *Prog = nullptr;
  const KernelImage *Image = nullptr;
  const LaunchParams *Params = nullptr;
  DeviceMemory *Mem = nullptr;
  std::vector<uint8_t> ParamBuffer;
  uint32_t StaticShared = 0;
  uint32_t SharedBytes = 0; ///< static + dynamic
  uint32_t LocalBytes = 0;  ///< per thread
  uint32_t NumWarps = 0;    ///< per block
  uint64_t StepLimit = 0;   ///< 0: none
  uint64_t Steps = 0;       ///< warp instructions issued so far
  llvm::raw_ostream *Trace = nullptr;
  AllocCache Cache;
  Stats S;
};

/// Runs \p W until it reaches a barrier, finishes, or faults.
llvm::Error runWarp(Launch &L, Block &B, Warp &W);

/// "kernel 'k': block (x,y,z) warp w[ lane l] pc 0x....[ (asm)]: " + Msg.
llvm::Error makeFault(const Launch &L, const Block &B, const Warp &W, int Lane,
                      uint32_t Pc, const llvm::Twine &Msg);

/// Fixed-width hex for addresses and masks in messages and traces.
std::string hex8(uint32_t V);
std::string pcHex(uint32_t Pc);

// Checks and message pieces every device shares (LaunchChecks.cpp): iss and
// the rtl harness refuse the same images and launches with the same words.

/// "(x,y,z)".
std::string dimText(const Dim3 &D);
/// "w (bar at pc 0x....)": a warp waiting at a barrier, as the deadlock
/// messages list it.
std::string waitingWarpText(unsigned Warp, uint32_t BarPc);
/// "barrier deadlock: warps W wait at a barrier but warps F have finished;
/// ...": \p Waiting lists waitingWarpText items, \p Finished warp numbers.
std::string barrierDeadlockText(llvm::StringRef Waiting, llvm::StringRef Finished);
/// "illegal instruction: pc is outside kernel 'k' code [a, b) (reached
/// from pc p)".
std::string pcOutsideCodeText(llvm::StringRef Kernel, uint32_t Entry, uint32_t CodeBytes,
                              uint32_t From);
/// "a: ptr, n: u32", or "none".
std::string paramList(const KernelInfo &K);
/// Parameter buffer bytes the kernel's parameters cover.
uint64_t paramBufferBytes(const KernelInfo &K);
/// "global", "shared", ... as fault messages name memory spaces.
const char *spaceName(simt::MemSpace S);
/// Why a global access at \p Addr is out of bounds: the nearest allocation.
std::string globalBoundsDetail(const DeviceMemory &Mem, uint32_t Addr,
                               unsigned Bytes);
/// Unique kernel names, code inside the image, 4-byte parameters.
llvm::Error checkImage(const KernelImage &Img);
/// Everything about a launch that can be wrong before any instruction runs.
llvm::Error checkLaunch(const KernelInfo &K, const LaunchParams &P,
                        const DeviceOptions &O);
/// The kernel a launch names, or an error listing the image's kernels.
llvm::Expected<const KernelInfo *> findLaunchKernel(const KernelImage *Image,
                                                   llvm::StringRef Name);

} // namespace tandem::iss::detail
