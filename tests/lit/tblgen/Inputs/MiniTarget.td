// A tiny valid target for tandem-tblgen's own tests: each test includes it
// and adds one broken record.
include "Target.td"
include "IRNodes.td"

def R0 : Register<"r0", 0> { let IsConstantZero = 1; }
def R1 : Register<"r1", 1>;
def GPR : RegisterClass<[R0, R1]>;
def SR_TID : SpecialRegister<"tid", 0, "thread index">;

def FmtR : InstFormat<[FieldLayout<rd_field, 18, 6>, FieldLayout<rs1_field, 12, 6>,
                       FieldLayout<rs2_field, 6, 6>]>;
def FmtI : InstFormat<[FieldLayout<rd_field, 18, 6>, FieldLayout<rs1_field, 12, 6>,
                       FieldLayout<imm_field, 0, 12>]>;
def simm12 : Operand<"SImm", 12>;
def simm16 : Operand<"SImm", 16>;

def ALU : ProcResource<"alu">;
def WriteALU : SchedWrite;
def : WriteRes<WriteALU, [ALU]>;

def MiniTarget : TargetDescription<"Mini", ["### Rules\nnone"]>;

class MiniInst<bits<8> opc, InstFormat f, string mn, string asm, dag o, dag i>
    : Instruction {
  let Opcode = opc; let Form = f; let Mnemonic = mn; let AsmString = asm;
  let OutOperandList = o; let InOperandList = i; let Sched = WriteALU;
}
def ADD : MiniInst<0x01, FmtR, "add", "$rd, $rs1, $rs2", (outs GPR:$rd), (ins GPR:$rs1, GPR:$rs2)>;
