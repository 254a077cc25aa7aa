//===- MIR.h - Tandem's machine IR ------------------------------*- C++ -*-===//
//
// The machine IR every back-end pass reads and writes: a function of basic
// blocks of machine instructions whose opcodes are the target's (for simt,
// simt::Opcode from the generated tables) or one of the target-independent
// pseudo opcodes below. Registers are virtual (numbered from VirtRegBase, SSA
// after selection) until register allocation makes them physical.
//
// Life of a function (see compiler/Compiler.cpp for the order):
//   isel        SSA, vregs, PHI, BR / BRCOND (marked Divergent or not), RET,
//               target instructions for everything else.
//   cfg lowering  PHI, BR, BRCOND, RET replaced by target branches, exec-mask
//               instructions and COPYs; blocks in final layout order; no
//               longer SSA (COPYs from phis define a vreg more than once).
//   regalloc    every register physical; spill code added; COPY of a
//               register to itself removed; other COPYs stay for the printer.
//   emit        prints target assembly (COPY as the target's move, LI as the
//               assembler's `li` pseudo).
//
// Operands are kept in the target's assembly order (simt::InstrDesc's
// Operands), so the printer walks them one to one. Pseudo opcodes have the
// operand shapes documented at each enumerator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace tandem::simt {
struct InstrDesc;
} // namespace tandem::simt

namespace tandem::mir {

class Block;

/// Registers: physical below VirtRegBase (simt: r0..r63, r0 reads as zero),
/// virtual from VirtRegBase up. 0 is r0 on simt; NoReg marks "none".
using Reg = uint32_t;
constexpr Reg VirtRegBase = 1u << 16;
constexpr Reg NoReg = ~0u;
inline bool isVirtual(Reg R) { return R != NoReg && R >= VirtRegBase; }
inline bool isPhysical(Reg R) { return R < VirtRegBase; }

/// Target-independent opcodes. Target opcodes are below PseudoBase.
enum Pseudo : unsigned {
  PseudoBase = 0x1000,
  /// COPY dst, src
  COPY = PseudoBase,
  /// PHI dst, (src, block)...   operands: Def, then pairs Reg/BlockRef
  PHI,
  /// LI dst, imm               any 32-bit constant (printed as `li`); cheap
  ///                            to rematerialize
  LI,
  /// BR block
  BR,
  /// BRCOND cond, trueBlock, falseBlock   taken to trueBlock where cond != 0;
  ///                            Inst::Divergent says whether lanes may differ
  BRCOND,
  /// RET                        kernel returns (all active lanes finish)
  RET,
  /// IMPLICIT_DEF dst           dst holds no meaningful value (undef/poison)
  IMPLICIT_DEF,
  PseudoEnd,
};
inline bool isPseudo(unsigned Opc) { return Opc >= PseudoBase; }
const char *pseudoName(unsigned Opc);

struct Operand {
  enum Kind : uint8_t {
    RegOp,     ///< a register; IsDef says whether it is written
    ImmOp,     ///< an immediate (also special-register index, param offset)
    BlockOp,   ///< a branch target
  };
  Kind K = ImmOp;
  bool IsDef = false;
  Reg R = NoReg;
  /// After register allocation: the virtual register this physical register
  /// operand stands for (what the allocation checker verifies), else NoReg.
  Reg Orig = NoReg;
  /// An operand is one kind, so the immediate and the branch target share
  /// their storage: an Operand is 24 bytes, not 32, and every pass copies
  /// instructions by the thousand. Read Imm only for ImmOp and Target only
  /// for BlockOp (a register operand reads 0 / null).
  union {
    int64_t Imm = 0;
    Block *Target;
  };

  static Operand def(Reg R) { return reg(R, /*IsDef=*/true); }
  static Operand use(Reg R) { return reg(R, /*IsDef=*/false); }
  static Operand imm(int64_t V) {
    Operand O;
    O.Imm = V;
    return O;
  }
  static Operand block(Block *B) {
    Operand O;
    O.K = BlockOp;
    O.Target = B;
    return O;
  }

  bool isReg() const { return K == RegOp; }
  bool isImm() const { return K == ImmOp; }
  bool isBlock() const { return K == BlockOp; }

private:
  static Operand reg(Reg R, bool IsDef) {
    Operand O;
    O.K = RegOp;
    O.IsDef = IsDef;
    O.R = R;
    return O;
  }
};
static_assert(sizeof(Operand) == 24, "Operand grew: every Inst carries four inline");

struct Inst {
  unsigned Opcode = 0;
  /// BRCOND: the condition may differ between the lanes of a warp
  /// (uniformity analysis said so); cfg lowering turns it into mask code.
  bool Divergent = false;
  /// The instruction writes its def only in some of the lanes that need the
  /// register's value afterwards (a phi copy under a narrowed exec mask), so
  /// the previous value stays live through it: liveness treats the def as
  /// also a use. Set by cfg lowering; honoured by regalloc and its checker.
  bool PartialDef = false;
  /// A PartialDef whose vreg regalloc spilled: the lanes it leaves out keep
  /// the old value in the spill slot (the spill store right after runs under
  /// the same exec mask), not in the register, so liveness does not read
  /// the register's old value and no reload precedes it.
  bool OldValueInSlot = false;
  /// Inserted by regalloc (spill store/reload, rematerialization).
  bool IsSpillCode = false;
  /// Where it came from, for listings and error messages ("file:line"), or
  /// empty. Not owned: it points at the function's copy
  /// (Function::internLoc), another instruction's Loc, or a literal, so
  /// copying an instruction copies no string.
  llvm::StringRef Loc;
  llvm::SmallVector<Operand, 4> Ops;

  Inst() = default;
  Inst(unsigned Opc, std::initializer_list<Operand> O) : Opcode(Opc), Ops(O) {}
  Inst(const Inst &) = default;
  Inst &operator=(const Inst &) = default;
  /// noexcept (SmallVector's move does not say so, though moving one never
  /// allocates), so that a growing std::vector<Inst> moves its instructions
  /// instead of copying each one, operands included.
  Inst(Inst &&) noexcept = default;
  Inst &operator=(Inst &&) noexcept = default;

  bool isPseudo() const { return mir::isPseudo(Opcode); }
};

/// The simt descriptor of \p I (flags, latency, memory space), or null for
/// a pseudo or an opcode outside the simt table.
const simt::InstrDesc *simtDescOf(const Inst &I);
static_assert(std::is_nothrow_move_constructible_v<Inst> &&
                  std::is_nothrow_move_assignable_v<Inst>,
              "std::vector<Inst> would copy instructions when it grows");

class Block {
public:
  explicit Block(std::string Name) : Name(std::move(Name)) {}
  std::string Name; ///< unique in the function; printed as a label
  std::vector<Inst> Insts;
  /// Loop nesting depth from LLVM's LoopInfo (spill cost weighting).
  unsigned LoopDepth = 0;
};

/// How a kernel parameter is passed (mirrors tandem::ParamKind of the image).
enum class ParamKind : uint8_t { Pointer, U32, S32, F32 };

struct Param {
  std::string Name;
  ParamKind Kind = ParamKind::U32;
  uint32_t Offset = 0; ///< bytes into the parameter buffer
};

struct VRegInfo {
  /// The value is the same in every active lane (uniformity analysis).
  bool Uniform = false;
  /// Debug name from the IR value, or empty.
  std::string Name;
  /// Register class, a target-defined number (ptx: ptx::RegClass). simt has
  /// one class and ignores it.
  uint8_t RegClass = 0;
};

/// Allocation results the compiler reports per kernel.
struct AllocStats {
  unsigned RegistersUsed = 0; ///< highest physical register + 1
  unsigned SpillSlots = 0;    ///< 4-byte local slots per thread
  unsigned SpillBytes = 0;    ///< per thread
  unsigned SpillStores = 0, SpillReloads = 0, Remats = 0;
  /// Reloads deleted or turned into a COPY because the value was still in
  /// a register (not counted in SpillReloads).
  unsigned ReloadsForwarded = 0;
  /// `li` of a slot address, for slots beyond `[r0 + simm12]`'s reach.
  unsigned SpillAddresses = 0;
};

/// The strings Inst::Loc points at (MIR.cpp).
struct LocationPool;

class Function {
public:
  std::string Name; ///< kernel name as the image and `--kernel` see it
  std::vector<Param> Params;
  /// Blocks; the first is the entry. After cfg lowering, layout order.
  std::vector<std::unique_ptr<Block>> Blocks;
  uint32_t SharedBytes = 0; ///< static shared memory per block
  uint32_t LocalBytes = 0;  ///< per-thread local memory (allocas + spills)
  AllocStats Stats;

  Block *addBlock(std::string Name);
  Reg newVReg(bool Uniform = false, std::string DebugName = {});
  unsigned numVRegs() const { return VRegs.size(); }
  VRegInfo &info(Reg R) { return VRegs[R - VirtRegBase]; }
  const VRegInfo &info(Reg R) const { return VRegs[R - VirtRegBase]; }

  /// This function's stored copy of \p Loc, for Inst::Loc: one copy per
  /// distinct "file:line", alive as long as this function (moving the
  /// function moves the strings' owner, not the strings).
  llvm::StringRef internLoc(llvm::StringRef Loc);

private:
  std::vector<VRegInfo> VRegs;
  /// Created on first use. A shared_ptr only so that the header needs no
  /// complete LocationPool (its deleter is fixed where it is made).
  std::shared_ptr<LocationPool> Locations;
};

/// Successor blocks named by the terminators at the end of \p B, in operand
/// order, plus the layout successor when \p B may fall through (only after
/// cfg lowering, when Fn is given and B's last instruction is not an
/// unconditional jump, RET or exit).
llvm::SmallVector<Block *, 2> successors(const Function &Fn, const Block &B);

/// SSA block liveness, for MIR that still has PHIs: per block (Fn.Blocks
/// order), by vreg index (Reg - VirtRegBase), the values live at its end,
/// that is live into a successor (below that successor's PHIs) or read by
/// a successor's PHI on the edge from this block. A PHI's operands are read
/// at the end of the predecessor they name, not in the PHI's block. A
/// backward dataflow over successors(), iterated to its fixed point.
std::vector<llvm::BitVector> ssaLiveOut(const Function &Fn);

/// Which target the instructions belong to, for printing opcode names and
/// checking operand shapes (simt and ptx opcodes share the numbers below
/// PseudoBase).
enum class TargetKind : uint8_t { Simt, Ptx };

/// Text form for --emit mir and --print-after: one line per instruction,
/// `%v12 = add %v3, %v4`, physical registers as the target names them.
void print(llvm::raw_ostream &OS, const Function &Fn, TargetKind T);
std::string opcodeName(unsigned Opc, TargetKind T);

/// Checks structural invariants (operand kinds match the target's
/// descriptors, every block ends in a terminator before cfg lowering, every
/// vreg used is defined somewhere); returns a message naming the function,
/// block and instruction on the first violation, or empty.
std::string verify(const Function &Fn, TargetKind T, bool AfterCfgLowering);

} // namespace tandem::mir
