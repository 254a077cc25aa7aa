//===- StaticEstimate.cpp - The simt model's purely static input ----------===//
//
// See StaticEstimate.h. The walk keeps, per warp, every register's value in
// every lane with a "known" bit: known values are what the launch alone
// determines, plus global loads from the input regions the workload gives
// (host data) and local words the thread stored known (spill slots);
// everything else read from memory is unknown. Control flow follows
// the machine code's exec-mask discipline (docs/ISA.md, docs/Divergence.md):
// emask.and/andn narrow the mask, bnone/bany test it, emask.set restores it.
//
//===----------------------------------------------------------------------===//

#include "StaticEstimate.h"

#include "ISA.h"
#include "TraceProfile.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <bit>

using namespace llvm;

namespace tandem::models {
namespace {

using simt::Opcode;

Error fail(StringRef Kernel, uint32_t Pc, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "static estimate of kernel '" + Kernel + "' at pc " +
                               formatv("{0:x4}", Pc) + ": " + Why);
}

const KernelInfo *kernelOf(const KernelImage &Img, StringRef Name) {
  for (const KernelInfo &K : Img.Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

/// The kernel's instructions, decoded, index = (pc - entry) / 4.
Expected<std::vector<simt::DecodedInst>> decodeKernel(const KernelImage &Img,
                                                      const KernelInfo &K) {
  std::vector<simt::DecodedInst> Out;
  for (uint32_t Off = 0; Off < K.CodeBytes; Off += 4) {
    size_t Word = (K.EntryOffset + Off) / 4;
    std::optional<simt::DecodedInst> I =
        Word < Img.Code.size() ? simt::decode(Img.Code[Word]) : std::nullopt;
    if (!I)
      return fail(K.Name, K.EntryOffset + Off, "the word does not decode");
    Out.push_back(*I);
  }
  return Out;
}

bool isCompare(Opcode Op) {
  switch (Op) {
  case Opcode::SETEQ: case Opcode::SETNE: case Opcode::SETLT: case Opcode::SETLE:
  case Opcode::SETLTU: case Opcode::SETLEU: case Opcode::SETEQI: case Opcode::SETNEI:
  case Opcode::SETLTI: case Opcode::SETLTUI: case Opcode::SETGTI: case Opcode::SETGTUI:
    return true;
  default:
    return false;
  }
}

std::vector<MachineLoop> loopsOf(ArrayRef<simt::DecodedInst> Code, uint32_t Entry) {
  std::vector<MachineLoop> Loops;
  for (size_t I = 0; I < Code.size(); ++I) {
    const simt::InstrDesc &D = simt::getDesc(Code[I].Op);
    if (!D.has(simt::IsBranch) && !D.has(simt::IsJump))
      continue;
    int64_t Target = int64_t(I) + Code[I].Imm;
    if (Target < 0 || Target > int64_t(I))
      continue;
    MachineLoop L;
    L.Header = Entry + uint32_t(Target) * 4;
    L.Latch = Entry + uint32_t(I) * 4;
    // The step: an addi in the loop whose result a compare in the loop reads.
    for (size_t J = size_t(Target); J <= I; ++J) {
      const simt::DecodedInst &A = Code[J];
      if (A.Op != Opcode::ADDI || A.Imm <= 0 || A.Rd == 0)
        continue;
      for (size_t K = size_t(Target); K <= I; ++K)
        if (isCompare(Code[K].Op) && (Code[K].Rs1 == A.Rd || Code[K].Rs2 == A.Rd))
          L.Step = std::max<unsigned>(L.Step, unsigned(A.Imm));
    }
    // The remainder: (end - start) & (step - 1), a sub feeding an andi.
    for (size_t J = 0; J < size_t(Target) && L.Step > 1; ++J) {
      if (Code[J].Op != Opcode::ANDI || Code[J].Imm != int32_t(L.Step - 1))
        continue;
      for (size_t X = J; X-- > 0;)
        if (Code[X].Rd == Code[J].Rs1) {
          L.PeeledRemainder |= Code[X].Op == Opcode::SUB;
          break;
        }
    }
    Loops.push_back(L);
  }
  llvm::sort(Loops, [](const MachineLoop &A, const MachineLoop &B) {
    return A.Header != B.Header ? A.Header < B.Header : A.Latch < B.Latch;
  });
  return Loops;
}

uint32_t binaryOp(Opcode Op, uint32_t A, uint32_t B) {
  auto S = [](uint32_t V) { return int32_t(V); };
  switch (Op) {
  case Opcode::ADD: case Opcode::ADDI: return A + B;
  case Opcode::SUB: return A - B;
  case Opcode::MUL: case Opcode::MULI: return A * B;
  case Opcode::MULHI: return uint32_t((int64_t(S(A)) * S(B)) >> 32);
  case Opcode::MULHIU: return uint32_t((uint64_t(A) * B) >> 32);
  case Opcode::AND: case Opcode::ANDI: return A & B;
  case Opcode::OR: case Opcode::ORI: return A | B;
  case Opcode::XOR: case Opcode::XORI: return A ^ B;
  case Opcode::SHL: case Opcode::SHLI: return B >= 32 ? 0 : A << B;
  case Opcode::SHR: case Opcode::SHRI: return B >= 32 ? 0 : A >> B;
  case Opcode::SRA: case Opcode::SRAI: return uint32_t(S(A) >> std::min<uint32_t>(B, 31));
  case Opcode::MIN: return S(A) < S(B) ? A : B;
  case Opcode::MAX: return S(A) > S(B) ? A : B;
  case Opcode::MINU: return std::min(A, B);
  case Opcode::MAXU: return std::max(A, B);
  case Opcode::SETEQ: case Opcode::SETEQI: return A == B;
  case Opcode::SETNE: case Opcode::SETNEI: return A != B;
  case Opcode::SETLT: case Opcode::SETLTI: return S(A) < S(B);
  case Opcode::SETLE: return S(A) <= S(B);
  case Opcode::SETLTU: case Opcode::SETLTUI: return A < B;
  case Opcode::SETLEU: return A <= B;
  case Opcode::SETGTI: return S(A) > S(B);
  case Opcode::SETGTUI: return A > B;
  case Opcode::DIVU: return B == 0 ? ~0u : A / B;
  case Opcode::REMU: return B == 0 ? A : A % B;
  case Opcode::DIV:
    return B == 0 ? ~0u : (S(A) == INT32_MIN && S(B) == -1) ? A : uint32_t(S(A) / S(B));
  case Opcode::REM:
    return B == 0 ? A : (S(B) == -1) ? 0 : uint32_t(S(A) % S(B));
  default:
    llvm_unreachable("not a binary integer operation");
  }
}

bool isBinaryReg(Opcode Op) {
  switch (Op) {
  case Opcode::ADD: case Opcode::SUB: case Opcode::MUL: case Opcode::MULHI:
  case Opcode::MULHIU: case Opcode::AND: case Opcode::OR: case Opcode::XOR:
  case Opcode::SHL: case Opcode::SHR: case Opcode::SRA: case Opcode::MIN:
  case Opcode::MAX: case Opcode::MINU: case Opcode::MAXU: case Opcode::SETEQ:
  case Opcode::SETNE: case Opcode::SETLT: case Opcode::SETLE: case Opcode::SETLTU:
  case Opcode::SETLEU: case Opcode::DIV: case Opcode::DIVU: case Opcode::REM:
  case Opcode::REMU:
    return true;
  default:
    return false;
  }
}

bool isBinaryImm(Opcode Op) {
  switch (Op) {
  case Opcode::ADDI: case Opcode::ANDI: case Opcode::ORI: case Opcode::XORI:
  case Opcode::SHLI: case Opcode::SHRI: case Opcode::SRAI: case Opcode::SETEQI:
  case Opcode::SETNEI: case Opcode::SETLTI: case Opcode::SETLTUI: case Opcode::SETGTI:
  case Opcode::SETGTUI: case Opcode::MULI:
    return true;
  default:
    return false;
  }
}

/// One warp's walk through the kernel.
class WarpWalk {
public:
  WarpWalk(const KernelInfo &K, ArrayRef<simt::DecodedInst> Code,
           ArrayRef<MachineLoop> Loops, const KernelImage &Img, const StaticLaunch &L,
           const InputModel &In, uint32_t BlockLinear, uint32_t Warp, TraceProfiler &Out,
           uint64_t &Budget)
      : K(K), Code(Code), Loops(Loops), Img(Img), L(L), In(In), BlockLinear(BlockLinear),
        Warp(Warp), Out(Out), Budget(Budget) {}

  Error run();

private:
  struct Reg {
    std::array<uint32_t, 32> V{};
    uint32_t Known = ~0u; ///< lanes whose value the launch determines
    int Param = -1;       ///< the pointer parameter the value derives from
  };

  uint32_t pcOf(size_t I) const { return K.EntryOffset + uint32_t(I) * 4; }
  uint32_t special(unsigned Index, unsigned Lane, bool &Known) const;
  /// The loop whose latch mask update \p I is, if any (see run()).
  std::optional<size_t> latchMaskLoop(size_t I) const;
  std::optional<size_t> innermostLoop(size_t I) const;
  void write(uint8_t Rd, unsigned Lane, uint32_t V, bool Known);
  /// The host's bytes at global \p Addr from InputModel::Regions, extended
  /// as the load does; nullopt outside every region.
  std::optional<uint32_t> regionValue(uint32_t Addr, unsigned Bytes, bool SignExtend) const;
  Error memory(size_t I, const simt::DecodedInst &D, SmallVectorImpl<uint32_t> &Addrs);
  Error enterLoop(size_t LoopIndex);
  /// The count of data-dependent accesses through \p Param so far in the
  /// current iteration of loop \p J (null outside a loop instance).
  unsigned *ordinalSlot(size_t J, int Param) {
    size_t Slot = size_t(Param + 1);
    return Slot < Ordinals[J].size() ? &Ordinals[J][Slot] : nullptr;
  }

  const KernelInfo &K;
  ArrayRef<simt::DecodedInst> Code;
  ArrayRef<MachineLoop> Loops;
  const KernelImage &Img;
  const StaticLaunch &L;
  const InputModel &In;
  uint32_t BlockLinear, Warp;
  TraceProfiler &Out;
  uint64_t &Budget;

  std::array<Reg, 64> R;
  uint32_t Exec = 0, Alive = 0;
  /// Per loop: per lane, iterations done in the current instance and the
  /// trip count from the input model (-1: none).
  std::vector<std::array<uint64_t, 32>> Iter;
  std::vector<std::array<int64_t, 32>> Trips;
  std::vector<SmallVector<unsigned, 8>> Ordinals; ///< per loop, per parameter
  /// Per lane: local words this thread stored with a known value (spill
  /// slots), by address, so that their reloads are known too.
  std::array<DenseMap<uint64_t, uint32_t>, 32> LocalWords;
};

std::optional<uint32_t> WarpWalk::regionValue(uint32_t Addr, unsigned Bytes,
                                              bool SignExtend) const {
  for (const InputRegion &Rg : In.Regions) {
    if (Addr < Rg.Base || !Rg.Words)
      continue;
    uint64_t Off = Addr - Rg.Base;
    if (Off + Bytes > Rg.Words->size() * 4 || (Off % 4) + Bytes > 4)
      continue;
    uint32_t V = (*Rg.Words)[Off / 4] >> (8 * (Off % 4));
    if (Bytes < 4) {
      V &= (1u << (8 * Bytes)) - 1;
      if (SignExtend)
        V = uint32_t(SignExtend32(V, 8 * Bytes));
    }
    return V;
  }
  return std::nullopt;
}

uint32_t WarpWalk::special(unsigned Index, unsigned Lane, bool &Known) const {
  uint32_t T = Warp * 32 + Lane;
  uint32_t B = BlockLinear;
  const auto &Bd = L.Block;
  const auto &Gd = L.Grid;
  Known = true;
  switch (simt::SpecialReg(Index)) {
  case simt::SpecialReg::TID_X: return T % Bd[0];
  case simt::SpecialReg::TID_Y: return (T / Bd[0]) % Bd[1];
  case simt::SpecialReg::TID_Z: return T / (Bd[0] * Bd[1]);
  case simt::SpecialReg::NTID_X: return Bd[0];
  case simt::SpecialReg::NTID_Y: return Bd[1];
  case simt::SpecialReg::NTID_Z: return Bd[2];
  case simt::SpecialReg::CTAID_X: return B % Gd[0];
  case simt::SpecialReg::CTAID_Y: return (B / Gd[0]) % Gd[1];
  case simt::SpecialReg::CTAID_Z: return B / (Gd[0] * Gd[1]);
  case simt::SpecialReg::NCTAID_X: return Gd[0];
  case simt::SpecialReg::NCTAID_Y: return Gd[1];
  case simt::SpecialReg::NCTAID_Z: return Gd[2];
  case simt::SpecialReg::LANEID: return Lane;
  case simt::SpecialReg::WARPID: return Warp;
  case simt::SpecialReg::NWARPS: return uint32_t((uint64_t(Bd[0]) * Bd[1] * Bd[2] + 31) / 32);
  default:
    Known = false; // %clock
    return 0;
  }
}

void WarpWalk::write(uint8_t Rd, unsigned Lane, uint32_t V, bool Known) {
  if (Rd == 0)
    return;
  R[Rd].V[Lane] = V;
  if (Known)
    R[Rd].Known |= 1u << Lane;
  else
    R[Rd].Known &= ~(1u << Lane);
}

std::optional<size_t> WarpWalk::innermostLoop(size_t I) const {
  std::optional<size_t> Best;
  uint32_t Pc = pcOf(I);
  for (size_t J = 0; J < Loops.size(); ++J)
    if (Loops[J].Header <= Pc && Pc <= Loops[J].Latch &&
        (!Best || Loops[J].Latch - Loops[J].Header < Loops[*Best].Latch - Loops[*Best].Header))
      Best = J;
  return Best;
}

std::optional<size_t> WarpWalk::latchMaskLoop(size_t I) const {
  // The last emask.and/andn before a loop's backward branch decides which
  // lanes go round again.
  for (size_t J = 0; J < Loops.size(); ++J) {
    size_t Latch = (Loops[J].Latch - K.EntryOffset) / 4;
    if (I >= Latch || pcOf(I) < Loops[J].Header)
      continue;
    bool Last = true;
    for (size_t X = I + 1; X < Latch; ++X)
      if (Code[X].Op == Opcode::EMASK_AND || Code[X].Op == Opcode::EMASK_ANDN ||
          Code[X].Op == Opcode::EMASK_SET)
        Last = false;
    if (Last)
      return J;
  }
  return std::nullopt;
}

Error WarpWalk::enterLoop(size_t J) {
  Iter[J].fill(0);
  Trips[J].fill(-1);
  Ordinals[J].assign(L.ParamWords.size() + 1, 0);
  if (!In.LoopRange)
    return Error::success();
  const MachineLoop &Lp = Loops[J];
  for (unsigned Lane = 0; Lane < 32; ++Lane) {
    if (!((Exec >> Lane) & 1))
      continue;
    std::optional<uint64_t> Range = In.LoopRange(unsigned(J), BlockLinear, Warp * 32 + Lane);
    if (!Range)
      continue;
    uint64_t T = Lp.PeeledRemainder ? *Range / Lp.Step : (*Range + Lp.Step - 1) / Lp.Step;
    Trips[J][Lane] = int64_t(T);
    if (T == 0) // the lane does not go into the loop
      Exec &= ~(1u << Lane);
  }
  return Error::success();
}

Error WarpWalk::memory(size_t I, const simt::DecodedInst &Inst,
                       SmallVectorImpl<uint32_t> &Addrs) {
  const simt::InstrDesc &D = simt::getDesc(Inst.Op);
  bool Load = D.has(simt::IsLoad) || D.has(simt::IsAtomic);
  if (D.Space == simt::MemSpace::None) { // shuffle: values move between lanes
    for (unsigned Lane = 0; Lane < 32; ++Lane)
      if ((Exec >> Lane) & 1)
        write(Inst.Rd, Lane, 0, false);
    R[Inst.Rd].Param = -1;
    return Error::success();
  }
  const Reg &Base = R[Inst.Rs1];
  std::optional<size_t> Loop = innermostLoop(I);
  // The exec-mask spill code acts in all 32 lanes, as on the devices.
  uint32_t Lanes = D.has(simt::AllLanes) ? ~0u : Exec;
  for (unsigned Lane = 0; Lane < 32; ++Lane) {
    if (!((Lanes >> Lane) & 1))
      continue;
    uint32_t Addr = Base.V[Lane] + uint32_t(Inst.Imm);
    if (!((Base.Known >> Lane) & 1)) {
      DataAccess A;
      A.Param = Base.Param;
      A.BlockLinear = BlockLinear;
      A.Thread = Warp * 32 + Lane;
      A.Pc = pcOf(I);
      A.Store = D.has(simt::IsStore);
      if (Loop) {
        A.Iteration = Iter[*Loop][Lane];
        A.Step = Loops[*Loop].Step;
        A.Ordinal = ordinalSlot(*Loop, Base.Param) ? *ordinalSlot(*Loop, Base.Param) : 0;
      }
      std::optional<uint32_t> Got =
          In.Address && D.Space == simt::MemSpace::Global ? In.Address(A) : std::nullopt;
      if (!Got)
        return fail(K.Name, pcOf(I),
                    Twine(D.Mnemonic) + ": the address depends on memory contents" +
                        (Base.Param >= 0 ? " (through parameter word " +
                                               Twine(Base.Param) + ")"
                                         : "") +
                        " and the workload gave no statistics for it");
      Addr = *Got;
    }
    Addrs.push_back(Addr);
    bool AddrKnown = (Base.Known >> Lane) & 1;
    if (D.Space == simt::MemSpace::Local && D.has(simt::IsStore)) {
      const Reg &Value = R[Inst.Rs2];
      if (AddrKnown && D.AccessBytes == 4 && ((Value.Known >> Lane) & 1))
        LocalWords[Lane][Addr] = Value.V[Lane];
      else if (AddrKnown)
        LocalWords[Lane].erase(Addr & ~3ull);
      else // a store the walk cannot place: forget every spill slot
        LocalWords[Lane].clear();
    }
    if (!Load)
      continue;
    uint32_t V = 0;
    bool Known = false;
    if (!AddrKnown || D.has(simt::IsAtomic)) {
      // unknown: a synthesized address, or an atomic's old value
    } else if (D.Space == simt::MemSpace::Global) {
      if (std::optional<uint32_t> Host = regionValue(Addr, D.AccessBytes, D.SignExtend)) {
        V = *Host;
        Known = true;
      }
    } else if (D.Space == simt::MemSpace::Local) {
      auto It = LocalWords[Lane].find(Addr);
      if (D.AccessBytes == 4 && It != LocalWords[Lane].end()) {
        V = It->second;
        Known = true;
      }
    } else if (D.Space == simt::MemSpace::Param && Addr / 4 < L.ParamWords.size()) {
      V = L.ParamWords[Addr / 4];
      Known = true;
    } else if (D.Space == simt::MemSpace::Const && Addr + 4 <= Img.Const.size()) {
      V = uint32_t(Img.Const[Addr]) | uint32_t(Img.Const[Addr + 1]) << 8 |
          uint32_t(Img.Const[Addr + 2]) << 16 | uint32_t(Img.Const[Addr + 3]) << 24;
      Known = true;
    }
    write(Inst.Rd, Lane, V, Known);
  }
  if (Load && Inst.Rd != 0)
    R[Inst.Rd].Param = D.Space == simt::MemSpace::Param && Inst.Rs1 == 0
                           ? int(uint32_t(Inst.Imm) / 4)
                           : -1;
  if (Loop && (Base.Known & Exec) != Exec)
    if (unsigned *Slot = ordinalSlot(*Loop, Base.Param))
      ++*Slot;
  return Error::success();
}

Error WarpWalk::run() {
  uint64_t Threads = uint64_t(L.Block[0]) * L.Block[1] * L.Block[2];
  for (unsigned Lane = 0; Lane < 32; ++Lane)
    if (Warp * 32ull + Lane < Threads)
      Alive |= 1u << Lane;
  Exec = Alive;
  for (Reg &X : R)
    X.V.fill(0); // registers read as zero at block start (docs/RTL.md)
  Iter.assign(Loops.size(), {});
  Trips.assign(Loops.size(), {});
  Ordinals.assign(Loops.size(), {});
  size_t I = 0;
  constexpr size_t NoBranch = ~size_t(0);
  size_t CameFrom = NoBranch; // the branch that jumped here
  SmallVector<uint32_t, 32> Addrs;
  while (Alive) {
    if (I >= Code.size())
      return fail(K.Name, pcOf(I), "the walk ran off the kernel's code");
    if (Budget-- == 0)
      return fail(K.Name, pcOf(I), "the walk passed its instruction limit");
    uint32_t Pc = pcOf(I);
    // Loop headers: a new instance when entered from outside, the next
    // iteration when the latch jumped back.
    for (size_t J = 0; J < Loops.size(); ++J) {
      if (Loops[J].Header != Pc)
        continue;
      if (CameFrom != NoBranch && pcOf(CameFrom) == Loops[J].Latch) {
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if ((Exec >> Lane) & 1)
            ++Iter[J][Lane];
        Ordinals[J].assign(L.ParamWords.size() + 1, 0);
      } else if (Error E = enterLoop(J)) {
        return E;
      }
    }
    CameFrom = NoBranch;
    if (Exec == 0 && Alive) {
      // Every lane left the loop on entry: continue after its latch.
      bool Skipped = false;
      for (const MachineLoop &Lp : Loops)
        if (Lp.Header == Pc) {
          I = (Lp.Latch - K.EntryOffset) / 4 + 1;
          Skipped = true;
          break;
        }
      if (Skipped)
        continue;
    }
    const simt::DecodedInst &Inst = Code[I];
    const simt::InstrDesc &D = simt::getDesc(Inst.Op);
    WarpInstruction W;
    W.Block = BlockLinear;
    W.Warp = Warp;
    W.Mask = Exec;
    W.Op = Inst.Op;
    W.Regs = namedRegisters(Inst);
    Addrs.clear();
    size_t Next = I + 1;
    auto Active = [&](unsigned Lane) { return (Exec >> Lane) & 1; };
    const Reg A = R[Inst.Rs1], B = R[Inst.Rs2], C = R[Inst.Rs3];
    auto KnownIn = [&](const Reg &X, unsigned Lane) { return (X.Known >> Lane) & 1; };
    Opcode Op = Inst.Op;
    if (isBinaryReg(Op) || isBinaryImm(Op)) {
      bool Imm = isBinaryImm(Op);
      for (unsigned Lane = 0; Lane < 32; ++Lane)
        if (Active(Lane)) {
          uint32_t Rhs = Imm ? uint32_t(Inst.Imm) : B.V[Lane];
          bool Known = KnownIn(A, Lane) && (Imm || KnownIn(B, Lane));
          write(Inst.Rd, Lane, Known ? binaryOp(Op, A.V[Lane], Rhs) : 0, Known);
        }
      if (Inst.Rd)
        R[Inst.Rd].Param = (Op == Opcode::ADD || Op == Opcode::SUB || Op == Opcode::ADDI)
                               ? (A.Param >= 0 ? A.Param : (Imm ? -1 : B.Param))
                               : -1;
    } else if (D.has(simt::IsLoad) || D.has(simt::IsStore) || D.has(simt::IsAtomic) ||
               D.Space != simt::MemSpace::None ||
               simt::getSchedClassDesc(D.Sched).Unit == simt::FuncUnit::LSU) {
      if (Error E = memory(I, Inst, Addrs))
        return E;
      if (D.has(simt::AllLanes))
        W.Mask = ~0u; // as the iss trace shows it
    } else {
      switch (Op) {
      case Opcode::SEL:
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane)) {
            bool Known = KnownIn(A, Lane) && (A.V[Lane] ? KnownIn(B, Lane) : KnownIn(C, Lane));
            write(Inst.Rd, Lane, A.V[Lane] ? B.V[Lane] : C.V[Lane], Known);
          }
        if (Inst.Rd)
          R[Inst.Rd].Param = B.Param >= 0 ? B.Param : C.Param;
        break;
      case Opcode::MOV:
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane))
            write(Inst.Rd, Lane, A.V[Lane], KnownIn(A, Lane));
        if (Inst.Rd)
          R[Inst.Rd].Param = A.Param;
        break;
      case Opcode::MOVI:
      case Opcode::MOVT: {
        const Reg Old = R[Inst.Rd];
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane)) {
            if (Op == Opcode::MOVI)
              write(Inst.Rd, Lane, uint32_t(int32_t(uint32_t(Inst.Imm) << 14) >> 14), true);
            else
              write(Inst.Rd, Lane, (uint32_t(Inst.Imm) << 16) | (Old.V[Lane] & 0xffff),
                    KnownIn(Old, Lane));
          }
        if (Inst.Rd)
          R[Inst.Rd].Param = -1;
        break;
      }
      case Opcode::POPC:
      case Opcode::CLZ:
      case Opcode::BREV:
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane)) {
            uint32_t X = A.V[Lane];
            uint32_t V = Op == Opcode::POPC  ? uint32_t(std::popcount(X))
                         : Op == Opcode::CLZ ? uint32_t(std::countl_zero(X))
                                             : llvm::reverseBits(X);
            write(Inst.Rd, Lane, V, KnownIn(A, Lane));
          }
        if (Inst.Rd)
          R[Inst.Rd].Param = -1;
        break;
      case Opcode::S2R:
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane)) {
            bool Known;
            uint32_t V = special(unsigned(Inst.Imm), Lane, Known);
            write(Inst.Rd, Lane, V, Known);
          }
        if (Inst.Rd)
          R[Inst.Rd].Param = -1;
        break;
      case Opcode::VOTE_ANY:
      case Opcode::VOTE_ALL:
      case Opcode::VOTE_BALLOT: {
        bool Known = (A.Known & Exec) == Exec;
        uint32_t Ballot = 0;
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane) && A.V[Lane])
            Ballot |= 1u << Lane;
        uint32_t V = Op == Opcode::VOTE_BALLOT ? Ballot
                     : Op == Opcode::VOTE_ANY  ? uint32_t(Ballot != 0)
                                               : uint32_t(Ballot == Exec);
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane))
            write(Inst.Rd, Lane, V, Known);
        if (Inst.Rd)
          R[Inst.Rd].Param = -1;
        break;
      }
      case Opcode::EMASK_GET:
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          write(Inst.Rd, Lane, Exec, true);
        if (Inst.Rd)
          R[Inst.Rd].Param = -1;
        break;
      case Opcode::EMASK_SET:
        if (!KnownIn(A, 0))
          return fail(K.Name, Pc, "emask.set from a register the launch does not determine");
        Exec = A.V[0] & Alive;
        break;
      case Opcode::EMASK_AND:
      case Opcode::EMASK_ANDN: {
        bool Andn = Op == Opcode::EMASK_ANDN;
        std::optional<size_t> Latch = latchMaskLoop(I);
        uint32_t Keep = 0;
        for (unsigned Lane = 0; Lane < 32; ++Lane) {
          if (!Active(Lane))
            continue;
          bool Stay;
          if (KnownIn(A, Lane)) {
            Stay = (A.V[Lane] != 0) != Andn;
          } else if (Latch) {
            // A data-dependent loop exit: the lane's trip count decides.
            int64_t T = Trips[*Latch][Lane];
            if (T < 0)
              return fail(K.Name, Pc,
                          formatv("loop {0:x4}-{1:x4}: the exit depends on memory contents "
                                  "and the workload gave no trip count for it",
                                  Loops[*Latch].Header, Loops[*Latch].Latch)
                              .str());
            Stay = int64_t(Iter[*Latch][Lane]) + 1 < T;
          } else {
            Stay = true; // a divergent if on data: both sides run
          }
          if (Stay)
            Keep |= 1u << Lane;
        }
        Exec = Keep;
        break;
      }
      case Opcode::BRA:
        Next = size_t(int64_t(I) + Inst.Imm);
        break;
      case Opcode::BNONE:
      case Opcode::BANY:
        if ((Op == Opcode::BNONE) == (Exec == 0))
          Next = size_t(int64_t(I) + Inst.Imm);
        break;
      case Opcode::BNZ:
      case Opcode::BZ: {
        bool Any = false, Known = (A.Known & Exec) == Exec;
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane) && A.V[Lane])
            Any = true;
        bool Backward = Inst.Imm <= 0;
        if (!Known && Backward) {
          size_t J = 0;
          while (J < Loops.size() && Loops[J].Latch != Pc)
            ++J;
          Any = false;
          for (unsigned Lane = 0; Lane < 32; ++Lane)
            if (Active(Lane)) {
              if (Trips[J][Lane] < 0)
                return fail(K.Name, Pc,
                            "a uniform loop exit on memory contents with no trip count");
              Any |= int64_t(Iter[J][Lane]) + 1 < Trips[J][Lane];
            }
          Known = true;
          if ((Op == Opcode::BNZ) == Any)
            Next = size_t(int64_t(I) + Inst.Imm);
        } else if (Known && (Op == Opcode::BNZ) == Any) {
          Next = size_t(int64_t(I) + Inst.Imm);
        } // unknown forward: fall into the region (both sides run)
        break;
      }
      case Opcode::EXIT:
        Alive &= ~Exec;
        Exec = 0;
        break;
      case Opcode::BAR:
      case Opcode::NOP:
        break;
      default: // float arithmetic, conversions: values the walk does not need
        for (unsigned Lane = 0; Lane < 32; ++Lane)
          if (Active(Lane))
            write(Inst.Rd, Lane, 0, false);
        if (Inst.Rd)
          R[Inst.Rd].Param = -1;
        break;
      }
    }
    W.LaneAddrs = Addrs;
    Out.addInstruction(W);
    if (Next != I + 1)
      CameFrom = I;
    I = Next;
  }
  return Error::success();
}

} // namespace

Expected<std::vector<MachineLoop>> findLoops(const KernelImage &Img, StringRef Kernel) {
  const KernelInfo *K = kernelOf(Img, Kernel);
  if (!K)
    return createStringError(inconvertibleErrorCode(),
                             "static estimate: no kernel '" + Kernel + "' in the image");
  Expected<std::vector<simt::DecodedInst>> Code = decodeKernel(Img, *K);
  if (!Code)
    return Code.takeError();
  return loopsOf(*Code, K->EntryOffset);
}

Expected<LaunchProfile> estimateLaunch(const KernelImage &Img, const StaticLaunch &L,
                                       const AcceleratorConfig &C, const InputModel &In,
                                       const ModelLatencies *Latencies, bool CollectRounds,
                                       uint64_t MaxWarpInstructions) {
  const KernelInfo *K = kernelOf(Img, L.Kernel);
  if (!K)
    return createStringError(inconvertibleErrorCode(),
                             "static estimate: no kernel '" + L.Kernel + "' in the image");
  Expected<std::vector<simt::DecodedInst>> Code = decodeKernel(Img, *K);
  if (!Code)
    return Code.takeError();
  std::vector<MachineLoop> Loops = loopsOf(*Code, K->EntryOffset);
  TraceProfiler Profiler(C, Latencies, CollectRounds);
  Profiler.beginLaunch(L.Kernel, K->LocalBytes, L.LocalBase);
  uint64_t Blocks = uint64_t(L.Grid[0]) * L.Grid[1] * L.Grid[2];
  uint64_t Threads = uint64_t(L.Block[0]) * L.Block[1] * L.Block[2];
  uint32_t Warps = uint32_t((Threads + 31) / 32);
  uint64_t Budget = MaxWarpInstructions;
  for (uint64_t B = 0; B < Blocks; ++B)
    for (uint32_t W = 0; W < Warps; ++W) {
      WarpWalk Walk(*K, *Code, Loops, Img, L, In, uint32_t(B), W, Profiler, Budget);
      if (Error E = Walk.run())
        return E;
    }
  Profiler.finish();
  if (Profiler.launches().empty())
    return createStringError(inconvertibleErrorCode(), "static estimate: no launch");
  return std::move(Profiler.launches().front());
}

} // namespace tandem::models
