// CSR SpMV, y = A * x, load-balanced by merge path (Merrill & Garland,
// "Merge-based Parallel Sparse Matrix-Vector Multiplication", SC'16): the
// work of a CSR SpMV is the merge of the row-end offsets rowPtr[1..rows]
// with the nonzero indices 0..nnz-1, rows + nnz items in all. Every thread
// takes an equal slice of that merge, whatever the row lengths, so a
// power-law matrix's long rows are split across threads and its empty rows
// cost one item each. Two launches:
//   spmv_merge:       each thread binary-searches the start of its slice,
//                     walks it, writes y[row] for every row whose end it
//                     reaches (the partial sum since its slice began), and
//                     leaves the partial sum of the row it stopped inside in
//                     carryRow/carryVal (carryRow = rows when none);
//   spmv_merge_fixup: one thread per slice: the first slice carrying a row
//                     adds its own and the following slices' carries of the
//                     same row to y[row]. No atomics: the sums are in a fixed
//                     order, so every device gets the same bits.
// Launch spmv_merge with any grid; itemsPerThread = ceil((rows + nnz) /
// threads); the fixup with at least `threads` threads.

// The merge-path coordinate of diagonal `diag`: how many row ends (*row)
// and nonzeros (*nz) come before it in the merge.
__device__ void merge_path_search(int diag, const int *rowEnd, int rows, int nnz, int *row,
                                  int *nz) {
  int lo = diag > nnz ? diag - nnz : 0;
  int hi = diag < rows ? diag : rows;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    // A row end equal to a nonzero index comes first: that row is finished.
    if (rowEnd[mid] <= diag - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  *row = lo;
  *nz = diag - lo;
}

extern "C" __global__ void spmv_merge(int rows, int nnz, const int *rowPtr, const int *colIdx,
                                      const float *vals, const float *x, float *y,
                                      int itemsPerThread, int *carryRow, float *carryVal) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int total = rows + nnz;
  int begin = t * itemsPerThread < total ? t * itemsPerThread : total;
  int end = begin + itemsPerThread < total ? begin + itemsPerThread : total;
  int row, nz;
  merge_path_search(begin, rowPtr + 1, rows, nnz, &row, &nz);
  // The current row's end, loaded once per row rather than once per item:
  // a nonzero then costs three loads, not four. rowPtr[rows] (= nnz) stands
  // in once every row is done (row == rows), so the load stays inside the
  // array.
  int rowEnd = rowPtr[min(row + 1, rows)];
  float sum = 0.0f;
  for (int item = begin; item < end; ++item) {
    if (nz < rowEnd) { // the next item is a nonzero of this row
      sum += vals[nz] * x[colIdx[nz]];
      ++nz;
    } else { // the next item is this row's end
      y[row] = sum;
      sum = 0.0f;
      ++row;
      rowEnd = rowPtr[min(row + 1, rows)];
    }
  }
  carryRow[t] = row; // row == rows: the slice ended exactly at a row end
  carryVal[t] = sum;
}

extern "C" __global__ void spmv_merge_fixup(int rows, int threads, const int *carryRow,
                                            const float *carryVal, float *y) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads)
    return;
  int row = carryRow[t];
  if (row >= rows || (t > 0 && carryRow[t - 1] == row))
    return; // nothing carried, or an earlier slice adds this row's carries
  float sum = carryVal[t];
  for (int u = t + 1; u < threads && carryRow[u] == row; ++u)
    sum += carryVal[u];
  y[row] += sum;
}
