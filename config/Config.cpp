//===- Config.cpp - Reading and writing the accelerator configuration -----===//
//
// The configuration is untrusted input that sizes arrays in the simulators
// and parameters in the RTL, so every value is checked before it is used.
// Reading reports every problem in the file at once (one line each, starting
// with the file), so a user fixes a hand-edited file in one pass.
//
// The limits enforced here are documented in configs/README.md; keep the two
// in step.
//
//===----------------------------------------------------------------------===//

#include "tandem/Config.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace llvm;

namespace tandem {
namespace {

// A configuration is a few hundred bytes; anything far larger is not one
// (and reading /dev/zero must not hang).
constexpr uint64_t MaxConfigFileBytes = 1 << 20;
constexpr size_t MaxNameLength = 64;

/// Collects the problems found in one configuration, each prefixed with its
/// origin, so they can be reported together.
class Diagnostics {
public:
  // Messages always start with an origin, even for text without a file.
  explicit Diagnostics(StringRef Origin)
      : Origin(Origin.empty() ? "<config>" : Origin.str()) {}

  void report(const Twine &KeyPath, const Twine &Message) {
    Messages.push_back(Origin + ": " + KeyPath.str() + ": " + Message.str());
  }
  /// A problem with the file as a whole (no key to name).
  void reportFile(const Twine &Message) {
    Messages.push_back(Origin + ": " + Message.str());
  }
  bool empty() const { return Messages.empty(); }
  StringRef origin() const { return Origin; }

  Error takeError() const {
    if (Messages.empty())
      return Error::success();
    return createStringError(inconvertibleErrorCode(),
                             join(Messages.begin(), Messages.end(), "\n"));
  }

private:
  std::string Origin;
  std::vector<std::string> Messages;
};

/// A value as the user wrote it, short enough for a one-line message.
std::string describe(const json::Value &V) {
  std::string Text = formatv("{0}", V).str();
  constexpr size_t MaxShown = 40;
  if (Text.size() > MaxShown)
    Text = Text.substr(0, MaxShown - 3) + "...";
  return Text;
}

/// The allowed values of one unsigned field.
struct UIntRule {
  uint64_t Min;
  uint64_t Max;
  bool PowerOfTwo = false;
};

std::string describeRange(const UIntRule &Rule) {
  std::string Range = formatv("{0}..{1}", Rule.Min, Rule.Max).str();
  return Rule.PowerOfTwo ? "a power of two in " + Range : Range;
}

/// The powers of two either side of \p V, as a hint for the user.
std::string nearestPowersOfTwo(uint64_t V, const UIntRule &Rule) {
  uint64_t Below = std::max<uint64_t>(bit_floor(V), Rule.Min);
  uint64_t Above = std::min<uint64_t>(NextPowerOf2(V), Rule.Max);
  if (Below == Above)
    return formatv("try {0}", Below).str();
  return formatv("try {0} or {1}", Below, Above).str();
}

/// Reads the keys of one JSON object of the configuration. Every key it
/// reads becomes known; whatever the object holds beyond them is reported as
/// unknown by finish(), with the closest known key as a suggestion.
class ObjectReader {
public:
  ObjectReader(const json::Object &Obj, std::string PathPrefix,
               Diagnostics &Diags)
      : Obj(Obj), PathPrefix(std::move(PathPrefix)), Diags(Diags) {}

  /// Reads \p Key into \p Out if present. Returns false if the key was
  /// present but invalid (\p Out keeps its default then).
  bool readUInt(StringRef Key, uint32_t &Out, const UIntRule &Rule) {
    const json::Value *V = lookup(Key);
    if (!V)
      return true;
    std::optional<int64_t> N = V->getAsInteger();
    // Integers beyond int64 are integers still: out of range, not mistyped.
    if (!N && V->getAsUINT64())
      N = INT64_MAX;
    if (!N) {
      Diags.report(path(Key), "expected an integer (" + describeRange(Rule) +
                                  "), got " + describe(*V));
      return false;
    }
    if (*N < 0 || uint64_t(*N) < Rule.Min || uint64_t(*N) > Rule.Max) {
      Diags.report(path(Key), formatv("{0} is out of range; allowed: {1}",
                                      describe(*V), describeRange(Rule)));
      return false;
    }
    if (Rule.PowerOfTwo && !isPowerOf2_64(*N)) {
      Diags.report(path(Key), formatv("{0} is not a power of two; {1}", *N,
                                      nearestPowersOfTwo(*N, Rule)));
      return false;
    }
    Out = static_cast<uint32_t>(*N);
    return true;
  }

  bool readName(StringRef Key, std::string &Out) {
    const json::Value *V = lookup(Key);
    if (!V)
      return true;
    std::optional<StringRef> S = V->getAsString();
    if (!S) {
      Diags.report(path(Key), "expected a string, got " + describe(*V));
      return false;
    }
    if (!isValidName(*S)) {
      Diags.report(path(Key),
                   formatv("{0} is not a valid name; use 1 to {1} letters, "
                           "digits, '_', '-' or '.' (it names build "
                           "directories and reports)",
                           describe(*V), MaxNameLength));
      return false;
    }
    Out = S->str();
    return true;
  }

  /// Reads a string naming one of an enum's values into \p Out if present;
  /// \p Parse is the enum's parser (it names the allowed values), \p Allowed
  /// what a non-string is told to be instead.
  template <typename EnumT>
  bool readEnum(StringRef Key, EnumT &Out,
                function_ref<Expected<EnumT>(StringRef)> Parse, StringRef Allowed) {
    const json::Value *V = lookup(Key);
    if (!V)
      return true;
    std::optional<StringRef> S = V->getAsString();
    Expected<EnumT> P =
        S ? Parse(*S)
          : createStringError(inconvertibleErrorCode(),
                              "expected a string (" + Allowed + "), got " +
                                  describe(*V));
    if (!P) {
      Diags.report(path(Key), toString(P.takeError()));
      return false;
    }
    Out = *P;
    return true;
  }

  /// The nested object at \p Key, or null if it is absent or not an object
  /// (the latter is reported).
  const json::Object *readObject(StringRef Key) {
    const json::Value *V = lookup(Key);
    if (!V)
      return nullptr;
    const json::Object *Nested = V->getAsObject();
    if (!Nested)
      Diags.report(path(Key), "expected an object, got " + describe(*V));
    return Nested;
  }

  std::string path(StringRef Key) const { return PathPrefix + Key.str(); }

  /// Reports every key of the object that no read asked for.
  void finish() {
    SmallVector<StringRef, 4> Unknown;
    for (const auto &Entry : Obj)
      if (!is_contained(Known, StringRef(Entry.first)))
        Unknown.push_back(Entry.first);
    // json::Object iterates in hash order; sort for stable messages.
    sort(Unknown);
    for (StringRef Key : Unknown)
      Diags.report(path(Key), "unknown key; " + suggestionFor(Key));
  }

private:
  const json::Value *lookup(StringRef Key) {
    Known.push_back(Key);
    return Obj.get(Key);
  }

  static bool isValidName(StringRef S) {
    return !S.empty() && S.size() <= MaxNameLength && all_of(S, [](char C) {
      return isAlnum(C) || C == '_' || C == '-' || C == '.';
    });
  }

  std::string suggestionFor(StringRef Key) const {
    StringRef Best;
    unsigned BestDistance = ~0u;
    for (StringRef Candidate : Known) {
      unsigned D = Key.edit_distance_insensitive(Candidate);
      if (D < BestDistance) {
        Best = Candidate;
        BestDistance = D;
      }
    }
    // A suggestion more than a third rewritten is noise; list the keys.
    if (!Best.empty() && BestDistance <= std::max<size_t>(1, Key.size() / 3))
      return "did you mean '" + path(Best) + "'?";
    return "known keys here: " + join(Known.begin(), Known.end(), ", ");
  }

  const json::Object &Obj;
  std::string PathPrefix;
  Diagnostics &Diags;
  SmallVector<StringRef, 8> Known;
};

// The allowed values; configs/README.md documents the same table.
const UIntRule CoresRule{1, 64};
const UIntRule WarpsPerCoreRule{1, 32};
const UIntRule LanesRule{1, 32, /*PowerOfTwo=*/true};
const UIntRule RegistersRule{2, 64};
const UIntRule ImemWordsRule{256, 65536, true};
const UIntRule CacheSizeRule{16, 16u << 20, true};
const UIntRule CacheWaysRule{1, 1024, true};
const UIntRule CacheLineRule{16, 256, true};
const UIntRule SharedSizeRule{4, 16u << 20};
const UIntRule SharedBanksRule{1, 32, true};
const UIntRule DramLatencyRule{1, 1000000};
const UIntRule DramBytesPerCycleRule{1, 4096};
const UIntRule DramChannelsRule{1, 64};
const UIntRule DramMaxOutstandingRule{1, 4096};
const UIntRule LsuCountRule{1, LsuConfig::MaxInFlightLimit}; // in_flight and max_in_flight

void readCache(ObjectReader &Parent, StringRef Key, CacheConfig &C,
               Diagnostics &Diags) {
  const json::Object *Obj = Parent.readObject(Key);
  if (!Obj)
    return;
  ObjectReader R(*Obj, Parent.path(Key) + ".", Diags);
  bool Valid = R.readUInt("size_bytes", C.SizeBytes, CacheSizeRule);
  Valid &= R.readUInt("ways", C.Ways, CacheWaysRule);
  Valid &= R.readUInt("line_bytes", C.LineBytes, CacheLineRule);
  R.readEnum<LocalWritePolicy>("local_write_policy", C.LocalWrites,
                               parseLocalWritePolicyName,
                               "\"write-back\" or \"write-through\"");
  R.finish();
  // All three are powers of two, so one set fitting is all that is left.
  uint64_t SetBytes = uint64_t(C.Ways) * C.LineBytes;
  if (Valid && C.SizeBytes < SetBytes)
    Diags.report(R.path("size_bytes"),
                 formatv("{0} holds no complete set: ways * line_bytes = {1} "
                         "* {2} = {3}; make it at least {3} or use fewer ways",
                         C.SizeBytes, C.Ways, C.LineBytes, SetBytes));
}

void readShared(ObjectReader &Parent, StringRef Key, SharedMemConfig &S,
                Diagnostics &Diags) {
  const json::Object *Obj = Parent.readObject(Key);
  if (!Obj)
    return;
  ObjectReader R(*Obj, Parent.path(Key) + ".", Diags);
  bool Valid = R.readUInt("size_bytes", S.SizeBytes, SharedSizeRule);
  Valid &= R.readUInt("banks", S.Banks, SharedBanksRule);
  R.finish();
  // Every bank is 4 bytes wide and all banks are equally deep.
  uint32_t Row = 4 * S.Banks;
  if (Valid && S.SizeBytes % Row != 0) {
    uint32_t Below = S.SizeBytes / Row * Row;
    std::string Hint =
        Below == 0 ? formatv("try {0}", Row).str()
                   : formatv("try {0} or {1}", Below, Below + Row).str();
    Diags.report(R.path("size_bytes"),
                 formatv("{0} is not a multiple of 4 * banks = {1}; {2}",
                         S.SizeBytes, Row, Hint));
  }
}

void readLsu(ObjectReader &Parent, StringRef Key, LsuConfig &L, Diagnostics &Diags) {
  const json::Object *Obj = Parent.readObject(Key);
  if (!Obj)
    return;
  ObjectReader R(*Obj, Parent.path(Key) + ".", Diags);
  bool Valid = R.readUInt("max_in_flight", L.MaxInFlight, LsuCountRule);
  Valid &= R.readUInt("in_flight", L.InFlight, LsuCountRule);
  R.finish();
  // The run-time choice lives within what the core is built for.
  if (std::string Problem = lsuInFlightProblem(L); Valid && !Problem.empty())
    Diags.report(R.path("in_flight"), Problem);
}

void readDram(ObjectReader &Parent, StringRef Key, DramConfig &D,
              Diagnostics &Diags) {
  const json::Object *Obj = Parent.readObject(Key);
  if (!Obj)
    return;
  ObjectReader R(*Obj, Parent.path(Key) + ".", Diags);
  R.readUInt("latency_cycles", D.LatencyCycles, DramLatencyRule);
  R.readUInt("bytes_per_cycle", D.BytesPerCycle, DramBytesPerCycleRule);
  R.readUInt("channels", D.Channels, DramChannelsRule);
  R.readUInt("max_outstanding", D.MaxOutstanding, DramMaxOutstandingRule);
  R.finish();
}

void readAccelerator(const json::Object &Obj, AcceleratorConfig &C,
                     Diagnostics &Diags) {
  ObjectReader R(Obj, "", Diags);
  R.readName("name", C.Name);
  R.readUInt("cores", C.Cores, CoresRule);
  R.readUInt("warps_per_core", C.WarpsPerCore, WarpsPerCoreRule);
  R.readUInt("lanes", C.Lanes, LanesRule);
  R.readUInt("registers", C.Registers, RegistersRule);
  R.readUInt("imem_words", C.ImemWords, ImemWordsRule);
  R.readEnum<WarpScheduler>("scheduler", C.Scheduler, parseSchedulerName,
                            "\"rr\" or \"gto\"");
  R.readEnum<MemoryWait>("memory_wait", C.MemWait, parseMemoryWaitName,
                         "\"instruction\" or \"register\"");
  readLsu(R, "lsu", C.Lsu, Diags);
  readCache(R, "l1", C.L1, Diags);
  readShared(R, "shared", C.Shared, Diags);
  readDram(R, "dram", C.Dram, Diags);
  R.finish();
}

/// llvm::json reports "[line:col, byte=N]: message"; tools and editors jump
/// to "file:line:col: message", so rewrite it that way.
std::string describeParseError(Error E, const Diagnostics &Diags) {
  StringRef Origin = Diags.origin();
  std::string Message = toString(std::move(E));
  StringRef Rest = Message;
  unsigned Line = 0, Column = 0;
  if (Rest.consume_front("[") && !Rest.consumeInteger(10, Line) &&
      Rest.consume_front(":") && !Rest.consumeInteger(10, Column)) {
    size_t End = Rest.find("]: ");
    if (End != StringRef::npos)
      // The column is 0 at the end of an empty line; editors count from 1.
      return formatv("{0}:{1}:{2}: invalid JSON: {3}", Origin, Line,
                     std::max(Column, 1u), Rest.substr(End + 3))
          .str();
  }
  return Origin.str() + ": invalid JSON: " + Message;
}

/// llvm::json silently keeps one of two equal keys in an object; in a
/// hand-edited file a repeated key is a mistake whichever copy would win, so
/// find repeats in the text. \p Json is already known to be valid JSON,
/// which keeps this scan simple: a string followed by ':' is a key.
void reportDuplicateKeys(StringRef Json, Diagnostics &Diags) {
  struct Position {
    unsigned Line, Column;
  };
  struct Level {
    std::string Path;
    bool IsObject;
    StringMap<Position> Keys;
  };
  SmallVector<Level, 4> Stack;
  std::string LastKey;
  unsigned Line = 1;
  size_t LineStart = 0;
  for (size_t I = 0; I < Json.size(); ++I) {
    char C = Json[I];
    if (C == '\n') {
      ++Line;
      LineStart = I + 1;
    } else if (C == '{' || C == '[') {
      // Keys inside arrays are named "key[].inner".
      std::string Path;
      if (!Stack.empty())
        Path = Stack.back().IsObject
                   ? Stack.back().Path + LastKey + (C == '[' ? "[]." : ".")
                   : Stack.back().Path;
      Stack.push_back({std::move(Path), C == '{', {}});
    } else if (C == '}' || C == ']') {
      Stack.pop_back();
    } else if (C == '"') {
      size_t Begin = I++;
      for (; Json[I] != '"'; ++I)
        if (Json[I] == '\\')
          ++I; // skip the escaped character
      size_t Next = Json.find_first_not_of(" \t\r\n", I + 1);
      bool IsKey = Next != StringRef::npos && Json[Next] == ':' &&
                   !Stack.empty() && Stack.back().IsObject;
      if (!IsKey)
        continue;
      LastKey = Json.slice(Begin + 1, I).str();
      Position Here{Line, unsigned(Begin - LineStart + 1)};
      auto [First, Inserted] = Stack.back().Keys.try_emplace(LastKey, Here);
      if (!Inserted)
        Diags.report(Stack.back().Path + LastKey,
                     formatv("appears twice (at {0}:{1} and {2}:{3}); keep "
                             "one",
                             First->second.Line, First->second.Column,
                             Here.Line, Here.Column));
    }
  }
}

} // namespace

StringRef schedulerName(WarpScheduler S) {
  return S == WarpScheduler::GreedyThenOldest ? "gto" : "rr";
}

Expected<WarpScheduler> parseSchedulerName(StringRef Name) {
  if (Name == "rr")
    return WarpScheduler::RoundRobin;
  if (Name == "gto")
    return WarpScheduler::GreedyThenOldest;
  return createStringError(inconvertibleErrorCode(),
                           "\"%s\" is not a scheduler policy; use \"rr\" "
                           "(round-robin) or \"gto\" (greedy-then-oldest)",
                           Name.str().c_str());
}

StringRef memoryWaitName(MemoryWait W) {
  return W == MemoryWait::Register ? "register" : "instruction";
}

Expected<MemoryWait> parseMemoryWaitName(StringRef Name) {
  if (Name == "instruction")
    return MemoryWait::Instruction;
  if (Name == "register")
    return MemoryWait::Register;
  return createStringError(inconvertibleErrorCode(),
                           "\"%s\" is not a memory wait; use \"instruction\" "
                           "(a warp waits for each memory instruction) or "
                           "\"register\" (only for the registers loads write)",
                           Name.str().c_str());
}

StringRef localWritePolicyName(LocalWritePolicy P) {
  return P == LocalWritePolicy::WriteThrough ? "write-through" : "write-back";
}

Expected<LocalWritePolicy> parseLocalWritePolicyName(StringRef Name) {
  if (Name == "write-back")
    return LocalWritePolicy::WriteBack;
  if (Name == "write-through")
    return LocalWritePolicy::WriteThrough;
  return createStringError(inconvertibleErrorCode(),
                           "\"%s\" is not a local write policy; use "
                           "\"write-back\" or \"write-through\"",
                           Name.str().c_str());
}

Expected<AcceleratorConfig> parseConfig(StringRef Json, StringRef Origin) {
  Diagnostics Diags(Origin);
  Expected<json::Value> Root = json::parse(Json);
  if (!Root)
    return createStringError(inconvertibleErrorCode(),
                             describeParseError(Root.takeError(), Diags));
  reportDuplicateKeys(Json, Diags);
  const json::Object *Obj = Root->getAsObject();
  if (!Obj) {
    Diags.reportFile("expected a JSON object at the top level, got " +
                     describe(*Root));
    return Diags.takeError();
  }
  AcceleratorConfig C;
  readAccelerator(*Obj, C, Diags);
  if (!Diags.empty())
    return Diags.takeError();
  return C;
}

Expected<AcceleratorConfig> loadConfig(StringRef Path) {
  sys::fs::file_status Status;
  if (std::error_code EC = sys::fs::status(Path, Status))
    return createStringError(EC, "%s: cannot read the configuration: %s",
                             Path.str().c_str(), EC.message().c_str());
  if (Status.type() != sys::fs::file_type::regular_file)
    return createStringError(inconvertibleErrorCode(),
                             "%s: is not a regular file; pass a .json "
                             "configuration file (see configs/default.json)",
                             Path.str().c_str());
  if (Status.getSize() > MaxConfigFileBytes)
    return createStringError(
        inconvertibleErrorCode(),
        "%s: %llu bytes is too large for a configuration (at most %llu)",
        Path.str().c_str(), (unsigned long long)Status.getSize(),
        (unsigned long long)MaxConfigFileBytes);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return createStringError(
        Buffer.getError(), "%s: cannot read the configuration: %s",
        Path.str().c_str(), Buffer.getError().message().c_str());
  return parseConfig((*Buffer)->getBuffer(), Path);
}

std::string defaultConfigPath() {
  SmallString<256> Source(TANDEM_SOURCE_CONFIG_DIR);
  sys::path::append(Source, "default.json");
  if (sys::fs::exists(Source))
    return std::string(Source);
  SmallString<256> Installed(TANDEM_INSTALL_CONFIG_DIR);
  sys::path::append(Installed, "default.json");
  return std::string(Installed);
}

std::string lsuInFlightProblem(const LsuConfig &L) {
  if (L.InFlight == 0)
    return "0 memory instructions in flight: the LSU holds at least 1";
  if (L.InFlight <= L.MaxInFlight)
    return "";
  return formatv("{0} is more than lsu.max_in_flight ({1}), the most the core is built to "
                 "hold; raise max_in_flight (another Verilated model) or use at most {1}",
                 L.InFlight, L.MaxInFlight);
}

std::string describeConfig(const AcceleratorConfig &C) {
  return formatv("{0} lanes, {1} warps per core, {2} registers, {17}-word instruction "
                 "memory, scheduler {3}, memory wait {18}, {19} memory instruction{20} in flight "
                 "(built for {21}); "
                 "L1 {4} bytes, "
                 "{5}-way, {6}-byte lines, local stores {7}; shared {8} bytes, {9} banks; "
                 "DRAM {10} cycles, {11} bytes per cycle, {12} channel{13}, {14} outstanding; "
                 "{15} core{16}",
                 C.Lanes, C.WarpsPerCore, C.Registers, schedulerName(C.Scheduler), C.L1.SizeBytes,
                 C.L1.Ways, C.L1.LineBytes, localWritePolicyName(C.L1.LocalWrites),
                 C.Shared.SizeBytes, C.Shared.Banks, C.Dram.LatencyCycles, C.Dram.BytesPerCycle,
                 C.Dram.Channels, C.Dram.Channels == 1 ? "" : "s", C.Dram.MaxOutstanding, C.Cores,
                 C.Cores == 1 ? "" : "s", C.ImemWords, memoryWaitName(C.MemWait), C.Lsu.InFlight,
                 C.Lsu.InFlight == 1 ? "" : "s", C.Lsu.MaxInFlight)
      .str();
}

std::string configToJson(const AcceleratorConfig &C) {
  std::string Text;
  raw_string_ostream OS(Text);
  // Written key by key (not through json::Object, which sorts) so the output
  // keeps the documented order of configs/default.json.
  json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("name", C.Name);
    J.attribute("cores", C.Cores);
    J.attribute("warps_per_core", C.WarpsPerCore);
    J.attribute("lanes", C.Lanes);
    J.attribute("registers", C.Registers);
    J.attribute("imem_words", C.ImemWords);
    J.attribute("scheduler", schedulerName(C.Scheduler));
    J.attribute("memory_wait", memoryWaitName(C.MemWait));
    J.attributeObject("lsu", [&] {
      J.attribute("max_in_flight", C.Lsu.MaxInFlight);
      J.attribute("in_flight", C.Lsu.InFlight);
    });
    J.attributeObject("l1", [&] {
      J.attribute("size_bytes", C.L1.SizeBytes);
      J.attribute("ways", C.L1.Ways);
      J.attribute("line_bytes", C.L1.LineBytes);
      J.attribute("local_write_policy", localWritePolicyName(C.L1.LocalWrites));
    });
    J.attributeObject("shared", [&] {
      J.attribute("size_bytes", C.Shared.SizeBytes);
      J.attribute("banks", C.Shared.Banks);
    });
    J.attributeObject("dram", [&] {
      J.attribute("latency_cycles", C.Dram.LatencyCycles);
      J.attribute("bytes_per_cycle", C.Dram.BytesPerCycle);
      J.attribute("channels", C.Dram.Channels);
      J.attribute("max_outstanding", C.Dram.MaxOutstanding);
    });
  });
  OS << "\n";
  return Text;
}

} // namespace tandem
