// fpu_lane: one lane's fp32 datapath, combinational, bit-exact with the ISS
// (sim/iss/Semantics.h) for every fp opcode of the ISA.
//
// Input invariants: `opcode` is a major opcode from simt_isa_pkg; a, b, c are
// raw binary32 bit patterns (any pattern is legal: NaNs with payloads,
// subnormals, infinities). Only the operands an opcode reads matter; the
// others are ignored.
//
// Guarantees: IEEE-754 binary32 round-to-nearest-even; subnormal inputs and
// outputs kept (no flush to zero); every NaN an arithmetic opcode produces is
// the canonical 0x7fc00000 (fneg/fabs are bit operations and pass payloads
// through); fmin/fmax return the non-NaN operand and order -0 below +0;
// conversions to integers truncate and saturate, NaN giving 0; comparisons
// return 0/1. Opcodes that are not fp opcodes give 0.
//
// Structure (see docs/RTL-FPU.md):
//   unpack     - classify each operand and normalize subnormal significands,
//                so every finite nonzero significand has its leading one at
//                bit 23 and an exponent that may go below 1;
//   fused path - fadd, fsub, fmul and ffma all run on one fused multiply-add
//                datapath (fadd = a*1.0 + b, fmul = a*b + (-0.0)): a*1.0 and
//                x + (-0.0) are exact, so the one rounding is the only one;
//   div/sqrt   - digit recurrence, one quotient/root bit per step, as the
//                iterative unit of the ISA (WriteFDiv/WriteFSqrt) computes it;
//                written as loops, combinational here, while the core charges
//                the unit's multi-cycle occupancy from the scheduling table;
//   round_pack - the one normalize/round-to-nearest-even/pack stage shared by
//                the fused path, int->fp conversion, divide and square root;
//   compare, min/max, fp->int conversion and round-to-integral need no
//   rounding stage and work on the bit patterns directly.
module fpu_lane
  import simt_isa_pkg::*;
(
    input  logic [7:0]  opcode,
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] c,
    output logic [31:0] result
);

  localparam logic [31:0] CANONICAL_NAN = 32'h7fc0_0000;
  localparam logic [31:0] ONE = 32'h3f80_0000;
  localparam logic [31:0] NEG_ZERO = 32'h8000_0000;

  // Exponents inside the datapath are biased like binary32's but may leave
  // 1..254 on the way (normalized subnormals, products, quotients); 16 signed
  // bits hold every intermediate value, the extreme being a product of two
  // normalized subnormals (about -170) or of two large normals (about 382).
  typedef logic signed [15:0] exp_t;

  typedef struct packed {
    logic        sign;
    logic        zero;
    logic        inf;
    logic        nan;
    exp_t        exp;  // biased exponent of sig[23]
    logic [23:0] sig;  // leading one at bit 23 for finite nonzero values
  } fp_t;

  //===--------------------------------------------------------------------===//
  // Shared helpers
  //===--------------------------------------------------------------------===//

  // Leading zeros of a 64-bit word; 64 for zero. A priority encoder.
  function automatic logic [6:0] clz64(input logic [63:0] x);
    logic [6:0] n;
    n = 7'd64;
    for (int i = 0; i < 64; i++) if (x[i]) n = 7'(63 - i);
    return n;
  endfunction

  // x >> amt with every bit shifted out ORed into bit 0 ("jamming", i.e.
  // rounding to odd at bit 0). A value rounded to odd at bit 0 rounds to
  // nearest-even at any position two or more bits higher exactly as the
  // unshifted value would, also after it is added to or subtracted from an
  // exact operand; every caller rounds at bit 39 of a normalized word.
  function automatic logic [63:0] shr_sticky(input logic [63:0] x, input exp_t amt);
    logic [63:0] lost_mask;
    if (amt <= 0) return x;
    if (amt >= 64) return {63'd0, |x};
    lost_mask = ~(64'hffff_ffff_ffff_ffff << amt[5:0]);
    return (x >> amt[5:0]) | {63'd0, |(x & lost_mask)};
  endfunction

  // Classifies x and normalizes a subnormal significand (exponent 1 - shift).
  function automatic fp_t unpack(input logic [31:0] x);
    fp_t        u;
    logic [6:0] lz;
    logic       exp_zero;
    logic       exp_max;
    exp_zero = x[30:23] == 8'h00;
    exp_max = x[30:23] == 8'hff;
    u.sign = x[31];
    u.zero = exp_zero && x[22:0] == 23'd0;
    u.inf = exp_max && x[22:0] == 23'd0;
    u.nan = exp_max && x[22:0] != 23'd0;
    if (!exp_zero) begin
      u.sig = {1'b1, x[22:0]};
      u.exp = exp_t'({8'd0, x[30:23]});
    end else begin
      // clz of {0, frac} as a 24-bit number; meaningless (and unused) for 0.
      lz = clz64({1'b0, x[22:0], 40'd0});
      u.sig = 24'({1'b0, x[22:0]} << lz[4:0]);
      u.exp = exp_t'(1) - exp_t'({9'd0, lz});
    end
    return u;
  endfunction

  function automatic logic [31:0] infinity(input logic sign);
    return {sign, 8'hff, 23'd0};
  endfunction

  // The shared rounding stage: rounds sign * mant * 2^(exp62 - 127 - 62) to
  // binary32, round-to-nearest-even. exp62 is the biased exponent that bit 62
  // of mant would have as a leading one; bit 63 is headroom for a carry.
  // Bit 0 may be a sticky bit (shr_sticky, a nonzero remainder); callers
  // then keep the leading one at bit 25 or above, so that after normalizing
  // bit 0 lands at least two bits below the guard bit (bit 39).
  // Normalize left, denormalize right into the subnormal range (the value
  // stays a subnormal only if rounding does not carry into the exponent),
  // round, and let the carry out of the significand add into the exponent
  // field: that turns 0x7fffff+1 into the smallest normal and the largest
  // finite number + 1 ulp into infinity for free.
  function automatic logic [31:0] round_pack(input logic sign, input exp_t exp62,
                                             input logic [63:0] mant);
    logic [6:0]  lz;
    logic [63:0] m;
    exp_t        e;
    logic [23:0] sig;
    logic        guard;
    logic        sticky;
    logic        round_up;
    logic [30:0] magnitude;
    if (mant == 64'd0) return {sign, 31'd0};
    lz = clz64(mant);
    m = mant << lz[5:0];
    e = exp62 + exp_t'(1) - exp_t'({9'd0, lz});  // exponent of the leading one at bit 63
    if (e >= exp_t'(255)) return infinity(sign);
    if (e < exp_t'(1)) begin
      m = shr_sticky(m, exp_t'(1) - e);
      e = exp_t'(1);
    end
    sig = m[63:40];
    guard = m[39];
    sticky = |m[38:0];
    round_up = guard && (sticky || sig[0]);
    magnitude = {e[7:0] - 8'd1, 23'd0} + {7'd0, sig} + {30'd0, round_up};
    return {sign, magnitude};
  endfunction

  //===--------------------------------------------------------------------===//
  // Fused multiply-add: a*b + c with one rounding
  //===--------------------------------------------------------------------===//

  // Finite operands. Both addends are placed in a 64-bit window with their
  // slot's top bit at bit 62: the 48-bit product at 62..15, the 24-bit addend
  // at 62..39. The one whose slot has the larger exponent stays, the other is
  // shifted right by the exponent difference, jamming what falls off into
  // bit 0 (shr_sticky). When the shift is 2 or less nothing is lost, so
  // massive cancellation is exact; when it is larger, the result's leading
  // one stays at bit 60 or above and the guard bit at 36 or above, far enough
  // from the jammed bit 0 for round-to-nearest-even to come out exact.
  // The finite paths take whole unpacked operands; the inf/nan flags were
  // consumed by the special-case logic before them, hence the waiver.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [31:0] fma_finite(input fp_t ua, input fp_t ub, input fp_t uc);
  /* verilator lint_on UNUSEDSIGNAL */
    logic        product_sign;
    logic        product_zero;
    logic [47:0] product;
    exp_t        product_exp;
    logic [63:0] product_window;
    logic [63:0] addend_window;
    logic        product_is_kept;
    logic [63:0] kept;
    logic [63:0] aligned;
    logic        kept_sign;
    logic        aligned_sign;
    exp_t        kept_exp;
    exp_t        shift;
    logic [63:0] magnitude;
    logic        sign;
    product_sign = ua.sign ^ ub.sign;
    product_zero = ua.zero || ub.zero;
    product = ua.sig * ub.sig;
    // sig bit 23 weighs 2^(exp-127); product bit 46 weighs 2^(ea+eb-254),
    // so its bit 47 has biased exponent ea + eb - 126.
    product_exp = ua.exp + ub.exp - exp_t'(126);
    product_window = {1'b0, product, 15'd0};
    addend_window = {1'b0, uc.sig, 39'd0};
    // Exact zeros: +0 unless both are -0 (round-to-nearest rule).
    if (product_zero && uc.zero) return {product_sign && uc.sign, 31'd0};
    if (product_zero) product_is_kept = 1'b0;
    else if (uc.zero) product_is_kept = 1'b1;
    else product_is_kept = product_exp >= uc.exp;
    if (product_is_kept) begin
      kept = product_window;
      kept_sign = product_sign;
      kept_exp = product_exp;
      aligned_sign = uc.sign;
      shift = uc.zero ? exp_t'(0) : product_exp - uc.exp;
      aligned = uc.zero ? 64'd0 : shr_sticky(addend_window, shift);
    end else begin
      kept = addend_window;
      kept_sign = uc.sign;
      kept_exp = uc.exp;
      aligned_sign = product_sign;
      shift = product_zero ? exp_t'(0) : uc.exp - product_exp;
      aligned = product_zero ? 64'd0 : shr_sticky(product_window, shift);
    end
    if (kept_sign == aligned_sign) begin
      magnitude = kept + aligned;
      sign = kept_sign;
    end else if (kept >= aligned) begin
      magnitude = kept - aligned;
      sign = kept_sign;
    end else begin
      magnitude = aligned - kept;
      sign = aligned_sign;
    end
    // x - x is +0 in round-to-nearest.
    if (magnitude == 64'd0) return 32'd0;
    return round_pack(sign, kept_exp, magnitude);
  endfunction

  // Special operands first (NaN, 0*inf, inf-inf), then the finite datapath.
  function automatic logic [31:0] fma(input logic [31:0] x, input logic [31:0] y,
                                      input logic [31:0] z);
    fp_t  ux;
    fp_t  uy;
    fp_t  uz;
    logic product_sign;
    ux = unpack(x);
    uy = unpack(y);
    uz = unpack(z);
    product_sign = ux.sign ^ uy.sign;
    if (ux.nan || uy.nan || uz.nan) return CANONICAL_NAN;
    if ((ux.inf && uy.zero) || (ux.zero && uy.inf)) return CANONICAL_NAN;
    if (ux.inf || uy.inf) begin
      if (uz.inf && uz.sign != product_sign) return CANONICAL_NAN;
      return infinity(product_sign);
    end
    if (uz.inf) return infinity(uz.sign);
    return fma_finite(ux, uy, uz);
  endfunction

  //===--------------------------------------------------------------------===//
  // Divide and square root: digit recurrence, one bit per step
  //===--------------------------------------------------------------------===//

  // Restoring division of the normalized significands: 27 steps give
  // floor(2^26 * x/y) (27 bits, leading one at bit 26 or 25: at least 24
  // significand bits + guard), and a nonzero partial remainder is the sticky
  // bit. The quotient's bit 26 weighs 2^(ex - ey).
  /* verilator lint_off UNUSEDSIGNAL */  // inf/nan/zero flags: handled by fdiv
  function automatic logic [31:0] div_finite(input fp_t ux, input fp_t uy);
  /* verilator lint_on UNUSEDSIGNAL */
    logic [25:0] remainder;
    logic [26:0] quotient;
    remainder = {2'b00, ux.sig};
    quotient = '0;
    for (int i = 26; i >= 0; i--) begin
      if (remainder >= {2'b00, uy.sig}) begin
        quotient[i] = 1'b1;
        remainder = remainder - {2'b00, uy.sig};
      end
      remainder = remainder << 1;
    end
    return round_pack(ux.sign ^ uy.sign, ux.exp - uy.exp + exp_t'(127),
                      {1'b0, quotient, 35'd0, remainder != 26'd0});
  endfunction

  function automatic logic [31:0] fdiv(input logic [31:0] x, input logic [31:0] y);
    fp_t  ux;
    fp_t  uy;
    logic sign;
    ux = unpack(x);
    uy = unpack(y);
    sign = ux.sign ^ uy.sign;
    if (ux.nan || uy.nan) return CANONICAL_NAN;
    if ((ux.inf && uy.inf) || (ux.zero && uy.zero)) return CANONICAL_NAN;
    if (ux.inf || uy.zero) return infinity(sign);
    if (ux.zero || uy.inf) return {sign, 31'd0};
    return div_finite(ux, uy);
  endfunction

  // Restoring square root. With the unbiased exponent made even (an odd one
  // moves a factor 2 into the significand, so f = M / 2^23 lies in [1, 4)),
  // 26 steps compute floor(sqrt(f * 2^50)), leading one at bit 25, and a
  // nonzero remainder is the sticky bit. The root never over- or underflows.
  /* verilator lint_off UNUSEDSIGNAL */  // sign and class flags: handled by fsqrt
  function automatic logic [31:0] sqrt_finite(input fp_t ux);
  /* verilator lint_on UNUSEDSIGNAL */
    exp_t        unbiased;
    logic        odd;
    logic [51:0] radicand;
    logic [31:0] remainder;
    logic [31:0] trial;
    logic [25:0] root;
    unbiased = ux.exp - exp_t'(127);
    odd = unbiased[0];
    radicand = odd ? {ux.sig, 28'd0} : {1'b0, ux.sig, 27'd0};  // M * 2^27
    remainder = '0;
    root = '0;
    for (int i = 25; i >= 0; i--) begin
      remainder = {remainder[29:0], radicand[2*i+1], radicand[2*i]};
      trial = {4'd0, root, 2'b01};
      if (remainder >= trial) begin
        remainder = remainder - trial;
        root = {root[24:0], 1'b1};
      end else begin
        root = {root[24:0], 1'b0};
      end
    end
    return round_pack(1'b0, ((unbiased - exp_t'(odd)) >>> 1) + exp_t'(127),
                      {1'b0, root, 36'd0, remainder != 32'd0});
  endfunction

  function automatic logic [31:0] fsqrt(input logic [31:0] x);
    fp_t ux;
    ux = unpack(x);
    if (ux.nan) return CANONICAL_NAN;
    if (ux.zero) return x;  // sqrt(-0) = -0
    if (ux.sign) return CANONICAL_NAN;
    if (ux.inf) return x;
    return sqrt_finite(ux);
  endfunction

  //===--------------------------------------------------------------------===//
  // Conversions and rounding to integral values
  //===--------------------------------------------------------------------===//

  // The integer's magnitude sits at bits 62..31, where bit 62 weighs 2^31.
  function automatic logic [31:0] int_to_float(input logic sign, input logic [31:0] magnitude);
    return round_pack(sign, exp_t'(127 + 31), {1'b0, magnitude, 31'd0});
  endfunction

  // |x| truncated toward zero, for |x| < 2^32 (exponent field below 159).
  function automatic logic [31:0] truncated_magnitude(input logic [30:0] magnitude_bits);
    logic [23:0] sig;
    logic [7:0]  exp;
    sig = {1'b1, magnitude_bits[22:0]};
    exp = magnitude_bits[30:23];
    if (exp < 8'd127) return 32'd0;  // below 1
    if (exp >= 8'd150) return {8'd0, sig} << (exp - 8'd150);
    return {8'd0, sig >> (8'd150 - exp)};
  endfunction

  function automatic logic [31:0] float_to_s32(input logic [31:0] x);
    logic [31:0] magnitude;
    if (x[30:23] == 8'hff && x[22:0] != 23'd0) return 32'd0;  // NaN
    // |x| >= 2^31 saturates; -2^31 itself is the saturated negative value.
    if (x[30:23] >= 8'd158) return x[31] ? 32'h8000_0000 : 32'h7fff_ffff;
    magnitude = truncated_magnitude(x[30:0]);
    return x[31] ? -magnitude : magnitude;
  endfunction

  function automatic logic [31:0] float_to_u32(input logic [31:0] x);
    if (x[30:23] == 8'hff && x[22:0] != 23'd0) return 32'd0;  // NaN
    if (x[31]) return 32'd0;  // negative values truncate or saturate to 0
    if (x[30:23] >= 8'd159) return 32'hffff_ffff;
    return truncated_magnitude(x[30:0]);
  endfunction

  typedef enum logic [1:0] {
    TO_FLOOR,
    TO_CEIL,
    TO_ZERO,
    TO_NEAREST_EVEN
  } int_round_e;

  // Rounds x to an integral float. Works on the bit pattern: clearing the
  // fraction bits truncates toward zero, and adding one unit of the lowest
  // integer bit to the pattern increments the magnitude, a carry out of the
  // significand moving into the exponent (1.5 -> 2.0, 0x4b7fffff.5 -> 2^24).
  function automatic logic [31:0] round_integral(input logic [31:0] x, input int_round_e mode);
    logic [7:0]  exp;
    logic [4:0]  frac_bits;
    logic [31:0] unit;
    logic [31:0] frac_mask;
    logic [31:0] fraction;
    logic [31:0] half;
    logic [31:0] truncated;
    logic        sign;
    logic        nonzero;
    logic        away;
    exp = x[30:23];
    sign = x[31];
    nonzero = x[30:0] != 31'd0;
    if (exp == 8'hff) return x[22:0] != 23'd0 ? CANONICAL_NAN : x;
    if (exp >= 8'd150) return x;  // already integral
    if (exp < 8'd127) begin
      // |x| < 1: the result is a signed zero or a signed one.
      unique case (mode)
        TO_FLOOR: away = sign && nonzero;
        TO_CEIL: away = !sign && nonzero;
        TO_ZERO: away = 1'b0;
        TO_NEAREST_EVEN: away = exp == 8'd126 && x[22:0] != 23'd0;  // > 0.5; 0.5 ties to 0
      endcase
      return away ? (ONE | {sign, 31'd0}) : {sign, 31'd0};
    end
    frac_bits = 5'(8'd150 - exp);  // 1..23
    unit = 32'd1 << frac_bits;
    frac_mask = unit - 32'd1;
    half = unit >> 1;
    fraction = x & frac_mask;
    truncated = x & ~frac_mask;
    unique case (mode)
      TO_FLOOR: away = sign && fraction != 32'd0;
      TO_CEIL: away = !sign && fraction != 32'd0;
      TO_ZERO: away = 1'b0;
      // The lowest integer bit of the pattern is bit frac_bits (for |x| in
      // [1, 2) that is the exponent's low bit, 1, matching the integer 1).
      TO_NEAREST_EVEN:
      away = fraction > half || (fraction == half && (x & unit) != 32'd0);
    endcase
    return away ? truncated + unit : truncated;
  endfunction

  //===--------------------------------------------------------------------===//
  // Comparisons and min/max
  //===--------------------------------------------------------------------===//

  // Takes the pattern without its sign, which does not matter.
  function automatic logic is_nan(input logic [30:0] magnitude_bits);
    return magnitude_bits[30:23] == 8'hff && magnitude_bits[22:0] != 23'd0;
  endfunction

  // Float equality for non-NaN operands: same pattern, or +0 and -0.
  function automatic logic ordered_equal(input logic [31:0] x, input logic [31:0] y);
    return x == y || (x[30:0] == 31'd0 && y[30:0] == 31'd0);
  endfunction

  // Float x < y for non-NaN operands (+0 and -0 are equal).
  function automatic logic ordered_less(input logic [31:0] x, input logic [31:0] y);
    if (ordered_equal(x, y)) return 1'b0;
    if (x[31] != y[31]) return x[31];
    return x[31] ? x[30:0] > y[30:0] : x[30:0] < y[30:0];
  endfunction

  // A key whose unsigned order is the float order with -0 below +0.
  function automatic logic [31:0] total_order_key(input logic [31:0] x);
    return x[31] ? ~x : {1'b1, x[30:0]};
  endfunction

  function automatic logic [31:0] fmin_fmax(input logic [31:0] x, input logic [31:0] y,
                                            input logic want_max);
    logic x_first;
    if (is_nan(x[30:0])) return is_nan(y[30:0]) ? CANONICAL_NAN : y;
    if (is_nan(y[30:0])) return x;
    x_first = total_order_key(x) <= total_order_key(y);
    return (x_first ^ want_max) ? x : y;
  endfunction

  //===--------------------------------------------------------------------===//
  // Opcode dispatch
  //===--------------------------------------------------------------------===//

  logic unordered;
  assign unordered = is_nan(a[30:0]) || is_nan(b[30:0]);

  always_comb begin
    unique case (opcode)
      OP_FADD: result = fma(a, ONE, b);
      OP_FSUB: result = fma(a, ONE, b ^ 32'h8000_0000);
      OP_FMUL: result = fma(a, b, NEG_ZERO);
      OP_FFMA: result = fma(a, b, c);
      OP_FMIN: result = fmin_fmax(a, b, 1'b0);
      OP_FMAX: result = fmin_fmax(a, b, 1'b1);
      OP_FNEG: result = a ^ 32'h8000_0000;
      OP_FABS: result = a & 32'h7fff_ffff;
      OP_FSETEQ: result = {31'd0, !unordered && ordered_equal(a, b)};
      OP_FSETNE: result = {31'd0, !unordered && !ordered_equal(a, b)};
      OP_FSETLT: result = {31'd0, !unordered && ordered_less(a, b)};
      OP_FSETLE: result = {31'd0, !unordered && (ordered_less(a, b) || ordered_equal(a, b))};
      OP_FSETNAN: result = {31'd0, unordered};
      OP_FDIV: result = fdiv(a, b);
      OP_FSQRT: result = fsqrt(a);
      OP_CVT_F32_S32: result = int_to_float(a[31], a[31] ? -a : a);
      OP_CVT_F32_U32: result = int_to_float(1'b0, a);
      OP_CVT_S32_F32: result = float_to_s32(a);
      OP_CVT_U32_F32: result = float_to_u32(a);
      OP_FFLOOR: result = round_integral(a, TO_FLOOR);
      OP_FCEIL: result = round_integral(a, TO_CEIL);
      OP_FTRUNC: result = round_integral(a, TO_ZERO);
      OP_FRINT: result = round_integral(a, TO_NEAREST_EVEN);
      default: result = 32'd0;
    endcase
  end

endmodule
