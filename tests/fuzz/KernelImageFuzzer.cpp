//===- KernelImageFuzzer.cpp - libFuzzer target for the image reader ------===//
//
// Feeds arbitrary bytes to readImage(). Whatever it accepts must survive a
// round trip: writeImage() succeeds, readImage() accepts the result and
// returns the same image, and writing that again gives the same bytes.
// Any crash, sanitizer report or broken round trip is a bug.
//
// A CRC-32 is something a fuzzer almost never guesses, so each input is also
// tried with its checksum and file_bytes repaired; that copy reaches the
// structural checks behind them. Run it as docs/KernelImage.md says.
//
//===----------------------------------------------------------------------===//

#include "tandem/KernelImage.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace tandem;

namespace {

// Offsets of the header fields the repair rewrites (docs/KernelImage.md).
constexpr size_t ChecksumField = 8;
constexpr size_t ChecksumStart = 12;
constexpr size_t FileBytesField = 16;

[[noreturn]] void die(const char *What) {
  llvm::errs() << "tandem-fuzz-image: " << What << "\n";
  std::abort();
}

bool sameImage(const KernelImage &A, const KernelImage &B) {
  auto SameParam = [](const KernelParam &X, const KernelParam &Y) {
    return X.Name == Y.Name && X.Kind == Y.Kind && X.Offset == Y.Offset &&
           X.Size == Y.Size;
  };
  auto SameKernel = [&](const KernelInfo &X, const KernelInfo &Y) {
    return X.Name == Y.Name && X.EntryOffset == Y.EntryOffset &&
           X.CodeBytes == Y.CodeBytes && X.SharedBytes == Y.SharedBytes &&
           X.RegistersUsed == Y.RegistersUsed && X.LocalBytes == Y.LocalBytes &&
           std::equal(X.Params.begin(), X.Params.end(), Y.Params.begin(),
                      Y.Params.end(), SameParam);
  };
  return A.Code == B.Code && A.Const == B.Const && A.Data == B.Data &&
         A.DataBaseSlot == B.DataBaseSlot &&
         std::equal(A.Kernels.begin(), A.Kernels.end(), B.Kernels.begin(),
                    B.Kernels.end(), SameKernel);
}

void checkRoundTrip(llvm::ArrayRef<uint8_t> Input) {
  llvm::Expected<KernelImage> First = readImage(Input, "fuzz-input");
  if (!First) {
    llvm::consumeError(First.takeError());
    return;
  }
  llvm::Expected<std::vector<uint8_t>> Written = writeImage(*First);
  if (!Written)
    die(("writeImage refused an image readImage accepted: " +
         llvm::toString(Written.takeError()))
            .c_str());
  llvm::Expected<KernelImage> Second = readImage(*Written, "fuzz-rewritten");
  if (!Second)
    die(("readImage refused writeImage's output: " +
         llvm::toString(Second.takeError()))
            .c_str());
  if (!sameImage(*First, *Second))
    die("the image changed in a write/read round trip");
  llvm::Expected<std::vector<uint8_t>> Again = writeImage(*Second);
  if (!Again || *Again != *Written)
    die("writing the same image twice gave different bytes");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::ArrayRef<uint8_t> Input(Data, Size);
  checkRoundTrip(Input);
  if (Size < ChecksumStart || Size > UINT32_MAX)
    return 0;
  std::vector<uint8_t> Repaired(Input.begin(), Input.end());
  if (Size >= FileBytesField + 4)
    llvm::support::endian::write32le(&Repaired[FileBytesField], uint32_t(Size));
  llvm::support::endian::write32le(
      &Repaired[ChecksumField],
      llvm::crc32(llvm::ArrayRef<uint8_t>(Repaired).drop_front(ChecksumStart)));
  checkRoundTrip(Repaired);
  return 0;
}
