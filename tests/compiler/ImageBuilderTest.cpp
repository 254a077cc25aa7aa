//===- ImageBuilderTest.cpp - the direct image equals the assembled listing ===//
//
// `--emit obj` encodes allocated MIR straight into the image
// (emit/ImageBuilder.h); `--emit asm` prints a listing and assembles it. The
// two must make the same bytes: every suite kernel (microbench/kernels/*.cu,
// const_conv included for its __constant__ data) at -O0 and -O2, and
// hand-built MIR for the corners the suite may not reach (names the printer
// sanitizes, li of every size, branches both ways and to the kernel's end,
// two kernels in one image). Both images go through writeImage and are
// compared byte for byte; a mismatch names the first differing kernel field
// or code word, disassembled.
//
//===----------------------------------------------------------------------===//

#include "SuiteKernels.h"
#include "emit/ImageBuilder.h"
#include "emit/SimtAsmPrinter.h"

#include "Assembler.h"
#include "ISA.h"
#include "compiler/Compiler.h"
#include "isel/MIR.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace llvm;
using namespace tandem;

namespace {

std::string describeWord(uint32_t Word, uint32_t PC) {
  std::optional<simt::DecodedInst> D = simt::decode(Word);
  return formatv("{0:x8} ({1})", Word, D ? simt::formatInst(*D, PC) : std::string("illegal")).str();
}

/// Field-by-field first, so a failure says what differs; then the bytes
/// writeImage makes, which is what "identical" means.
void expectSameImage(const KernelImage &Direct, const KernelImage &Assembled) {
  ASSERT_EQ(Direct.Kernels.size(), Assembled.Kernels.size());
  for (size_t K = 0; K < Direct.Kernels.size(); ++K) {
    const KernelInfo &D = Direct.Kernels[K], &A = Assembled.Kernels[K];
    SCOPED_TRACE("kernel " + A.Name);
    EXPECT_EQ(D.Name, A.Name);
    EXPECT_EQ(D.EntryOffset, A.EntryOffset);
    EXPECT_EQ(D.CodeBytes, A.CodeBytes);
    EXPECT_EQ(D.SharedBytes, A.SharedBytes);
    EXPECT_EQ(D.LocalBytes, A.LocalBytes);
    EXPECT_EQ(D.RegistersUsed, A.RegistersUsed);
    ASSERT_EQ(D.Params.size(), A.Params.size());
    for (size_t P = 0; P < D.Params.size(); ++P) {
      EXPECT_EQ(D.Params[P].Name, A.Params[P].Name);
      EXPECT_EQ(D.Params[P].Kind, A.Params[P].Kind);
      EXPECT_EQ(D.Params[P].Offset, A.Params[P].Offset);
      EXPECT_EQ(D.Params[P].Size, A.Params[P].Size);
    }
  }
  EXPECT_EQ(Direct.Code.size(), Assembled.Code.size());
  for (size_t W = 0; W < std::min(Direct.Code.size(), Assembled.Code.size()); ++W)
    if (Direct.Code[W] != Assembled.Code[W]) {
      uint32_t PC = static_cast<uint32_t>(4 * W);
      ADD_FAILURE() << "first differing code word at byte " << PC
                    << ": direct " << describeWord(Direct.Code[W], PC) << ", assembled "
                    << describeWord(Assembled.Code[W], PC);
      break;
    }
  EXPECT_EQ(Direct.Const, Assembled.Const);
  EXPECT_EQ(Direct.Data, Assembled.Data);
  EXPECT_EQ(Direct.DataBaseSlot, Assembled.DataBaseSlot);

  Expected<std::vector<uint8_t>> DirectBytes = writeImage(Direct);
  Expected<std::vector<uint8_t>> AssembledBytes = writeImage(Assembled);
  ASSERT_TRUE(!!DirectBytes) << toString(DirectBytes.takeError());
  ASSERT_TRUE(!!AssembledBytes) << toString(AssembledBytes.takeError());
  EXPECT_TRUE(*DirectBytes == *AssembledBytes) << "the serialized images differ";
}

//===----------------------------------------------------------------------===//
// Every suite kernel, through the whole compiler
//===----------------------------------------------------------------------===//

KernelImage compiledImage(const std::string &File, unsigned OptLevel,
                          compiler::EmitKind Emit) {
  compiler::CompileOptions Opts;
  Opts.OptLevel = OptLevel;
  Opts.Emit = Emit;
  Expected<compiler::CompileResult> R = compiler::compileFile(File, Opts);
  if (!R) {
    ADD_FAILURE() << toString(R.takeError());
    return {};
  }
  if (!R->Image) {
    ADD_FAILURE() << "no image";
    return {};
  }
  // --emit obj writes no listing: the point is not to print one.
  if (Emit == compiler::EmitKind::Obj) {
    EXPECT_TRUE(R->Text.empty());
  }
  return std::move(*R->Image);
}

TEST(ImageBuilderTest, EverySuiteKernelMatchesItsAssembledListing) {
  std::vector<std::string> Files = tandem::testing::suiteKernels();
  ASSERT_GE(Files.size(), 10u) << "the kernel suite went missing";
  // __device__ variables: the data section and its base word.
  Files.push_back(std::string(TANDEM_SOURCE_DIR) + "/tests/suite/kernels/device_globals.cu");
  bool SawConstData = false, SawData = false;
  for (const std::string &File : Files)
    for (unsigned OptLevel : {0u, 2u}) {
      SCOPED_TRACE(formatv("{0} at -O{1}", sys::path::filename(File), OptLevel).str());
      KernelImage Direct = compiledImage(File, OptLevel, compiler::EmitKind::Obj);
      KernelImage Assembled = compiledImage(File, OptLevel, compiler::EmitKind::Asm);
      ASSERT_FALSE(Assembled.Kernels.empty());
      SawConstData |= !Assembled.Const.empty();
      SawData |= !Assembled.Data.empty();
      expectSameImage(Direct, Assembled);
      if (HasFatalFailure())
        return;
    }
  // const_conv's __constant__ filter: the const section path was compared.
  EXPECT_TRUE(SawConstData) << "no suite kernel has __constant__ data any more";
  EXPECT_TRUE(SawData) << "device_globals.cu has no __device__ data any more";
}

//===----------------------------------------------------------------------===//
// Hand-built MIR: corners the suite may not reach
//===----------------------------------------------------------------------===//

unsigned op(simt::Opcode O) { return static_cast<unsigned>(O); }

KernelImage assembledListing(ArrayRef<const mir::Function *> Fns) {
  std::string Text;
  raw_string_ostream OS(Text);
  for (const mir::Function *Fn : Fns)
    emit::printSimtAsm(OS, *Fn);
  Expected<KernelImage> Img = assemble(Text, "listing.s");
  if (!Img) {
    ADD_FAILURE() << toString(Img.takeError()) << "\n--- listing ---\n" << Text;
    return {};
  }
  return std::move(*Img);
}

KernelImage builtDirectly(ArrayRef<const mir::Function *> Fns) {
  emit::SimtImageBuilder B;
  for (const mir::Function *Fn : Fns)
    if (Error E = B.addKernel(*Fn)) {
      ADD_FAILURE() << toString(std::move(E));
      return {};
    }
  Expected<KernelImage> Img = B.take();
  if (!Img) {
    ADD_FAILURE() << toString(Img.takeError());
    return {};
  }
  return std::move(*Img);
}

/// A kernel whose names need sanitizing, with li of every size (one word,
/// the movi range's edges, two words, negative, all ones), a forward and a
/// backward branch, a branch to an empty last block (the kernel's end), an
/// IMPLICIT_DEF, a copy, a special register and a parameter load.
mir::Function cornerKernel(std::string Name) {
  mir::Function Fn;
  Fn.Name = std::move(Name);
  Fn.Params = {{"", mir::ParamKind::F32, 0},
               {"x.addr", mir::ParamKind::S32, 4},
               {"x_addr", mir::ParamKind::U32, 8},
               {"9p", mir::ParamKind::Pointer, 12}};
  Fn.SharedBytes = 128;
  Fn.LocalBytes = 12;
  mir::Block *Entry = Fn.addBlock("entry");
  mir::Block *Loop = Fn.addBlock("loop$1");
  mir::Block *Exit = Fn.addBlock("exit");
  mir::Block *End = Fn.addBlock("end");
  using mir::Operand;
  auto &E = Entry->Insts;
  E.push_back(mir::Inst(op(simt::Opcode::S2R), {Operand::def(9), Operand::imm(0)}));
  for (int64_t V : {5ll, -131072ll, 131071ll, 131072ll, -131073ll, 0x12345678ll, -1ll,
                    4294967295ll, -2147483648ll, 0xfffe0000ll})
    E.push_back(mir::Inst(mir::LI, {Operand::def(2), Operand::imm(V)}));
  E.push_back(mir::Inst(op(simt::Opcode::PARAM_LD_U32),
                        {Operand::def(4), Operand::use(0), Operand::imm(12)}));
  E.push_back(mir::Inst(mir::IMPLICIT_DEF, {Operand::def(40)}));
  E.push_back(mir::Inst(op(simt::Opcode::BZ), {Operand::use(9), Operand::block(End)}));
  auto &L = Loop->Insts;
  L.push_back(mir::Inst(mir::COPY, {Operand::def(17), Operand::use(4)}));
  L.push_back(mir::Inst(op(simt::Opcode::GLOBAL_LD_U32),
                        {Operand::def(5), Operand::use(17), Operand::imm(-8)}));
  L.push_back(mir::Inst(op(simt::Opcode::BNZ), {Operand::use(5), Operand::block(Loop)}));
  Exit->Insts.push_back(mir::Inst(op(simt::Opcode::BRA), {Operand::block(End)}));
  Exit->Insts.push_back(mir::Inst(op(simt::Opcode::EXIT), {}));
  return Fn;
}

TEST(ImageBuilderTest, HandBuiltCornersMatchTheAssembledListing) {
  mir::Function A = cornerKernel("k.clone");
  mir::Function B = cornerKernel("2nd");
  std::vector<const mir::Function *> Fns = {&A, &B};
  KernelImage Assembled = assembledListing(Fns);
  KernelImage Direct = builtDirectly(Fns);
  ASSERT_EQ(Assembled.Kernels.size(), 2u);
  EXPECT_EQ(Assembled.Kernels[1].Name, "_2nd");
  EXPECT_EQ(Assembled.Kernels[0].Params[2].Name, "x_addr_2");
  EXPECT_EQ(Assembled.Kernels[0].RegistersUsed, 18u); // r17; IMPLICIT_DEF r40 is a comment
  expectSameImage(Direct, Assembled);
  // The listing's instruction count (and --stats) uses the same one-movi
  // rule (simt::fitsOneMovi): li 4294967295 and li 0xfffe0000 are one word
  // each, as their 32-bit patterns -1 and -131072 fit movi.
  EXPECT_EQ(emit::simtCodeWords(A) * 4, Assembled.Kernels[0].CodeBytes);
  EXPECT_EQ(emit::simtCodeWords(B) * 4, Assembled.Kernels[1].CodeBytes);
}

TEST(ImageBuilderTest, ConstSectionIsPaddedToWholeWords) {
  mir::Function A = cornerKernel("k");
  emit::SimtImageBuilder B;
  if (Error E = B.addKernel(A))
    FAIL() << toString(std::move(E));
  const uint8_t Bytes[] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66};
  B.setConstSection(Bytes);
  Expected<KernelImage> Img = B.take();
  ASSERT_TRUE(!!Img) << toString(Img.takeError());
  EXPECT_EQ(Img->Const, (std::vector<uint8_t>{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0, 0}));
}

TEST(ImageBuilderTest, UnallocatedOrUnloweredMirIsAnErrorNamingTheInstruction) {
  mir::Function Virtual = cornerKernel("virt");
  Virtual.Blocks[1]->Insts[0].Ops[1] = mir::Operand::use(mir::VirtRegBase + 3);
  emit::SimtImageBuilder B1;
  Error E1 = B1.addKernel(Virtual);
  ASSERT_TRUE(!!E1);
  std::string M1 = toString(std::move(E1));
  EXPECT_NE(M1.find("kernel 'virt', block 'loop$1', instruction 0"), std::string::npos) << M1;
  EXPECT_NE(M1.find("physical register"), std::string::npos) << M1;

  mir::Function Unlowered = cornerKernel("ret");
  Unlowered.Blocks[2]->Insts.back() = mir::Inst(mir::RET, {});
  emit::SimtImageBuilder B2;
  Error E2 = B2.addKernel(Unlowered);
  ASSERT_TRUE(!!E2);
  std::string M2 = toString(std::move(E2));
  EXPECT_NE(M2.find("block 'exit', instruction 1"), std::string::npos) << M2;

  mir::Function Far = cornerKernel("far");
  Far.Blocks[0]->Insts[1].Ops[1] = mir::Operand::imm(int64_t(1) << 33);
  emit::SimtImageBuilder B3;
  Error E3 = B3.addKernel(Far);
  ASSERT_TRUE(!!E3);
  std::string M3 = toString(std::move(E3));
  EXPECT_NE(M3.find("out of range"), std::string::npos) << M3;
}

TEST(ImageBuilderTest, DuplicateKernelNamesAreRefused) {
  mir::Function A = cornerKernel("k.x");
  mir::Function B = cornerKernel("k_x"); // the same once sanitized
  emit::SimtImageBuilder Builder;
  if (Error E = Builder.addKernel(A))
    FAIL() << toString(std::move(E));
  Error E = Builder.addKernel(B);
  ASSERT_TRUE(!!E);
  EXPECT_NE(toString(std::move(E)).find("two kernels are named 'k_x'"), std::string::npos);
}

} // namespace
