//===- IRNodes.td - LLVM IR operations patterns can match ------*- tblgen -*-===//
//
// Names are LLVM IR opcodes, intrinsic base names and a few names of our own
// (compares with their predicate); the selectors in isel/ look patterns up
// by them (isel/PatternMatch.h). Pattern operands are written
// (node type:$name).
//
//===----------------------------------------------------------------------===//

def add  : SDNode<"add">;
def sub  : SDNode<"sub">;
def mul  : SDNode<"mul">;
def and  : SDNode<"and">;
def or   : SDNode<"or">;
def xor  : SDNode<"xor">;
def shl  : SDNode<"shl">;
def srl  : SDNode<"lshr">;
def sra  : SDNode<"ashr">;
def sdiv : SDNode<"sdiv">;
def udiv : SDNode<"udiv">;
def srem : SDNode<"srem">;
def urem : SDNode<"urem">;
def smin : SDNode<"llvm.smin">;
def smax : SDNode<"llvm.smax">;
def umin : SDNode<"llvm.umin">;
def umax : SDNode<"llvm.umax">;
def ctpop : SDNode<"llvm.ctpop">;
def bitreverse : SDNode<"llvm.bitreverse">;
def fadd : SDNode<"fadd">;
def fsub : SDNode<"fsub">;
def fmul : SDNode<"fmul">;
def fdiv : SDNode<"fdiv">;
def fneg : SDNode<"fneg">;
def fma  : SDNode<"llvm.fma">;
def fabs : SDNode<"llvm.fabs">;
def fsqrt : SDNode<"llvm.sqrt">;
def fminnum : SDNode<"llvm.minnum">;
def fmaxnum : SDNode<"llvm.maxnum">;
def ffloor : SDNode<"llvm.floor">;
def fceil  : SDNode<"llvm.ceil">;
def ftrunc : SDNode<"llvm.trunc">;
def frint  : SDNode<"llvm.rint">;
def sitofp : SDNode<"sitofp">;
def uitofp : SDNode<"uitofp">;
def fptosi : SDNode<"fptosi">;
def fptoui : SDNode<"fptoui">;
def select : SDNode<"select">;


// Used by the ptx patterns (target/ptx/PtxPatterns.td).
def ctlz    : SDNode<"llvm.ctlz">;
def abs     : SDNode<"llvm.abs">;
def fshl    : SDNode<"llvm.fshl">;
def fshr    : SDNode<"llvm.fshr">;
def zext    : SDNode<"zext">;
def sext    : SDNode<"sext">;
def trunc   : SDNode<"trunc">;
def fptrunc : SDNode<"fptrunc">;
def fpext   : SDNode<"fpext">;
def bitcast : SDNode<"bitcast">;
// NVVM intrinsics the math library's ptx variant calls (cuda/math), as
// nvcc's libdevice does for expf, exp2f and powf.
def nvvm_ex2_approx_ftz : SDNode<"llvm.nvvm.ex2.approx.ftz.f">;
def nvvm_ex2_approx     : SDNode<"llvm.nvvm.ex2.approx.f">;
def nvvm_saturate       : SDNode<"llvm.nvvm.saturate.f">;
def nvvm_fma_rm         : SDNode<"llvm.nvvm.fma.rm.f">;
def nvvm_rcp_approx_ftz : SDNode<"llvm.nvvm.rcp.approx.ftz.f">;

//===----------------------------------------------------------------------===//
// Compares: one node per predicate ("icmp.<pred>", "fcmp.<pred>"); operands
// are the two values compared, the result is the i1. The selectors
// canonicalize first (a constant on the right, the swapped predicate) and
// extend narrow integers as the predicate's signedness says.
//===----------------------------------------------------------------------===//

def seteq  : SDNode<"icmp.eq">;
def setne  : SDNode<"icmp.ne">;
def setlt  : SDNode<"icmp.slt">;
def setle  : SDNode<"icmp.sle">;
def setgt  : SDNode<"icmp.sgt">;
def setge  : SDNode<"icmp.sge">;
def setult : SDNode<"icmp.ult">;
def setule : SDNode<"icmp.ule">;
def setugt : SDNode<"icmp.ugt">;
def setuge : SDNode<"icmp.uge">;
def fsetoeq : SDNode<"fcmp.oeq">;
def fsetone : SDNode<"fcmp.one">;
def fsetolt : SDNode<"fcmp.olt">;
def fsetole : SDNode<"fcmp.ole">;
def fsetogt : SDNode<"fcmp.ogt">;
def fsetoge : SDNode<"fcmp.oge">;
def fseto   : SDNode<"fcmp.ord">;
def fsetuo  : SDNode<"fcmp.uno">;
def fsetueq : SDNode<"fcmp.ueq">;
def fsetune : SDNode<"fcmp.une">;
def fsetult : SDNode<"fcmp.ult">;
def fsetule : SDNode<"fcmp.ule">;
def fsetugt : SDNode<"fcmp.ugt">;
def fsetuge : SDNode<"fcmp.uge">;

//===----------------------------------------------------------------------===//
// Special registers (no operands; the result is the i32 read) and barriers
//===----------------------------------------------------------------------===//

class SRegNode<string name> : SDNode<"llvm.nvvm.read.ptx.sreg." # name>;
def sreg_tid_x    : SRegNode<"tid.x">;
def sreg_tid_y    : SRegNode<"tid.y">;
def sreg_tid_z    : SRegNode<"tid.z">;
def sreg_ntid_x   : SRegNode<"ntid.x">;
def sreg_ntid_y   : SRegNode<"ntid.y">;
def sreg_ntid_z   : SRegNode<"ntid.z">;
def sreg_ctaid_x  : SRegNode<"ctaid.x">;
def sreg_ctaid_y  : SRegNode<"ctaid.y">;
def sreg_ctaid_z  : SRegNode<"ctaid.z">;
def sreg_nctaid_x : SRegNode<"nctaid.x">;
def sreg_nctaid_y : SRegNode<"nctaid.y">;
def sreg_nctaid_z : SRegNode<"nctaid.z">;
def sreg_laneid   : SRegNode<"laneid">;
def sreg_warpid   : SRegNode<"warpid">;
def sreg_nwarps   : SRegNode<"nwarps">;
def sreg_clock    : SRegNode<"clock">;

// __syncthreads(). The selectors check that the other barrier intrinsics
// (llvm.nvvm.barrier.sync(id), bar.sync) name barrier 0, then use this node.
def barrier0 : SDNode<"llvm.nvvm.barrier0">;

//===----------------------------------------------------------------------===//
// Warp operations, as nodes of our own: the selectors read the NVVM
// intrinsic (llvm.nvvm.shfl.sync.*, llvm.nvvm.vote.*.sync), check what a
// target cannot do, and pass the operands these nodes list.
//===----------------------------------------------------------------------===//

// (value, lane or delta); ptx also passes (clamp, member mask).
def shfl_idx  : SDNode<"shfl.idx">;
def shfl_up   : SDNode<"shfl.up">;
def shfl_down : SDNode<"shfl.down">;
def shfl_bfly : SDNode<"shfl.bfly">;
// (predicate); ptx also passes (member mask).
def vote_any    : SDNode<"vote.any">;
def vote_all    : SDNode<"vote.all">;
def vote_ballot : SDNode<"vote.ballot">;

// Memory barriers and warp barriers (ptx; simt needs no instruction).
def membar_cta    : SDNode<"llvm.nvvm.membar.cta">;
def membar_gl     : SDNode<"llvm.nvvm.membar.gl">;
def membar_sys    : SDNode<"llvm.nvvm.membar.sys">;
def bar_warp_sync : SDNode<"llvm.nvvm.bar.warp.sync">;

//===----------------------------------------------------------------------===//
// Atomics per address space: "atomicrmw.<op>.<space>", operands (address,
// value), the result is the old value. The selectors find the space (and
// trace generic pointers on simt), fold the address, and rewrite what has no
// instruction (sub is add of the negated value).
//===----------------------------------------------------------------------===//

foreach space = ["global", "shared", "generic"] in
  foreach op = ["add", "fadd", "min", "max", "umin", "umax", "xchg", "and", "or", "xor",
                "uinc_wrap", "udec_wrap"] in
    def atomic_ # op # _ # space : SDNode<"atomicrmw." # op # "." # space>;

//===----------------------------------------------------------------------===//
// Loads and stores per address space and access width in bits:
// "load.<space>.<bits>" (operand: the address; the result is the value
// loaded) and "store.<space>.<bits>" (operands: address, value). The width
// is the IR type's store size (pointers: 64); float and integer accesses of
// one width share a node, the value's register class picks the form. The
// selectors find the space (global_nc: a global load of read-only data,
// see isel/SelectPtx.cpp) and fold the address.
//===----------------------------------------------------------------------===//

foreach space = ["global", "global_nc", "shared", "local", "const", "generic"] in
  foreach width = [8, 16, 32, 64] in {
    def load_ # space # _ # width : SDNode<"load." # space # "." # width>;
    def store_ # space # _ # width : SDNode<"store." # space # "." # width>;
  }

// A narrow load whose value is only ever sign-extended (simt loads it with
// the sign-extending form): "sextload.<space>.<bits>".
foreach space = ["global", "shared", "local", "const"] in
  foreach width = [8, 16] in
    def sextload_ # space # _ # width : SDNode<"sextload." # space # "." # width>;
