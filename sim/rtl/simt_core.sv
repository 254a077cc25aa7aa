// simt_core: one SIMT core of the Tandem accelerator (the Verilated top).
//
// Runs one block at a time: the harness loads the kernel's code into the
// instruction memory, sets the launch inputs, pulses `start` and clocks until
// `done` (or `fault`). Warps of 32 threads execute over LANES physical lanes:
// a warp instruction occupies the datapath 32/LANES cycles, one sub-warp of
// LANES threads per cycle. See docs/RTL.md for the microarchitecture.
//
// Pipeline: every warp's next instruction is decoded in parallel (fetch from
// the instruction memory at the warp's pc); the scheduler picks one ready warp
// per cycle (ready: running, not at a barrier, no source or destination
// pending in the scoreboard, its unit free, and under the `instruction`
// memory wait no memory instruction in flight; under the `register` one a
// load's destination stays pending until its row is written instead);
// control effects (pc, exec/alive masks, barrier) take effect at issue;
// ALU/FPU/SFU/CTRL instructions then stream through the lane datapath, loads,
// stores, atomics and shuffles go to the LSU (simt_lsu).
//
// Input invariants: the launch inputs are stable from `start` to `done`;
// regs_used <= REGS; the code lies inside the instruction memory.
// Guarantees: a warp's instructions commit in program order; `fault` is
// sticky and names the warp and pc of the illegal instruction, or of the
// barrier that can never complete; the counters count from `clear_counters`.
module simt_core
  import simt_isa_pkg::*;
#(
    parameter int LANES = 8,
    parameter int WARPS = 8,
    parameter int REGS = 32,
    parameter int L1_BYTES = 16384,
    parameter int L1_WAYS = 4,
    parameter int LINE_BYTES = 64,
    parameter int SHARED_BYTES = 16384,
    parameter int SHARED_BANKS = 8,
    parameter int IMEM_WORDS = 4096,
    parameter int LSU_SLOTS = 8,  // the most memory instructions in the LSU at once
    localparam int WB = WARPS > 1 ? $clog2(WARPS) : 1,
    localparam int TB = LSU_SLOTS > 1 ? $clog2(LSU_SLOTS) : 1,  // request tag bits
    localparam int RB = $clog2(REGS),
    localparam int IB = $clog2(IMEM_WORDS),
    localparam int LINE_BITS = LINE_BYTES * 8
) (
    input  logic                 clk,
    input  logic                 rst,
    // Instruction memory write port (the harness loads the image's code).
    input  logic                 imem_we,
    input  logic [IB-1:0]        imem_addr,
    input  logic [31:0]          imem_wdata,
    // Launch of one block.
    input  logic                 clear_counters,
    input  logic                 start,
    input  logic [31:0]          code_base,
    input  logic [31:0]          code_bytes,
    input  logic [6:0]           regs_used,
    input  logic [WARPS*32-1:0]  warp_lanes,
    input  logic [31:0]          ntid_x, ntid_y, ntid_z,
    input  logic [31:0]          ctaid_x, ctaid_y, ctaid_z,
    input  logic [31:0]          nctaid_x, nctaid_y, nctaid_z,
    input  logic [31:0]          nwarps,
    input  logic [31:0]          local_base,
    input  logic [31:0]          local_warp_stride,
    input  logic                 sched_gto,  // warp scheduler: 0 round-robin, 1 greedy-then-oldest
    input  logic                 local_write_back,  // L1 local stores: 1 write-back, 0 write-through
    input  logic                 mem_wait_register, // 1: a warp waits for a load's register, 0: for each memory instruction
    input  logic [4:0]           lsu_in_flight,     // warp memory instructions the LSU holds at once, 1..LSU_SLOTS
    output logic                 done,
    // Faults the core detects itself (the harness formats the message).
    output logic                 fault,
    output logic [1:0]           fault_cause,
    output logic [WB-1:0]        fault_warp,
    output logic [31:0]          fault_pc,
    // Address check (protection) port: the harness owns the allocations.
    output logic                 chk_valid,
    output logic [7:0]           chk_op,
    output logic [WB-1:0]        chk_warp,
    output logic [31:0]          chk_pc,
    output logic [31:0]          chk_mask,
    output logic [32*32-1:0]     chk_addr,
    input  logic                 chk_ok,
    // Memory port, one line per request.
    input  logic                 mem_req_ready,
    output logic                 mem_req_valid,
    output logic [1:0]           mem_req_kind,
    output logic [1:0]           mem_req_space,
    output logic [31:0]          mem_req_addr,
    output logic [LINE_BITS-1:0] mem_req_wdata,
    output logic [LINE_BYTES-1:0] mem_req_be,
    output logic [7:0]           mem_req_op,
    output logic [31:0]          mem_req_b,
    output logic [31:0]          mem_req_c,
    // A request's tag comes back with its response: which of the LSU's
    // memory instructions it belongs to (two may want the same line).
    output logic [TB-1:0]        mem_req_tag,
    input  logic                 mem_resp_valid,
    input  logic [TB-1:0]        mem_resp_tag,
    input  logic [31:0]          mem_resp_addr,
    input  logic [LINE_BITS-1:0] mem_resp_data,
    // Commit ports (trace): the datapath and the LSU.
    output logic                 dp_commit,
    output logic [WB-1:0]        dp_commit_warp,
    output logic [31:0]          dp_commit_pc,
    output logic [31:0]          dp_commit_exec,
    output logic [31:0]          dp_commit_exec_after,
    output logic [31:0]          dp_commit_alive_after,
    output logic                 dp_commit_taken,
    output logic                 lsu_commit,
    output logic [WB-1:0]        lsu_commit_warp,
    output logic [31:0]          lsu_commit_pc,
    output logic [31:0]          lsu_commit_exec,
    output logic [32*32-1:0]     lsu_commit_addr,
    output logic [32*32-1:0]     lsu_commit_stval,
    // Debug read port: one register row, for the trace.
    input  logic [WB-1:0]        dbg_warp,
    // Bit 5 matters only for a 64-register build.
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [5:0]           dbg_reg,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [32*32-1:0]     dbg_row,
    // Warp state, for hang and deadlock reports.
    output logic [31:0]          warp_pc [WARPS],
    output logic [31:0]          warp_exec [WARPS],
    output logic [31:0]          warp_alive [WARPS],
    output logic [WARPS-1:0]     warp_at_bar,
    output logic [WARPS-1:0]     warp_mem_wait,
    output logic [WARPS-1:0]     warp_finished,
    // Per-warp status of this cycle for the harness's timeline (docs/RTL.md,
    // "Seeing inside"): the warp issues, or why it cannot.
    output logic                 issue_valid,
    output logic [WB-1:0]        issue_warp,
    output logic [WARPS-1:0]     warp_blocked_dep,
    output logic [WARPS-1:0]     warp_blocked_unit,
    // Counters.
    output logic [63:0]          cnt_cycles,
    output logic [63:0]          cnt_stall_dependency,
    output logic [63:0]          cnt_stall_memory,
    output logic [63:0]          cnt_stall_unit_busy,
    output logic [63:0]          cnt_stall_barrier,
    output logic [63:0]          cnt_stall_no_ready_warp,
    output logic [63:0]          cnt_branches_taken,
    output logic [63:0]          cnt_divergent_branches,
    output logic [63:0]          cnt_l1_hits,
    output logic [63:0]          cnt_l1_misses,
    output logic [63:0]          cnt_l1_writebacks,
    output logic [63:0]          cnt_shared_bank_conflict_cycles,
    output logic [63:0]          cnt_op_warp [256],
    output logic [63:0]          cnt_op_thread [256]
);
  localparam int CPW = 32 / LANES;
  localparam int KB = CPW > 1 ? $clog2(CPW) : 1;
  localparam logic [1:0] FAULT_ILLEGAL = 2'd1, FAULT_PC = 2'd2, FAULT_BARRIER = 2'd3;

  // The launch inputs, latched at start: logic that depends only on state is
  // evaluated once per cycle by the simulation, logic on inputs at every
  // input change.
  logic [31:0] blk_code_base, blk_code_bytes, blk_ntid_x, blk_ntid_y, blk_ntid_z;
  logic [31:0] blk_ctaid_x, blk_ctaid_y, blk_ctaid_z, blk_nctaid_x, blk_nctaid_y;
  logic [31:0] blk_nctaid_z, blk_nwarps;
  logic [6:0]  blk_regs_used;
  logic        blk_sched_gto;
  logic        blk_mem_wait_register;

  always_ff @(posedge clk) begin
    if (start) begin
      blk_code_base <= code_base;
      blk_code_bytes <= code_bytes;
      blk_regs_used <= regs_used;
      blk_ntid_x <= ntid_x;
      blk_ntid_y <= ntid_y;
      blk_ntid_z <= ntid_z;
      blk_ctaid_x <= ctaid_x;
      blk_ctaid_y <= ctaid_y;
      blk_ctaid_z <= ctaid_z;
      blk_nctaid_x <= nctaid_x;
      blk_nctaid_y <= nctaid_y;
      blk_nctaid_z <= nctaid_z;
      blk_nwarps <= nwarps;
      blk_sched_gto <= sched_gto;
      blk_mem_wait_register <= mem_wait_register;
    end
  end

  //===--- State ------------------------------------------------------------===//
  logic [31:0] imem [IMEM_WORDS];
  logic [31:0] regs [WARPS][REGS][32];
  // Registers read as zero at block start: a written bit per (warp,
  // register, lane) is cleared in one cycle instead of clearing the file.
  logic [WARPS*REGS*32-1:0] regs_written;
  // Scoreboard: the cycle (of tnow) from which each register may be read.
  // Comparing against a free-running count instead of counting every entry
  // down each cycle keeps the per-cycle work independent of WARPS * REGS.
  logic [31:0] sb [WARPS][REGS];
  // Under the `register` memory wait: the registers a load, atomic or
  // shuffle in the LSU will write (set at issue, cleared by its writeback).
  // The LSU's latency is not known at issue, so these are bits beside sb.
  logic [REGS-1:0] mem_pend [WARPS];
  // Under the `instruction` memory wait: the warp has a memory instruction
  // in flight and does not issue.
  logic [WARPS-1:0] mem_wait_insn;
  logic [WARPS-1:0] blocked_mem;
  logic [31:0] tnow;
  logic [15:0] sfu_busy;
  logic [WARPS-1:0] running;
  logic [WARPS-1:0] launched;

  // Datapath stage: one warp instruction streaming over CPW sub-warps.
  logic          dp_valid;
  logic [KB-1:0] dp_k;
  logic [WB-1:0] dp_warp;
  logic [7:0]    dp_op;
  // Register fields keep all 6 bits; with fewer than 64 registers the top bit
  // is always 0 (the decoder rejects registers at or above blk_regs_used).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [5:0]    dp_rd, dp_rs1, dp_rs2, dp_rs3;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [31:0]   dp_imm;
  logic          dp_use_imm;
  logic          dp_wr;
  logic          dp_all_lanes;
  logic [31:0]   dp_exec;
  logic [31:0]   dp_scalar;  // vote result or exec for emask.get
  logic [31:0]   dp_pc;
  logic [31:0]   dp_exec_after, dp_alive_after;
  logic          dp_taken;
  logic [63:0]   clock;

  function automatic int reg_bit(input logic [WB-1:0] w, input logic [RB-1:0] r,
                                 input logic [4:0] l);
    return (int'(w) * REGS + int'(r)) * 32 + int'(l);
  endfunction

  function automatic logic [31:0] rreg(input logic [WB-1:0] w, input logic [RB-1:0] r,
                                       input logic [4:0] l);
    return regs_written[reg_bit(w, r, l)] ? regs[w][r][l] : 32'h0;
  endfunction

  //===--- Decode every warp's next instruction ---------------------------===//
  logic [31:0] f_word [WARPS];
  logic        f_legal [WARPS];
  logic        f_pc_ok [WARPS];
  logic [7:0]  f_op [WARPS];
  format_e     f_fmt [WARPS];
  logic [5:0]  f_rd [WARPS], f_rs1 [WARPS], f_rs2 [WARPS], f_rs3 [WARPS];
  logic [31:0] f_imm [WARPS];
  logic        f_r1 [WARPS], f_r2 [WARPS], f_r3 [WARPS], f_wr [WARPS];

  for (genvar w = 0; w < WARPS; w++) begin : g_fetch
    logic [31:0] offset;
    assign offset = warp_pc[w] - blk_code_base;
    assign f_pc_ok[w] = offset < blk_code_bytes && warp_pc[w][1:0] == 2'b00;
    assign f_word[w] = imem[warp_pc[w][IB+1:2]];
    simt_decode u_dec (
        .word(f_word[w]), .regs_used(blk_regs_used), .legal(f_legal[w]),
        .opcode(f_op[w]), .fmt(f_fmt[w]), .rd(f_rd[w]), .rs1(f_rs1[w]),
        .rs2(f_rs2[w]), .rs3(f_rs3[w]), .imm(f_imm[w]), .reads_rs1(f_r1[w]),
        .reads_rs2(f_r2[w]), .reads_rs3(f_r3[w]), .writes_rd(f_wr[w]));
  end

  //===--- Readiness and scheduling ---------------------------------------===//
  logic            lsu_idle;   // no memory instruction anywhere in the LSU
  logic            lsu_ready;  // the LSU takes a memory instruction this cycle
  logic [WARPS-1:0] ready, can_try, blocked_dep, blocked_unit, illegal;
  logic            dp_free;
  logic            pick_valid;
  logic [WB-1:0]   pick;

  function automatic logic pend(input logic [31:0] ready_at, input logic [31:0] now);
    return $signed(ready_at - now) > 0;
  endfunction

  assign dp_free = !dp_valid || dp_k == KB'(CPW - 1);

  always_comb begin
    for (int w = 0; w < WARPS; w++) begin
      logic dep, mem_dep, unit_ok, is_lsu, is_sfu;
      can_try[w] = running[w] && !warp_at_bar[w] && !mem_wait_insn[w] && !fault;
      illegal[w] = !f_pc_ok[w] || !f_legal[w];
      dep = (f_r1[w] && pend(sb[w][f_rs1[w][RB-1:0]], tnow)) ||
            (f_r2[w] && pend(sb[w][f_rs2[w][RB-1:0]], tnow)) ||
            (f_r3[w] && pend(sb[w][f_rs3[w][RB-1:0]], tnow)) ||
            (f_rd[w] != 0 && pend(sb[w][f_rd[w][RB-1:0]], tnow));
      // Always 0 under the `instruction` memory wait (no bit is ever set).
      mem_dep = (f_r1[w] && mem_pend[w][f_rs1[w][RB-1:0]]) ||
                (f_r2[w] && mem_pend[w][f_rs2[w][RB-1:0]]) ||
                (f_r3[w] && mem_pend[w][f_rs3[w][RB-1:0]]) ||
                (f_rd[w] != 0 && mem_pend[w][f_rd[w][RB-1:0]]);
      is_lsu = opcode_unit(f_op[w]) == UNIT_LSU;
      is_sfu = opcode_unit(f_op[w]) == UNIT_SFU;
      unit_ok = is_lsu ? lsu_ready : (dp_free && !(is_sfu && sfu_busy != 0));
      // A warp waiting for a load's register waits for memory, whatever
      // else it waits for: the counters and the timeline say so.
      blocked_mem[w] = can_try[w] && !illegal[w] && mem_dep;
      blocked_dep[w] = can_try[w] && !illegal[w] && dep && !mem_dep;
      blocked_unit[w] = can_try[w] && !illegal[w] && !dep && !mem_dep && !unit_ok;
      ready[w] = can_try[w] && (illegal[w] || (!dep && !mem_dep && unit_ok));
    end
  end

  assign warp_mem_wait = mem_wait_insn | blocked_mem;

  assign issue_valid = pick_valid;
  assign issue_warp = pick;
  assign warp_blocked_dep = blocked_dep;
  assign warp_blocked_unit = blocked_unit;

  simt_scheduler #(.WARPS(WARPS)) u_sched (
      .clk(clk), .rst(rst || start), .gto(blk_sched_gto), .ready(ready), .issued(pick_valid),
      .pick_valid(pick_valid), .pick(pick));

  // The issuing instruction, and what it reads across the whole warp.
  logic [7:0]  i_op;
  logic [31:0] i_exec, i_alive, i_pc, i_imm;
  logic [31:0] i_lanes;       // the lanes it acts in: exec, or all for mask spill code
  logic [31:0] i_nonzero;     // active lanes whose rs1 != 0
  logic [32*32-1:0] i_row1, i_row2, i_row3;
  logic        i_taken;
  logic [31:0] i_next_pc, i_exec_after, i_alive_after;

  always_comb begin
    i_op = f_op[pick];
    i_exec = warp_exec[pick];
    i_lanes = opcode_all_lanes(i_op) ? 32'hffffffff : i_exec;
    i_alive = warp_alive[pick];
    i_pc = warp_pc[pick];
    i_imm = f_imm[pick];
    for (int l = 0; l < 32; l++) begin
      i_row1[l*32 +: 32] = rreg(pick, f_rs1[pick][RB-1:0], 5'(l));
      i_row2[l*32 +: 32] = rreg(pick, f_rs2[pick][RB-1:0], 5'(l));
      i_row3[l*32 +: 32] = rreg(pick, f_rs3[pick][RB-1:0], 5'(l));
      i_nonzero[l] = i_exec[l] && rreg(pick, f_rs1[pick][RB-1:0], 5'(l)) != 32'h0;
    end
    i_taken = 1'b0;
    i_exec_after = i_exec;
    i_alive_after = i_alive;
    unique case (i_op)
      OP_BRA: i_taken = 1'b1;
      OP_BNZ: i_taken = i_nonzero != 0;
      OP_BZ: i_taken = i_nonzero == 0;
      OP_BNONE: i_taken = i_exec == 0;
      OP_BANY: i_taken = i_exec != 0;
      OP_EMASK_SET: i_exec_after = rreg(pick, f_rs1[pick][RB-1:0], 5'd0) & i_alive;
      OP_EMASK_AND: i_exec_after = i_nonzero;
      OP_EMASK_ANDN: i_exec_after = i_exec & ~i_nonzero;
      OP_EXIT: begin
        i_alive_after = i_alive & ~i_exec;
        i_exec_after = 32'h0;
      end
      default: ;
    endcase
    i_next_pc = i_taken ? i_pc + (i_imm << 2) : i_pc + 32'd4;
  end

  //===--- LSU --------------------------------------------------------------===//
  logic             lsu_issue;
  logic             lsu_wb;
  logic [WB-1:0]    lsu_wb_warp;
  logic [5:0]       lsu_wb_rd;
  logic [31:0]      lsu_wb_mask;
  logic [32*32-1:0] lsu_wb_row;

  assign lsu_issue = pick_valid && !illegal[pick] && opcode_unit(i_op) == UNIT_LSU;

  simt_lsu #(
      .WARPS(WARPS), .LANES(LANES), .L1_BYTES(L1_BYTES), .L1_WAYS(L1_WAYS),
      .LINE_BYTES(LINE_BYTES), .SHARED_BYTES(SHARED_BYTES),
      .SHARED_BANKS(SHARED_BANKS), .SLOTS(LSU_SLOTS)
  ) u_lsu (
      .clk(clk), .rst(rst), .start(start), .issue(lsu_issue), .op(i_op),
      .warp(pick), .pc(i_pc), .exec(i_lanes), .rd(f_rd[pick]), .imm(i_imm),
      .row1(i_row1), .row2(i_row2), .row3(i_row3), .local_base(local_base),
      .local_warp_stride(local_warp_stride),
      .local_write_back(local_write_back), .in_flight(lsu_in_flight),
      .ready(lsu_ready), .idle(lsu_idle),
      .chk_valid(chk_valid), .chk_op(chk_op), .chk_warp(chk_warp),
      .chk_pc(chk_pc), .chk_mask(chk_mask), .chk_addr(chk_addr),
      .chk_ok(chk_ok), .mem_req_ready(mem_req_ready),
      .mem_req_valid(mem_req_valid), .mem_req_kind(mem_req_kind),
      .mem_req_space(mem_req_space), .mem_req_addr(mem_req_addr),
      .mem_req_wdata(mem_req_wdata), .mem_req_be(mem_req_be),
      .mem_req_op(mem_req_op), .mem_req_b(mem_req_b), .mem_req_c(mem_req_c),
      .mem_req_tag(mem_req_tag), .mem_resp_valid(mem_resp_valid),
      .mem_resp_tag(mem_resp_tag), .mem_resp_addr(mem_resp_addr),
      .mem_resp_data(mem_resp_data), .wb_valid(lsu_wb), .wb_warp(lsu_wb_warp),
      .wb_rd(lsu_wb_rd), .wb_mask(lsu_wb_mask), .wb_row(lsu_wb_row),
      .commit(lsu_commit), .commit_warp(lsu_commit_warp),
      .commit_pc(lsu_commit_pc), .commit_exec(lsu_commit_exec),
      .commit_addr(lsu_commit_addr), .commit_stval(lsu_commit_stval),
      .clear_counters(clear_counters), .cnt_l1_hits(cnt_l1_hits),
      .cnt_l1_misses(cnt_l1_misses), .cnt_l1_writebacks(cnt_l1_writebacks),
      .cnt_shared_bank_conflict_cycles(cnt_shared_bank_conflict_cycles));

  //===--- Lane datapath ----------------------------------------------------===//
  logic [31:0] lane_res [LANES];
  logic [31:0] sreg_val [LANES];

  for (genvar i = 0; i < LANES; i++) begin : g_lane
    logic [4:0]  lane;
    logic [31:0] a, b, c, alu_r, fpu_r, sfu_r, t;
    assign lane = 5'(int'(dp_k) * LANES + i);
    assign a = rreg(dp_warp, dp_rs1[RB-1:0], lane);
    assign b = dp_use_imm ? dp_imm : rreg(dp_warp, dp_rs2[RB-1:0], lane);
    assign c = dp_op == OP_MOVT ? rreg(dp_warp, dp_rd[RB-1:0], lane)
                                : rreg(dp_warp, dp_rs3[RB-1:0], lane);
    simt_alu_lane u_alu (.opcode(dp_op), .a(a), .b(b), .c(c), .result(alu_r));
    fpu_lane u_fpu (.opcode(dp_op), .a(a), .b(b), .c(c), .result(fpu_r));
    sfu_int_lane u_sfu (.opcode(dp_op), .a(a), .b(b), .result(sfu_r));
    // The linear thread index of this lane in the block.
    assign t = {27'h0, lane} + 32'(dp_warp) * 32;
    always_comb begin
      unique case (dp_imm[3:0])
        SR_TID_X: sreg_val[i] = t % blk_ntid_x;
        SR_TID_Y: sreg_val[i] = (t / blk_ntid_x) % blk_ntid_y;
        SR_TID_Z: sreg_val[i] = t / (blk_ntid_x * blk_ntid_y);
        SR_NTID_X: sreg_val[i] = blk_ntid_x;
        SR_NTID_Y: sreg_val[i] = blk_ntid_y;
        SR_NTID_Z: sreg_val[i] = blk_ntid_z;
        SR_CTAID_X: sreg_val[i] = blk_ctaid_x;
        SR_CTAID_Y: sreg_val[i] = blk_ctaid_y;
        SR_CTAID_Z: sreg_val[i] = blk_ctaid_z;
        SR_NCTAID_X: sreg_val[i] = blk_nctaid_x;
        SR_NCTAID_Y: sreg_val[i] = blk_nctaid_y;
        SR_NCTAID_Z: sreg_val[i] = blk_nctaid_z;
        SR_LANEID: sreg_val[i] = {27'h0, lane};
        SR_WARPID: sreg_val[i] = 32'(dp_warp);
        SR_NWARPS: sreg_val[i] = blk_nwarps;
        default: sreg_val[i] = clock[31:0];  // SR_CLOCK
      endcase
      unique case (opcode_unit(dp_op))
        UNIT_ALU: lane_res[i] = alu_r;
        UNIT_FPU: lane_res[i] = fpu_r;
        UNIT_SFU: lane_res[i] = (dp_op == OP_FDIV || dp_op == OP_FSQRT) ? fpu_r : sfu_r;
        default: lane_res[i] = dp_op == OP_S2R ? sreg_val[i] : dp_scalar;
      endcase
    end
  end

  //===--- Sequential -------------------------------------------------------===//
  logic issue_dp;
  logic [15:0] i_lat;
  logic [15:0] i_release;
  assign issue_dp = pick_valid && !illegal[pick] && opcode_unit(i_op) != UNIT_LSU;

  always_comb begin
    // Results are readable max(latency, 32/LANES + 1) cycles after issue: the
    // last sub-warp is written 32/LANES cycles after issue, and branches and
    // the LSU read whole rows at issue. The iterative unit adds its
    // occupancy for the remaining sub-warps.
    i_release = 16'(opcode_release_cycles(i_op));
    i_lat = 16'(opcode_latency(i_op));
    if (i_lat < 16'(CPW + 1)) i_lat = 16'(CPW + 1);
    if (opcode_unit(i_op) == UNIT_SFU) i_lat = i_lat + i_release * 16'(CPW - 1);
  end

  assign done = launched != 0 && running == 0 && !dp_valid && lsu_idle;
  assign warp_finished = launched & ~running;

  for (genvar l = 0; l < 32; l++) begin : g_dbg
    assign dbg_row[l*32 +: 32] = rreg(dbg_warp, dbg_reg[RB-1:0], 5'(l));
  end

  always_ff @(posedge clk) begin
    if (imem_we) imem[imem_addr] <= imem_wdata;
  end

  // Lane writes of the datapath and row writes of the LSU never touch the
  // same register: under the `instruction` memory wait a warp with a memory
  // instruction in flight cannot issue; under the `register` one the
  // datapath's destination is never pending in mem_pend (the rd check).
  always_ff @(posedge clk) begin
    if (start) begin
      regs_written <= '0;
    end else begin
      if (dp_valid && dp_wr)
        for (int i = 0; i < LANES; i++) begin
          logic [4:0] lane;
          lane = 5'(int'(dp_k) * LANES + i);
          if (dp_exec[lane] || dp_all_lanes) begin
            regs[dp_warp][dp_rd[RB-1:0]][lane] <= lane_res[i];
            regs_written[reg_bit(dp_warp, dp_rd[RB-1:0], lane)] <= 1'b1;
          end
        end
      if (lsu_wb && lsu_wb_rd != 0)
        for (int l = 0; l < 32; l++)
          if (lsu_wb_mask[l]) begin
            regs[lsu_wb_warp][lsu_wb_rd[RB-1:0]][l] <= lsu_wb_row[l*32 +: 32];
            regs_written[reg_bit(lsu_wb_warp, lsu_wb_rd[RB-1:0], 5'(l))] <= 1'b1;
          end
    end
  end

  // One counter pair per opcode (the host derives per-unit and per-space
  // counts from the generated tables, as the ISS does).
  logic counting;
  assign counting = running != 0 || dp_valid || !lsu_idle;
  for (genvar o = 0; o < 256; o++) begin : g_opcnt
    always_ff @(posedge clk) begin
      if (rst || clear_counters) begin
        cnt_op_warp[o] <= '0;
        cnt_op_thread[o] <= '0;
      end else if (counting && pick_valid && !illegal[pick] && i_op == 8'(o)) begin
        cnt_op_warp[o] <= cnt_op_warp[o] + 1;
        cnt_op_thread[o] <= cnt_op_thread[o] + 64'($countones(i_lanes));
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst || clear_counters) begin
      cnt_cycles <= '0;
      cnt_stall_dependency <= '0;
      cnt_stall_memory <= '0;
      cnt_stall_unit_busy <= '0;
      cnt_stall_barrier <= '0;
      cnt_stall_no_ready_warp <= '0;
      cnt_branches_taken <= '0;
      cnt_divergent_branches <= '0;
      clock <= '0;
    end else if (counting) begin
      cnt_cycles <= cnt_cycles + 1;
      clock <= clock + 1;
      if (pick_valid && !illegal[pick]) begin
        if (i_taken) cnt_branches_taken <= cnt_branches_taken + 1;
        if ((i_op == OP_BNZ || i_op == OP_BZ) && i_nonzero != 0 && i_nonzero != i_exec)
          cnt_divergent_branches <= cnt_divergent_branches + 1;
      end else if (!pick_valid) begin
        if (blocked_dep != 0) cnt_stall_dependency <= cnt_stall_dependency + 1;
        else if (blocked_unit != 0) cnt_stall_unit_busy <= cnt_stall_unit_busy + 1;
        else if (warp_mem_wait != 0) cnt_stall_memory <= cnt_stall_memory + 1;
        else if (warp_at_bar != 0) cnt_stall_barrier <= cnt_stall_barrier + 1;
        else cnt_stall_no_ready_warp <= cnt_stall_no_ready_warp + 1;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) tnow <= '0;
    else tnow <= tnow + 1;
  end

  always_ff @(posedge clk) begin
    dp_commit <= 1'b0;
    if (rst) begin
      running <= '0;
      launched <= '0;
      dp_valid <= 1'b0;
      fault <= 1'b0;
      fault_cause <= '0;
      fault_warp <= '0;
      fault_pc <= '0;
      sfu_busy <= '0;
      warp_at_bar <= '0;
      mem_wait_insn <= '0;
      for (int w = 0; w < WARPS; w++) mem_pend[w] <= '0;
    end else if (start) begin
      for (int w = 0; w < WARPS; w++) begin
        warp_pc[w] <= code_base;
        warp_exec[w] <= warp_lanes[w*32 +: 32];
        warp_alive[w] <= warp_lanes[w*32 +: 32];
        running[w] <= warp_lanes[w*32 +: 32] != 0;
        launched[w] <= warp_lanes[w*32 +: 32] != 0;
        for (int r = 0; r < REGS; r++) sb[w][r] <= tnow;
        mem_pend[w] <= '0;
      end
      warp_at_bar <= '0;
      mem_wait_insn <= '0;
      dp_valid <= 1'b0;
      sfu_busy <= '0;
      fault <= 1'b0;
    end else begin
      if (sfu_busy != 0) sfu_busy <= sfu_busy - 1;

      // Datapath: advance one sub-warp; commit after the last.
      if (dp_valid) begin
        if (dp_k == KB'(CPW - 1)) begin
          dp_valid <= 1'b0;
          dp_commit <= 1'b1;
          dp_commit_warp <= dp_warp;
          dp_commit_pc <= dp_pc;
          dp_commit_exec <= dp_exec;
          dp_commit_exec_after <= dp_exec_after;
          dp_commit_alive_after <= dp_alive_after;
          dp_commit_taken <= dp_taken;
        end
        dp_k <= dp_k + 1'b1;
      end

      if (lsu_wb) begin
        mem_wait_insn[lsu_wb_warp] <= 1'b0;
        mem_pend[lsu_wb_warp][lsu_wb_rd[RB-1:0]] <= 1'b0;
      end

      if (pick_valid && illegal[pick]) begin
        fault <= 1'b1;
        fault_cause <= f_pc_ok[pick] ? FAULT_ILLEGAL : FAULT_PC;
        fault_warp <= pick;
        fault_pc <= warp_pc[pick];
      end else if (pick_valid) begin
        warp_pc[pick] <= i_next_pc;
        warp_exec[pick] <= i_exec_after;
        warp_alive[pick] <= i_alive_after;
        if (i_op == OP_EXIT && i_alive_after == 0) running[pick] <= 1'b0;
        if (i_op == OP_BAR) warp_at_bar[pick] <= 1'b1;
        // The LSU takes one instruction at a time and writes back before it
        // takes the next, so a warp's memory instructions stay in order
        // under either wait.
        if (lsu_issue && !blk_mem_wait_register) mem_wait_insn[pick] <= 1'b1;
        if (lsu_issue && blk_mem_wait_register && f_wr[pick])
          mem_pend[pick][f_rd[pick][RB-1:0]] <= 1'b1;
        if (issue_dp) begin
          dp_valid <= 1'b1;
          dp_k <= '0;
          dp_warp <= pick;
          dp_op <= i_op;
          dp_rd <= f_rd[pick];
          dp_rs1 <= f_rs1[pick];
          dp_rs2 <= f_rs2[pick];
          dp_rs3 <= f_rs3[pick];
          dp_imm <= i_imm;
          dp_use_imm <= f_fmt[pick] == FMT_I || f_fmt[pick] == FMT_U;
          dp_wr <= f_wr[pick];
          dp_all_lanes <= i_op == OP_EMASK_GET;
          dp_exec <= i_exec;
          dp_pc <= i_pc;
          dp_exec_after <= i_exec_after;
          dp_alive_after <= i_alive_after;
          dp_taken <= i_taken;
          unique case (i_op)
            OP_VOTE_ANY: dp_scalar <= 32'(i_nonzero != 0);
            OP_VOTE_ALL: dp_scalar <= 32'(i_nonzero == i_exec);
            OP_VOTE_BALLOT: dp_scalar <= i_nonzero;
            default: dp_scalar <= i_exec;  // emask.get
          endcase
          if (f_wr[pick]) sb[pick][f_rd[pick][RB-1:0]] <= tnow + 32'(i_lat);
          if (opcode_unit(i_op) == UNIT_SFU) sfu_busy <= i_release * 16'(CPW);
        end
      end

      // Barrier: released when every running warp waits; a finished warp
      // can never arrive, so waiting next to one is a deadlock.
      if (warp_at_bar != 0 && (launched & ~running) != 0 && !fault) begin
        fault <= 1'b1;
        fault_cause <= FAULT_BARRIER;
        for (int w = WARPS - 1; w >= 0; w--) if (warp_at_bar[w]) fault_warp <= WB'(w);
        fault_pc <= '0;
      end else if (warp_at_bar != 0 && warp_at_bar == running) begin
        warp_at_bar <= '0;
      end
    end
  end
endmodule
