//===- SeeingInsideKernel.h - a small kernel run on rtl with options -*- C++ -*-===//
//
// What the tests of the rtl device's views (waveform, FST, timeline) run:
// a kernel whose warps stall on memory, on a dependency and at a barrier,
// launched with the DeviceOptions under test.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Assembler.h"

#include "tandem/Runtime.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace tandem::testing::seeing_inside {

using namespace llvm;

// Each thread loads a[tid] (memory stall), multiplies twice in a chain
// (dependency stall), waits at a barrier and stores the result to b[tid].
constexpr const char *Kernel = R"(
.kernel k
.param a ptr
.param b ptr
    s2r r1, %tid.x
    ld.param.u32 r2, [r0 + @a]
    ld.param.u32 r3, [r0 + @b]
    shli r4, r1, 2
    add r2, r2, r4
    add r3, r3, r4
    ld.global.u32 r5, [r2]
    mul r6, r5, r5
    mul r6, r6, r5
    bar
    st.global.u32 [r3], r6
    exit
)";

constexpr unsigned Threads = 96, Blocks = 3;

inline std::string tempPath(StringRef Suffix) {
  SmallString<128> P;
  EXPECT_FALSE(sys::fs::createTemporaryFile("tandem-seeing-inside", Suffix, P));
  return P.str().str();
}

/// Runs the kernel on \p Name with \p Opts; returns the launch's error text
/// ("" on success) and, for rtl, its counters.
inline std::string runKernel(StringRef Name, const DeviceOptions &Opts, Counters *Out = nullptr) {
  auto D = openDevice(Name, Opts);
  if (!D)
    return toString(D.takeError());
  auto Img = assemble(Kernel, "seeing-inside.s");
  if (!Img)
    return toString(Img.takeError());
  std::vector<uint32_t> In(Threads);
  std::mt19937 G(7);
  for (uint32_t &V : In)
    V = G();
  auto A = (*D)->alloc(Threads * 4), B = (*D)->alloc(Threads * 4);
  if (!A || !B)
    return "alloc failed";
  if (Error E = (*D)->write<uint32_t>(*A, In))
    return toString(std::move(E));
  if (Error E = (*D)->loadImage(*Img))
    return toString(std::move(E));
  LaunchParams P;
  P.Kernel = "k";
  P.Grid.X = Blocks;
  P.Block.X = Threads;
  P.Args = {KernelArg::ptr(*A), KernelArg::ptr(*B)};
  if (Error E = (*D)->launch(P))
    return toString(std::move(E));
  if (Out)
    *Out = (*D)->counters();
  return "";
}

inline std::string readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  return (*Buf)->getBuffer().str();
}

} // namespace tandem::testing::seeing_inside
