//===- main.cpp - The `tandem` command ------------------------------------===//
//
// Dispatches `tandem <command> [args]` to one function per subcommand
// (Commands.h). Each subcommand receives its own argv, whose Argv[0] is the
// subcommand's name, parses it, prints its own errors and returns the exit
// status: 0 success, 1 failure, 2 usage error or a command not built yet.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#ifndef TANDEM_VERSION
#define TANDEM_VERSION "0.1.0"
#endif

using namespace llvm;

namespace {

struct Command {
  const char *Name;
  const char *Summary;
  int (*Run)(int, char **);
};

const Command Commands[] = {
    {"as", "assemble SIMT assembly (.s) into a kernel image (.img)",
     tandem::cli::asCommand},
    {"objdump", "list a kernel image (or a .s file): kernels, code, const data",
     tandem::cli::objdumpCommand},
    {"run", "run a kernel (of an image, a .s or a .cu file) on a device",
     tandem::cli::runCommand},
    {"samples", "assemble the sample programs and run them on iss",
     tandem::cli::samplesCommand},
    {"compile", "compile CUDA C (or LLVM IR) kernels to a SIMT kernel image",
     tandem::cli::compileCommand},
    {"profile", "run the microbenchmarks on a device and print its profile",
     tandem::cli::profileCommand},
    {"suite-export", "write the kernel suite (PTX, inputs, references) for the GPU runner",
     tandem::cli::suiteExportCommand},
    {"report",
     "run the suite, SpMV and SpMM on matrices, predict each with the simt model, "
     "compare with rtl",
     tandem::cli::reportCommand},
    {"compare", "two reports row by row: what a change did, and what the model said",
     tandem::cli::compareCommand},
    {"sweep", "predict the report's workloads on configurations around a base one (the model, "
              "no RTL builds)",
     tandem::cli::sweepCommand},
};

void printHelp(raw_ostream &OS) {
  OS << "OVERVIEW: tandem - CUDA C to PTX and to the Tandem SIMT accelerator; "
        "a hardware/compiler codesign workbench\n\n"
        "USAGE: tandem <command> [options] [args]\n\n"
        "COMMANDS:\n";
  for (const Command &C : Commands)
    OS << "  " << left_justify(C.Name, 9) << " " << C.Summary << "\n";
  OS << "\nOPTIONS:\n"
        "  -h, --help  print this help; 'tandem <command> --help' prints a "
        "command's options\n"
        "  --version   print the version\n";
}

const Command *findCommand(StringRef Name) {
  for (const Command &C : Commands)
    if (Name == C.Name)
      return &C;
  return nullptr;
}

std::string closestCommand(StringRef Name) {
  std::string Best;
  unsigned BestDist = 3;
  for (const Command &C : Commands) {
    unsigned D = Name.edit_distance(C.Name, true, BestDist);
    if (D < BestDist) {
      BestDist = D;
      Best = C.Name;
    }
  }
  return Best;
}

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  if (Argc < 2) {
    printHelp(errs());
    return 2;
  }
  StringRef First = Argv[1];
  if (First == "--help" || First == "-h" || First == "help") {
    printHelp(outs());
    return 0;
  }
  if (First == "--version") {
    outs() << "tandem " << TANDEM_VERSION << " (LLVM " << LLVM_VERSION_STRING
           << ")\n";
    return 0;
  }
  if (const Command *C = findCommand(First))
    return C->Run(Argc - 1, Argv + 1);
  errs() << "tandem: error: unknown command '" << First << "'";
  std::string Best = closestCommand(First);
  if (!Best.empty())
    errs() << "; did you mean '" << Best << "'?";
  errs() << "\nRun 'tandem --help' for the list of commands.\n";
  return 2;
}
