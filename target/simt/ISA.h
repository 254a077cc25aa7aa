//===- ISA.h - The SIMT instruction set, as generated from TableGen -------===//
//
// Everything here is derived from target/simt/*.td by tandem-tblgen: the
// opcode enum, the instruction descriptors, the instruction formats and their
// field positions, the scheduling classes and the special registers. This
// header adds the few generic functions that walk those tables (encode,
// decode, look up by mnemonic, format as assembly). Nobody types an opcode
// number or a bit position by hand anywhere else.
//
// Instruction words are 32 bits. Bits [31:24] are the major opcode; each
// instruction has a distinct major opcode, so decoding is one table lookup.
// Code addresses are byte addresses; instructions are 4-byte aligned.
// PC-relative immediates count instruction words from the branch itself:
//   target = pc + 4 * imm.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "SelectionPattern.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tandem::simt {

/// Opcodes, one per instruction record in SimtInstrInfo.td, plus INVALID.
enum class Opcode : uint16_t {
#define GET_OPCODE_ENUM
#include "SimtGenInstrInfo.inc"
};

/// Instruction formats (SimtInstrFormats.td).
enum class Format : uint8_t {
#define GET_FORMAT_ENUM
#include "SimtGenInstrInfo.inc"
};

/// Scheduling classes (SimtSchedule.td): latency and functional unit.
enum class SchedClass : uint8_t {
#define GET_SCHED_CLASS_ENUM
#include "SimtGenInstrInfo.inc"
};

/// Functional units (ProcResource records in SimtSchedule.td).
enum class FuncUnit : uint8_t {
#define GET_FUNC_UNIT_ENUM
#include "SimtGenInstrInfo.inc"
};

/// Special registers readable with `s2r` (SimtRegisterInfo.td).
enum class SpecialReg : uint8_t {
#define GET_SPECIAL_REG_ENUM
#include "SimtGenInstrInfo.inc"
};

/// The fields an instruction word can carry.
enum class Field : uint8_t { Rd, Rs1, Rs2, Rs3, Imm };

/// How an assembly operand is written and what it means.
enum class OperandKind : uint8_t {
  GPR,        ///< r0..r63
  SImm,       ///< signed immediate
  UImm,       ///< unsigned immediate
  PCRel,      ///< branch target: a label, or an absolute code address
  SpecialReg, ///< %tid.x and friends
};

/// Memory space of a load, store or atomic.
enum class MemSpace : uint8_t { None, Global, Shared, Local, Param, Const };

/// Instruction properties, a bit set (InstrDesc::Flags).
enum InstrFlag : uint32_t {
  IsLoad = 1u << 0,
  IsStore = 1u << 1,
  IsAtomic = 1u << 2,
  IsBranch = 1u << 3,     ///< conditional, pc-relative
  IsJump = 1u << 4,       ///< unconditional, pc-relative
  IsTerminator = 1u << 5, ///< ends a basic block
  IsBarrier = 1u << 6,
  IsExit = 1u << 7,
  ReadsRd = 1u << 8,      ///< rd is also a source (movt)
  WritesAllLanes = 1u << 9, ///< rd is written in all 32 lanes, active or not
  IsMaskOp = 1u << 10,    ///< reads or writes the exec mask
  IsWarpOp = 1u << 11,    ///< reads other lanes (shuffle, vote)
  IsFloat = 1u << 12,     ///< fp32 arithmetic (canonical NaN results)
  AllLanes = 1u << 13,    ///< acts in all 32 lanes, active or not (mask spill code)
};

/// One operand in assembly order.
struct OperandInfo {
  OperandKind Kind;
  Field Where;
  bool IsDef;
};

/// Where a field sits in the word: bits [Lo, Lo + Width).
struct FieldLayout {
  Field Which;
  uint8_t Lo;
  uint8_t Width;
};

struct FormatDesc {
  const char *Name;
  uint8_t NumFields;
  FieldLayout Fields[5];
};

struct InstrDesc {
  const char *Name;      ///< TableGen record name, e.g. "ADD"
  const char *Mnemonic;  ///< e.g. "ld.global.u32"
  const char *AsmString; ///< operand template, e.g. "$rd, [$rs1 + $imm]"
  uint8_t Encoding;      ///< major opcode, bits [31:24]
  Format Fmt;
  SchedClass Sched;
  uint32_t Flags;
  MemSpace Space;
  uint8_t AccessBytes; ///< 1, 2 or 4 for memory instructions, else 0
  bool SignExtend;     ///< loads: sign- rather than zero-extend
  uint8_t NumOperands;
  OperandInfo Operands[5];
  /// Bits the opcode and this instruction's operand fields cover; every other
  /// bit of a valid word is zero.
  uint32_t FieldMask;
  /// Range of the immediate operand, if the instruction has one.
  int32_t ImmMin, ImmMax;

  bool has(InstrFlag F) const { return (Flags & F) != 0; }
};

struct SchedClassDesc {
  const char *Name;
  FuncUnit Unit;
  uint8_t Latency;     ///< cycles from issue until the result can be read
  uint8_t IssueCycles; ///< cycles the unit stays busy per warp instruction
                       ///< (ReleaseAtCycles), for a full 32-lane datapath
};

struct SpecialRegDesc {
  const char *Name; ///< as written after '%', e.g. "tid.x"
  uint8_t Index;
};

/// The number of general registers the encoding can name (r0 reads as zero).
/// ISA.cpp checks this against the GPR class in SimtRegisterInfo.td.
constexpr unsigned NumEncodableGPRs = 64;
/// Threads per warp, on every target.
constexpr unsigned WarpSize = 32;

const InstrDesc &getDesc(Opcode Op);
const FormatDesc &getFormatDesc(Format F);
const SchedClassDesc &getSchedClassDesc(SchedClass S);
const char *getFuncUnitName(FuncUnit U);
llvm::ArrayRef<SpecialRegDesc> specialRegs();
std::optional<SpecialReg> lookupSpecialReg(llvm::StringRef Name);
unsigned numOpcodes(); ///< excluding INVALID
/// Opcode with index I in [0, numOpcodes()).
inline Opcode opcodeAt(unsigned I) { return static_cast<Opcode>(I); }
std::optional<Opcode> lookupMnemonic(llvm::StringRef Mnemonic);
/// Selection patterns (SimtPatterns.td) in priority order; one register
/// class (GPR, class 0); target::PatternDesc::Opcode is an Opcode.
llvm::ArrayRef<target::PatternDesc> selectionPatterns();

/// An instruction with its fields split out. Unused fields are zero.
struct DecodedInst {
  Opcode Op = Opcode::INVALID;
  uint8_t Rd = 0, Rs1 = 0, Rs2 = 0, Rs3 = 0;
  int32_t Imm = 0; ///< sign-extended for SImm/PCRel, zero-extended for UImm

  bool operator==(const DecodedInst &) const = default;
};

/// Encodes \p I; fails naming the instruction and the field when a register
/// or immediate does not fit.
llvm::Expected<uint32_t> encode(const DecodedInst &I);
/// Decodes \p Word; nullopt for an unknown opcode or nonzero unused bits.
std::optional<DecodedInst> decode(uint32_t Word);
/// Range of an immediate field of \p Op: [Min, Max].
std::pair<int64_t, int64_t> immRange(Opcode Op);
/// The assembly syntax's names (docs/Assembly.md), one rule for the
/// assembler's lexer, the disassembler and the compiler's listing: an
/// identifier (a label, a symbol's name, a mnemonic) is
/// [A-Za-z_.][A-Za-z0-9_.]*, and one that reads as a register (`r12`,
/// `R3`: parseRegisterName) is never a label.
inline bool isAsmIdentifierStart(char C) {
  return llvm::isAlpha(C) || C == '_' || C == '.';
}
inline bool isAsmIdentifierChar(char C) {
  return llvm::isAlnum(C) || C == '_' || C == '.';
}
inline bool isAsmIdentifier(llvm::StringRef S) {
  return !S.empty() && isAsmIdentifierStart(S.front()) &&
         llvm::all_of(S.drop_front(), isAsmIdentifierChar);
}
/// "r12" or "R12" -> 12 (any number of digits that fit; the range is the
/// caller's to check), else nullopt.
inline std::optional<unsigned> parseRegisterName(llvm::StringRef S) {
  unsigned N = 0;
  if (S.size() < 2 || (S[0] != 'r' && S[0] != 'R') || S.drop_front(1).getAsInteger(10, N))
    return std::nullopt;
  return N;
}

/// Whether the assembler's `li`/`lif` of the 32-bit \p Value is one word:
/// movi's sign-extended immediate holds it; otherwise it takes two, movi of
/// the low half then movt of the high half (docs/Assembly.md). The one rule
/// for the assembler, the image builder and the listing's word counts.
inline bool fitsOneMovi(uint32_t Value) {
  auto [Min, Max] = immRange(Opcode::MOVI);
  int64_t Signed = static_cast<int32_t>(Value);
  return Signed >= Min && Signed <= Max;
}
/// "mnemonic operands" for \p Op: its AsmString with each $name replaced by
/// what \p PrintOperand writes for the operand (index in assembly order)
/// that lives in that field; "[r1 + -4]" comes out as "[r1 - 4]". The one
/// walker of the templates for every printer (formatInst, the compiler's
/// assembly printer).
std::string formatWithTemplate(
    Opcode Op, llvm::function_ref<void(llvm::raw_ostream &, unsigned)> PrintOperand);
/// Assembly text for \p I at code address \p PC, e.g. "add r3, r1, r2";
/// branch targets are printed as absolute hex code addresses.
std::string formatInst(const DecodedInst &I, uint32_t PC);

} // namespace tandem::simt
