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
//    cuSPARSE is faster);
//  * per matrix, SpMM (spmm_csr, our PTX and nvcc's) against cuSPARSE's
//    best SpMM algorithm;
//  * the sparse runs the runner could not make ("skipped"), each with why.
//
// Input: the results object the runner writes (docs/GPU.md): "cases" with
// "variants".V."time".median_ms, "timing" entries with "case", "size",
// optional "matrix" (the matrix's name; "size" groups entries without it),
// "variants", on SpMV and SpMM entries "cusparse" ({alg: {median_ms}} or a
// string saying why there is none), on SpMM entries "dense_columns"; and
// "skipped" (strings). Missing or failed timings are NaN, never 0.
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
/// Our CSR x dense kernel (timing entries name it) and its suite case.
inline const char *const SpmmKernel = "spmm_csr";
inline const char *const SpmmCase = "spmm";

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

/// SpMM (spmm_csr) on one matrix: our PTX, nvcc's from the same source, and
/// cuSPARSE's best SpMM algorithm on the same buffers.
struct SpmmComparison {
  std::string Matrix;
  double DenseColumns = NAN; ///< columns of B and C
  double OursMs = NAN, NvccMs = NAN;
  std::string CusparseAlg; ///< "csr_alg1".."csr_alg3"; empty: none
  double CusparseMs = NAN;
  std::string CusparseNote; ///< why there is no cuSPARSE time, or an algorithm's error
  double oursOverCusparse() const { return OursMs / CusparseMs; }
};

struct RunSummary {
  std::vector<TableRow> Rows;
  double GeomeanOursOverNvcc = NAN;
  int GeomeanRows = 0;
  std::vector<SpmvComparison> Spmv;
  std::vector<SpmmComparison> Spmm;
  std::vector<std::string> Skipped; ///< sparse runs the runner could not make, and why
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
/// The best of a "cusparse" member ({alg: {median_ms} or {error}}, or a
/// string saying why there is none) into \p Alg / \p Ms, the first error
/// or the reason into \p Note.
inline void bestCusparse(const Json &Cu, std::string &Alg, double &Ms, std::string &Note) {
  if (Cu.K == Json::Kind::String) {
    Note = Cu.S;
    return;
  }
  for (const auto &[Name, Time] : Cu.O) {
    double T = Time.has("median_ms") ? Time["median_ms"].N : NAN;
    if (Time.has("error") && Note.empty())
      Note = Name + ": " + Time["error"].S;
    if (std::isfinite(T) && T > 0 && !(T >= Ms)) {
      Ms = T;
      Alg = Name;
    }
  }
}
inline std::string matrixOf(const Json &Entry, const std::string &Size) {
  return Entry.has("matrix") && Entry["matrix"].K == Json::Kind::String ? Entry["matrix"].S
                                                                          : Size;
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

      if (R.Kernel == SpmmKernel) {
        SpmmComparison M;
        M.Matrix = detail::matrixOf(T, R.Size);
        if (T.has("dense_columns") && T["dense_columns"].K == Json::Kind::Number)
          M.DenseColumns = T["dense_columns"].N;
        M.OursMs = R.Ms[0];
        M.NvccMs = R.Ms[1];
        if (T.has("cusparse"))
          detail::bestCusparse(T["cusparse"], M.CusparseAlg, M.CusparseMs, M.CusparseNote);
        S.Spmm.push_back(M);
        continue;
      }
      int K = detail::spmvIndex(R.Kernel);
      if (K < 0)
        continue;
      std::string Matrix = detail::matrixOf(T, R.Size);
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
      if (T.has("cusparse"))
        detail::bestCusparse(T["cusparse"], C->CusparseAlg, C->CusparseMs, C->CusparseNote);
    }
  if (Results.has("skipped"))
    for (const Json &Why : Results["skipped"].A)
      S.Skipped.push_back(Why.S);
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
  J += "],\"spmm\":[";
  for (size_t I = 0; I < S.Spmm.size(); ++I) {
    const SpmmComparison &M = S.Spmm[I];
    J += (I ? "," : "") + std::string("{\"matrix\":") + quote(M.Matrix) +
         ",\"dense_columns\":" + number(M.DenseColumns) + ",\"ours_ms\":" + number(M.OursMs) +
         ",\"nvcc_ms\":" + number(M.NvccMs) + ",\"cusparse_best\":" +
         (M.CusparseAlg.empty() ? std::string("null") : quote(M.CusparseAlg)) +
         ",\"cusparse_ms\":" + number(M.CusparseMs) +
         ",\"ours_over_cusparse\":" + number(M.oursOverCusparse());
    if (!M.CusparseNote.empty())
      J += ",\"cusparse_note\":" + quote(M.CusparseNote);
    J += "}";
  }
  J += "],\"skipped\":[";
  for (size_t I = 0; I < S.Skipped.size(); ++I)
    J += (I ? "," : "") + quote(S.Skipped[I]);
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
  if (!S.Spmv.empty()) {
    std::fprintf(Out, "\n%-34s %10s %10s %10s  %-12s %12s  %-9s %9s\n", "SpMV matrix (our PTX)",
                 "scalar ms", "vector ms", "merge ms", "fastest", "cuSPARSE ms", "(best)",
                 "ours/cuSP");
    for (const SpmvComparison &C : S.Spmv)
      std::fprintf(Out, "%-34.34s %10.4f %10.4f %10.4f  %-12s %12.4f  %-9s %9.3f\n",
                   C.Matrix.c_str(), C.OursMs[0], C.OursMs[1], C.OursMs[2],
                   C.Fastest.empty() ? "-" : C.Fastest.c_str(), C.CusparseMs,
                   C.CusparseAlg.empty() ? "-" : C.CusparseAlg.c_str(), C.oursOverCusparse());
  }
  if (!S.Spmm.empty()) {
    std::fprintf(Out, "\n%-34s %7s %10s %10s %12s  %-9s %9s\n", "SpMM matrix (spmm_csr)",
                 "columns", "ours ms", "nvcc ms", "cuSPARSE ms", "(best)", "ours/cuSP");
    for (const SpmmComparison &M : S.Spmm)
      std::fprintf(Out, "%-34.34s %7.0f %10.4f %10.4f %12.4f  %-9s %9.3f\n", M.Matrix.c_str(),
                   M.DenseColumns, M.OursMs, M.NvccMs, M.CusparseMs,
                   M.CusparseAlg.empty() ? "-" : M.CusparseAlg.c_str(), M.oursOverCusparse());
  }
  for (const std::string &Why : S.Skipped)
    std::fprintf(Out, "skipped: %s\n", Why.c_str());
}

} // namespace tandem::gpu
