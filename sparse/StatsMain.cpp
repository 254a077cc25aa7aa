//===- StatsMain.cpp - tandem-sparse-stats: statistics of .mtx files ------===//
//
//   tandem-sparse-stats [--line-bytes N] [--cache-bytes N] [--window N] PATH...
//
// Each PATH is a .mtx file or a folder whose *.mtx files are read (sorted by
// name). Prints the Markdown table of printStatsTable; docs/Sparse.md
// pastes its output for ../shared/matrices. Exit code 1 if any file fails
// to load (the error names the file and line).
//
//===----------------------------------------------------------------------===//

#include "sparse/Csr.h"
#include "sparse/Stats.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace llvm;
using namespace tandem::sparse;

namespace {

std::vector<std::string> matrixFiles(StringRef Path) {
  if (!sys::fs::is_directory(Path))
    return {Path.str()};
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Path, EC), End; It != End && !EC; It.increment(EC))
    if (sys::path::extension(It->path()) == ".mtx")
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

bool parseNumber(StringRef Flag, StringRef Text, uint64_t &Out) {
  if (Text.getAsInteger(10, Out) || Out == 0) {
    errs() << "tandem-sparse-stats: " << Flag << " needs a positive integer, got '" << Text
           << "'\n";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CacheShape Shape;
  std::vector<std::string> Paths;
  for (int I = 1; I < argc; ++I) {
    StringRef A = argv[I];
    uint64_t V = 0;
    bool IsFlag = A == "--line-bytes" || A == "--cache-bytes" || A == "--window";
    if (IsFlag) {
      if (I + 1 >= argc || !parseNumber(A, argv[I + 1], V))
        return 2;
      ++I;
      if (A == "--line-bytes")
        Shape.LineBytes = uint32_t(std::min<uint64_t>(V, 1u << 20));
      else if (A == "--cache-bytes")
        Shape.CapacityBytes = V;
      else
        Shape.RowWindow = uint32_t(std::min<uint64_t>(V, 1u << 20));
    } else if (A.starts_with("-")) {
      errs() << "usage: tandem-sparse-stats [--line-bytes N] [--cache-bytes N] [--window N] "
                "FILE.mtx|DIR...\n";
      return 2;
    } else {
      Paths.push_back(A.str());
    }
  }
  if (Paths.empty()) {
    errs() << "tandem-sparse-stats: no matrix files or folders given\n";
    return 2;
  }
  std::vector<std::pair<std::string, MatrixStats>> Named;
  bool Failed = false;
  for (const std::string &P : Paths)
    for (const std::string &F : matrixFiles(P)) {
      Expected<CsrMatrix> A = loadCsr(F);
      if (!A) {
        errs() << "tandem-sparse-stats: " << toString(A.takeError()) << "\n";
        Failed = true;
        continue;
      }
      Named.emplace_back(sys::path::filename(F).str(), computeStats(*A, Shape));
    }
  printStatsTable(outs(), Named);
  return Failed ? 1 : 0;
}
