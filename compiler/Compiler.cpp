//===- Compiler.cpp - the back end's pipeline, one stage after another ----===//
//
// compileFile is the whole compiler in order; every stage lives in its own
// folder and states its input invariants and guarantees in its header.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"

#include "Assembler.h"
#include "emit/SimtAsmPrinter.h"
#include "frontend/Frontend.h"
#include "isel/LowerControlFlow.h"
#include "isel/MIR.h"
#include "isel/Prepare.h"
#include "isel/SelectSimt.h"
#include "regalloc/RegAlloc.h"
#include "sched/ListScheduler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace tandem::compiler {

ArrayRef<StringRef> stageNames() {
  static const StringRef Names[] = {"prepare", "isel", "schedule", "lower-cfg", "regalloc"};
  return Names;
}

namespace {

bool wantsPrintAfter(const CompileOptions &Opts, StringRef Stage) {
  return Opts.PrintStream && llvm::is_contained(Opts.PrintAfter, Stage);
}

void printStage(const CompileOptions &Opts, StringRef Stage, const mir::Function &Fn) {
  if (!wantsPrintAfter(Opts, Stage))
    return;
  *Opts.PrintStream << "# *** MIR after " << Stage << " (" << Fn.Name << ") ***\n";
  mir::print(*Opts.PrintStream, Fn, mir::TargetKind::Simt);
}

/// A stage's output must satisfy the MIR invariants the next stage assumes;
/// a violation is a compiler bug, reported with the stage that caused it.
Error verifyAfter(StringRef Stage, const mir::Function &Fn, bool AfterCfgLowering) {
  std::string Problem = mir::verify(Fn, mir::TargetKind::Simt, AfterCfgLowering);
  if (Problem.empty())
    return Error::success();
  return createStringError(formatv("internal compiler error after {0}: {1}", Stage, Problem));
}

/// One kernel from prepared IR to assembly text.
Error compileKernel(Function &Kernel, const CompileOptions &Opts, raw_ostream &Asm,
                    raw_ostream *MirOut, KernelReport &Report) {
  Expected<std::unique_ptr<mir::Function>> Selected =
      isel::selectSimt(Kernel, frontend::kernelDisplayName(Kernel));
  if (!Selected)
    return Selected.takeError();
  mir::Function &Fn = **Selected;
  if (Error E = verifyAfter("isel", Fn, /*AfterCfgLowering=*/false))
    return E;
  printStage(Opts, "isel", Fn);

  if (Opts.OptLevel > 0) {
    sched::ScheduleOptions Sched;
    Sched.NumRegisters = Opts.NumRegisters;
    Sched.GlobalMemoryLatency = Opts.GlobalMemoryLatency;
    sched::scheduleFunction(Fn, Sched);
    if (Error E = verifyAfter("schedule", Fn, /*AfterCfgLowering=*/false))
      return E;
    printStage(Opts, "schedule", Fn);
  }

  if (Error E = isel::lowerControlFlow(Fn))
    return E;
  if (Error E = verifyAfter("lower-cfg", Fn, /*AfterCfgLowering=*/true))
    return E;
  printStage(Opts, "lower-cfg", Fn);

  regalloc::RegAllocOptions RA;
  RA.NumRegisters = Opts.NumRegisters;
  RA.Check = Opts.CheckAllocation;
  if (Error E = regalloc::allocateRegisters(Fn, RA))
    return E;
  if (Error E = verifyAfter("regalloc", Fn, /*AfterCfgLowering=*/true))
    return E;
  printStage(Opts, "regalloc", Fn);

  if (MirOut)
    mir::print(*MirOut, Fn, mir::TargetKind::Simt);
  emit::printSimtAsm(Asm, Fn);

  Report.Name = Fn.Name;
  Report.RegistersUsed = Fn.Stats.RegistersUsed;
  Report.SpillBytes = Fn.Stats.SpillBytes;
  Report.Instructions = emit::simtCodeWords(Fn);
  return Error::success();
}

} // namespace

Expected<CompileResult> compileFile(StringRef Path, const CompileOptions &Opts) {
  if (Opts.Target != "simt")
    return createStringError(
        formatv("target '{0}' is not built yet (issue 4 builds ptx after simt); use "
                "--target simt",
                Opts.Target));
  if (Opts.OptLevel > 3)
    return createStringError(formatv("-O{0}: the levels are -O0 to -O3", Opts.OptLevel));

  LLVMContext Ctx;
  frontend::FrontendOptions FE;
  FE.Use32BitPointers = true;
  FE.OptLevel = Opts.OptLevel;
  FE.Arch = Opts.Arch;
  FE.ExtraClangArgs = Opts.ExtraClangArgs;
  Expected<std::unique_ptr<Module>> M = frontend::loadKernelSource(Path, Ctx, FE);
  if (!M)
    return M.takeError();

  isel::PrepareOptions Prep;
  Prep.Target = isel::PrepTarget::Simt;
  Prep.OptLevel = Opts.OptLevel;
  Prep.PrintAfter = Opts.PrintAfter;
  Prep.PrintStream = Opts.PrintStream;
  if (Error E = isel::prepareModule(**M, Prep))
    return E;

  if (Opts.Emit == EmitKind::LL) {
    CompileResult Result;
    raw_string_ostream OS(Result.Text);
    (*M)->print(OS, nullptr);
    return Result;
  }
  return compilePreparedModule(**M, Path, Opts);
}

Expected<CompileResult> compilePreparedModule(Module &M, StringRef SourceName,
                                              const CompileOptions &Opts) {
  std::vector<Function *> Kernels = frontend::kernelsOf(M);
  if (Kernels.empty())
    return createStringError(
        formatv("{0}: no kernel (__global__ function) to compile", SourceName));

  CompileResult Result;
  std::string AsmText, MirText;
  raw_string_ostream Asm(AsmText), Mir(MirText);
  Asm << "# " << SourceName << ", compiled by tandem for simt at -O" << Opts.OptLevel << "\n";
  for (Function *K : Kernels) {
    KernelReport Report;
    if (Error E = compileKernel(*K, Opts, Asm,
                                Opts.Emit == EmitKind::MIR ? &Mir : nullptr, Report))
      return E;
    Result.Kernels.push_back(std::move(Report));
  }

  if (Opts.Emit == EmitKind::MIR) {
    Result.Text = std::move(MirText);
    return Result;
  }
  // The listing is what the assembler reads, so --emit asm is checked by
  // assembling it too; a failure here is the printer's bug.
  Expected<KernelImage> Img = tandem::assemble(AsmText, SourceName.str() + ".s");
  if (!Img)
    return createStringError(formatv("internal compiler error: the generated assembly "
                                     "does not assemble: {0}",
                                     toString(Img.takeError())));
  Result.Image = std::move(*Img);
  if (Opts.Emit == EmitKind::Asm)
    Result.Text = std::move(AsmText);
  return Result;
}

} // namespace tandem::compiler
