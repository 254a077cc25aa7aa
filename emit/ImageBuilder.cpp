//===- ImageBuilder.cpp - allocated simt MIR straight to a kernel image ---===//
//
// Input invariants and guarantees: ImageBuilder.h. Two passes per kernel:
//   1. layout: the byte address of every block (an `li` takes one or two
//      words, IMPLICIT_DEF none), so branches to later blocks resolve;
//   2. encode: every instruction's operands go to the fields the
//      descriptor names, then simt::encode, the assembler's encoder.
// Everything that decides a bit of the image mirrors emit/Assembler.cpp and
// emit/SimtAsmPrinter.cpp; ImageBuilderTest compares the two paths.
//
//===----------------------------------------------------------------------===//

#include "ImageBuilder.h"
#include "SimtAsmPrinter.h"

#include "ISA.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>
#include <string>

using namespace llvm;

namespace tandem::emit {
namespace {

/// The parameters as the listing declares them (names from the printer's
/// simtParamNames).
std::vector<KernelParam> kernelParams(const mir::Function &Fn) {
  std::vector<KernelParam> Params;
  std::vector<std::string> Names = simtParamNames(Fn);
  for (size_t K = 0; K < Fn.Params.size(); ++K) {
    KernelParam P;
    P.Name = Names[K];
    // The assembler places parameters at 0, 4, 8, ... in declaration order.
    P.Offset = 4 * static_cast<uint32_t>(K);
    P.Size = 4;
    switch (Fn.Params[K].Kind) {
    case mir::ParamKind::Pointer: P.Kind = ParamKind::Pointer; break;
    case mir::ParamKind::U32: P.Kind = ParamKind::U32; break;
    case mir::ParamKind::S32: P.Kind = ParamKind::S32; break;
    case mir::ParamKind::F32: P.Kind = ParamKind::F32; break;
    }
    Params.push_back(std::move(P));
  }
  return Params;
}

/// Code words \p I becomes, as the assembler lays it out.
unsigned wordsOf(const mir::Inst &I) {
  if (I.Opcode == mir::IMPLICIT_DEF)
    return 0;
  if (I.Opcode == mir::LI && I.Ops.size() == 2)
    return simt::fitsOneMovi(static_cast<uint32_t>(I.Ops[1].Imm)) ? 1 : 2;
  return 1;
}

void setField(simt::DecodedInst &D, simt::Field F, int64_t V) {
  switch (F) {
  case simt::Field::Rd: D.Rd = static_cast<uint8_t>(V); break;
  case simt::Field::Rs1: D.Rs1 = static_cast<uint8_t>(V); break;
  case simt::Field::Rs2: D.Rs2 = static_cast<uint8_t>(V); break;
  case simt::Field::Rs3: D.Rs3 = static_cast<uint8_t>(V); break;
  case simt::Field::Imm: D.Imm = static_cast<int32_t>(V); break;
  }
}

/// Encodes one kernel's instructions into Code.
class KernelEncoder {
public:
  KernelEncoder(const mir::Function &Fn, std::vector<uint32_t> &Code)
      : Fn(Fn), Code(Code) {}

  /// Appends the code; MaxReg is the highest register named (as the
  /// assembler counts it: every register operand of every instruction).
  Error run() {
    uint64_t PC = 4 * uint64_t(Code.size());
    for (const auto &B : Fn.Blocks) {
      BlockAddress[B.get()] = PC;
      for (const mir::Inst &I : B->Insts)
        PC += 4 * wordsOf(I);
    }
    if (PC > std::numeric_limits<uint32_t>::max())
      return createStringError(formatv("kernel '{0}': code does not fit in 4 GiB", Fn.Name));
    for (const auto &B : Fn.Blocks)
      for (size_t N = 0; N < B->Insts.size(); ++N)
        if (Error E = encodeInst(B->Insts[N]))
          return createStringError(formatv("internal compiler error: kernel '{0}', block "
                                           "'{1}', instruction {2} ({3}): {4}",
                                           Fn.Name, B->Name, N,
                                           mir::opcodeName(B->Insts[N].Opcode,
                                                           mir::TargetKind::Simt),
                                           toString(std::move(E))));
    return Error::success();
  }

  unsigned MaxReg = 0;

private:
  const mir::Function &Fn;
  std::vector<uint32_t> &Code;
  DenseMap<const mir::Block *, uint64_t> BlockAddress;

  Expected<unsigned> reg(const mir::Operand &O) {
    if (!O.isReg() || !mir::isPhysical(O.R) || O.R >= simt::NumEncodableGPRs)
      return createStringError("expected a physical register r0..r63 (unallocated MIR?)");
    MaxReg = std::max<unsigned>(MaxReg, O.R);
    return O.R;
  }

  Error emit(const simt::DecodedInst &D) {
    Expected<uint32_t> W = simt::encode(D);
    if (!W)
      return W.takeError();
    Code.push_back(*W);
    return Error::success();
  }

  Error encodeInst(const mir::Inst &I) {
    switch (I.Opcode) {
    case mir::IMPLICIT_DEF:
      return Error::success(); // a comment in the listing
    case mir::COPY: {
      if (I.Ops.size() != 2)
        return createStringError("COPY needs two operands");
      Expected<unsigned> Dst = reg(I.Ops[0]);
      if (!Dst)
        return Dst.takeError();
      Expected<unsigned> Src = reg(I.Ops[1]);
      if (!Src)
        return Src.takeError();
      simt::DecodedInst D; // printed as `mov rd, rs1`
      D.Op = simt::Opcode::MOV;
      D.Rd = static_cast<uint8_t>(*Dst);
      D.Rs1 = static_cast<uint8_t>(*Src);
      return emit(D);
    }
    case mir::LI:
      return encodeLi(I);
    default:
      break;
    }
    if (I.isPseudo() || I.Opcode >= simt::numOpcodes())
      return createStringError("PHI/BR/BRCOND/RET must be gone before emission");
    auto Op = static_cast<simt::Opcode>(I.Opcode);
    const simt::InstrDesc &Desc = simt::getDesc(Op);
    if (I.Ops.size() != Desc.NumOperands)
      return createStringError(formatv("{0} operands, the descriptor of {1} has {2}",
                                       I.Ops.size(), Desc.Mnemonic, Desc.NumOperands));
    simt::DecodedInst D;
    D.Op = Op;
    uint32_t PC = static_cast<uint32_t>(4 * Code.size());
    for (unsigned K = 0; K < Desc.NumOperands; ++K) {
      const mir::Operand &O = I.Ops[K];
      int64_t V = 0;
      switch (Desc.Operands[K].Kind) {
      case simt::OperandKind::GPR: {
        Expected<unsigned> R = reg(O);
        if (!R)
          return R.takeError();
        V = *R;
        break;
      }
      case simt::OperandKind::SImm:
      case simt::OperandKind::UImm:
      case simt::OperandKind::SpecialReg: {
        if (!O.isImm())
          return createStringError(formatv("operand {0} of {1} must be an immediate", K,
                                           Desc.Mnemonic));
        // Checked here, before the field's truncation to 32 bits could wrap
        // a value into range; the assembler rejects it the same way.
        auto [Min, Max] = simt::immRange(Op);
        if (Desc.Operands[K].Kind != simt::OperandKind::SpecialReg &&
            (O.Imm < Min || O.Imm > Max))
          return createStringError(formatv("immediate {0} out of range [{1}, {2}] for {3}",
                                           O.Imm, Min, Max, Desc.Mnemonic));
        V = O.Imm;
        break;
      }
      case simt::OperandKind::PCRel: {
        auto It = O.isBlock() ? BlockAddress.find(O.Target) : BlockAddress.end();
        if (It == BlockAddress.end())
          return createStringError("branch to a block outside the kernel");
        // pc + 4 * imm, wrapping as the hardware and the assembler do.
        V = static_cast<int32_t>(static_cast<uint32_t>(It->second) - PC) / 4;
        break;
      }
      }
      setField(D, Desc.Operands[K].Where, V);
    }
    return emit(D);
  }

  /// li rd, IMM32: movi, or movi of the low half + movt of the high half.
  Error encodeLi(const mir::Inst &I) {
    if (I.Ops.size() != 2)
      return createStringError("LI needs a register and a value");
    Expected<unsigned> Rd = reg(I.Ops[0]);
    if (!Rd)
      return Rd.takeError();
    int64_t V = I.Ops[1].Imm;
    if (V < std::numeric_limits<int32_t>::min() || V > std::numeric_limits<uint32_t>::max())
      return createStringError(
          formatv("immediate {0} out of range [-2147483648, 4294967295] for li", V));
    uint32_t Value = static_cast<uint32_t>(V);
    simt::DecodedInst Lo;
    Lo.Op = simt::Opcode::MOVI;
    Lo.Rd = static_cast<uint8_t>(*Rd);
    if (simt::fitsOneMovi(Value)) {
      Lo.Imm = static_cast<int32_t>(Value);
      return emit(Lo);
    }
    Lo.Imm = static_cast<int32_t>(Value & 0xffff);
    simt::DecodedInst Hi;
    Hi.Op = simt::Opcode::MOVT;
    Hi.Rd = Lo.Rd;
    Hi.Imm = static_cast<int32_t>(Value >> 16);
    if (Error E = emit(Lo))
      return E;
    return emit(Hi);
  }
};

} // namespace

Error SimtImageBuilder::addKernel(const mir::Function &Fn) {
  KernelInfo Info;
  Info.Name = simtKernelName(Fn);
  if (!KernelNames.insert(Info.Name).second)
    return createStringError(
        formatv("internal compiler error: two kernels are named '{0}'", Info.Name));
  Info.Params = kernelParams(Fn);
  Info.SharedBytes = Fn.SharedBytes;
  Info.LocalBytes = Fn.LocalBytes;
  Info.EntryOffset = static_cast<uint32_t>(4 * Img.Code.size());
  KernelEncoder Encoder(Fn, Img.Code);
  if (Error E = Encoder.run())
    return E;
  Info.CodeBytes = static_cast<uint32_t>(4 * Img.Code.size()) - Info.EntryOffset;
  if (Info.CodeBytes == 0)
    return createStringError(
        formatv("internal compiler error: kernel '{0}' has no instructions", Info.Name));
  Info.RegistersUsed = Encoder.MaxReg + 1;
  Img.Kernels.push_back(std::move(Info));
  return Error::success();
}

void SimtImageBuilder::setConstSection(ArrayRef<uint8_t> Bytes) {
  Img.Const.assign(Bytes.begin(), Bytes.end());
  while (Img.Const.size() % 4)
    Img.Const.push_back(0);
}

void SimtImageBuilder::setDataSection(ArrayRef<uint8_t> Bytes, uint32_t DataBaseSlot) {
  Img.Data.assign(Bytes.begin(), Bytes.end());
  while (Img.Data.size() % 4)
    Img.Data.push_back(0);
  Img.DataBaseSlot = DataBaseSlot;
}

void SimtImageBuilder::setSymbols(const isel::SectionLayout &Const,
                                  const isel::SectionLayout &Data) {
  Img.Symbols.clear();
  auto Add = [&](const isel::SectionLayout &L, SymbolSection In) {
    for (const isel::GlobalSymbol &S : L.Symbols)
      if (S.HostVisible)
        Img.Symbols.push_back({S.SymbolName, In, S.Offset, S.Size});
  };
  Add(Const, SymbolSection::Const);
  Add(Data, SymbolSection::Data);
}

Expected<KernelImage> SimtImageBuilder::take() {
  if (Img.Kernels.empty())
    return createStringError("internal compiler error: an image without kernels");
  KernelNames.clear();
  return std::move(Img);
}

} // namespace tandem::emit
