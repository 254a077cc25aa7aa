//===- ProfileCommand.cpp - `tandem profile`: measure a device profile ----===//
//
//   tandem profile [--device iss|rtl] [--config CFG.json] [-o profile.json]
//                  [--quick] [--only NAME[,NAME]] [--list]
//
// Runs the microbenchmarks (microbench/Profile.h, docs/Profile.md) on one
// device and prints one line per probe (value and unit) and the sweeps; -o
// writes the profile as JSON ("-" for standard output, then nothing else is
// printed there). Exit status: 0 success, 1 failure (compile error, fault,
// unwritable file), 2 usage error.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "Profile.h"
#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>
#include <vector>

using namespace llvm;

namespace tandem::cli {
namespace {

void printProfileHelp(raw_ostream &OS) {
  OS << "OVERVIEW: run the microbenchmarks on a device and print its profile\n\n"
        "USAGE: tandem profile [options]\n\n"
        "OPTIONS:\n"
        "  --device NAME   iss or rtl (default: rtl); gpu is not built yet\n"
        "  --config FILE   accelerator configuration (default: configs/default.json)\n"
        "  -o FILE         write the profile as JSON to FILE ('-': standard output)\n"
        "  --quick         a subset with smaller sweeps (under 30 s on rtl)\n"
        "  --only NAMES    only these probes (comma-separated; see --list)\n"
        "  --list          list the probes and what each measures, then exit\n"
        "  -h, --help      print this help\n\n"
        "On rtl values are in core cycles (differential runs of n and 2n trips);\n"
        "on iss, a functional simulator, in warp instructions (docs/Profile.md).\n";
}

struct Options {
  std::string Device = "rtl";
  std::string ConfigPath;
  std::string Output;
  bool Quick = false;
  bool List = false;
  std::vector<std::string> Only;
};

int usage(const Twine &Msg) {
  errs() << "tandem profile: error: " << Msg << "\nRun 'tandem profile --help' for the options.\n";
  return 2;
}

void printTable(raw_ostream &OS, const json::Object &P) {
  OS << "device " << P.getString("device").value_or("?") << ", metric "
     << P.getString("metric").value_or("?") << "\n";
  if (const json::Object *Probes = P.getObject("probes"))
    for (const profile::ProbeInfo &I : profile::probeInfos())
      if (const json::Object *R = Probes->getObject(I.Name))
        OS << "  " << left_justify(I.Name, 27) << " "
           << format("%12.3f", R->getNumber("value").value_or(0)) << "  "
           << R->getString("unit").value_or("") << "\n";
  if (const json::Object *Sweeps = P.getObject("sweeps"))
    for (StringRef Name : {"shared_bank_stride", "global_stride"})
      if (const json::Array *Rows = Sweeps->getArray(Name)) {
        OS << "  " << Name << ":";
        for (const json::Value &V : *Rows)
          if (const json::Object *Row = V.getAsObject()) {
            OS << " " << Row->getInteger("stride").value_or(0) << "="
               << format("%.2f", Row->getNumber("value").value_or(0));
            if (auto Extra = Row->getNumber("conflict_cycles_per_load"))
              OS << format(" (+%.1f)", *Extra);
            if (auto Extra = Row->getNumber("requests_per_load"))
              OS << format(" (%.0f req)", *Extra);
          }
        OS << "\n";
      }
}

} // namespace

int profileCommand(int Argc, char **Argv) {
  Options O;
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    if (Args.flag("-h") || Args.flag("--help")) {
      printProfileHelp(outs());
      return 0;
    } else if (Args.option("--device")) {
      if (!Args.valueInto(O.Device))
        return usage("--device needs a name (iss or rtl)");
    } else if (Args.option("--config")) {
      if (!Args.valueInto(O.ConfigPath))
        return usage("--config needs a file");
    } else if (Args.shortOption("-o")) {
      std::optional<StringRef> V = Args.shortValue("-o");
      if (!V || V->empty())
        return usage("-o needs a file ('-' for standard output)");
      O.Output = V->str();
    } else if (Args.flag("--quick")) {
      O.Quick = true;
    } else if (Args.option("--only")) {
      std::string Names;
      if (!Args.valueInto(Names))
        return usage("--only needs probe names (see --list)");
      SmallVector<StringRef> Parts;
      StringRef(Names).split(Parts, ',', -1, false);
      for (StringRef P : Parts)
        O.Only.push_back(P.str());
    } else if (Args.flag("--list")) {
      O.List = true;
    } else {
      return usage("unknown option '" + Args.arg() + "'");
    }
  }
  if (O.List) {
    for (const profile::ProbeInfo &I : profile::probeInfos())
      outs() << left_justify(I.Name, 27) << " " << left_justify(I.Unit, 17) << " "
             << (I.Quick ? "quick " : "      ") << I.What << "\n";
    return 0;
  }
  if (O.Device != "iss" && O.Device != "rtl")
    return usage("--device " + O.Device +
                 ": the profile runs on iss or rtl (the gpu profile is measured by the GPU runner, "
                 "scripts/gpu-check.sh: docs/GPU.md)");

  Expected<AcceleratorConfig> Config =
      loadConfig(O.ConfigPath.empty() ? defaultConfigPath() : O.ConfigPath);
  if (!Config) {
    errs() << "tandem profile: error: " << toString(Config.takeError()) << "\n";
    return 1;
  }
  DeviceOptions DO;
  DO.Config = *Config;
  Expected<std::unique_ptr<Device>> Dev = openDevice(O.Device, DO);
  if (!Dev) {
    errs() << "tandem profile: error: " << toString(Dev.takeError()) << "\n";
    return 1;
  }
  auto Start = std::chrono::steady_clock::now();
  profile::ProfileOptions PO;
  PO.Quick = O.Quick;
  PO.Only = O.Only;
  Expected<json::Object> Profile = profile::measureProfile(**Dev, *Config, PO);
  if (!Profile) {
    errs() << "tandem profile: error: " << toString(Profile.takeError()) << "\n";
    return 1;
  }
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();

  if (!O.Output.empty()) {
    std::error_code EC;
    ToolOutputFile Out(O.Output, EC, sys::fs::OF_Text);
    if (EC) {
      errs() << "tandem profile: error: cannot write '" << O.Output << "': " << EC.message() << "\n";
      return 1;
    }
    Out.os() << formatv("{0:2}", json::Value(json::Object(*Profile))) << "\n";
    Out.keep();
  }
  raw_ostream &OS = O.Output == "-" ? errs() : outs();
  printTable(OS, *Profile);
  OS << format("profile: %zu probes on %s in %.1f s\n",
               Profile->getObject("probes") ? Profile->getObject("probes")->size() : size_t(0),
               O.Device.c_str(), Seconds);
  return 0;
}

} // namespace tandem::cli
