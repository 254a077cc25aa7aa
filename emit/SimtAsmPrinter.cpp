//===- SimtAsmPrinter.cpp - allocated simt MIR to assembly text -----------===//
//
// Input invariants (what register allocation guarantees):
//   - every register operand is physical (r0..r63);
//   - no PHI, BR, BRCOND or RET is left (cfg lowering replaced them);
//   - blocks are in final layout order, so fall-through needs no jump;
//   - operands of target instructions follow the descriptor's assembly order
//     (mir::verify checked their kinds).
// Guarantees: text in the language of docs/Assembly.md that emit/Assembler
// turns into an image whose kernel table matches the function (name,
// parameters in order, shared and local bytes); one `.kernel` section per
// call. A violated invariant is a compiler bug: it asserts in debug builds
// and, in release builds, prints a line the assembler rejects, so the bug
// surfaces as "the generated assembly does not assemble" rather than as
// wrong code.
//
// Operands are substituted by walking the instruction's AsmString, exactly as
// the assembler parses it, so a new instruction in the .td files prints with
// no change here.
//
//===----------------------------------------------------------------------===//

#include "SimtAsmPrinter.h"

#include "ISA.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cassert>
#include <string>

using namespace llvm;

namespace tandem::emit {
namespace {

/// Kernel and parameter names must be C identifiers in the assembly; IR
/// names may hold '.', '$' or start with a digit. Replacing those characters
/// keeps the name recognisable.
std::string toCIdentifier(StringRef Name, StringRef IfEmpty) {
  if (Name.empty())
    return IfEmpty.str();
  std::string Out;
  if (!isAlpha(Name[0]) && Name[0] != '_')
    Out += '_';
  for (char C : Name)
    Out += isAlnum(C) || C == '_' ? C : '_';
  return Out;
}

/// Labels may hold letters, digits, '_' and '.'; the ".LBB<index>_" prefix
/// makes them unique per kernel (labels are kernel-local) and keeps them from
/// reading as a register or a number, whatever the block is called.
std::string blockLabel(size_t Index, StringRef BlockName) {
  std::string Label = formatv(".LBB{0}_", Index).str();
  for (char C : BlockName)
    Label += isAlnum(C) || C == '_' || C == '.' ? C : '_';
  return Label;
}

const char *paramKindName(mir::ParamKind K) {
  switch (K) {
  case mir::ParamKind::Pointer: return "ptr";
  case mir::ParamKind::U32: return "u32";
  case mir::ParamKind::S32: return "s32";
  case mir::ParamKind::F32: return "f32";
  }
  return "u32";
}

bool isSimtOpcode(unsigned Opc) { return Opc < simt::numOpcodes(); }

const simt::InstrDesc &descOf(const mir::Inst &I) {
  return simt::getDesc(static_cast<simt::Opcode>(I.Opcode));
}

/// Code words an instruction becomes: `li` expands to movi, or movi + movt
/// when the value does not fit movi's signed 18 bits (docs/Assembly.md).
unsigned codeWords(const mir::Inst &I) {
  if (I.Opcode == mir::IMPLICIT_DEF)
    return 0;
  if (I.Opcode == mir::LI)
    return simt::fitsOneMovi(static_cast<uint32_t>(I.Ops[1].Imm)) ? 1 : 2;
  return 1;
}

class Printer {
public:
  Printer(raw_ostream &OS, const mir::Function &Fn) : OS(OS), Fn(Fn) {}

  void print() {
    nameBranchTargets();
    printHeader();
    for (size_t K = 0; K < Fn.Blocks.size(); ++K)
      printBlock(*Fn.Blocks[K], K == 0);
  }

private:
  raw_ostream &OS;
  const mir::Function &Fn;
  DenseMap<const mir::Block *, std::string> Labels;
  /// Parameter byte offset -> the name `.param` declared, so parameter
  /// loads read `ld.param.u32 r4, [r0 + @n]` (the assembler resolves it).
  DenseMap<int64_t, std::string> ParamNames;

  /// Only blocks something branches to get a label; the others are
  /// fall-through and are named in a comment.
  void nameBranchTargets() {
    DenseMap<const mir::Block *, size_t> Index;
    for (size_t K = 0; K < Fn.Blocks.size(); ++K)
      Index[Fn.Blocks[K].get()] = K;
    for (const auto &B : Fn.Blocks)
      for (const mir::Inst &I : B->Insts)
        for (const mir::Operand &O : I.Ops)
          if (O.isBlock() && O.Target && !Labels.count(O.Target)) {
            assert(Index.count(O.Target) && "branch to a block outside the function");
            Labels[O.Target] = blockLabel(Index.lookup(O.Target), O.Target->Name);
          }
  }

  void printHeader() {
    unsigned Words = simtCodeWords(Fn);
    std::string Name = simtKernelName(Fn);
    OS << formatv("\n# kernel {0}: {1} registers used, {2} spill bytes per thread, "
                  "{3} instructions\n",
                  Name, Fn.Stats.RegistersUsed, Fn.Stats.SpillBytes, Words);
    if (Name != Fn.Name)
      OS << "# (named '" << Fn.Name << "' in the IR)\n";
    OS << ".kernel " << Name << "\n";
    std::vector<std::string> Names = simtParamNames(Fn);
    for (size_t K = 0; K < Fn.Params.size(); ++K) {
      const mir::Param &P = Fn.Params[K];
      // The assembler places parameters at 0, 4, 8, ... in declaration
      // order; selection must have laid them out the same way.
      assert(P.Offset == 4 * K && "parameters must be 4 bytes each, in order");
      const std::string &PName = Names[K];
      OS << "  .param " << PName << " " << paramKindName(P.Kind) << "\n";
      ParamNames[P.Offset] = PName;
    }
    if (Fn.SharedBytes)
      OS << "  .shared " << Fn.SharedBytes << "\n";
    if (Fn.LocalBytes)
      OS << "  .local " << Fn.LocalBytes << "\n";
  }

  void printBlock(const mir::Block &B, bool IsEntry) {
    auto It = Labels.find(&B);
    if (It != Labels.end())
      OS << It->second << ":\n";
    else if (!IsEntry)
      OS << "  # bb." << B.Name << "\n";
    for (const mir::Inst &I : B.Insts)
      printInst(I);
  }

  static void printReg(raw_ostream &S, const mir::Operand &O) {
    assert(O.isReg() && mir::isPhysical(O.R) && "the printer wants allocated MIR");
    S << 'r' << O.R;
  }

  void printOperand(raw_ostream &S, const simt::InstrDesc &D, const simt::OperandInfo &Want,
                    const mir::Operand &O) {
    switch (Want.Kind) {
    case simt::OperandKind::GPR:
      printReg(S, O);
      return;
    case simt::OperandKind::SImm:
    case simt::OperandKind::UImm:
      if (D.Space == simt::MemSpace::Param && ParamNames.count(O.Imm)) {
        S << '@' << ParamNames.lookup(O.Imm);
        return;
      }
      S << O.Imm;
      return;
    case simt::OperandKind::SpecialReg:
      for (const simt::SpecialRegDesc &R : simt::specialRegs())
        if (R.Index == O.Imm) {
          S << '%' << R.Name;
          return;
        }
      assert(false && "unknown special register index");
      S << "%bad_special_reg_" << O.Imm;
      return;
    case simt::OperandKind::PCRel:
      assert(O.isBlock() && Labels.count(O.Target));
      S << Labels.lookup(O.Target);
      return;
    }
  }

  /// "mnemonic ops" from the AsmString template: "$rd, [$rs1 + $imm]".
  std::string formatTarget(const mir::Inst &I) {
    const simt::InstrDesc &D = descOf(I);
    assert(I.Ops.size() == D.NumOperands && "operand count differs from the descriptor");
    return simt::formatWithTemplate(
        static_cast<simt::Opcode>(I.Opcode), [&](raw_ostream &S, unsigned K) {
          if (K < I.Ops.size())
            printOperand(S, D, D.Operands[K], I.Ops[K]);
        });
  }

  std::string formatPseudo(const mir::Inst &I) {
    std::string Text;
    raw_string_ostream S(Text);
    switch (I.Opcode) {
    case mir::COPY:
      S << "mov ";
      printReg(S, I.Ops[0]);
      S << ", ";
      printReg(S, I.Ops[1]);
      break;
    case mir::LI:
      S << "li ";
      printReg(S, I.Ops[0]);
      S << ", " << I.Ops[1].Imm;
      break;
    case mir::IMPLICIT_DEF:
      S << "# ";
      printReg(S, I.Ops[0]);
      S << " = undef";
      break;
    default:
      assert(false && "PHI/BR/BRCOND/RET must be gone before printing");
      // An unknown directive: the assembler refuses it, so the bug is loud.
      S << ".unlowered_pseudo_" << mir::pseudoName(I.Opcode);
      break;
    }
    return Text;
  }

  /// Why a spill instruction is there: store, reload or rematerialization.
  static StringRef spillNote(const mir::Inst &I) {
    if (I.isPseudo() || !isSimtOpcode(I.Opcode))
      return "remat";
    const simt::InstrDesc &D = descOf(I);
    if (D.has(simt::IsStore))
      return "spill";
    if (D.has(simt::IsLoad))
      return "reload";
    return "remat";
  }

  void printInst(const mir::Inst &I) {
    std::string Text;
    if (I.isPseudo())
      Text = formatPseudo(I);
    else if (isSimtOpcode(I.Opcode))
      Text = formatTarget(I);
    else {
      assert(false && "opcode is neither a pseudo nor a simt instruction");
      Text = formatv(".bad_opcode_{0}", I.Opcode).str();
    }
    OS << "  " << Text;
    SmallVector<std::string, 2> Notes;
    if (I.IsSpillCode)
      Notes.push_back(spillNote(I).str());
    if (!I.Loc.empty())
      Notes.push_back(I.Loc.str());
    if (!Notes.empty()) {
      // Comments start with '#'; an IMPLICIT_DEF line is already one.
      OS.indent(Text.size() < 30 ? 30 - Text.size() : 1);
      OS << (I.Opcode == mir::IMPLICIT_DEF ? "; " : "# ") << join(Notes, ", ");
    }
    OS << "\n";
  }
};

} // namespace

void printSimtAsm(raw_ostream &OS, const mir::Function &Fn) { Printer(OS, Fn).print(); }

std::string simtKernelName(const mir::Function &Fn) {
  return toCIdentifier(Fn.Name, "kernel");
}

std::vector<std::string> simtParamNames(const mir::Function &Fn) {
  std::vector<std::string> Sanitized, Names;
  for (size_t K = 0; K < Fn.Params.size(); ++K)
    Sanitized.push_back(toCIdentifier(Fn.Params[K].Name, formatv("p{0}", K).str()));
  // Two IR names may sanitize to the same identifier; the index keeps them
  // apart.
  for (size_t K = 0; K < Sanitized.size(); ++K) {
    Names.push_back(Sanitized[K]);
    if (llvm::is_contained(ArrayRef(Sanitized).take_front(K), Sanitized[K]))
      Names.back() += formatv("_{0}", K).str();
  }
  return Names;
}

unsigned simtCodeWords(const mir::Function &Fn) {
  unsigned Words = 0;
  for (const auto &B : Fn.Blocks)
    for (const mir::Inst &I : B->Insts)
      Words += codeWords(I);
  return Words;
}

} // namespace tandem::emit
