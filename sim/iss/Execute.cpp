//===- Execute.cpp - Run one warp of the SIMT accelerator -----------------===//
//
// The simulator's inner loop: fetch a predecoded instruction, dispatch on its
// opcode, and apply it to the active lanes of the warp. Semantics follow the
// descriptions in target/simt/SimtInstrInfo.td (see Semantics.h for the
// per-lane arithmetic).
//
// Input invariants: Launch, Block and Warp were set up by Simulator::launch
// (registers sized to Program::Rows, local memory to LocalBytes * 32, shared
// memory to SharedBytes). Guarantees: runWarp() returns when the warp reaches
// a barrier (Status AtBarrier, pc after the bar), finishes (Status Finished),
// or faults (an Error naming kernel, block, warp, lane, pc, instruction and
// address). Lanes are applied in lane order, so stores and atomics of one warp
// to one address resolve as lane order says.
//
// Speed: the loop over lanes has a separate path for the all-active mask
// that the compiler vectorizes; global accesses first try the allocation the
// previous access hit. Tracing is a template parameter so the untraced loop
// carries no trace code.
//
//===----------------------------------------------------------------------===//

#include "Iss.h"
#include "IssInternal.h"
#include "Semantics.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;

namespace tandem::iss::detail {

using simt::MemSpace;
using simt::Opcode;
using simt::SpecialReg;

namespace {

constexpr uint32_t AllLanes = 0xffffffffu;

enum class Access : uint8_t { Load, Store, Atomic };

const char *accessName(Access A) {
  switch (A) {
  case Access::Load:
    return "load";
  case Access::Store:
    return "store";
  case Access::Atomic:
    return "atomic";
  }
  return "access";
}

/// Calls Fn(lane) for each lane set in Exec, in lane order.
template <typename F> inline void forLanes(uint32_t Exec, F &&Fn) {
  if (Exec == AllLanes) {
    for (unsigned L = 0; L < 32; ++L)
      Fn(L);
    return;
  }
  for (uint32_t M = Exec; M; M &= M - 1)
    Fn(unsigned(llvm::countr_zero(M)));
}

/// As forLanes, but stops at the first lane for which Fn returns false.
template <typename F> inline bool forLanesWhile(uint32_t Exec, F &&Fn) {
  for (uint32_t M = Exec; M; M &= M - 1)
    if (!Fn(unsigned(llvm::countr_zero(M))))
      return false;
  return true;
}

// Device memory is little-endian whatever the host is.
template <unsigned Bytes, bool SignExtend>
inline uint32_t loadValue(const uint8_t *P) {
  if constexpr (Bytes == 4) {
    return support::endian::read32le(P);
  } else if constexpr (Bytes == 2) {
    uint16_t V = support::endian::read16le(P);
    return SignExtend ? uint32_t(int32_t(int16_t(V))) : V;
  } else {
    return SignExtend ? uint32_t(int32_t(int8_t(*P))) : *P;
  }
}

template <unsigned Bytes> inline void storeValue(uint8_t *P, uint32_t V) {
  if constexpr (Bytes == 4)
    support::endian::write32le(P, V);
  else if constexpr (Bytes == 2)
    support::endian::write16le(P, uint16_t(V));
  else
    *P = uint8_t(V);
}

class Runner {
public:
  Runner(Launch &L, Block &B, Warp &W)
      : L(L), B(B), W(W), P(*L.Prog), Regs(W.Regs) {}

  template <bool Tracing> Error run();

private:
  Launch &L;
  Block &B;
  Warp &W;
  const Program &P;
  uint32_t *Regs;

  // Set by a failing memory access; turned into an Error by run().
  int FaultLane = -1;
  std::string FaultMsg;
  // Addresses of the current memory instruction, for the trace.
  uint32_t TraceAddr[32] = {};

  uint32_t *row(unsigned R) { return Regs + (R << 5); }

  template <typename F> void unary(const PInst &I, uint32_t Exec, F Fn) {
    uint32_t *D = row(I.Rd);
    const uint32_t *A = row(I.Rs1);
    forLanes(Exec, [&](unsigned Lane) { D[Lane] = Fn(A[Lane]); });
  }
  template <typename F> void binary(const PInst &I, uint32_t Exec, F Fn) {
    uint32_t *D = row(I.Rd);
    const uint32_t *A = row(I.Rs1), *Bv = row(I.Rs2);
    forLanes(Exec, [&](unsigned Lane) { D[Lane] = Fn(A[Lane], Bv[Lane]); });
  }
  template <typename F> void binaryImm(const PInst &I, uint32_t Exec, F Fn) {
    uint32_t *D = row(I.Rd);
    const uint32_t *A = row(I.Rs1);
    uint32_t Imm = uint32_t(I.Imm);
    forLanes(Exec, [&](unsigned Lane) { D[Lane] = Fn(A[Lane], Imm); });
  }
  template <typename F> void ternary(const PInst &I, uint32_t Exec, F Fn) {
    uint32_t *D = row(I.Rd);
    const uint32_t *A = row(I.Rs1), *Bv = row(I.Rs2), *C = row(I.Rs3);
    forLanes(Exec,
             [&](unsigned Lane) { D[Lane] = Fn(A[Lane], Bv[Lane], C[Lane]); });
  }

  /// Mask of the active lanes whose \p R is nonzero.
  uint32_t nonzeroLanes(unsigned R, uint32_t Exec) {
    const uint32_t *V = row(R);
    uint32_t M = 0;
    for (unsigned Lane = 0; Lane < 32; ++Lane)
      M |= uint32_t(V[Lane] != 0) << Lane;
    return M & Exec;
  }

  uint8_t *memFault(MemSpace S, Access A, unsigned Bytes, uint32_t Addr,
                    unsigned Lane, const Twine &Why);
  template <MemSpace S>
  uint8_t *resolve(uint32_t Addr, unsigned Bytes, unsigned Lane, Access A);

  template <MemSpace S, unsigned Bytes, bool SignExtend>
  bool load(const PInst &I, uint32_t Exec) {
    uint32_t *D = row(I.Rd);
    const uint32_t *A = row(I.Rs1);
    uint32_t Off = uint32_t(I.Imm);
    return forLanesWhile(Exec, [&](unsigned Lane) {
      const uint8_t *Ptr = resolve<S>(A[Lane] + Off, Bytes, Lane, Access::Load);
      if (!Ptr)
        return false;
      D[Lane] = loadValue<Bytes, SignExtend>(Ptr);
      return true;
    });
  }
  template <MemSpace S, unsigned Bytes>
  bool store(const PInst &I, uint32_t Exec) {
    const uint32_t *A = row(I.Rs1), *V = row(I.Rs2);
    uint32_t Off = uint32_t(I.Imm);
    return forLanesWhile(Exec, [&](unsigned Lane) {
      uint8_t *Ptr = resolve<S>(A[Lane] + Off, Bytes, Lane, Access::Store);
      if (!Ptr)
        return false;
      storeValue<Bytes>(Ptr, V[Lane]);
      return true;
    });
  }
  /// rd = old; memory = Fn(old, lane). Lane order decides same-address races.
  template <MemSpace S, typename F>
  bool atomic(const PInst &I, uint32_t Exec, F Fn) {
    uint32_t *D = row(I.Rd);
    const uint32_t *A = row(I.Rs1);
    return forLanesWhile(Exec, [&](unsigned Lane) {
      uint8_t *Ptr = resolve<S>(A[Lane], 4, Lane, Access::Atomic);
      if (!Ptr)
        return false;
      uint32_t Old = loadValue<4, false>(Ptr);
      storeValue<4>(Ptr, Fn(Old, Lane));
      D[Lane] = Old;
      return true;
    });
  }
  template <MemSpace S> bool atomicOp(Opcode Op, const PInst &I, uint32_t Exec);

  void shuffle(const PInst &I, uint32_t Exec, Opcode Op);
  void vote(const PInst &I, uint32_t Exec, Opcode Op);
  uint32_t specialReg(SpecialReg R, unsigned Lane, uint64_t Clock) const;

  bool execMemory(Opcode Op, const PInst &I, uint32_t Exec, bool &Handled);
  void recordAddresses(const PInst &I, uint32_t Exec);
  void traceLine(const PInst &I, unsigned Index, uint32_t Pc,
                 uint32_t ExecBefore, bool Taken, uint32_t NextPc);
};

uint8_t *Runner::memFault(MemSpace S, Access A, unsigned Bytes, uint32_t Addr,
                          unsigned Lane, const Twine &Why) {
  FaultLane = int(Lane);
  FaultMsg = (Twine(spaceName(S)) + " " + accessName(A) + " of " +
              Twine(Bytes) + " bytes at " + hex8(Addr) + " (" + Why + ")")
                 .str();
  return nullptr;
}

template <MemSpace S>
uint8_t *Runner::resolve(uint32_t Addr, unsigned Bytes, unsigned Lane,
                         Access A) {
  if (Addr & (Bytes - 1)) {
    memFault(S, A, Bytes, Addr, Lane,
             Twine("must be ") + Twine(Bytes) + "-byte aligned");
    FaultMsg = "misaligned " + FaultMsg;
    return nullptr;
  }
  auto OutOfBounds = [&](const Twine &Why) {
    memFault(S, A, Bytes, Addr, Lane, Why);
    FaultMsg = "out-of-bounds " + FaultMsg;
    return nullptr;
  };
  // Limit - Addr >= Bytes, written so that no sum can wrap.
  auto Inside = [&](uint32_t Limit) {
    return Addr < Limit && Limit - Addr >= Bytes;
  };
  if constexpr (S == MemSpace::Global) {
    uint32_t Off = Addr - L.Cache.Base;
    if (Off < L.Cache.Size && L.Cache.Size - Off >= Bytes)
      return L.Cache.Data + Off;
    const Allocation *Hit = L.Mem->find(Addr);
    if (Hit && Hit->Size - (Addr - Hit->Base) >= Bytes) {
      L.Cache = {Hit->Base, Hit->Size, Hit->Data.get()};
      return Hit->Data.get() + (Addr - Hit->Base);
    }
    return OutOfBounds(globalBoundsDetail(*L.Mem, Addr, Bytes));
  } else if constexpr (S == MemSpace::Shared) {
    if (Inside(L.SharedBytes))
      return B.Shared.data() + Addr;
    return OutOfBounds(formatv("the block has {0} bytes of shared memory: {1} "
                               "static + {2} dynamic",
                               L.SharedBytes, L.StaticShared,
                               L.SharedBytes - L.StaticShared));
  } else if constexpr (S == MemSpace::Local) {
    if (Inside(L.LocalBytes))
      return W.Local + localWarpOffset(Addr, Lane);
    return OutOfBounds(formatv(
        "the kernel has {0} bytes of local memory per thread", L.LocalBytes));
  } else if constexpr (S == MemSpace::Param) {
    if (Inside(uint32_t(L.ParamBuffer.size())))
      return L.ParamBuffer.data() + Addr;
    return OutOfBounds(
        formatv("the parameter buffer is {0} bytes", L.ParamBuffer.size()));
  } else {
    static_assert(S == MemSpace::Const);
    if (Inside(uint32_t(L.Image->Const.size())))
      return const_cast<uint8_t *>(L.Image->Const.data()) + Addr;
    return OutOfBounds(formatv("the image has {0} bytes of constant data",
                               L.Image->Const.size()));
  }
}

template <MemSpace S>
bool Runner::atomicOp(Opcode Op, const PInst &I, uint32_t Exec) {
  const uint32_t *V = row(I.Rs2), *C = row(I.Rs3);
  switch (Op) {
  case Opcode::ATOM_GLOBAL_ADD:
  case Opcode::ATOM_SHARED_ADD:
    return atomic<S>(
        I, Exec, [&](uint32_t Old, unsigned Lane) { return Old + V[Lane]; });
  case Opcode::ATOM_GLOBAL_FADD:
  case Opcode::ATOM_SHARED_FADD:
    return atomic<S>(I, Exec, [&](uint32_t Old, unsigned Lane) {
      return sem::fadd(Old, V[Lane]);
    });
  case Opcode::ATOM_GLOBAL_MIN:
  case Opcode::ATOM_SHARED_MIN:
    return atomic<S>(I, Exec, [&](uint32_t Old, unsigned Lane) {
      return sem::smin(Old, V[Lane]);
    });
  case Opcode::ATOM_GLOBAL_MAX:
  case Opcode::ATOM_SHARED_MAX:
    return atomic<S>(I, Exec, [&](uint32_t Old, unsigned Lane) {
      return sem::smax(Old, V[Lane]);
    });
  case Opcode::ATOM_GLOBAL_MINU:
  case Opcode::ATOM_SHARED_MINU:
    return atomic<S>(I, Exec, [&](uint32_t Old, unsigned Lane) {
      return sem::umin(Old, V[Lane]);
    });
  case Opcode::ATOM_GLOBAL_MAXU:
  case Opcode::ATOM_SHARED_MAXU:
    return atomic<S>(I, Exec, [&](uint32_t Old, unsigned Lane) {
      return sem::umax(Old, V[Lane]);
    });
  case Opcode::ATOM_GLOBAL_EXCH:
  case Opcode::ATOM_SHARED_EXCH:
    return atomic<S>(I, Exec, [&](uint32_t, unsigned Lane) { return V[Lane]; });
  case Opcode::ATOM_GLOBAL_CAS:
  case Opcode::ATOM_SHARED_CAS:
    return atomic<S>(I, Exec, [&](uint32_t Old, unsigned Lane) {
      return Old == V[Lane] ? C[Lane] : Old;
    });
  default:
    break;
  }
  return true;
}

/// Executes a load, store or atomic; sets \p Handled if \p Op is one.
/// Returns false on a memory fault.
bool Runner::execMemory(Opcode Op, const PInst &I, uint32_t Exec,
                        bool &Handled) {
  Handled = true;
#define TANDEM_MEM_OPS(PREFIX, SPACE)                                          \
  case Opcode::PREFIX##_LD_U8:                                                 \
    return load<SPACE, 1, false>(I, Exec);                                     \
  case Opcode::PREFIX##_LD_S8:                                                 \
    return load<SPACE, 1, true>(I, Exec);                                      \
  case Opcode::PREFIX##_LD_U16:                                                \
    return load<SPACE, 2, false>(I, Exec);                                     \
  case Opcode::PREFIX##_LD_S16:                                                \
    return load<SPACE, 2, true>(I, Exec);                                      \
  case Opcode::PREFIX##_LD_U32:                                                \
    return load<SPACE, 4, false>(I, Exec);                                     \
  case Opcode::PREFIX##_ST_U8:                                                 \
    return store<SPACE, 1>(I, Exec);                                           \
  case Opcode::PREFIX##_ST_U16:                                                \
    return store<SPACE, 2>(I, Exec);                                           \
  case Opcode::PREFIX##_ST_U32:                                                \
    return store<SPACE, 4>(I, Exec);
  switch (Op) {
    TANDEM_MEM_OPS(GLOBAL, MemSpace::Global)
    TANDEM_MEM_OPS(SHARED, MemSpace::Shared)
    TANDEM_MEM_OPS(LOCAL, MemSpace::Local)
  // Mask spill code: every lane, active or not.
  case Opcode::LOCAL_LD_ALL_U32:
    return load<MemSpace::Local, 4, false>(I, AllLanes);
  case Opcode::LOCAL_ST_ALL_U32:
    return store<MemSpace::Local, 4>(I, AllLanes);
  case Opcode::PARAM_LD_U32:
    return load<MemSpace::Param, 4, false>(I, Exec);
  case Opcode::CONST_LD_U32:
    return load<MemSpace::Const, 4, false>(I, Exec);
  case Opcode::ATOM_GLOBAL_ADD:
  case Opcode::ATOM_GLOBAL_FADD:
  case Opcode::ATOM_GLOBAL_MIN:
  case Opcode::ATOM_GLOBAL_MAX:
  case Opcode::ATOM_GLOBAL_MINU:
  case Opcode::ATOM_GLOBAL_MAXU:
  case Opcode::ATOM_GLOBAL_EXCH:
  case Opcode::ATOM_GLOBAL_CAS:
    return atomicOp<MemSpace::Global>(Op, I, Exec);
  case Opcode::ATOM_SHARED_ADD:
  case Opcode::ATOM_SHARED_FADD:
  case Opcode::ATOM_SHARED_MIN:
  case Opcode::ATOM_SHARED_MAX:
  case Opcode::ATOM_SHARED_MINU:
  case Opcode::ATOM_SHARED_MAXU:
  case Opcode::ATOM_SHARED_EXCH:
  case Opcode::ATOM_SHARED_CAS:
    return atomicOp<MemSpace::Shared>(Op, I, Exec);
  default:
    Handled = false;
    return true;
  }
#undef TANDEM_MEM_OPS
}

void Runner::shuffle(const PInst &I, uint32_t Exec, Opcode Op) {
  // rd may alias rs1 and lanes read each other: read all sources first.
  uint32_t Src[32];
  std::memcpy(Src, row(I.Rs1), sizeof(Src));
  const uint32_t *Sel = row(I.Rs2);
  uint32_t *D = row(I.Rd);
  forLanes(Exec, [&](unsigned Lane) {
    uint32_t S = Sel[Lane];
    uint32_t From = Lane;
    switch (Op) {
    case Opcode::SHFL_IDX:
      From = S & 31;
      break;
    case Opcode::SHFL_UP:
      From = S <= Lane ? Lane - S : Lane;
      break;
    case Opcode::SHFL_DOWN:
      From = uint64_t(Lane) + S <= 31 ? Lane + S : Lane;
      break;
    default: // SHFL_XOR
      From = Lane ^ (S & 31);
      break;
    }
    // An inactive source lane's value is not visible: keep our own.
    D[Lane] = (Exec >> From) & 1 ? Src[From] : Src[Lane];
  });
}

void Runner::vote(const PInst &I, uint32_t Exec, Opcode Op) {
  uint32_t Ballot = nonzeroLanes(I.Rs1, Exec);
  uint32_t Result = Op == Opcode::VOTE_BALLOT ? Ballot
                    : Op == Opcode::VOTE_ANY  ? uint32_t(Ballot != 0)
                                              : uint32_t(Ballot == Exec);
  uint32_t *D = row(I.Rd);
  forLanes(Exec, [&](unsigned Lane) { D[Lane] = Result; });
}

uint32_t Runner::specialReg(SpecialReg R, unsigned Lane, uint64_t Clock) const {
  const Dim3 &Bd = L.Params->Block;
  uint32_t T = W.Id * 32 + Lane; // linear thread index in the block
  switch (R) {
  case SpecialReg::TID_X:
    return T % Bd.X;
  case SpecialReg::TID_Y:
    return (T / Bd.X) % Bd.Y;
  case SpecialReg::TID_Z:
    return T / (Bd.X * Bd.Y);
  case SpecialReg::NTID_X:
    return Bd.X;
  case SpecialReg::NTID_Y:
    return Bd.Y;
  case SpecialReg::NTID_Z:
    return Bd.Z;
  case SpecialReg::CTAID_X:
    return B.Idx.X;
  case SpecialReg::CTAID_Y:
    return B.Idx.Y;
  case SpecialReg::CTAID_Z:
    return B.Idx.Z;
  case SpecialReg::NCTAID_X:
    return L.Params->Grid.X;
  case SpecialReg::NCTAID_Y:
    return L.Params->Grid.Y;
  case SpecialReg::NCTAID_Z:
    return L.Params->Grid.Z;
  case SpecialReg::LANEID:
    return Lane;
  case SpecialReg::WARPID:
    return W.Id;
  case SpecialReg::NWARPS:
    return L.NumWarps;
  case SpecialReg::CLOCK:
    return uint32_t(Clock);
  }
  return 0;
}

void Runner::recordAddresses(const PInst &I, uint32_t Exec) {
  const uint32_t *A = row(I.Rs1);
  forLanes(Exec,
           [&](unsigned Lane) { TraceAddr[Lane] = A[Lane] + uint32_t(I.Imm); });
}

void appendLanes(raw_ostream &OS, const uint32_t *V, uint32_t Mask) {
  OS << '[';
  bool First = true;
  for (unsigned Lane = 0; Lane < 32; ++Lane) {
    if (!((Mask >> Lane) & 1))
      continue;
    if (!First)
      OS << ' ';
    OS << format_hex_no_prefix(V[Lane], 8);
    First = false;
  }
  OS << ']';
}

void Runner::traceLine(const PInst &I, unsigned Index, uint32_t Pc,
                       uint32_t ExecBefore, bool Taken, uint32_t NextPc) {
  raw_ostream &OS = *L.Trace;
  const simt::InstrDesc &D = simt::getDesc(I.Op);
  // An all-lanes instruction (mask spill code) acts in every lane: its
  // mask, addresses and stored values are shown for all 32, as on rtl.
  if (D.has(simt::AllLanes))
    ExecBefore = AllLanes;
  OS << "b=" << B.Linear << " w=" << W.Id << " pc=" << pcHex(Pc)
     << " mask=" << format_hex_no_prefix(ExecBefore, 8) << ' '
     << P.asmAt(Index);
  std::string Effects;
  raw_string_ostream ES(Effects);
  bool WritesRd = D.NumOperands > 0 && D.Operands[0].IsDef &&
                  D.Operands[0].Where == simt::Field::Rd;
  if (WritesRd && I.Rd != P.SinkRow) {
    ES << " r" << unsigned(I.Rd) << '=';
    appendLanes(ES, row(I.Rd),
                D.has(simt::WritesAllLanes) ? AllLanes : ExecBefore);
  }
  if (D.has(simt::IsLoad) || D.has(simt::IsStore) || D.has(simt::IsAtomic)) {
    ES << " a=";
    appendLanes(ES, TraceAddr, ExecBefore);
  }
  if (D.has(simt::IsStore)) {
    ES << " v=";
    appendLanes(ES, row(I.Rs2), ExecBefore);
  }
  if (D.has(simt::IsBranch) || D.has(simt::IsJump)) {
    if (Taken)
      ES << " taken->" << pcHex(NextPc);
    else
      ES << " not-taken";
  } else if (D.has(simt::IsMaskOp) && !WritesRd) { // emask.get only reads exec
    ES << " exec=" << format_hex_no_prefix(W.Exec, 8);
    if (D.has(simt::IsExit))
      ES << " alive=" << format_hex_no_prefix(W.Alive, 8);
  }
  if (D.has(simt::IsBarrier))
    ES << " wait";
  if (!Effects.empty())
    OS << " |" << Effects;
  OS << '\n';
}

template <bool Tracing> Error Runner::run() {
  const PInst *Code = P.Insts.data();
  const uint32_t Entry = P.Entry;
  const uint64_t Limit = L.StepLimit;
  uint64_t *WarpCount = L.S.WarpInstrs.data();
  uint64_t *ThreadCount = L.S.ThreadInstrs.data();
  uint32_t PrevPc = W.Pc;

  for (;;) {
    const uint32_t Pc = W.Pc;
    const uint32_t Offset = Pc - Entry;
    if (Offset >= P.CodeBytes)
      return makeFault(L, B, W, -1, Pc,
                       pcOutsideCodeText(P.Kernel->Name, Entry, P.CodeBytes, PrevPc));
    const unsigned Index = Offset >> 2;
    const PInst &I = Code[Index];
    if (Limit && L.Steps >= Limit)
      return makeFault(
          L, B, W, -1, Pc,
          formatv("step limit exceeded: {0} warp instructions "
                  "executed in this launch (an endless loop? raise "
                  "DeviceOptions::StepLimit or --step-limit)",
                  Limit));
    const uint32_t Exec = W.Exec;
    const uint64_t Clock = L.Steps++;
    const Opcode Op = I.Op;
    WarpCount[unsigned(Op)] += 1;
    ThreadCount[unsigned(Op)] += unsigned(llvm::popcount(Exec));
    uint32_t NextPc = Pc + 4;
    bool Taken = false, Stop = false;
    if constexpr (Tracing) {
      if (Op != Opcode::INVALID &&
          (simt::getDesc(Op).Flags &
           (simt::IsLoad | simt::IsStore | simt::IsAtomic)))
        recordAddresses(I, simt::getDesc(Op).has(simt::AllLanes) ? AllLanes
                                                                   : Exec);
    }

    switch (Op) {
    // Integer.
    case Opcode::ADD:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return A + B; });
      break;
    case Opcode::SUB:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return A - B; });
      break;
    case Opcode::MUL:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return A * B; });
      break;
    case Opcode::MULHI:
      binary(I, Exec, sem::mulhi);
      break;
    case Opcode::MULHIU:
      binary(I, Exec, sem::mulhiu);
      break;
    case Opcode::AND:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return A & B; });
      break;
    case Opcode::OR:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return A | B; });
      break;
    case Opcode::XOR:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return A ^ B; });
      break;
    case Opcode::SHL:
      binary(I, Exec, sem::shl);
      break;
    case Opcode::SHR:
      binary(I, Exec, sem::shr);
      break;
    case Opcode::SRA:
      binary(I, Exec, sem::sra);
      break;
    case Opcode::MIN:
      binary(I, Exec, sem::smin);
      break;
    case Opcode::MAX:
      binary(I, Exec, sem::smax);
      break;
    case Opcode::MINU:
      binary(I, Exec, sem::umin);
      break;
    case Opcode::MAXU:
      binary(I, Exec, sem::umax);
      break;
    case Opcode::SETEQ:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return uint32_t(A == B); });
      break;
    case Opcode::SETNE:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return uint32_t(A != B); });
      break;
    case Opcode::SETLT:
      binary(I, Exec, [](uint32_t A, uint32_t B) {
        return uint32_t(int32_t(A) < int32_t(B));
      });
      break;
    case Opcode::SETLE:
      binary(I, Exec, [](uint32_t A, uint32_t B) {
        return uint32_t(int32_t(A) <= int32_t(B));
      });
      break;
    case Opcode::SETLTU:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return uint32_t(A < B); });
      break;
    case Opcode::SETLEU:
      binary(I, Exec, [](uint32_t A, uint32_t B) { return uint32_t(A <= B); });
      break;
    case Opcode::SEL:
      ternary(I, Exec,
              [](uint32_t C, uint32_t T, uint32_t F) { return C ? T : F; });
      break;
    case Opcode::MOV:
      unary(I, Exec, [](uint32_t A) { return A; });
      break;
    case Opcode::POPC:
      unary(I, Exec, sem::popc);
      break;
    case Opcode::CLZ:
      unary(I, Exec, sem::clz);
      break;
    case Opcode::BREV:
      unary(I, Exec, sem::brev);
      break;
    case Opcode::DIV:
      binary(I, Exec, sem::sdiv);
      break;
    case Opcode::DIVU:
      binary(I, Exec, sem::udiv);
      break;
    case Opcode::REM:
      binary(I, Exec, sem::srem);
      break;
    case Opcode::REMU:
      binary(I, Exec, sem::urem);
      break;

    // Integer with an immediate (already sign-extended by the decoder).
    case Opcode::ADDI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) { return A + B; });
      break;
    case Opcode::ANDI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) { return A & B; });
      break;
    case Opcode::ORI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) { return A | B; });
      break;
    case Opcode::XORI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) { return A ^ B; });
      break;
    case Opcode::SHLI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) { return A << (B & 31); });
      break;
    case Opcode::SHRI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) { return A >> (B & 31); });
      break;
    case Opcode::SRAI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) {
        return uint32_t(int32_t(A) >> (B & 31));
      });
      break;
    case Opcode::SETEQI:
      binaryImm(I, Exec,
                [](uint32_t A, uint32_t B) { return uint32_t(A == B); });
      break;
    case Opcode::SETNEI:
      binaryImm(I, Exec,
                [](uint32_t A, uint32_t B) { return uint32_t(A != B); });
      break;
    case Opcode::SETLTI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) {
        return uint32_t(int32_t(A) < int32_t(B));
      });
      break;
    case Opcode::SETLTUI:
      binaryImm(I, Exec,
                [](uint32_t A, uint32_t B) { return uint32_t(A < B); });
      break;
    case Opcode::SETGTI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) {
        return uint32_t(int32_t(A) > int32_t(B));
      });
      break;
    case Opcode::SETGTUI:
      binaryImm(I, Exec,
                [](uint32_t A, uint32_t B) { return uint32_t(A > B); });
      break;
    case Opcode::MULI:
      binaryImm(I, Exec, [](uint32_t A, uint32_t B) { return A * B; });
      break;
    case Opcode::MOVI: {
      uint32_t *D = row(I.Rd);
      uint32_t V = uint32_t(I.Imm);
      forLanes(Exec, [&](unsigned Lane) { D[Lane] = V; });
      break;
    }
    case Opcode::MOVT: {
      uint32_t *D = row(I.Rd);
      uint32_t Hi = uint32_t(I.Imm) << 16;
      forLanes(Exec,
               [&](unsigned Lane) { D[Lane] = Hi | (D[Lane] & 0xffffu); });
      break;
    }

    // Floating point.
    case Opcode::FADD:
      binary(I, Exec, sem::fadd);
      break;
    case Opcode::FSUB:
      binary(I, Exec, sem::fsub);
      break;
    case Opcode::FMUL:
      binary(I, Exec, sem::fmul);
      break;
    case Opcode::FFMA:
      ternary(I, Exec, sem::ffma);
      break;
    case Opcode::FMIN:
      binary(I, Exec, sem::fmin);
      break;
    case Opcode::FMAX:
      binary(I, Exec, sem::fmax);
      break;
    case Opcode::FNEG:
      unary(I, Exec, [](uint32_t A) { return A ^ sem::SignBit; });
      break;
    case Opcode::FABS:
      unary(I, Exec, [](uint32_t A) { return A & ~sem::SignBit; });
      break;
    case Opcode::FSETEQ:
      binary(I, Exec, sem::fseteq);
      break;
    case Opcode::FSETNE:
      binary(I, Exec, sem::fsetne);
      break;
    case Opcode::FSETLT:
      binary(I, Exec, sem::fsetlt);
      break;
    case Opcode::FSETLE:
      binary(I, Exec, sem::fsetle);
      break;
    case Opcode::FSETNAN:
      binary(I, Exec, sem::fsetnan);
      break;
    case Opcode::FDIV:
      binary(I, Exec, sem::fdiv);
      break;
    case Opcode::FSQRT:
      unary(I, Exec, sem::fsqrt);
      break;
    case Opcode::CVT_F32_S32:
      unary(I, Exec, sem::cvtF32S32);
      break;
    case Opcode::CVT_F32_U32:
      unary(I, Exec, sem::cvtF32U32);
      break;
    case Opcode::CVT_S32_F32:
      unary(I, Exec, sem::cvtS32F32);
      break;
    case Opcode::CVT_U32_F32:
      unary(I, Exec, sem::cvtU32F32);
      break;
    case Opcode::FFLOOR:
      unary(I, Exec, sem::ffloor);
      break;
    case Opcode::FCEIL:
      unary(I, Exec, sem::fceil);
      break;
    case Opcode::FTRUNC:
      unary(I, Exec, sem::ftrunc);
      break;
    case Opcode::FRINT:
      unary(I, Exec, sem::frint);
      break;

    // Warp operations.
    case Opcode::SHFL_IDX:
    case Opcode::SHFL_UP:
    case Opcode::SHFL_DOWN:
    case Opcode::SHFL_XOR:
      shuffle(I, Exec, Op);
      break;
    case Opcode::VOTE_ANY:
    case Opcode::VOTE_ALL:
    case Opcode::VOTE_BALLOT:
      vote(I, Exec, Op);
      break;

    // Exec mask.
    case Opcode::EMASK_GET: {
      uint32_t *D = row(I.Rd);
      for (unsigned Lane = 0; Lane < 32; ++Lane)
        D[Lane] = Exec;
      break;
    }
    case Opcode::EMASK_SET:
      W.Exec = row(I.Rs1)[0] & W.Alive;
      break;
    case Opcode::EMASK_AND:
      W.Exec = nonzeroLanes(I.Rs1, Exec);
      break;
    case Opcode::EMASK_ANDN:
      W.Exec = Exec & ~nonzeroLanes(I.Rs1, Exec);
      break;

    // Control.
    case Opcode::BRA:
      Taken = true;
      break;
    case Opcode::BNZ:
    case Opcode::BZ: {
      uint32_t NonZero = nonzeroLanes(I.Rs1, Exec);
      if (NonZero != 0 && NonZero != Exec)
        ++L.S.DivergentBranches;
      Taken = (Op == Opcode::BNZ) == (NonZero != 0);
      break;
    }
    case Opcode::BNONE:
      Taken = Exec == 0;
      break;
    case Opcode::BANY:
      Taken = Exec != 0;
      break;
    case Opcode::EXIT:
      W.Alive &= ~Exec;
      W.Exec = 0;
      if (W.Alive == 0) {
        W.Status = WarpStatus::Finished;
        Stop = true;
      }
      break;
    case Opcode::BAR:
      W.Status = WarpStatus::AtBarrier;
      Stop = true;
      break;
    case Opcode::NOP:
      break;
    case Opcode::S2R: {
      uint32_t *D = row(I.Rd);
      SpecialReg R = SpecialReg(I.Imm);
      forLanes(Exec,
               [&](unsigned Lane) { D[Lane] = specialReg(R, Lane, Clock); });
      break;
    }

    case Opcode::INVALID:
      return makeFault(L, B, W, -1, Pc,
                       "illegal instruction: " + P.IllegalWhy[Index]);

    case Opcode::LOCAL_LD_ALL_U32:
    case Opcode::LOCAL_ST_ALL_U32: {
      // Mask spill code acts in every lane, so it counts 32 threads.
      ThreadCount[unsigned(Op)] += 32 - unsigned(llvm::popcount(Exec));
      bool Handled = false;
      if (!execMemory(Op, I, Exec, Handled))
        return makeFault(L, B, W, FaultLane, Pc, FaultMsg);
      break;
    }
    default: {
      bool Handled = false;
      if (!execMemory(Op, I, Exec, Handled))
        return makeFault(L, B, W, FaultLane, Pc, FaultMsg);
      if (!Handled)
        return makeFault(L, B, W, -1, Pc,
                         formatv("illegal instruction: the simulator does not "
                                 "implement {0}",
                                 simt::getDesc(Op).Name));
      break;
    }
    }

    if (Taken) {
      NextPc = Pc + uint32_t(I.Imm) * 4;
      ++L.S.BranchesTaken;
    }
    if constexpr (Tracing)
      traceLine(I, Index, Pc, Exec, Taken, NextPc);
    PrevPc = Pc;
    W.Pc = NextPc;
    if (Stop)
      return Error::success();
  }
}

} // namespace

Error runWarp(Launch &L, Block &B, Warp &W) {
  Runner R(L, B, W);
  return L.Trace ? R.run<true>() : R.run<false>();
}

} // namespace tandem::iss::detail
