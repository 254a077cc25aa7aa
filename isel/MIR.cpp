//===- MIR.cpp - machine IR: construction, printing, verification ---------===//

#include "MIR.h"

#include "ISA.h"
#include "PTX.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace tandem::mir {

const char *pseudoName(unsigned Opc) {
  switch (Opc) {
  case COPY: return "COPY";
  case PHI: return "PHI";
  case LI: return "LI";
  case BR: return "BR";
  case BRCOND: return "BRCOND";
  case RET: return "RET";
  case IMPLICIT_DEF: return "IMPLICIT_DEF";
  default: return "<bad pseudo>";
  }
}

Block *Function::addBlock(std::string BlockName) {
  Blocks.push_back(std::make_unique<Block>(std::move(BlockName)));
  return Blocks.back().get();
}

struct LocationPool {
  llvm::BumpPtrAllocator Storage;
  llvm::UniqueStringSaver Strings{Storage};
};

llvm::StringRef Function::internLoc(llvm::StringRef Loc) {
  if (Loc.empty())
    return {};
  if (!Locations)
    Locations = std::make_shared<LocationPool>();
  return Locations->Strings.save(Loc);
}

Reg Function::newVReg(bool Uniform, std::string DebugName) {
  VRegs.push_back({Uniform, std::move(DebugName), 0});
  return VirtRegBase + VRegs.size() - 1;
}

static bool isSimtOpcode(unsigned Opc) { return Opc < simt::numOpcodes(); }

const simt::InstrDesc *simtDescOf(const Inst &I) {
  if (I.isPseudo() || !isSimtOpcode(I.Opcode))
    return nullptr;
  return &simt::getDesc(static_cast<simt::Opcode>(I.Opcode));
}

/// True when control never continues to the layout successor after \p I.
static bool endsFlow(const Inst &I) {
  if (I.Opcode == BR || I.Opcode == RET || I.Opcode == BRCOND)
    return true;
  if (!isPseudo(I.Opcode) && isSimtOpcode(I.Opcode)) {
    const simt::InstrDesc &D = simt::getDesc(static_cast<simt::Opcode>(I.Opcode));
    return D.has(simt::IsJump) || D.has(simt::IsExit);
  }
  return false;
}

std::vector<BitVector> ssaLiveOut(const Function &Fn) {
  const size_t NB = Fn.Blocks.size(), NV = Fn.numVRegs();
  DenseMap<const Block *, unsigned> Index;
  for (size_t K = 0; K < NB; ++K)
    Index[Fn.Blocks[K].get()] = unsigned(K);
  auto isVReg = [](const Operand &O) { return O.isReg() && isVirtual(O.R); };
  // Per block: read before any def in it (PHIs excluded), and defined in it
  // (PHIs included); the values its successors' PHIs read on its edges.
  std::vector<BitVector> UpwardUses(NB, BitVector(NV)), Defs(NB, BitVector(NV)),
      PhiReads(NB, BitVector(NV));
  std::vector<SmallVector<unsigned, 2>> Succs(NB);
  for (size_t K = 0; K < NB; ++K) {
    const Block &B = *Fn.Blocks[K];
    for (const Block *S : successors(Fn, B))
      Succs[K].push_back(Index.lookup(S));
    for (const Inst &I : B.Insts) {
      if (I.Opcode == PHI) {
        for (size_t O = 1; O + 1 < I.Ops.size(); O += 2)
          if (isVReg(I.Ops[O]) && I.Ops[O + 1].isBlock())
            if (auto It = Index.find(I.Ops[O + 1].Target); It != Index.end())
              PhiReads[It->second].set(I.Ops[O].R - VirtRegBase);
      } else {
        for (const Operand &O : I.Ops)
          if (isVReg(O) && !O.IsDef && !Defs[K].test(O.R - VirtRegBase))
            UpwardUses[K].set(O.R - VirtRegBase);
      }
      for (const Operand &O : I.Ops)
        if (isVReg(O) && O.IsDef)
          Defs[K].set(O.R - VirtRegBase);
    }
  }
  std::vector<BitVector> LiveIn(NB, BitVector(NV)), LiveOut(NB, BitVector(NV));
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t K = NB; K-- > 0;) {
      BitVector Out = PhiReads[K];
      for (unsigned S : Succs[K])
        Out |= LiveIn[S];
      BitVector In = Out;
      In.reset(Defs[K]);
      In |= UpwardUses[K];
      if (In != LiveIn[K] || Out != LiveOut[K]) {
        LiveIn[K] = std::move(In);
        LiveOut[K] = std::move(Out);
        Changed = true;
      }
    }
  }
  return LiveOut;
}

SmallVector<Block *, 2> successors(const Function &Fn, const Block &B) {
  SmallVector<Block *, 2> Succs;
  // Terminators sit at the end of a block; walk back over them.
  size_t I = B.Insts.size();
  while (I > 0) {
    const Inst &T = B.Insts[I - 1];
    bool IsTerm = T.Opcode == BR || T.Opcode == BRCOND || T.Opcode == RET;
    if (!IsTerm && !T.isPseudo() && isSimtOpcode(T.Opcode))
      IsTerm = simt::getDesc(static_cast<simt::Opcode>(T.Opcode)).has(simt::IsTerminator);
    if (!IsTerm)
      break;
    --I;
  }
  for (size_t J = I; J < B.Insts.size(); ++J)
    for (const Operand &O : B.Insts[J].Ops)
      if (O.isBlock() && !llvm::is_contained(Succs, O.Target))
        Succs.push_back(O.Target);
  bool FallsThrough = B.Insts.empty() || !endsFlow(B.Insts.back());
  if (FallsThrough) {
    for (size_t K = 0; K + 1 < Fn.Blocks.size(); ++K)
      if (Fn.Blocks[K].get() == &B) {
        Block *Next = Fn.Blocks[K + 1].get();
        if (!llvm::is_contained(Succs, Next))
          Succs.push_back(Next);
        break;
      }
  }
  return Succs;
}

std::string opcodeName(unsigned Opc, TargetKind T) {
  if (isPseudo(Opc))
    return pseudoName(Opc);
  if (T == TargetKind::Ptx)
    return Opc < ptx::numOpcodes() ? ptx::getDesc(Opc).Name
                                   : formatv("<opcode {0}>", Opc).str();
  if (isSimtOpcode(Opc))
    return simt::getDesc(static_cast<simt::Opcode>(Opc)).Mnemonic;
  return formatv("<opcode {0}>", Opc).str();
}

static void printReg(raw_ostream &OS, Reg R) {
  if (R == NoReg)
    OS << "%noreg";
  else if (isVirtual(R))
    OS << "%v" << (R - VirtRegBase);
  else
    OS << "r" << R;
}

static void printOperand(raw_ostream &OS, const Operand &O) {
  switch (O.K) {
  case Operand::RegOp:
    printReg(OS, O.R);
    if (O.Orig != NoReg && O.Orig != O.R) {
      OS << "(";
      printReg(OS, O.Orig);
      OS << ")";
    }
    break;
  case Operand::ImmOp:
    OS << O.Imm;
    break;
  case Operand::BlockOp:
    OS << "%bb." << (O.Target ? O.Target->Name : std::string("<null>"));
    break;
  }
}

void print(raw_ostream &OS, const Function &Fn, TargetKind T) {
  OS << "function " << Fn.Name << " {\n";
  for (const Param &P : Fn.Params)
    OS << "  ; param " << P.Name << " at " << P.Offset << "\n";
  if (Fn.SharedBytes)
    OS << "  ; shared " << Fn.SharedBytes << " bytes\n";
  if (Fn.LocalBytes)
    OS << "  ; local " << Fn.LocalBytes << " bytes per thread\n";
  for (const auto &B : Fn.Blocks) {
    OS << "bb." << B->Name << ":";
    if (B->LoopDepth)
      OS << "  ; loop depth " << B->LoopDepth;
    OS << "\n";
    for (const Inst &I : B->Insts) {
      OS << "  ";
      bool First = true;
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.IsDef) {
          OS << (First ? "" : ", ");
          printOperand(OS, O);
          First = false;
        }
      if (!First)
        OS << " = ";
      OS << opcodeName(I.Opcode, T);
      First = true;
      for (const Operand &O : I.Ops) {
        if (O.isReg() && O.IsDef)
          continue;
        OS << (First ? " " : ", ");
        printOperand(OS, O);
        First = false;
      }
      if (I.Divergent)
        OS << "  ; divergent";
      if (I.PartialDef)
        OS << (I.OldValueInSlot ? "  ; partial-def, old value in slot" : "  ; partial-def");
      if (I.IsSpillCode)
        OS << "  ; spill";
      if (!I.Loc.empty())
        OS << "  ; " << I.Loc;
      OS << "\n";
    }
  }
  OS << "}\n";
}

namespace {

/// Operand shape a pseudo needs; returns an error text or empty.
std::string checkPseudoShape(const Inst &I) {
  auto IsRegDef = [&](size_t K) { return K < I.Ops.size() && I.Ops[K].isReg() && I.Ops[K].IsDef; };
  auto IsRegUse = [&](size_t K) { return K < I.Ops.size() && I.Ops[K].isReg() && !I.Ops[K].IsDef; };
  auto IsImm = [&](size_t K) { return K < I.Ops.size() && I.Ops[K].isImm(); };
  auto IsBlock = [&](size_t K) { return K < I.Ops.size() && I.Ops[K].isBlock(); };
  switch (I.Opcode) {
  case COPY:
    return I.Ops.size() == 2 && IsRegDef(0) && IsRegUse(1) ? "" : "COPY wants dst, src";
  case LI:
    return I.Ops.size() == 2 && IsRegDef(0) && IsImm(1) ? "" : "LI wants dst, imm";
  case IMPLICIT_DEF:
    return I.Ops.size() == 1 && IsRegDef(0) ? "" : "IMPLICIT_DEF wants dst";
  case BR:
    return I.Ops.size() == 1 && IsBlock(0) ? "" : "BR wants a block";
  case RET:
    return I.Ops.empty() ? "" : "RET takes no operands";
  case BRCOND:
    return I.Ops.size() == 3 && IsRegUse(0) && IsBlock(1) && IsBlock(2)
               ? ""
               : "BRCOND wants cond, true block, false block";
  case PHI: {
    if (!IsRegDef(0) || I.Ops.size() % 2 != 1)
      return "PHI wants dst, then (reg, block) pairs";
    for (size_t K = 1; K < I.Ops.size(); K += 2)
      if (!IsRegUse(K) || !IsBlock(K + 1))
        return "PHI wants dst, then (reg, block) pairs";
    return "";
  }
  default:
    return "unknown pseudo opcode";
  }
}

/// PTX operands are in dag order (defs first); a RegOrImm operand may hold
/// either.
std::string checkPtxShape(const Inst &I) {
  if (I.Opcode >= ptx::numOpcodes())
    return "opcode is neither a pseudo nor a ptx instruction";
  const ptx::InstrDesc &D = ptx::getDesc(I.Opcode);
  if (I.Ops.size() != D.NumOperands)
    return formatv("{0} wants {1} operands, has {2}", D.Name, D.NumOperands, I.Ops.size()).str();
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const ptx::OperandInfo &Want = D.Operands[K];
    const Operand &Have = I.Ops[K];
    bool Ok = false;
    switch (Want.Kind) {
    case ptx::OperandKind::Reg:
      Ok = Have.isReg() && Have.IsDef == Want.IsDef;
      break;
    case ptx::OperandKind::RegOrImm:
      Ok = (Have.isReg() && !Have.IsDef) || Have.isImm();
      break;
    case ptx::OperandKind::MemOffset:
    case ptx::OperandKind::Symbol:
    case ptx::OperandKind::SpecialReg:
    case ptx::OperandKind::CondCode:
      Ok = Have.isImm();
      break;
    case ptx::OperandKind::Block:
      Ok = Have.isBlock();
      break;
    }
    if (!Ok)
      return formatv("{0}: operand ${1} has the wrong kind", D.Name, Want.Name).str();
  }
  return "";
}

std::string checkTargetShape(const Inst &I, TargetKind T) {
  if (T == TargetKind::Ptx)
    return checkPtxShape(I);
  if (!isSimtOpcode(I.Opcode))
    return "opcode is neither a pseudo nor a simt instruction";
  const simt::InstrDesc &D = simt::getDesc(static_cast<simt::Opcode>(I.Opcode));
  if (I.Ops.size() != D.NumOperands)
    return formatv("{0} wants {1} operands, has {2}", D.Mnemonic, D.NumOperands, I.Ops.size()).str();
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const simt::OperandInfo &Want = D.Operands[K];
    const Operand &Have = I.Ops[K];
    bool Ok = false;
    switch (Want.Kind) {
    case simt::OperandKind::GPR:
      Ok = Have.isReg() && Have.IsDef == Want.IsDef;
      break;
    case simt::OperandKind::SImm:
    case simt::OperandKind::UImm:
    case simt::OperandKind::SpecialReg:
      Ok = Have.isImm();
      break;
    case simt::OperandKind::PCRel:
      Ok = Have.isBlock();
      break;
    }
    if (!Ok)
      return formatv("{0}: operand {1} has the wrong kind", D.Mnemonic, K).str();
  }
  return "";
}

} // namespace

std::string verify(const Function &Fn, TargetKind T, bool AfterCfgLowering) {
  DenseSet<const Block *> Known;
  for (const auto &B : Fn.Blocks)
    Known.insert(B.get());
  // Vregs some instruction defines, by index (a flat bit vector: this runs
  // after every stage). Defs of out-of-range vregs are reported below; they
  // still count as defined, so the messages name the right problem.
  BitVector Defined(Fn.numVRegs());
  DenseSet<Reg> DefinedOutOfRange;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.IsDef && isVirtual(O.R)) {
          if (O.R - VirtRegBase < Fn.numVRegs())
            Defined.set(O.R - VirtRegBase);
          else
            DefinedOutOfRange.insert(O.R);
        }
  auto IsDefined = [&](Reg R) {
    return R - VirtRegBase < Fn.numVRegs() ? Defined.test(R - VirtRegBase)
                                           : DefinedOutOfRange.contains(R);
  };
  if (Fn.Blocks.empty())
    return formatv("{0}: function has no blocks", Fn.Name).str();
  for (const auto &B : Fn.Blocks) {
    for (size_t K = 0; K < B->Insts.size(); ++K) {
      const Inst &I = B->Insts[K];
      auto Where = [&](StringRef Msg) {
        return formatv("{0}: bb.{1}, instruction {2} ({3}): {4}", Fn.Name, B->Name, K,
                       opcodeName(I.Opcode, T), Msg)
            .str();
      };
      std::string Shape = I.isPseudo() ? checkPseudoShape(I) : checkTargetShape(I, T);
      if (!Shape.empty())
        return Where(Shape);
      if (AfterCfgLowering && (I.Opcode == PHI || I.Opcode == BR || I.Opcode == BRCOND ||
                               I.Opcode == RET))
        return Where("pseudo left after cfg lowering");
      bool IsPseudoTerm = I.Opcode == BR || I.Opcode == BRCOND || I.Opcode == RET;
      if (!AfterCfgLowering && IsPseudoTerm && K + 1 != B->Insts.size())
        return Where("terminator before the end of the block");
      if (!AfterCfgLowering && I.Opcode == PHI && K > 0 && B->Insts[K - 1].Opcode != PHI)
        return Where("PHI after a non-PHI instruction");
      for (const Operand &O : I.Ops) {
        if (O.isBlock() && !Known.count(O.Target))
          return Where("branch to a block not in the function");
        if (O.isReg() && !O.IsDef && isVirtual(O.R) && !IsDefined(O.R))
          return Where(formatv("%v{0} is used but never defined", O.R - VirtRegBase).str());
        if (O.isReg() && isVirtual(O.R) && O.R - VirtRegBase >= Fn.numVRegs())
          return Where("virtual register out of range");
      }
    }
    if (!AfterCfgLowering) {
      if (B->Insts.empty())
        return formatv("{0}: bb.{1} is empty", Fn.Name, B->Name).str();
      unsigned Last = B->Insts.back().Opcode;
      if (Last != BR && Last != BRCOND && Last != RET)
        return formatv("{0}: bb.{1} does not end in BR, BRCOND or RET", Fn.Name, B->Name).str();
    }
  }
  return "";
}

} // namespace tandem::mir
