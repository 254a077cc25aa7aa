//===- PtxPrinter.cpp - ptx MIR to PTX text --------------------------------===//
//
// Input invariants and output: see PtxPrinter.h. Every instruction is
// printed from its AsmString in PtxInstrInfo.td, $name replaced by the
// operand of that name; the pseudos print through the templates of MOV_*
// (COPY), BRA_PRED / BRA_UNI (BRCOND, BR) and RET, so no PTX spelling lives
// here except the module and entry framing.
//
//===----------------------------------------------------------------------===//

#include "emit/PtxPrinter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace tandem::emit {
namespace {

using mir::Inst;
using mir::Operand;
using ptx::Opcode;
using ptx::RegClass;

/// Dense per-class register numbers, in order of first appearance.
class RegNumbering {
public:
  explicit RegNumbering(const mir::Function &Fn) : Counts(ptx::numRegClasses(), 0) {
    for (const auto &B : Fn.Blocks)
      for (const Inst &I : B->Insts)
        for (const Operand &O : I.Ops)
          if (O.isReg() && !Numbers.count(O.R)) {
            unsigned C = Fn.info(O.R).RegClass;
            Numbers[O.R] = {C, ++Counts[C]};
          }
  }
  std::string name(mir::Reg R) const {
    auto [C, N] = Numbers.lookup(R);
    return (ptx::getRegClassDesc(RegClass(C)).Prefix + Twine(N)).str();
  }
  unsigned count(unsigned Class) const { return Counts[Class]; }

private:
  DenseMap<mir::Reg, std::pair<unsigned, unsigned>> Numbers;
  std::vector<unsigned> Counts;
};

class KernelPrinter {
public:
  KernelPrinter(raw_ostream &OS, const mir::Function &Fn, const ptx::KernelInfo &Info,
                unsigned KernelIndex)
      : OS(OS), Fn(Fn), Info(Info), Regs(Fn), KernelIndex(KernelIndex) {}

  void print() {
    OS << "\t// .globl\t" << Fn.Name << "\n";
    OS << ".visible .entry " << Fn.Name << "(";
    for (size_t K = 0; K < Info.Params.size(); ++K)
      OS << (K ? ",\n" : "\n") << "\t.param " << Info.Params[K].PtxType << " "
         << Info.Params[K].Symbol;
    OS << (Info.Params.empty() ? ")\n{\n" : "\n)\n{\n");
    if (Info.LocalBytes)
      OS << "\t.local .align " << Info.LocalAlign << " .b8 "
         << Info.Symbols[Info.LocalDepotSymbol] << "[" << Info.LocalBytes << "];\n";
    for (unsigned C = 0; C < ptx::numRegClasses(); ++C)
      if (Regs.count(C)) {
        const ptx::RegClassDesc &D = ptx::getRegClassDesc(RegClass(C));
        OS << "\t.reg " << D.PtxType << " \t" << D.Prefix << "<" << Regs.count(C) + 1 << ">;\n";
      }
    OS << "\n";
    for (size_t K = 0; K < Fn.Blocks.size(); ++K)
      printBlock(K);
    OS << "}\n";
  }

private:
  std::string label(const mir::Block *B) const {
    for (size_t K = 0; K < Fn.Blocks.size(); ++K)
      if (Fn.Blocks[K].get() == B)
        return formatv("$L__BB{0}_{1}", KernelIndex, K).str();
    return "$L__BB_unknown";
  }

  void printBlock(size_t K) {
    const mir::Block &B = *Fn.Blocks[K];
    const mir::Block *Next = K + 1 < Fn.Blocks.size() ? Fn.Blocks[K + 1].get() : nullptr;
    if (K > 0)
      OS << label(&B) << ":\n";
    for (const Inst &I : B.Insts) {
      printLocation(I.Loc);
      switch (I.Opcode) {
      case mir::COPY:
        line(copyOpcode(I.Ops[0].R), I.Ops);
        break;
      case mir::BR:
        if (I.Ops[0].Target != Next)
          line(Opcode::BRA_UNI, {I.Ops[0]});
        break;
      case mir::BRCOND:
        line(Opcode::BRA_PRED, {I.Ops[0], I.Ops[1]});
        if (I.Ops[2].Target != Next)
          line(Opcode::BRA_UNI, {I.Ops[2]});
        break;
      case mir::RET:
        line(Opcode::RET, {});
        break;
      case mir::IMPLICIT_DEF:
        break; // any value will do: the register is simply not written
      default:
        line(static_cast<Opcode>(I.Opcode), I.Ops);
        break;
      }
    }
  }

  /// `// file.cu:line` where the source line changes; lines inside headers
  /// (clang's builtin variables, our CUDA header) are noise and skipped.
  void printLocation(StringRef Loc) {
    auto [File, Line] = Loc.rsplit(':');
    if (Loc.empty() || File.ends_with(".h") || Loc == LastLoc)
      return;
    OS << "\t// " << sys::path::filename(File) << ":" << Line << "\n";
    LastLoc = Loc.str();
  }

  Opcode copyOpcode(mir::Reg Dst) const {
    static const Opcode Movs[] = {Opcode::MOV_PRED, Opcode::MOV_B32, Opcode::MOV_B64,
                                  Opcode::MOV_F32, Opcode::MOV_F64};
    return Movs[Fn.info(Dst).RegClass];
  }

  /// One instruction from its template.
  void line(Opcode O, ArrayRef<Operand> Ops) {
    const ptx::InstrDesc &D = ptx::getDesc(O);
    StringRef Asm = D.AsmString;
    std::string Text;
    for (size_t I = 0; I < Asm.size(); ++I) {
      if (Asm[I] != '$') {
        Text += Asm[I];
        continue;
      }
      size_t E = I + 1;
      while (E < Asm.size() && (isAlnum(Asm[E]) || Asm[E] == '_'))
        ++E;
      int Index = ptx::operandIndex(D, Asm.substr(I + 1, E - I - 1));
      Text += operandText(D.Operands[Index], Ops[Index]);
      I = E - 1;
    }
    OS << "\t" << Text << ";\n";
  }

  std::string operandText(const ptx::OperandInfo &Info, const Operand &O) const {
    if (O.isReg())
      return Regs.name(O.R);
    if (O.isBlock())
      return label(O.Target);
    switch (Info.Kind) {
    case ptx::OperandKind::Symbol:
      return symbolName(O.Imm);
    case ptx::OperandKind::SpecialReg:
      return std::string("%") + ptx::specialRegName(ptx::SpecialReg(O.Imm));
    case ptx::OperandKind::CondCode:
      return ptx::condCodeName(ptx::CondCode(O.Imm));
    default:
      break;
    }
    if (Info.Class == RegClass::F32)
      return formatv("0f{0:X-8}", uint32_t(O.Imm)).str();
    if (Info.Class == RegClass::F64)
      return formatv("0d{0:X-16}", uint64_t(O.Imm)).str();
    if (Info.Class == RegClass::B32 && Info.Kind == ptx::OperandKind::RegOrImm)
      return std::to_string(int32_t(O.Imm));
    return std::to_string(O.Imm);
  }

  std::string symbolName(int64_t Index) const { return Info.Symbols[Index]; }

  raw_ostream &OS;
  const mir::Function &Fn;
  const ptx::KernelInfo &Info;
  RegNumbering Regs;
  unsigned KernelIndex;
  std::string LastLoc;
};

void printShared(raw_ostream &OS, ArrayRef<PtxKernelRef> Kernels) {
  StringSet<> Done;
  bool Any = false;
  for (const PtxKernelRef &K : Kernels)
    for (const ptx::KernelInfo::SharedVar &S : K.Info->Shared) {
      if (!Done.insert(S.Symbol).second)
        continue;
      if (S.Extern)
        OS << ".extern .shared .align " << S.Align << " .b8 " << S.Symbol << "[];\n";
      else
        OS << ".shared .align " << S.Align << " .b8 " << S.Symbol << "[" << S.Size << "];\n";
      Any = true;
    }
  if (Any)
    OS << "\n";
}

/// __constant__ and __device__ variables, once each: `.const .align A .b8
/// name[N] = {b0, b1, ...};` (no initializer when every byte is zero: PTX
/// zero-fills .const and .global variables). The exported ones first.
void printGlobals(raw_ostream &OS, ArrayRef<PtxKernelRef> Kernels,
                  ArrayRef<ptx::KernelInfo::GlobalVar> Exported) {
  StringSet<> Done;
  bool Any = false;
  std::vector<const ptx::KernelInfo::GlobalVar *> All;
  for (const ptx::KernelInfo::GlobalVar &G : Exported)
    All.push_back(&G);
  for (const PtxKernelRef &K : Kernels)
    for (const ptx::KernelInfo::GlobalVar &G : K.Info->Globals)
      All.push_back(&G);
  for (const ptx::KernelInfo::GlobalVar *V : All) {
    const ptx::KernelInfo::GlobalVar &G = *V;
    if (!Done.insert(G.Symbol).second)
      continue;
    OS << ".visible " << (G.Const ? ".const" : ".global") << " .align " << G.Align << " .b8 "
       << G.Symbol << "[" << G.Size << "]";
    if (any_of(G.Init, [](uint8_t B) { return B != 0; })) {
      OS << " = {";
      for (size_t I = 0; I < G.Init.size(); ++I)
        OS << (I ? ", " : "") << unsigned(G.Init[I]);
      OS << "}";
    }
    OS << ";\n";
    Any = true;
  }
  if (Any)
    OS << "\n";
}

} // namespace

void printPtxModule(raw_ostream &OS, ArrayRef<PtxKernelRef> Kernels,
                    ArrayRef<ptx::KernelInfo::GlobalVar> Exported,
                    const PtxModuleOptions &Opts) {
  OS << "//\n// Generated by tandem";
  if (!Opts.SourceName.empty())
    OS << " from " << Opts.SourceName;
  OS << " (-O" << Opts.OptLevel << ")\n//\n\n";
  OS << ".version 8.0\n.target " << Opts.Arch << "\n.address_size 64\n\n";
  printGlobals(OS, Kernels, Exported);
  printShared(OS, Kernels);
  for (size_t K = 0; K < Kernels.size(); ++K) {
    if (K)
      OS << "\n";
    KernelPrinter(OS, *Kernels[K].Fn, *Kernels[K].Info, K).print();
  }
}

unsigned ptxRegisterCount(const mir::Function &Fn) {
  llvm::DenseSet<mir::Reg> Seen;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg())
          Seen.insert(O.R);
  return Seen.size();
}

unsigned ptxInstructionCount(const mir::Function &Fn) {
  unsigned N = 0;
  for (const auto &B : Fn.Blocks)
    N += B->Insts.size();
  return N;
}

} // namespace tandem::emit
