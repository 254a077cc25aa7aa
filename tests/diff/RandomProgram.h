//===- RandomProgram.h - Random valid SIMT programs for differential tests ===//
//
// generateProgram(Seed) builds a random SIMT kernel as a tree of regions:
// straight-line leaves (every integer, fp32, shuffle and vote instruction the
// ISA tables list, memory accesses in every space, atomics) and structured
// regions (nested divergent if/else, loops with uniform and with per-lane trip
// counts, uniform branches, partial exits, barriers and shared-memory
// exchanges in uniform control flow). printAssembly() turns the tree into
// assembly text (docs/Assembly.md) with a fixed prologue and epilogue, so a
// program can be shown, saved and re-run with `tandem run`.
//
// Guarantees, for every seed and for every tree obtained by deleting nodes or
// hoisting a region's bodies into its parent (what the reducer does):
//  - the program assembles, terminates (every loop has a bounded trip count)
//    and never faults on a correct simulator: every address is computed
//    inside the leaf that uses it, from registers the prologue set, masked to
//    an in-bounds aligned offset;
//  - its final memory and dynamic instruction counts do not depend on how a
//    device interleaves warps: threads write only their own slots; shared
//    words other threads read are exchanged between barriers; contended
//    addresses (touched by several warps) get only commutative integer
//    atomics (add, min, max, minu, maxu) whose returned old value is
//    discarded (rd = r0); order-dependent atomics (exch, cas, fadd) and the
//    old values of any atomic are used only on addresses private to one
//    thread or one warp (lanes of a warp apply in lane order);
//  - lane 0 of every warp never exits before the epilogue and every region
//    restores the exec mask it entered with, so every warp reaches every
//    `bar` (bars appear only where all enclosing regions are uniform);
//  - no register that can reach memory ever holds a device address or
//    %clock, so two devices with different allocators still agree.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::diff {

enum class NodeKind : uint8_t {
  Leaf,        ///< straight-line instructions (Lines)
  IfElse,      ///< divergent if (Body) / else (Else) on a per-lane condition
  DivLoop,     ///< loop whose trip count differs per lane (0..3)
  UniLoop,     ///< loop with the same trip count in every lane (Trips)
  UniIf,       ///< branch on a uniform value (a parameter bit) around Body
  PartialExit, ///< lanes (never lane 0) where a condition holds exit here
};

/// One region of the program. Cond is one instruction writing "$C" (the
/// region's condition or trip-count register, assigned by nesting depth).
struct Node {
  NodeKind Kind = NodeKind::Leaf;
  std::vector<std::string> Lines; ///< Leaf only
  std::string Cond;               ///< IfElse, DivLoop, PartialExit
  unsigned Trips = 1;             ///< UniLoop
  unsigned ParamBit = 0;          ///< UniIf: bit of parameter u0 tested
  std::vector<Node> Body, Else;
};

/// Sizes of the generated program.
struct GenOptions {
  unsigned TopLevelNodes = 24; ///< regions in the kernel body (about)
  unsigned MaxDepth = 3;       ///< nesting of structured regions
};

struct RandomProgram {
  uint64_t Seed = 0;
  Dim3 Grid, Block;
  std::vector<Node> Body;
  std::vector<uint32_t> ConstWords;
  uint32_t U0 = 0, U1 = 0; ///< the scalar parameters

  uint32_t threadsPerBlock() const { return uint32_t(Block.count()); }
  uint32_t totalThreads() const { return uint32_t(Grid.count() * Block.count()); }
  uint32_t warpsPerBlock() const { return (threadsPerBlock() + 31) / 32; }
};

/// Buffer layout shared by the generator, the printer and the differ.
namespace layout {
constexpr unsigned InWords = 256;         ///< input words, read anywhere
constexpr unsigned SlotBytes = 160;       ///< per-thread output slot
constexpr unsigned PrivAtomBytes = 16;    ///< per-thread atomic words
constexpr unsigned WarpAtomBytes = 16;    ///< per-warp atomic words
constexpr unsigned ContendedWords = 8;    ///< global words all threads hit
constexpr unsigned BlockCounterWords = 16; ///< shared counters, per block
constexpr unsigned ConstWords = 64;
constexpr unsigned LocalBytes = 32;
// Shared memory: counters, per-warp words, exchange words, private words.
constexpr unsigned SharedCounters = 0;
constexpr unsigned SharedWarp = 64;      // 8 warps x 16 bytes
constexpr unsigned SharedExchange = 192; // 256 threads x 4 bytes
constexpr unsigned SharedPrivate = 1216; // 256 threads x 16 bytes
constexpr unsigned SharedBytes = 5312;
} // namespace layout

/// The kernel's parameters in order (name, kind); buffers first.
struct ParamSpec {
  const char *Name;
  bool IsBuffer;
};
const std::vector<ParamSpec> &programParams();
/// Bytes of buffer parameter \p Index for \p P.
uint64_t bufferBytes(const RandomProgram &P, unsigned Index);

RandomProgram generateProgram(uint64_t Seed, const GenOptions &Opts = {});

/// The program as assembly text, with a comment header naming the seed, the
/// launch and a `tandem run` line that re-runs it.
std::string printAssembly(const RandomProgram &P);

/// Counts nodes (all kinds) in the tree, for reports and tests.
unsigned countNodes(const std::vector<Node> &Nodes);

} // namespace tandem::diff
