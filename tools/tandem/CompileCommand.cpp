//===- CompileCommand.cpp - `tandem compile`: CUDA C to a kernel image ----===//
//
//   tandem compile FILE.cu|FILE.ll|FILE.bc [--target simt|ptx] [-O0..-O3]
//                  [--emit ll|mir|asm|obj] [-o OUT] [--config CFG.json]
//                  [--print-after PASS]... [--arch sm_90] [-I DIR]
//                  [-D NAME[=V]] [--stats] [--no-schedule] [--no-coalesce]
//                  [--time-passes]
//
// Runs the back end (compiler/Compiler.h) and writes one output, atomically
// (a temporary file next to OUT, then rename), so a failed compile never
// leaves a partial or stale-looking file. Options are checked before any
// work; errors print "tandem compile: error: ..." and exit 1, usage errors
// exit 2 with a hint, like the other commands.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "compiler/Compiler.h"
#include "tandem/Config.h"
#include "tandem/KernelImage.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

using namespace llvm;

namespace tandem::cli {
namespace {

void printCompileHelp(raw_ostream &OS) {
  OS << "OVERVIEW: compile CUDA C (or LLVM IR) kernels for the Tandem SIMT "
        "accelerator (docs/Compiler.md)\n\n"
        "USAGE: tandem compile FILE.cu|FILE.ll|FILE.bc [options]\n\n"
        "OPTIONS:\n"
        "  --target T          simt (default) or ptx (PTX text)\n"
        "  -O0 .. -O3          optimization level (default -O2)\n"
        "  --emit KIND         what to write: obj (kernel image, simt "
        "default), asm (assembly,\n"
        "                      ptx default), mir (machine IR after register "
        "allocation), ll (LLVM IR\n"
        "                      after preparation)\n"
        "  -o OUT              output file (default: FILE with the extension "
        ".img, .s, .mir or .ll);\n"
        "                      '-' writes text to standard output; written "
        "atomically\n"
        "  --config FILE       accelerator configuration; its 'registers' "
        "bound the allocation\n"
        "                      (default: configs/default.json)\n"
        "  --print-after PASS  print the code after PASS to standard error; "
        "PASS is one of our\n"
        "                      stages (prepare, isel, schedule, lower-cfg, coalesce, regalloc; "
        "ptx: out-of-ssa) or "
        "an LLVM pass name;\n"
        "                      repeat for several\n"
        "  --arch SM           the CUDA architecture clang compiles for "
        "(default sm_90)\n"
        "  -I DIR, -D NAME[=V] include directory, macro (passed to clang)\n"
        "  --no-schedule       simt: skip the list scheduler (run at -O1 and above), "
        "to see what it gives\n"
        "  --no-coalesce       simt: skip lane-aware copy coalescing (run at -O1 and above), to "
        "see\n"
        "                      what it gives\n"
        "  --stats             print, per kernel, registers used, spill bytes "
        "and instructions\n"
        "                      to standard error\n"
        "  --time-passes       time each stage (front-end, prepare, isel, schedule, ...) "
        "and print\n"
        "                      the table to standard error at exit, as llc -time-passes "
        "does\n"
        "  -h, --help          print this help\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem compile: error: " << Msg
         << "\nRun 'tandem compile --help' for usage.\n";
  return 2;
}

int failure(const Twine &Msg) {
  errs() << "tandem compile: error: " << Msg << "\n";
  return 1;
}

struct Options {
  std::string Input;
  std::string Output;
  std::string ConfigPath;
  std::optional<compiler::EmitKind> Emit;
  bool Stats = false;
  compiler::CompileOptions Compile;
};

std::optional<compiler::EmitKind> parseEmit(StringRef S) {
  return StringSwitch<std::optional<compiler::EmitKind>>(S)
      .Case("ll", compiler::EmitKind::LL)
      .Case("mir", compiler::EmitKind::MIR)
      .Case("asm", compiler::EmitKind::Asm)
      .Case("obj", compiler::EmitKind::Obj)
      .Default(std::nullopt);
}

StringRef outputExtension(compiler::EmitKind K) {
  switch (K) {
  case compiler::EmitKind::LL: return "ll";
  case compiler::EmitKind::MIR: return "mir";
  case compiler::EmitKind::Asm: return "s";
  case compiler::EmitKind::Obj: return "img";
  }
  return "img";
}

/// Parses argv; returns 0 to go on, -1 after --help, else the exit status.
int parseOptions(int Argc, char **Argv, Options &O) {
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    StringRef Arg = Args.arg();
    if (Args.flag("--help") || Args.flag("-h")) {
      printCompileHelp(outs());
      return -1;
    }
    // Long options take --name=value or --name value; -o, -I, -D take the
    // value attached or as the next argument, as compilers do (Args.h).
    StringRef Name = Args.isPositional() ? StringRef() : Args.name();
    StringRef V;
    auto Value = [&]() -> bool {
      std::optional<StringRef> Given = Args.value();
      V = Given.value_or(StringRef());
      return Given.has_value();
    };
    auto ShortValue = [&](StringRef Flag) -> bool {
      std::optional<StringRef> Given = Args.shortValue(Flag);
      V = Given.value_or(StringRef());
      return Given.has_value();
    };
    auto Need = [&]() { return usageError(Name + " needs a value"); };

    if (Args.flag("--stats")) {
      O.Stats = true;
    } else if (Args.flag("--no-schedule")) {
      O.Compile.Schedule = false;
    } else if (Args.flag("--no-coalesce")) {
      O.Compile.CoalesceLaneCopies = false;
    } else if (Args.flag("--time-passes")) {
      O.Compile.TimePasses = true;
    } else if (Name == "--target") {
      if (!Value())
        return Need();
      if (V != "simt" && V != "ptx")
        return usageError("--target '" + V + "': the targets are simt and ptx");
      O.Compile.Target = V.str();
    } else if (Name == "--emit") {
      if (!Value())
        return Need();
      O.Emit = parseEmit(V);
      if (!O.Emit)
        return usageError("--emit '" + V + "': use ll, mir, asm or obj");
    } else if (Name == "--config") {
      if (!Value())
        return Need();
      O.ConfigPath = V.str();
    } else if (Name == "--print-after") {
      if (!Value() || V.empty())
        return Need();
      O.Compile.PrintAfter.push_back(V.str());
    } else if (Name == "--arch") {
      if (!Value() || V.empty())
        return Need();
      O.Compile.Arch = V.str();
    } else if (Args.shortOption("-O")) {
      StringRef Level = Arg.drop_front(2);
      if (Level.size() != 1 || Level[0] < '0' || Level[0] > '3')
        return usageError("'" + Arg + "': the optimization levels are -O0, -O1, -O2 and -O3");
      O.Compile.OptLevel = Level[0] - '0';
    } else if (Args.shortOption("-o")) {
      if (!ShortValue("-o") || V.empty())
        return usageError("-o needs a file name");
      O.Output = V.str();
    } else if (Args.shortOption("-I") || Args.shortOption("-D")) {
      StringRef Flag = Arg.take_front(2);
      if (!ShortValue(Flag) || V.empty())
        return usageError(Flag + " needs a value");
      O.Compile.ExtraClangArgs.push_back((Flag + V).str());
    } else if (!Args.isPositional()) {
      return usageError("unknown option '" + Arg + "'");
    } else if (O.Input.empty()) {
      O.Input = Arg.str();
    } else {
      return usageError("more than one input file ('" + O.Input + "', '" + Arg + "')");
    }
  }
  if (O.Input.empty())
    return usageError("no input file (a .cu, .ll or .bc file)");
  StringRef Ext = sys::path::extension(O.Input);
  if (Ext != ".cu" && Ext != ".ll" && Ext != ".bc")
    return usageError("'" + O.Input + "': the input must be CUDA C (.cu) or LLVM IR (.ll, .bc)");

  bool IsPtx = O.Compile.Target == "ptx";
  O.Compile.Emit = O.Emit.value_or(IsPtx ? compiler::EmitKind::Asm : compiler::EmitKind::Obj);
  if (O.Output == "-" && O.Compile.Emit == compiler::EmitKind::Obj)
    return usageError("-o -: a kernel image is binary; write it to a file (-o FILE.img) "
                      "or choose a text output (--emit asm)");
  if (O.Output.empty()) {
    SmallString<128> Derived(O.Input);
    sys::path::replace_extension(Derived, IsPtx && O.Compile.Emit == compiler::EmitKind::Asm
                                              ? StringRef("ptx")
                                              : outputExtension(O.Compile.Emit));
    O.Output = Derived.str().str();
    if (O.Output == O.Input)
      return usageError("the output would overwrite the input '" + O.Input +
                        "'; name another with -o");
  }
  return 0;
}

Expected<AcceleratorConfig> loadConfigFor(StringRef Path) {
  if (!Path.empty())
    return loadConfig(Path);
  std::string Default = defaultConfigPath();
  if (sys::fs::exists(Default))
    return loadConfig(Default);
  return AcceleratorConfig(); // the built-in defaults equal configs/default.json
}

void printStats(raw_ostream &OS, const std::vector<compiler::KernelReport> &Kernels) {
  size_t NameWidth = 6;
  for (const compiler::KernelReport &K : Kernels)
    NameWidth = std::max(NameWidth, K.Name.size());
  OS << left_justify("kernel", NameWidth) << "  registers  spill-bytes  instructions\n";
  for (const compiler::KernelReport &K : Kernels)
    OS << left_justify(K.Name, NameWidth) << "  " << right_justify(std::to_string(K.RegistersUsed), 9)
       << "  " << right_justify(std::to_string(K.SpillBytes), 11) << "  "
       << right_justify(std::to_string(K.Instructions), 12) << "\n";
  for (const compiler::KernelReport &K : Kernels)
    if (K.DivergenceCheckBranches)
      OS << K.Name << ": " << K.DivergenceCheckBranches
         << " branch(es) LLVM's uniformity analysis called uniform were found divergent by "
            "the divergence check and structurized (docs/Divergence.md)\n";
}

Error writeOutput(const compiler::CompileResult &R, const Options &O) {
  if (O.Compile.Emit == compiler::EmitKind::Obj) {
    if (!R.Image)
      return createStringError(inconvertibleErrorCode(),
                               "internal compiler error: no kernel image was produced");
    return writeImageFile(*R.Image, O.Output);
  }
  // writeToOutput writes '-' to stdout and anything else through a temporary
  // file that is renamed into place.
  Error E = writeToOutput(O.Output, [&](raw_ostream &OS) {
    OS << R.Text;
    return Error::success();
  });
  if (E)
    return createStringError(inconvertibleErrorCode(),
                             "cannot write '" + O.Output + "': " + toString(std::move(E)));
  return Error::success();
}

} // namespace

int compileCommand(int Argc, char **Argv) {
  Options O;
  if (int Status = parseOptions(Argc, Argv, O))
    return Status < 0 ? 0 : Status;

  if (!sys::fs::exists(O.Input))
    return failure("cannot read '" + O.Input + "': no such file");
  Expected<AcceleratorConfig> Config = loadConfigFor(O.ConfigPath);
  if (!Config)
    return failure(toString(Config.takeError()));
  O.Compile.NumRegisters = Config->Registers;
  O.Compile.GlobalMemoryLatency = Config->Dram.LatencyCycles;
  O.Compile.PrintStream = &errs();

  Expected<compiler::CompileResult> R = compiler::compileFile(O.Input, O.Compile);
  if (!R)
    return failure(toString(R.takeError()));
  if (Error E = writeOutput(*R, O))
    return failure(toString(std::move(E)));
  if (O.Stats)
    printStats(errs(), R->Kernels);
  return 0;
}

} // namespace tandem::cli
