//===- Predecode.cpp - Decode a kernel once per launch --------------------===//
//
// Turns a kernel's instruction words into PInsts the executor's switch reads
// directly. Illegality is recorded, not reported: a word that does not decode
// faults only when a warp reaches it, as the hardware would.
//
// Guarantees: a PInst with Op != INVALID names only registers below the
// kernel's RegistersUsed and, for s2r, an existing special register; its Rd
// is the sink row when the instruction names r0.
//
//===----------------------------------------------------------------------===//

#include "IssInternal.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace tandem::iss::detail {

using simt::DecodedInst;
using simt::Field;
using simt::Opcode;
using simt::OperandKind;

const char *Program::asmAt(unsigned Index) const {
  return Index < Asm.size() ? Asm[Index].c_str() : "";
}

namespace {

uint8_t fieldValue(const DecodedInst &D, Field F) {
  switch (F) {
  case Field::Rd:
    return D.Rd;
  case Field::Rs1:
    return D.Rs1;
  case Field::Rs2:
    return D.Rs2;
  case Field::Rs3:
    return D.Rs3;
  case Field::Imm:
    break;
  }
  return 0;
}

/// The SpecialReg enumerator of hardware index \p Index, if there is one.
std::optional<simt::SpecialReg> specialRegAt(int32_t Index) {
  for (const simt::SpecialRegDesc &S : simt::specialRegs())
    if (S.Index == Index)
      return simt::lookupSpecialReg(S.Name);
  return std::nullopt;
}

/// Why \p D cannot run in a kernel with \p RegistersUsed registers, or "".
std::string whyIllegal(const DecodedInst &D, unsigned RegistersUsed) {
  const simt::InstrDesc &Desc = simt::getDesc(D.Op);
  for (unsigned I = 0; I < Desc.NumOperands; ++I) {
    const simt::OperandInfo &Op = Desc.Operands[I];
    if (Op.Kind == OperandKind::GPR) {
      unsigned R = fieldValue(D, Op.Where);
      if (R >= RegistersUsed)
        return formatv("it names r{0} but the kernel declares RegistersUsed "
                       "{1} (registers r0..r{2}); the image is inconsistent",
                       R, RegistersUsed, RegistersUsed - 1)
            .str();
    }
    if (Op.Kind == OperandKind::SpecialReg && !specialRegAt(D.Imm))
      return formatv("special register number {0} does not exist", D.Imm).str();
  }
  return "";
}

} // namespace

Program predecode(const KernelImage &Img, const KernelInfo &K, bool WithAsm) {
  Program P;
  P.Kernel = &K;
  P.Entry = K.EntryOffset;
  unsigned N = K.CodeBytes / 4;
  P.CodeBytes = N * 4;
  unsigned RegistersUsed = std::max(1u, K.RegistersUsed);
  P.Rows = RegistersUsed + 1;
  P.SinkRow = RegistersUsed;
  P.Insts.resize(N);
  P.Decoded.resize(N);
  P.IllegalWhy.resize(N);
  P.Words.assign(Img.Code.begin() + K.EntryOffset / 4,
                 Img.Code.begin() + K.EntryOffset / 4 + N);
  if (WithAsm)
    P.Asm.resize(N);
  for (unsigned I = 0; I < N; ++I) {
    uint32_t Word = P.Words[I];
    std::optional<DecodedInst> D = simt::decode(Word);
    if (!D) {
      P.IllegalWhy[I] =
          formatv("word {0:x8} does not decode (unknown opcode {1:x2} or "
                  "stray bits outside the format's fields)",
                  Word, Word >> 24)
              .str();
      if (WithAsm)
        P.Asm[I] = formatv(".word {0:x8}", Word).str();
      continue;
    }
    P.Decoded[I] = *D;
    uint32_t Pc = P.Entry + 4 * I;
    if (WithAsm)
      P.Asm[I] = simt::formatInst(*D, Pc);
    P.IllegalWhy[I] = whyIllegal(*D, RegistersUsed);
    if (!P.IllegalWhy[I].empty())
      continue;
    PInst &PI = P.Insts[I];
    PI.Op = D->Op;
    PI.Rd = D->Rd == 0 ? uint8_t(P.SinkRow) : D->Rd;
    PI.Rs1 = D->Rs1;
    PI.Rs2 = D->Rs2;
    PI.Rs3 = D->Rs3;
    PI.Imm = D->Imm;
    // The executor switches on the enumerator, not the hardware index.
    if (D->Op == Opcode::S2R)
      PI.Imm = int32_t(*specialRegAt(D->Imm));
  }
  return P;
}

} // namespace tandem::iss::detail
