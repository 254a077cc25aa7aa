//===- Npy.cpp - NumPy .npy files: read and write -------------------------===//
//
// Layout (numpy.lib.format):
//   "\x93NUMPY" major minor  header-length (u16 LE in 1.0, u32 LE in 2.0)
//   header: a Python dict literal in ASCII, e.g.
//     {'descr': '<f4', 'fortran_order': False, 'shape': (3,), }
//   padded with spaces and ended by '\n' so the data starts 64-byte aligned
//   data: the elements, C order.
// The header is parsed by a small recursive-descent reader for exactly the
// literals numpy writes (strings, True/False, tuples of integers); anything
// else is an error rather than a guess.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;

namespace tandem::npy {

unsigned elementBytes(DType T) { return T == DType::U8 ? 1 : 4; }

StringRef descr(DType T) {
  switch (T) {
  case DType::F32: return "<f4";
  case DType::I32: return "<i4";
  case DType::U32: return "<u4";
  case DType::U8: return "|u1";
  }
  return "<f4";
}

StringRef shortName(DType T) {
  switch (T) {
  case DType::F32: return "f32";
  case DType::I32: return "i32";
  case DType::U32: return "u32";
  case DType::U8: return "u8";
  }
  return "f32";
}

std::optional<DType> parseShortName(StringRef Name) {
  if (Name == "f32")
    return DType::F32;
  if (Name == "i32" || Name == "s32")
    return DType::I32;
  if (Name == "u32")
    return DType::U32;
  if (Name == "u8")
    return DType::U8;
  return std::nullopt;
}

uint64_t Array::count() const {
  uint64_t N = 1;
  for (uint64_t D : Shape)
    N *= D;
  return N;
}

Array Array::vector(DType T, uint64_t Count) {
  Array A;
  A.Type = T;
  A.Shape = {Count};
  A.Data.assign(Count * elementBytes(T), 0);
  return A;
}

namespace {

constexpr char Magic[] = "\x93NUMPY";
constexpr size_t MagicLen = 6;
/// numpy aligns the data to 64 bytes; a header is never longer in practice
/// than a few hundred bytes, so a huge length means a corrupt file.
constexpr uint32_t MaxHeaderBytes = 1u << 20;

Error fail(StringRef Origin, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Origin + ": " + Msg);
}

std::optional<DType> dtypeFromDescr(StringRef D) {
  if (D == "<f4")
    return DType::F32;
  if (D == "<i4")
    return DType::I32;
  if (D == "<u4")
    return DType::U32;
  if (D == "|u1" || D == "<u1" || D == ">u1")
    return DType::U8;
  return std::nullopt;
}

/// One value of the header dictionary.
struct Value {
  enum Kind { String, Bool, Tuple } K = String;
  std::string Str;
  bool Flag = false;
  std::vector<uint64_t> Ints;
};

/// Reads the dict literal numpy writes. Errors say what was expected where.
class HeaderReader {
public:
  HeaderReader(StringRef Text, StringRef Origin) : Text(Text), Origin(Origin) {}

  Expected<std::map<std::string, Value>> readDict() {
    std::map<std::string, Value> Dict;
    skipSpace();
    if (!eat('{'))
      return error("expected '{' at the start of the header dictionary");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      Expected<std::string> Key = readString();
      if (!Key)
        return Key.takeError();
      skipSpace();
      if (!eat(':'))
        return error("expected ':' after key '" + *Key + "'");
      skipSpace();
      Expected<Value> V = readValue(*Key);
      if (!V)
        return V.takeError();
      if (!Dict.emplace(*Key, std::move(*V)).second)
        return error("key '" + *Key + "' appears twice");
      skipSpace();
      if (eat('}'))
        break;
      if (!eat(','))
        return error("expected ',' or '}' after the value of '" + *Key + "'");
    }
    skipSpace();
    if (Pos != Text.size())
      return error("unexpected text after the header dictionary");
    return Dict;
  }

private:
  StringRef Text;
  StringRef Origin;
  size_t Pos = 0;

  Error error(const Twine &Msg) {
    return fail(Origin, "malformed header: " + Msg + " (at header byte " + Twine(Pos) +
                            ")");
  }
  void skipSpace() {
    while (Pos < Text.size() && isSpace(Text[Pos]))
      ++Pos;
  }
  bool eat(char C) {
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  bool eatWord(StringRef W) {
    if (!Text.substr(Pos).starts_with(W))
      return false;
    Pos += W.size();
    return true;
  }

  Expected<std::string> readString() {
    if (Pos >= Text.size() || (Text[Pos] != '\'' && Text[Pos] != '"'))
      return error("expected a quoted string");
    char Quote = Text[Pos++];
    size_t End = Text.find(Quote, Pos);
    if (End == StringRef::npos)
      return error("unterminated string");
    std::string S = Text.slice(Pos, End).str();
    Pos = End + 1;
    return S;
  }

  Expected<Value> readValue(StringRef Key) {
    Value V;
    if (Pos < Text.size() && (Text[Pos] == '\'' || Text[Pos] == '"')) {
      Expected<std::string> S = readString();
      if (!S)
        return S.takeError();
      V.Str = *S;
      return V;
    }
    if (eatWord("True")) {
      V.K = Value::Bool;
      V.Flag = true;
      return V;
    }
    if (eatWord("False")) {
      V.K = Value::Bool;
      return V;
    }
    if (eat('(')) {
      V.K = Value::Tuple;
      while (true) {
        skipSpace();
        if (eat(')'))
          return V;
        size_t Start = Pos;
        while (Pos < Text.size() && isDigit(Text[Pos]))
          ++Pos;
        uint64_t N;
        if (Start == Pos || Text.slice(Start, Pos).getAsInteger(10, N))
          return error("expected a non-negative integer in the tuple of '" + Key + "'");
        V.Ints.push_back(N);
        skipSpace();
        if (eat(')'))
          return V;
        if (!eat(','))
          return error("expected ',' or ')' in the tuple of '" + Key + "'");
      }
    }
    return error("the value of '" + Key + "' is not a string, True/False or a tuple");
  }
};

std::string shapeText(ArrayRef<uint64_t> Shape) {
  std::string S = "(";
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Shape[I]);
  if (Shape.size() == 1)
    S += ",";
  return S + ")";
}

/// Element count of \p Shape times \p ElemBytes, or nullopt on overflow.
std::optional<uint64_t> byteSize(ArrayRef<uint64_t> Shape, unsigned ElemBytes) {
  uint64_t N = ElemBytes;
  for (uint64_t D : Shape) {
    if (D != 0 && N > UINT64_MAX / D)
      return std::nullopt;
    N *= D;
  }
  return N;
}

Expected<Array> fromHeader(StringRef Header, ArrayRef<uint8_t> Data, StringRef Origin) {
  if (!all_of(Header, [](char C) { return static_cast<unsigned char>(C) < 0x80; }))
    return fail(Origin, "malformed header: not ASCII");
  if (!Header.ends_with("\n"))
    return fail(Origin, "malformed header: it does not end with a newline");
  Expected<std::map<std::string, Value>> Dict = HeaderReader(Header, Origin).readDict();
  if (!Dict)
    return Dict.takeError();
  for (const auto &[Key, V] : *Dict)
    if (Key != "descr" && Key != "fortran_order" && Key != "shape")
      return fail(Origin, "malformed header: unknown key '" + Key +
                              "' (expected descr, fortran_order, shape)");
  for (StringRef Key : {"descr", "fortran_order", "shape"})
    if (!Dict->count(Key.str()))
      return fail(Origin, "malformed header: key '" + Key + "' is missing");
  const Value &Descr = Dict->at("descr");
  const Value &Fortran = Dict->at("fortran_order");
  const Value &Shape = Dict->at("shape");
  if (Descr.K != Value::String)
    return fail(Origin, "malformed header: 'descr' must be a string such as '<f4'");
  if (Fortran.K != Value::Bool)
    return fail(Origin, "malformed header: 'fortran_order' must be True or False");
  if (Shape.K != Value::Tuple)
    return fail(Origin, "malformed header: 'shape' must be a tuple such as (3,)");

  std::optional<DType> T = dtypeFromDescr(Descr.Str);
  if (!T) {
    std::string Why = StringRef(Descr.Str).starts_with(">") ? " (big-endian)" : "";
    return fail(Origin, "dtype '" + Descr.Str + "'" + Why +
                            " is not supported; use float32 '<f4', int32 '<i4', "
                            "uint32 '<u4' or uint8 '|u1' (numpy: "
                            "a.astype(np.float32))");
  }
  if (Fortran.Flag)
    return fail(Origin, "fortran_order is True; only C-order arrays are supported "
                        "(numpy: np.ascontiguousarray(a))");
  std::optional<uint64_t> Want = byteSize(Shape.Ints, elementBytes(*T));
  if (!Want)
    return fail(Origin, "shape " + shapeText(Shape.Ints) + " is too large");
  if (*Want != Data.size())
    return fail(Origin, formatv("shape {0} of {1} needs {2} data bytes, but the file "
                                "holds {3}{4}",
                                shapeText(Shape.Ints), Descr.Str, *Want, Data.size(),
                                Data.size() < *Want ? " (truncated?)" : ""));
  Array A;
  A.Type = *T;
  A.Shape = Shape.Ints;
  A.Data.assign(Data.begin(), Data.end());
  return A;
}

} // namespace

Expected<Array> parse(ArrayRef<uint8_t> Bytes, StringRef Origin) {
  if (Bytes.size() < MagicLen + 2 || memcmp(Bytes.data(), Magic, MagicLen) != 0)
    return fail(Origin, "not a NumPy .npy file (it does not start with \\x93NUMPY)");
  uint8_t Major = Bytes[MagicLen], Minor = Bytes[MagicLen + 1];
  if ((Major != 1 && Major != 2) || Minor != 0)
    return fail(Origin, formatv("format version {0}.{1} is not supported (1.0 and 2.0 "
                                "are)",
                                Major, Minor));
  size_t LenBytes = Major == 1 ? 2 : 4;
  size_t Prefix = MagicLen + 2 + LenBytes;
  if (Bytes.size() < Prefix)
    return fail(Origin, "truncated: the header length is missing");
  uint32_t HeaderLen = Major == 1 ? support::endian::read16le(&Bytes[MagicLen + 2])
                                  : support::endian::read32le(&Bytes[MagicLen + 2]);
  if (HeaderLen > MaxHeaderBytes || Prefix + HeaderLen > Bytes.size())
    return fail(Origin, formatv("header length {0} runs past the end of the file "
                                "({1} bytes)",
                                HeaderLen, Bytes.size()));
  StringRef Header(reinterpret_cast<const char *>(&Bytes[Prefix]), HeaderLen);
  return fromHeader(Header, Bytes.drop_front(Prefix + HeaderLen), Origin);
}

Expected<Array> readFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return fail(Path, "cannot read: " + Buf.getError().message());
  StringRef B = (*Buf)->getBuffer();
  return parse(ArrayRef(reinterpret_cast<const uint8_t *>(B.data()), B.size()), Path);
}

Expected<std::vector<uint8_t>> serialize(const Array &A) {
  std::optional<uint64_t> Want = byteSize(A.Shape, elementBytes(A.Type));
  if (!Want || *Want != A.Data.size())
    return createStringError(inconvertibleErrorCode(),
                             formatv("internal error: an array of shape {0} holds {1} "
                                     "bytes",
                                     shapeText(A.Shape), A.Data.size()));
  std::string Dict = formatv("{{'descr': '{0}', 'fortran_order': False, 'shape': {1}, }",
                             descr(A.Type), shapeText(A.Shape))
                         .str();
  // Version 1.0 has a 16-bit header length; 2.0 only for enormous shapes.
  bool V2 = Dict.size() + 1 + 10 > 65535;
  size_t Prefix = MagicLen + 2 + (V2 ? 4 : 2);
  size_t Total = alignTo(Prefix + Dict.size() + 1, 64);
  Dict.append(Total - Prefix - Dict.size() - 1, ' ');
  Dict += '\n';
  std::vector<uint8_t> Out(Magic, Magic + MagicLen);
  Out.push_back(V2 ? 2 : 1);
  Out.push_back(0);
  uint8_t Len[4];
  support::endian::write32le(Len, uint32_t(Dict.size()));
  Out.insert(Out.end(), Len, Len + (V2 ? 4 : 2));
  Out.insert(Out.end(), Dict.begin(), Dict.end());
  Out.insert(Out.end(), A.Data.begin(), A.Data.end());
  return Out;
}

Error writeFile(const Array &A, StringRef Path) {
  Expected<std::vector<uint8_t>> Bytes = serialize(A);
  if (!Bytes)
    return Bytes.takeError();
  // writeToOutput writes a temporary file next to Path and renames it, so a
  // reader never sees half an array.
  Error E = writeToOutput(Path, [&](raw_ostream &OS) {
    OS.write(reinterpret_cast<const char *>(Bytes->data()), Bytes->size());
    return Error::success();
  });
  if (E)
    return fail(Path, "cannot write: " + toString(std::move(E)));
  return Error::success();
}

} // namespace tandem::npy
