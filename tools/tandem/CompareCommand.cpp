//===- CompareCommand.cpp - `tandem compare`: two reports row by row -----===//
//
//   tandem compare A B [--json]
//
// A and B are report.json files (or the folders `tandem report --out`
// wrote them into). Prints, for each row both reports have, the measured
// ratio B/A and the model's predicted ratio, then their geometric means per
// device and group, then the rows only one report has
// (models/ReportCompare.h). Errors name the file (and the row); exit 1, a
// usage error exits 2.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "ReportCompare.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llvm;

namespace tandem::cli {
namespace {

void printHelp(raw_ostream &OS) {
  OS << "OVERVIEW: two model-versus-device reports side by side: what a change did "
        "(measured B/A) and what the model said it would do (predicted B/A)\n\n"
        "USAGE: tandem compare A B [--json]\n\n"
        "  A, B      report.json files, or the folders `tandem report --out` wrote them "
        "into;\n"
        "            rows are paired on (device, workload, input)\n"
        "  --json    print the comparison as one JSON object\n"
        "  -h, --help  print this help\n\n"
        "EXAMPLE:\n"
        "  tandem report --out base && tandem report --no-schedule --out nosched\n"
        "  tandem compare base nosched\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem compare: error: " << Msg << "\nRun 'tandem compare --help' for usage.\n";
  return 2;
}

} // namespace

int compareCommand(int Argc, char **Argv) {
  std::vector<std::string> Paths;
  bool Json = false;
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    if (Args.flag("-h") || Args.flag("--help")) {
      printHelp(outs());
      return 0;
    }
    if (Args.flag("--json")) {
      Json = true;
      continue;
    }
    if (!Args.isPositional())
      return usageError("unknown option '" + Args.arg() + "'");
    Paths.push_back(Args.arg().str());
  }
  if (Paths.size() != 2)
    return usageError(formatv("two reports to compare, A and B ({0} given)", Paths.size()));
  std::string NameA, NameB;
  Expected<std::vector<models::ReportRowKey>> A = models::loadReportRows(Paths[0], NameA);
  if (!A) {
    errs() << "tandem compare: error: " << toString(A.takeError()) << '\n';
    return 1;
  }
  Expected<std::vector<models::ReportRowKey>> B = models::loadReportRows(Paths[1], NameB);
  if (!B) {
    errs() << "tandem compare: error: " << toString(B.takeError()) << '\n';
    return 1;
  }
  models::Comparison C = models::compareReports(NameA, std::move(*A), NameB, std::move(*B));
  if (Json)
    outs() << formatv("{0:2}", models::comparisonJson(C)) << '\n';
  else
    models::printComparison(C, outs());
  if (C.Rows.empty()) {
    errs() << "tandem compare: error: the two reports have no row in common (device, "
              "workload, input)\n";
    return 1;
  }
  return 0;
}

} // namespace tandem::cli
