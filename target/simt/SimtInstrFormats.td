//===- SimtInstrFormats.td - SIMT instruction formats -----------*- tblgen -*-===//
//
// Every instruction is one 32-bit word. Bits [31:24] hold the major opcode in
// every format; the register fields sit at fixed places so the decoder can
// read them before it knows the format:
//
//   31      24 23    18 17    12 11     6 5      0
//  | opcode   |  rd    |  rs1   |  rs2   |  rs3   |   R, R4
//  | opcode   |  rd    |  rs1   |     imm12       |   I
//  | opcode   |  rs2   |  rs1   |     imm12       |   S  (stores: rs2 is data)
//  | opcode   |  rd    |        imm18             |   U
//  | opcode   |  rs1   |        imm18             |   B
//  | opcode   |            imm24                  |   J
//  | opcode   |            0                      |   N
//
// Bits no field of the format covers must be zero; a word with stray bits
// there does not decode (illegal instruction).
//
//===----------------------------------------------------------------------===//

def FmtR  : InstFormat<[FieldLayout<rd_field, 18, 6>, FieldLayout<rs1_field, 12, 6>,
                        FieldLayout<rs2_field, 6, 6>]>;
def FmtR4 : InstFormat<[FieldLayout<rd_field, 18, 6>, FieldLayout<rs1_field, 12, 6>,
                        FieldLayout<rs2_field, 6, 6>, FieldLayout<rs3_field, 0, 6>]>;
def FmtI  : InstFormat<[FieldLayout<rd_field, 18, 6>, FieldLayout<rs1_field, 12, 6>,
                        FieldLayout<imm_field, 0, 12>]>;
def FmtS  : InstFormat<[FieldLayout<rs2_field, 18, 6>, FieldLayout<rs1_field, 12, 6>,
                        FieldLayout<imm_field, 0, 12>]>;
def FmtU  : InstFormat<[FieldLayout<rd_field, 18, 6>, FieldLayout<imm_field, 0, 18>]>;
def FmtB  : InstFormat<[FieldLayout<rs1_field, 18, 6>, FieldLayout<imm_field, 0, 18>]>;
def FmtJ  : InstFormat<[FieldLayout<imm_field, 0, 24>]>;
def FmtN  : InstFormat<[]>;

// Operand types.
def simm12 : Operand<"SImm", 12>;
def simm18 : Operand<"SImm", 18>;
def uimm16 : Operand<"UImm", 16>;
def sreg   : Operand<"SpecialReg", 4>;
def brtarget18 : Operand<"PCRel", 18>;
def brtarget24 : Operand<"PCRel", 24>;

class SimtInst<bits<8> opc, InstFormat form, string mnemonic, string asm,
               dag outs, dag ins, SchedWrite sched, string desc>
    : Instruction {
  let Namespace = "Simt";
  let Opcode = opc;
  let Form = form;
  let Mnemonic = mnemonic;
  let AsmString = asm;
  let OutOperandList = outs;
  let InOperandList = ins;
  let Sched = sched;
  let Description = desc;
}
