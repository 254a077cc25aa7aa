//===- Results.h - The runner's results file, whole after every entry -----===//
//
// The GPU check has one chance on a lent machine with a hard time limit
// (scripts/gpu-check.sh stops the runner at 290 s). So the results file is
// not written once at the end: after every case and every timing entry the
// whole document is written again, atomically (a temporary file renamed
// over it), with "complete": false and the summary of what it holds. A run
// stopped from outside leaves a valid results file of everything measured
// until then; `tandem-gpu-runner --summarize FILE` prints its table, and
// `tandem report --gpu-results` reads it as it reads a complete one.
//
// Guarantees: every file written parses and has the members Summary.h
// reads ("cases", "timing", "skipped", "summary"); "complete" is true only
// in the file writeFinal writes, which adds "nvidia_smi_after" and
// "all_correct"; a stopped run's file says where it stopped ("stopped_at").
// Plain C++17 and Json.h: the runner's machine has no LLVM.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Json.h"
#include "Summary.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tandem::gpu {

/// Writes \p Text to a temporary file next to \p Path, then renames it: a
/// reader never sees half a results file.
inline void writeFileAtomically(const std::string &Path, const std::string &Text) {
  std::string Tmp = Path + ".tmp";
  {
    std::ofstream Out(Tmp, std::ios::binary);
    Out << Text;
    if (!Out.flush())
      throw std::runtime_error("cannot write '" + Tmp + "'");
  }
  if (std::rename(Tmp.c_str(), Path.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + Tmp + "' to '" + Path + "'");
}

/// The results document, assembled from its entries (each a JSON object's
/// text) and written whole to one path.
class ResultsFile {
public:
  /// \p Header: the leading members, without braces ("\"gpu\":...,...").
  ResultsFile(std::string Path, std::string Header)
      : Path(std::move(Path)), Header(std::move(Header)) {}

  void addCase(std::string Entry) { Cases.push_back(std::move(Entry)); }
  void addTiming(std::string Entry) { Timings.push_back(std::move(Entry)); }
  void addSkipped(std::string Why) { Skipped.push_back(std::move(Why)); }
  /// A launch-latency check between phases ("launch_checks"; see
  /// Runner.cpp, launchCheckJson).
  void addLaunchCheck(std::string Entry) { LaunchChecks.push_back(std::move(Entry)); }

  /// Writes what is there so far, "complete": false, \p StoppedAt saying
  /// what the runner is about to do (what a stop from outside interrupted).
  void writeProgress(const std::string &StoppedAt) {
    writeFileAtomically(Path, document("\"complete\":false,\"stopped_at\":" + quote(StoppedAt)));
  }

  /// Writes the finished file and returns its summary (the one stored in
  /// it, so what is printed is what the file says).
  RunSummary writeFinal(const std::string &NvidiaSmiAfter, bool AllCorrect) {
    RunSummary Summary;
    writeFileAtomically(Path,
                        document("\"complete\":true,\"nvidia_smi_after\":" + quote(NvidiaSmiAfter) +
                                     ",\"all_correct\":" + (AllCorrect ? "true" : "false"),
                                 &Summary));
    return Summary;
  }

  /// The whole document with \p Tail as its last plain members, followed by
  /// the summary of the entries (also stored in \p Summary when given).
  std::string document(const std::string &Tail, RunSummary *Summary = nullptr) const {
    std::string J =
        "{" + Header + ",\"cases\":[" + join(Cases) + "],\"timing\":[" + join(Timings) + "],";
    if (!LaunchChecks.empty())
      J += "\"launch_checks\":[" + join(LaunchChecks) + "],";
    J += "\"skipped\":[";
    for (size_t I = 0; I < Skipped.size(); ++I)
      J += (I ? "," : "") + quote(Skipped[I]);
    J += "]," + Tail;
    RunSummary S = summarizeResults(JsonParser(J + "}").parse());
    J += ",\"summary\":" + summaryJson(S) + "}\n";
    if (Summary)
      *Summary = std::move(S);
    return J;
  }

private:
  static std::string join(const std::vector<std::string> &Entries) {
    std::string J;
    for (size_t I = 0; I < Entries.size(); ++I)
      J += (I ? "," : "") + Entries[I];
    return J;
  }

  std::string Path, Header;
  std::vector<std::string> Cases, Timings, Skipped, LaunchChecks;
};

} // namespace tandem::gpu
