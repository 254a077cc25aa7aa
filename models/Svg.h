//===- Svg.h - Small self-contained SVG plots for the report -----*- C++ -*-===//
//
// The report's HTML must open anywhere without a network or a script, so
// its plots are inline SVG written here: a log-log scatter of predicted
// against measured with the y = x line and a +-Band band, a roofline, a
// bar chart of signed values, and stacked bars. Every text is XML-escaped;
// non-finite or non-positive values on a log axis are left out (and counted
// in the plot's caption), never drawn at a wrong place.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace tandem::models::svg {

std::string escape(const std::string &Text);

struct Point {
  double X = 0, Y = 0;
  std::string Label;
  unsigned Series = 0; ///< colour index
};

/// Predicted (Y) against measured (X), both log scaled; the y = x line and
/// the band y in [x (1 - Band), x (1 + Band)] shaded.
std::string scatterLogLog(const std::string &Title, const std::string &XLabel,
                          const std::string &YLabel, const std::vector<Point> &Points,
                          const std::vector<std::string> &SeriesNames, double Band = 0.10);

/// Attainable performance min(PeakCompute, PeakBandwidth * intensity) on
/// log axes, and each point (X: operations per byte, Y: operations per cycle).
std::string roofline(const std::string &Title, const std::vector<Point> &Points,
                     double PeakCompute, double PeakBandwidth);

/// One bar per label (values may be negative), with optional reference
/// lines at +-Band.
std::string bars(const std::string &Title, const std::vector<std::string> &Labels,
                 const std::vector<double> &Values, const std::string &Unit, double Band = 0);

/// One horizontal stacked bar per label; Values[i][s] is label i's part s.
std::string stackedBars(const std::string &Title, const std::vector<std::string> &Labels,
                        const std::vector<std::string> &Parts,
                        const std::vector<std::vector<double>> &Values);

} // namespace tandem::models::svg
