//===- Frontend.cpp - CUDA C / LLVM IR in, one LLVM module out ------------===//
//
// Input: a path to a .cu, .ll or .bc file.
// Guarantees: the module's triple is nvptx-nvidia-cuda (32-bit pointers) or
// nvptx64-nvidia-cuda as asked; the math-library functions the kernels call
// are defined in it (internal linkage, so Prepare inlines and drops them);
// for .cu input, instructions carry source lines (-gline-tables-only) so
// later stages can name them. Nothing is optimized here.
//
//===----------------------------------------------------------------------===//

#include "frontend/Frontend.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

using namespace llvm;

namespace tandem::frontend {

namespace {

/// Prefix of the math library's functions (cuda/math/tandem_math.cu).
constexpr StringLiteral MathLibPrefix = "__tandem_";

StringRef tripleFor(bool Use32BitPointers) {
  return Use32BitPointers ? "nvptx-nvidia-cuda" : "nvptx64-nvidia-cuda";
}

/// An environment override, else the compiled-in default.
std::string pathFromEnv(const char *Var, StringRef Default) {
  if (std::optional<std::string> V = sys::Process::GetEnv(Var); V && !V->empty())
    return *V;
  return Default.str();
}

/// The first of \p Candidates that exists (the build tree before the
/// install prefix), or the last one, for the error message.
std::string firstExisting(std::initializer_list<StringRef> Candidates) {
  for (StringRef C : Candidates)
    if (sys::fs::exists(C))
      return C.str();
  return std::data(Candidates)[Candidates.size() - 1].str();
}

std::string cudaHeaderPath() {
  std::string Dir = pathFromEnv("TANDEM_CUDA_INCLUDE_DIR", "");
  SmallString<256> Path(Dir.empty() ? firstExisting({TANDEM_SOURCE_CUDA_DIR,
                                                     TANDEM_INSTALL_CUDA_DIR})
                                    : Dir);
  sys::path::append(Path, "tandem_cuda.h");
  return std::string(Path);
}

std::string mathLibraryPath(bool Use32BitPointers) {
  std::string Dir = pathFromEnv("TANDEM_MATHLIB_DIR", "");
  SmallString<256> Path(Dir.empty() ? firstExisting({TANDEM_BUILD_MATHLIB_DIR,
                                                     TANDEM_INSTALL_MATHLIB_DIR})
                                    : Dir);
  sys::path::append(Path, Use32BitPointers ? "tandem_math.nvptx.bc" : "tandem_math.nvptx64.bc");
  return std::string(Path);
}

Expected<std::string> findClang() {
  std::string Clang = pathFromEnv("TANDEM_CLANG", TANDEM_DEFAULT_CLANG);
  if (!sys::fs::can_execute(Clang))
    return createStringError(formatv(
        "cannot run clang at '{0}', which compiles .cu files; install clang-19 or set "
        "TANDEM_CLANG to its path",
        Clang));
  return Clang;
}

/// A temporary file that is removed when this goes out of scope.
struct TempFile {
  SmallString<128> Path;
  std::optional<FileRemover> Remover;
};

Error makeTempFile(StringRef Prefix, StringRef Suffix, TempFile &T) {
  if (std::error_code EC = sys::fs::createTemporaryFile(Prefix, Suffix, T.Path))
    return createStringError(EC, "cannot create a temporary file: " + EC.message());
  T.Remover.emplace(T.Path);
  return Error::success();
}

std::vector<std::string> clangArguments(StringRef Clang, StringRef Source, StringRef Output,
                                        const FrontendOptions &Opts) {
  std::vector<std::string> Args = {
      Clang.str(), "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
      "--cuda-gpu-arch=" + Opts.Arch, Opts.Use32BitPointers ? "-m32" : "-m64",
      "-O" + std::to_string(Opts.OptLevel),
      // Our pipeline (isel/Prepare) optimizes, not clang's; and -O0 must
      // not mark every function optnone, or nothing could be inlined.
      "-Xclang", "-disable-llvm-passes", "-Xclang", "-disable-O0-optnone",
      // Source lines for diagnostics in later stages; parameter and value
      // names for listings, .param lines and `tandem run` messages.
      "-gline-tables-only", "-fno-discard-value-names",
      // clang-19 knows CUDA up to 12.3 and warns about newer toolkits.
      "-Wno-unknown-cuda-version", "-include", cudaHeaderPath()};
  Args.insert(Args.end(), Opts.ExtraClangArgs.begin(), Opts.ExtraClangArgs.end());
  Args.insert(Args.end(), {"-emit-llvm", "-c", Source.str(), "-o", Output.str()});
  return Args;
}

Expected<std::unique_ptr<Module>> parseIR(StringRef Path, LLVMContext &Ctx) {
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(Path, Diag, Ctx);
  if (!M) {
    std::string Text;
    raw_string_ostream OS(Text);
    Diag.print(nullptr, OS, /*ShowColors=*/false);
    return createStringError(StringRef(Text).rtrim());
  }
  return M;
}

Expected<std::unique_ptr<Module>> compileCuda(StringRef Path, LLVMContext &Ctx,
                                              const FrontendOptions &Opts) {
  Expected<std::string> Clang = findClang();
  if (!Clang)
    return Clang.takeError();
  TempFile Bitcode, Diagnostics;
  if (Error E = makeTempFile("tandem-fe", "bc", Bitcode))
    return E;
  if (Error E = makeTempFile("tandem-fe", "txt", Diagnostics))
    return E;

  std::vector<std::string> Args = clangArguments(*Clang, Path, Bitcode.Path, Opts);
  std::vector<StringRef> ArgRefs(Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Diagnostics.Path),
                                          StringRef(Diagnostics.Path)};
  std::string ExecError;
  int RC = sys::ExecuteAndWait(*Clang, ArgRefs, /*Env=*/std::nullopt, Redirects,
                               /*SecondsToWait=*/0, /*MemoryLimit=*/0, &ExecError);
  std::string ClangOutput;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Diagnostics.Path))
    ClangOutput = (*Buf)->getBuffer().rtrim().str();
  if (RC != 0)
    return createStringError(formatv("{0}: clang failed to compile the kernel source{1}{2}{3}",
                                     Path, ExecError.empty() ? "" : " (" + ExecError + ")",
                                     ClangOutput.empty() ? "" : ":\n", ClangOutput));
  return parseIR(Bitcode.Path, Ctx);
}

/// A module built for another target or pointer size would be miscompiled
/// silently (pointer arithmetic, param offsets), so it is refused here. A
/// module without a triple (hand-written .ll) gets the one asked for.
Error checkTarget(Module &M, StringRef Path, const FrontendOptions &Opts) {
  StringRef Wanted = tripleFor(Opts.Use32BitPointers);
  if (M.getTargetTriple().empty()) {
    M.setTargetTriple(Wanted);
    if (M.getDataLayoutStr().empty())
      M.setDataLayout(Opts.Use32BitPointers
                          ? "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
                          : "e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  }
  Triple T(M.getTargetTriple());
  if (T.getArch() != Triple::nvptx && T.getArch() != Triple::nvptx64)
    return createStringError(formatv(
        "{0}: the module's target is '{1}', not NVPTX; compile CUDA device code for "
        "{2} (clang -x cuda --cuda-device-only{3})",
        Path, M.getTargetTriple(), Wanted, Opts.Use32BitPointers ? " -m32" : ""));
  unsigned PointerBits = M.getDataLayout().getPointerSizeInBits(0);
  unsigned WantedBits = Opts.Use32BitPointers ? 32 : 64;
  if (T.isArch32Bit() != Opts.Use32BitPointers || PointerBits != WantedBits)
    return createStringError(formatv(
        "{0}: the module has {1}-bit pointers (triple '{2}') but this target needs {3}-bit "
        "pointers (triple {4}); recompile the source {5}",
        Path, PointerBits, M.getTargetTriple(), WantedBits, Wanted,
        Opts.Use32BitPointers ? "with clang -m32" : "without -m32"));
  return Error::success();
}

bool callsMathLibrary(const Module &M) {
  for (const Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with(MathLibPrefix))
      return true;
  return false;
}

/// Links the math-library functions \p M declares, and internalizes them:
/// a kernel image exports kernels only, and internal functions are what
/// the inliner deletes once inlined.
Error linkMathLibrary(Module &M, const FrontendOptions &Opts) {
  if (!callsMathLibrary(M))
    return Error::success();
  std::string LibPath = mathLibraryPath(Opts.Use32BitPointers);
  if (!sys::fs::exists(LibPath))
    return createStringError(formatv(
        "the device math library '{0}' is missing (the kernel calls a math function); build "
        "the tandem_mathlib target or set TANDEM_MATHLIB_DIR",
        LibPath));
  Expected<std::unique_ptr<Module>> Lib = parseIR(LibPath, M.getContext());
  if (!Lib)
    return Lib.takeError();
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(M.getDataLayout());
  if (Linker::linkModules(M, std::move(*Lib), Linker::Flags::LinkOnlyNeeded))
    return createStringError(formatv("cannot link the device math library '{0}'", LibPath));
  for (Function &F : M)
    if (!F.isDeclaration() && F.getName().starts_with(MathLibPrefix))
      F.setLinkage(GlobalValue::InternalLinkage);
  for (Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with(MathLibPrefix) && !F.use_empty())
      return createStringError(formatv(
          "'{0}' is not in the device math library '{1}' (cuda/math/tandem_math.cu)",
          F.getName(), LibPath));
  return Error::success();
}

bool isKernelAnnotation(const MDNode *Op, const Function *&F) {
  if (!Op || Op->getNumOperands() < 3)
    return false;
  auto *Name = dyn_cast<MDString>(Op->getOperand(1));
  auto *Value = mdconst::dyn_extract_or_null<ConstantInt>(Op->getOperand(2));
  auto *Fn = mdconst::dyn_extract_or_null<Function>(Op->getOperand(0));
  if (!Name || Name->getString() != "kernel" || !Value || Value->isZero() || !Fn)
    return false;
  F = Fn;
  return true;
}

std::string demangledBaseName(StringRef Mangled) {
  // The demangler keeps pointers into its input: the string must outlive it.
  std::string Input = Mangled.str();
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Input.c_str()))
    return Mangled.str(); // extern "C" or not Itanium-mangled
  size_t Size = 0;
  char *Base = D.getFunctionBaseName(nullptr, &Size);
  if (!Base)
    return Mangled.str();
  std::string Result(Base);
  std::free(Base);
  return Result;
}

} // namespace

Expected<std::unique_ptr<Module>> loadKernelSource(StringRef Path, LLVMContext &Ctx,
                                                   const FrontendOptions &Opts) {
  if (!sys::fs::exists(Path))
    return createStringError(formatv("{0}: no such file", Path));
  if (Opts.OptLevel > 3)
    return createStringError(formatv("-O{0}: the levels are -O0 to -O3", Opts.OptLevel));
  std::string Ext = sys::path::extension(Path).lower();
  Expected<std::unique_ptr<Module>> M = createStringError("");
  consumeError(M.takeError());
  if (Ext == ".cu")
    M = compileCuda(Path, Ctx, Opts);
  else if (Ext == ".ll" || Ext == ".bc")
    M = parseIR(Path, Ctx);
  else
    return createStringError(formatv(
        "{0}: unknown kind of input '{1}'; give CUDA C (.cu), LLVM IR text (.ll) or "
        "bitcode (.bc)",
        Path, Ext));
  if (!M)
    return M.takeError();
  if (Error E = checkTarget(**M, Path, Opts))
    return E;
  if (Error E = linkMathLibrary(**M, Opts))
    return E;
  return M;
}

std::vector<Function *> kernelsOf(Module &M) {
  SmallPtrSet<const Function *, 8> Annotated;
  if (NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations"))
    for (const MDNode *Op : Annotations->operands())
      if (const Function *F = nullptr; isKernelAnnotation(Op, F))
        Annotated.insert(F);
  std::vector<Function *> Kernels;
  for (Function &F : M)
    if (!F.isDeclaration() &&
        (Annotated.contains(&F) || F.getCallingConv() == CallingConv::PTX_Kernel))
      Kernels.push_back(&F);
  return Kernels;
}

std::string kernelDisplayName(const Function &Kernel) {
  std::string Base = demangledBaseName(Kernel.getName());
  const Module *M = Kernel.getParent();
  if (!M)
    return Base;
  for (Function *Other : kernelsOf(const_cast<Module &>(*M)))
    if (Other != &Kernel && demangledBaseName(Other->getName()) == Base)
      return Kernel.getName().str(); // overloaded kernels: keep them apart
  return Base;
}

} // namespace tandem::frontend
