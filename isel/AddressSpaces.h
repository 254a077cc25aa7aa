//===- AddressSpaces.h - NVPTX address-space numbers ------------*- C++ -*-===//
//
// The address spaces of the IR both targets select from, numbered as clang
// and LLVM's NVPTX back end number them. One definition for every isel
// file that tests a pointer's space.
//
//===----------------------------------------------------------------------===//
#ifndef TANDEM_ISEL_ADDRESSSPACES_H
#define TANDEM_ISEL_ADDRESSSPACES_H

namespace tandem::isel {

constexpr unsigned GenericAS = 0; ///< any of the others, decided at run time
constexpr unsigned GlobalAS = 1;  ///< __device__ data, kernel pointer arguments
constexpr unsigned SharedAS = 3;  ///< __shared__
constexpr unsigned ConstAS = 4;   ///< __constant__
constexpr unsigned LocalAS = 5;   ///< per-thread stack objects and spills

} // namespace tandem::isel

#endif
