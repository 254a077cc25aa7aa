//===- AsCommand.cpp - `tandem as FILE.s -o FILE.img` ---------------------===//
//
// Assembles one SIMT assembly file into a kernel image, in the habits of
// llvm-mc: diagnostics as FILE:LINE:COL with the line and a caret, exit
// status 1 when the file has errors (then no image is written), 2 for a
// usage error. The image is written atomically, so a failed or interrupted
// run never leaves a partial image behind.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "Assembler.h"
#include "tandem/KernelImage.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace llvm;

namespace tandem::cli {
namespace {

void printAsHelp(raw_ostream &OS) {
  OS << "OVERVIEW: assemble SIMT assembly into a kernel image "
        "(syntax: docs/Assembly.md)\n\n"
        "USAGE: tandem as FILE.s [-o FILE.img]\n\n"
        "OPTIONS:\n"
        "  -o FILE     the image to write (default: FILE.s with the extension "
        ".img);\n"
        "              written atomically, and not at all if the source has "
        "errors\n"
        "  -h, --help  print this help\n\n"
        "FILE.s may be '-' for standard input (then -o is required).\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem as: error: " << Msg
         << "\nRun 'tandem as --help' for usage.\n";
  return 2;
}

} // namespace

int asCommand(int Argc, char **Argv) {
  std::string Input, Output;
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    StringRef Arg = Args.arg();
    if (Args.flag("--help") || Args.flag("-h")) {
      printAsHelp(outs());
      return 0;
    }
    if (Args.shortOption("-o")) {
      std::optional<StringRef> V = Args.shortValue("-o");
      if (!V || V->empty())
        return usageError("-o needs a file name");
      Output = V->str();
    } else if (!Args.isPositional()) {
      return usageError("unknown option '" + Arg + "'");
    } else if (Input.empty()) {
      Input = Arg.str();
    } else {
      return usageError("more than one input file ('" + Input + "', '" + Arg + "')");
    }
  }
  if (Input.empty())
    return usageError("no input file");
  if (Output.empty()) {
    if (Input == "-")
      return usageError("reading standard input needs -o FILE.img");
    SmallString<128> Derived(Input);
    sys::path::replace_extension(Derived, "img");
    Output = Derived.str().str();
  }

  ErrorOr<std::unique_ptr<MemoryBuffer>> Source =
      MemoryBuffer::getFileOrSTDIN(Input, /*IsText=*/true);
  if (!Source) {
    errs() << "tandem as: error: cannot read '" << Input
           << "': " << Source.getError().message() << "\n";
    return 1;
  }
  StringRef Name = Input == "-" ? StringRef("<stdin>") : StringRef(Input);
  Expected<KernelImage> Img = assemble((*Source)->getBuffer(), Name);
  if (!Img) {
    // The assembler's messages carry their own FILE:LINE:COL prefixes.
    errs() << toString(Img.takeError()) << "\n";
    return 1;
  }
  if (Error E = writeImageFile(*Img, Output)) {
    errs() << "tandem as: error: " << toString(std::move(E)) << "\n";
    return 1;
  }
  return 0;
}

} // namespace tandem::cli
