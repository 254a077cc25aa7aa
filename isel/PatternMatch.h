//===- PatternMatch.h - The one table-driven matcher, for every target -*- C++ -*-===//
//
// Input: a target's selection-pattern table (target/common/SelectionPattern.h,
// generated from target/<t>/*Patterns.td) and one IR operation described
// target-independently: its pattern name (IR opcode, intrinsic base name,
// "icmp.slt"-style compare, "atomicrmw.add.global"-style atomic; see
// target/common/IRNodes.td), the register class of its result and, per
// operand, the operand's class and, for a constant, the immediate the target
// would encode (for an address the selector folded: base class and offset).
// Guarantees: findPattern returns the first pattern in .td order whose node,
// result class and operand classes are the operation's and whose immediate
// operands (simm12, ...) the constants fit; patternOperands lays out the
// chosen instruction's MIR operands (def first, then each input where the
// pattern says, as an immediate where the pattern operand takes one, an
// address as its base register and offset, fixed values where the result
// names them). Neither emits anything: the selector
// owns registers, constants and emission (SelectSimt.cpp, SelectPtx.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "MIR.h"

#include "SelectionPattern.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace tandem::isel {

/// One operand of the IR operation being selected.
struct PatternInput {
  uint8_t Class = 0;          ///< register class of the value (the target's enum)
  std::optional<int64_t> Imm; ///< a constant: the immediate the target would encode
  /// An address the selector folded: a base register of Class, offset Imm.
  /// Only an addressing-mode pattern operand (target::PatOperandKind::Addr)
  /// takes it.
  bool IsAddress = false;
};

/// The first pattern of \p Table for \p IRName whose result class is
/// \p ResultClass (target::NoResultClass: no result) and whose operands
/// take \p Inputs; nullptr when none does.
const target::PatternDesc *findPattern(llvm::ArrayRef<target::PatternDesc> Table,
                                       llvm::StringRef IRName, int16_t ResultClass,
                                       llvm::ArrayRef<PatternInput> Inputs);

/// The pattern name of a compare: "icmp.slt", "fcmp.oeq", ... (the
/// set<pred> nodes of target/common/IRNodes.td).
inline std::string comparePatternName(llvm::CmpInst::Predicate P) {
  return (llvm::CmpInst::isIntPredicate(P) ? "icmp." : "fcmp.") +
         llvm::CmpInst::getPredicateName(P).str();
}

/// True when pattern operand \p K of \p P takes only an immediate (a
/// caller that rewrites an operation to reach an immediate form checks it).
inline bool takesImmediate(const target::PatternDesc &P, unsigned K) {
  return P.Args[K].Kind == target::PatOperandKind::Imm;
}

/// The MIR operands of \p P's instruction for \p Inputs: def \p Dst when the
/// instruction has one, then operands in instruction order. \p RegOf gives
/// the register of input K where it is not an immediate; it is called in
/// input order, so registers are materialized in the IR's operand order.
llvm::Expected<llvm::SmallVector<mir::Operand, 6>>
patternOperands(const target::PatternDesc &P, mir::Reg Dst, llvm::ArrayRef<PatternInput> Inputs,
                llvm::function_ref<llvm::Expected<mir::Reg>(unsigned K)> RegOf);

} // namespace tandem::isel
