//===- SpmmShape.h - spmm_csr's launch shape, one definition ---*- C++ -*-===//
//
// How spmm_csr (microbench/kernels/spmm.cu) is launched: the suite
// (Suite.cpp), the GPU runner (gpu/Runner.cpp) and the gpu model
// (models/GpuModel.cpp) all read it from here. Header-only and without
// dependencies: the GPU runner is built on the lent machine, which has no
// LLVM.
//
// A thread per element of C = A x B. A block is BlockColumns x BlockRows
// threads: threadIdx.x runs along C's columns (a warp reads 32 consecutive
// floats of a row of B), threadIdx.y along rows. Rows of A go on blockIdx.x,
// whose limit (2^31 - 1 blocks) no 32-bit row count reaches; column tiles go
// on blockIdx.y, whose limit is CUDA's 65535.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_MICROBENCH_SPMMSHAPE_H
#define TANDEM_MICROBENCH_SPMMSHAPE_H

#include <cstdint>
#include <string>

namespace tandem::spmm {

/// Threads of a block along C's columns: one warp on one row of A.
constexpr uint32_t BlockColumns = 32;
/// Rows of A (and of C) one block covers.
constexpr uint32_t BlockRows = 4;
/// CUDA's limit on gridDim.y, which holds the column tiles.
constexpr uint64_t MaxGridY = 65535;

/// Blocks along x (row groups) and y (column tiles) for \p Rows x \p Columns.
inline uint64_t gridX(uint64_t Rows) { return (Rows + BlockRows - 1) / BlockRows; }
inline uint64_t gridY(uint64_t Columns) { return (Columns + BlockColumns - 1) / BlockColumns; }

/// Why spmm_csr cannot compute C = A x B in one launch for A with \p Rows
/// rows and \p InnerDim columns and B with \p Columns columns, or empty
/// when it can. Rows never exceed the grid (2^32 rows are 2^30 blocks along
/// x); the kernel indexes B and C with int, so neither may have 2^31
/// elements or more.
inline std::string unfit(uint64_t Rows, uint64_t InnerDim, uint64_t Columns) {
  constexpr uint64_t MaxIntIndex = 2147483647;
  if (Columns == 0)
    return "B has no columns";
  if (gridY(Columns) > MaxGridY)
    return std::to_string(Columns) + " dense columns need " + std::to_string(gridY(Columns)) +
           " blocks in y, above CUDA's " + std::to_string(MaxGridY);
  if (Rows * Columns > MaxIntIndex || InnerDim * Columns > MaxIntIndex)
    return "C (" + std::to_string(Rows) + " x " + std::to_string(Columns) + ") or B (" +
           std::to_string(InnerDim) + " x " + std::to_string(Columns) +
           ") has 2^31 elements or more; spmm_csr indexes them with int";
  return "";
}

} // namespace tandem::spmm

#endif
