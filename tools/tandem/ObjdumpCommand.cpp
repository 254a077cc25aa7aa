//===- ObjdumpCommand.cpp - `tandem objdump FILE` -------------------------===//
//
// Lists a kernel image in the habits of llvm-objdump: header, kernel table,
// each kernel's disassembly, the const section as a hex dump. FILE may also
// be assembly (anything that does not start with the image magic and whose
// name ends in .s, .S or .asm): it is assembled in memory first, so
// `tandem objdump prog.s` shows what `tandem as` would write. With --source
// the output is assembly that reassembles to the same image.
//
// The image is untrusted: readImage validates it before anything is printed.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "Assembler.h"
#include "Disassembler.h"
#include "tandem/KernelImage.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace llvm;

namespace tandem::cli {
namespace {

void printObjdumpHelp(raw_ostream &OS) {
  OS << "OVERVIEW: list a SIMT kernel image: kernel table, disassembly, "
        "const data\n\n"
        "USAGE: tandem objdump [--source] FILE\n\n"
        "FILE is a kernel image, or an assembly file (.s, .S, .asm) that is "
        "assembled first.\n\n"
        "OPTIONS:\n"
        "  --source    print assembly that 'tandem as' turns back into the "
        "same image\n"
        "  -h, --help  print this help\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem objdump: error: " << Msg
         << "\nRun 'tandem objdump --help' for usage.\n";
  return 2;
}

bool startsWithImageMagic(StringRef Bytes) {
  if (Bytes.size() < 4)
    return false;
  uint32_t Magic = 0;
  for (unsigned B = 0; B < 4; ++B)
    Magic |= uint32_t(uint8_t(Bytes[B])) << (8 * B);
  return Magic == KernelImageMagic;
}

bool looksLikeAssemblyName(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return Ext == ".s" || Ext == ".S" || Ext == ".asm";
}

bool isAssembly(StringRef Bytes, StringRef Path) {
  return !startsWithImageMagic(Bytes) && looksLikeAssemblyName(Path);
}

} // namespace

int objdumpCommand(int Argc, char **Argv) {
  std::string Input;
  bool Source = false;
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    StringRef Arg = Args.arg();
    if (Args.flag("--help") || Args.flag("-h")) {
      printObjdumpHelp(outs());
      return 0;
    }
    if (Args.flag("--source")) {
      Source = true;
    } else if (!Args.isPositional()) {
      return usageError("unknown option '" + Arg + "'");
    } else if (Input.empty()) {
      Input = Arg.str();
    } else {
      return usageError("more than one input file ('" + Input + "', '" + Arg +
                        "')");
    }
  }
  if (Input.empty())
    return usageError("no input file");

  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(
      Input, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf) {
    errs() << "tandem objdump: error: cannot read '" << Input
           << "': " << Buf.getError().message() << "\n";
    return 1;
  }
  StringRef Bytes = (*Buf)->getBuffer();
  bool Assembly = isAssembly(Bytes, Input);
  Expected<KernelImage> Img =
      Assembly ? assemble(Bytes, Input)
               : readImage(arrayRefFromStringRef(Bytes), Input);
  if (!Img) {
    // Assembler diagnostics carry their own FILE:LINE:COL: error: prefix.
    if (!Assembly)
      errs() << "tandem objdump: error: ";
    errs() << toString(Img.takeError()) << "\n";
    return 1;
  }
  if (Source) {
    printImageAsAssembly(*Img, outs());
    return 0;
  }
  outs() << Input << ":\tfile format tandem-simt-image (version "
         << KernelImageVersion << ")\n\n";
  disassembleImage(*Img, outs());
  return 0;
}

} // namespace tandem::cli
