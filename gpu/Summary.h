//===- Summary.h - The runner's table and summary from its results JSON ---===//
//
// What tandem-gpu-runner prints last and stores as "summary" in its results
// file, computed from the results JSON alone (so it is tested on a fixture
// with no GPU: tests/unit/GpuRunnerSummaryTest.cpp):
//
//  * one row per timed problem (suite size and large timing specs): the
//    median ms of ours, nvcc's and LLVM's PTX, ours/nvcc, and the geometric
//    mean of ours/nvcc over the rows that have both;
//  * per matrix, our three CSR SpMV kernels (spmv_scalar, spmv_vector,
//    spmv_merge; our PTX): which was fastest, and the fastest against
//    cuSPARSE's best of CSR_ALG1 and CSR_ALG2 (ratio ours/cuSPARSE, > 1:
//    cuSPARSE is faster).
//
// Input: the results object the runner writes (docs/GPU.md): "cases" with
// "variants".V."time".median_ms, "timing" entries with "case", "size",
// optional "matrix" (the matrix's name; "size" groups entries without it),
// "variants", and on SpMV entries "cusparse" ({alg: {median_ms}} or a string
// saying why there is none). Missing or failed timings are NaN, never 0.
// Plain C++17 and Json.h: the runner's machine has no LLVM.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Json.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace tandem::gpu {

struct TableRow {
  std::string Kernel, Size;
  double Ms[3] = {NAN, NAN, NAN}; ///< ours, nvcc, llc
  double oursOverNvcc() const { return Ms[0] / Ms[1]; }
};

/// Our CSR kernels, in the order the tables list them.
inline const char *const SpmvKernels[3] = {"spmv_scalar", "spmv_vector", "spmv_merge"};

struct SpmvComparison {
  std::string Matrix;
  double OursMs[3] = {NAN, NAN, NAN}; ///< per SpmvKernels entry, our PTX
  std::string Fastest;                ///< empty when none was timed
  double FastestMs = NAN;
  std::string CusparseAlg;            ///< "csr_alg1" / "csr_alg2"; empty: none
  double CusparseMs = NAN;
  std::string CusparseNote;           ///< why there is no cuSPARSE time
  double oursOverCusparse() const { return FastestMs / CusparseMs; }
};

struct RunSummary {
  std::vector<TableRow> Rows;
  double GeomeanOursOverNvcc = NAN;
  int GeomeanRows = 0;
  std::vector<SpmvComparison> Spmv;
};

namespace detail {
inline double medianMs(const Json &Variant) {
  if (Variant.K != Json::Kind::Object || !Variant.has("time"))
    return NAN;
  const Json &T = Variant["time"];
  if (T.K != Json::Kind::Object || !T.has("median_ms") || T["median_ms"].K != Json::Kind::Number)
    return NAN;
  return T["median_ms"].N;
}
inline void variantTimes(const Json &Entry, double Ms[3]) {
  static const char *const Names[3] = {"ours", "nvcc", "llc"};
  if (!Entry.has("variants"))
    return;
  const Json &V = Entry["variants"];
  for (int I = 0; I < 3; ++I)
    if (V.has(Names[I]))
      Ms[I] = medianMs(V[Names[I]]);
}
inline int spmvIndex(const std::string &Case) {
  for (int I = 0; I < 3; ++I)
    if (Case == SpmvKernels[I])
      return I;
  return -1;
}
} // namespace detail

/// The table and the SpMV comparison of a results object; a malformed file
/// throws (Json's errors name the missing member).
inline RunSummary summarizeResults(const Json &Results) {
  RunSummary S;
  if (Results.has("cases"))
    for (const Json &C : Results["cases"].A) {
      TableRow R;
      R.Kernel = C["name"].S;
      R.Size = "suite: " + (C.has("size") ? C["size"].S : std::string("?"));
      detail::variantTimes(C, R.Ms);
      S.Rows.push_back(R);
    }
  if (Results.has("timing"))
    for (const Json &T : Results["timing"].A) {
      TableRow R;
      R.Kernel = T["case"].S;
      R.Size = T["size"].S;
      detail::variantTimes(T, R.Ms);
      S.Rows.push_back(R);

      int K = detail::spmvIndex(R.Kernel);
      if (K < 0)
        continue;
      std::string Matrix = T.has("matrix") && T["matrix"].K == Json::Kind::String
                               ? T["matrix"].S
                               : R.Size;
      SpmvComparison *C = nullptr;
      for (SpmvComparison &X : S.Spmv)
        if (X.Matrix == Matrix)
          C = &X;
      if (!C) {
        S.Spmv.emplace_back();
        C = &S.Spmv.back();
        C->Matrix = Matrix;
      }
      C->OursMs[K] = R.Ms[0];
      if (T.has("cusparse")) {
        const Json &Cu = T["cusparse"];
        if (Cu.K == Json::Kind::String) {
          C->CusparseNote = Cu.S;
        } else {
          for (const auto &[Alg, Time] : Cu.O) {
            double Ms = Time.has("median_ms") ? Time["median_ms"].N : NAN;
            if (Time.has("error") && C->CusparseNote.empty())
              C->CusparseNote = Alg + ": " + Time["error"].S;
            if (std::isfinite(Ms) && Ms > 0 && !(Ms >= C->CusparseMs)) {
              C->CusparseMs = Ms;
              C->CusparseAlg = Alg;
            }
          }
        }
      }
    }
  double LogSum = 0;
  for (const TableRow &R : S.Rows) {
    double Ratio = R.oursOverNvcc();
    if (std::isfinite(Ratio) && Ratio > 0) {
      LogSum += std::log(Ratio);
      ++S.GeomeanRows;
    }
  }
  if (S.GeomeanRows)
    S.GeomeanOursOverNvcc = std::exp(LogSum / S.GeomeanRows);
  for (SpmvComparison &C : S.Spmv)
    for (int K = 0; K < 3; ++K)
      if (std::isfinite(C.OursMs[K]) && C.OursMs[K] > 0 && !(C.OursMs[K] >= C.FastestMs)) {
        C.FastestMs = C.OursMs[K];
        C.Fastest = SpmvKernels[K];
      }
  return S;
}

/// The "summary" object stored in the results file.
inline std::string summaryJson(const RunSummary &S) {
  std::string J = "{\"geomean_ours_over_nvcc\":" + number(S.GeomeanOursOverNvcc) +
                  ",\"geomean_rows\":" + std::to_string(S.GeomeanRows) + ",\"spmv\":[";
  for (size_t I = 0; I < S.Spmv.size(); ++I) {
    const SpmvComparison &C = S.Spmv[I];
    J += (I ? "," : "") + std::string("{\"matrix\":") + quote(C.Matrix) + ",\"ours_ms\":{";
    for (int K = 0; K < 3; ++K)
      J += (K ? "," : "") + std::string("\"") + SpmvKernels[K] + "\":" + number(C.OursMs[K]);
    J += "},\"fastest\":" + (C.Fastest.empty() ? std::string("null") : quote(C.Fastest)) +
         ",\"fastest_ms\":" + number(C.FastestMs) + ",\"cusparse_best\":" +
         (C.CusparseAlg.empty() ? std::string("null") : quote(C.CusparseAlg)) +
         ",\"cusparse_ms\":" + number(C.CusparseMs) +
         ",\"ours_over_cusparse\":" + number(C.oursOverCusparse());
    if (!C.CusparseNote.empty())
      J += ",\"cusparse_note\":" + quote(C.CusparseNote);
    J += "}";
  }
  return J + "]}";
}

/// The tables the runner prints last.
inline void printSummary(const RunSummary &S, std::FILE *Out) {
  std::fprintf(Out, "\n%-16s %-34s %10s %10s %10s %10s\n", "kernel", "size", "ours ms", "nvcc ms",
               "llc ms", "ours/nvcc");
  for (const TableRow &R : S.Rows)
    std::fprintf(Out, "%-16s %-34.34s %10.4f %10.4f %10.4f %10.3f\n", R.Kernel.c_str(),
                 R.Size.c_str(), R.Ms[0], R.Ms[1], R.Ms[2], R.oursOverNvcc());
  if (S.GeomeanRows)
    std::fprintf(Out, "geometric mean ours/nvcc over %d rows: %.3f\n", S.GeomeanRows,
                 S.GeomeanOursOverNvcc);
  if (S.Spmv.empty())
    return;
  std::fprintf(Out, "\n%-34s %10s %10s %10s  %-12s %12s  %-9s %9s\n", "SpMV matrix (our PTX)",
               "scalar ms", "vector ms", "merge ms", "fastest", "cuSPARSE ms", "(best)",
               "ours/cuSP");
  for (const SpmvComparison &C : S.Spmv)
    std::fprintf(Out, "%-34.34s %10.4f %10.4f %10.4f  %-12s %12.4f  %-9s %9.3f\n",
                 C.Matrix.c_str(), C.OursMs[0], C.OursMs[1], C.OursMs[2],
                 C.Fastest.empty() ? "-" : C.Fastest.c_str(), C.CusparseMs,
                 C.CusparseAlg.empty() ? "-" : C.CusparseAlg.c_str(), C.oursOverCusparse());
}

} // namespace tandem::gpu
