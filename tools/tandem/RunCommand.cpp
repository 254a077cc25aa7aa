//===- RunCommand.cpp - `tandem run`: run one kernel on a device ----------===//
//
//   tandem run FILE.img|FILE.s|FILE.cu|FILE.ll|FILE.bc --kernel NAME
//              --grid X[,Y[,Z]] --block X[,Y[,Z]]
//              [--shared BYTES] [--device iss|rtl|gpu] [--config CFG.json] [--trace]
//              [--arg SPEC]... [--seed N] [--dump N] [--step-limit N]
//              [--set NAME=TYPE:V,...|NAME=in:FILE.npy]...
//              [--get NAME:TYPE|NAME=out:FILE.npy:TYPE]...
//              [-O0..-O3] [--json] [--predict]   (--predict: iss, rtl)
//              [--vcd FILE | --fst FILE] [--timeline FILE.json]   (rtl only)
//              [--scheduler rr|gto] [--memory-wait instruction|register]
//              [--lsu-in-flight N]
//                                     (override the configuration's)
//
// Loads, assembles or compiles an image, allocates and fills the buffers the
// --arg specs describe (generated, or read from .npy files), writes the
// --set values into the image's variables by name, launches the kernel,
// writes the out:/inout: buffers back to .npy files, and prints the
// counters as a table (or, with --json, one JSON object) and, with --dump
// N, the first N elements of every buffer, then every --get variable.
// --predict adds the simt model's
// prediction of the same launch, from a traced iss run of it. Every argument is validated
// before anything runs; output files are written only after a successful
// launch, so a faulted kernel leaves them untouched. Errors exit non-zero
// with a message that names the offending option and the fix. Exit status:
// 0 success, 1 failure (including a kernel fault), 2 usage error.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"
#include "Npy.h"

#include "Assembler.h"
#include "GpuDevice.h"
#include "Report.h"
#include "SimtModel.h"
#include "TraceProfile.h"
#include "compiler/Compiler.h"
#include "tandem/Config.h"
#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace llvm;

namespace tandem::cli {
namespace {

void printRunHelp(raw_ostream &OS) {
  OS << "OVERVIEW: run one kernel of a kernel image on a device and print its "
        "counters\n\n"
        "USAGE: tandem run FILE.img|FILE.s|FILE.cu|FILE.ll|FILE.bc --kernel "
        "NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [options]\n\n"
        "OPTIONS:\n"
        "  --kernel NAME      the kernel to launch (may be left out when the "
        "image has one)\n"
        "  --grid X[,Y[,Z]]   blocks in the grid (missing dimensions are 1)\n"
        "  --block X[,Y[,Z]]  threads per block\n"
        "  --shared BYTES     dynamic shared memory per block (default 0)\n"
        "  --arg SPEC         one kernel argument, in parameter order; "
        "repeat for each:\n"
        "                       u32:V  s32:V (or i32:V)  f32:V   a scalar (V "
        "decimal, 0x hex, or a\n"
        "                         float literal)\n"
        "                       buf:TYPE:COUNT[:INIT] a new buffer of COUNT "
        "elements, passed as a pointer;\n"
        "                         TYPE u32|s32|f32|u8; INIT rand (default; "
        "u32/u8 any value, s32 in\n"
        "                         [-1000, 1000], f32 in [-1, 1)), zero, iota "
        "(0, 1, 2, ...) or poison\n"
        "                         (every word 0xdeadbeef, every u8 0xef)\n"
        "                       in:FILE.npy           a buffer filled from a "
        "NumPy file (<f4, <i4, <u4, |u1)\n"
        "                       inout:FILE.npy        the same, written back to "
        "FILE.npy after the run\n"
        "                       out:FILE.npy:TYPE:COUNT  a buffer of COUNT "
        "poisoned elements (TYPE f32,\n"
        "                         i32, u32 or u8), written to FILE.npy after "
        "the run\n"
        "                       (.npy files are written only when the kernel "
        "ran without a fault)\n"
        "  --set NAME=TYPE:V[,V...]  before the launch, write values (TYPE u32, s32, f32 or u8)\n"
        "                     into the image's variable NAME from its first byte on (a\n"
        "                     __constant__ or __device__ variable; `tandem objdump` lists them)\n"
        "  --set NAME=in:FILE.npy    the same with a NumPy file's elements\n"
        "  --get NAME:TYPE    after the run, print every element of the variable NAME (also in\n"
        "                     --json, under \"symbols\")\n"
        "  --get NAME=out:FILE.npy:TYPE  the same into a NumPy file (a vector of the variable's\n"
        "                     whole TYPE elements), written only when the kernel ran without a "
        "fault\n"
        "  --seed N           seed for rand buffers (default 1)\n"
        "  --dump N           after the run, print the first N elements of "
        "every buffer\n"
        "  --json             print the kernel, device, grid, block, counters "
        "(and, for a compiled\n"
        "                     source, registers and spill bytes) as one JSON "
        "object\n"
        "  -O0 .. -O3         optimization level for a .cu/.ll/.bc input "
        "(default -O2)\n"
        "  --no-schedule      compile a .cu/.ll/.bc input for simt without the list "
        "scheduler\n"
        "  --no-coalesce      compile a .cu/.ll/.bc input for simt without lane-aware copy "
        "coalescing\n"
        "  --device NAME      iss (default), rtl, or gpu (PTX on an NVIDIA GPU "
        "through the CUDA\n"
        "                     driver: a .cu/.ll/.bc source is compiled with "
        "--target ptx, a .ptx\n"
        "                     file is loaded as it is; docs/GPU.md)\n"
        "  --config FILE      accelerator configuration (default: "
        "configs/default.json)\n"
        "  --scheduler P      warp scheduler policy: rr (round-robin) or gto "
        "(greedy-then-oldest);\n"
        "                     overrides the configuration's 'scheduler' "
        "(docs/RTL.md)\n"
        "  --memory-wait W    instruction (a warp waits for each memory instruction) or "
        "register\n"
        "                     (only for the registers loads write); overrides the "
        "configuration's\n"
        "                     'memory_wait' (docs/RTL.md)\n"
        "  --lsu-in-flight N  memory instructions the LSU holds at once, 1..lsu.max_in_flight\n"
        "                     (8 by default); overrides the configuration's 'lsu.in_flight'\n"
        "                     (docs/RTL.md, \"Load/store unit\")\n"
        "  --step-limit N     fault after N warp instructions (default 2^32; "
        "0: "
        "no limit)\n"
        "  --trace            print one line per warp instruction "
        "(docs/Trace.md)\n"
        "  --predict          also predict the launch with the simt model (iss and rtl): "
        "its cycles,\n"
        "                     bound and breakdown from a traced iss run of the same "
        "launch, and on\n"
        "                     rtl the error against the measured cycles (docs/Report.md)\n"
        "  --vcd FILE         rtl only: write a VCD waveform of the core's "
        "signals (docs/RTL.md)\n"
        "  --fst FILE         rtl only: the same waveform in GTKWave's compressed FST "
        "format\n"
        "  --timeline FILE    rtl only: write a Chrome/Perfetto trace, one "
        "track per warp\n"
        "                     with issue and stall intervals (open in "
        "ui.perfetto.dev)\n"
        "  -h, --help         print this help\n\n"
        "A .s file is assembled first; a .cu, .ll or .bc file is compiled "
        "for simt (registers from\n"
        "the --config file; docs/Compiler.md). Counters are described in "
        "docs/Counters.md.\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem run: error: " << Msg
         << "\nRun 'tandem run --help' for usage.\n";
  return 2;
}

int failure(const Twine &Msg) {
  errs() << "tandem run: error: " << Msg << "\n";
  return 1;
}

enum class ElemType { U32, S32, F32, U8 };
enum class Init { Rand, Zero, Iota, Poison };

unsigned elemBytes(ElemType T) { return T == ElemType::U8 ? 1 : 4; }

/// Where a buffer's contents come from and whether they go back to a file.
enum class NpyUse { None, In, InOut, Out };

/// One --arg: a scalar (Bits) or a buffer the command allocates.
struct ArgSpec {
  std::string Text;
  bool IsBuffer = false;
  ElemType Type = ElemType::U32;
  uint32_t Bits = 0;
  uint64_t Count = 0;
  Init Fill = Init::Rand;
  DevicePtr Ptr = 0;
  /// in:/inout:/out: buffers: the .npy file, its shape and (in, inout) its
  /// data, read before anything runs.
  NpyUse Npy = NpyUse::None;
  std::string NpyPath;
  std::vector<uint64_t> Shape;
  std::vector<uint8_t> FileData;
};

/// One --set: bytes for a variable of the image, written after the load.
struct SymbolSet {
  std::string Text;
  std::string Name;
  std::string NpyPath;        ///< in:FILE.npy: read by loadSymbolFiles
  std::vector<uint8_t> Bytes; ///< what is written
};

/// One --get: a variable printed (or written to a .npy file) after the run.
struct SymbolGet {
  std::string Text;
  std::string Name;
  ElemType Type = ElemType::U32;
  std::string NpyPath; ///< NAME=out:FILE.npy:TYPE
};

struct Options {
  std::string Input;
  std::string Kernel;
  std::optional<Dim3> Grid, Block;
  uint32_t SharedBytes = 0;
  std::string Device = "iss";
  std::string ConfigPath;
  std::optional<WarpScheduler> Scheduler; ///< overrides the configuration's
  std::optional<MemoryWait> MemWait;      ///< overrides the configuration's
  std::optional<uint32_t> LsuInFlight;    ///< overrides the configuration's
  bool Trace = false;
  bool Predict = false; ///< --predict: the simt model's prediction too
  std::string WaveformPath, TimelinePath;
  bool WaveformAsFst = false; ///< --fst rather than --vcd
  uint64_t Seed = 1;
  uint64_t Dump = 0;
  uint64_t StepLimit = 1ull << 32;
  unsigned OptLevel = 2;
  bool Schedule = true; ///< --no-schedule: compile without the list scheduler
  bool Coalesce = true; ///< --no-coalesce: compile without lane-aware coalescing
  bool Json = false;
  std::vector<ArgSpec> Args;
  std::vector<SymbolSet> Sets;
  std::vector<SymbolGet> Gets;
};

bool isCompilerInput(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return Ext == ".cu" || Ext == ".ll" || Ext == ".bc";
}

ElemType elemTypeOf(npy::DType T) {
  switch (T) {
  case npy::DType::F32: return ElemType::F32;
  case npy::DType::I32: return ElemType::S32;
  case npy::DType::U32: return ElemType::U32;
  case npy::DType::U8: return ElemType::U8;
  }
  return ElemType::U32;
}

npy::DType npyTypeOf(ElemType T) {
  switch (T) {
  case ElemType::F32: return npy::DType::F32;
  case ElemType::S32: return npy::DType::I32;
  case ElemType::U32: return npy::DType::U32;
  case ElemType::U8: return npy::DType::U8;
  }
  return npy::DType::U32;
}

/// Decimal or 0x-prefixed hexadecimal, no sign.
bool parseUnsigned(StringRef S, uint64_t &V) {
  if (S.starts_with_insensitive("0x"))
    return !S.drop_front(2).getAsInteger(16, V) && S.size() > 2;
  return !S.getAsInteger(10, V);
}

Expected<uint32_t> parseU32(StringRef S, StringRef What) {
  uint64_t V;
  if (!parseUnsigned(S, V) || V > UINT32_MAX)
    return createStringError(inconvertibleErrorCode(),
                             What + ": '" + S +
                                 "' is not an unsigned 32-bit integer");
  return uint32_t(V);
}

Expected<uint32_t> parseS32(StringRef S, StringRef What) {
  bool Negative = S.consume_front("-");
  uint64_t V;
  if (!parseUnsigned(S, V) || V > (Negative ? 0x80000000ull : 0x7fffffffull))
    return createStringError(inconvertibleErrorCode(),
                             What + ": '" + (Negative ? "-" : "") + S +
                                 "' is not a signed 32-bit integer");
  return uint32_t(Negative ? 0u - uint32_t(V) : uint32_t(V));
}

/// A float literal, rounded once (strtof), so 0.1 gives the nearest float.
Expected<uint32_t> parseF32(StringRef S, StringRef What) {
  std::string Z = S.str();
  char *End = nullptr;
  errno = 0;
  float F = std::strtof(Z.c_str(), &End);
  if (Z.empty() || End != Z.c_str() + Z.size())
    return createStringError(inconvertibleErrorCode(),
                             What + ": '" + S +
                                 "' is not a floating-point number");
  return llvm::bit_cast<uint32_t>(F);
}

Expected<Dim3> parseDim(StringRef S, StringRef Option) {
  SmallVector<StringRef, 3> Parts;
  S.split(Parts, ',');
  if (Parts.size() > 3)
    return createStringError(inconvertibleErrorCode(),
                             Option + " takes at most 3 dimensions, got '" + S +
                                 "'");
  uint32_t V[3] = {1, 1, 1};
  for (size_t I = 0; I < Parts.size(); ++I) {
    Expected<uint32_t> D = parseU32(Parts[I].trim(), Option);
    if (!D)
      return D.takeError();
    if (*D == 0)
      return createStringError(inconvertibleErrorCode(),
                               Option + " '" + S +
                                   "': every dimension must be at least 1");
    V[I] = *D;
  }
  return Dim3{V[0], V[1], V[2]};
}

/// in:FILE.npy, inout:FILE.npy, out:FILE.npy:TYPE:COUNT. The file is read
/// later (loadNpyArgs); here only the spelling is checked.
Expected<ArgSpec> parseNpyArg(ArgSpec A, StringRef Kind, StringRef Rest,
                              const std::string &What) {
  A.IsBuffer = true;
  A.Npy = Kind == "in" ? NpyUse::In : Kind == "inout" ? NpyUse::InOut : NpyUse::Out;
  if (A.Npy != NpyUse::Out) {
    if (Rest.empty())
      return createStringError(inconvertibleErrorCode(),
                               What + ": name the file, as " + Kind + ":FILE.npy");
    A.NpyPath = Rest.str();
    return A;
  }
  // The file name may itself hold ':', so TYPE and COUNT are taken from the
  // right.
  auto [FileAndType, CountText] = Rest.rsplit(':');
  auto [File, TypeText] = FileAndType.rsplit(':');
  if (File.empty() || TypeText.empty() || CountText.empty() || !FileAndType.contains(':'))
    return createStringError(inconvertibleErrorCode(),
                             What + ": an output buffer is out:FILE.npy:TYPE:COUNT, "
                                    "for example out:c.npy:f32:1024");
  std::optional<npy::DType> T = npy::parseShortName(TypeText);
  if (!T)
    return createStringError(inconvertibleErrorCode(),
                             What + ": unknown element type '" + TypeText +
                                 "'; use f32, i32, u32 or u8");
  uint64_t Count;
  if (!parseUnsigned(CountText, Count) || Count == 0 || Count > (1ull << 32) / 4)
    return createStringError(inconvertibleErrorCode(),
                             What + ": element count '" + CountText +
                                 "' must be a number between 1 and 1073741824");
  A.NpyPath = File.str();
  A.Type = elemTypeOf(*T);
  A.Count = Count;
  A.Shape = {Count};
  A.Fill = Init::Poison;
  return A;
}

/// u32, s32 (or i32, numpy's name), f32 or u8.
std::optional<ElemType> parseElemType(StringRef T) {
  if (T == "u32")
    return ElemType::U32;
  if (T == "s32" || T == "i32")
    return ElemType::S32;
  if (T == "f32")
    return ElemType::F32;
  if (T == "u8")
    return ElemType::U8;
  return std::nullopt;
}

Expected<ArgSpec> parseArg(StringRef Text) {
  ArgSpec A;
  A.Text = Text.str();
  auto [Kind, Rest] = Text.split(':');
  std::string What = ("--arg " + Text).str();
  if (Kind == "in" || Kind == "inout" || Kind == "out")
    return parseNpyArg(std::move(A), Kind, Rest, What);
  if (Kind == "i32")
    Kind = "s32"; // the name numpy users type
  if (Kind == "u32" || Kind == "s32" || Kind == "f32") {
    Expected<uint32_t> Bits = Kind == "u32"   ? parseU32(Rest, What)
                              : Kind == "s32" ? parseS32(Rest, What)
                                              : parseF32(Rest, What);
    if (!Bits)
      return Bits.takeError();
    A.Bits = *Bits;
    A.Type = Kind == "u32"   ? ElemType::U32
             : Kind == "s32" ? ElemType::S32
                             : ElemType::F32;
    return A;
  }
  if (Kind != "buf")
    return createStringError(
        inconvertibleErrorCode(),
        What + ": unknown kind '" + Kind +
            "'; use u32:V, s32:V, f32:V, buf:TYPE:COUNT[:INIT], in:FILE.npy, "
            "inout:FILE.npy or out:FILE.npy:TYPE:COUNT");
  SmallVector<StringRef, 3> Parts;
  Rest.split(Parts, ':');
  if (Parts.size() < 2 || Parts.size() > 3)
    return createStringError(inconvertibleErrorCode(),
                             What + ": a buffer is buf:TYPE:COUNT[:INIT]");
  A.IsBuffer = true;
  std::optional<ElemType> T = parseElemType(Parts[0]);
  if (!T)
    return createStringError(inconvertibleErrorCode(),
                             What + ": unknown element type '" + Parts[0] +
                                 "'; use u32, s32, f32 or u8");
  A.Type = *T;
  uint64_t Count;
  if (!parseUnsigned(Parts[1], Count) || Count == 0 || Count > (1ull << 32) / 4)
    return createStringError(inconvertibleErrorCode(),
                             What + ": element count '" + Parts[1] +
                                 "' must be a number between 1 and 1073741824");
  A.Count = Count;
  StringRef Fill = Parts.size() == 3 ? Parts[2] : "rand";
  if (Fill == "rand")
    A.Fill = Init::Rand;
  else if (Fill == "zero")
    A.Fill = Init::Zero;
  else if (Fill == "iota")
    A.Fill = Init::Iota;
  else if (Fill == "poison")
    A.Fill = Init::Poison;
  else
    return createStringError(inconvertibleErrorCode(),
                             What + ": unknown initializer '" + Fill +
                                 "'; use rand, zero, iota or poison");
  return A;
}

/// NAME=TYPE:V[,V...] or NAME=in:FILE.npy (the file is read later).
Expected<SymbolSet> parseSet(StringRef Text) {
  SymbolSet S;
  S.Text = Text.str();
  std::string What = ("--set " + Text).str();
  auto [Name, Spec] = Text.split('=');
  auto [Kind, Values] = Spec.split(':');
  if (Name.empty() || !Text.contains('=') || !Spec.contains(':') || Values.empty())
    return createStringError(inconvertibleErrorCode(),
                             What + ": expected NAME=TYPE:V[,V...] or NAME=in:FILE.npy, "
                                    "for example coeffs=f32:1,0.5,0.25");
  S.Name = Name.str();
  if (Kind == "in") {
    S.NpyPath = Values.str();
    return S;
  }
  std::optional<ElemType> T = parseElemType(Kind);
  if (!T)
    return createStringError(inconvertibleErrorCode(),
                             What + ": unknown element type '" + Kind +
                                 "'; use u32, s32, f32, u8 or in:FILE.npy");
  SmallVector<StringRef, 8> Parts;
  Values.split(Parts, ',');
  for (StringRef V : Parts) {
    V = V.trim();
    Expected<uint32_t> Bits = *T == ElemType::F32   ? parseF32(V, What)
                              : *T == ElemType::S32 ? parseS32(V, What)
                                                    : parseU32(V, What);
    if (!Bits)
      return Bits.takeError();
    if (*T == ElemType::U8 && *Bits > 255)
      return createStringError(inconvertibleErrorCode(),
                               What + ": '" + V + "' does not fit in u8");
    for (unsigned B = 0; B < elemBytes(*T); ++B)
      S.Bytes.push_back(uint8_t(*Bits >> (8 * B)));
  }
  return S;
}

/// NAME:TYPE or NAME=out:FILE.npy:TYPE.
Expected<SymbolGet> parseGet(StringRef Text) {
  auto Bad = [&] {
    return createStringError(inconvertibleErrorCode(),
                             "--get " + Text + ": expected NAME:TYPE or NAME=out:FILE.npy:TYPE "
                                               "with TYPE u32, s32, f32 or u8, for example "
                                               "evaluated:s32");
  };
  // Typed: what precedes the last ':' (the name, or the file after out:).
  StringRef Name, Typed = Text;
  bool ToFile = Text.contains('=');
  if (ToFile) {
    std::tie(Name, Typed) = Text.split('=');
    if (!Typed.consume_front("out:"))
      return Bad();
  }
  auto [Head, TypeText] = Typed.rsplit(':');
  std::optional<ElemType> T = parseElemType(TypeText); // none when there is no ':'
  if (!T || Head.empty() || (ToFile && Name.empty()))
    return Bad();
  SymbolGet G;
  G.Text = Text.str();
  G.Type = *T;
  G.Name = (ToFile ? Name : Head).str();
  if (ToFile)
    G.NpyPath = Head.str();
  return G;
}

/// Parses argv; returns 0 to go on, else the exit status to return.
int parseOptions(int Argc, char **Argv, Options &O) {
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    StringRef Arg = Args.arg();
    if (Args.flag("--help") || Args.flag("-h")) {
      printRunHelp(outs());
      return -1;
    }
    // Only long options have values here; a positional argument is the
    // input, whatever it holds.
    StringRef Name = Args.isPositional() ? StringRef() : Args.name();
    auto Value = [&](StringRef &Out) -> bool {
      std::optional<StringRef> Given = Args.value();
      if (!Given)
        return false;
      Out = *Given;
      return true;
    };
    StringRef V;
    auto Need = [&]() { return usageError(Name + " needs a value"); };
    if (Args.flag("--trace")) {
      O.Trace = true;
    } else if (Args.flag("--json")) {
      O.Json = true;
    } else if (Args.flag("--predict")) {
      O.Predict = true;
    } else if (Args.flag("--no-schedule")) {
      O.Schedule = false;
    } else if (Args.flag("--no-coalesce")) {
      O.Coalesce = false;
    } else if (Args.shortOption("-O")) {
      StringRef Level = Arg.drop_front(2);
      if (Level.size() != 1 || Level[0] < '0' || Level[0] > '3')
        return usageError("'" + Arg +
                          "': the optimization levels are -O0, -O1, -O2 and -O3");
      O.OptLevel = Level[0] - '0';
    } else if (Name == "--kernel") {
      if (!Value(V))
        return Need();
      O.Kernel = V.str();
    } else if (Name == "--grid" || Name == "--block") {
      if (!Value(V))
        return Need();
      Expected<Dim3> D = parseDim(V, Name);
      if (!D)
        return usageError(toString(D.takeError()));
      (Name == "--grid" ? O.Grid : O.Block) = *D;
    } else if (Name == "--shared") {
      if (!Value(V))
        return Need();
      Expected<uint32_t> B = parseU32(V, "--shared");
      if (!B)
        return usageError(toString(B.takeError()));
      O.SharedBytes = *B;
    } else if (Name == "--vcd" || Name == "--fst" || Name == "--timeline") {
      if (!Value(V) || V.empty())
        return Need();
      if (Name != "--timeline" && !O.WaveformPath.empty())
        return usageError(Name + ": one waveform per run (--vcd or --fst)");
      (Name == "--timeline" ? O.TimelinePath : O.WaveformPath) = V.str();
      O.WaveformAsFst |= Name == "--fst";
    } else if (Name == "--device") {
      if (!Value(V))
        return Need();
      O.Device = V.str();
    } else if (Name == "--config") {
      if (!Value(V))
        return Need();
      O.ConfigPath = V.str();
    } else if (Name == "--scheduler") {
      if (!Value(V))
        return Need();
      Expected<WarpScheduler> P = parseSchedulerName(V);
      if (!P)
        return usageError("--scheduler: " + toString(P.takeError()));
      O.Scheduler = *P;
    } else if (Name == "--memory-wait") {
      if (!Value(V))
        return Need();
      Expected<MemoryWait> W = parseMemoryWaitName(V);
      if (!W)
        return usageError("--memory-wait: " + toString(W.takeError()));
      O.MemWait = *W;
    } else if (Name == "--lsu-in-flight") {
      if (!Value(V))
        return Need();
      uint64_t N;
      // Checked against the configuration's lsu.max_in_flight once it is read.
      if (!parseUnsigned(V, N) || N < 1 || N > LsuConfig::MaxInFlightLimit)
        return usageError(formatv("--lsu-in-flight: '{0}' is not a count in 1..{1}", V,
                                  LsuConfig::MaxInFlightLimit)
                              .str());
      O.LsuInFlight = uint32_t(N);
    } else if (Name == "--seed" || Name == "--dump" || Name == "--step-limit") {
      if (!Value(V))
        return Need();
      uint64_t N;
      if (!parseUnsigned(V, N))
        return usageError(Name + ": '" + V + "' is not a number");
      (Name == "--seed" ? O.Seed : Name == "--dump" ? O.Dump : O.StepLimit) = N;
    } else if (Name == "--arg") {
      if (!Value(V))
        return Need();
      Expected<ArgSpec> A = parseArg(V);
      if (!A)
        return usageError(toString(A.takeError()));
      O.Args.push_back(std::move(*A));
    } else if (Name == "--set" || Name == "--get") {
      if (!Value(V))
        return Need();
      if (Name == "--set") {
        Expected<SymbolSet> S = parseSet(V);
        if (!S)
          return usageError(toString(S.takeError()));
        O.Sets.push_back(std::move(*S));
      } else {
        Expected<SymbolGet> G = parseGet(V);
        if (!G)
          return usageError(toString(G.takeError()));
        O.Gets.push_back(std::move(*G));
      }
    } else if (!Args.isPositional()) {
      return usageError("unknown option '" + Arg + "'");
    } else if (O.Input.empty()) {
      O.Input = Arg.str();
    } else {
      return usageError("more than one input file ('" + O.Input + "', '" + Arg + "')");
    }
  }
  if (O.Input.empty())
    return usageError("no input file (a .img kernel image, a .s assembly file, "
                      "or a .cu/.ll/.bc source)");
  if (O.Predict && O.Device == "gpu")
    return usageError("--predict: the simt model predicts iss and rtl runs; the gpu "
                      "model's rows come from `tandem report --device gpu` (docs/Report.md)");
  // The table and the JSON object share stdout; the trace and the dump
  // would break the JSON.
  if (O.Json && (O.Trace || O.Dump))
    return usageError(Twine(O.Trace ? "--trace" : "--dump") +
                      " cannot be combined with --json (both print on "
                      "standard output)");
  if (!O.Grid)
    return usageError("--grid X[,Y[,Z]] is required");
  if (!O.Block)
    return usageError("--block X[,Y[,Z]] is required");
  if (O.Device != "rtl" && (!O.WaveformPath.empty() || !O.TimelinePath.empty()))
    return usageError(Twine(O.WaveformPath.empty() ? "--timeline"
                            : O.WaveformAsFst      ? "--fst"
                                                   : "--vcd") +
                      ": only the rtl device records waveforms and "
                      "timelines; add --device rtl");
  return 0;
}

/// Reads the in:/inout: files and checks that no two buffers write the same
/// file (the second write would silently win).
Error loadNpyArgs(std::vector<ArgSpec> &Args) {
  for (size_t I = 0; I < Args.size(); ++I) {
    ArgSpec &A = Args[I];
    if (A.Npy == NpyUse::None)
      continue;
    for (size_t J = 0; J < I; ++J)
      if (A.Npy != NpyUse::In && Args[J].Npy != NpyUse::None &&
          Args[J].Npy != NpyUse::In && Args[J].NpyPath == A.NpyPath)
        return createStringError(inconvertibleErrorCode(),
                                 "--arg " + A.Text + ": '" + A.NpyPath +
                                     "' is already written by --arg " + Args[J].Text);
    if (A.Npy == NpyUse::Out)
      continue;
    Expected<npy::Array> Arr = npy::readFile(A.NpyPath);
    if (!Arr)
      return createStringError(inconvertibleErrorCode(),
                               "--arg " + A.Text + ": " + toString(Arr.takeError()));
    if (Arr->count() == 0)
      return createStringError(inconvertibleErrorCode(),
                               "--arg " + A.Text + ": '" + A.NpyPath +
                                   "' holds no elements; a buffer needs at least one");
    A.Type = elemTypeOf(Arr->Type);
    A.Count = Arr->count();
    A.Shape = Arr->Shape;
    A.FileData = std::move(Arr->Data);
  }
  return Error::success();
}

/// What the compiler said about the kernels, when the input was a source.
struct CompiledInfo {
  bool Compiled = false;
  std::vector<compiler::KernelReport> Kernels;
};

Expected<KernelImage> compileInput(const Options &O, const AcceleratorConfig &Config,
                                   CompiledInfo &Info) {
  StringRef Path = O.Input;
  compiler::CompileOptions CO = compiler::optionsFor(Config);
  CO.OptLevel = O.OptLevel;
  CO.Schedule = O.Schedule;
  CO.CoalesceLaneCopies = O.Coalesce;
  Expected<compiler::CompileResult> R = compiler::compileFile(Path, CO);
  if (!R)
    return R.takeError();
  if (!R->Image)
    return createStringError(inconvertibleErrorCode(),
                             "internal compiler error: no kernel image for '" + Path + "'");
  Info.Compiled = true;
  Info.Kernels = R->Kernels;
  return std::move(*R->Image);
}

/// For --device gpu: the PTX of a source (compiled for --target ptx) or of a
/// .ptx file, and its kernel table (names and parameter kinds, no code) so
/// that the kernel choice and checkArgs work as for an image.
Expected<KernelImage> loadPtxInput(StringRef Path, unsigned OptLevel, std::string &Ptx) {
  if (isCompilerInput(Path)) {
    compiler::CompileOptions CO;
    CO.Target = "ptx";
    CO.OptLevel = OptLevel;
    CO.Emit = compiler::EmitKind::Asm;
    Expected<compiler::CompileResult> R = compiler::compileFile(Path, CO);
    if (!R)
      return R.takeError();
    Ptx = std::move(R->Text);
  } else if (Path.ends_with(".ptx")) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!File)
      return createStringError(File.getError(),
                               "cannot read '" + Path + "': " + File.getError().message());
    Ptx = (*File)->getBuffer().str();
  } else {
    return createStringError(inconvertibleErrorCode(),
                             "'" + Path + "': the gpu device runs PTX; give a .cu, .ll, "
                             ".bc or .ptx file (kernel images and .s files are SIMT code "
                             "for --device iss or rtl)");
  }
  Expected<std::vector<KernelInfo>> Table = ptxKernelTable(Ptx, Path);
  if (!Table)
    return Table.takeError();
  KernelImage Img;
  Img.Kernels = std::move(*Table);
  return Img;
}

Expected<KernelImage> loadInput(StringRef Path) {
  if (!Path.ends_with(".s"))
    return readImageFile(Path);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Source =
      MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Source)
    return createStringError(Source.getError(),
                             "cannot read '" + Path +
                                 "': " + Source.getError().message());
  return assemble((*Source)->getBuffer(), Path);
}

Expected<AcceleratorConfig> loadConfigFor(const Options &O) {
  if (!O.ConfigPath.empty())
    return loadConfig(O.ConfigPath);
  std::string Default = defaultConfigPath();
  if (sys::fs::exists(Default))
    return loadConfig(Default);
  return AcceleratorConfig(); // the built-in defaults equal
                              // configs/default.json
}

/// Arguments must match the kernel's parameters in number and broadly in
/// kind: a buffer goes to a pointer, a float to an f32 and integers to the
/// rest (an integer for a pointer passes a raw device address).
Error checkArgs(const KernelInfo &K, const std::vector<ArgSpec> &Args) {
  std::string Params;
  for (const KernelParam &P : K.Params)
    Params += formatv("{0}{1}: {2}", Params.empty() ? "" : ", ", P.Name,
                      paramKindName(P.Kind))
                  .str();
  if (Args.size() != K.Params.size())
    return createStringError(inconvertibleErrorCode(),
                             formatv("kernel '{0}' takes {1} arguments ({2}) "
                                     "but {3} --arg options were given",
                                     K.Name, K.Params.size(),
                                     Params.empty() ? "none" : Params,
                                     Args.size()));
  for (size_t I = 0; I < Args.size(); ++I) {
    const ArgSpec &A = Args[I];
    const KernelParam &P = K.Params[I];
    bool Ok = A.IsBuffer
                  ? P.Kind == ParamKind::Pointer
                  : (A.Type == ElemType::F32) == (P.Kind == ParamKind::F32);
    if (!Ok)
      return createStringError(
          inconvertibleErrorCode(),
          formatv("--arg {0} does not fit parameter {1} '{2}' of kernel "
                  "'{3}', which is {4}",
                  A.Text, I + 1, P.Name, K.Name, paramKindName(P.Kind)));
  }
  return Error::success();
}

std::vector<uint8_t> initialBytes(const ArgSpec &A, std::mt19937 &Rng) {
  if (A.Npy == NpyUse::In || A.Npy == NpyUse::InOut)
    return A.FileData;
  std::vector<uint8_t> Bytes(A.Count * elemBytes(A.Type));
  for (uint64_t I = 0; I < A.Count; ++I) {
    uint32_t V = 0;
    switch (A.Fill) {
    case Init::Zero:
      break;
    case Init::Poison:
      V = 0xdeadbeefu;
      break;
    case Init::Iota:
      V = A.Type == ElemType::F32 ? llvm::bit_cast<uint32_t>(float(I))
                                  : uint32_t(I);
      break;
    case Init::Rand:
      if (A.Type == ElemType::F32)
        V = llvm::bit_cast<uint32_t>(float(int32_t(Rng() >> 8) - (1 << 23)) /
                                     float(1 << 23));
      else if (A.Type == ElemType::S32)
        V = uint32_t(int32_t(Rng() % 2001) - 1000);
      else
        V = uint32_t(Rng());
      break;
    }
    if (A.Type == ElemType::U8)
      Bytes[I] = uint8_t(V);
    else
      support::endian::write32le(&Bytes[I * 4], V);
  }
  return Bytes;
}

void printCounters(raw_ostream &OS, const Counters &C) {
  size_t NameWidth = 0, ValueWidth = 0;
  for (const auto &[Name, V] : C.Values) {
    NameWidth = std::max(NameWidth, Name.size());
    ValueWidth = std::max(ValueWidth, std::to_string(V).size());
  }
  for (const auto &[Name, V] : C.Values)
    OS << "  " << left_justify(Name, NameWidth) << "  "
       << right_justify(std::to_string(V), ValueWidth) << "\n";
}

void printElement(raw_ostream &OS, ElemType T, const uint8_t *P) {
  uint32_t W = T == ElemType::U8 ? *P : support::endian::read32le(P);
  switch (T) {
  case ElemType::U32:
  case ElemType::U8:
    OS << W;
    break;
  case ElemType::S32:
    OS << int32_t(W);
    break;
  case ElemType::F32:
    OS << format("%.9g", double(llvm::bit_cast<float>(W)));
    break;
  }
}

/// Writes every out:/inout: buffer to its file, in its shape.
Error writeBackBuffers(Device &D, const std::vector<ArgSpec> &Args) {
  for (const ArgSpec &A : Args) {
    if (A.Npy != NpyUse::Out && A.Npy != NpyUse::InOut)
      continue;
    npy::Array Arr;
    Arr.Type = npyTypeOf(A.Type);
    Arr.Shape = A.Shape;
    Arr.Data.resize(A.Count * elemBytes(A.Type));
    if (Error E = D.copyFromDevice(Arr.Data, A.Ptr))
      return E;
    if (Error E = npy::writeFile(Arr, A.NpyPath))
      return createStringError(inconvertibleErrorCode(),
                               "--arg " + A.Text + ": " + toString(std::move(E)));
  }
  return Error::success();
}

json::Array dimJson(const Dim3 &D) { return json::Array{D.X, D.Y, D.Z}; }

/// The measured cycles a prediction is compared with: rtl's; none on iss.
std::optional<uint64_t> measuredCycles(const Device &D) {
  if (D.name() != "rtl")
    return std::nullopt;
  return D.counters().get("cycles");
}

double errorPct(double Predicted, uint64_t Measured) {
  return Measured ? 100.0 * (Predicted - double(Measured)) / double(Measured) : 0.0;
}

/// What --predict says of a launch: the simt model's cycles and breakdown,
/// and the memory traffic its L1 replay found (the rtl counters' names).
struct LaunchPrediction {
  models::Prediction Timing;
  models::MemoryEstimate Memory;
};

/// "l1 hits 6,889 (rtl 6,914)": the model's figure, and the rtl's counter
/// of the same name where the device has it.
std::string modelFigure(const Device &D, StringRef Counter, uint64_t Model) {
  std::string S = formatv("{0} {1:N}", Counter, Model).str();
  if (D.name() == "rtl")
    if (std::optional<uint64_t> M = D.counters().get(Counter))
      S += formatv(" (rtl {0:N})", *M).str();
  return S;
}

/// The prediction's lines after the counters (`--predict`).
void printPrediction(raw_ostream &OS, const Device &D, const LaunchPrediction &LP) {
  const models::Prediction &Pr = LP.Timing;
  const models::Breakdown &B = Pr.Parts;
  OS << formatv("model: {0:N} cycles predicted ({1:F1} us at {2:F0} MHz), bound: {3}\n",
                uint64_t(std::llround(Pr.Cycles)), Pr.seconds(models::AssumedClockHz) * 1e6,
                models::AssumedClockHz / 1e6, Pr.Bound);
  OS << formatv("  compute {0:F0}, memory bandwidth {1:F0}, memory latency {2:F0}, "
                "synchronization {3:F0}, load imbalance {4:F0}, launch {5:F0}\n",
                B.Compute, B.MemoryBandwidth, B.MemoryLatency, B.Synchronization,
                B.LoadImbalance, B.Launch);
  const models::MemoryEstimate &Mem = LP.Memory;
  OS << "  memory: " << modelFigure(D, "l1_hits", Mem.L1Hits) << ", "
     << modelFigure(D, "l1_misses", Mem.L1Misses) << ", "
     << modelFigure(D, "l1_writebacks", Mem.L1Writebacks) << ", "
     << modelFigure(D, "dram_requests", Mem.DramRequests) << '\n';
  if (std::optional<uint64_t> M = measuredCycles(D))
    OS << formatv("  measured on rtl: {0:N} cycles; error {1}%\n", *M,
                  format("%+.1f", errorPct(Pr.Cycles, *M)));
  else
    OS << "  (" << D.name() << " has no clock: run with --device rtl to compare)\n";
}

void printJson(raw_ostream &OS, const Device &D, const LaunchParams &P,
               const CompiledInfo &Info, const std::optional<LaunchPrediction> &LP,
               const std::vector<SymbolGet> &Gets,
               const std::vector<std::vector<uint8_t>> &GotBytes) {
  json::Object Counters;
  for (const auto &[Name, V] : D.counters().Values)
    Counters[Name] = int64_t(V);
  json::Object Root{{"kernel", P.Kernel},
                    {"device", D.name()},
                    {"grid", dimJson(P.Grid)},
                    {"block", dimJson(P.Block)},
                    {"dynamic_shared_bytes", int64_t(P.DynamicSharedBytes)},
                    {"counters", std::move(Counters)}};
  if (Info.Compiled)
    for (const compiler::KernelReport &K : Info.Kernels)
      if (K.Name == P.Kernel)
        Root["compile"] = json::Object{{"registers_used", int64_t(K.RegistersUsed)},
                                       {"spill_bytes", int64_t(K.SpillBytes)},
                                       {"instructions", int64_t(K.Instructions)}};
  if (LP) {
    const models::Prediction &Pr = LP->Timing;
    json::Object J{{"cycles", Pr.Cycles},
                   {"seconds", Pr.seconds(models::AssumedClockHz)},
                   {"clock_hz", models::AssumedClockHz},
                   {"bound", Pr.Bound},
                   {"breakdown", models::breakdownJson(Pr.Parts)},
                   {"memory", models::memoryJson(LP->Memory)}};
    if (std::optional<uint64_t> M = measuredCycles(D))
      J["error_pct"] = errorPct(Pr.Cycles, *M);
    Root["prediction"] = std::move(J);
  }
  if (!Gets.empty()) {
    json::Object Symbols;
    for (size_t I = 0; I < Gets.size(); ++I) {
      json::Array Values;
      unsigned EB = elemBytes(Gets[I].Type);
      for (size_t K = 0; K * EB < GotBytes[I].size(); ++K) {
        const uint8_t *B = &GotBytes[I][K * EB];
        uint32_t W = EB == 1 ? B[0] : support::endian::read32le(B);
        if (Gets[I].Type == ElemType::F32)
          Values.push_back(double(llvm::bit_cast<float>(W)));
        else if (Gets[I].Type == ElemType::S32)
          Values.push_back(int64_t(int32_t(W)));
        else
          Values.push_back(int64_t(W));
      }
      Symbols[Gets[I].Name] = std::move(Values);
    }
    Root["symbols"] = std::move(Symbols);
  }
  // One line, so scripts can read it (or many runs appended) line by line.
  OS << json::Value(std::move(Root)) << "\n";
}

Error dumpBuffers(raw_ostream &OS, Device &D, const std::vector<ArgSpec> &Args,
                  uint64_t N) {
  for (size_t I = 0; I < Args.size(); ++I) {
    const ArgSpec &A = Args[I];
    if (!A.IsBuffer)
      continue;
    uint64_t Shown = std::min(N, A.Count);
    std::vector<uint8_t> Bytes(Shown * elemBytes(A.Type));
    if (Error E = D.copyFromDevice(Bytes, A.Ptr))
      return E;
    OS << formatv("arg {0} ({1}, at {2:x8}), first {3} of {4}:", I + 1, A.Text,
                  A.Ptr, Shown, A.Count);
    for (uint64_t K = 0; K < Shown; ++K) {
      OS << (K % 8 == 0 ? "\n  " : " ");
      printElement(OS, A.Type, &Bytes[K * elemBytes(A.Type)]);
    }
    OS << "\n";
  }
  return Error::success();
}

/// Reads the in:FILE.npy of every --set (before anything runs).
Error loadSymbolFiles(std::vector<SymbolSet> &Sets) {
  for (SymbolSet &S : Sets) {
    if (S.NpyPath.empty())
      continue;
    Expected<npy::Array> A = npy::readFile(S.NpyPath);
    if (!A)
      return createStringError(inconvertibleErrorCode(),
                               "--set " + S.Text + ": " + toString(A.takeError()));
    S.Bytes = std::move(A->Data);
  }
  return Error::success();
}

/// Writes the --set values into the loaded image's (module's) variables.
Error applySymbolSets(Device &D, const std::vector<SymbolSet> &Sets) {
  for (const SymbolSet &S : Sets)
    if (Error E = D.copyToSymbol(S.Name, S.Bytes))
      return createStringError(inconvertibleErrorCode(),
                               "--set " + S.Text + ": " + toString(std::move(E)));
  return Error::success();
}

/// Every --get names a variable of the loaded image: checked before the
/// launch, so a misspelt name costs no run and no .npy file is written for
/// the --gets before it.
Error checkSymbolGets(Device &D, const std::vector<SymbolGet> &Gets) {
  for (const SymbolGet &G : Gets)
    if (Expected<SymbolInfo> S = D.findSymbol(G.Name); !S)
      return createStringError(inconvertibleErrorCode(),
                               "--get " + G.Name + ": " + toString(S.takeError()));
  return Error::success();
}

/// Each --get variable's elements (whole elements of its size); writes the
/// NAME=out:FILE.npy ones' files.
Expected<std::vector<std::vector<uint8_t>>> readSymbolGets(Device &D,
                                                           const std::vector<SymbolGet> &Gets) {
  std::vector<std::vector<uint8_t>> Out;
  for (const SymbolGet &G : Gets) {
    Expected<SymbolInfo> S = D.findSymbol(G.Name);
    if (!S)
      return createStringError(inconvertibleErrorCode(),
                               "--get " + G.Name + ": " + toString(S.takeError()));
    std::vector<uint8_t> Bytes(S->Bytes / elemBytes(G.Type) * elemBytes(G.Type));
    if (Error E = D.copyFromSymbol(Bytes, G.Name))
      return createStringError(inconvertibleErrorCode(),
                               "--get " + G.Name + ": " + toString(std::move(E)));
    if (!G.NpyPath.empty()) {
      npy::Array Arr = npy::Array::vector(npyTypeOf(G.Type), Bytes.size() / elemBytes(G.Type));
      Arr.Data = Bytes;
      if (Error E = npy::writeFile(Arr, G.NpyPath))
        return createStringError(inconvertibleErrorCode(),
                                 "--get " + G.Text + ": " + toString(std::move(E)));
    }
    Out.push_back(std::move(Bytes));
  }
  return Out;
}

/// Allocates and fills \p D's buffers for \p Args (the same bytes for the
/// same --seed on every device) and returns the launch; each buffer's A.Ptr
/// then names it on \p D.
Expected<LaunchParams> setUpLaunch(Device &D, const Options &O, std::vector<ArgSpec> &Args) {
  std::mt19937 Rng(uint32_t(O.Seed));
  LaunchParams P;
  P.Kernel = O.Kernel;
  P.Grid = *O.Grid;
  P.Block = *O.Block;
  P.DynamicSharedBytes = O.SharedBytes;
  for (ArgSpec &A : Args) {
    if (!A.IsBuffer) {
      P.Args.push_back(KernelArg::u32(A.Bits));
      continue;
    }
    std::vector<uint8_t> Bytes = initialBytes(A, Rng);
    Expected<DevicePtr> Ptr = D.alloc(Bytes.size());
    if (!Ptr)
      return createStringError(inconvertibleErrorCode(),
                               "--arg " + A.Text + ": " + toString(Ptr.takeError()));
    A.Ptr = *Ptr;
    if (Error E = D.copyToDevice(A.Ptr, Bytes))
      return E;
    P.Args.push_back(KernelArg::ptr(A.Ptr));
  }
  return P;
}

/// The simt model's prediction of the launch (models/SimtModel.h), what
/// `tandem report` calls iss-assisted: the same launch, with the same
/// inputs, on a separate iss whose instruction trace TraceProfiler reads;
/// latencies from the configuration and the generated tables (the
/// report's `--profile none`).
Expected<LaunchPrediction> predictLaunch(const Options &O, const AcceleratorConfig &C,
                                         const KernelImage &Img) {
  models::TraceProfiler Profiler(C, nullptr, /*CollectRounds=*/true);
  DeviceOptions DO;
  DO.Config = C;
  DO.StepLimit = O.StepLimit;
  DO.Trace = &Profiler;
  Expected<std::unique_ptr<Device>> Iss = openDevice("iss", DO);
  if (!Iss)
    return Iss.takeError();
  std::vector<ArgSpec> Args = O.Args; // their Ptr name the iss's buffers
  Expected<LaunchParams> P = setUpLaunch(**Iss, O, Args);
  if (!P)
    return P.takeError();
  if (Error E = (*Iss)->loadImage(Img))
    return E;
  if (Error E = applySymbolSets(**Iss, O.Sets))
    return E;
  if (Error E = (*Iss)->launch(*P))
    return createStringError(inconvertibleErrorCode(),
                             "the traced iss run: " + toString(std::move(E)));
  Profiler.finish();
  if (Profiler.launches().size() != 1 || Profiler.malformedLines())
    return createStringError(inconvertibleErrorCode(),
                             "internal: the iss trace gave %zu launch profiles and %llu "
                             "unreadable lines",
                             Profiler.launches().size(),
                             (unsigned long long)Profiler.malformedLines());
  const models::LaunchProfile &L = Profiler.launches()[0];
  return LaunchPrediction{models::predictLaunch(L, models::ModelParams::forConfig(C)), L.Memory};
}

} // namespace

int runCommand(int Argc, char **Argv) {
  Options O;
  if (int Status = parseOptions(Argc, Argv, O))
    return Status < 0 ? 0 : Status;

  if (Error E = loadNpyArgs(O.Args))
    return failure(toString(std::move(E)));
  if (Error E = loadSymbolFiles(O.Sets))
    return failure(toString(std::move(E)));
  Expected<AcceleratorConfig> Config = loadConfigFor(O);
  if (!Config)
    return failure(toString(Config.takeError()));
  if (O.Scheduler)
    Config->Scheduler = *O.Scheduler;
  if (O.MemWait)
    Config->MemWait = *O.MemWait;
  if (O.LsuInFlight) {
    Config->Lsu.InFlight = *O.LsuInFlight;
    if (std::string Problem = lsuInFlightProblem(Config->Lsu); !Problem.empty())
      return failure("--lsu-in-flight: " + Problem);
  }

  CompiledInfo Compiled;
  bool Gpu = O.Device == "gpu";
  std::string Ptx; // --device gpu: the module loadPtx gets
  Expected<KernelImage> Img = Gpu                        ? loadPtxInput(O.Input, O.OptLevel, Ptx)
                              : isCompilerInput(O.Input) ? compileInput(O, *Config, Compiled)
                                                         : loadInput(O.Input);
  if (!Img) {
    if (Gpu || !StringRef(O.Input).ends_with(".s"))
      return failure(toString(Img.takeError()));
    // The assembler's diagnostics carry their own FILE:LINE:COL: error: prefix.
    errs() << toString(Img.takeError()) << "\n";
    return 1;
  }
  if (O.Kernel.empty()) {
    if (Img->Kernels.size() != 1)
      return usageError(
          formatv("'{0}' holds {1} kernels; choose one with --kernel NAME",
                  O.Input, Img->Kernels.size())
              .str());
    O.Kernel = Img->Kernels[0].Name;
  }
  const KernelInfo *K = Img->findKernel(O.Kernel);
  if (!K) {
    std::string Names;
    for (const KernelInfo &KI : Img->Kernels)
      Names += (Names.empty() ? "" : ", ") + KI.Name;
    return failure("no kernel '" + O.Kernel + "' in '" + O.Input +
                   "' (kernels: " + (Names.empty() ? "none" : Names) + ")");
  }
  if (Error E = checkArgs(*K, O.Args))
    return failure(toString(std::move(E)));

  DeviceOptions DO;
  DO.Config = *Config;
  DO.StepLimit = O.StepLimit;
  DO.Trace = O.Trace ? &outs() : nullptr;
  DO.WaveformPath = O.WaveformPath;
  DO.WaveformAsFst = O.WaveformAsFst;
  DO.TimelinePath = O.TimelinePath;
  Expected<std::unique_ptr<Device>> Dev = openDevice(O.Device, DO);
  if (!Dev)
    return failure(toString(Dev.takeError()));
  Device &D = **Dev;

  std::optional<LaunchPrediction> Predicted;
  if (O.Predict) {
    Expected<LaunchPrediction> Pr = predictLaunch(O, *Config, *Img);
    if (!Pr)
      return failure("--predict: " + toString(Pr.takeError()));
    Predicted = *Pr;
  }

  Expected<LaunchParams> P = setUpLaunch(D, O, O.Args);
  if (!P)
    return failure(toString(P.takeError()));
  if (Error E = Gpu ? D.loadPtx(Ptx, O.Input) : D.loadImage(*Img))
    return failure(toString(std::move(E)));
  if (Error E = applySymbolSets(D, O.Sets))
    return failure(toString(std::move(E)));
  if (Error E = checkSymbolGets(D, O.Gets))
    return failure(toString(std::move(E)));
  if (Error E = D.launch(*P))
    return failure(toString(std::move(E)));
  if (Error E = writeBackBuffers(D, O.Args))
    return failure(toString(std::move(E)));
  Expected<std::vector<std::vector<uint8_t>>> Got = readSymbolGets(D, O.Gets);
  if (!Got)
    return failure(toString(Got.takeError()));

  if (O.Json) {
    printJson(outs(), D, *P, Compiled, Predicted, O.Gets, *Got);
    return 0;
  }
  outs() << formatv("kernel '{0}' on {1}: grid {2},{3},{4} block {5},{6},{7}",
                    O.Kernel, D.name(), P->Grid.X, P->Grid.Y, P->Grid.Z, P->Block.X,
                    P->Block.Y, P->Block.Z);
  if (P->DynamicSharedBytes)
    outs() << ", " << P->DynamicSharedBytes << " bytes dynamic shared";
  outs() << "\n";
  printCounters(outs(), D.counters());
  if (Predicted)
    printPrediction(outs(), D, *Predicted);
  if (O.Dump)
    if (Error E = dumpBuffers(outs(), D, O.Args, O.Dump))
      return failure(toString(std::move(E)));
  for (size_t I = 0; I < O.Gets.size(); ++I) {
    unsigned EB = elemBytes(O.Gets[I].Type);
    outs() << formatv("symbol {0}, {1} elements:", O.Gets[I].Name, (*Got)[I].size() / EB);
    if (!O.Gets[I].NpyPath.empty()) {
      outs() << " written to " << O.Gets[I].NpyPath << "\n";
      continue;
    }
    for (size_t K = 0; K * EB < (*Got)[I].size(); ++K) {
      outs() << (K % 8 == 0 ? "\n  " : " ");
      printElement(outs(), O.Gets[I].Type, &(*Got)[I][K * EB]);
    }
    outs() << "\n";
  }
  return 0;
}

} // namespace tandem::cli
