//===- Config.h - The accelerator configuration ----------------*- C++ -*-===//
//
// One JSON file describes an accelerator: the RTL build, the compiler
// (register count), the simulators and the models all read it. The default
// is configs/default.json. Loading validates every key and value and names
// the file, the key and the fix on error.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tandem {

/// What an L1 store to a local-memory line does. Global stores are always
/// write-through, no write-allocate (docs/RTL.md, "Load/store unit"). A
/// run-time choice like the scheduler: the RTL latches it at each block
/// start, so changing it never rebuilds the Verilated model.
enum class LocalWritePolicy {
  /// "write-back": a local store that hits updates the line and marks it
  /// dirty; one that misses and fills whole lines allocates them dirty
  /// without reading memory; a dirty line goes to memory only when it is
  /// evicted (never at block end: local memory dies with its block). As
  /// Fermi's L1 treats register spills.
  WriteBack,
  /// "write-through": local stores go to memory like global ones.
  WriteThrough,
};

/// The configuration file's spelling of \p P ("write-back", "write-through").
llvm::StringRef localWritePolicyName(LocalWritePolicy P);
/// Parses "write-back" or "write-through"; fails naming the allowed values.
llvm::Expected<LocalWritePolicy> parseLocalWritePolicyName(llvm::StringRef Name);

struct CacheConfig {
  uint32_t SizeBytes = 16 * 1024; ///< power of two
  uint32_t Ways = 4;              ///< power of two, divides the line count
  uint32_t LineBytes = 64;        ///< power of two, 16..256
  LocalWritePolicy LocalWrites = LocalWritePolicy::WriteBack;
};

struct SharedMemConfig {
  uint32_t SizeBytes = 16 * 1024; ///< per core; the most one block can use
  uint32_t Banks = 8;             ///< power of two, 4-byte-wide banks
};

struct DramConfig {
  uint32_t LatencyCycles = 100;
  uint32_t BytesPerCycle = 16;
  uint32_t Channels = 1;
  uint32_t MaxOutstanding = 16; ///< requests in flight per channel
};

/// How a core's warp scheduler picks among ready warps. A run-time choice:
/// the RTL latches it at each block start, so changing it never rebuilds
/// the Verilated model.
enum class WarpScheduler {
  RoundRobin,       ///< "rr": the first ready warp after the last issuer
  GreedyThenOldest, ///< "gto": the last issuer while ready, else the oldest
};

/// The configuration file's spelling of \p S ("rr", "gto").
llvm::StringRef schedulerName(WarpScheduler S);
/// Parses "rr" or "gto"; fails naming the allowed values.
llvm::Expected<WarpScheduler> parseSchedulerName(llvm::StringRef Name);

/// What a warp waits for after it issues a memory instruction. A run-time
/// choice like the scheduler: the RTL latches it at each block start.
/// Either way the LSU takes memory instructions in issue order; how many it
/// holds at once is LsuConfig::InFlight.
enum class MemoryWait {
  /// "instruction": the warp issues nothing until its memory instruction
  /// has written back (no memory-level parallelism inside a warp).
  Instruction,
  /// "register": the warp goes on issuing; only an instruction that names
  /// the register a load, atomic or shuffle will write waits for it
  /// (a scoreboard), and stores never hold the warp.
  Register,
};

/// The configuration file's spelling of \p W ("instruction", "register").
llvm::StringRef memoryWaitName(MemoryWait W);
/// Parses "instruction" or "register"; fails naming the allowed values.
llvm::Expected<MemoryWait> parseMemoryWaitName(llvm::StringRef Name);

/// The load/store unit: a build parameter (how many memory instructions the
/// RTL can hold) and a run-time choice within it, latched by the RTL at each
/// block start like the scheduler.
struct LsuConfig {
  /// Warp memory instructions the LSU holds at once, 1..MaxInFlight. With 1
  /// it serves one from issue to write-back; with more, a load whose line
  /// requests are all sent waits for its responses in a slot while the LSU
  /// takes the next memory instruction (of any warp): memory-level
  /// parallelism between instructions (docs/RTL.md, "Load/store unit").
  uint32_t InFlight = 1;
  /// The most the core is built to hold (SLOTS in simt_lsu.sv, one request
  /// tag each): a build parameter, so another value is another Verilated
  /// model. Up to MaxInFlightLimit.
  uint32_t MaxInFlight = 8;
  static constexpr uint32_t MaxInFlightLimit = 16;
};

/// Why \p L's InFlight is not one the core can run ("4 is more than
/// lsu.max_in_flight (2), ..."), or empty when it is. The configuration
/// reader, `tandem run --lsu-in-flight` and the rtl device all say it so.
std::string lsuInFlightProblem(const LsuConfig &L);

struct AcceleratorConfig {
  std::string Name = "default";
  uint32_t Cores = 1;
  uint32_t WarpsPerCore = 8;  ///< bounds a block: WarpsPerCore * 32 threads
  uint32_t Lanes = 8;         ///< physical lanes: 1, 2, 4, 8, 16 or 32
  uint32_t Registers = 32;    ///< per thread, including r0; 2..64
  /// Words of a core's instruction memory: the largest kernel the rtl runs
  /// (an image with more code is loaded kernel by kernel). Power of two,
  /// 256..65536.
  uint32_t ImemWords = 4096;
  WarpScheduler Scheduler = WarpScheduler::RoundRobin;
  MemoryWait MemWait = MemoryWait::Instruction;
  LsuConfig Lsu;
  CacheConfig L1;
  SharedMemConfig Shared;
  DramConfig Dram;

  uint32_t maxThreadsPerBlock() const { return WarpsPerCore * 32; }
  /// Cycles one warp instruction occupies a full-rate unit (32 / Lanes).
  uint32_t cyclesPerWarpInstr() const { return 32 / Lanes; }
};

/// Parses and validates JSON text; \p Origin names the source in messages.
llvm::Expected<AcceleratorConfig> parseConfig(llvm::StringRef Json,
                                              llvm::StringRef Origin);
/// Reads and validates a configuration file.
llvm::Expected<AcceleratorConfig> loadConfig(llvm::StringRef Path);
/// The path of configs/default.json in the source tree this build came from
/// (or its installed copy).
std::string defaultConfigPath();
/// The JSON text of \p C, in the file format (round-trips through parseConfig).
std::string configToJson(const AcceleratorConfig &C);
/// One line with every value of \p C but its name, for reports and tools:
/// "8 lanes, 8 warps per core, 32 registers, 4096-word instruction memory,
/// scheduler rr, memory wait instruction; L1 16384 bytes,
/// 4-way, 64-byte lines, local stores write-back; shared 16384 bytes, 8
/// banks; DRAM 100 cycles, 16 bytes per cycle, 1 channel, 16 outstanding;
/// 1 core".
std::string describeConfig(const AcceleratorConfig &C);

} // namespace tandem
