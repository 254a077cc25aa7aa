//===- Compiler.h - one kernel source through the whole back end -*- C++ -*-===//
//
// The pipeline, stage by stage (Compiler.cpp shows it on one screen):
//   frontend::loadKernelSource   .cu (clang-19) / .ll / .bc -> LLVM module
//   isel::prepareModule          LLVM passes: -O pipeline, structurize, checks
//   per kernel:
//     isel::selectSimt           IR -> SSA MIR (table-driven patterns)
//     sched::scheduleFunction    list scheduling over the .td latencies (-O1+,
//                                unless --no-schedule)
//     isel::lowerControlFlow     exec masks, branches, out of SSA
//     regalloc::allocateRegisters  + checkAllocation
//     emit::printSimtAsm         -> assembly text
//   emit::assemble               -> kernel image
// For --target ptx, per kernel after preparation (nvptx64, no
// structurization):
//     isel::selectPtx            IR -> SSA MIR (PtxPatterns.td + rules)
//     isel::lowerPtxOutOfSSA     PHIs to copies (PTX registers are virtual)
//   emit::printPtxModule         -> PTX text (CompileResult::Text)
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Config.h"
#include "tandem/KernelImage.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace tandem::compiler {

enum class EmitKind { LL, MIR, Asm, Obj };

struct CompileOptions {
  std::string Target = "simt"; ///< "simt" or "ptx"
  unsigned OptLevel = 2;       ///< 0..3
  EmitKind Emit = EmitKind::Obj;
  /// Registers the accelerator provides (the configuration's `registers`).
  unsigned NumRegisters = 32;
  /// Cycles a global load is expected to take beyond the pipeline (the
  /// configuration's DRAM latency); the scheduler hoists loads by it.
  unsigned GlobalMemoryLatency = 100;
  std::string Arch = "sm_90";
  std::vector<std::string> ExtraClangArgs;
  /// --print-after: LLVM pass names, or one of our stages: "prepare",
  /// "isel", "schedule", "lower-cfg", "coalesce", "regalloc".
  std::vector<std::string> PrintAfter;
  llvm::raw_ostream *PrintStream = nullptr;
  /// Run the register-allocation checker (on by default; it is cheap).
  bool CheckAllocation = true;
  /// Run the list scheduler at -O1 and above (--no-schedule: off, to see
  /// what it gives; the code is then in selection order).
  bool Schedule = true;
  /// Lane-aware copy coalescing before register allocation at -O1 and
  /// above (--no-coalesce: off, to see what it gives).
  bool CoalesceLaneCopies = true;
  /// --time-passes, as llc's: time each stage (front end, prepare, and the
  /// back end's stages summed over kernels) in llvm::NamedRegionTimers of
  /// the group "tandem"; LLVM prints the table to standard error at exit.
  bool TimePasses = false;
};

/// simt at -O2, a kernel image, with what \p C decides: its registers and
/// its DRAM latency (the scheduler hoists global loads by it).
CompileOptions optionsFor(const AcceleratorConfig &C);

struct KernelReport {
  std::string Name;
  unsigned RegistersUsed = 0;
  unsigned SpillBytes = 0;
  unsigned Instructions = 0; ///< code words in the image
  /// simt: branches LLVM's uniformity analysis called uniform that our
  /// conservative divergence check found divergent (isel/DivergenceCheck.h);
  /// the kernel was structurized again without trusting LLVM there.
  unsigned DivergenceCheckBranches = 0;
};

struct CompileResult {
  /// --emit ll|mir|asm: the text (ptx: asm is the PTX module). --emit obj:
  /// empty.
  std::string Text;
  /// --emit obj (and asm, which is assembled to check it): the image.
  std::optional<KernelImage> Image;
  std::vector<KernelReport> Kernels;
};

llvm::Expected<CompileResult> compileFile(llvm::StringRef Path,
                                          const CompileOptions &Opts);

/// The back end alone (selection to image) on a module prepareModule has
/// already prepared; what compileFile runs after preparation, and what the
/// compile-speed benchmark times against llc. \p SourceName is used in
/// messages and listings.
llvm::Expected<CompileResult> compilePreparedModule(llvm::Module &M,
                                                    llvm::StringRef SourceName,
                                                    const CompileOptions &Opts);

/// Stage names --print-after accepts besides LLVM's pass names ("out-of-ssa"
/// is ptx's; "schedule", "lower-cfg" and "regalloc" are simt's).
llvm::ArrayRef<llvm::StringRef> stageNames();

} // namespace tandem::compiler
