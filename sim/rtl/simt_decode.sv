// simt_decode: one instruction word in, its fields and legality out.
// Written only in terms of the generated simt_isa_pkg: no opcode number or
// bit position is typed here. Combinational.
//
// Input invariant: regs_used is the kernel's RegistersUsed (<= NUM_GPRS).
// Guarantee: legal == 0 for every word the ISS rejects (unknown opcode, stray
// bits outside the format's fields, immediate out of range, a register at or
// above regs_used, an unknown special register).
module simt_decode
  import simt_isa_pkg::*;
(
    input  logic [31:0] word,
    input  logic [6:0]  regs_used,
    output logic        legal,
    output logic [7:0]  opcode,
    output format_e     fmt,
    output logic [5:0]  rd,
    output logic [5:0]  rs1,
    output logic [5:0]  rs2,
    output logic [5:0]  rs3,
    output logic [31:0] imm,
    output logic        reads_rs1,
    output logic        reads_rs2,
    output logic        reads_rs3,
    output logic        writes_rd
);
  logic imm_signed;
  logic imm_in_range;
  logic regs_in_range;
  logic sreg_ok;

  function automatic logic [31:0] field_bits(input logic [31:0] w, input int lo, input int width);
    return (w >> lo) & ((32'd1 << width) - 32'd1);
  endfunction

  function automatic logic [31:0] field_sext(input logic [31:0] w, input int lo, input int width);
    logic [31:0] raw;
    raw = field_bits(w, lo, width);
    return raw[width-1] ? (raw | ~((32'd1 << width) - 32'd1)) : raw;
  endfunction

  function automatic logic [31:0] imm_of(input logic [31:0] w, input logic sgn, input int lo, input int width);
    return sgn ? field_sext(w, lo, width) : field_bits(w, lo, width);
  endfunction

  always_comb begin
    opcode = word[31:24];
    fmt = opcode_format(opcode);
    imm_signed = opcode_imm_signed(opcode);
    rd = '0;
    rs1 = '0;
    rs2 = '0;
    rs3 = '0;
    imm = '0;
    reads_rs1 = 1'b0;
    reads_rs2 = 1'b0;
    reads_rs3 = 1'b0;
    unique case (fmt)
      FMT_R: begin
        rd = word[R_RD_LO +: R_RD_WIDTH];
        rs1 = word[R_RS1_LO +: R_RS1_WIDTH];
        rs2 = word[R_RS2_LO +: R_RS2_WIDTH];
        reads_rs1 = 1'b1;
        reads_rs2 = 1'b1;
      end
      FMT_R4: begin
        rd = word[R4_RD_LO +: R4_RD_WIDTH];
        rs1 = word[R4_RS1_LO +: R4_RS1_WIDTH];
        rs2 = word[R4_RS2_LO +: R4_RS2_WIDTH];
        rs3 = word[R4_RS3_LO +: R4_RS3_WIDTH];
        reads_rs1 = 1'b1;
        reads_rs2 = 1'b1;
        reads_rs3 = 1'b1;
      end
      FMT_I: begin
        rd = word[I_RD_LO +: I_RD_WIDTH];
        rs1 = word[I_RS1_LO +: I_RS1_WIDTH];
        imm = imm_of(word, imm_signed, I_IMM_LO, I_IMM_WIDTH);
        reads_rs1 = 1'b1;
      end
      FMT_S: begin
        rs2 = word[S_RS2_LO +: S_RS2_WIDTH];
        rs1 = word[S_RS1_LO +: S_RS1_WIDTH];
        imm = imm_of(word, imm_signed, S_IMM_LO, S_IMM_WIDTH);
        reads_rs1 = 1'b1;
        reads_rs2 = 1'b1;
      end
      FMT_U: begin
        rd = word[U_RD_LO +: U_RD_WIDTH];
        imm = imm_of(word, imm_signed, U_IMM_LO, U_IMM_WIDTH);
      end
      FMT_B: begin
        rs1 = word[B_RS1_LO +: B_RS1_WIDTH];
        imm = imm_of(word, imm_signed, B_IMM_LO, B_IMM_WIDTH);
        reads_rs1 = 1'b1;
      end
      FMT_J: imm = imm_of(word, imm_signed, J_IMM_LO, J_IMM_WIDTH);
      default: ;
    endcase
    // Formats without a destination leave rd at 0, whose writes are dropped.
    writes_rd = (fmt == FMT_R || fmt == FMT_R4 || fmt == FMT_I || fmt == FMT_U) && rd != 6'd0;
    imm_in_range = imm_signed
        ? ($signed(imm) >= $signed(opcode_imm_min(opcode)) && $signed(imm) <= $signed(opcode_imm_max(opcode)))
        : (imm >= opcode_imm_min(opcode) && imm <= opcode_imm_max(opcode));
    regs_in_range = {1'b0, rd} < regs_used && {1'b0, rs1} < regs_used &&
                    {1'b0, rs2} < regs_used && {1'b0, rs3} < regs_used;
    sreg_ok = opcode != OP_S2R || imm < 32'(NUM_SPECIAL_REGS);
    legal = opcode_valid(opcode) && ((word & ~opcode_field_mask(opcode)) == 32'h0) &&
            imm_in_range && regs_in_range && sreg_ok;
  end
endmodule
