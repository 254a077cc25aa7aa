//===- DeviceMemory.cpp - Global memory of a simulated device -------------===//
//
// First-fit placement over the gaps between live allocations. The address
// space is [FirstAddress, FirstAddress + capacity); each allocation reserves
// its size rounded up to 256 bytes but only its exact size is accessible, so
// the simulator can report any access past the end of a buffer.
//
//===----------------------------------------------------------------------===//

#include "DeviceMemory.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace tandem::iss {

namespace {

std::string hex32(uint64_t V) {
  std::string S;
  raw_string_ostream(S) << format_hex(V, 10);
  return S;
}

} // namespace

Expected<std::unique_ptr<DeviceMemory>>
DeviceMemory::create(uint64_t CapacityBytes) {
  if (CapacityBytes == 0 || CapacityBytes > MaxCapacity)
    return createStringError(
        "device memory size %llu bytes is out of range: it must be between 1 "
        "and %llu (the 32-bit address space above %s)",
        (unsigned long long)CapacityBytes, (unsigned long long)MaxCapacity,
        hex32(FirstAddress).c_str());
  return std::unique_ptr<DeviceMemory>(new DeviceMemory(CapacityBytes));
}

Expected<uint32_t> DeviceMemory::alloc(uint64_t Bytes) {
  if (Bytes == 0)
    return createStringError("cannot allocate 0 bytes of device memory");
  uint64_t Reserve = alignTo(Bytes, Alignment);
  if (Reserve > Capacity - Reserved)
    return createStringError(
        "out of device memory: %llu bytes requested, %llu of %llu bytes free "
        "(raise DeviceOptions::MemoryBytes or free buffers)",
        (unsigned long long)Bytes, (unsigned long long)(Capacity - Reserved),
        (unsigned long long)Capacity);
  // First fit: the lowest gap between live allocations that holds Reserve.
  uint64_t Candidate = FirstAddress;
  for (const auto &[Base, A] : Live) {
    if (Base - Candidate >= Reserve)
      break;
    Candidate = uint64_t(Base) + alignTo(A.Size, Alignment);
  }
  if (Candidate + Reserve > FirstAddress + Capacity)
    return createStringError(
        "out of device memory: no free range of %llu bytes (device memory is "
        "fragmented; %llu of %llu bytes free)",
        (unsigned long long)Reserve, (unsigned long long)(Capacity - Reserved),
        (unsigned long long)Capacity);
  Allocation A;
  A.Base = uint32_t(Candidate);
  A.Size = uint32_t(Bytes);
  A.Data.reset(new uint8_t[Bytes]());
  Reserved += Reserve;
  uint32_t Base = A.Base;
  Live.emplace(Base, std::move(A));
  return Base;
}

Error DeviceMemory::free(uint32_t Addr) {
  auto It = Live.find(Addr);
  if (It != Live.end()) {
    Reserved -= alignTo(It->second.Size, Alignment);
    Live.erase(It);
    return Error::success();
  }
  if (const Allocation *A = find(Addr))
    return createStringError(
        "free(%s): address is inside the allocation at %s (%u bytes), not at "
        "its start; pass the pointer alloc() returned",
        hex32(Addr).c_str(), hex32(A->Base).c_str(), A->Size);
  return createStringError("free(%s): not a live allocation (never allocated, "
                           "or already freed)",
                           hex32(Addr).c_str());
}

const Allocation *DeviceMemory::find(uint32_t Addr) const {
  auto It = Live.upper_bound(Addr);
  if (It == Live.begin())
    return nullptr;
  --It;
  const Allocation &A = It->second;
  return Addr - A.Base < A.Size ? &A : nullptr;
}

const Allocation *DeviceMemory::nearest(uint32_t Addr) const {
  if (Live.empty())
    return nullptr;
  auto Above = Live.upper_bound(Addr);
  if (Above == Live.begin())
    return &Above->second;
  auto Below = std::prev(Above);
  if (Above == Live.end())
    return &Below->second;
  uint64_t BelowEnd = uint64_t(Below->second.Base) + Below->second.Size;
  uint64_t DistBelow = Addr >= BelowEnd ? Addr - BelowEnd : 0;
  uint64_t DistAbove = Above->second.Base - uint64_t(Addr);
  return DistBelow <= DistAbove ? &Below->second : &Above->second;
}

Expected<uint8_t *> DeviceMemory::checkedRange(uint32_t Addr, uint64_t Bytes,
                                               StringRef What) const {
  const Allocation *A = find(Addr);
  if (!A)
    return createStringError("%s of %llu bytes at device address %s: the "
                             "address is not inside any live allocation",
                             What.str().c_str(), (unsigned long long)Bytes,
                             hex32(Addr).c_str());
  uint64_t Offset = Addr - A->Base;
  if (Bytes > A->Size - Offset)
    return createStringError(
        "%s of %llu bytes at device address %s runs past the end of the "
        "allocation at %s (%u bytes, ends at %s)",
        What.str().c_str(), (unsigned long long)Bytes, hex32(Addr).c_str(),
        hex32(A->Base).c_str(), A->Size,
        hex32(uint64_t(A->Base) + A->Size).c_str());
  return A->Data.get() + Offset;
}

Error DeviceMemory::copyIn(uint32_t Dst, ArrayRef<uint8_t> Src) {
  if (Src.empty())
    return Error::success();
  Expected<uint8_t *> P = checkedRange(Dst, Src.size(), "copy to the device");
  if (!P)
    return P.takeError();
  std::memcpy(*P, Src.data(), Src.size());
  return Error::success();
}

Error DeviceMemory::copyOut(MutableArrayRef<uint8_t> Dst, uint32_t Src) {
  if (Dst.empty())
    return Error::success();
  Expected<uint8_t *> P = checkedRange(Src, Dst.size(), "copy from the device");
  if (!P)
    return P.takeError();
  std::memcpy(Dst.data(), *P, Dst.size());
  return Error::success();
}

} // namespace tandem::iss
