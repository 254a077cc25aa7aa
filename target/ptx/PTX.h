//===- PTX.h - The PTX target, as generated from TableGen --------*- C++ -*-===//
//
// Everything here is derived from target/ptx/*.td by tandem-tblgen
// (--gen-ptx-instr-info): the opcode enum, the register classes, the
// instruction descriptors (assembly template, operands in dag order: defs
// first, then uses), the special registers and the selection patterns.
// The few functions below walk those tables; docs/PTX.md describes the
// target.
//
// PTX opcodes share the number space of MIR target opcodes with simt
// (both start at 0); a mir::Function is one target's, and MIR's printer
// and verifier are told which (mir::TargetKind).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "SelectionPattern.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tandem::ptx {

enum class Opcode : uint16_t {
#define GET_PTX_OPCODE_ENUM
#include "PtxGenInstrInfo.inc"
};

/// Register classes (PtxRegisterInfo.td). A vreg's class lives in
/// mir::VRegInfo::RegClass as this enum's value.
enum class RegClass : uint8_t {
#define GET_PTX_REGCLASS_ENUM
#include "PtxGenInstrInfo.inc"
};

enum class SpecialReg : uint8_t {
#define GET_PTX_SPECIAL_REG_ENUM
#include "PtxGenInstrInfo.inc"
};

/// How an operand is written (see PtxInstrInfo.td).
enum class OperandKind : uint8_t {
  Reg,        ///< a register of the class
  RegOrImm,   ///< a register of the class or an immediate
  MemOffset,  ///< the byte offset in [base+off]
  Symbol,     ///< index into the kernel's symbol table (PtxKernel::Symbols)
  SpecialReg, ///< SpecialReg value
  CondCode,   ///< CondCode value
  Block,      ///< a branch target
};

enum class MemSpace : uint8_t { None, Global, Shared, Local, Param, Const, Generic };

enum InstrFlag : uint32_t {
  IsLoad = 1u << 0,
  IsStore = 1u << 1,
  IsAtomic = 1u << 2,
  IsBranch = 1u << 3,
  IsJump = 1u << 4,
  IsTerminator = 1u << 5,
  IsBarrier = 1u << 6,
  IsExit = 1u << 7,
  IsWarpOp = 1u << 8,
};

struct OperandInfo {
  const char *Name; ///< as in the template, without '$'
  OperandKind Kind;
  RegClass Class;
  bool IsDef;
};

struct InstrDesc {
  const char *Name;      ///< TableGen record name, e.g. "ADD_32"
  const char *AsmString; ///< e.g. "add.s32 $d, $a, $b"
  uint32_t Flags;
  MemSpace Space;
  uint8_t AccessBytes;
  uint8_t NumOperands;
  OperandInfo Operands[6];

  bool has(InstrFlag F) const { return (Flags & F) != 0; }
  /// True when nothing but its defs is observable: it may be removed when
  /// they are unused, and duplicates may be merged.
  bool isPure() const;
};

struct RegClassDesc {
  const char *Name;    ///< Pred, B32, ...
  const char *Prefix;  ///< %p, %r, ...
  const char *PtxType; ///< .pred, .b32, ...
  uint8_t Bits;
};

/// setp comparisons (PtxCondCode records in PtxPatterns.td). Integer: eq ne
/// lt le gt ge (signed), lo ls hi hs (unsigned). Float: ordered eq..ge,
/// unordered equ..geu, num, nan.
enum class CondCode : uint8_t {
#define GET_PTX_CONDCODE_ENUM
#include "PtxGenInstrInfo.inc"
};

const InstrDesc &getDesc(Opcode Op);
inline const InstrDesc &getDesc(unsigned Op) { return getDesc(static_cast<Opcode>(Op)); }
unsigned numOpcodes(); ///< excluding INVALID
const RegClassDesc &getRegClassDesc(RegClass C);
unsigned numRegClasses();
const char *specialRegName(SpecialReg R); ///< "tid.x"
std::optional<SpecialReg> lookupSpecialReg(llvm::StringRef Name);
const char *condCodeName(CondCode C);     ///< "eq", "lo", ...
/// Selection patterns (PtxPatterns.td) in priority order; classes are
/// RegClass values, target::PatternDesc::Opcode an Opcode.
llvm::ArrayRef<target::PatternDesc> selectionPatterns();
/// The opcode of the instruction record named \p RecordName ("ADD_32",
/// "GLOBAL_LD_F32"), for rules that build the name from the IR's types.
std::optional<Opcode> lookupOpcode(llvm::StringRef RecordName);
/// The index of the operand named \p Name in \p D, or -1.
int operandIndex(const InstrDesc &D, llvm::StringRef Name);

/// What a PTX kernel needs besides its MIR: the symbols Symbol operands
/// index, the .param list, the .shared, .const and .global variables and the
/// local depot.
/// Filled by isel (selectPtx), read by the printer (emit/PtxPrinter.h).
struct KernelInfo {
  struct Param {
    std::string Symbol;  ///< NAME_param_K
    std::string PtxType; ///< .u32, .u64, .f32, .f64
  };
  struct SharedVar {
    std::string Symbol;
    uint64_t Size = 0;
    unsigned Align = 4;
    bool Extern = false; ///< dynamic shared memory: .extern .shared ... name[]
  };
  /// A __constant__ (.const) or __device__ (.global) variable: module
  /// scope, its initializer's bytes as the data layout places them.
  struct GlobalVar {
    std::string Symbol;
    bool Const = false; ///< .const, else .global
    unsigned Align = 4;
    uint64_t Size = 0;
    std::vector<uint8_t> Init; ///< Size bytes; all zero prints no initializer
  };
  std::vector<std::string> Symbols;
  std::vector<Param> Params;
  std::vector<SharedVar> Shared;
  std::vector<GlobalVar> Globals;
  uint64_t LocalBytes = 0; ///< size of the local depot (allocas)
  unsigned LocalAlign = 16;
  /// Index of the local depot in Symbols, when LocalBytes > 0.
  unsigned LocalDepotSymbol = 0;
};

} // namespace tandem::ptx
