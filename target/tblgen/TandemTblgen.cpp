//===- TandemTblgen.cpp - tandem-tblgen's driver --------------------------===//
//
// Our TableGen generator: LLVM's TableGen front end (parsing, -I, -o, -d
// depfiles, --write-if-changed all come from llvm::TableGenMain) with our own
// back ends selected by --gen-*. Every back end reads the same checked model
// (SimtRecords.h).
//
//===----------------------------------------------------------------------===//

#include "Emitters.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"

using namespace llvm;
using namespace tandem::tblgen;

namespace {

enum class Action { InstrInfo, SVPackage, ISADoc };

cl::opt<Action> Generate(
    cl::desc("What to generate:"), cl::Required,
    cl::values(clEnumValN(Action::InstrInfo, "gen-instr-info",
                          "C++ instruction, format, scheduling and decode tables"),
               clEnumValN(Action::SVPackage, "gen-sv-package",
                          "SystemVerilog ISA package for the RTL decoder"),
               clEnumValN(Action::ISADoc, "gen-isa-doc", "docs/ISA.md")));

bool runBackend(raw_ostream &OS, RecordKeeper &Records) {
  TargetModel M = buildTargetModel(Records);
  switch (Generate) {
  case Action::InstrInfo:
    emitInstrInfo(M, OS);
    break;
  case Action::SVPackage:
    emitSVPackage(M, OS);
    break;
  case Action::ISADoc:
    emitISADoc(M, OS);
    break;
  }
  return false; // no error
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tandem-tblgen: Tandem's TableGen generator\n");
  return TableGenMain(argv[0], &runBackend);
}
