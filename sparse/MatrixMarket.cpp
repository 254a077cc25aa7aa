//===- MatrixMarket.cpp - Matrix Market coordinate reader -----------------===//
//
// A line-at-a-time parser: banner, comments, size line, entries. Each check
// names the line it rejects. The declared entry count is validated against
// the shape and against the bytes left in the file before the entry vector
// is reserved, so a huge count in a small file is an error, not an
// allocation failure.
//
//===----------------------------------------------------------------------===//

#include "sparse/MatrixMarket.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdlib>

using namespace llvm;

namespace tandem::sparse {

StringRef fieldName(Field F) {
  switch (F) {
  case Field::Real:
    return "real";
  case Field::Integer:
    return "integer";
  case Field::Pattern:
    return "pattern";
  }
  llvm_unreachable("unknown field");
}

StringRef symmetryName(Symmetry S) {
  switch (S) {
  case Symmetry::General:
    return "general";
  case Symmetry::Symmetric:
    return "symmetric";
  case Symmetry::SkewSymmetric:
    return "skew-symmetric";
  }
  llvm_unreachable("unknown symmetry");
}

namespace {

/// Walks the text line by line, counting lines from 1, and builds errors
/// that name the file and the current line.
class LineReader {
public:
  LineReader(StringRef Text, StringRef FileName) : Rest(Text), FileName(FileName) {}

  /// The next line without its end of line ("\n" or "\r\n"); false at the end.
  bool next(StringRef &Line) {
    if (Rest.empty())
      return false;
    std::tie(Line, Rest) = Rest.split('\n');
    Line.consume_back("\r");
    ++Number;
    return true;
  }
  /// The next line that is neither blank nor a comment ('%').
  bool nextData(StringRef &Line) {
    while (next(Line)) {
      StringRef T = Line.trim();
      if (!T.empty() && !T.starts_with("%"))
        return true;
    }
    return false;
  }
  unsigned line() const { return Number; }
  size_t bytesLeft() const { return Rest.size(); }

  Error error(const Twine &Msg) const { return errorAt(Number, Msg); }
  Error errorAt(unsigned Line, const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             FileName + ":" + Twine(Line) + ": " + Msg);
  }

private:
  StringRef Rest;
  StringRef FileName;
  unsigned Number = 0;
};

SmallVector<StringRef, 8> fields(StringRef Line) {
  SmallVector<StringRef, 8> Out;
  SplitString(Line, Out, " \t");
  return Out;
}

struct Header {
  Field F = Field::Real;
  Symmetry S = Symmetry::General;
};

Expected<Header> parseBanner(LineReader &R) {
  StringRef Line;
  if (!R.next(Line))
    return R.errorAt(1, "empty file; a Matrix Market file starts with "
                        "'%%MatrixMarket matrix coordinate <field> <symmetry>'");
  SmallVector<StringRef, 8> F = fields(Line);
  if (F.empty() || !F[0].equals_insensitive("%%MatrixMarket"))
    return R.error("not a Matrix Market file: the first line must start with "
                   "'%%MatrixMarket', found '" + Line.take_front(40) + "'");
  if (F.size() != 5)
    return R.error("the banner needs 4 words after '%%MatrixMarket' (matrix coordinate "
                   "<field> <symmetry>), found " + Twine(F.size() - 1));
  if (!F[1].equals_insensitive("matrix"))
    return R.error("object '" + F[1] + "' is not supported; only 'matrix'");
  if (F[2].equals_insensitive("array"))
    return R.error("dense 'array' files are not supported; only 'coordinate' (sparse)");
  if (!F[2].equals_insensitive("coordinate"))
    return R.error("unknown format '" + F[2] + "'; expected 'coordinate'");

  Header H;
  std::string Fld = F[3].lower(), Sym = F[4].lower();
  if (Fld == "real" || Fld == "double")
    H.F = Field::Real;
  else if (Fld == "integer")
    H.F = Field::Integer;
  else if (Fld == "pattern")
    H.F = Field::Pattern;
  else if (Fld == "complex")
    return R.error("'complex' matrices are not supported; only real, integer and pattern");
  else
    return R.error("unknown field '" + F[3] + "'; expected real, integer or pattern");

  if (Sym == "general")
    H.S = Symmetry::General;
  else if (Sym == "symmetric")
    H.S = Symmetry::Symmetric;
  else if (Sym == "skew-symmetric")
    H.S = Symmetry::SkewSymmetric;
  else if (Sym == "hermitian")
    return R.error("'hermitian' matrices are not supported; only general, symmetric and "
                   "skew-symmetric");
  else
    return R.error("unknown symmetry '" + F[4] +
                   "'; expected general, symmetric or skew-symmetric");
  if (H.F == Field::Pattern && H.S == Symmetry::SkewSymmetric)
    return R.error("a 'pattern' matrix cannot be 'skew-symmetric' (it has no values to negate)");
  return H;
}

/// The most entries a file of this shape may store: one triangle for the
/// symmetric kinds (skew-symmetric stores no diagonal).
uint64_t maxStoredEntries(uint64_t Rows, uint64_t Cols, Symmetry S) {
  switch (S) {
  case Symmetry::General:
    return Rows * Cols; // both < 2^31: no overflow
  case Symmetry::Symmetric:
    return Rows * (Rows + 1) / 2;
  case Symmetry::SkewSymmetric:
    return Rows == 0 ? 0 : Rows * (Rows - 1) / 2;
  }
  llvm_unreachable("unknown symmetry");
}

Error parseSizeLine(LineReader &R, const Header &H, CooMatrix &M, uint64_t &Count) {
  StringRef Line;
  if (!R.nextData(Line))
    return R.error("the file ends before the size line '<rows> <cols> <entries>'");
  SmallVector<StringRef, 8> F = fields(Line);
  if (F.size() != 3)
    return R.error("the size line must be '<rows> <cols> <entries>' (3 numbers), found " +
                   Twine(F.size()) + " fields");
  uint64_t Rows, Cols;
  const char *Names[] = {"rows", "cols", "entries"};
  uint64_t *Out[] = {&Rows, &Cols, &Count};
  for (int I = 0; I < 3; ++I)
    if (F[I].getAsInteger(10, *Out[I]))
      return R.error(Twine("the size line's ") + Names[I] + " '" + F[I] +
                     "' is not a non-negative integer");
  // Before anything is sized by it: an empty matrix costs its row pointers.
  if (Rows > MaxDimension || Cols > MaxDimension)
    return R.error("matrix size " + Twine(Rows) + " x " + Twine(Cols) +
                   " is too large; at most " + Twine(MaxDimension) +
                   " (2^28) rows and columns (row pointers and x are allocated per "
                   "row and column, even with no nonzeros)");
  if (H.S != Symmetry::General && Rows != Cols)
    return R.error("a " + symmetryName(H.S) + " matrix must be square, but the size line says " +
                   Twine(Rows) + " x " + Twine(Cols));
  uint64_t MaxCount = maxStoredEntries(Rows, Cols, H.S);
  if (Count > MaxCount)
    return R.error("the size line declares " + Twine(Count) + " entries, but a " +
                   symmetryName(H.S) + " " + Twine(Rows) + " x " + Twine(Cols) +
                   " matrix stores at most " + Twine(MaxCount));
  if (Count > MaxEntries)
    return R.error("the size line declares " + Twine(Count) + " entries; at most " +
                   Twine(MaxEntries) + " are supported");
  // The shortest entry is "i j\n" (pattern) or "i j v\n"; the last one may
  // lack its newline.
  uint64_t MinBytes = H.F == Field::Pattern ? 4 : 6;
  if (Count > 0 && Count * MinBytes - 1 > R.bytesLeft())
    return R.error("the size line declares " + Twine(Count) + " entries, but only " +
                   Twine(R.bytesLeft()) + " bytes follow (each entry needs at least " +
                   Twine(MinBytes) + "): the file is truncated or the count is wrong");
  M.Rows = uint32_t(Rows);
  M.Cols = uint32_t(Cols);
  return Error::success();
}

Expected<uint32_t> parseIndex(LineReader &R, StringRef Text, StringRef What, uint32_t Limit) {
  uint64_t V;
  if (Text.getAsInteger(10, V))
    return R.error(What + " index '" + Text + "' is not a positive integer");
  if (V < 1 || V > Limit)
    return R.error(What + " index " + Twine(V) + " is out of range 1.." + Twine(Limit));
  return uint32_t(V - 1);
}

Expected<double> parseValue(LineReader &R, StringRef Text, Field F) {
  if (F == Field::Integer) {
    int64_t V;
    if (Text.getAsInteger(10, V))
      return R.error("value '" + Text + "' is not an integer (the banner says 'integer')");
    return double(V);
  }
  std::string Copy = Text.str(); // strtod needs a terminated string
  char *End = nullptr;
  double V = std::strtod(Copy.c_str(), &End);
  if (End != Copy.c_str() + Copy.size())
    return R.error("value '" + Text + "' is not a real number");
  if (!std::isfinite(V))
    return R.error("value '" + Text + "' is not finite");
  return V;
}

Error checkTriangle(LineReader &R, Symmetry S, const Entry &E) {
  if (S == Symmetry::Symmetric && E.Row < E.Col)
    return R.error("entry (" + Twine(E.Row + 1) + ", " + Twine(E.Col + 1) +
                   ") is above the diagonal; a symmetric file stores only the lower "
                   "triangle (row >= col)");
  if (S == Symmetry::SkewSymmetric && E.Row <= E.Col)
    return R.error("entry (" + Twine(E.Row + 1) + ", " + Twine(E.Col + 1) +
                   ") is not below the diagonal; a skew-symmetric file stores only the "
                   "strictly lower triangle (row > col)");
  return Error::success();
}

Error parseEntries(LineReader &R, const Header &H, uint64_t Count, unsigned SizeLine,
                   CooMatrix &M) {
  const size_t Want = H.F == Field::Pattern ? 2 : 3;
  const char *Shape = H.F == Field::Pattern ? "'row col'" : "'row col value'";
  M.Entries.reserve(Count); // Count was bounded by the bytes left
  StringRef Line;
  while (M.Entries.size() < Count) {
    if (!R.nextData(Line))
      return R.error("the file ends after " + Twine(M.Entries.size()) + " of the " +
                     Twine(Count) + " entries declared on line " + Twine(SizeLine));
    SmallVector<StringRef, 8> F = fields(Line);
    if (F.size() < Want)
      return R.error(Twine("expected ") + Shape + ", found " + Twine(F.size()) + " field" +
                     (F.size() == 1 ? "" : "s"));
    if (F.size() > Want)
      return R.error("unexpected text '" + F[Want] + "' after the entry (expected " + Shape +
                     ")");
    Entry E;
    Expected<uint32_t> Row = parseIndex(R, F[0], "row", M.Rows);
    if (!Row)
      return Row.takeError();
    Expected<uint32_t> Col = parseIndex(R, F[1], "column", M.Cols);
    if (!Col)
      return Col.takeError();
    E.Row = *Row;
    E.Col = *Col;
    E.Value = 1.0;
    if (H.F != Field::Pattern) {
      Expected<double> V = parseValue(R, F[2], H.F);
      if (!V)
        return V.takeError();
      E.Value = *V;
    }
    if (Error Err = checkTriangle(R, H.S, E))
      return Err;
    M.Entries.push_back(E);
  }
  if (R.nextData(Line))
    return R.error("unexpected data after the last of the " + Twine(Count) +
                   " entries declared on line " + Twine(SizeLine) + ": '" +
                   Line.trim().take_front(40) + "'");
  return Error::success();
}

} // namespace

Expected<CooMatrix> parseMatrixMarket(StringRef Text, StringRef FileName) {
  LineReader R(Text, FileName);
  Expected<Header> H = parseBanner(R);
  if (!H)
    return H.takeError();
  CooMatrix M;
  M.F = H->F;
  M.S = H->S;
  uint64_t Count = 0;
  if (Error Err = parseSizeLine(R, *H, M, Count))
    return Err;
  if (Error Err = parseEntries(R, *H, Count, R.line(), M))
    return Err;
  return M;
}

Expected<CooMatrix> readMatrixMarket(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(),
                             "cannot read matrix file '" + Path + "': " + Buf.getError().message());
  return parseMatrixMarket((*Buf)->getBuffer(), Path);
}

} // namespace tandem::sparse
