//===- PatternRecords.h - Selection patterns of any target, checked -------===//
//
// Reads the Pat<> records of a target (target/common/Target.td, "Selection
// patterns") into plain structs, for every target alike: each target model
// (SimtRecords.h, PtxRecords.h) describes its instructions' operands as
// PatInstOperand lists and this reader does the rest. The result is the
// table target/common/SelectionPattern.h describes and isel/PatternMatch.h
// reads.
//
// Checked, as TableGen errors at the pattern: one result instruction with at
// most one def; pattern operands written Type:$name, each used by the result
// exactly once (by name, so the result may reorder them); every result
// operand is a pattern operand or a fixed value (a SpecialRegister or a
// PatImm); the result gives the instruction exactly its use operands; a
// register-class operand feeds a register (or register-or-immediate) operand
// of the same class; an immediate operand type (simm12) is the instruction
// operand's own type; an addressing mode (AddrMode) feeds a base register of
// its class and the offset operand of its type right after it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Record.h"

#include <string>
#include <vector>

namespace tandem::tblgen {

/// One MIR operand of an instruction, as the pattern reader needs it.
struct PatInstOperand {
  std::string Name;               ///< as in the dag, without '$'
  const llvm::Record *Type = nullptr; ///< the dag's operand type record
  /// Reg (register only), RegOrImm, Imm (an immediate operand type),
  /// Fixed (an operand only a fixed value can fill: special register,
  /// condition code).
  std::string Kind;
  std::string Class; ///< register class record name (Reg, RegOrImm)
  bool IsDef = false;
  int64_t ImmMin = 0, ImmMax = 0; ///< Imm
};

struct PatArgModel {
  std::string Kind; ///< Reg, RegOrImm, Imm, Addr (base + offset, two operands)
  std::string Class;
  unsigned InstOperand = 0;
  int64_t ImmMin = 0, ImmMax = 0;
};

struct PatFixedModel {
  unsigned InstOperand = 0;
  int64_t Value = 0;
};

struct SelPatternModel {
  const llvm::Record *Def = nullptr;
  std::string IRName;
  std::string Result;      ///< instruction record name
  std::string ResultClass; ///< the def's class, empty when none
  unsigned NumInstOperands = 0;
  std::vector<PatArgModel> Args;
  std::vector<PatFixedModel> Fixed;
};

/// \p OperandsOf gives an instruction record's MIR operands in MIR order
/// (nullptr: not an instruction of this target).
std::vector<SelPatternModel>
readSelectionPatterns(llvm::RecordKeeper &Records,
                      llvm::function_ref<const std::vector<PatInstOperand> *(const llvm::Record *)>
                          OperandsOf);

/// Writes `static const target::PatternDesc PatternDescs[] = {...};`.
/// \p ClassExpr spells a register class as a C++ constant expression,
/// \p OpcodeExpr an instruction.
void emitPatternTable(llvm::ArrayRef<SelPatternModel> Patterns,
                      llvm::function_ref<std::string(llvm::StringRef)> ClassExpr,
                      llvm::function_ref<std::string(llvm::StringRef)> OpcodeExpr,
                      llvm::raw_ostream &OS);

} // namespace tandem::tblgen
