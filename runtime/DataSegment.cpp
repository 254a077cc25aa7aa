//===- DataSegment.cpp - An image's __device__ variables in device memory -===//
//
// See DataSegment.h for what it guarantees.
//
//===----------------------------------------------------------------------===//

#include "DataSegment.h"

#include "llvm/Support/Endian.h"

using namespace llvm;

namespace tandem {

Error DataSegment::load(const KernelImage &Img,
                        function_ref<Error(const KernelImage &)> Load) {
  DevicePtr Old = Base;
  auto FreeOld = [&]() -> Error {
    Base = 0;
    return Old ? Mem.free(Old) : Error::success();
  };
  if (Img.Data.empty()) {
    if (Error E = Load(Img))
      return E;
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
    E = Load(Placed);
  if (E) {
    consumeError(Mem.free(*New));
    return E;
  }
  if (Error F = FreeOld())
    return F;
  Base = *New;
  return Error::success();
}

} // namespace tandem
