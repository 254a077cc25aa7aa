//===- LoadedImage.cpp - The kernel image a simulated device has loaded ---===//
//
// See LoadedImage.h for what it guarantees.
//
//===----------------------------------------------------------------------===//

#include "LoadedImage.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace tandem {

Error LoadedImage::load(const KernelImage &Img) {
  DevicePtr Old = Base;
  auto FreeOld = [&]() -> Error {
    Base = 0;
    return Old ? Mem.free(Old) : Error::success();
  };
  if (Img.Data.empty()) {
    if (Error E = LoadIntoSimulator(Img))
      return E;
    Running = Img;
    return FreeOld();
  }
  // readImage() and writeImage() guarantee the slot is a word inside Const;
  // an image built in memory may not have been through either.
  if (Img.DataBaseSlot % 4 != 0 || uint64_t(Img.DataBaseSlot) + 4 > Img.Const.size())
    return createStringError(inconvertibleErrorCode(),
                             "kernel image: data_base_slot %u is not a 4-aligned word inside "
                             "the const section (%zu bytes)",
                             Img.DataBaseSlot, Img.Const.size());
  Expected<uint32_t> New = Mem.alloc(Img.Data.size());
  if (!New)
    return createStringError(inconvertibleErrorCode(),
                             "cannot load the kernel image: its data section (__device__ "
                             "variables, %zu bytes) does not fit in device memory: %s",
                             Img.Data.size(), toString(New.takeError()).c_str());
  KernelImage Placed = Img;
  support::endian::write32le(Placed.Const.data() + Img.DataBaseSlot, *New);
  Error E = Mem.copyIn(*New, Img.Data);
  if (!E)
    E = LoadIntoSimulator(Placed);
  if (E) {
    consumeError(Mem.free(*New));
    return E;
  }
  Running = std::move(Placed);
  if (Error F = FreeOld())
    return F;
  Base = *New;
  return Error::success();
}

Expected<const ImageSymbol &> LoadedImage::symbolRange(StringRef Name, uint64_t Offset,
                                                       uint64_t Bytes, StringRef What) const {
  if (!Running)
    return createStringError(inconvertibleErrorCode(),
                             "symbol '" + Name + "': no kernel image is loaded (call loadImage "
                                                 "first)");
  const ImageSymbol *S = Running->findSymbol(Name);
  if (!S) {
    std::vector<std::string> Names;
    for (const ImageSymbol &Sym : Running->Symbols)
      Names.push_back(Sym.Name);
    return createStringError(
        inconvertibleErrorCode(),
        "symbol '" + Name + "' is not in the loaded kernel image (" +
            (Names.empty() ? std::string("it has no symbols")
                           : "its symbols: " + join(Names, ", ")) +
            "). A C++ name is mangled as in the PTX (tandem objdump lists them), and a "
            "static variable no kernel uses is not placed in the image");
  }
  // readImage() and writeImage() guarantee each symbol lies inside its
  // section; an image built in memory may not have been through either.
  uint64_t SectionBytes = Running->sectionBytes(S->Section).size();
  if (uint64_t(S->Offset) + S->Size > SectionBytes)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("kernel image: symbol '{0}' [{1}, {2}) lies outside its {3} section ({4} "
                "bytes)",
                Name, S->Offset, uint64_t(S->Offset) + S->Size, symbolSectionName(S->Section),
                SectionBytes));
  if (Offset > S->Size || Bytes > S->Size - Offset)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("{0} symbol '{1}': bytes [{2}, {3}) are outside the variable ({4} bytes)", What,
                Name, Offset, Offset + Bytes, S->Size));
  return *S;
}

Expected<SymbolInfo> LoadedImage::find(StringRef Name) const {
  Expected<const ImageSymbol &> S = symbolRange(Name, 0, 0, "find");
  if (!S)
    return S.takeError();
  SymbolInfo Info;
  Info.Name = S->Name;
  Info.Section = S->Section;
  Info.Bytes = S->Size;
  Info.Address = S->Section == SymbolSection::Data ? Base + S->Offset : 0;
  return Info;
}

Error LoadedImage::copyTo(StringRef Name, ArrayRef<uint8_t> Src, uint64_t Offset) {
  Expected<const ImageSymbol &> S = symbolRange(Name, Offset, Src.size(), "copy to");
  if (!S)
    return S.takeError();
  if (S->Section == SymbolSection::Data)
    return Mem.copyIn(Base + S->Offset + uint32_t(Offset), Src);
  // The simulator keeps its own copy of the image; hand it the new bytes.
  KernelImage Updated = *Running;
  llvm::copy(Src, Updated.Const.begin() + S->Offset + Offset);
  if (Error E = LoadIntoSimulator(Updated))
    return E;
  Running = std::move(Updated);
  return Error::success();
}

Error LoadedImage::copyFrom(MutableArrayRef<uint8_t> Dst, StringRef Name, uint64_t Offset) {
  Expected<const ImageSymbol &> S = symbolRange(Name, Offset, Dst.size(), "copy from");
  if (!S)
    return S.takeError();
  if (S->Section == SymbolSection::Data)
    return Mem.copyOut(Dst, Base + S->Offset + uint32_t(Offset));
  auto From = Running->Const.begin() + S->Offset + Offset;
  std::copy(From, From + Dst.size(), Dst.begin());
  return Error::success();
}

} // namespace tandem
