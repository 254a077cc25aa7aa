//===- SweepPoints.h - The configurations of `tandem sweep` -----*- C++ -*-===//
//
// `tandem sweep --set KEY=V1,V2 ...` predicts the suite and the sparse
// workloads on every combination of the given configuration values
// (SweepCommand.cpp). This part turns the --set options and a base
// configuration into those configurations, with no I/O, so it is unit
// tested (tests/unit/SweepPointsTest.cpp):
//
//   parseSetOption("l1.size_bytes=4096,8192")  -> one axis
//   expandSweep(Base, Axes)                    -> the cartesian product,
//                                                 each a validated config
//
// Keys are the configuration file's (configs/README.md), dotted into its
// sections: "lanes", "dram.latency_cycles". Values are
// typed the way JSON would read them: 16 an integer, 1.5 a number,
// true/false a boolean, anything else a string ("gto", "write-through").
// Every point goes through parseConfig, so an unknown key or a value out of
// range is the configuration's own error, naming the key, with the option
// that set it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Config.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>
#include <vector>

namespace tandem::cli {

/// One --set option: a configuration key and the values it takes.
struct SweepAxis {
  std::string Key;
  std::vector<std::string> Values; ///< as written
};

/// One configuration of the sweep.
struct SweepPoint {
  /// "lanes=16 dram.latency_cycles=300": the values this point sets, in the
  /// order of the --set options.
  std::string Name;
  std::vector<std::pair<std::string, std::string>> Set;
  /// "lanes-16_dram.latency_cycles-300": the name with characters outside
  /// [A-Za-z0-9._-] as '-', or "sweep-N" (N from 1) where that would be
  /// longer than a configuration name may be (64). The point's folder and
  /// its configuration's name.
  std::string Folder;
  AcceleratorConfig Config;
};

/// Parses "KEY=V1,V2,...": a non-empty key, at least one value, no empty
/// value, no value twice.
llvm::Expected<SweepAxis> parseSetOption(llvm::StringRef Spec);

/// \p Text as JSON would type it (integer, number, boolean, else string).
llvm::json::Value sweepValue(llvm::StringRef Text);

/// Sets the dotted \p Key in \p Root, creating sections that are missing; an
/// error when a prefix of the key names something that is not a section.
llvm::Error setDottedKey(llvm::json::Object &Root, llvm::StringRef Key, llvm::json::Value V);

/// Every combination of the axes' values applied to \p Base, first axis
/// outermost. Errors: a key given twice, more than \p MaxPoints points, or
/// a point the configuration rejects (naming the point).
llvm::Expected<std::vector<SweepPoint>> expandSweep(const AcceleratorConfig &Base,
                                                    llvm::ArrayRef<SweepAxis> Axes,
                                                    size_t MaxPoints = 64);

/// A suite row's input without its launches: "n=5037; vadd<<<20, 256>>>"
/// is "n=5037" (anything else is returned whole). The sweep pairs suite
/// rows on it, so a configuration with fewer warps per core, whose suite
/// problems launch in smaller blocks, is compared on the same problem (same
/// sizes, same data) rather than left unpaired.
std::string problemOf(llvm::StringRef Input);

} // namespace tandem::cli
