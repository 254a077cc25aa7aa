// sfu_int_lane: one lane's integer divide/remainder, combinational, bit-exact
// with the ISS (sim/iss/Semantics.h: sdiv, udiv, srem, urem).
//
// Input invariants: `opcode` is a major opcode from simt_isa_pkg; a is the
// dividend, b the divisor, any 32-bit values.
//
// Guarantees (the .td descriptions): div rounds toward zero, x/0 = -1,
// INT_MIN/-1 = INT_MIN; divu x/0 = 0xffffffff; rem takes the dividend's sign,
// x%0 = x, INT_MIN%-1 = 0; remu x%0 = x. Other opcodes give 0.
//
// The ISA executes these on the iterative unit (WriteIDiv: one quotient bit
// per cycle, ReleaseAtCycles 32). This module is that recurrence unrolled:
// 32 restoring steps on the magnitudes, written as a loop; the core charges
// the unit's occupancy from the scheduling table. Restoring division by zero
// naturally yields an all-ones quotient and the dividend as remainder, which
// is what divu, remu and rem want; only signed div by zero is special-cased.
// INT_MIN/-1 needs no special case either: |INT_MIN| = 2^31 as an unsigned
// magnitude, the quotient 2^31 negated is INT_MIN again and the remainder 0.
module sfu_int_lane
  import simt_isa_pkg::*;
(
    input  logic [7:0]  opcode,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] result
);

  typedef struct packed {
    logic [31:0] quotient;
    logic [31:0] remainder;
  } divmod_t;

  // Restoring division, one quotient bit per step, most significant first.
  function automatic divmod_t unsigned_divide(input logic [31:0] dividend,
                                              input logic [31:0] divisor);
    divmod_t     r;
    logic [32:0] partial;
    partial = '0;
    r.quotient = '0;
    for (int i = 31; i >= 0; i--) begin
      partial = {partial[31:0], dividend[i]};
      if (partial >= {1'b0, divisor}) begin
        partial = partial - {1'b0, divisor};
        r.quotient[i] = 1'b1;
      end
    end
    r.remainder = partial[31:0];
    return r;
  endfunction

  function automatic logic [31:0] magnitude(input logic [31:0] x);
    return x[31] ? -x : x;
  endfunction

  divmod_t unsigned_result;
  divmod_t signed_result;
  logic    signed_opcode;

  assign signed_opcode = opcode == OP_DIV || opcode == OP_REM;

  // One divider serves both signednesses: signed operations divide the
  // magnitudes and fix the signs afterwards.
  always_comb begin
    unsigned_result = unsigned_divide(signed_opcode ? magnitude(a) : a,
                                      signed_opcode ? magnitude(b) : b);
    signed_result.quotient = (a[31] ^ b[31]) ? -unsigned_result.quotient
                                             : unsigned_result.quotient;
    signed_result.remainder = a[31] ? -unsigned_result.remainder
                                    : unsigned_result.remainder;
    unique case (opcode)
      OP_DIV: result = b == 32'd0 ? 32'hffff_ffff : signed_result.quotient;
      OP_DIVU: result = unsigned_result.quotient;
      OP_REM: result = signed_result.remainder;
      OP_REMU: result = unsigned_result.remainder;
      default: result = 32'd0;
    endcase
  end

endmodule
