//===- StaticInputsTest.cpp - Static estimates that read host input data -===//
//
// Known answers for the static walk with InputModel::Regions (integer input
// data the host holds) and spill slots: a CSR row loop followed on rowPtr, a
// gather x[idx[i]] on the real indices (distinct lines counted by hand), a
// shared atomic on a loaded bin, a spilled pointer reloaded; the host's
// merge-path carries against the kernel's own binary search; and which
// buffers each workload may read (models/StaticInputs.h).
//
//===----------------------------------------------------------------------===//

#include "StaticInputs.h"
#include "StaticTestKernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

using namespace tandem;
using namespace tandem::models;
using namespace tandem::models::testing;

namespace {

InputRegion region(llvm::StringRef Name, uint32_t Base, std::vector<uint32_t> Words) {
  return {Name.str(), Base, std::make_shared<const std::vector<uint32_t>>(std::move(Words))};
}

constexpr uint32_t RowPtrBase = 0x100000;

} // namespace

TEST(StaticInputs, CsrRowLoopFollowsTheHostsRowPtr) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(RowLoop);
  std::mt19937 Rng(23);
  std::vector<uint32_t> Length(32), RowPtr{0};
  for (uint32_t &L : Length)
    L = Rng() % 9; // some empty rows
  Length[9] = 37;  // one long row
  for (uint32_t L : Length)
    RowPtr.push_back(RowPtr.back() + L);
  InputModel In;
  In.Regions.push_back(region("rowPtr", RowPtrBase, RowPtr));
  llvm::Expected<LaunchProfile> P = estimateLaunch(Img, launch("rows", 32, {RowPtrBase}), C, In);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  uint64_t Max = *std::max_element(Length.begin(), Length.end());
  EXPECT_EQ(P->WarpInstructions, 10 + 4 * Max + 2);
  uint64_t Loop = 0, NonEmpty = 0;
  for (uint32_t L : Length)
    if (L) {
      Loop += 3 * L + (L - 1); // the bany on all but the last iteration
      ++NonEmpty;
    }
  // start < end is now known: the bnone runs with the non-empty rows only.
  EXPECT_EQ(P->ThreadInstructions, 32 * 9 + NonEmpty + Loop + 32);

  // A region that ends before the last row's end is not read past its end.
  InputModel Short;
  Short.Regions.push_back(
      region("rowPtr", RowPtrBase, std::vector<uint32_t>(RowPtr.begin(), RowPtr.end() - 1)));
  llvm::Expected<LaunchProfile> None =
      estimateLaunch(Img, launch("rows", 32, {RowPtrBase}), C, Short);
  ASSERT_FALSE(bool(None));
  EXPECT_NE(llvm::toString(None.takeError()).find("no trip count"), std::string::npos);
}

TEST(StaticInputs, GatherUsesTheRealIndicesForItsLines) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(Gather);
  const uint32_t IdxBase = 0x100000, XBase = 0x200000;
  const uint64_t IdxLines = 128 / C.L1.LineBytes;
  std::mt19937 Rng(5);
  for (uint32_t Spread : {1u, 40u, 5000u}) {
    std::vector<uint32_t> Idx(32);
    std::set<uint32_t> Lines;
    for (uint32_t &I : Idx) {
      I = Rng() % Spread;
      Lines.insert((XBase + 4 * I) / C.L1.LineBytes);
    }
    InputModel In;
    In.Regions.push_back(region("idx", IdxBase, Idx));
    llvm::Expected<LaunchProfile> P =
        estimateLaunch(Img, launch("gather", 32, {IdxBase, XBase}), C, In);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    // One warp, no reuse: each distinct line of idx and of x misses once.
    EXPECT_EQ(P->Memory.L1Misses, IdxLines + Lines.size()) << "spread " << Spread;
    EXPECT_EQ(P->Memory.L1Hits, 0u);
  }
}

TEST(StaticInputs, SharedAtomicOnALoadedBinNeedsTheInputWords) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(R"(
.kernel hist
.param in ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @in]
    add r3, r3, r2
    ld.global.u32 r4, [r3]
    andi r4, r4, 255
    shli r4, r4, 2
    movi r5, 1
    atom.shared.add r6, [r4], r5
    exit
)");
  llvm::Expected<LaunchProfile> None = estimateLaunch(Img, launch("hist", 64, {0x100000}), C);
  ASSERT_FALSE(bool(None));
  std::string Why = llvm::toString(None.takeError());
  EXPECT_NE(Why.find("pc 0x0020"), std::string::npos) << Why;
  EXPECT_NE(Why.find("atom.shared.add"), std::string::npos) << Why;
  std::mt19937 Rng(9);
  std::vector<uint32_t> Words(64);
  for (uint32_t &W : Words)
    W = Rng();
  InputModel In;
  In.Regions.push_back(region("in", 0x100000, Words));
  llvm::Expected<LaunchProfile> P = estimateLaunch(Img, launch("hist", 64, {0x100000}), C, In);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->WarpInstructions, 2u * 10);
}

TEST(StaticInputs, SpilledValuesReloadKnownUnlessOverwrittenWithData) {
  AcceleratorConfig C;
  // The input pointer goes to a spill slot and back before the load; a
  // second slot is overwritten with a loaded (unknown) value.
  auto Kernel = [](llvm::StringRef Reload) {
    return (R"(
.kernel spill
.param in ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @in]
    add r3, r3, r2
    st.local.u32 [r0 + 8], r3
    st.local.u32 [r0 + 12], r3
    ld.global.u32 r9, [r3]
    st.local.u32 [r0 + 12], r9
    movi r3, 0
    )" + Reload + R"(
    ld.global.u32 r4, [r3]
    exit
)")
        .str();
  };
  KernelImage Known = assembleOrDie(Kernel("ld.local.u32 r3, [r0 + 8]"));
  llvm::Expected<LaunchProfile> P = estimateLaunch(Known, launch("spill", 32, {0x100000}), C);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // The reloaded pointer is the stored one: the same memory traffic as the
  // kernel that recomputes it instead (the second load hits the first's lines).
  KernelImage Reference = assembleOrDie(Kernel("ld.local.u32 r10, [r0 + 8]\n    mov r3, r2\n    "
                                               "ld.param.u32 r11, [r0 + @in]\n    add r3, r3, r11"));
  llvm::Expected<LaunchProfile> Ref =
      estimateLaunch(Reference, launch("spill", 32, {0x100000}), C);
  ASSERT_TRUE(bool(Ref)) << llvm::toString(Ref.takeError());
  EXPECT_EQ(P->Memory.L1Hits, Ref->Memory.L1Hits);
  EXPECT_EQ(P->Memory.L1Misses, Ref->Memory.L1Misses);
  EXPECT_EQ(P->Memory.DramRequests, Ref->Memory.DramRequests);

  KernelImage Overwritten = assembleOrDie(Kernel("ld.local.u32 r3, [r0 + 12]"));
  llvm::Expected<LaunchProfile> None =
      estimateLaunch(Overwritten, launch("spill", 32, {0x100000}), C);
  ASSERT_FALSE(bool(None));
  EXPECT_NE(llvm::toString(None.takeError()).find("depends on memory contents"),
            std::string::npos);
}

namespace {

/// The kernel's merge_path_search (microbench/kernels/spmv_balanced.cu):
/// the row coordinate of merge diagonal \p Diag.
uint32_t searchRow(const std::vector<uint32_t> &RowPtr, int64_t Diag) {
  int64_t Rows = int64_t(RowPtr.size()) - 1, Nnz = RowPtr.back();
  int64_t Lo = Diag > Nnz ? Diag - Nnz : 0, Hi = Diag < Rows ? Diag : Rows;
  while (Lo < Hi) {
    int64_t Mid = (Lo + Hi) >> 1;
    if (int64_t(RowPtr[Mid + 1]) <= Diag - Mid - 1)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  return uint32_t(Lo);
}

} // namespace

TEST(StaticInputs, MergeCarryRowsMatchTheKernelsSearch) {
  // By hand: rowPtr 0,2,2,5 merges as nz0 nz1 end0 end1 nz2 nz3 nz4 end2;
  // slices of 2 stop in row 0, after rows 0 and 1, in row 2, after row 2.
  EXPECT_EQ(mergeCarryRows({0, 2, 2, 5}, 4, 2), (std::vector<uint32_t>{0, 2, 2, 3}));
  std::mt19937 Rng(31);
  for (int Round = 0; Round < 5; ++Round) {
    std::vector<uint32_t> RowPtr{0};
    uint32_t Rows = 1 + Rng() % 300;
    for (uint32_t R = 0; R < Rows; ++R)
      RowPtr.push_back(RowPtr.back() + (Rng() % 4 ? Rng() % 6 : Rng() % 90));
    uint64_t Total = Rows + RowPtr.back();
    uint32_t Threads = 1 + Rng() % 64;
    uint32_t Items = uint32_t((Total + Threads - 1) / Threads);
    std::vector<uint32_t> Carry = mergeCarryRows(RowPtr, Threads, Items);
    ASSERT_EQ(Carry.size(), Threads);
    for (uint32_t T = 0; T < Threads; ++T)
      EXPECT_EQ(Carry[T], searchRow(RowPtr, std::min<uint64_t>(uint64_t(T + 1) * Items, Total)))
          << "round " << Round << " slice " << T;
  }
}

TEST(StaticInputs, EachWorkloadReadsOnlyItsNamedBuffers) {
  std::vector<uint32_t> RowPtr{0, 2, 2, 5}, ColIdx{4, 1, 0, 3, 2}, Vals(5, 0x3f800000);
  std::vector<HostBuffer> Csr = {{"rowPtr", 0x100000, RowPtr},
                                 {"colIdx", 0x100100, ColIdx},
                                 {"vals", 0x100200, Vals},
                                 {"carryRow", 0x100300, {}}};
  StaticLaunch Merge = launch("spmv_merge", 2, {3, 5, 0x100000, 0x100100, 0x100200, 0, 0, 4,
                                                0x100300, 0x100400});
  Merge.Grid = {2, 1, 1};
  for (llvm::StringRef W : {"spmv_scalar", "spmv_vector", "spmm"}) {
    InputModel M = workloadInputs(W, Csr, {});
    ASSERT_EQ(M.Regions.size(), 2u) << W.str();
    EXPECT_EQ(M.Regions[0].Name, "rowPtr");
    EXPECT_EQ(M.Regions[0].Base, 0x100000u);
    EXPECT_EQ(*M.Regions[0].Words, RowPtr);
    EXPECT_EQ(M.Regions[1].Name, "colIdx");
    EXPECT_EQ(*M.Regions[1].Words, ColIdx);
  }
  for (llvm::StringRef W : {"spmv_merge", "spmv_balanced"}) {
    InputModel M = workloadInputs(W, Csr, {Merge});
    ASSERT_EQ(M.Regions.size(), 3u) << W.str();
    EXPECT_EQ(M.Regions[2].Base, 0x100300u);
    EXPECT_EQ(*M.Regions[2].Words, mergeCarryRows(RowPtr, 4, 4));
  }
  std::vector<uint32_t> In{7, 300, 41};
  std::vector<HostBuffer> Hist = {{"in", 0x100000, In}, {"bins", 0x100100, In}};
  InputModel H = workloadInputs("histogram", Hist, {});
  ASSERT_EQ(H.Regions.size(), 1u);
  EXPECT_EQ(H.Regions[0].Name, "in");
  for (llvm::StringRef W : {"vadd", "hash64", "softmax_rows"})
    EXPECT_TRUE(workloadInputs(W, Hist, {}).Regions.empty()) << W.str();
  EXPECT_EQ(staticInputNotes().size(), 4u);
}
