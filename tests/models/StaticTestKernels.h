//===- StaticTestKernels.h - Shared pieces of the static-estimate tests -*- C++ -*-===//
//
// What StaticEstimateTest.cpp and StaticInputsTest.cpp both use: assembling
// a listing (a failure fails the test), a one-block launch, the CSR row
// loop rowPtr[tid] .. rowPtr[tid+1] whose trip counts both files check, and
// the gather x[idx[tid]].
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Assembler.h"
#include "StaticEstimate.h"

#include <gtest/gtest.h>

namespace tandem::models::testing {

inline KernelImage assembleOrDie(llvm::StringRef Source) {
  llvm::Expected<KernelImage> Img = assemble(Source, "test.s");
  if (!Img) {
    ADD_FAILURE() << llvm::toString(Img.takeError());
    return {};
  }
  return std::move(*Img);
}

inline StaticLaunch launch(llvm::StringRef Kernel, uint32_t Threads,
                           std::vector<uint32_t> Params) {
  StaticLaunch L;
  L.Kernel = Kernel.str();
  L.Block = {Threads, 1, 1};
  L.ParamWords = std::move(Params);
  return L;
}

/// One thread per row: counts from rowPtr[tid] up to rowPtr[tid+1], the
/// loop's exit divergent (emask), as the compiled thread-per-row SpMV does.
constexpr const char *RowLoop = R"(
.kernel rows
.param rowPtr ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @rowPtr]
    add r3, r3, r2
    ld.global.u32 r4, [r3]
    ld.global.u32 r5, [r3 + 4]
    emask.get r7
    setlt r6, r4, r5
    emask.and r6
    bnone done
loop:
    addi r4, r4, 1
    seteq r8, r4, r5
    emask.andn r8
    bany loop
done:
    emask.set r7
    exit
)";

/// x[idx[tid]]: an address computed from a loaded index, the gather both
/// files estimate (with the indices as input data, and without).
constexpr const char *Gather = R"(
.kernel gather
.param idx ptr
.param x ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @idx]
    add r3, r3, r2
    ld.global.u32 r4, [r3]
    shli r4, r4, 2
    ld.param.u32 r5, [r0 + @x]
    add r5, r5, r4
    ld.global.u32 r6, [r5]
    exit
)";

} // namespace tandem::models::testing
