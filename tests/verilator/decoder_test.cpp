//===- decoder_test.cpp - C++ tables and SystemVerilog package agree ------===//
//
// Drives the Verilated isa_decoder (which imports the generated
// simt_isa_pkg) with, for every one of the 256 major opcodes, random words:
// half with random legal operands built by the C++ encoder, half with fully
// random low bits (stray bits, out-of-range immediates). Every output must
// equal what the C++ decoder and descriptor tables say. Prints
// "N passed, M failed" and exits non-zero on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "ISA.h"
#include "Visa_decoder.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <random>

using namespace tandem::simt;

namespace {

struct Expected {
  bool Valid;
  DecodedInst Inst;
};

Expected expectFromCpp(uint32_t Word) {
  std::optional<DecodedInst> I = decode(Word);
  return {I.has_value(), I.value_or(DecodedInst{})};
}

// A legal instruction of \p Op with random operands, encoded by the C++ side.
uint32_t randomLegalWord(Opcode Op, std::mt19937 &Rng) {
  const InstrDesc &D = getDesc(Op);
  DecodedInst I;
  I.Op = Op;
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const OperandInfo &O = D.Operands[K];
    int64_t V = O.Kind == OperandKind::GPR
                    ? int64_t(Rng() % NumEncodableGPRs)
                    : D.ImmMin + int64_t(Rng() % uint64_t(D.ImmMax - D.ImmMin + 1));
    switch (O.Where) {
    case Field::Rd: I.Rd = uint8_t(V); break;
    case Field::Rs1: I.Rs1 = uint8_t(V); break;
    case Field::Rs2: I.Rs2 = uint8_t(V); break;
    case Field::Rs3: I.Rs3 = uint8_t(V); break;
    case Field::Imm: I.Imm = int32_t(V); break;
    }
  }
  llvm::Expected<uint32_t> W = encode(I);
  if (!W) {
    llvm::errs() << "encode failed: " << llvm::toString(W.takeError()) << "\n";
    std::exit(2);
  }
  return *W;
}

bool check(Visa_decoder &Dut, uint32_t Word, unsigned &Failures) {
  Dut.word = Word;
  Dut.eval();
  Expected E = expectFromCpp(Word);
  bool Ok = bool(Dut.valid) == E.Valid;
  if (Ok && E.Valid) {
    const InstrDesc &D = getDesc(E.Inst.Op);
    const SchedClassDesc &S = getSchedClassDesc(D.Sched);
    Ok = Dut.opcode == D.Encoding && Dut.format == unsigned(D.Fmt) &&
         Dut.rd == E.Inst.Rd && Dut.rs1 == E.Inst.Rs1 && Dut.rs2 == E.Inst.Rs2 &&
         Dut.rs3 == E.Inst.Rs3 && Dut.imm == uint32_t(E.Inst.Imm) &&
         Dut.unit == unsigned(S.Unit) && Dut.latency == S.Latency;
  }
  if (!Ok && Failures++ < 20)
    std::fprintf(stderr,
                 "mismatch for word 0x%08x: rtl valid=%d format=%d rd=%d rs1=%d "
                 "rs2=%d rs3=%d imm=0x%08x unit=%d lat=%d; c++ valid=%d (%s)\n",
                 Word, Dut.valid, Dut.format, Dut.rd, Dut.rs1, Dut.rs2, Dut.rs3,
                 Dut.imm, Dut.unit, Dut.latency, E.Valid,
                 E.Valid ? formatInst(E.Inst, 0).c_str() : "illegal");
  return Ok;
}

} // namespace

int main() {
  Visa_decoder Dut;
  std::mt19937 Rng(12345);
  unsigned Failures = 0, CoveredOpcodes = 0;
  const unsigned WordsPerOpcode = 2000;
  for (unsigned Enc = 0; Enc < 256; ++Enc) {
    std::optional<Opcode> Op;
    for (unsigned I = 0; I < numOpcodes(); ++I)
      if (getDesc(opcodeAt(I)).Encoding == Enc)
        Op = opcodeAt(I);
    CoveredOpcodes += Op.has_value();
    for (unsigned K = 0; K < WordsPerOpcode; ++K) {
      uint32_t Word = (Op && K % 2 == 0) ? randomLegalWord(*Op, Rng)
                                         : (Enc << 24) | (Rng() & 0x00FFFFFFu);
      // Every tenth random word keeps only the operand fields: legal more often.
      if (Op && K % 10 == 1)
        Word &= getDesc(*Op).FieldMask;
      check(Dut, Word, Failures);
    }
  }
  unsigned Total = 256 * WordsPerOpcode;
  std::printf("isa decoder agreement: %u opcodes defined, %u words checked\n",
              CoveredOpcodes, Total);
  std::printf("%u passed, %u failed\n", Total - Failures, Failures);
  Dut.final();
  return Failures == 0 && CoveredOpcodes == numOpcodes() ? 0 : 1;
}
