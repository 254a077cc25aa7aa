//===- KernelBuilder.h - Build kernel images from C++ ----------*- C++ -*-===//
//
// Writes SIMT kernels instruction by instruction, encoding each word with
// simt::encode(), so tests of the simulator (and the random-program generator
// that compares iss with rtl) depend on the generated ISA tables only, not on
// the assembler. Operands are given in assembly order, as the instruction's
// AsmString lists them (e.g. `ld.global.u32 rd, [rs1 + imm]` takes
// {rd, rs1, imm}; `s2r` takes {rd, special register number}); branch targets
// are labels.
//
// Input invariants: none; mistakes (wrong operand count, a value that does
// not fit its field, an unbound label) are collected and reported by build()
// with the instruction's index and mnemonic. Guarantees: build() yields an
// image with one kernel whose RegistersUsed is the highest register named + 1
// and whose parameters sit at offsets 0, 4, 8, ... in declaration order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ISA.h"

#include "tandem/KernelImage.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tandem::iss {

class KernelBuilder {
public:
  struct Label {
    unsigned Id;
  };

  explicit KernelBuilder(std::string Name) { Kernel.Name = std::move(Name); }

  KernelBuilder &param(std::string Name, ParamKind Kind = ParamKind::U32) {
    KernelParam P;
    P.Name = std::move(Name);
    P.Kind = Kind;
    P.Offset = uint32_t(Kernel.Params.size() * 4);
    Kernel.Params.push_back(P);
    return *this;
  }
  KernelBuilder &shared(uint32_t Bytes) {
    Kernel.SharedBytes = Bytes;
    return *this;
  }
  KernelBuilder &local(uint32_t Bytes) {
    Kernel.LocalBytes = Bytes;
    return *this;
  }
  /// Overrides the computed RegistersUsed (to build inconsistent images).
  KernelBuilder &registersUsed(uint32_t N) {
    ForcedRegisters = N;
    return *this;
  }

  /// Appends \p Op with its non-branch operands in assembly order.
  KernelBuilder &emit(simt::Opcode Op,
                      std::initializer_list<int64_t> Operands = {}) {
    Insts.push_back({Op, llvm::SmallVector<int64_t, 5>(Operands), -1});
    return *this;
  }
  /// Appends a branch: its register operand (if any) then the target label.
  KernelBuilder &branch(simt::Opcode Op,
                        std::initializer_list<int64_t> Operands, Label Target) {
    Insts.push_back(
        {Op, llvm::SmallVector<int64_t, 5>(Operands), int(Target.Id)});
    return *this;
  }
  KernelBuilder &branch(simt::Opcode Op, Label Target) {
    return branch(Op, {}, Target);
  }
  /// Appends a raw word (for illegal-instruction tests).
  KernelBuilder &word(uint32_t W) {
    Insts.push_back({simt::Opcode::INVALID, {int64_t(W)}, -1});
    return *this;
  }

  Label newLabel() {
    Bound.push_back(-1);
    return {unsigned(Bound.size() - 1)};
  }
  /// Binds \p L to the next instruction.
  KernelBuilder &bind(Label L) {
    Bound[L.Id] = int(Insts.size());
    return *this;
  }
  unsigned size() const { return unsigned(Insts.size()); }

  /// Appends the kernel to \p Img (its code after the image's existing code).
  llvm::Error addTo(KernelImage &Img) const {
    KernelInfo K = Kernel;
    K.EntryOffset = uint32_t(Img.Code.size() * 4);
    K.CodeBytes = uint32_t(Insts.size() * 4);
    unsigned MaxReg = 0;
    std::vector<uint32_t> Words;
    for (unsigned I = 0; I < Insts.size(); ++I) {
      llvm::Expected<uint32_t> W = encodeOne(I, MaxReg);
      if (!W)
        return W.takeError();
      Words.push_back(*W);
    }
    K.RegistersUsed = ForcedRegisters ? ForcedRegisters : MaxReg + 1;
    Img.Code.insert(Img.Code.end(), Words.begin(), Words.end());
    Img.Kernels.push_back(std::move(K));
    return llvm::Error::success();
  }
  llvm::Expected<KernelImage> build() const {
    KernelImage Img;
    if (llvm::Error E = addTo(Img))
      return E;
    return Img;
  }

private:
  struct Pending {
    simt::Opcode Op;
    llvm::SmallVector<int64_t, 5> Operands;
    int Target; // label id, or -1
  };

  llvm::Error fail(unsigned I, const llvm::Twine &Why) const {
    const char *Mn = Insts[I].Op == simt::Opcode::INVALID
                         ? ".word"
                         : simt::getDesc(Insts[I].Op).Mnemonic;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "kernel '" + Kernel.Name + "' instruction " +
                                       llvm::Twine(I) + " (" + Mn +
                                       "): " + Why);
  }

  llvm::Expected<uint32_t> encodeOne(unsigned I, unsigned &MaxReg) const {
    const Pending &P = Insts[I];
    if (P.Op == simt::Opcode::INVALID)
      return uint32_t(P.Operands[0]);
    const simt::InstrDesc &D = simt::getDesc(P.Op);
    simt::DecodedInst Out;
    Out.Op = P.Op;
    unsigned Next = 0;
    for (unsigned K = 0; K < D.NumOperands; ++K) {
      const simt::OperandInfo &O = D.Operands[K];
      int64_t V;
      if (O.Kind == simt::OperandKind::PCRel) {
        if (P.Target < 0 || Bound[P.Target] < 0)
          return fail(I, "branch target label is missing or unbound");
        V = int64_t(Bound[P.Target]) - int64_t(I);
      } else {
        if (Next >= P.Operands.size())
          return fail(I, llvm::formatv("expects more than {0} operands", Next));
        V = P.Operands[Next++];
      }
      if (V < INT32_MIN || V > int64_t(UINT32_MAX))
        return fail(I, llvm::formatv("operand {0} does not fit 32 bits", V));
      if (O.Kind == simt::OperandKind::GPR) {
        if (V < 0 || V >= int64_t(simt::NumEncodableGPRs))
          return fail(I, llvm::formatv("register r{0} does not exist", V));
        MaxReg = std::max(MaxReg, unsigned(V));
      }
      setField(Out, O.Where, V);
    }
    if (Next != P.Operands.size())
      return fail(I, llvm::formatv("takes {0} operands, got {1}", Next,
                                   P.Operands.size()));
    llvm::Expected<uint32_t> W = simt::encode(Out);
    if (!W)
      return fail(I, llvm::toString(W.takeError()));
    return *W;
  }

  static void setField(simt::DecodedInst &D, simt::Field F, int64_t V) {
    switch (F) {
    case simt::Field::Rd:
      D.Rd = uint8_t(V);
      break;
    case simt::Field::Rs1:
      D.Rs1 = uint8_t(V);
      break;
    case simt::Field::Rs2:
      D.Rs2 = uint8_t(V);
      break;
    case simt::Field::Rs3:
      D.Rs3 = uint8_t(V);
      break;
    case simt::Field::Imm:
      D.Imm = int32_t(V);
      break;
    }
  }

  KernelInfo Kernel;
  uint32_t ForcedRegisters = 0;
  std::vector<Pending> Insts;
  std::vector<int> Bound;
};

} // namespace tandem::iss
