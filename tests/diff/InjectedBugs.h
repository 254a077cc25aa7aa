//===- InjectedBugs.h - iss with one deliberate bug, for testing the differ ===//
//
// A Device that wraps iss and misbehaves in one chosen way, as a buggy rtl
// would: a wrong ALU result (xor computes or), a wrong counter, a corrupted
// byte of one buffer, or a fault on every launch. The differ's tests use it
// to prove mismatches are caught; `tandem-diff --b iss+xor-bug` shows what a
// mismatch report looks like.
//
// Input invariants: the wrapped device is iss. Guarantees: apart from the
// injected bug, every call is forwarded unchanged.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Differ.h"

#include "ISA.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <vector>

namespace tandem::diff {

enum class Bug { XorIsOr, CountsOneMore, FlipsContendedByte, AlwaysFaults };

/// iss with one deliberate bug.
class BuggyDevice : public Device {
public:
  BuggyDevice(std::unique_ptr<Device> Inner, Bug B)
      : Inner(std::move(Inner)), B(B) {}
  llvm::StringRef name() const override { return "buggy-iss"; }
  llvm::Expected<DevicePtr> alloc(uint64_t Bytes) override {
    llvm::Expected<DevicePtr> P = Inner->alloc(Bytes);
    if (P)
      Allocs.push_back(*P);
    return P;
  }
  llvm::Error free(DevicePtr P) override { return Inner->free(P); }
  llvm::Error copyToDevice(DevicePtr Dst, llvm::ArrayRef<uint8_t> Src) override {
    return Inner->copyToDevice(Dst, Src);
  }
  llvm::Error copyFromDevice(llvm::MutableArrayRef<uint8_t> Dst, DevicePtr Src) override {
    if (llvm::Error E = Inner->copyFromDevice(Dst, Src))
      return E;
    // Buffer 3 is 'atomc', the contended global words.
    if (B == Bug::FlipsContendedByte && Allocs.size() > 3 && Src == Allocs[3])
      Dst[5] ^= 0x10;
    return llvm::Error::success();
  }
  llvm::Error loadImage(const KernelImage &Img) override {
    if (B != Bug::XorIsOr)
      return Inner->loadImage(Img);
    KernelImage Patched = Img;
    for (uint32_t &W : Patched.Code) {
      std::optional<simt::DecodedInst> D = simt::decode(W);
      if (D && D->Op == simt::Opcode::XOR) {
        D->Op = simt::Opcode::OR;
        W = llvm::cantFail(simt::encode(*D));
      }
    }
    return Inner->loadImage(Patched);
  }
  llvm::Error launch(const LaunchParams &P) override {
    if (B == Bug::AlwaysFaults)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "injected fault");
    llvm::Error E = Inner->launch(P);
    Cnt = Inner->counters();
    if (B == Bug::CountsOneMore)
      Cnt.set("warp_instructions", Cnt.get("warp_instructions") + 1);
    return E;
  }
  const Counters &counters() const override { return Cnt; }
  llvm::Expected<SymbolInfo> findSymbol(llvm::StringRef Name) override {
    return Inner->findSymbol(Name);
  }
  llvm::Error copyToSymbol(llvm::StringRef Name, llvm::ArrayRef<uint8_t> Src,
                           uint64_t Offset) override {
    return Inner->copyToSymbol(Name, Src, Offset);
  }
  llvm::Error copyFromSymbol(llvm::MutableArrayRef<uint8_t> Dst, llvm::StringRef Name,
                             uint64_t Offset) override {
    return Inner->copyFromSymbol(Dst, Name, Offset);
  }

private:
  std::unique_ptr<Device> Inner;
  Bug B;
  Counters Cnt;
  std::vector<DevicePtr> Allocs;
};

inline DeviceFactory buggyIss(Bug B) {
  return [B](const DeviceOptions &O) -> llvm::Expected<std::unique_ptr<Device>> {
    llvm::Expected<std::unique_ptr<Device>> D = openDevice("iss", O);
    if (!D)
      return D.takeError();
    return std::make_unique<BuggyDevice>(std::move(*D), B);
  };
}

/// "iss+xor-bug" and friends: the injected-bug device of that name.
inline std::optional<DeviceFactory> injectedBugDevice(llvm::StringRef Name) {
  if (Name == "iss+xor-bug")
    return buggyIss(Bug::XorIsOr);
  if (Name == "iss+count-bug")
    return buggyIss(Bug::CountsOneMore);
  if (Name == "iss+byte-bug")
    return buggyIss(Bug::FlipsContendedByte);
  return std::nullopt;
}

} // namespace tandem::diff
