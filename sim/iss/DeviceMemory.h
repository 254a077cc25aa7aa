//===- DeviceMemory.h - Global memory of a simulated device ----*- C++ -*-===//
//
// The global memory a device exposes through the runtime: allocations in a
// 32-bit device address space, each backed by its own host buffer so that an
// access outside every live allocation is detected exactly (no slack between
// allocations is readable).
//
// Guarantees: allocations are 256-byte aligned (like cudaMalloc) and never
// start below FirstAddress, so address 0 and small offsets from it are never
// valid; the sum of the reserved (256-rounded) sizes of live allocations
// never exceeds the capacity; new memory reads as zero; addresses are reused
// only after free().
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>

namespace tandem::iss {

/// One live allocation: device addresses [Base, Base + Size).
struct Allocation {
  uint32_t Base = 0;
  uint32_t Size = 0;
  std::unique_ptr<uint8_t[]> Data;
};

class DeviceMemory {
public:
  /// The lowest address an allocation can have: 1 MiB, so that a null pointer
  /// plus any plausible offset is outside every allocation.
  static constexpr uint32_t FirstAddress = 0x00100000;
  static constexpr uint32_t Alignment = 256;
  /// The most memory a 32-bit address space above FirstAddress can hold.
  static constexpr uint64_t MaxCapacity = (1ull << 32) - FirstAddress;

  /// Fails unless 0 < CapacityBytes <= MaxCapacity.
  static llvm::Expected<std::unique_ptr<DeviceMemory>>
  create(uint64_t CapacityBytes);

  llvm::Expected<uint32_t> alloc(uint64_t Bytes);
  llvm::Error free(uint32_t Addr);
  /// Copies require [Addr, Addr + size) to lie inside one live allocation.
  llvm::Error copyIn(uint32_t Dst, llvm::ArrayRef<uint8_t> Src);
  llvm::Error copyOut(llvm::MutableArrayRef<uint8_t> Dst, uint32_t Src);

  /// The live allocation containing \p Addr, or null. The pointer stays valid
  /// until that allocation is freed.
  const Allocation *find(uint32_t Addr) const;
  /// The live allocation nearest to \p Addr (for messages), or null if none.
  const Allocation *nearest(uint32_t Addr) const;

  uint64_t capacity() const { return Capacity; }
  uint64_t bytesReserved() const { return Reserved; }

private:
  explicit DeviceMemory(uint64_t CapacityBytes) : Capacity(CapacityBytes) {}
  llvm::Expected<uint8_t *> checkedRange(uint32_t Addr, uint64_t Bytes,
                                         llvm::StringRef What) const;

  uint64_t Capacity;
  uint64_t Reserved = 0;
  std::map<uint32_t, Allocation> Live; // keyed by Base
};

} // namespace tandem::iss
