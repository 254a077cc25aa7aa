//===- AssemblerTest.cpp - SIMT assembler and disassembler ----------------===//
//
// - Round trip of every opcode (0..numOpcodes()) with random legal operands,
//   the immediate range ends included: encode -> decode -> formatInst ->
//   parseInstruction must give back the same DecodedInst and word.
// - Whole-file round trip: a generated file using every instruction, labels,
//   pseudo-instructions, parameters and const data is assembled; every word
//   is checked against the encoder, and the image printed back as assembly
//   reassembles to the identical image.
// - Kernel metadata (entry, size, params, shared, local, registers used),
//   pseudo-instruction expansion at movi's range edges, const directives.
// - Every error kind, checking the FILE:LINE:COL text, the source line and
//   the caret; all errors are reported, up to the limit of 20.
// - Disassembler listing: kernel table, label lines, illegal words, hex dump.
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"
#include "Disassembler.h"
#include "ISA.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace tandem;
using namespace tandem::simt;

namespace {

constexpr uint32_t Seed = 0x5eed1234;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Random legal operands for \p Op; \p Edge 0/1 forces the immediate range's
/// minimum/maximum, anything else draws it uniformly.
DecodedInst randomInst(Opcode Op, std::mt19937 &Rng, unsigned Edge) {
  const InstrDesc &D = getDesc(Op);
  DecodedInst I;
  I.Op = Op;
  auto [Min, Max] = immRange(Op);
  std::uniform_int_distribution<int> Reg(0, NumEncodableGPRs - 1);
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const OperandInfo &O = D.Operands[K];
    int64_t V = 0;
    switch (O.Kind) {
    case OperandKind::GPR:
      V = Reg(Rng);
      break;
    case OperandKind::SpecialReg: {
      auto Regs = specialRegs();
      V = Regs[std::uniform_int_distribution<size_t>(0, Regs.size() - 1)(Rng)]
              .Index;
      break;
    }
    case OperandKind::SImm:
    case OperandKind::UImm:
    case OperandKind::PCRel:
      V = Edge == 0   ? Min
          : Edge == 1 ? Max
                      : std::uniform_int_distribution<int64_t>(Min, Max)(Rng);
      break;
    }
    switch (O.Where) {
    case Field::Rd:
      I.Rd = uint8_t(V);
      break;
    case Field::Rs1:
      I.Rs1 = uint8_t(V);
      break;
    case Field::Rs2:
      I.Rs2 = uint8_t(V);
      break;
    case Field::Rs3:
      I.Rs3 = uint8_t(V);
      break;
    case Field::Imm:
      I.Imm = int32_t(V);
      break;
    }
  }
  return I;
}

uint32_t encodeOk(const DecodedInst &I) {
  llvm::Expected<uint32_t> W = encode(I);
  if (!W) {
    ADD_FAILURE() << llvm::toString(W.takeError());
    return 0;
  }
  return *W;
}

/// The full diagnostic text of a failing assembly ("" if it succeeded).
std::string errorsOf(llvm::StringRef Source, llvm::StringRef File = "t.s") {
  llvm::Expected<KernelImage> Img = assemble(Source, File);
  if (Img)
    return "";
  return llvm::toString(Img.takeError());
}

KernelImage assembleOk(llvm::StringRef Source) {
  llvm::Expected<KernelImage> Img = assemble(Source, "t.s");
  if (!Img) {
    ADD_FAILURE() << llvm::toString(Img.takeError());
    return {};
  }
  return std::move(*Img);
}

std::string listing(const KernelImage &Img) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  disassembleImage(Img, OS);
  return S;
}

std::string asAssembly(const KernelImage &Img) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printImageAsAssembly(Img, OS);
  return S;
}

void expectSameImage(const KernelImage &A, const KernelImage &B) {
  EXPECT_EQ(A.Code, B.Code);
  EXPECT_EQ(A.Const, B.Const);
  ASSERT_EQ(A.Kernels.size(), B.Kernels.size());
  for (size_t K = 0; K < A.Kernels.size(); ++K) {
    const KernelInfo &X = A.Kernels[K], &Y = B.Kernels[K];
    EXPECT_EQ(X.Name, Y.Name);
    EXPECT_EQ(X.EntryOffset, Y.EntryOffset);
    EXPECT_EQ(X.CodeBytes, Y.CodeBytes);
    EXPECT_EQ(X.SharedBytes, Y.SharedBytes);
    EXPECT_EQ(X.LocalBytes, Y.LocalBytes);
    EXPECT_EQ(X.RegistersUsed, Y.RegistersUsed);
    ASSERT_EQ(X.Params.size(), Y.Params.size());
    for (size_t P = 0; P < X.Params.size(); ++P) {
      EXPECT_EQ(X.Params[P].Name, Y.Params[P].Name);
      EXPECT_EQ(X.Params[P].Kind, Y.Params[P].Kind);
      EXPECT_EQ(X.Params[P].Offset, Y.Params[P].Offset);
      EXPECT_EQ(X.Params[P].Size, Y.Params[P].Size);
    }
  }
}

std::string diag(llvm::StringRef Loc, llvm::StringRef Msg, llvm::StringRef Line,
                 unsigned Col) {
  return (Loc + ": error: " + Msg + "\n" + Line + "\n" +
          std::string(Col - 1, ' ') + "^")
      .str();
}

//===----------------------------------------------------------------------===//
// Per-instruction round trip
//===----------------------------------------------------------------------===//

TEST(AssemblerRoundTrip, EveryOpcodeWithRandomOperands) {
  std::mt19937 Rng(Seed);
  std::uniform_int_distribution<uint32_t> AnyPC(0, 0x3fffffff);
  ASSERT_GT(numOpcodes(), 100u) << "the ISA tables look empty";
  for (unsigned Index = 0; Index < numOpcodes(); ++Index) {
    Opcode Op = opcodeAt(Index);
    SCOPED_TRACE(getDesc(Op).Mnemonic);
    for (unsigned Iter = 0; Iter < 1000; ++Iter) {
      DecodedInst I = randomInst(Op, Rng, Iter);
      uint32_t PC = 4 * AnyPC(Rng);
      uint32_t Word = encodeOk(I);
      std::optional<DecodedInst> Back = decode(Word);
      ASSERT_TRUE(Back) << "word " << Word;
      ASSERT_EQ(*Back, I);
      std::string Text = formatInst(*Back, PC);
      llvm::Expected<DecodedInst> Parsed = parseInstruction(Text, PC);
      ASSERT_TRUE(bool(Parsed)) << Text << "\n"
                                << llvm::toString(Parsed.takeError());
      ASSERT_EQ(*Parsed, I) << Text << " at pc " << PC;
      ASSERT_EQ(encodeOk(*Parsed), Word) << Text;
    }
  }
}

TEST(AssemblerRoundTrip, MemoryOperandSpellings) {
  auto Parse = [](llvm::StringRef Text) {
    llvm::Expected<DecodedInst> I = parseInstruction(Text);
    EXPECT_TRUE(bool(I)) << Text.str();
    return I ? *I : DecodedInst();
  };
  DecodedInst Plus = Parse("ld.global.u32 r5, [r7 + 12]");
  EXPECT_EQ(Plus.Op, Opcode::GLOBAL_LD_U32);
  EXPECT_EQ(Plus.Rd, 5);
  EXPECT_EQ(Plus.Rs1, 7);
  EXPECT_EQ(Plus.Imm, 12);
  EXPECT_EQ(Parse("ld.global.u32 r5, [r7 - 12]").Imm, -12);
  EXPECT_EQ(Parse("ld.global.u32 r5, [r7]").Imm, 0);
  EXPECT_EQ(Parse("ld.global.u32 r5,[r7+0x7ff]").Imm, 2047);
  EXPECT_EQ(Parse("ld.global.u32 r5, [r7 - 2048]").Imm, -2048);
  EXPECT_EQ(Parse("ld.global.u32 r5, [r7 + 8 - 4]").Imm, 4);
  DecodedInst St = Parse("st.shared.u16 [r3 - 2], r9");
  EXPECT_EQ(St.Op, Opcode::SHARED_ST_U16);
  EXPECT_EQ(St.Rs1, 3);
  EXPECT_EQ(St.Rs2, 9);
  EXPECT_EQ(St.Imm, -2);
  DecodedInst Cas = Parse("atom.shared.cas r1, [r2], r3, r4");
  EXPECT_EQ(Cas.Op, Opcode::ATOM_SHARED_CAS);
  EXPECT_EQ(Cas.Rs3, 4);
  DecodedInst S2R = Parse("s2r r9, %nctaid.z");
  EXPECT_EQ(S2R.Imm, int(*lookupSpecialReg("nctaid.z")));
  // Comments are ignored.
  EXPECT_EQ(Parse("add r1, r2, r3 # why").Rs2, 3);
  EXPECT_EQ(Parse("add r1, r2, r3 // why").Rs2, 3);
}

TEST(AssemblerRoundTrip, BranchTargetsAreAbsoluteCodeAddresses) {
  llvm::Expected<DecodedInst> Fwd = parseInstruction("bnz r4, 0x120", 0x100);
  ASSERT_TRUE(bool(Fwd)) << llvm::toString(Fwd.takeError());
  EXPECT_EQ(Fwd->Imm, 8);
  llvm::Expected<DecodedInst> Back = parseInstruction("bra 0xf0", 0x100);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Imm, -4);
  llvm::Expected<DecodedInst> Self = parseInstruction("bra 256", 0x100);
  ASSERT_TRUE(bool(Self)) << llvm::toString(Self.takeError());
  EXPECT_EQ(Self->Imm, 0);
}

//===----------------------------------------------------------------------===//
// Whole files
//===----------------------------------------------------------------------===//

/// A file with two kernels; the first uses every instruction (random
/// operands, branches to labels), the second li/lif and the const data.
struct GeneratedFile {
  std::string Source;
  std::vector<uint32_t> ExpectedCode;
};

GeneratedFile generateEveryInstructionFile(std::mt19937 &Rng) {
  GeneratedFile F;
  llvm::raw_string_ostream OS(F.Source);
  OS << ".kernel every\n  .param p ptr\n  .param n u32\n  .shared 64\n"
     << "  .local 16\n";
  uint32_t PC = 0;
  for (unsigned Index = 0; Index < numOpcodes(); ++Index) {
    Opcode Op = opcodeAt(Index);
    const InstrDesc &D = getDesc(Op);
    DecodedInst I = randomInst(Op, Rng, 2);
    bool Branch = false;
    for (unsigned K = 0; K < D.NumOperands; ++K)
      Branch |= D.Operands[K].Kind == OperandKind::PCRel;
    if (Branch) {
      // To the top label: a backward branch over everything so far.
      I.Imm = -int32_t(PC / 4);
      std::string Text = formatInst(I, PC);
      Text = Text.substr(0, Text.rfind(' ') + 1) + "top";
      OS << (PC == 0 ? "top: " : "  ") << Text << "\n";
    } else {
      OS << (PC == 0 ? "top: " : "  ") << formatInst(I, PC) << "\n";
    }
    F.ExpectedCode.push_back(encodeOk(I));
    PC += 4;
  }
  OS << "  exit\n";
  F.ExpectedCode.push_back(encodeOk({Opcode::EXIT}));
  OS << ".kernel second\n  li r1, @p2\n  ld.const.u32 r2, [r0 + tbl + 4]\n"
     << "  .param p1 f32\n  .param p2 s32\n  lif r3, -2.5\n  bz r2, out\n"
     << "  .word 0xffffffff\nout: exit\n"
     << ".const\n  .byte 1\n  .align 4\ntbl: .word 7, -1\n  .float 0.5\n";
  return F;
}

TEST(AssemblerFile, EveryInstructionAssemblesAndReassemblesIdentically) {
  std::mt19937 Rng(Seed + 1);
  for (unsigned Round = 0; Round < 20; ++Round) {
    GeneratedFile F = generateEveryInstructionFile(Rng);
    KernelImage Img = assembleOk(F.Source);
    ASSERT_EQ(Img.Kernels.size(), 2u);
    const KernelInfo &K = Img.Kernels[0];
    ASSERT_EQ(K.CodeBytes, 4 * F.ExpectedCode.size());
    EXPECT_EQ(std::vector<uint32_t>(Img.Code.begin(),
                                    Img.Code.begin() + F.ExpectedCode.size()),
              F.ExpectedCode);

    std::string Text = asAssembly(Img);
    llvm::Expected<KernelImage> Again = assemble(Text, "again.s");
    ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError()) << "\n"
                             << Text;
    expectSameImage(Img, *Again);

    // The listing shows every instruction as formatInst prints it.
    std::string List = listing(Img);
    for (uint32_t PC = 0; PC < K.CodeBytes; PC += 4) {
      std::string Line =
          llvm::formatv("  {0}:  {1}  {2}\n", llvm::format_hex(PC, 6),
                        llvm::format_hex_no_prefix(Img.Code[PC / 4], 8),
                        disassembleWord(Img.Code[PC / 4], PC));
      ASSERT_NE(List.find(Line), std::string::npos) << Line;
    }
  }
}

TEST(AssemblerFile, KernelMetadata) {
  KernelImage Img = assembleOk(R"(
# two kernels, laid out one after the other
.kernel first
  .param a ptr
  .param n u32
  add r7, r1, r2
  .shared 1024
  .param x f32
  exit
.kernel second
  .local 32
  .param y s32
  nop
  nop
  li r33, 0x12345678
  exit
.kernel third
  exit
)");
  ASSERT_EQ(Img.Kernels.size(), 3u);
  const KernelInfo &A = Img.Kernels[0], &B = Img.Kernels[1],
                   &C = Img.Kernels[2];
  EXPECT_EQ(A.Name, "first");
  EXPECT_EQ(A.EntryOffset, 0u);
  EXPECT_EQ(A.CodeBytes, 8u);
  EXPECT_EQ(A.SharedBytes, 1024u);
  EXPECT_EQ(A.LocalBytes, 0u);
  EXPECT_EQ(A.RegistersUsed, 8u);
  ASSERT_EQ(A.Params.size(), 3u);
  EXPECT_EQ(A.Params[0].Name, "a");
  EXPECT_EQ(A.Params[0].Kind, ParamKind::Pointer);
  EXPECT_EQ(A.Params[0].Offset, 0u);
  EXPECT_EQ(A.Params[1].Kind, ParamKind::U32);
  EXPECT_EQ(A.Params[1].Offset, 4u);
  EXPECT_EQ(A.Params[2].Name, "x");
  EXPECT_EQ(A.Params[2].Kind, ParamKind::F32);
  EXPECT_EQ(A.Params[2].Offset, 8u);
  EXPECT_EQ(B.EntryOffset, 8u);
  EXPECT_EQ(B.CodeBytes, 20u); // nop, nop, movi+movt, exit
  EXPECT_EQ(B.LocalBytes, 32u);
  EXPECT_EQ(B.RegistersUsed, 34u);
  ASSERT_EQ(B.Params.size(), 1u);
  EXPECT_EQ(B.Params[0].Kind, ParamKind::S32);
  EXPECT_EQ(C.EntryOffset, 28u);
  EXPECT_EQ(C.CodeBytes, 4u);
  EXPECT_EQ(C.RegistersUsed, 1u);
  EXPECT_EQ(Img.Code.size(), 8u);
  EXPECT_TRUE(Img.Const.empty());
}

TEST(AssemblerFile, LabelsResolveForwardAndBackwardPerKernel) {
  KernelImage Img = assembleOk(R"(.kernel a
loop: addi r1, r1, -1
  bnz r1, loop
  bra done
  nop
done:
  exit
.kernel b
  bra loop    // b's own loop, not a's
  nop
loop: exit
)");
  ASSERT_EQ(Img.Code.size(), 8u);
  EXPECT_EQ(decode(Img.Code[1])->Imm, -1); // bnz at 4 -> 0
  EXPECT_EQ(decode(Img.Code[2])->Imm, 2);  // bra at 8 -> 16
  EXPECT_EQ(decode(Img.Code[5])->Imm, 2);  // bra at 20 -> 28
}

uint32_t movi(unsigned Rd, int32_t Imm) {
  return encodeOk({Opcode::MOVI, uint8_t(Rd), 0, 0, 0, Imm});
}
uint32_t movt(unsigned Rd, int32_t Imm) {
  return encodeOk({Opcode::MOVT, uint8_t(Rd), 0, 0, 0, Imm});
}

TEST(AssemblerPseudo, LiUsesOneMoviWhenTheValueFits) {
  auto [Min, Max] = immRange(Opcode::MOVI);
  ASSERT_EQ(Min, -131072);
  ASSERT_EQ(Max, 131071);
  KernelImage Img = assembleOk(R"(.kernel k
  li r1, 131071
  li r2, 131072
  li r3, -131072
  li r4, -131073
  li r5, 0xffffffff
  li r6, -2147483648
  li r7, 4294967295
  li r8, 0x00010000
  exit
)");
  std::vector<uint32_t> Want = {movi(1, 131071), // li r1, 131071
                                movi(2, 0),
                                movt(2, 2),       // li r2, 131072
                                movi(3, -131072), // li r3, -131072
                                movi(4, 0xffff),
                                movt(4, 0xfffd), // li r4, -131073 (0xfffdffff)
                                movi(5, -1),     // li r5, 0xffffffff
                                movi(6, 0),
                                movt(6, 0x8000), // li r6, -2147483648
                                movi(7, -1),     // li r7, 4294967295
                                movi(8, 65536),  // li r8, 0x00010000
                                encodeOk({Opcode::EXIT})};
  EXPECT_EQ(Img.Code, Want);
}

uint32_t floatBits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

TEST(AssemblerPseudo, LifLoadsTheFloatBitPattern) {
  KernelImage Img = assembleOk(R"(.kernel k
  lif r1, 1.5
  lif r2, -2e-3
  lif r3, 0
  lif r4, inf
  lif r5, -inf
  lif r6, nan
  lif r7, 1e-45
  exit
)");
  auto Li = [](unsigned Rd, uint32_t V) {
    std::vector<uint32_t> W;
    if (int32_t(V) >= -131072 && int32_t(V) <= 131071)
      return std::vector<uint32_t>{movi(Rd, int32_t(V))};
    return std::vector<uint32_t>{movi(Rd, int32_t(V & 0xffff)),
                                 movt(Rd, int32_t(V >> 16))};
  };
  std::vector<uint32_t> Want;
  for (auto [Rd, Bits] :
       std::vector<std::pair<unsigned, uint32_t>>{{1, floatBits(1.5f)},
                                                  {2, floatBits(-2e-3f)},
                                                  {3, 0},
                                                  {4, 0x7f800000},
                                                  {5, 0xff800000},
                                                  {6, 0x7fc00000},
                                                  {7, 1}}) {
    std::vector<uint32_t> W = Li(Rd, Bits);
    Want.insert(Want.end(), W.begin(), W.end());
  }
  Want.push_back(encodeOk({Opcode::EXIT}));
  EXPECT_EQ(Img.Code, Want);
}

TEST(AssemblerFile, DataSectionAndItsBaseWord) {
  KernelImage Img = assembleOk(R"(.kernel k
  ld.const.u32 r1, [r0 + base]
  ld.global.u32 r2, [r1 + count]
  exit
.const
  .word 7
base: .data_base
.data
  .byte 5
  .align 4
count: .word 41
)");
  EXPECT_EQ(Img.Const, (std::vector<uint8_t>{7, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Img.DataBaseSlot, 4u);
  EXPECT_EQ(Img.Data, (std::vector<uint8_t>{5, 0, 0, 0, 41, 0, 0, 0}));
  EXPECT_EQ(decode(Img.Code[0])->Imm, 4); // a .const label: its const offset
  EXPECT_EQ(decode(Img.Code[1])->Imm, 4); // a .data label: its data offset
}

TEST(AssemblerErrors, DataSectionNeedsExactlyOneBaseWord) {
  auto Errors = [](const char *Src) { return errorsOf(Src, "d.s"); };
  EXPECT_NE(Errors(".kernel k\n exit\n.data\n .word 1\n")
                .find("the .data section has 4 bytes but the .const section has no "
                      "'.data_base' word"),
            std::string::npos);
  EXPECT_NE(Errors(".kernel k\n exit\n.const\n .data_base\n")
                .find("'.data_base' without a .data section"),
            std::string::npos);
  EXPECT_NE(Errors(".kernel k\n exit\n.const\n .data_base\n .data_base\n.data\n .word 1\n")
                .find("duplicate '.data_base'"),
            std::string::npos);
  EXPECT_NE(Errors(".kernel k\n exit\n.data\n .data_base\n .word 1\n")
                .find("'.data_base' is only allowed in the .const section"),
            std::string::npos);
}

TEST(AssemblerFile, SizedLabelsBecomeImageSymbolsInDirectiveOrder) {
  KernelImage Img;
  Img = assembleOk(R"(.kernel k
  exit
.const
table: .word 1, 2, 3
.private: .word 9
base: .data_base
.data
  .byte 5
count: .byte 6, 7, 8
  .size count, 3
  .size table, 12
)");
  ASSERT_EQ(Img.Symbols.size(), 2u);
  EXPECT_EQ(Img.Symbols[0].Name, "count");
  EXPECT_EQ(Img.Symbols[0].Section, SymbolSection::Data);
  EXPECT_EQ(Img.Symbols[0].Offset, 1u);
  EXPECT_EQ(Img.Symbols[0].Size, 3u);
  EXPECT_EQ(Img.Symbols[1].Name, "table"); // a .const label sized from .data
  EXPECT_EQ(Img.Symbols[1].Section, SymbolSection::Const);
  EXPECT_EQ(Img.Symbols[1].Offset, 0u);
  EXPECT_EQ(Img.Symbols[1].Size, 12u);
  // objdump --source prints the labels (a word a label falls inside as
  // bytes) and the .size lines, and reassembles to the same symbols.
  KernelImage Back = assembleOk(asAssembly(Img));
  ASSERT_EQ(Back.Symbols.size(), 2u);
  for (size_t I = 0; I < 2; ++I) {
    EXPECT_EQ(Back.Symbols[I].Name, Img.Symbols[I].Name);
    EXPECT_EQ(Back.Symbols[I].Section, Img.Symbols[I].Section);
    EXPECT_EQ(Back.Symbols[I].Offset, Img.Symbols[I].Offset);
    EXPECT_EQ(Back.Symbols[I].Size, Img.Symbols[I].Size);
  }
  EXPECT_EQ(Back.Data, Img.Data);
  EXPECT_EQ(Back.Const, Img.Const);
}

TEST(AssemblerFile, SizeGivesASymbolANameNoLabelCanHave) {
  // 'r2' reads as a register, so it cannot be a label; the third operand
  // names the symbol. objdump --source labels it .Lsym0 and names it again.
  KernelImage Img = assembleOk(".kernel k\n exit\n.const\nr2_: .word 1, 2\n .size r2_, 8, r2\n");
  ASSERT_EQ(Img.Symbols.size(), 1u);
  EXPECT_EQ(Img.Symbols[0].Name, "r2");
  EXPECT_EQ(Img.Symbols[0].Size, 8u);
  std::string Text = asAssembly(Img);
  EXPECT_NE(Text.find(".Lsym0:"), std::string::npos) << Text;
  EXPECT_NE(Text.find(".size .Lsym0, 8, r2"), std::string::npos) << Text;
  KernelImage Back = assembleOk(Text);
  ASSERT_EQ(Back.Symbols.size(), 1u);
  EXPECT_EQ(Back.Symbols[0].Name, "r2");
  EXPECT_EQ(Back.Symbols[0].Offset, 0u);
}

TEST(AssemblerErrors, SizeNamesAnEarlierDataLabelAndFitsIt) {
  auto Errors = [](const std::string &Body) {
    return errorsOf(".kernel k\n exit\n.const\nc: .word 1\nbase: .data_base\n.data\nd: .word 2\n" +
                        Body,
                    "s.s");
  };
  auto Expect = [](const std::string &Msg, const char *Want) {
    EXPECT_NE(Msg.find(Want), std::string::npos) << Msg;
  };
  Expect(Errors(" .size later, 4\nlater: .word 3\n"),
         "expected a label of the .const or .data section defined before '.size', found "
         "'later'");
  Expect(Errors(".hidden: .word 3\n .size .hidden, 4\n"), "starts with '.'");
  Expect(Errors(" .size d, 4\n .size c, 4, d\n"), "duplicate symbol 'd'");
  Expect(Errors(" .size d, 4, 9\n"), "expected the symbol's name after ',' in .size");
  Expect(Errors(" .size d, 0\n"), "size 0 out of range for .size [1, 4294967295]");
  Expect(Errors(" .size d, 5\n"), "symbol 'd' ends at byte 5, after the end of the .data section (4 bytes)");
  Expect(Errors(" .size c, 8\n"), "symbol 'c' [0, 8) covers the '.data_base' word at 4");
  Expect(Errors(" .size d 4\n"), "expected ',' after the label in .size");
  Expect(errorsOf(".kernel k\nl: exit\n .size l, 4\n", "s.s"),
         "'.size' is only allowed in the .const or .data section");
}

TEST(AssemblerFile, ConstSectionAndSymbols) {
  KernelImage Img = assembleOk(R"(.kernel k
  .param a ptr
  .param n u32
  ld.const.u32 r1, [r0 + second]
  ld.param.u32 r2, [r0 + @n]
  li r3, bytes + 1
  exit
.const
first: .word 0x11223344, -2
second:
  .float 1.0
bytes: .byte 1, 255, -128
  .align 8
  .word 9
)");
  std::vector<uint8_t> Want = {0x44, 0x33, 0x22, 0x11, 0xfe, 0xff, 0xff,
                               0xff, 0x00, 0x00, 0x80, 0x3f, 0x01, 0xff,
                               0x80, 0x00, 0x09, 0x00, 0x00, 0x00};
  EXPECT_EQ(Img.Const, Want);
  EXPECT_EQ(decode(Img.Code[0])->Imm, 8);
  EXPECT_EQ(decode(Img.Code[1])->Imm, 4);
  EXPECT_EQ(decode(Img.Code[2])->Imm, 13);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(AssemblerErrors, ImmediateOutOfRangeNamesFileLineColumn) {
  std::string Src = ".kernel vadd\n  nop\n  addi r1, r2, 5000\n  exit\n";
  EXPECT_EQ(errorsOf(Src, "vadd.s"),
            diag("vadd.s:3:16",
                 "immediate 5000 out of range [-2048, 2047] for addi",
                 "  addi r1, r2, 5000", 16));
}

struct ErrorCase {
  const char *Line; ///< placed as line 3 of a kernel
  const char *Message;
  unsigned Col;
};

TEST(AssemblerErrors, EachKind) {
  const ErrorCase Cases[] = {
      {"  addd r1, r2, r3", "unknown instruction 'addd'; did you mean 'add'?",
       3},
      {"  ld.global.32 r1, [r2]",
       "unknown instruction 'ld.global.32'; did you mean 'ld.global.u32'?", 3},
      {"  ADD r1, r2, r3", "mnemonics are lower case: write 'add'", 3},
      {"  bnz r1, nowhere", "undefined label 'nowhere' in kernel 'k'", 11},
      {"  bnz r1, lop",
       "undefined label 'lop' in kernel 'k'; did you mean "
       "'loop'?",
       11},
      {"  add r64, r1, r2", "register r64 out of range (r0..r63)", 7},
      {"  add r1, R2, r3", "register names are lower case: write 'r2'", 11},
      {"  add r1, r2", "too few operands for add (usage: add rd, rs1, rs2)",
       13},
      {"  add r1, r2, r3, r4",
       "too many operands for add (usage: add rd, rs1, rs2)", 17},
      {"  add r1, r2, 5",
       "expected a register (r0..r63) for operand rs2 of add, found '5'", 15},
      {"  addi r1, r2, r3",
       "expected an immediate for operand imm of addi, found register r3", 16},
      {"  movt r1, -1", "immediate -1 out of range [0, 65535] for movt", 12},
      {"  ld.global.u32 r1, [r2 + 4",
       "expected ']', found end of line (usage: ld.global.u32 rd, [rs1 + "
       "imm])",
       28},
      {"  ld.global.u32 r1, r2",
       "expected '[', found 'r2' (usage: ld.global.u32 rd, [rs1 + imm])", 21},
      {"  s2r r1, %tidx",
       "unknown special register '%tidx'; did you mean '%tid.x'?", 11},
      {"  s2r r1, 3",
       "expected a special register (such as %tid.x) for operand imm of s2r, "
       "found '3'",
       11},
      {"  ld.param.u32 r1, [r0 + @nn]",
       "unknown parameter '@nn' of kernel 'k'; did you mean '@n'?", 26},
      {"  ld.param.u32 r1, [r0 + @size]",
       "unknown parameter '@size' of kernel 'k'; declare it with '.param "
       "size u32' (or ptr, s32, f32)",
       26},
      {"  ld.const.u32 r1, [r0 + table]",
       "undefined symbol 'table' (not a label of the .const or .data section)", 26},
      {"  li r1, loop",
       "code label 'loop' cannot be used as a data immediate (only branches "
       "take code labels)",
       10},
      {"  bra 0x6",
       "branch target 0x6 is not a multiple of 4 (instructions are 4-byte "
       "aligned)",
       7},
      {"  bnz r1, 0x100000",
       "branch target 0x100000 out of range for bnz: offset 262142 "
       "instructions from pc 0x8, allowed [-131072, 131071]",
       11},
      {"  li r1, 0x100000000", "integer 0x100000000 does not fit in 32 bits",
       10},
      {"  li r1, 12abc", "invalid integer '12abc' (write decimal or 0x hex)",
       10},
      {"  lif r1, 1e39",
       "float literal '1e39' overflows fp32 (largest finite value "
       "3.4028235e38)",
       11},
      {"  lif r1, 0x3f800000",
       "invalid float literal '0x3f800000'; for a bit pattern use 'li'", 11},
      {"  li r1, -2147483649",
       "immediate -2147483649 out of range [-2147483648, 4294967295] for li",
       10},
      {"  .param n u32", "duplicate parameter 'n' in kernel 'k'", 10},
      {"  .param m ptrr",
       "expected a parameter kind (ptr, u32, s32 or f32), found 'ptrr'; did "
       "you mean 'ptr'?",
       12},
      {"  .shared -4", ".shared needs a byte count of 0 or more, not -4", 11},
      {"  .foo 3", "unknown directive '.foo'", 3},
      {"  .flaot 1.0", "unknown directive '.flaot'; did you mean '.float'?", 3},
      {"  .byte 1",
       "'.byte' is only allowed in the .const or .data section (after "
       "'.const' or '.data')",
       3},
      {"  add r1, r2, r3 $",
       "unexpected '$' after the operands of add "
       "(usage: add rd, rs1, rs2)",
       18},
      {"  r5: nop", "label 'r5' would read as a register; choose another name",
       3},
      {"  1abc: nop",
       "invalid label name '1abc': a label is an identifier (letters, "
       "digits, '_', '.'; not starting with a digit)",
       3},
  };
  for (const ErrorCase &C : Cases) {
    SCOPED_TRACE(C.Line);
    std::string Src = std::string(".kernel k\n  .param n u32\nloop: nop\n") +
                      "  nop\n" + C.Line + "\n  exit\n";
    EXPECT_EQ(errorsOf(Src, "e.s"),
              diag("e.s:5:" + std::to_string(C.Col), C.Message, C.Line, C.Col));
  }
}

TEST(AssemblerErrors, OutsideKernelsAndSections) {
  EXPECT_EQ(errorsOf("add r1, r2, r3\n.kernel k\n exit\n"),
            diag("t.s:1:1",
                 "instruction 'add' outside a kernel; start one with "
                 "'.kernel NAME'",
                 "add r1, r2, r3", 1));
  EXPECT_EQ(errorsOf(".kernel k\n exit\n.const\n nop\n"),
            diag("t.s:4:2",
                 "instruction 'nop' in the .const section; start a kernel "
                 "with '.kernel NAME' first",
                 " nop", 2));
  EXPECT_EQ(errorsOf("x:\n.kernel k\n exit\n"),
            diag("t.s:1:1",
                 "label 'x' outside a kernel, .const or .data section; start "
                 "one with '.kernel NAME', '.const' or '.data'",
                 "x:", 1));
  EXPECT_EQ(errorsOf("# nothing\n"),
            "t.s: error: no kernels; start one with '.kernel NAME'");
  EXPECT_EQ(errorsOf(".kernel k\n.kernel j\n exit\n"),
            diag("t.s:1:9", "kernel 'k' has no instructions", ".kernel k", 9));
  EXPECT_EQ(errorsOf(".kernel k\n exit\n.const\n .byte 1\n .word 2\n"),
            diag("t.s:5:2",
                 ".word at const offset 1 is not 4-byte aligned; put "
                 "'.align 4' before it",
                 " .word 2", 2));
  EXPECT_EQ(errorsOf(".kernel k\n exit\n.const\n .align 3\n"),
            diag("t.s:4:9", ".align needs a power of two from 1 to 4096, not 3",
                 " .align 3", 9));
}

TEST(AssemblerErrors, DuplicatesPointAtThePreviousDefinition) {
  std::string Want = diag("t.s:3:1", "duplicate label 'a'", "a: exit", 1) +
                     "\n" +
                     "t.s:2:1: note: previous definition is here\na: nop\n^";
  EXPECT_EQ(errorsOf(".kernel k\na: nop\na: exit\n"), Want);
  std::string WantKernel =
      diag("t.s:3:9", "duplicate kernel 'k'", ".kernel k", 9) + "\n" +
      "t.s:1:9: note: previous definition is here\n.kernel k\n        ^";
  EXPECT_EQ(errorsOf(".kernel k\n exit\n.kernel k\n exit\n"), WantKernel);
  // The same label name in two kernels is fine: labels are per kernel.
  EXPECT_EQ(errorsOf(".kernel k\na: exit\n.kernel j\na: exit\n"), "");
}

TEST(AssemblerErrors, AllErrorsAreReportedInLineOrder) {
  std::string Errors = errorsOf(".kernel k\n"
                                "  bra later_undefined\n"
                                "  addi r1, r1, 9999\n"
                                "  frob r1\n"
                                "  exit\n");
  size_t A = Errors.find("t.s:2:7: error: undefined label");
  size_t B = Errors.find("t.s:3:16: error: immediate 9999");
  size_t C = Errors.find("t.s:4:3: error: unknown instruction 'frob'");
  ASSERT_NE(A, std::string::npos) << Errors;
  ASSERT_NE(B, std::string::npos) << Errors;
  ASSERT_NE(C, std::string::npos) << Errors;
  EXPECT_LT(A, B);
  EXPECT_LT(B, C);
}

TEST(AssemblerErrors, StopsAfterTwentyErrors) {
  std::string Src = ".kernel k\n";
  for (int I = 0; I < 50; ++I)
    Src += "  addi r1, r1, 99999\n";
  Src += "  exit\n";
  std::string Errors = errorsOf(Src);
  size_t Count = 0;
  for (size_t Pos = 0;
       (Pos = Errors.find(": error: immediate", Pos)) != std::string::npos;
       ++Pos)
    ++Count;
  EXPECT_EQ(Count, MaxAssemblerErrors);
  EXPECT_NE(Errors.find("t.s:21:16: error: immediate"), std::string::npos);
  EXPECT_EQ(Errors.find("t.s:22:16"), std::string::npos);
  EXPECT_NE(Errors.find("t.s: error: too many errors; only the first 20 are "
                        "shown"),
            std::string::npos);
}

TEST(AssemblerErrors, ParseInstructionReportsColumns) {
  llvm::Expected<DecodedInst> I = parseInstruction("add r1, r99, r2");
  ASSERT_FALSE(bool(I));
  EXPECT_EQ(llvm::toString(I.takeError()),
            diag("<instruction>:1:9", "register r99 out of range (r0..r63)",
                 "add r1, r99, r2", 9));
  llvm::Expected<DecodedInst> L = parseInstruction("bra somewhere");
  ASSERT_FALSE(bool(L));
  EXPECT_EQ(llvm::toString(L.takeError()),
            diag("<instruction>:1:5", "undefined label 'somewhere'",
                 "bra somewhere", 5));
  llvm::Expected<DecodedInst> P = parseInstruction("li r1, 5");
  ASSERT_FALSE(bool(P));
  EXPECT_NE(llvm::toString(P.takeError()).find("pseudo-instruction"),
            std::string::npos);
}

TEST(AssemblerErrors, MutatedSourcesNeverCrash) {
  // Run under the ASan/UBSan build this checks that no input, however
  // mangled, reads out of bounds; every failure must be a positioned error.
  const std::string Valid = R"(.kernel k
  .param p ptr
  .shared 64
loop: ld.global.u32 r1, [r2 - 4]
  atom.shared.cas r3, [r4], r5, r6
  s2r r7, %tid.x
  li r8, @p
  lif r9, -1.5e3
  bnz r1, loop
  exit
.const
t: .word 1, 0x2
  .byte 3
)";
  const char Alphabet[] = " \n,[]+-:@%#/.rx019$\t";
  std::mt19937 Rng(Seed + 2);
  for (unsigned Iter = 0; Iter < 3000; ++Iter) {
    std::string Src = Valid;
    unsigned Edits = 1 + Rng() % 4;
    for (unsigned E = 0; E < Edits && !Src.empty(); ++E) {
      size_t Pos = Rng() % Src.size();
      switch (Rng() % 3) {
      case 0:
        Src.erase(Pos, 1 + Rng() % 3);
        break;
      case 1:
        Src.insert(Src.begin() + Pos, Alphabet[Rng() % (sizeof(Alphabet) - 1)]);
        break;
      default:
        Src[Pos] = char(Rng() % 256);
        break;
      }
    }
    std::string Errors = errorsOf(Src, "m.s");
    if (!Errors.empty()) {
      ASSERT_EQ(Errors.rfind("m.s", 0), 0u) << Errors;
    }
  }
}

//===----------------------------------------------------------------------===//
// Disassembler
//===----------------------------------------------------------------------===//

TEST(Disassembler, IllegalWordsPrintAsWordsThatReassemble) {
  // Opcode 0 is never an instruction; stray bits make a real opcode illegal.
  uint32_t Zero = 0;
  uint32_t Stray = encodeOk({Opcode::EXIT}) | 1;
  ASSERT_FALSE(decode(Zero));
  ASSERT_FALSE(decode(Stray));
  EXPECT_EQ(disassembleWord(Zero, 0), ".word 0x00000000  # illegal");
  std::string StrayText;
  llvm::raw_string_ostream(StrayText)
      << ".word " << llvm::format_hex(Stray, 10) << "  # illegal";
  EXPECT_EQ(disassembleWord(Stray, 0), StrayText);
  KernelImage Img;
  Img.Code = {Zero, Stray, encodeOk({Opcode::EXIT})};
  KernelInfo K;
  K.Name = "k";
  K.CodeBytes = 12;
  K.RegistersUsed = 1;
  Img.Kernels.push_back(K);
  llvm::Expected<KernelImage> Again = assemble(asAssembly(Img), "w.s");
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_EQ(Again->Code, Img.Code);
}

TEST(Disassembler, ListingShowsTableLabelsAndConstDump) {
  KernelImage Img = assembleOk(R"(.kernel vadd
  .param a ptr
  .param n u32
  .shared 256
  ld.param.u32 r1, [r0 + @n]
again:
  addi r1, r1, -1
  bnz r1, again
  exit
.const
  .word 0x64636261, 0x3f800000
  .byte 0, 1
)");
  std::string L = listing(Img);
  EXPECT_NE(L.find("kernel image: 1 kernel, 4 code words (16 bytes), 10 "
                   "const bytes\n"),
            std::string::npos)
      << L;
  EXPECT_NE(L.find("  name     entry      bytes     shared      local   "
                   "regs  params\n"
                   "  vadd    0x0000         16        256          0      "
                   "2  a:ptr@0 n:u32@4\n"),
            std::string::npos)
      << L;
  EXPECT_NE(L.find("vadd:\n  0x0000:  "), std::string::npos) << L;
  std::string Branch;
  llvm::raw_string_ostream(Branch)
      << "  0x0008:  " << llvm::format_hex_no_prefix(Img.Code[2], 8)
      << "  bnz r1, 0x4\n";
  EXPECT_NE(L.find(".L0x0004:\n  0x0004:  "), std::string::npos) << L;
  EXPECT_NE(L.find(Branch), std::string::npos) << L << Branch;
  // Only branch targets get label lines.
  EXPECT_EQ(L.find(".L0x0000:"), std::string::npos) << L;
  EXPECT_EQ(L.find(".L0x0008:"), std::string::npos) << L;
  EXPECT_NE(L.find("Contents of section .const (10 bytes):\n"
                   "  0000  61626364 0000803f 0001               "
                   "abcd...?..\n"),
            std::string::npos)
      << L;
}

TEST(Disassembler, InconsistentImageIsReportedNotRead) {
  KernelImage Img;
  Img.Code = {encodeOk({Opcode::EXIT}), 0xdeadbeef};
  KernelInfo K;
  K.Name = "broken";
  K.EntryOffset = 4;
  K.CodeBytes = 4000;
  Img.Kernels.push_back(K);
  std::string L = listing(Img);
  EXPECT_NE(L.find("<code range 0x0004 + 4000 bytes lies outside the "
                   "image's 8 code bytes or is misaligned>"),
            std::string::npos)
      << L;
  EXPECT_NE(L.find("Code outside any kernel:"), std::string::npos) << L;
  EXPECT_NE(L.find("0x0004:  deadbeef  .word 0xdeadbeef  # illegal"),
            std::string::npos)
      << L;
}

} // namespace
