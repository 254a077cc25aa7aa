// simt_scheduler: picks the warp that issues this cycle among the ready ones.
// The policy is an input, not a parameter, so one Verilated model serves
// both and a sweep over policies never rebuilds it (the core latches it at
// `start`; it must be stable while a block runs).
// gto 0: loose round-robin (the first ready warp after the one that issued
// last). gto 1: greedy-then-oldest (keep issuing from the last warp while
// it is ready, else the oldest ready warp; all warps of a block start
// together, so the oldest is the lowest-numbered).
// Guarantee: pick_valid == |ready, and pick names a ready warp.
module simt_scheduler #(
    parameter int WARPS = 8,
    localparam int WB = WARPS > 1 ? $clog2(WARPS) : 1
) (
    input  logic             clk,
    input  logic             rst,
    input  logic             gto,
    input  logic [WARPS-1:0] ready,
    input  logic             issued,
    output logic             pick_valid,
    output logic [WB-1:0]    pick
);
  logic [WB-1:0] last, rr_pick, gto_pick;

  // Both policies are evaluated; the input chooses. (A selected policy
  // would save a few gates but make the policy a build parameter again.)
  always_comb begin
    // Greedy: the last issuer if it is still ready, else the oldest.
    gto_pick = '0;
    for (int i = WARPS - 1; i >= 0; i--) if (ready[i]) gto_pick = WB'(i);
    if (ready[last]) gto_pick = last;
    // Round-robin: scan from last+1 around the ring; the first ready wins.
    rr_pick = '0;
    for (int k = WARPS; k >= 1; k--)
      if (ready[WB'((int'(last) + k) % WARPS)]) rr_pick = WB'((int'(last) + k) % WARPS);
  end

  assign pick_valid = |ready;
  assign pick = gto ? gto_pick : rr_pick;

  always_ff @(posedge clk) begin
    if (rst) last <= WB'(WARPS - 1);
    else if (issued) last <= pick;
  end
endmodule
