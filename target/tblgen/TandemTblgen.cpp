//===- TandemTblgen.cpp - tandem-tblgen's driver --------------------------===//
//
// Our TableGen generator: LLVM's TableGen front end (parsing, -I, -o, -d
// depfiles, --write-if-changed all come from llvm::TableGenMain) with our own
// back ends selected by --gen-*. Every back end reads the same checked model
// (SimtRecords.h); the PTX back end reads its own (PtxRecords.h).
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

enum class Action { InstrInfo, SVPackage, ISADoc, PtxInstrInfo };

cl::opt<Action> Generate(
    cl::desc("What to generate:"), cl::Required,
    cl::values(clEnumValN(Action::InstrInfo, "gen-instr-info",
                          "C++ instruction, format, scheduling and decode tables"),
               clEnumValN(Action::SVPackage, "gen-sv-package",
                          "SystemVerilog ISA package for the RTL decoder"),
               clEnumValN(Action::ISADoc, "gen-isa-doc", "docs/ISA.md"),
               clEnumValN(Action::PtxInstrInfo, "gen-ptx-instr-info",
                          "C++ tables of the PTX target (target/ptx)")));

bool runBackend(raw_ostream &OS, RecordKeeper &Records) {
  if (Generate == Action::PtxInstrInfo) {
    emitPtxInstrInfo(Records, OS);
    return false;
  }
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
  case Action::PtxInstrInfo:
    break; // handled above
  }
  return false; // no error
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "tandem-tblgen: Tandem's TableGen generator\n");
  return TableGenMain(argv[0], &runBackend);
}
