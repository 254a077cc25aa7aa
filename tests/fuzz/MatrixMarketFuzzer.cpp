//===- MatrixMarketFuzzer.cpp - libFuzzer target for the .mtx reader -------===//
//
// Feeds arbitrary bytes to parseMatrixMarket() (sparse/MatrixMarket.h), whose
// input is untrusted: any crash, sanitizer report, hang or out-of-memory is a
// bug. Whatever it accepts must also be a matrix the rest of the library can
// use, so for an accepted input the target checks:
//   * every entry lies inside the declared shape and in the stored triangle
//     of its symmetry, and every value is finite;
//   * written back as Matrix Market text (the target's own tiny writer) and
//     parsed again, the same matrix comes back (shape, field, symmetry,
//     entries, values bit for bit);
//   * toCsr() + verifyCsr() accept it (when the shape is small enough that
//     the row pointers, Rows + 1 words, fit the fuzzer's memory limit: a
//     2^28-row empty matrix is valid input but needs 1 GiB of row pointers).
// Run it as docs/Sparse.md ("Fuzzing the reader") says.
//
//===----------------------------------------------------------------------===//

#include "sparse/Csr.h"
#include "sparse/MatrixMarket.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace tandem::sparse;

namespace {

/// Largest row count for which the target also builds CSR (4 MiB of row
/// pointers): beyond it toCsr's allocation, not the reader, is measured.
constexpr uint32_t MaxCsrRows = 1u << 20;

[[noreturn]] void die(const std::string &What) {
  llvm::errs() << "tandem-fuzz-mtx: " << What << "\n";
  std::abort();
}

/// \p M as Matrix Market text; %.17g keeps every double exactly.
std::string writeMatrixMarket(const CooMatrix &M) {
  std::string Out = "%%MatrixMarket matrix coordinate " + fieldName(M.F).str() + " " +
                    symmetryName(M.S).str() + "\n";
  Out += std::to_string(M.Rows) + " " + std::to_string(M.Cols) + " " +
         std::to_string(M.Entries.size()) + "\n";
  char Buf[64];
  for (const Entry &E : M.Entries) {
    Out += std::to_string(E.Row + 1) + " " + std::to_string(E.Col + 1);
    if (M.F == Field::Integer)
      Out += " " + std::to_string(int64_t(E.Value));
    else if (M.F == Field::Real) {
      std::snprintf(Buf, sizeof(Buf), " %.17g", E.Value);
      Out += Buf;
    }
    Out += "\n";
  }
  return Out;
}

void checkEntries(const CooMatrix &M) {
  for (const Entry &E : M.Entries) {
    if (E.Row >= M.Rows || E.Col >= M.Cols)
      die("an accepted entry lies outside the declared shape");
    if (M.S == Symmetry::Symmetric && E.Row < E.Col)
      die("a symmetric file's accepted entry lies above the diagonal");
    if (M.S == Symmetry::SkewSymmetric && E.Row <= E.Col)
      die("a skew-symmetric file's accepted entry is not below the diagonal");
    if (!std::isfinite(E.Value))
      die("an accepted value is not finite");
    if (M.F == Field::Pattern && E.Value != 1.0)
      die("a pattern entry's value is not 1");
  }
}

bool sameMatrix(const CooMatrix &A, const CooMatrix &B) {
  if (A.Rows != B.Rows || A.Cols != B.Cols || A.F != B.F || A.S != B.S ||
      A.Entries.size() != B.Entries.size())
    return false;
  for (size_t I = 0; I < A.Entries.size(); ++I) {
    const Entry &X = A.Entries[I], &Y = B.Entries[I];
    if (X.Row != Y.Row || X.Col != Y.Col || std::memcmp(&X.Value, &Y.Value, sizeof(double)))
      return false;
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<CooMatrix> M = parseMatrixMarket(Text, "fuzz-input");
  if (!M) {
    std::string Msg = llvm::toString(M.takeError());
    if (Msg.rfind("fuzz-input:", 0) != 0)
      die("an error does not start with '<file>:<line>: ': " + Msg);
    return 0;
  }
  checkEntries(*M);

  std::string Written = writeMatrixMarket(*M);
  llvm::Expected<CooMatrix> Again = parseMatrixMarket(Written, "fuzz-rewritten");
  if (!Again)
    die("the reader refused its own accepted matrix written back: " +
        llvm::toString(Again.takeError()));
  if (!sameMatrix(*M, *Again))
    die("the matrix changed in a write/read round trip");

  if (M->Rows > MaxCsrRows)
    return 0;
  llvm::Expected<CsrMatrix> A = toCsr(*M);
  if (!A) // only more than MaxEntries nonzeros after expansion, impossible here
    die("toCsr refused an accepted matrix: " + llvm::toString(A.takeError()));
  if (llvm::Error Err = verifyCsr(*A, "fuzz-input"))
    die("toCsr built an invalid CSR matrix: " + llvm::toString(std::move(Err)));
  return 0;
}
