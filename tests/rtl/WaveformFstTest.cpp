//===- WaveformFstTest.cpp - The rtl device's waveform as FST -------------===//
//
// DeviceOptions::WaveformAsFst (`tandem run --fst`): the FST of a launch,
// read back through GTKWave's own reader (fstapi, as Verilator ships it)
// and written out as VCD by it, holds every variable of the VCD of the same
// launch with the same width and the same values at the same times
// (compared by full name, so the two files' ids may differ). The converter
// on its own: vectors written short are extended as VCD says, ids shared
// by two variables become FST aliases, and a malformed VCD is an error
// naming its line that leaves no FST behind.
//
//===----------------------------------------------------------------------===//

#include "SeeingInsideKernel.h"
#include "VcdToFst.h"

#include "tandem/Runtime.h"

#include "fstapi.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>

using namespace tandem;
using namespace llvm;

namespace {

using namespace tandem::testing::seeing_inside;

/// A VCD as the test reads it, independently of the converter: each
/// variable by its full name (scopes, name and range), its width, and its
/// values in time order (a value equal to the one before is no change).
struct Waveform {
  std::map<std::string, unsigned> Widths;
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> Values;
};

Waveform readVcd(const std::string &Text) {
  Waveform W;
  std::istringstream In(Text);
  std::map<std::string, std::vector<std::string>> NamesOfId;
  std::map<std::string, unsigned> WidthOfId;
  std::vector<std::string> Scopes;
  std::string T;
  auto SkipToEnd = [&] {
    std::string U;
    while (In >> U && U != "$end") {
    }
  };
  while (In >> T && T != "$enddefinitions") {
    if (T == "$scope") {
      std::string Type, Name;
      In >> Type >> Name;
      Scopes.push_back(Name);
      SkipToEnd();
    } else if (T == "$upscope") {
      Scopes.pop_back();
      SkipToEnd();
    } else if (T == "$var") {
      std::string Type, Id, Name, More;
      unsigned Width;
      In >> Type >> Width >> Id >> Name;
      while (In >> More && More != "$end")
        Name += " " + More;
      std::string Full;
      for (const std::string &S : Scopes)
        Full += S + ".";
      Full += Name;
      NamesOfId[Id].push_back(Full);
      WidthOfId[Id] = Width;
      W.Widths[Full] = Width;
    } else {
      SkipToEnd();
    }
  }
  SkipToEnd();
  uint64_t Time = 0;
  auto Set = [&](const std::string &Id, std::string Value) {
    unsigned Width = WidthOfId.at(Id);
    if (Value.size() < Width)
      Value.insert(0, Width - Value.size(), Value[0] == 'x' || Value[0] == 'z' ? Value[0] : '0');
    for (const std::string &Name : NamesOfId.at(Id)) {
      auto &Seq = W.Values[Name];
      if (Seq.empty() || Seq.back().second != Value)
        Seq.push_back({Time, Value});
    }
  };
  while (In >> T) {
    if (T[0] == '#') {
      Time = std::stoull(T.substr(1));
    } else if (T[0] == '$') {
      continue;
    } else if (T[0] == 'b') {
      std::string Id;
      In >> Id;
      Set(Id, T.substr(1));
    } else {
      Set(T.substr(1), T.substr(0, 1));
    }
  }
  return W;
}

/// The FST at \p Path written out as VCD by fstapi's reader.
std::string fstAsVcd(const std::string &Path) {
  void *Reader = fstReaderOpen(Path.c_str());
  if (!Reader)
    return "";
  std::string Out = tempPath("vcd");
  FILE *F = fopen(Out.c_str(), "w");
  fstReaderProcessHier(Reader, F);
  fstReaderSetFacProcessMaskAll(Reader);
  fstReaderIterBlocks(Reader, nullptr, nullptr, F);
  fclose(F);
  fstReaderClose(Reader);
  std::string Text = readFile(Out);
  sys::fs::remove(Out);
  return Text;
}

TEST(RtlWaveformFst, HoldsEveryVariableAndValueOfTheVcd) {
  DeviceOptions Vcd, Fst;
  Vcd.WaveformPath = tempPath("vcd");
  Fst.WaveformPath = tempPath("fst");
  Fst.WaveformAsFst = true;
  ASSERT_EQ(runKernel("rtl", Vcd), "");
  ASSERT_EQ(runKernel("rtl", Fst), "");
  std::string VcdText = readFile(Vcd.WaveformPath);
  uint64_t FstBytes = 0;
  EXPECT_FALSE(sys::fs::file_size(Fst.WaveformPath, FstBytes));
  std::string Back = fstAsVcd(Fst.WaveformPath);
  sys::fs::remove(Vcd.WaveformPath);
  sys::fs::remove(Fst.WaveformPath);
  ASSERT_FALSE(Back.empty()) << "fstapi cannot read the FST";
  EXPECT_LT(FstBytes * 4, VcdText.size()) << "the FST should be far smaller than the VCD";

  Waveform Want = readVcd(VcdText), Got = readVcd(Back);
  ASSERT_GT(Want.Widths.size(), 1000u) << "the VCD should name every signal of the core";
  EXPECT_EQ(Got.Widths, Want.Widths);
  ASSERT_TRUE(Want.Values.count("simt_core.simt_core.clk"));
  EXPECT_GT(Want.Values["simt_core.simt_core.clk"].size(), 100u) << "the clock should toggle";
  for (const auto &[Name, Values] : Want.Values) {
    auto It = Got.Values.find(Name);
    ASSERT_NE(It, Got.Values.end()) << Name << " has no values in the FST";
    EXPECT_EQ(It->second, Values) << Name;
  }
  EXPECT_EQ(Got.Values.size(), Want.Values.size());
}

/// Writes \p Vcd to a file and converts it; returns the error text or "".
std::string convert(const std::string &Vcd, const std::string &FstPath) {
  std::string In = tempPath("vcd");
  {
    std::error_code EC;
    raw_fd_ostream OS(In, EC);
    OS << Vcd;
  }
  Error E = tandem::rtl::convertVcdToFst(In, FstPath);
  sys::fs::remove(In);
  return E ? toString(std::move(E)) : "";
}

constexpr const char *Header = "$timescale 1ns $end\n"
                               "$scope module top $end\n"
                               "$var wire 4 ! nib [3:0] $end\n"
                               "$var wire 1 \" bit $end\n"
                               "$var wire 4 ! same [3:0] $end\n"
                               "$upscope $end\n"
                               "$enddefinitions $end\n";

TEST(RtlWaveformFst, ShortVectorsExtendAndSharedIdsBecomeAliases) {
  std::string Fst = tempPath("fst");
  ASSERT_EQ(convert(std::string(Header) + "#0\nb1 !\n0\"\n#5\nbx !\n1\"\n#9\nbz10 !\n", Fst), "");
  void *Reader = fstReaderOpen(Fst.c_str());
  ASSERT_NE(Reader, nullptr);
  std::map<std::string, std::pair<fstHandle, bool>> Vars; // name -> handle, alias
  while (fstHier *H = fstReaderIterateHier(Reader))
    if (H->htyp == FST_HT_VAR)
      Vars[H->u.var.name] = {H->u.var.handle, H->u.var.is_alias != 0};
  ASSERT_EQ(Vars.size(), 3u);
  EXPECT_FALSE(Vars["nib [3:0]"].second);
  EXPECT_TRUE(Vars["same [3:0]"].second);
  EXPECT_EQ(Vars["same [3:0]"].first, Vars["nib [3:0]"].first);
  std::vector<std::tuple<uint64_t, fstHandle, std::string>> Changes;
  fstReaderSetFacProcessMaskAll(Reader);
  fstReaderIterBlocks(
      Reader,
      [](void *User, uint64_t Time, fstHandle Handle, const unsigned char *Value) {
        static_cast<decltype(Changes) *>(User)->emplace_back(Time, Handle,
                                                             reinterpret_cast<const char *>(Value));
      },
      &Changes, nullptr);
  fstReaderClose(Reader);
  sys::fs::remove(Fst);
  fstHandle Nib = Vars["nib [3:0]"].first, Bit = Vars["bit"].first;
  std::vector<std::tuple<uint64_t, fstHandle, std::string>> Want = {
      {0, Nib, "0001"}, {0, Bit, "0"}, {5, Nib, "xxxx"}, {5, Bit, "1"}, {9, Nib, "zz10"}};
  std::sort(Changes.begin(), Changes.end());
  std::sort(Want.begin(), Want.end());
  EXPECT_EQ(Changes, Want);
}

TEST(RtlWaveformFst, AMalformedVcdIsAnErrorNamingItsLineAndLeavesNoFile) {
  std::string Fst = tempPath("fst");
  sys::fs::remove(Fst);
  struct Case {
    const char *Body, *Message;
  } Cases[] = {
      {"#0\nb1 !\n#1\nb0 ?\n", "line 11: value change of undeclared id '?'"},
      {"#0\nb10101 !\n", "line 9: vector value '10101' does not fit the 4-bit id '!'"},
      {"#0\nb102 !\n", "line 9: vector value '102' has a bit that is not 0, 1, x or z"},
      {"#0\n1!\n", "line 9: scalar value for the 4-bit id '!'"},
      {"#x\n", "line 8: bad time '#x'"},
  };
  for (const Case &C : Cases) {
    std::string Error = convert(std::string(Header) + C.Body, Fst);
    EXPECT_NE(Error.find(C.Message), std::string::npos) << Error;
    EXPECT_NE(Error.find("waveform '"), std::string::npos) << Error;
    EXPECT_FALSE(sys::fs::exists(Fst)) << C.Body;
  }
  std::string NoEnd = convert("$timescale 1ns $end\n$scope module top $end\n", Fst);
  EXPECT_NE(NoEnd.find("line 2: the file ends before $enddefinitions"), std::string::npos) << NoEnd;
  EXPECT_FALSE(sys::fs::exists(Fst));
}

} // namespace
