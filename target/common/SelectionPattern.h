//===- SelectionPattern.h - The selection-pattern table of any target -*- C++ -*-===//
//
// tandem-tblgen writes every target's Pat<> records (target/<t>/*Patterns.td)
// into an array of these descriptors; isel/PatternMatch.h is the one matcher
// that reads them, for every target. Nothing here is target-specific: a
// register class is the target's class enum value, an opcode the target's
// opcode enum value, operand positions index the target's MIR operands
// (defs first).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace tandem::target {

/// How a pattern operand is matched against an IR operand and emitted.
enum class PatOperandKind : uint8_t {
  Reg,      ///< a value of the class, always in a register
  RegOrImm, ///< a value of the class; a constant becomes an immediate
  Imm,      ///< only a constant in [ImmMin, ImmMax], as an immediate
  Addr,     ///< an address the selector folded: base register (of Class)
            ///< at InstOperand, offset in [ImmMin, ImmMax] right after it
};

/// Pattern operand K: what it matches and which MIR operand it becomes.
struct PatOperandDesc {
  PatOperandKind Kind;
  uint8_t Class;       ///< register class of the value (the target's enum)
  uint8_t InstOperand; ///< index of the MIR operand it fills
  int64_t ImmMin, ImmMax;
};

/// A MIR operand the result fixes (a special register, a condition code),
/// not taken from the IR.
struct PatFixedDesc {
  uint8_t InstOperand;
  int64_t Value;
};

/// No result register: the instruction defines nothing (bar, a store).
constexpr int16_t NoResultClass = -1;

/// One `def : Pat<(node ...), (INST ...)>`: IR operation IRName (an IR
/// opcode name, an intrinsic base name, or a compare "icmp.slt") whose
/// operands fit Args and whose result has ResultClass becomes instruction
/// Opcode with NumInstOperands MIR operands: the def (if any) first, Args
/// and Fixed where their InstOperand says.
struct PatternDesc {
  const char *IRName;
  int16_t ResultClass;
  uint16_t Opcode;
  uint8_t NumInstOperands;
  uint8_t NumArgs;
  PatOperandDesc Args[4];
  uint8_t NumFixed;
  PatFixedDesc Fixed[2];
};

} // namespace tandem::target
