// simt_alu_lane: the integer ALU of one physical lane. Combinational.
// Semantics are the descriptions in target/simt/SimtInstrInfo.td (the ISS's
// sim/iss/Semantics.h is the reference). For I- and U-format instructions the
// core passes the sign-extended immediate as b; for movt, c is the old rd.
// Opcodes outside the ALU give 0.
module simt_alu_lane
  import simt_isa_pkg::*;
(
    input  logic [7:0]  opcode,
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] c,
    output logic [31:0] result
);
  // Only the high half of the signed product is an instruction's result.
  /* verilator lint_off UNUSEDSIGNAL */
  logic signed [63:0] sprod;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [63:0] uprod;
  logic [31:0] rev;
  logic [5:0] lz;
  logic [5:0] ones;

  always_comb begin
    sprod = $signed({{32{a[31]}}, a}) * $signed({{32{b[31]}}, b});
    uprod = {32'h0, a} * {32'h0, b};
    for (int i = 0; i < 32; i++) rev[i] = a[31-i];
    lz = 6'd32;
    for (int i = 0; i < 32; i++) if (a[i]) lz = 6'(31 - i);
    ones = '0;
    for (int i = 0; i < 32; i++) ones = ones + 6'(a[i]);
    unique case (opcode)
      OP_ADD, OP_ADDI: result = a + b;
      OP_SUB: result = a - b;
      OP_MUL, OP_MULI: result = uprod[31:0];
      OP_MULHI: result = sprod[63:32];
      OP_MULHIU: result = uprod[63:32];
      OP_AND, OP_ANDI: result = a & b;
      OP_OR, OP_ORI: result = a | b;
      OP_XOR, OP_XORI: result = a ^ b;
      OP_SHL: result = b >= 32 ? 32'h0 : a << b[4:0];
      OP_SHR: result = b >= 32 ? 32'h0 : a >> b[4:0];
      OP_SRA: result = $signed(a) >>> (b >= 32 ? 5'd31 : b[4:0]);
      OP_SHLI: result = a << b[4:0];
      OP_SHRI: result = a >> b[4:0];
      OP_SRAI: result = $signed(a) >>> b[4:0];
      OP_MIN: result = $signed(a) < $signed(b) ? a : b;
      OP_MAX: result = $signed(a) > $signed(b) ? a : b;
      OP_MINU: result = a < b ? a : b;
      OP_MAXU: result = a > b ? a : b;
      OP_SETEQ, OP_SETEQI: result = 32'(a == b);
      OP_SETNE, OP_SETNEI: result = 32'(a != b);
      OP_SETLT, OP_SETLTI: result = 32'($signed(a) < $signed(b));
      OP_SETLE: result = 32'($signed(a) <= $signed(b));
      OP_SETLTU, OP_SETLTUI: result = 32'(a < b);
      OP_SETLEU: result = 32'(a <= b);
      OP_SETGTI: result = 32'($signed(a) > $signed(b));
      OP_SETGTUI: result = 32'(a > b);
      OP_SEL: result = a != 0 ? b : c;
      OP_MOV: result = a;
      OP_POPC: result = 32'(ones);
      OP_CLZ: result = 32'(lz);
      OP_BREV: result = rev;
      OP_MOVI: result = b;
      OP_MOVT: result = {b[15:0], c[15:0]};
      default: result = 32'h0;
    endcase
  end
endmodule
