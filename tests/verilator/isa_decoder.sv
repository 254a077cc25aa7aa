// isa_decoder: the instruction decoder the RTL core will use, written only in
// terms of the generated simt_isa_pkg (no opcode or bit position typed here).
// Combinational: word in, fields out. The Verilator test (decoder_test.cpp)
// drives every opcode with random fields and compares each output with the
// C++ decoder generated from the same .td files.
module isa_decoder (
    input  logic [31:0] word,
    output logic        valid,
    output logic [7:0]  opcode,
    output logic [3:0]  format,
    output logic [5:0]  rd,
    output logic [5:0]  rs1,
    output logic [5:0]  rs2,
    output logic [5:0]  rs3,
    output logic [31:0] imm,
    output logic [2:0]  unit,
    output logic [7:0]  latency
);
  import simt_isa_pkg::*;

  format_e fmt;
  logic [31:0] field_mask;
  logic imm_signed;
  logic imm_in_range;

  // A field of the word, zero-extended, given its position.
  function automatic logic [31:0] field_bits(input logic [31:0] w, input int lo, input int width);
    return (w >> lo) & ((32'd1 << width) - 32'd1);
  endfunction

  // A field sign-extended from its width.
  function automatic logic [31:0] field_sext(input logic [31:0] w, input int lo, input int width);
    logic [31:0] raw;
    raw = field_bits(w, lo, width);
    return raw[width-1] ? (raw | ~((32'd1 << width) - 32'd1)) : raw;
  endfunction

  always_comb begin
    opcode = word[31:24];
    fmt = opcode_format(opcode);
    format = fmt;
    field_mask = opcode_field_mask(opcode);
    imm_signed = opcode_imm_signed(opcode);
    unit = opcode_unit(opcode);
    latency = opcode_latency(opcode);
    rd = '0;
    rs1 = '0;
    rs2 = '0;
    rs3 = '0;
    imm = '0;
    // Registers sit in one of four 6-bit slots; the format says which.
    unique case (fmt)
      FMT_R: begin
        rd = word[R_RD_LO +: R_RD_WIDTH];
        rs1 = word[R_RS1_LO +: R_RS1_WIDTH];
        rs2 = word[R_RS2_LO +: R_RS2_WIDTH];
      end
      FMT_R4: begin
        rd = word[R4_RD_LO +: R4_RD_WIDTH];
        rs1 = word[R4_RS1_LO +: R4_RS1_WIDTH];
        rs2 = word[R4_RS2_LO +: R4_RS2_WIDTH];
        rs3 = word[R4_RS3_LO +: R4_RS3_WIDTH];
      end
      FMT_I: begin
        rd = word[I_RD_LO +: I_RD_WIDTH];
        rs1 = word[I_RS1_LO +: I_RS1_WIDTH];
        imm = imm_signed ? field_sext(word, I_IMM_LO, I_IMM_WIDTH)
                         : field_bits(word, I_IMM_LO, I_IMM_WIDTH);
      end
      FMT_S: begin
        rs2 = word[S_RS2_LO +: S_RS2_WIDTH];
        rs1 = word[S_RS1_LO +: S_RS1_WIDTH];
        imm = imm_signed ? field_sext(word, S_IMM_LO, S_IMM_WIDTH)
                         : field_bits(word, S_IMM_LO, S_IMM_WIDTH);
      end
      FMT_U: begin
        rd = word[U_RD_LO +: U_RD_WIDTH];
        imm = imm_signed ? field_sext(word, U_IMM_LO, U_IMM_WIDTH)
                         : field_bits(word, U_IMM_LO, U_IMM_WIDTH);
      end
      FMT_B: begin
        rs1 = word[B_RS1_LO +: B_RS1_WIDTH];
        imm = imm_signed ? field_sext(word, B_IMM_LO, B_IMM_WIDTH)
                         : field_bits(word, B_IMM_LO, B_IMM_WIDTH);
      end
      FMT_J: begin
        imm = imm_signed ? field_sext(word, J_IMM_LO, J_IMM_WIDTH)
                         : field_bits(word, J_IMM_LO, J_IMM_WIDTH);
      end
      default: ;
    endcase
    imm_in_range = imm_signed
        ? ($signed(imm) >= $signed(opcode_imm_min(opcode)) && $signed(imm) <= $signed(opcode_imm_max(opcode)))
        : (imm >= opcode_imm_min(opcode) && imm <= opcode_imm_max(opcode));
    valid = opcode_valid(opcode) && ((word & ~field_mask) == 32'h0) && imm_in_range;
  end
endmodule
