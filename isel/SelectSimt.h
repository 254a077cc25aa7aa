//===- SelectSimt.h - LLVM IR to simt MIR ------------------------*- C++ -*-===//
//
// Input: one kernel of a prepared module (isel/Prepare.h guarantees).
// Output: an SSA mir::Function (see MIR.h "isel"): target instructions from
// the table of selection patterns (SimtPatterns.td, simt::selectionPatterns())
// where one applies and from the lowering rules in SelectSimt.cpp otherwise;
// PHI, BR, BRCOND (Divergent set from LLVM's UniformityInfo), RET; vregs
// marked Uniform when uniformity analysis says so; LoopDepth per block.
// Legalization happens here: i1/i8/i16 promoted to 32 bits, i64 split into
// 32-bit pairs, f64 rejected. Errors name the kernel, the IR instruction
// and the source line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "MIR.h"

#include "llvm/IR/Function.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace tandem::isel {

/// Selects \p Kernel (a kernel of a prepared module). \p DisplayName becomes
/// mir::Function::Name.
llvm::Expected<std::unique_ptr<mir::Function>>
selectSimt(llvm::Function &Kernel, llvm::StringRef DisplayName);

} // namespace tandem::isel
