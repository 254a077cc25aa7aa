//===- Svg.cpp - Small self-contained SVG plots for the report ------------===//

#include "Svg.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

namespace tandem::models::svg {

namespace {

const char *const Palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                               "#9467bd", "#8c564b", "#e377c2", "#17becf"};
const char *colour(unsigned I) { return Palette[I % (sizeof(Palette) / sizeof(Palette[0]))]; }

constexpr double Width = 640, Height = 420, Left = 70, Right = 20, Top = 40, Bottom = 60;

std::string num(double V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%.1f", V);
  return S;
}

std::string tick(double V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (std::fabs(V) >= 1e4 || (std::fabs(V) < 1e-2 && V != 0))
    OS << llvm::format("%.0e", V);
  else
    OS << llvm::format("%g", V);
  return S;
}

/// A log10 axis covering [Lo, Hi], widened to whole decades.
struct LogAxis {
  double Lo, Hi, From, To; // decades; pixels
  double map(double V) const {
    return From + (std::log10(V) - Lo) / std::max(1e-9, Hi - Lo) * (To - From);
  }
};

LogAxis logAxis(double Min, double Max, double From, double To) {
  double Lo = std::floor(std::log10(Min)), Hi = std::ceil(std::log10(Max));
  if (Hi <= Lo)
    Hi = Lo + 1;
  return {Lo, Hi, From, To};
}

void header(llvm::raw_ostream &OS, const std::string &Title) {
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Width << "\" height=\""
     << Height << "\" viewBox=\"0 0 " << Width << ' ' << Height
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<title>" << escape(Title) << "</title>\n"
     << "<text x=\"" << Width / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">"
     << escape(Title) << "</text>\n";
}

void logGrid(llvm::raw_ostream &OS, const LogAxis &X, const LogAxis &Y,
             const std::string &XLabel, const std::string &YLabel) {
  for (double D = X.Lo; D <= X.Hi; ++D) {
    double Px = X.map(std::pow(10, D));
    OS << "<line x1=\"" << num(Px) << "\" y1=\"" << Top << "\" x2=\"" << num(Px) << "\" y2=\""
       << Height - Bottom << "\" stroke=\"#ddd\"/>\n"
       << "<text x=\"" << num(Px) << "\" y=\"" << Height - Bottom + 14
       << "\" text-anchor=\"middle\">" << tick(std::pow(10, D)) << "</text>\n";
  }
  for (double D = Y.Lo; D <= Y.Hi; ++D) {
    double Py = Y.map(std::pow(10, D));
    OS << "<line x1=\"" << Left << "\" y1=\"" << num(Py) << "\" x2=\"" << Width - Right
       << "\" y2=\"" << num(Py) << "\" stroke=\"#ddd\"/>\n"
       << "<text x=\"" << Left - 4 << "\" y=\"" << num(Py + 4) << "\" text-anchor=\"end\">"
       << tick(std::pow(10, D)) << "</text>\n";
  }
  OS << "<rect x=\"" << Left << "\" y=\"" << Top << "\" width=\"" << Width - Left - Right
     << "\" height=\"" << Height - Top - Bottom << "\" fill=\"none\" stroke=\"#444\"/>\n"
     << "<text x=\"" << (Left + Width - Right) / 2 << "\" y=\"" << Height - 20
     << "\" text-anchor=\"middle\">" << escape(XLabel) << "</text>\n"
     << "<text transform=\"translate(16," << (Top + Height - Bottom) / 2
     << ") rotate(-90)\" text-anchor=\"middle\">" << escape(YLabel) << "</text>\n";
}

bool positive(const Point &P) {
  return std::isfinite(P.X) && std::isfinite(P.Y) && P.X > 0 && P.Y > 0;
}

void legend(llvm::raw_ostream &OS, const std::vector<std::string> &Names) {
  double X = Left + 8, Y = Top + 14;
  for (size_t I = 0; I < Names.size(); ++I, Y += 14)
    OS << "<circle cx=\"" << X << "\" cy=\"" << Y - 4 << "\" r=\"4\" fill=\"" << colour(I)
       << "\"/><text x=\"" << X + 8 << "\" y=\"" << Y << "\">" << escape(Names[I])
       << "</text>\n";
}

void dots(llvm::raw_ostream &OS, const std::vector<Point> &Points, const LogAxis &X,
          const LogAxis &Y) {
  for (const Point &P : Points)
    if (positive(P))
      OS << "<circle cx=\"" << num(X.map(P.X)) << "\" cy=\"" << num(Y.map(P.Y))
         << "\" r=\"3.5\" fill=\"" << colour(P.Series) << "\" fill-opacity=\"0.75\"><title>"
         << escape(P.Label) << "</title></circle>\n";
}

void skippedNote(llvm::raw_ostream &OS, size_t Skipped) {
  if (Skipped)
    OS << "<text x=\"" << Width - Right << "\" y=\"" << Top - 6 << "\" text-anchor=\"end\">"
       << Skipped << " point(s) not positive, not drawn</text>\n";
}

} // namespace

std::string escape(const std::string &Text) {
  std::string Out;
  for (char C : Text) {
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    case '\'': Out += "&#39;"; break;
    default: Out += C;
    }
  }
  return Out;
}

std::string scatterLogLog(const std::string &Title, const std::string &XLabel,
                          const std::string &YLabel, const std::vector<Point> &Points,
                          const std::vector<std::string> &SeriesNames, double Band) {
  double Min = INFINITY, Max = 0;
  size_t Skipped = 0;
  for (const Point &P : Points) {
    if (!positive(P)) {
      ++Skipped;
      continue;
    }
    Min = std::min({Min, P.X, P.Y});
    Max = std::max({Max, P.X, P.Y});
  }
  if (!(Min < INFINITY))
    Min = 1, Max = 10;
  LogAxis X = logAxis(Min, Max, Left, Width - Right);
  LogAxis Y = logAxis(Min, Max, Height - Bottom, Top);
  std::string S;
  llvm::raw_string_ostream OS(S);
  header(OS, Title);
  logGrid(OS, X, Y, XLabel, YLabel);
  // The band and the diagonal, sampled along the x axis.
  double A = std::pow(10, X.Lo), B = std::pow(10, X.Hi);
  OS << "<polygon fill=\"#2ca02c\" fill-opacity=\"0.15\" points=\"" << num(X.map(A)) << ','
     << num(Y.map(A * (1 + Band))) << ' ' << num(X.map(B)) << ',' << num(Y.map(B * (1 + Band)))
     << ' ' << num(X.map(B)) << ',' << num(Y.map(B * (1 - Band))) << ' ' << num(X.map(A))
     << ',' << num(Y.map(A * (1 - Band))) << "\"/>\n"
     << "<line x1=\"" << num(X.map(A)) << "\" y1=\"" << num(Y.map(A)) << "\" x2=\""
     << num(X.map(B)) << "\" y2=\"" << num(Y.map(B)) << "\" stroke=\"#2ca02c\"/>\n";
  dots(OS, Points, X, Y);
  legend(OS, SeriesNames);
  skippedNote(OS, Skipped);
  OS << "</svg>\n";
  return S;
}

std::string roofline(const std::string &Title, const std::vector<Point> &Points,
                     double PeakCompute, double PeakBandwidth) {
  double XMin = INFINITY, XMax = 0, YMin = PeakCompute, YMax = PeakCompute;
  size_t Skipped = 0;
  for (const Point &P : Points) {
    if (!positive(P)) {
      ++Skipped;
      continue;
    }
    XMin = std::min(XMin, P.X);
    XMax = std::max(XMax, P.X);
    YMin = std::min(YMin, P.Y);
    YMax = std::max(YMax, P.Y);
  }
  double Ridge = PeakCompute / PeakBandwidth;
  XMin = std::min(XMin < INFINITY ? XMin : Ridge / 10, Ridge / 10);
  XMax = std::max(XMax, Ridge * 10);
  LogAxis X = logAxis(XMin, XMax, Left, Width - Right);
  LogAxis Y = logAxis(YMin, YMax * 1.5, Height - Bottom, Top);
  std::string S;
  llvm::raw_string_ostream OS(S);
  header(OS, Title);
  logGrid(OS, X, Y, "operational intensity (fp32 lane ops per DRAM byte)",
          "fp32 lane ops per cycle");
  double A = std::pow(10, X.Lo), B = std::pow(10, X.Hi);
  double Start = std::max(A, std::pow(10, Y.Lo) / PeakBandwidth);
  OS << "<polyline fill=\"none\" stroke=\"#444\" stroke-width=\"2\" points=\""
     << num(X.map(Start)) << ',' << num(Y.map(Start * PeakBandwidth)) << ' '
     << num(X.map(Ridge)) << ',' << num(Y.map(PeakCompute)) << ' ' << num(X.map(B)) << ','
     << num(Y.map(PeakCompute)) << "\"/>\n";
  dots(OS, Points, X, Y);
  skippedNote(OS, Skipped);
  OS << "</svg>\n";
  return S;
}

std::string bars(const std::string &Title, const std::vector<std::string> &Labels,
                 const std::vector<double> &Values, const std::string &Unit, double Band) {
  double Lim = Band;
  for (double V : Values)
    if (std::isfinite(V))
      Lim = std::max(Lim, std::fabs(V));
  if (Lim <= 0)
    Lim = 1;
  double RowH = 16, H = Top + RowH * Labels.size() + 30, Mid = (Left + 160 + Width - Right) / 2;
  double Half = (Width - Right - Left - 160) / 2;
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Width << "\" height=\"" << H
     << "\" viewBox=\"0 0 " << Width << ' ' << H
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n<title>" << escape(Title)
     << "</title>\n<text x=\"" << Width / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">"
     << escape(Title) << "</text>\n";
  auto Px = [&](double V) { return Mid + V / Lim * Half; };
  if (Band > 0)
    for (double B : {-Band, Band})
      OS << "<line x1=\"" << num(Px(B)) << "\" y1=\"" << Top - 4 << "\" x2=\"" << num(Px(B))
         << "\" y2=\"" << num(H - 24) << "\" stroke=\"#2ca02c\" stroke-dasharray=\"4 3\"/>\n";
  for (size_t I = 0; I < Labels.size(); ++I) {
    double Y = Top + I * RowH;
    double V = I < Values.size() && std::isfinite(Values[I]) ? Values[I] : 0;
    double X0 = std::min(Px(0), Px(V)), W = std::fabs(Px(V) - Px(0));
    OS << "<text x=\"" << Left + 150 << "\" y=\"" << num(Y + 11) << "\" text-anchor=\"end\">"
       << escape(Labels[I]) << "</text>\n<rect x=\"" << num(X0) << "\" y=\"" << num(Y + 2)
       << "\" width=\"" << num(std::max(W, 0.5)) << "\" height=\"" << RowH - 4 << "\" fill=\""
       << (std::fabs(V) <= Band || Band == 0 ? colour(0) : colour(1)) << "\"><title>"
       << escape(Labels[I]) << ": " << tick(V) << ' ' << escape(Unit) << "</title></rect>\n";
  }
  OS << "<line x1=\"" << num(Mid) << "\" y1=\"" << Top - 4 << "\" x2=\"" << num(Mid)
     << "\" y2=\"" << num(H - 24) << "\" stroke=\"#444\"/>\n<text x=\"" << num(Mid) << "\" y=\""
     << num(H - 8) << "\" text-anchor=\"middle\">" << escape(Unit) << " (axis +-" << tick(Lim)
     << ")</text>\n</svg>\n";
  return S;
}

std::string stackedBars(const std::string &Title, const std::vector<std::string> &Labels,
                        const std::vector<std::string> &Parts,
                        const std::vector<std::vector<double>> &Values) {
  double RowH = 16, H = Top + RowH * Labels.size() + 40, X0 = Left + 160;
  double Span = Width - Right - X0;
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Width << "\" height=\"" << H
     << "\" viewBox=\"0 0 " << Width << ' ' << H
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n<title>" << escape(Title)
     << "</title>\n<text x=\"" << Width / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">"
     << escape(Title) << "</text>\n";
  for (size_t I = 0; I < Labels.size(); ++I) {
    double Y = Top + I * RowH, Total = 0;
    for (double V : Values[I])
      Total += std::isfinite(V) && V > 0 ? V : 0;
    OS << "<text x=\"" << X0 - 10 << "\" y=\"" << num(Y + 11) << "\" text-anchor=\"end\">"
       << escape(Labels[I]) << "</text>\n";
    double X = X0;
    for (size_t P = 0; P < Values[I].size() && P < Parts.size() && Total > 0; ++P) {
      double V = std::isfinite(Values[I][P]) && Values[I][P] > 0 ? Values[I][P] : 0;
      double W = V / Total * Span;
      OS << "<rect x=\"" << num(X) << "\" y=\"" << num(Y + 2) << "\" width=\"" << num(W)
         << "\" height=\"" << RowH - 4 << "\" fill=\"" << colour(P) << "\"><title>"
         << escape(Labels[I]) << ": " << escape(Parts[P]) << ' ' << tick(V)
         << "</title></rect>\n";
      X += W;
    }
  }
  double Y = Top + Labels.size() * RowH + 16, X = X0;
  for (size_t P = 0; P < Parts.size(); ++P) {
    OS << "<rect x=\"" << num(X) << "\" y=\"" << num(Y - 9) << "\" width=\"10\" height=\"10\" fill=\""
       << colour(P) << "\"/><text x=\"" << num(X + 13) << "\" y=\"" << num(Y) << "\">"
       << escape(Parts[P]) << "</text>\n";
    X += 14 + 7 * Parts[P].size();
  }
  OS << "</svg>\n";
  return S;
}

} // namespace tandem::models::svg
