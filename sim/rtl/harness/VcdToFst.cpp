//===- VcdToFst.cpp - a VCD waveform rewritten as FST ----------------------===//
//
// See VcdToFst.h for the contract. The VCD is read as a stream of
// whitespace-separated tokens (declarations may span lines); each value
// change goes to fstapi as it is read, so memory stays that of one token.
//
//===----------------------------------------------------------------------===//
#include "VcdToFst.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <cctype>
#include <memory>
#include <string>

#include "fstapi.h" // GTKWave's, from Verilator's include/gtkwave (declared extern "C")

using namespace llvm;

namespace tandem::rtl {
namespace {

/// The VCD's tokens with the line each starts on.
class Tokens {
public:
  explicit Tokens(StringRef Text) : Rest(Text) {}

  /// The next token, or an empty one at the end.
  StringRef next() {
    skipSpace();
    if (Rest.empty())
      return Rest; // the end: line() stays the last token's
    TokenLine = Line;
    size_t End = 0;
    while (End < Rest.size() && !isspace(static_cast<unsigned char>(Rest[End])))
      ++End;
    StringRef Token = Rest.take_front(End);
    Rest = Rest.drop_front(End);
    return Token;
  }
  /// The line of the token next() returned last.
  unsigned line() const { return TokenLine; }

private:
  StringRef Rest;
  unsigned Line = 1, TokenLine = 1;

  void skipSpace() {
    while (!Rest.empty() && isspace(static_cast<unsigned char>(Rest.front()))) {
      Line += Rest.front() == '\n';
      Rest = Rest.drop_front();
    }
  }
};

struct Variable {
  fstHandle Handle = 0;
  unsigned Width = 1;
  bool Real = false;
};

/// Closes the writer (writing the file) unless released.
struct WriterCloser {
  void operator()(void *Ctx) const { fstWriterClose(Ctx); }
};

class Converter {
public:
  Converter(StringRef VcdPath, StringRef Text, void *Writer)
      : VcdPath(VcdPath), In(Text), Writer(Writer) {}

  Error run() {
    if (Error E = declarations())
      return E;
    return changes();
  }

private:
  StringRef VcdPath;
  Tokens In;
  void *Writer;
  StringMap<Variable> Vars; // by VCD id
  std::string Value;        // scratch: one vector's bits

  Error fail(const Twine &Why) const {
    return createStringError(inconvertibleErrorCode(),
                             "waveform '" + VcdPath + "' line " + Twine(In.line()) + ": " + Why);
  }

  /// The tokens up to `$end`, joined by spaces.
  Expected<std::string> untilEnd(StringRef Keyword) {
    std::string Joined;
    for (StringRef T = In.next();; T = In.next()) {
      if (T.empty())
        return fail(Keyword + " has no $end");
      if (T == "$end")
        return Joined;
      if (!Joined.empty())
        Joined += ' ';
      Joined += T.str();
    }
  }

  Error declarations() {
    for (StringRef T = In.next();; T = In.next()) {
      if (T.empty())
        return fail("the file ends before $enddefinitions");
      if (T == "$enddefinitions")
        return untilEnd(T).takeError();
      Expected<std::string> Body = untilEnd(T);
      if (!Body)
        return Body.takeError();
      SmallVector<StringRef, 6> Fields;
      StringRef(*Body).split(Fields, ' ');
      if (T == "$timescale") {
        fstWriterSetTimescaleFromString(Writer, Body->c_str());
      } else if (T == "$version") {
        fstWriterSetVersion(Writer, Body->c_str());
      } else if (T == "$date") {
        fstWriterSetDate(Writer, Body->c_str());
      } else if (T == "$scope") {
        if (Fields.size() != 2)
          return fail("$scope wants a type and a name, not '" + *Body + "'");
        fstWriterSetScope(Writer, scopeType(Fields[0]), Fields[1].str().c_str(), nullptr);
      } else if (T == "$upscope") {
        fstWriterSetUpscope(Writer);
      } else if (T == "$var") {
        if (Error E = variable(Fields))
          return E;
      } else if (T != "$comment") {
        return fail("unknown declaration '" + T + "'");
      }
    }
  }

  static fstScopeType scopeType(StringRef Type) {
    if (Type == "task")
      return FST_ST_VCD_TASK;
    if (Type == "function")
      return FST_ST_VCD_FUNCTION;
    if (Type == "begin")
      return FST_ST_VCD_BEGIN;
    if (Type == "fork")
      return FST_ST_VCD_FORK;
    return FST_ST_VCD_MODULE;
  }

  /// `$var TYPE WIDTH ID NAME [RANGE]`: the name keeps its range, as
  /// GTKWave's own vcd2fst writes it.
  Error variable(ArrayRef<StringRef> Fields) {
    if (Fields.size() < 4)
      return fail("$var wants a type, a width, an id and a name");
    unsigned Width = 0;
    if (Fields[1].getAsInteger(10, Width) || Width == 0)
      return fail("$var '" + Fields[3] + "' has a bad width '" + Fields[1] + "'");
    fstVarType Type;
    if (Fields[0] == "wire")
      Type = FST_VT_VCD_WIRE;
    else if (Fields[0] == "reg")
      Type = FST_VT_VCD_REG;
    else if (Fields[0] == "integer")
      Type = FST_VT_VCD_INTEGER;
    else if (Fields[0] == "parameter")
      Type = FST_VT_VCD_PARAMETER;
    else if (Fields[0] == "real")
      Type = FST_VT_VCD_REAL;
    else
      return fail("$var '" + Fields[3] + "' has a type this converter does not know: '" +
                  Fields[0] + "'");
    std::string Name = Fields[3].str();
    for (StringRef More : Fields.drop_front(4))
      Name += " " + More.str();
    auto [It, New] = Vars.try_emplace(Fields[2]);
    Variable &V = It->second;
    if (!New && V.Width != Width)
      return fail("id '" + Fields[2] + "' is declared with widths " + Twine(V.Width) + " and " +
                  Twine(Width));
    // A second variable with the same id is an alias: no values of its own.
    fstHandle Handle =
        fstWriterCreateVar(Writer, Type, FST_VD_IMPLICIT, Type == FST_VT_VCD_REAL ? 64 : Width,
                           Name.c_str(), New ? 0 : V.Handle);
    if (New) {
      V.Handle = Handle;
      V.Width = Width;
      V.Real = Type == FST_VT_VCD_REAL;
    }
    return Error::success();
  }

  Expected<Variable *> lookup(StringRef Id) {
    auto It = Vars.find(Id);
    if (It == Vars.end())
      return fail("value change of undeclared id '" + Id + "'");
    return &It->second;
  }

  static bool isBit(char C) { return C == '0' || C == '1' || C == 'x' || C == 'z'; }

  Error changes() {
    for (StringRef T = In.next(); !T.empty(); T = In.next()) {
      char C = static_cast<char>(tolower(static_cast<unsigned char>(T.front())));
      if (C == '#') {
        uint64_t Time;
        if (T.drop_front().getAsInteger(10, Time))
          return fail("bad time '" + T + "'");
        fstWriterEmitTimeChange(Writer, Time);
      } else if (T == "$comment") {
        if (Error E = untilEnd(T).takeError())
          return E;
      } else if (T.starts_with("$")) {
        continue; // $dumpvars, $dumpall, $dumpon, $dumpoff and their $end
      } else if (isBit(C)) {
        Expected<Variable *> V = lookup(T.drop_front());
        if (!V)
          return V.takeError();
        if ((*V)->Width != 1)
          return fail("scalar value for the " + Twine((*V)->Width) + "-bit id '" + T.drop_front() +
                      "'");
        fstWriterEmitValueChange(Writer, (*V)->Handle, &C);
      } else if (C == 'b' || C == 'r') {
        StringRef Id = In.next();
        if (Id.empty())
          return fail("value '" + T + "' has no id");
        Expected<Variable *> V = lookup(Id);
        if (!V)
          return V.takeError();
        if (Error E = C == 'b' ? vector(**V, T.drop_front(), Id) : real(**V, T.drop_front(), Id))
          return E;
      } else {
        return fail("unknown value change '" + T + "'");
      }
    }
    return Error::success();
  }

  Error vector(const Variable &V, StringRef Bits, StringRef Id) {
    if (V.Real || Bits.empty() || Bits.size() > V.Width)
      return fail("vector value '" + Bits + "' does not fit the " + Twine(V.Width) + "-bit id '" +
                  Id + "'");
    char Lead = static_cast<char>(tolower(static_cast<unsigned char>(Bits.front())));
    Value.assign(V.Width - Bits.size(), Lead == 'x' || Lead == 'z' ? Lead : '0');
    for (char B : Bits) {
      char L = static_cast<char>(tolower(static_cast<unsigned char>(B)));
      if (!isBit(L))
        return fail("vector value '" + Bits + "' has a bit that is not 0, 1, x or z");
      Value += L;
    }
    fstWriterEmitValueChange(Writer, V.Handle, Value.data());
    return Error::success();
  }

  Error real(const Variable &V, StringRef Text, StringRef Id) {
    double D;
    if (!V.Real || Text.getAsDouble(D))
      return fail("real value '" + Text + "' for id '" + Id + "'");
    fstWriterEmitValueChange(Writer, V.Handle, &D);
    return Error::success();
  }
};

} // namespace

Error convertVcdToFst(StringRef VcdPath, StringRef FstPath) {
  auto Buffer = MemoryBuffer::getFile(VcdPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return createStringError(Buffer.getError(), "cannot read the waveform '" + VcdPath +
                                                    "': " + Buffer.getError().message());
  std::string Temp = (FstPath + ".tmp" + Twine(sys::Process::getProcessId())).str();
  std::unique_ptr<void, WriterCloser> Writer(
      fstWriterCreate(Temp.c_str(), /*use_compressed_hier=*/1));
  if (!Writer)
    return createStringError(inconvertibleErrorCode(), "cannot write the waveform '" + FstPath +
                                                           "' (temporary file '" + Temp +
                                                           "' cannot be created)");
  fstWriterSetPackType(Writer.get(), FST_WR_PT_LZ4);
  Error Converted = Converter(VcdPath, (*Buffer)->getBuffer(), Writer.get()).run();
  Writer.reset(); // writes the file
  if (Converted) {
    sys::fs::remove(Temp);
    return Converted;
  }
  if (std::error_code EC = sys::fs::rename(Temp, FstPath)) {
    sys::fs::remove(Temp);
    return createStringError(EC, "cannot write the waveform '" + FstPath + "': " + EC.message());
  }
  return Error::success();
}

} // namespace tandem::rtl
