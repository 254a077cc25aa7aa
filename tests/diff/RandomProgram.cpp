//===- RandomProgram.cpp - Random valid SIMT programs ---------------------===//
//
// The generator and the printer of RandomProgram.h. Register roles (fixed,
// so leaves stay valid when the reducer deletes or hoists regions):
//   r1 linear thread index t in the block      r2 %laneid
//   r3 this thread's output slot (global)       r4 the input buffer
//   r5 this thread's private atomic words       r6 this warp's atomic words
//   r7 the exec mask at entry                   r8, r9, r31 leaf scratch
//   r10..r21 data (the only registers leaves write, besides the scratch)
//   r22 + 3d, r23 + 3d, r24 + 3d: saved mask, condition and trip counter of
//   the region at nesting depth d (0..2)
// r3..r6 hold device addresses: they are only ever added to a masked offset
// and used as an address, never stored, so allocators may differ.
//
//===----------------------------------------------------------------------===//

#include "RandomProgram.h"

#include "ISA.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <random>

using namespace llvm;

namespace tandem::diff {
namespace {

constexpr unsigned FirstData = 10, NumData = 12;
constexpr unsigned MaxDepthRegs = 3; // r22..r30

class Rng {
public:
  explicit Rng(uint64_t Seed) : Engine(Seed) {}
  /// Uniform in [Lo, Hi].
  int64_t range(int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Engine);
  }
  bool chance(unsigned Percent) { return range(0, 99) < int64_t(Percent); }
  uint32_t word() { return uint32_t(Engine()); }
  template <typename T> const T &pick(const std::vector<T> &V) {
    return V[size_t(range(0, int64_t(V.size()) - 1))];
  }

private:
  std::mt19937_64 Engine;
};

std::string reg(unsigned R) { return "r" + std::to_string(R); }

/// The ALU, FPU, shuffle and vote instructions: every opcode whose operands
/// are registers and immediates and that touches neither memory, control
/// flow nor the exec mask. Taken from the tables, so a new arithmetic
/// instruction in the .td is generated without a change here.
const std::vector<simt::Opcode> &computeOpcodes() {
  static const std::vector<simt::Opcode> Ops = [] {
    std::vector<simt::Opcode> R;
    constexpr uint32_t Excluded =
        simt::IsLoad | simt::IsStore | simt::IsAtomic | simt::IsBranch |
        simt::IsJump | simt::IsTerminator | simt::IsBarrier | simt::IsExit |
        simt::IsMaskOp;
    for (unsigned I = 0; I < simt::numOpcodes(); ++I) {
      const simt::InstrDesc &D = simt::getDesc(simt::opcodeAt(I));
      if (D.Flags & Excluded)
        continue;
      bool HasSpecialReg = false;
      for (unsigned K = 0; K < D.NumOperands; ++K)
        HasSpecialReg |= D.Operands[K].Kind == simt::OperandKind::SpecialReg ||
                         D.Operands[K].Kind == simt::OperandKind::PCRel;
      if (!HasSpecialReg)
        R.push_back(simt::opcodeAt(I));
    }
    return R;
  }();
  return Ops;
}

const std::vector<std::string> CommutativeAtomics = {"add", "min", "max",
                                                     "minu", "maxu"};

class Generator {
public:
  Generator(uint64_t Seed, const GenOptions &Opts) : R(Seed), Opts(Opts) {}

  RandomProgram run(uint64_t Seed) {
    RandomProgram P;
    P.Seed = Seed;
    pickLaunch(P);
    P.U0 = R.word();
    P.U1 = randomDataWord();
    for (unsigned I = 0; I < layout::ConstWords; ++I)
      P.ConstWords.push_back(randomDataWord());
    // One operation per program on contended words: each of add, min, max,
    // minu, maxu commutes with itself, but mixed on one word they do not
    // (min then max != max then min), and simulators interleave warps
    // differently.
    ContendedGlobalOp = R.pick(CommutativeAtomics);
    ContendedSharedOp = R.pick(CommutativeAtomics);
    P.Body = block(0, /*Uniform=*/true, Opts.TopLevelNodes);
    return P;
  }

private:
  void pickLaunch(RandomProgram &P) {
    // Full warps, partial warps, 2-D blocks, and a block of one warp.
    static const std::vector<std::pair<uint32_t, uint32_t>> Blocks = {
        {32, 1}, {64, 1}, {48, 1}, {96, 1}, {128, 1}, {16, 4},
        {40, 2}, {7, 1},  {33, 1}, {256, 1}, {8, 8}, {100, 1}};
    auto [BX, BY] = R.pick(Blocks);
    P.Block = {BX, BY, 1};
    P.Grid = {uint32_t(R.range(1, 3)), uint32_t(R.range(1, 2)), 1};
  }

  /// Data words: mostly ordinary floats and small integers, some raw bits
  /// and fp edge cases (zeros, infinities, NaN, subnormals).
  uint32_t randomDataWord() {
    int64_t Kind = R.range(0, 9);
    if (Kind < 4) {
      float F = float(R.range(-100000, 100000)) / 1000.0f;
      uint32_t Bits;
      std::memcpy(&Bits, &F, 4);
      return Bits;
    }
    if (Kind < 6)
      return uint32_t(R.range(-40, 40));
    if (Kind < 9)
      return R.word();
    static const uint32_t Edge[] = {0x00000000, 0x80000000, 0x7f800000,
                                    0xff800000, 0x7fc00000, 0x00000001,
                                    0x807fffff, 0x7f7fffff, 0x3f800000,
                                    0x80000001, 0x7fffffff, 0xffffffff};
    return Edge[R.range(0, std::size(Edge) - 1)];
  }

  std::string dataReg() { return reg(FirstData + unsigned(R.range(0, NumData - 1))); }
  /// A source: usually data, sometimes t, the lane or zero.
  std::string srcReg() {
    int64_t K = R.range(0, 19);
    if (K == 0)
      return "r0";
    if (K == 1)
      return "r1";
    if (K == 2)
      return "r2";
    return dataReg();
  }

  std::vector<Node> block(unsigned Depth, bool Uniform, unsigned Count) {
    std::vector<Node> Nodes;
    for (unsigned I = 0; I < Count; ++I)
      Nodes.push_back(node(Depth, Uniform));
    return Nodes;
  }

  Node node(unsigned Depth, bool Uniform) {
    if (Depth < Opts.MaxDepth && Depth < MaxDepthRegs && R.chance(22))
      return region(Depth, Uniform);
    if (Uniform && R.chance(6))
      return R.chance(50) ? leaf({"bar"}) : exchange();
    return leaf(Depth);
  }

  unsigned bodySize(unsigned Depth) {
    return unsigned(R.range(1, Depth == 0 ? 6 : 3));
  }

  Node region(unsigned Depth, bool Uniform) {
    Node N;
    switch (R.range(0, 4)) {
    case 0:
    case 1:
      N.Kind = NodeKind::IfElse;
      N.Cond = condition();
      N.Body = block(Depth + 1, false, bodySize(Depth));
      if (R.chance(70))
        N.Else = block(Depth + 1, false, bodySize(Depth));
      return N;
    case 2:
      N.Kind = NodeKind::DivLoop;
      N.Cond = "andi $C, " + srcReg() + ", 3";
      N.Body = block(Depth + 1, false, bodySize(Depth));
      return N;
    case 3:
      N.Kind = NodeKind::UniLoop;
      N.Trips = unsigned(R.range(1, 4));
      N.Body = block(Depth + 1, Uniform, bodySize(Depth));
      return N;
    default:
      if (R.chance(50)) {
        N.Kind = NodeKind::UniIf;
        N.ParamBit = unsigned(R.range(0, 31));
        N.Body = block(Depth + 1, Uniform, bodySize(Depth));
      } else {
        N.Kind = NodeKind::PartialExit;
        N.Cond = condition();
      }
      return N;
    }
  }

  std::string condition() {
    switch (R.range(0, 5)) {
    case 0:
      return "andi $C, " + dataReg() + ", " + std::to_string(1 << R.range(0, 10));
    case 1:
      return "setlt $C, " + dataReg() + ", " + dataReg();
    case 2:
      return "setltui $C, r2, " + std::to_string(R.range(1, 31));
    case 3:
      return "fsetlt $C, " + dataReg() + ", " + dataReg();
    case 4:
      return "andi $C, r1, " + std::to_string(1 << R.range(0, 6));
    default:
      return "setgtui $C, " + dataReg() + ", " + std::to_string(R.range(0, 40));
    }
  }

  static Node leaf(std::vector<std::string> Lines) {
    Node N;
    N.Lines = std::move(Lines);
    return N;
  }

  Node leaf(unsigned Depth) {
    (void)Depth;
    int64_t K = R.range(0, 99);
    if (K < 45)
      return leaf({computeInst()});
    if (K < 48)
      return leaf({"emask.get " + dataReg()});
    if (K < 51)
      return leaf({specialRead()});
    if (K < 54)
      return leaf({"ld.param.u32 " + dataReg() + ", [r0 + @u" +
                   std::to_string(R.range(0, 1)) + "]"});
    if (K < 57)
      return leaf({"andi r8, " + srcReg() + ", " +
                       std::to_string((layout::ConstWords - 1) * 4),
                   "ld.const.u32 " + dataReg() + ", [r8 + 0]"});
    if (K < 85)
      return memoryLeaf();
    return atomicLeaf();
  }

  std::string computeInst() {
    simt::Opcode Op = R.pick(computeOpcodes());
    const simt::InstrDesc &D = simt::getDesc(Op);
    simt::DecodedInst I;
    I.Op = Op;
    for (unsigned K = 0; K < D.NumOperands; ++K) {
      const simt::OperandInfo &O = D.Operands[K];
      int64_t V = 0;
      if (O.Kind == simt::OperandKind::GPR) {
        std::string Name = O.IsDef ? dataReg() : srcReg();
        V = std::stoi(Name.substr(1));
      } else {
        auto [Lo, Hi] = simt::immRange(Op);
        V = R.chance(70) ? std::clamp<int64_t>(R.range(-40, 40), Lo, Hi)
                         : R.range(Lo, Hi);
      }
      switch (O.Where) {
      case simt::Field::Rd:
        I.Rd = uint8_t(V);
        break;
      case simt::Field::Rs1:
        I.Rs1 = uint8_t(V);
        break;
      case simt::Field::Rs2:
        I.Rs2 = uint8_t(V);
        break;
      case simt::Field::Rs3:
        I.Rs3 = uint8_t(V);
        break;
      case simt::Field::Imm:
        I.Imm = int32_t(V);
        break;
      }
    }
    return simt::formatInst(I, 0);
  }

  std::string specialRead() {
    // %clock is the one value devices may legitimately disagree on.
    static const std::vector<std::string> Names = {
        "tid.x",    "tid.y",    "ntid.x",   "ntid.y",  "ctaid.x", "ctaid.y",
        "nctaid.x", "nctaid.y", "laneid",   "warpid",  "nwarps",  "tid.z"};
    return "s2r " + dataReg() + ", %" + R.pick(Names);
  }

  /// Access sizes: the mask keeps an offset aligned to the access.
  struct Access {
    const char *Suffix;
    unsigned AlignMask;
  };
  Access loadAccess() {
    static const std::vector<Access> A = {
        {"u32", 3}, {"u32", 3}, {"u16", 1}, {"s16", 1}, {"u8", 0}, {"s8", 0}};
    return R.pick(A);
  }
  Access storeAccess() {
    static const std::vector<Access> A = {
        {"u32", 3}, {"u32", 3}, {"u16", 1}, {"u8", 0}};
    return R.pick(A);
  }
  static std::string mask(unsigned Bytes, unsigned AlignMask) {
    return std::to_string((Bytes - 1) & ~AlignMask);
  }

  Node memoryLeaf() {
    bool Load = R.chance(55);
    Access A = Load ? loadAccess() : storeAccess();
    std::string Op = Load ? std::string("ld.") : std::string("st.");
    auto access = [&](const std::string &Space, const std::string &Addr) {
      if (Load)
        return Op + Space + "." + A.Suffix + " " + dataReg() + ", " + Addr;
      return Op + Space + "." + A.Suffix + " " + Addr + ", " + srcReg();
    };
    std::string X = srcReg();
    switch (R.range(0, 3)) {
    case 0: // global: the input (read only) or this thread's slot
      if (Load && R.chance(50))
        return leaf({"andi r8, " + X + ", " +
                         mask(layout::InWords * 4, A.AlignMask),
                     "add r8, r8, r4", access("global", "[r8 + 0]")});
      return leaf({"andi r8, " + X + ", " + mask(32, A.AlignMask),
                   "add r8, r8, r3", access("global", "[r8 + 64]")});
    case 1: // shared: this thread's private words
      return leaf({"andi r8, " + X + ", " + mask(16, A.AlignMask),
                   "shli r9, r1, 4", "add r8, r8, r9",
                   "movi r9, " + std::to_string(layout::SharedPrivate),
                   "add r8, r8, r9", access("shared", "[r8 + 0]")});
    default: // local
      return leaf({"andi r8, " + X + ", " + mask(layout::LocalBytes, A.AlignMask),
                   access("local", "[r8 + 0]")});
    }
  }

  Node atomicLeaf() {
    static const std::vector<std::string> AllOps = {
        "add", "fadd", "min", "max", "minu", "maxu", "exch", "cas"};
    std::string X = srcReg(), V = srcReg();
    switch (R.range(0, 4)) {
    case 0: // contended global words: one commutative op, old value dropped
      return leaf({"andi r8, " + X + ", " +
                       std::to_string((layout::ContendedWords - 1) * 4),
                   "ld.param.u32 r9, [r0 + @atomc]", "add r8, r8, r9",
                   "atom.global." + ContendedGlobalOp + " r0, [r8], " + V});
    case 1: // contended shared counters of the block
      return leaf({"andi r8, " + X + ", " +
                       std::to_string((layout::BlockCounterWords - 1) * 4),
                   "atom.shared." + ContendedSharedOp + " r0, [r8], " + V});
    case 2: // this thread's global words: any op, old value kept
      return privateAtomic("global", {"andi r8, " + X + ", 12", "add r8, r8, r5"},
                           R.pick(AllOps), V);
    case 3: // this warp's global words: lanes apply in lane order
      return privateAtomic("global", {"andi r8, " + X + ", 12", "add r8, r8, r6"},
                           R.pick(AllOps), V);
    default: // this warp's shared words
      return privateAtomic("shared",
                           {"andi r8, " + X + ", 12", "s2r r9, %warpid",
                            "shli r9, r9, 4", "add r8, r8, r9",
                            "addi r8, r8, " + std::to_string(layout::SharedWarp)},
                           R.pick(AllOps), V);
    }
  }

  Node privateAtomic(const std::string &Space, std::vector<std::string> Lines,
                     const std::string &Op, const std::string &V) {
    std::string Inst = "atom." + Space + "." + Op + " " + dataReg() + ", [r8], ";
    if (Op != "cas") {
      Lines.push_back(Inst + V);
      return leaf(std::move(Lines));
    }
    // A compare value read from the word itself makes the first lane succeed.
    if (R.chance(60)) {
      Lines.push_back("ld." + Space + ".u32 r9, [r8 + 0]");
      Lines.push_back(Inst + "r9, " + V);
    } else {
      Lines.push_back(Inst + srcReg() + ", " + V);
    }
    return leaf(std::move(Lines));
  }

  /// Threads publish a word, then read a neighbour's (t + k) mod T, between
  /// barriers so no access races with a write.
  Node exchange() {
    std::string X = srcReg();
    return leaf({"bar", "shli r8, r1, 2",
                 "movi r9, " + std::to_string(layout::SharedExchange),
                 "add r8, r8, r9", "st.shared.u32 [r8 + 0], " + srcReg(), "bar",
                 "andi r8, " + X + ", 63", "add r8, r8, r1", "s2r r9, %ntid.x",
                 "s2r r31, %ntid.y", "mul r9, r9, r31", "remu r8, r8, r9",
                 "shli r8, r8, 2",
                 "movi r9, " + std::to_string(layout::SharedExchange),
                 "add r8, r8, r9", "ld.shared.u32 " + dataReg() + ", [r8 + 0]",
                 "bar"});
  }

  Rng R;
  GenOptions Opts;
  std::string ContendedGlobalOp = "add", ContendedSharedOp = "add";
};

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

class Printer {
public:
  explicit Printer(raw_ostream &OS) : OS(OS) {}

  void nodes(const std::vector<Node> &Ns, unsigned Depth) {
    for (const Node &N : Ns)
      node(N, Depth);
  }

  void line(const Twine &T) { OS << "  " << T << "\n"; }
  void label(const std::string &L) { OS << L << ":\n"; }

private:
  std::string newLabel(const char *Kind) {
    return formatv(".{0}{1}", Kind, NextLabel++).str();
  }
  static std::string cond(const std::string &Tmpl, unsigned R) {
    std::string S = Tmpl;
    size_t P = S.find("$C");
    if (P != std::string::npos)
      S.replace(P, 2, reg(R));
    return S;
  }

  void node(const Node &N, unsigned Depth) {
    unsigned Save = 22 + 3 * Depth, Cond = 23 + 3 * Depth,
             Count = 24 + 3 * Depth;
    switch (N.Kind) {
    case NodeKind::Leaf:
      for (const std::string &L : N.Lines)
        line(L);
      return;
    case NodeKind::IfElse: {
      std::string Else = newLabel("else"), End = newLabel("endif");
      line("emask.get " + reg(Save));
      line(cond(N.Cond, Cond));
      line("emask.and " + reg(Cond));
      line("bnone " + Else);
      nodes(N.Body, Depth + 1);
      label(Else);
      line("emask.set " + reg(Save));
      if (!N.Else.empty()) {
        line("emask.andn " + reg(Cond));
        line("bnone " + End);
        nodes(N.Else, Depth + 1);
        label(End);
        line("emask.set " + reg(Save));
      }
      return;
    }
    case NodeKind::DivLoop: {
      std::string Top = newLabel("loop"), End = newLabel("endloop");
      line("emask.get " + reg(Save));
      line(cond(N.Cond, Count));
      line("setgti " + reg(Cond) + ", " + reg(Count) + ", 0");
      line("emask.and " + reg(Cond));
      line("bnone " + End);
      label(Top);
      nodes(N.Body, Depth + 1);
      line("addi " + reg(Count) + ", " + reg(Count) + ", -1");
      line("setgti " + reg(Cond) + ", " + reg(Count) + ", 0");
      line("emask.and " + reg(Cond));
      line("bany " + Top);
      label(End);
      line("emask.set " + reg(Save));
      return;
    }
    case NodeKind::UniLoop: {
      std::string Top = newLabel("uloop");
      line("movi " + reg(Count) + ", " + std::to_string(N.Trips));
      label(Top);
      nodes(N.Body, Depth + 1);
      line("addi " + reg(Count) + ", " + reg(Count) + ", -1");
      line("bnz " + reg(Count) + ", " + Top);
      return;
    }
    case NodeKind::UniIf: {
      std::string Skip = newLabel("uskip");
      line("ld.param.u32 " + reg(Cond) + ", [r0 + @u0]");
      line("shri " + reg(Cond) + ", " + reg(Cond) + ", " +
           std::to_string(N.ParamBit));
      line("andi " + reg(Cond) + ", " + reg(Cond) + ", 1");
      line("bz " + reg(Cond) + ", " + Skip);
      nodes(N.Body, Depth + 1);
      label(Skip);
      return;
    }
    case NodeKind::PartialExit: {
      std::string Skip = newLabel("stay");
      line("emask.get " + reg(Save));
      line(cond(N.Cond, Cond));
      line("setnei r8, r2, 0"); // lane 0 stays, so every warp reaches bar
      line("and " + reg(Cond) + ", " + reg(Cond) + ", r8");
      line("emask.and " + reg(Cond));
      line("bnone " + Skip);
      line("exit");
      label(Skip);
      line("emask.set " + reg(Save));
      return;
    }
    }
  }

  raw_ostream &OS;
  unsigned NextLabel = 0;
};

void printPrologue(Printer &P) {
  using namespace layout;
  for (const char *L :
       {"emask.get r7", "s2r r1, %tid.x", "s2r r8, %tid.y", "s2r r9, %ntid.x",
        "mul r8, r8, r9", "add r1, r1, r8            # t", "s2r r2, %laneid",
        "s2r r8, %ctaid.y", "s2r r9, %nctaid.x", "mul r8, r8, r9",
        "s2r r9, %ctaid.x", "add r9, r9, r8            # block b",
        "s2r r31, %ntid.x", "s2r r8, %ntid.y", "mul r31, r31, r8",
        "mul r8, r9, r31", "add r8, r8, r1            # g = b*T + t",
        "muli r3, r8, 160", "ld.param.u32 r4, [r0 + @out]",
        "add r3, r3, r4            # out slot", "shli r5, r8, 4",
        "ld.param.u32 r4, [r0 + @atomp]",
        "add r5, r5, r4            # private atomics", "s2r r8, %nwarps",
        "mul r8, r9, r8", "s2r r4, %warpid", "add r8, r8, r4", "shli r6, r8, 4",
        "ld.param.u32 r4, [r0 + @atomw]",
        "add r6, r6, r4            # this warp's atomics",
        "ld.param.u32 r4, [r0 + @in]"})
    P.line(L);
  static_assert(SlotBytes == 160 && PrivAtomBytes == 16 && WarpAtomBytes == 16);
  for (unsigned K = 0; K < NumData; ++K) {
    P.line("addi r8, r1, " + std::to_string(K * 37 + 5));
    P.line("andi r8, r8, " + std::to_string(InWords - 1));
    P.line("shli r8, r8, 2");
    P.line("add r8, r8, r4");
    P.line("ld.global.u32 " + reg(FirstData + K) + ", [r8 + 0]");
  }
  P.line("add r10, r10, r1");
  P.line("add r11, r11, r2");
  // Every word a later read may see is written first: no reliance on
  // devices zeroing shared or local memory.
  P.line("shli r8, r1, 4");
  P.line("movi r9, " + std::to_string(SharedPrivate));
  P.line("add r8, r8, r9");
  for (unsigned K = 0; K < 4; ++K)
    P.line(formatv("st.shared.u32 [r8 + {0}], {1}", K * 4, reg(FirstData + K)));
  P.line("shli r8, r1, 2");
  P.line("movi r9, " + std::to_string(SharedExchange));
  P.line("add r8, r8, r9");
  P.line("st.shared.u32 [r8 + 0], r14");
  for (unsigned K = 0; K < LocalBytes / 4; ++K)
    P.line(formatv("st.local.u32 [r0 + {0}], {1}", K * 4,
                   reg(FirstData + 4 + K % 8)));
  P.line("emask.get r22");
  P.line("seteqi r23, r1, 0");
  P.line("emask.and r23");
  P.line("bnone .Lp1");
  for (unsigned K = 0; K < BlockCounterWords; ++K)
    P.line(formatv("st.shared.u32 [r0 + {0}], {1}", SharedCounters + K * 4,
                   reg(FirstData + K % NumData)));
  P.label(".Lp1");
  P.line("emask.set r22");
  P.line("seteqi r23, r2, 0");
  P.line("emask.and r23");
  P.line("bnone .Lp2");
  P.line("s2r r8, %warpid");
  P.line("shli r8, r8, 4");
  for (unsigned K = 0; K < 4; ++K)
    P.line(formatv("st.shared.u32 [r8 + {0}], {1}", SharedWarp + K * 4,
                   reg(FirstData + 8 + K)));
  P.label(".Lp2");
  P.line("emask.set r22");
  P.line("bar");
}

void printEpilogue(Printer &P) {
  using namespace layout;
  P.line("emask.set r7");
  P.line("bar");
  for (unsigned K = 0; K < NumData; ++K)
    P.line(formatv("st.global.u32 [r3 + {0}], {1}", K * 4, reg(FirstData + K)));
  P.line("shli r8, r1, 4");
  P.line("movi r9, " + std::to_string(SharedPrivate));
  P.line("add r8, r8, r9");
  for (unsigned K = 0; K < 4; ++K) {
    P.line(formatv("ld.shared.u32 r9, [r8 + {0}]", K * 4));
    P.line(formatv("st.global.u32 [r3 + {0}], r9", 96 + K * 4));
  }
  for (unsigned K = 0; K < LocalBytes / 4; ++K) {
    P.line(formatv("ld.local.u32 r9, [r0 + {0}]", K * 4));
    P.line(formatv("st.global.u32 [r3 + {0}], r9", 112 + K * 4));
  }
  P.line("shli r8, r1, 2");
  P.line("movi r9, " + std::to_string(SharedExchange));
  P.line("add r8, r8, r9");
  P.line("ld.shared.u32 r9, [r8 + 0]");
  P.line("st.global.u32 [r3 + 144], r9");
  // Thread 0 publishes the block's shared counters; lane 0 its warp's words.
  P.line("emask.get r22");
  P.line("seteqi r23, r1, 0");
  P.line("emask.and r23");
  P.line("bnone .Le1");
  P.line("s2r r8, %ctaid.y");
  P.line("s2r r9, %nctaid.x");
  P.line("mul r8, r8, r9");
  P.line("s2r r9, %ctaid.x");
  P.line("add r8, r8, r9");
  P.line("shli r8, r8, 6");
  P.line("ld.param.u32 r9, [r0 + @bcount]");
  P.line("add r8, r8, r9");
  for (unsigned K = 0; K < BlockCounterWords; ++K) {
    P.line(formatv("ld.shared.u32 r9, [r0 + {0}]", SharedCounters + K * 4));
    P.line(formatv("st.global.u32 [r8 + {0}], r9", K * 4));
  }
  P.label(".Le1");
  P.line("emask.set r22");
  P.line("seteqi r23, r2, 0");
  P.line("emask.and r23");
  P.line("bnone .Le2");
  P.line("ld.param.u32 r8, [r0 + @atomw]");
  P.line("sub r8, r6, r8");
  P.line("ld.param.u32 r9, [r0 + @wshared]");
  P.line("add r8, r8, r9");
  P.line("s2r r9, %warpid");
  P.line("shli r9, r9, 4");
  for (unsigned K = 0; K < 4; ++K) {
    P.line(formatv("ld.shared.u32 r31, [r9 + {0}]", SharedWarp + K * 4));
    P.line(formatv("st.global.u32 [r8 + {0}], r31", K * 4));
  }
  P.label(".Le2");
  P.line("emask.set r22");
  P.line("exit");
}

} // namespace

const std::vector<ParamSpec> &programParams() {
  static const std::vector<ParamSpec> Params = {
      {"in", true},    {"out", true},    {"atomp", true},
      {"atomc", true}, {"atomw", true},  {"bcount", true},
      {"wshared", true}, {"u0", false},  {"u1", false}};
  return Params;
}

uint64_t bufferBytes(const RandomProgram &P, unsigned Index) {
  using namespace layout;
  uint64_t Blocks = P.Grid.count(), Warps = Blocks * P.warpsPerBlock();
  switch (Index) {
  case 0:
    return InWords * 4;
  case 1:
    return uint64_t(P.totalThreads()) * SlotBytes;
  case 2:
    return uint64_t(P.totalThreads()) * PrivAtomBytes;
  case 3:
    return ContendedWords * 4;
  case 4:
  case 6:
    return Warps * WarpAtomBytes;
  case 5:
    return Blocks * BlockCounterWords * 4;
  default:
    return 0;
  }
}

RandomProgram generateProgram(uint64_t Seed, const GenOptions &Opts) {
  // Mix the seed so neighbouring seeds start far apart in the engine.
  return Generator(Seed * 0x9E3779B97F4A7C15ull + 1, Opts).run(Seed);
}

std::string printAssembly(const RandomProgram &P) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "# Random SIMT program from tandem-diff, seed " << P.Seed << ".\n"
     << formatv("# Launch: grid {0},{1} block {2},{3}; parameters: ", P.Grid.X,
                P.Grid.Y, P.Block.X, P.Block.Y);
  OS << "in out atomp atomc atomw bcount wshared (buffers), u0 u1.\n";
  OS << "# Re-run (with its own random inputs, not the differ's):\n#   tandem run prog.s"
     << formatv(" --grid {0},{1} --block {2},{3}", P.Grid.X, P.Grid.Y,
                P.Block.X, P.Block.Y);
  for (unsigned I = 0; I < programParams().size(); ++I) {
    if (programParams()[I].IsBuffer)
      OS << " --arg buf:u32:" << bufferBytes(P, I) / 4;
    else
      OS << " --arg u32:" << format_hex(I == 7 ? P.U0 : P.U1, 10);
  }
  OS << " --trace\n";
  OS << ".kernel rand\n";
  for (const ParamSpec &S : programParams())
    OS << ".param " << S.Name << (S.IsBuffer ? " ptr\n" : " u32\n");
  OS << ".shared " << layout::SharedBytes << "\n.local " << layout::LocalBytes
     << "\n";
  Printer Pr(OS);
  printPrologue(Pr);
  Pr.nodes(P.Body, 0);
  printEpilogue(Pr);
  OS << ".const\n";
  for (unsigned I = 0; I < P.ConstWords.size(); I += 8) {
    OS << "  .word ";
    for (unsigned J = I; J < std::min<size_t>(I + 8, P.ConstWords.size()); ++J)
      OS << (J == I ? "" : ", ") << format_hex(P.ConstWords[J], 10);
    OS << "\n";
  }
  return Text;
}

unsigned countNodes(const std::vector<Node> &Nodes) {
  unsigned N = 0;
  for (const Node &X : Nodes)
    N += 1 + countNodes(X.Body) + countNodes(X.Else);
  return N;
}

} // namespace tandem::diff
