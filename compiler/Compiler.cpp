//===- Compiler.cpp - the back end's pipeline, one stage after another ----===//
//
// compileFile is the whole compiler in order; every stage lives in its own
// folder and states its input invariants and guarantees in its header.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"

#include "Assembler.h"
#include "emit/ImageBuilder.h"
#include "emit/PtxPrinter.h"
#include "emit/SimtAsmPrinter.h"
#include "frontend/Frontend.h"
#include "isel/ConstLayout.h"
#include "isel/LowerControlFlow.h"
#include "isel/MIR.h"
#include "isel/Prepare.h"
#include "isel/SelectPtx.h"
#include "isel/SelectSimt.h"
#include "regalloc/CoalesceLaneCopies.h"
#include "regalloc/RegAlloc.h"
#include "sched/ListScheduler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Timer.h"

#include <optional>

using namespace llvm;

namespace tandem::compiler {

ArrayRef<StringRef> stageNames() {
  static const StringRef Names[] = {"prepare",  "isel",     "schedule",  "lower-cfg",
                                    "coalesce", "regalloc", "out-of-ssa"};
  return Names;
}

namespace {

bool wantsPrintAfter(const CompileOptions &Opts, StringRef Stage) {
  return Opts.PrintStream && llvm::is_contained(Opts.PrintAfter, Stage);
}

void printStage(const CompileOptions &Opts, StringRef Stage, const mir::Function &Fn,
                mir::TargetKind T = mir::TargetKind::Simt) {
  if (!wantsPrintAfter(Opts, Stage))
    return;
  *Opts.PrintStream << "# *** MIR after " << Stage << " (" << Fn.Name << ") ***\n";
  mir::print(*Opts.PrintStream, Fn, T);
}

/// Ends \p T's stage, if any, and times \p Stage in it while --time-passes
/// is on; the timers of one name add up over kernels and calls.
void startStage(std::optional<NamedRegionTimer> &T, StringRef Stage, const CompileOptions &Opts) {
  T.emplace(Stage, Stage, "tandem", "Tandem compile stages", Opts.TimePasses);
}

/// A stage's output must satisfy the MIR invariants the next stage assumes;
/// a violation is a compiler bug, reported with the stage that caused it.
Error verifyAfter(StringRef Stage, const mir::Function &Fn, bool AfterCfgLowering,
                  mir::TargetKind T = mir::TargetKind::Simt) {
  std::string Problem = mir::verify(Fn, T, AfterCfgLowering);
  if (Problem.empty())
    return Error::success();
  return createStringError(formatv("internal compiler error after {0}: {1}", Stage, Problem));
}

/// One kernel from prepared IR to allocated MIR, then written to each output
/// given: its assembly text on \p Asm (--emit asm), its code straight into
/// \p Image (--emit obj), its MIR on \p MirOut (--emit mir).
Error compileKernel(Function &Kernel, const CompileOptions &Opts, raw_ostream *Asm,
                    emit::SimtImageBuilder *Image, raw_ostream *MirOut,
                    KernelReport &Report) {
  std::optional<NamedRegionTimer> Timer;
  startStage(Timer, "isel", Opts);
  Expected<std::unique_ptr<mir::Function>> Selected =
      isel::selectSimt(Kernel, frontend::kernelDisplayName(Kernel));
  Timer.reset();
  if (!Selected)
    return Selected.takeError();
  mir::Function &Fn = **Selected;
  if (Error E = verifyAfter("isel", Fn, /*AfterCfgLowering=*/false))
    return E;
  printStage(Opts, "isel", Fn);

  if (Opts.OptLevel > 0 && Opts.Schedule) {
    sched::ScheduleOptions Sched;
    Sched.NumRegisters = Opts.NumRegisters;
    Sched.GlobalMemoryLatency = Opts.GlobalMemoryLatency;
    startStage(Timer, "schedule", Opts);
    sched::scheduleFunction(Fn, Sched);
    Timer.reset();
    if (Error E = verifyAfter("schedule", Fn, /*AfterCfgLowering=*/false))
      return E;
    printStage(Opts, "schedule", Fn);
  }

  startStage(Timer, "lower-cfg", Opts);
  Error Lowered = isel::lowerControlFlow(Fn);
  Timer.reset();
  if (Lowered)
    return Lowered;
  if (Error E = verifyAfter("lower-cfg", Fn, /*AfterCfgLowering=*/true))
    return E;
  printStage(Opts, "lower-cfg", Fn);

  if (Opts.OptLevel > 0 && Opts.CoalesceLaneCopies) {
    startStage(Timer, "coalesce", Opts);
    regalloc::coalesceLaneCopies(Fn);
    Timer.reset();
    if (Error E = verifyAfter("coalesce", Fn, /*AfterCfgLowering=*/true))
      return E;
    printStage(Opts, "coalesce", Fn);
  }

  regalloc::RegAllocOptions RA;
  RA.NumRegisters = Opts.NumRegisters;
  RA.Check = Opts.CheckAllocation;
  startStage(Timer, "regalloc", Opts);
  Error Allocated = regalloc::allocateRegisters(Fn, RA);
  Timer.reset();
  if (Allocated)
    return Allocated;
  if (Error E = verifyAfter("regalloc", Fn, /*AfterCfgLowering=*/true))
    return E;
  printStage(Opts, "regalloc", Fn);

  startStage(Timer, "emit", Opts);
  if (MirOut)
    mir::print(*MirOut, Fn, mir::TargetKind::Simt);
  if (Asm)
    emit::printSimtAsm(*Asm, Fn);
  if (Image)
    if (Error E = Image->addKernel(Fn))
      return E;
  Timer.reset();

  Report.Name = Fn.Name;
  Report.RegistersUsed = Fn.Stats.RegistersUsed;
  Report.SpillBytes = Fn.Stats.SpillBytes;
  Report.Instructions = emit::simtCodeWords(Fn);
  Report.DivergenceCheckBranches = isel::divergenceCheckBranches(Kernel);
  return Error::success();
}

/// The ptx path: selection, out of SSA, and the module printed at the end
/// (shared variables are module-scope declarations). BR/BRCOND/RET stay
/// pseudos to the printer, so MIR is verified with the pre-lowering rules.
Expected<CompileResult> compilePtxModule(Module &M, StringRef SourceName,
                                         const CompileOptions &Opts) {
  std::vector<Function *> Kernels = frontend::kernelsOf(M);
  if (Kernels.empty())
    return createStringError(
        formatv("{0}: no kernel (__global__ function) to compile", SourceName));
  CompileResult Result;
  std::vector<isel::PtxSelection> Selected;
  std::string MirText;
  raw_string_ostream Mir(MirText);
  for (Function *K : Kernels) {
    std::optional<NamedRegionTimer> Timer;
    startStage(Timer, "isel", Opts);
    Expected<isel::PtxSelection> S = isel::selectPtx(*K, frontend::kernelDisplayName(*K));
    Timer.reset();
    if (!S)
      return S.takeError();
    mir::Function &Fn = *S->Fn;
    if (Error E = verifyAfter("isel", Fn, /*AfterCfgLowering=*/false, mir::TargetKind::Ptx))
      return E;
    printStage(Opts, "isel", Fn, mir::TargetKind::Ptx);
    startStage(Timer, "out-of-ssa", Opts);
    isel::lowerPtxOutOfSSA(Fn);
    Timer.reset();
    if (Error E = verifyAfter("out-of-ssa", Fn, /*AfterCfgLowering=*/false, mir::TargetKind::Ptx))
      return E;
    printStage(Opts, "out-of-ssa", Fn, mir::TargetKind::Ptx);
    if (Opts.Emit == EmitKind::MIR)
      mir::print(Mir, Fn, mir::TargetKind::Ptx);
    KernelReport Report;
    Report.Name = Fn.Name;
    Report.RegistersUsed = emit::ptxRegisterCount(Fn); // virtual: ptxas allocates
    Report.Instructions = emit::ptxInstructionCount(Fn);
    Result.Kernels.push_back(std::move(Report));
    Selected.push_back(std::move(*S));
  }
  if (Opts.Emit == EmitKind::MIR) {
    Result.Text = std::move(MirText);
    return Result;
  }
  Expected<std::vector<ptx::KernelInfo::GlobalVar>> Exported = isel::ptxExportedVariables(M);
  if (!Exported)
    return createStringError(formatv("{0}: {1}", SourceName, toString(Exported.takeError())));
  std::vector<emit::PtxKernelRef> Refs;
  for (const isel::PtxSelection &S : Selected)
    Refs.push_back({S.Fn.get(), &S.Info});
  emit::PtxModuleOptions PO;
  PO.Arch = Opts.Arch;
  PO.SourceName = sys::path::filename(SourceName).str();
  PO.OptLevel = Opts.OptLevel;
  raw_string_ostream OS(Result.Text);
  std::optional<NamedRegionTimer> EmitTimer;
  startStage(EmitTimer, "emit", Opts);
  emit::printPtxModule(OS, Refs, *Exported, PO);
  return Result;
}

} // namespace

CompileOptions optionsFor(const AcceleratorConfig &C) {
  CompileOptions O;
  O.Target = "simt";
  O.OptLevel = 2;
  O.Emit = EmitKind::Obj;
  O.NumRegisters = C.Registers;
  O.GlobalMemoryLatency = C.Dram.LatencyCycles;
  return O;
}

Expected<CompileResult> compileFile(StringRef Path, const CompileOptions &Opts) {
  bool IsPtx = Opts.Target == "ptx";
  if (Opts.Target != "simt" && !IsPtx)
    return createStringError(
        formatv("target '{0}': the targets are simt and ptx", Opts.Target));
  if (IsPtx && Opts.Emit == EmitKind::Obj)
    return createStringError("--target ptx writes PTX, which is text: use --emit asm (the "
                             "default for ptx); ptxas or the CUDA driver assembles it");
  if (Opts.OptLevel > 3)
    return createStringError(formatv("-O{0}: the levels are -O0 to -O3", Opts.OptLevel));

  LLVMContext Ctx;
  frontend::FrontendOptions FE;
  FE.Use32BitPointers = !IsPtx; // simt is a 32-bit machine; PTX uses nvptx64
  FE.OptLevel = Opts.OptLevel;
  FE.Arch = Opts.Arch;
  FE.ExtraClangArgs = Opts.ExtraClangArgs;
  std::optional<NamedRegionTimer> Timer;
  startStage(Timer, "front-end", Opts);
  Expected<std::unique_ptr<Module>> M = frontend::loadKernelSource(Path, Ctx, FE);
  Timer.reset();
  if (!M)
    return M.takeError();

  isel::PrepareOptions Prep;
  Prep.Target = IsPtx ? isel::PrepTarget::Ptx : isel::PrepTarget::Simt;
  Prep.OptLevel = Opts.OptLevel;
  Prep.PrintAfter = Opts.PrintAfter;
  Prep.PrintStream = Opts.PrintStream;
  startStage(Timer, "prepare", Opts);
  Error Prepared = isel::prepareModule(**M, Prep);
  Timer.reset();
  if (Prepared)
    return Prepared;

  if (Opts.Emit == EmitKind::LL) {
    CompileResult Result;
    raw_string_ostream OS(Result.Text);
    (*M)->print(OS, nullptr);
    return Result;
  }
  if (IsPtx)
    return compilePtxModule(**M, Path, Opts);
  return compilePreparedModule(**M, Path, Opts);
}

Expected<CompileResult> compilePreparedModule(Module &M, StringRef SourceName,
                                              const CompileOptions &Opts) {
  std::vector<Function *> Kernels = frontend::kernelsOf(M);
  if (Kernels.empty())
    return createStringError(
        formatv("{0}: no kernel (__global__ function) to compile", SourceName));

  CompileResult Result;
  // --emit obj encodes the MIR straight into the image (a third of the back
  // end's time went to printing and re-parsing the listing); the image is
  // byte-identical to the assembled listing's (ImageBuilderTest).
  if (Opts.Emit == EmitKind::Obj) {
    emit::SimtImageBuilder Image;
    for (Function *K : Kernels) {
      KernelReport Report;
      if (Error E = compileKernel(*K, Opts, nullptr, &Image, nullptr, Report))
        return E;
      Result.Kernels.push_back(std::move(Report));
    }
    Expected<isel::ConstLayout> Const = isel::layoutConstants(M); // all kernels
    if (!Const)
      return Const.takeError();
    if (!Const->Symbols.empty() || Const->DataBaseSlot) // as printGlobalSections
      Image.setConstSection(Const->Bytes);
    Expected<isel::SectionLayout> Data = isel::layoutDeviceData(M); // __device__
    if (!Data)
      return Data.takeError();
    if (!Data->Symbols.empty() && Const->DataBaseSlot)
      Image.setDataSection(Data->Bytes, *Const->DataBaseSlot);
    Image.setSymbols(*Const, *Data);
    Expected<KernelImage> Img = Image.take();
    if (!Img)
      return Img.takeError();
    Result.Image = std::move(*Img);
    return Result;
  }

  // --emit mir stops after allocation: the MIR is the output, so there is no
  // listing to print and nothing to assemble.
  if (Opts.Emit == EmitKind::MIR) {
    raw_string_ostream Mir(Result.Text);
    for (Function *K : Kernels) {
      KernelReport Report;
      if (Error E = compileKernel(*K, Opts, nullptr, nullptr, &Mir, Report))
        return E;
      Result.Kernels.push_back(std::move(Report));
    }
    return Result;
  }

  std::string AsmText;
  raw_string_ostream Asm(AsmText);
  Asm << "# " << SourceName << ", compiled by tandem for simt at -O" << Opts.OptLevel << "\n";
  for (Function *K : Kernels) {
    KernelReport Report;
    if (Error E = compileKernel(*K, Opts, &Asm, nullptr, nullptr, Report))
      return E;
    Result.Kernels.push_back(std::move(Report));
  }
  if (Error E = isel::printGlobalSections(Asm, M)) // __constant__, __device__: all kernels
    return E;
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
