//===- Target.td - Tandem's TableGen base classes ---------------*- tblgen -*-===//
//
// The vocabulary every Tandem target is written in. Class names follow LLVM's
// (Register, RegisterClass, Instruction, Operand, Pattern, ProcResource,
// SchedWrite, WriteRes) so an LLVM engineer reads a target at a glance, but
// they are our own, smaller classes: tandem-tblgen (target/tblgen) reads
// them, not llvm-tblgen.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Registers
//===----------------------------------------------------------------------===//

class Register<string asmName, int enc> {
  string AsmName = asmName;
  int HWEncoding = enc;
  // Reads as zero; writes are discarded.
  bit IsConstantZero = 0;
}

class RegisterClass<list<Register> regs> {
  list<Register> MemberList = regs;
  int Size = 32; // bits
}

// A read-only register addressed by index (s2r), e.g. %tid.x.
class SpecialRegister<string asmName, int index, string desc> {
  string AsmName = asmName;
  int Index = index;
  string Description = desc;
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

// The field an operand lives in. Its position in the word is given by the
// instruction's format.
class InstField<string name> { string Name = name; }
def rd_field  : InstField<"Rd">;
def rs1_field : InstField<"Rs1">;
def rs2_field : InstField<"Rs2">;
def rs3_field : InstField<"Rs3">;
def imm_field : InstField<"Imm">;

// An immediate operand. Kind is one of SImm, UImm, PCRel, SpecialReg.
class Operand<string kind, int width> {
  string OperandKind = kind;
  int Bits = width;
}

// Marker for dag operator position in (outs ...) / (ins ...).
def outs;
def ins;

//===----------------------------------------------------------------------===//
// Instruction formats
//===----------------------------------------------------------------------===//

class FieldLayout<InstField f, int lo, int width> {
  InstField Field = f;
  int Lo = lo;
  int Width = width;
}

class InstFormat<list<FieldLayout> fields> {
  list<FieldLayout> Fields = fields;
}

//===----------------------------------------------------------------------===//
// Scheduling
//===----------------------------------------------------------------------===//

class ProcResource<string desc> {
  string Description = desc;
}

class SchedWrite;

// Latency: cycles from issue until a dependent instruction may read the
// result. ReleaseAtCycles: cycles the unit is busy per warp instruction on a
// full-width (32-lane) datapath; a narrower datapath multiplies it.
class WriteRes<SchedWrite write, list<ProcResource> resources> {
  SchedWrite Write = write;
  list<ProcResource> ProcResources = resources;
  int Latency = 1;
  int ReleaseAtCycles = 1;
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

// Memory spaces a load, store or atomic addresses.
class MemorySpace<string name> { string Name = name; }
def NoSpace     : MemorySpace<"None">;
def GlobalSpace : MemorySpace<"Global">;
def SharedSpace : MemorySpace<"Shared">;
def LocalSpace  : MemorySpace<"Local">;
def ParamSpace  : MemorySpace<"Param">;
def ConstSpace  : MemorySpace<"Const">;

class Instruction {
  string Namespace = "";
  bits<8> Opcode = 0;
  InstFormat Form;
  dag OutOperandList = (outs);
  dag InOperandList = (ins);
  string Mnemonic = "";
  // Operand template after the mnemonic; $name refers to an operand.
  string AsmString = "";
  SchedWrite Sched;
  // What the instruction does, for docs/ISA.md and the simulator's author.
  string Description = "";

  bit isLoad = 0;
  bit isStore = 0;
  bit isAtomic = 0;
  bit isBranch = 0;
  bit isJump = 0;
  bit isTerminator = 0;
  bit isBarrier = 0;
  bit isExit = 0;
  bit readsRd = 0;
  bit writesAllLanes = 0;
  // Acts in all 32 lanes, active or not (exec is ignored): the memory
  // accesses that spill and reload exec-mask values.
  bit allLanes = 0;
  bit isMaskOp = 0;
  bit isWarpOp = 0;
  bit isFloat = 0;

  MemorySpace Space = NoSpace;
  int AccessBytes = 0;
  bit SignExtend = 0;
}

//===----------------------------------------------------------------------===//
// Selection patterns
//===----------------------------------------------------------------------===//

// An IR operation a pattern can match. Name is the LLVM IR opcode or
// intrinsic the selector (isel/) sees.
class SDNode<string irName> { string IRName = irName; }

// Imm-style leaf: an immediate that fits an operand.
class ImmLeaf<Operand op> { Operand Op = op; }

// A fixed value a pattern's result passes to an instruction operand that the
// IR does not supply (a condition code, a mode). A SpecialRegister record may
// be written the same way: its Index is the value. Example:
//   def : Pat<(sreg_tid_x), (S2R SR_TID_X)>;
class PatImm<int value> { int Value = value; }

// An addressing mode, as LLVM's ComplexPattern: one pattern operand
// (addr:$p) that fills two instruction operands, a base register of class
// Base and an offset of operand type Offset. The selector finds it (its
// address folding: constant GEP offsets, constant addresses); the pattern
// applies when the offset fits Offset. Example:
//   def : Pat<(atomic_add_global addr:$p, B32:$v), (ATOM_GLOBAL_ADD_U32 addr:$p, B32:$v)>;
class AddrMode<RegisterClass base, Operand offset> {
  RegisterClass Base = base;
  Operand Offset = offset;
}

// A selection pattern: (node Type:$a, ...) -> (INST Type:$a, ..., fixed).
// Read by target/tblgen/PatternRecords.cpp for every target; matched by
// isel/PatternMatch.cpp for every target. The matcher takes the first
// pattern, in .td order, whose node is the IR operation, whose operand types
// fit the IR operands and whose result class fits the IR result:
//   * a register class operand (GPR, B32) takes any value of that class; a
//     constant goes into a register, or stays an immediate where the
//     instruction operand accepts one (PTX's s32 operands);
//   * an immediate operand type (simm12) takes only a constant that fits it
//     (this is how reg+imm forms and folded offsets are written);
//   * an addressing mode (AddrMode) takes an address whose offset fits;
//   * the result names the pattern operands by $name, so it may reorder them
//     (a swapped compare), and adds fixed values (PatImm, SpecialRegister).
// The result instruction defines at most one register (none: bar).
class Pattern<dag pattern, list<dag> results> {
  dag PatternToMatch = pattern;
  list<dag> ResultInstrs = results;
}

class Pat<dag pattern, dag result> : Pattern<pattern, [result]>;

//===----------------------------------------------------------------------===//
// Target-wide prose for the generated reference (docs/ISA.md): the rules
// that apply to every instruction. One record per target.
//===----------------------------------------------------------------------===//

class TargetDescription<string title, list<string> sections> {
  string Title = title;
  // Markdown paragraphs, each starting with "### Heading\n".
  list<string> Sections = sections;
}
