//===- IRNodes.td - LLVM IR operations patterns can match ------*- tblgen -*-===//
//
// Names are LLVM IR opcodes (and a few intrinsics); the selector in isel/
// matches them. Pattern operands are written (node type:$name).
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
