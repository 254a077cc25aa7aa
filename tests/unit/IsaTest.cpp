//===- IsaTest.cpp - The generated SIMT tables and their walkers ----------===//
//
// Encode/decode round trips for every opcode over the full operand ranges,
// rejection of words that are not instructions, range errors from the
// encoder, and the assembly text formatInst produces.
//
//===----------------------------------------------------------------------===//

#include "ISA.h"

#include "gtest/gtest.h"

#include <random>
#include <set>

using namespace tandem::simt;

namespace {

DecodedInst randomOperands(Opcode Op, std::mt19937 &Rng) {
  const InstrDesc &D = getDesc(Op);
  DecodedInst I;
  I.Op = Op;
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const OperandInfo &O = D.Operands[K];
    int64_t V = O.Kind == OperandKind::GPR
                    ? int64_t(Rng() % NumEncodableGPRs)
                    : D.ImmMin + int64_t(Rng() % uint64_t(D.ImmMax - D.ImmMin + 1));
    // Hit both ends of immediate ranges often.
    if (O.Kind != OperandKind::GPR && Rng() % 8 == 0)
      V = Rng() % 2 ? D.ImmMin : D.ImmMax;
    switch (O.Where) {
    case Field::Rd: I.Rd = uint8_t(V); break;
    case Field::Rs1: I.Rs1 = uint8_t(V); break;
    case Field::Rs2: I.Rs2 = uint8_t(V); break;
    case Field::Rs3: I.Rs3 = uint8_t(V); break;
    case Field::Imm: I.Imm = int32_t(V); break;
    }
  }
  return I;
}

TEST(Isa, EveryOpcodeRoundTripsThroughEncodeAndDecode) {
  std::mt19937 Rng(1);
  for (unsigned Idx = 0; Idx < numOpcodes(); ++Idx) {
    Opcode Op = opcodeAt(Idx);
    for (int K = 0; K < 500; ++K) {
      DecodedInst I = randomOperands(Op, Rng);
      llvm::Expected<uint32_t> Word = encode(I);
      ASSERT_TRUE(bool(Word)) << llvm::toString(Word.takeError());
      EXPECT_EQ(*Word >> 24, getDesc(Op).Encoding);
      std::optional<DecodedInst> Back = decode(*Word);
      ASSERT_TRUE(Back.has_value()) << getDesc(Op).Mnemonic;
      EXPECT_EQ(*Back, I) << formatInst(I, 0) << " vs " << formatInst(*Back, 0);
    }
  }
}

TEST(Isa, EncodingsAndMnemonicsAreUniqueAndLookedUp) {
  std::set<unsigned> Encodings;
  for (unsigned Idx = 0; Idx < numOpcodes(); ++Idx) {
    const InstrDesc &D = getDesc(opcodeAt(Idx));
    EXPECT_TRUE(Encodings.insert(D.Encoding).second) << D.Mnemonic;
    std::optional<Opcode> Found = lookupMnemonic(D.Mnemonic);
    ASSERT_TRUE(Found.has_value()) << D.Mnemonic;
    EXPECT_EQ(*Found, opcodeAt(Idx));
  }
  EXPECT_FALSE(lookupMnemonic("frobnicate").has_value());
}

TEST(Isa, ZeroWordAndUnknownOpcodesAreIllegal) {
  EXPECT_FALSE(decode(0).has_value());
  unsigned Illegal = 0;
  for (unsigned Enc = 0; Enc < 256; ++Enc)
    Illegal += !decode(Enc << 24).has_value() && Enc != 0;
  // Every defined opcode with all-zero operands decodes; nothing else does.
  EXPECT_EQ(Illegal, 256 - 1 - numOpcodes());
}

TEST(Isa, StrayBitsOutsideTheOperandFieldsAreIllegal) {
  for (unsigned Idx = 0; Idx < numOpcodes(); ++Idx) {
    const InstrDesc &D = getDesc(opcodeAt(Idx));
    uint32_t Base = uint32_t(D.Encoding) << 24;
    for (unsigned Bit = 0; Bit < 24; ++Bit) {
      uint32_t Word = Base | (1u << Bit);
      bool InField = (D.FieldMask >> Bit) & 1;
      if (!InField) {
        EXPECT_FALSE(decode(Word).has_value())
            << D.Mnemonic << " accepted stray bit " << Bit;
      }
    }
  }
}

TEST(Isa, EncoderRejectsOutOfRangeOperandsNamingThem) {
  DecodedInst I{Opcode::ADDI, 1, 2, 0, 0, 2048};
  llvm::Expected<uint32_t> W = encode(I);
  ASSERT_FALSE(bool(W));
  EXPECT_EQ(llvm::toString(W.takeError()), "addi: imm 2048 out of range [-2048, 2047]");

  DecodedInst R{Opcode::ADD, 64, 1, 2, 0, 0};
  W = encode(R);
  ASSERT_FALSE(bool(W));
  EXPECT_EQ(llvm::toString(W.takeError()), "add: register r64 does not exist (r0..r63)");

  DecodedInst Extra{Opcode::MOV, 1, 2, 3, 0, 0}; // mov has no rs2
  W = encode(Extra);
  ASSERT_FALSE(bool(W));
  EXPECT_EQ(llvm::toString(W.takeError()), "mov has no rs2 operand");
}

TEST(Isa, MovtImmediateAboveSixteenBitsDoesNotDecode) {
  uint32_t Word = (uint32_t(getDesc(Opcode::MOVT).Encoding) << 24) | (1u << 16);
  EXPECT_FALSE(decode(Word).has_value());
}

TEST(Isa, FormatsAssemblyText) {
  EXPECT_EQ(formatInst({Opcode::ADD, 3, 1, 2, 0, 0}, 0), "add r3, r1, r2");
  EXPECT_EQ(formatInst({Opcode::GLOBAL_LD_U32, 5, 4, 0, 0, -8}, 0),
            "ld.global.u32 r5, [r4 - 8]");
  EXPECT_EQ(formatInst({Opcode::GLOBAL_ST_U32, 0, 4, 7, 0, 16}, 0),
            "st.global.u32 [r4 + 16], r7");
  EXPECT_EQ(formatInst({Opcode::BRA, 0, 0, 0, 0, -2}, 0x40), "bra 0x38");
  EXPECT_EQ(formatInst({Opcode::S2R, 1, 0, 0, 0, int32_t(SpecialReg::TID_X)}, 0),
            "s2r r1, %tid.x");
  EXPECT_EQ(formatInst({Opcode::EXIT, 0, 0, 0, 0, 0}, 0), "exit");
  EXPECT_EQ(formatInst({Opcode::FFMA, 1, 2, 3, 4, 0}, 0), "ffma r1, r2, r3, r4");
}

TEST(Isa, SchedulingClassesComeFromTheTdFiles) {
  const SchedClassDesc &Div = getSchedClassDesc(getDesc(Opcode::DIV).Sched);
  EXPECT_EQ(Div.Unit, FuncUnit::SFU);
  EXPECT_GT(Div.IssueCycles, 1);
  EXPECT_STREQ(getFuncUnitName(getSchedClassDesc(getDesc(Opcode::FADD).Sched).Unit),
               "FPU");
  EXPECT_TRUE(getDesc(Opcode::GLOBAL_LD_S8).SignExtend);
  EXPECT_EQ(getDesc(Opcode::SHARED_ST_U16).AccessBytes, 2);
  EXPECT_EQ(getDesc(Opcode::SHARED_ST_U16).Space, MemSpace::Shared);
}

TEST(Isa, SelectionPatternsNameExistingInstructionsWithMatchingArity) {
  ASSERT_FALSE(selectionPatterns().empty());
  for (const tandem::target::PatternDesc &P : selectionPatterns()) {
    const InstrDesc &D = getDesc(Opcode(P.Opcode));
    unsigned Uses = 0;
    for (unsigned K = 0; K < D.NumOperands; ++K)
      Uses += !D.Operands[K].IsDef;
    // An address operand fills two instruction operands: base and offset.
    unsigned PatternUses = P.NumFixed;
    for (unsigned K = 0; K < P.NumArgs; ++K)
      PatternUses += P.Args[K].Kind == tandem::target::PatOperandKind::Addr ? 2 : 1;
    EXPECT_EQ(Uses, PatternUses) << P.IRName;
    EXPECT_EQ(D.NumOperands, P.NumInstOperands) << P.IRName;
  }
  EXPECT_STREQ(selectionPatterns().front().IRName, "add");
  EXPECT_EQ(Opcode(selectionPatterns().front().Opcode), Opcode::ADDI);
}

TEST(Isa, SpecialRegistersLookUpByName) {
  EXPECT_EQ(lookupSpecialReg("tid.x"), SpecialReg::TID_X);
  EXPECT_EQ(lookupSpecialReg("clock"), SpecialReg::CLOCK);
  EXPECT_FALSE(lookupSpecialReg("tid.w").has_value());
}

} // namespace
