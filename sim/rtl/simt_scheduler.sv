// simt_scheduler: picks the warp that issues this cycle among the ready ones.
// POLICY 0: loose round-robin (the first ready warp after the one that issued
// last). POLICY 1: greedy-then-oldest (keep issuing from the last warp while
// it is ready, else the oldest ready warp; all warps of a block start
// together, so the oldest is the lowest-numbered).
// Guarantee: pick_valid == |ready, and pick names a ready warp.
module simt_scheduler #(
    parameter int WARPS = 8,
    parameter int POLICY = 0,
    localparam int WB = WARPS > 1 ? $clog2(WARPS) : 1
) (
    input  logic             clk,
    input  logic             rst,
    input  logic [WARPS-1:0] ready,
    input  logic             issued,
    output logic             pick_valid,
    output logic [WB-1:0]    pick
);
  logic [WB-1:0] last;

  always_comb begin
    pick_valid = |ready;
    pick = '0;
    if (POLICY == 1) begin
      for (int i = WARPS - 1; i >= 0; i--) if (ready[i]) pick = WB'(i);
      if (ready[last]) pick = last;
    end else begin
      // Scan from last+1 around the ring; the first ready warp found wins.
      for (int k = WARPS; k >= 1; k--) begin
        logic [WB-1:0] w;
        w = WB'((int'(last) + k) % WARPS);
        if (ready[w]) pick = w;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) last <= WB'(WARPS - 1);
    else if (issued) last <= pick;
  end
endmodule
