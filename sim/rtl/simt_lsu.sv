// simt_lsu: the load/store unit of a core: address generation, the
// protection check, the coalescer, the L1 data cache, banked shared memory,
// atomics and shuffles.
//
// Flow: issue (operand rows latched) -> address generation (32/LANES cycles,
// LANES lanes per cycle) -> protection check through the harness (chk_*: the
// harness owns the allocations and reports faults like the ISS) -> the
// space's path -> write-back of the result row and commit.
//
// In flight: the front end (the flow above) works on one warp instruction at
// a time. With in_flight (latched at start, 1..SLOTS) above 1, a load that
// has sent all its line requests and still waits for responses moves to a
// load slot, and the front end takes the next instruction, so up to
// in_flight memory instructions are in the LSU at once (memory-level
// parallelism between warps). in_flight 1 is the LSU before slots: nothing
// moves, every instruction goes from issue to write-back here. Each request
// carries the slot of its instruction as a tag, echoed with the response.
// Write-back: the front end's first; a slot whose responses are all in takes
// the port when the front end does not (lowest slot first).
//  - global and local: the coalescer sends one request per distinct line the
//    active lanes touch. L1: LINE_BYTES lines, L1_WAYS ways, round-robin
//    replacement; a load miss reserves the set's next way when it sends its
//    request and fills it when the response comes, unless the reservation
//    was cancelled meanwhile: by a later miss taking the way, by a store or
//    atomic to the line being filled (the response predates it: memory is
//    written in request order), or by a write-back store making the way's
//    current line dirty. A load miss on a line already being filled sends
//    no request: its lanes merge onto that fill and take their words from
//    its response, identified by the filling instruction's tag (an MSHR
//    merge; a line is never in two ways, and the response predates only
//    writes issued after the merge, which cancelled the fill). Global stores are
//    write-through, no-write-allocate (a store hit updates the line). Local
//    stores are the same unless local_write_back was set at block start:
//    then a hit updates the line and marks it dirty, a miss whose lanes
//    write the whole line allocates it dirty without reading memory, and
//    only a partial-line miss goes to memory. A dirty line is written back,
//    in a cycle of its own, when a miss wants its way; at block start dirty
//    lines are dropped (local memory is dead then, and zeroed for the next
//    block). Local addresses are translated to the interleaved layout (word
//    W of lane L at (W*32+L)*4 of the warp's local area in device memory).
//  - param and const: line requests to the harness, not cached.
//  - shared: SHARED_BANKS 4-byte-wide banks; each sub-warp of LANES lanes is
//    served in as many cycles as the most distinct words any one bank must
//    deliver (lanes reading the same word share it).
//  - atomics: lane by lane in lane order. Global ones are performed at the
//    memory side (the harness) and invalidate the L1 line; their requests
//    go out one a cycle without waiting for each other's responses (the
//    memory performs them in request order), and the front end holds the
//    instruction until every lane's old word is back. Shared ones here,
//    sub-warp by sub-warp like shared loads, one lane a bank a cycle (so
//    lanes on one word go one a cycle, in lane order).
//  - shuffles: read the latched source row, 32/LANES cycles.
// Guarantees: stores and atomics of one warp apply in lane order; memory
// instructions reach memory in issue order (requests are sent by the front
// end only); requests are issued only when mem_req_ready was high; a way is
// filled only when clean, so no dirty byte is ever overwritten unwritten;
// the L1 never holds a line older than the last write to it.
module simt_lsu
  import simt_isa_pkg::*;
#(
    parameter int WARPS = 8,
    parameter int LANES = 8,
    parameter int L1_BYTES = 16384,
    parameter int L1_WAYS = 4,
    parameter int LINE_BYTES = 64,
    parameter int SHARED_BYTES = 16384,
    parameter int SHARED_BANKS = 8,
    parameter int SLOTS = 8,  // the most memory instructions in flight (lsu.max_in_flight)
    localparam int WB = WARPS > 1 ? $clog2(WARPS) : 1,
    localparam int TB = SLOTS > 1 ? $clog2(SLOTS) : 1,  // request tag bits
    localparam int LINE_BITS = LINE_BYTES * 8
) (
    input  logic                  clk,
    input  logic                  rst,
    input  logic                  start,
    input  logic                  issue,
    input  logic [7:0]            op,
    input  logic [WB-1:0]         warp,
    input  logic [31:0]           pc,
    input  logic [31:0]           exec,
    input  logic [5:0]            rd,
    input  logic [31:0]           imm,
    input  logic [32*32-1:0]      row1,
    input  logic [32*32-1:0]      row2,
    input  logic [32*32-1:0]      row3,
    input  logic [31:0]           local_base,
    input  logic [31:0]           local_warp_stride,
    input  logic                  local_write_back,  // latched at start
    input  logic [4:0]            in_flight,         // latched at start, 1..SLOTS
    output logic                  ready,  // takes an instruction this cycle
    output logic                  idle,   // holds no instruction
    output logic                  chk_valid,
    output logic [7:0]            chk_op,
    output logic [WB-1:0]         chk_warp,
    output logic [31:0]           chk_pc,
    output logic [31:0]           chk_mask,
    output logic [32*32-1:0]      chk_addr,
    input  logic                  chk_ok,
    input  logic                  mem_req_ready,
    output logic                  mem_req_valid,
    output logic [1:0]            mem_req_kind,
    output logic [1:0]            mem_req_space,
    output logic [31:0]           mem_req_addr,
    output logic [LINE_BITS-1:0]  mem_req_wdata,
    output logic [LINE_BYTES-1:0] mem_req_be,
    output logic [7:0]            mem_req_op,
    output logic [31:0]           mem_req_b,
    output logic [31:0]           mem_req_c,
    output logic [TB-1:0]         mem_req_tag,
    input  logic                  mem_resp_valid,
    input  logic [TB-1:0]         mem_resp_tag,
    input  logic [31:0]           mem_resp_addr,
    input  logic [LINE_BITS-1:0]  mem_resp_data,
    output logic                  wb_valid,
    output logic [WB-1:0]         wb_warp,
    output logic [5:0]            wb_rd,
    output logic [31:0]           wb_mask,
    output logic [32*32-1:0]      wb_row,
    output logic                  commit,
    output logic [WB-1:0]         commit_warp,
    output logic [31:0]           commit_pc,
    output logic [31:0]           commit_exec,
    output logic [32*32-1:0]      commit_addr,
    output logic [32*32-1:0]      commit_stval,
    input  logic                  clear_counters,
    output logic [63:0]           cnt_l1_hits,
    output logic [63:0]           cnt_l1_misses,
    output logic [63:0]           cnt_l1_writebacks,
    output logic [63:0]           cnt_shared_bank_conflict_cycles
);
  localparam int CPW = 32 / LANES;
  localparam int SETS = L1_BYTES / (L1_WAYS * LINE_BYTES);
  localparam int LINES = SETS * L1_WAYS;
  localparam int OFF_BITS = $clog2(LINE_BYTES);
  localparam int SET_BITS = SETS > 1 ? $clog2(SETS) : 1;
  localparam int WAY_BITS = L1_WAYS > 1 ? $clog2(L1_WAYS) : 1;
  localparam logic [1:0] KIND_READ = 2'd0, KIND_WRITE = 2'd1, KIND_ATOMIC = 2'd2;
  localparam logic [1:0] SP_DEVICE = 2'd0, SP_PARAM = 2'd1, SP_CONST = 2'd2;

  typedef enum logic [3:0] {
    S_IDLE, S_AGU, S_CHECK, S_LINES, S_GATOM, S_SHARED, S_SATOM, S_SHFL, S_WB
  } state_e;
  typedef enum logic [2:0] {
    SPACE_NONE, SPACE_GLOBAL, SPACE_SHARED, SPACE_LOCAL, SPACE_PARAM, SPACE_CONST
  } space_e;

  function automatic space_e space_of(input logic [7:0] o);
    unique case (o)
      OP_GLOBAL_LD_U8, OP_GLOBAL_LD_S8, OP_GLOBAL_LD_U16, OP_GLOBAL_LD_S16,
      OP_GLOBAL_LD_U32, OP_GLOBAL_ST_U8, OP_GLOBAL_ST_U16, OP_GLOBAL_ST_U32,
      OP_ATOM_GLOBAL_ADD, OP_ATOM_GLOBAL_FADD, OP_ATOM_GLOBAL_MIN,
      OP_ATOM_GLOBAL_MAX, OP_ATOM_GLOBAL_MINU, OP_ATOM_GLOBAL_MAXU,
      OP_ATOM_GLOBAL_EXCH, OP_ATOM_GLOBAL_CAS: return SPACE_GLOBAL;
      OP_SHARED_LD_U8, OP_SHARED_LD_S8, OP_SHARED_LD_U16, OP_SHARED_LD_S16,
      OP_SHARED_LD_U32, OP_SHARED_ST_U8, OP_SHARED_ST_U16, OP_SHARED_ST_U32,
      OP_ATOM_SHARED_ADD, OP_ATOM_SHARED_FADD, OP_ATOM_SHARED_MIN,
      OP_ATOM_SHARED_MAX, OP_ATOM_SHARED_MINU, OP_ATOM_SHARED_MAXU,
      OP_ATOM_SHARED_EXCH, OP_ATOM_SHARED_CAS: return SPACE_SHARED;
      OP_LOCAL_LD_U8, OP_LOCAL_LD_S8, OP_LOCAL_LD_U16, OP_LOCAL_LD_S16,
      OP_LOCAL_LD_U32, OP_LOCAL_ST_U8, OP_LOCAL_ST_U16, OP_LOCAL_ST_U32,
      OP_LOCAL_LD_ALL_U32, OP_LOCAL_ST_ALL_U32: return SPACE_LOCAL;
      OP_PARAM_LD_U32: return SPACE_PARAM;
      OP_CONST_LD_U32: return SPACE_CONST;
      default: return SPACE_NONE;
    endcase
  endfunction

  function automatic logic is_store(input logic [7:0] o);
    unique case (o)
      OP_GLOBAL_ST_U8, OP_GLOBAL_ST_U16, OP_GLOBAL_ST_U32, OP_SHARED_ST_U8,
      OP_SHARED_ST_U16, OP_SHARED_ST_U32, OP_LOCAL_ST_U8, OP_LOCAL_ST_U16,
      OP_LOCAL_ST_U32, OP_LOCAL_ST_ALL_U32: return 1'b1;
      default: return 1'b0;
    endcase
  endfunction

  function automatic logic is_atomic(input logic [7:0] o);
    unique case (o)
      OP_ATOM_GLOBAL_ADD, OP_ATOM_GLOBAL_FADD, OP_ATOM_GLOBAL_MIN,
      OP_ATOM_GLOBAL_MAX, OP_ATOM_GLOBAL_MINU, OP_ATOM_GLOBAL_MAXU,
      OP_ATOM_GLOBAL_EXCH, OP_ATOM_GLOBAL_CAS, OP_ATOM_SHARED_ADD,
      OP_ATOM_SHARED_FADD, OP_ATOM_SHARED_MIN, OP_ATOM_SHARED_MAX,
      OP_ATOM_SHARED_MINU, OP_ATOM_SHARED_MAXU, OP_ATOM_SHARED_EXCH,
      OP_ATOM_SHARED_CAS: return 1'b1;
      default: return 1'b0;
    endcase
  endfunction

  // Access size in bytes: 1, 2 or 4.
  function automatic logic [2:0] size_of(input logic [7:0] o);
    unique case (o)
      OP_GLOBAL_LD_U8, OP_GLOBAL_LD_S8, OP_GLOBAL_ST_U8, OP_SHARED_LD_U8,
      OP_SHARED_LD_S8, OP_SHARED_ST_U8, OP_LOCAL_LD_U8, OP_LOCAL_LD_S8,
      OP_LOCAL_ST_U8: return 3'd1;
      OP_GLOBAL_LD_U16, OP_GLOBAL_LD_S16, OP_GLOBAL_ST_U16, OP_SHARED_LD_U16,
      OP_SHARED_LD_S16, OP_SHARED_ST_U16, OP_LOCAL_LD_U16, OP_LOCAL_LD_S16,
      OP_LOCAL_ST_U16: return 3'd2;
      default: return 3'd4;
    endcase
  endfunction

  function automatic logic is_signed(input logic [7:0] o);
    unique case (o)
      OP_GLOBAL_LD_S8, OP_GLOBAL_LD_S16, OP_SHARED_LD_S8, OP_SHARED_LD_S16,
      OP_LOCAL_LD_S8, OP_LOCAL_LD_S16: return 1'b1;
      default: return 1'b0;
    endcase
  endfunction

  // A loaded value from the 4 bytes starting at the access, extended.
  function automatic logic [31:0] extend(input logic [31:0] raw, input logic [2:0] size,
                                         input logic sgn);
    unique case (size)
      3'd1: return sgn ? {{24{raw[7]}}, raw[7:0]} : {24'h0, raw[7:0]};
      3'd2: return sgn ? {{16{raw[15]}}, raw[15:0]} : {16'h0, raw[15:0]};
      default: return raw;
    endcase
  endfunction

  //===--- State ------------------------------------------------------------===//
  state_e        state;
  logic [7:0]    q_op;
  space_e        q_space;
  logic          q_store, q_atomic, q_signed;
  logic [2:0]    q_size;
  logic [WB-1:0] q_warp;
  logic [31:0]   q_pc, q_exec;
  logic [5:0]    q_rd;
  logic [31:0]   q_addr [32];   // as the thread sees it
  logic [31:0]   q_taddr [32];  // in the device (local translated)
  logic [31:0]   q_b [32];
  logic [31:0]   q_c [32];
  logic [31:0]   q_src [32];
  logic [31:0]   q_res [32];
  logic [WAY_BITS-1:0] q_way [32];  // the way a lane's missing line will fill
  logic [31:0]   q_fill;            // ... if it reserved one
  logic [31:0]   q_merge;           // lanes waiting on another instruction's fill
  logic [TB-1:0] q_mtag [32];       // ... whose requests carry this tag
  logic [TB-1:0] q_slot;            // the slot (request tag) of this instruction
  logic [31:0]   q_pending, q_done;
  logic [7:0]    q_count;
  logic [15:0]   q_outstanding;

  logic [31:0]          l1_tag [LINES];
  logic [LINES-1:0]     l1_valid;
  logic [LINES-1:0]     l1_dirty;   // local lines written only here (write-back)
  logic [LINES-1:0]     l1_fill_pending;  // reserved for a fill in flight ...
  logic [31:0]          l1_fill_tag [LINES];  // ... of this line
  logic [TB-1:0]        l1_fill_slot [LINES]; // ... requested by this slot
  logic                 blk_local_wb;
  logic [LINE_BITS-1:0] l1_data [LINES];
  logic [WAY_BITS-1:0]  l1_victim [SETS];
  logic [7:0]           smem [SHARED_BYTES];
  // Shared memory reads as zero at block start: a written bit per byte is
  // cleared in one cycle instead of clearing the array.
  logic [SHARED_BYTES-1:0] smem_written;
  logic [4:0]           blk_in_flight;

  // Load slots: loads whose requests are all sent, waiting for responses.
  logic [SLOTS-1:0]     w_busy;
  logic [WB-1:0]        w_warp [SLOTS];
  logic [5:0]           w_rd [SLOTS];
  logic [31:0]          w_pc [SLOTS];
  logic [31:0]          w_exec [SLOTS];
  logic [31:0]          w_done [SLOTS];
  logic [15:0]          w_outstanding [SLOTS];
  logic [2:0]           w_size [SLOTS];
  logic                 w_signed [SLOTS];
  logic [31:0]          w_fill [SLOTS];
  logic [31:0]          w_merge [SLOTS];
  logic [TB-1:0]        w_mtag [SLOTS][32];
  logic [WAY_BITS-1:0]  w_way [SLOTS][32];
  logic [31:0]          w_addr [SLOTS][32];
  logic [31:0]          w_taddr [SLOTS][32];
  logic [31:0]          w_res [SLOTS][32];

  function automatic logic [31:0] sword(input logic [31:0] a);
    logic [31:0] v;
    for (int k = 0; k < 4; k++) begin
      logic [$clog2(SHARED_BYTES)-1:0] i;
      i = $clog2(SHARED_BYTES)'(a + 32'(k));
      v[k*8 +: 8] = smem_written[i] ? smem[i] : 8'h0;
    end
    return v;
  endfunction

  // The slot that writes back this cycle, if any: the front end's write-back
  // goes first.
  logic       wb_slot_valid;
  logic [TB-1:0] wb_slot;
  always_comb begin
    wb_slot_valid = 1'b0;
    wb_slot = '0;
    if (state != S_WB)
      for (int s = SLOTS - 1; s >= 0; s--)
        if (w_busy[s] && w_outstanding[s] == 0 && w_done[s] == w_exec[s]) begin
          wb_slot_valid = 1'b1;
          wb_slot = TB'(s);
        end
  end
  // A response for a load waiting in a slot (else it is the front end's).
  logic slot_resp;
  assign slot_resp = mem_resp_valid && w_busy[mem_resp_tag];
  // Which instruction the commit port shows: the front end's, or a slot's.
  logic       commit_from_slot;
  logic [TB-1:0] commit_slot;

  assign ready = state == S_IDLE;
  assign idle = state == S_IDLE && w_busy == '0;
  assign chk_valid = state == S_CHECK;
  assign chk_op = q_op;
  assign chk_warp = q_warp;
  assign chk_pc = q_pc;
  assign chk_mask = q_exec;
  assign wb_valid = state == S_WB || wb_slot_valid;
  assign wb_warp = wb_slot_valid ? w_warp[wb_slot] : q_warp;
  assign wb_rd = wb_slot_valid ? w_rd[wb_slot] : q_store ? 6'd0 : q_rd;
  assign wb_mask = wb_slot_valid ? w_exec[wb_slot] : q_exec;
  for (genvar l = 0; l < 32; l++) begin : g_rows
    assign chk_addr[l*32 +: 32] = q_addr[l];
    assign commit_addr[l*32 +: 32] = commit_from_slot ? w_addr[commit_slot][l] : q_addr[l];
    assign commit_stval[l*32 +: 32] = q_b[l];
    assign wb_row[l*32 +: 32] = wb_slot_valid ? w_res[wb_slot][l] : q_res[l];
  end

  function automatic logic [SET_BITS-1:0] set_of(input logic [31:0] line);
    return SET_BITS'((line >> OFF_BITS) % SETS);
  endfunction

  // The response's fill: the way its lanes reserved when their request went
  // out (a slot's lanes, or the front end's while S_LINES takes its own
  // response), if they reserved one. Only cached loads reserve, so nothing
  // else fills.
  logic                     r_fills;
  logic [$clog2(LINES)-1:0] r_idx;
  always_comb begin
    logic [WAY_BITS-1:0] way;
    way = '0;
    r_fills = 1'b0;
    if (slot_resp) begin
      for (int l = 0; l < 32; l++)
        if (w_fill[mem_resp_tag][l] && !w_done[mem_resp_tag][l] &&
            (w_taddr[mem_resp_tag][l] & ~32'(LINE_BYTES - 1)) == mem_resp_addr) begin
          r_fills = 1'b1;
          way = w_way[mem_resp_tag][l];
        end
    end else if (mem_resp_valid && state == S_LINES) begin
      for (int l = 0; l < 32; l++)
        if (q_fill[l] && !q_done[l] && (q_taddr[l] & ~32'(LINE_BYTES - 1)) == mem_resp_addr) begin
          r_fills = 1'b1;
          way = q_way[l];
        end
    end
    r_idx = $clog2(LINES)'(int'(set_of(mem_resp_addr)) * L1_WAYS + int'(way));
  end

  //===--- Coalescer: the lowest pending lane's line and its companions ----===//
  logic [4:0]  c_lane;
  logic [31:0] c_line;
  logic [31:0] c_lanes;
  logic        c_hit;
  logic [$clog2(LINES)-1:0] c_idx;
  logic [$clog2(LINES)-1:0] c_vidx;   // the set's next victim
  logic        c_vdirty;              // ... holds a dirty line
  logic [LINE_BITS-1:0]  c_wdata;     // a store's bytes for the line
  logic [LINE_BYTES-1:0] c_be;        // ... and which bytes those are
  logic [LINE_BITS-1:0]  c_merged;    // the cached line with them written
  logic        c_filling;             // a way of the set is reserved for this line
  logic [$clog2(LINES)-1:0] c_fidx;   // ... this one

  // Evaluated only in the states that use it (the simulation skips it).
  always_comb begin
    logic [$clog2(LINES)-1:0] idx;
    idx = '0;
    c_lane = '0;
    c_line = '0;
    c_lanes = '0;
    c_hit = 1'b0;
    c_idx = '0;
    c_vidx = '0;
    c_vdirty = 1'b0;
    c_wdata = '0;
    c_be = '0;
    c_merged = '0;
    c_filling = 1'b0;
    c_fidx = '0;
    if (state == S_LINES || state == S_GATOM) begin
      for (int l = 31; l >= 0; l--) if (q_pending[l]) c_lane = 5'(l);
      c_line = q_taddr[c_lane] & ~32'(LINE_BYTES - 1);
      for (int l = 0; l < 32; l++)
        c_lanes[l] = q_pending[l] && (q_taddr[l] & ~32'(LINE_BYTES - 1)) == c_line;
      for (int w = 0; w < L1_WAYS; w++) begin
        idx = $clog2(LINES)'(int'(set_of(c_line)) * L1_WAYS + w);
        if (l1_valid[idx] && l1_tag[idx] == c_line) begin
          c_hit = 1'b1;
          c_idx = idx;
        end
        if (l1_fill_pending[idx] && l1_fill_tag[idx] == c_line) begin
          c_filling = 1'b1;
          c_fidx = idx;
        end
      end
      c_vidx = $clog2(LINES)'(int'(set_of(c_line)) * L1_WAYS + int'(l1_victim[set_of(c_line)]));
      c_vdirty = l1_valid[c_vidx] && l1_dirty[c_vidx];
      c_merged = l1_data[c_idx];
      if (q_store)
        for (int l = 0; l < 32; l++)
          if (c_lanes[l])
            for (int k = 0; k < 4; k++)
              if (k < int'(q_size)) begin
                c_wdata[(int'(q_taddr[l] & 32'(LINE_BYTES - 1)) + k)*8 +: 8] = q_b[l][k*8 +: 8];
                c_merged[(int'(q_taddr[l] & 32'(LINE_BYTES - 1)) + k)*8 +: 8] = q_b[l][k*8 +: 8];
                c_be[int'(q_taddr[l] & 32'(LINE_BYTES - 1)) + k] = 1'b1;
              end
    end
  end

  //===--- Shared memory: lanes served this cycle ---------------------------===//
  logic [31:0] s_sub;     // pending lanes of the current sub-warp
  logic [31:0] s_served;
  always_comb begin
    logic [31:0] leader_word [SHARED_BANKS];
    logic        leader_set [SHARED_BANKS];
    logic [$clog2(SHARED_BANKS)-1:0] b;
    b = '0;
    for (int k = 0; k < SHARED_BANKS; k++) begin
      leader_word[k] = '0;
      leader_set[k] = 1'b0;
    end
    s_sub = '0;
    s_served = '0;
    if (state == S_SHARED || state == S_SATOM) begin
      for (int i = 0; i < LANES; i++)
        s_sub[int'(q_count) * LANES + i] = q_pending[int'(q_count) * LANES + i];
      // A bank delivers one word per cycle: the word of the lowest pending
      // lane that maps to it, to every lane that wants that word. An atomic
      // serves that lane alone (the next lane on the word must see its
      // write), so lanes on one word go in lane order.
      for (int l = 0; l < 32; l++) begin
        b = $clog2(SHARED_BANKS)'((q_addr[l] >> 2) % SHARED_BANKS);
        if (s_sub[l]) begin
          if (!leader_set[b]) begin
            leader_set[b] = 1'b1;
            leader_word[b] = q_addr[l] >> 2;
            s_served[l] = 1'b1;
          end else begin
            s_served[l] = state == S_SHARED && leader_word[b] == (q_addr[l] >> 2);
          end
        end
      end
    end
  end

  // Shared atomics: each served lane of the sub-warp (at most one a bank)
  // reads, modifies and writes its word this cycle; sub-warp position i is
  // lane q_count * LANES + i.
  logic [31:0] sa_addr [LANES];
  logic [31:0] sa_b [LANES];
  logic [31:0] sa_c [LANES];
  logic [31:0] sa_old [LANES];
  logic [31:0] sa_fadd [LANES];
  logic [31:0] sa_new [LANES];
  always_comb
    for (int i = 0; i < LANES; i++) begin
      sa_addr[i] = '0;
      sa_b[i] = '0;
      sa_c[i] = '0;
      sa_old[i] = '0;
      if (state == S_SATOM) begin
        sa_addr[i] = q_addr[5'(int'(q_count) * LANES + i)];
        sa_b[i] = q_b[5'(int'(q_count) * LANES + i)];
        sa_c[i] = q_c[5'(int'(q_count) * LANES + i)];
        sa_old[i] = sword(sa_addr[i]);
      end
    end
  for (genvar i = 0; i < LANES; i++) begin : g_shared_atomic
    fpu_lane u_fadd (.opcode(OP_FADD), .a(sa_old[i]), .b(sa_b[i]), .c(32'h0), .result(sa_fadd[i]));
  end
  always_comb
    for (int i = 0; i < LANES; i++)
      unique case (q_op)
        OP_ATOM_SHARED_ADD: sa_new[i] = sa_old[i] + sa_b[i];
        OP_ATOM_SHARED_FADD: sa_new[i] = sa_fadd[i];
        OP_ATOM_SHARED_MIN: sa_new[i] = $signed(sa_old[i]) < $signed(sa_b[i]) ? sa_old[i] : sa_b[i];
        OP_ATOM_SHARED_MAX: sa_new[i] = $signed(sa_old[i]) > $signed(sa_b[i]) ? sa_old[i] : sa_b[i];
        OP_ATOM_SHARED_MINU: sa_new[i] = sa_old[i] < sa_b[i] ? sa_old[i] : sa_b[i];
        OP_ATOM_SHARED_MAXU: sa_new[i] = sa_old[i] > sa_b[i] ? sa_old[i] : sa_b[i];
        OP_ATOM_SHARED_EXCH: sa_new[i] = sa_b[i];
        default: sa_new[i] = sa_old[i] == sa_b[i] ? sa_c[i] : sa_old[i];  // cas
      endcase

  // A global atomic's response: its old word goes to the lowest lane sent
  // to that address whose response is not in yet (one address's requests
  // share a channel, which answers them in order).
  logic       a_resp_valid;
  logic [4:0] a_resp_lane;
  always_comb begin
    a_resp_valid = 1'b0;
    a_resp_lane = '0;
    if (state == S_GATOM && mem_resp_valid && !w_busy[mem_resp_tag])
      for (int l = 31; l >= 0; l--)
        if (q_exec[l] && !q_pending[l] && !q_done[l] && q_taddr[l] == mem_resp_addr) begin
          a_resp_valid = 1'b1;
          a_resp_lane = 5'(l);
        end
  end

  // Shuffle results from the latched source row.
  function automatic logic [31:0] shfl(input logic [7:0] o, input int lane, input logic [31:0] sel,
                                       input logic [31:0] ex, input logic [31:0] src [32]);
    logic [4:0] from;
    unique case (o)
      OP_SHFL_IDX: from = sel[4:0];
      OP_SHFL_UP: from = sel <= 32'(lane) ? 5'(lane - int'(sel[4:0])) : 5'(lane);
      OP_SHFL_DOWN: from = 33'(lane) + 33'(sel) <= 33'd31 ? 5'(lane + int'(sel[4:0])) : 5'(lane);
      default: from = 5'(lane) ^ sel[4:0];
    endcase
    return ex[from] ? src[from] : src[lane];
  endfunction

  //===--- Sequential -------------------------------------------------------===//
  always_ff @(posedge clk) begin
    mem_req_valid <= 1'b0;
    commit <= 1'b0;
    if (rst || clear_counters) begin
      cnt_l1_hits <= '0;
      cnt_l1_misses <= '0;
      cnt_l1_writebacks <= '0;
      cnt_shared_bank_conflict_cycles <= '0;
    end
    if (rst) begin
      state <= S_IDLE;
      w_busy <= '0;
      commit_from_slot <= 1'b0;
    end else if (start) begin
      state <= S_IDLE;
      w_busy <= '0;  // a block starts only when the LSU is idle
      l1_valid <= '0;
      l1_dirty <= '0;  // local memory dies with its block: nothing to write
      l1_fill_pending <= '0;
      blk_local_wb <= local_write_back;
      blk_in_flight <= in_flight;
      // One flag per shared byte: a wide clear is intended here.
      /* verilator lint_off WIDTHCONCAT */
      smem_written <= '0;
      /* verilator lint_on WIDTHCONCAT */
    end else begin
      // The response's line fills the way its lanes reserved (r_idx), for a
      // slot or for the front end, unless that reservation was cancelled or
      // the way reserved again since.
      if (r_fills && l1_fill_pending[r_idx] && l1_fill_tag[r_idx] == mem_resp_addr) begin
        l1_valid[r_idx] <= 1'b1;
        l1_dirty[r_idx] <= 1'b0;
        l1_tag[r_idx] <= mem_resp_addr;
        l1_data[r_idx] <= mem_resp_data;
        l1_fill_pending[r_idx] <= 1'b0;
      end
      // A response for a slot: its lanes take their words.
      if (slot_resp) begin
        logic [TB-1:0] t;
        t = mem_resp_tag;
        for (int l = 0; l < 32; l++)
          if (w_exec[t][l] && !w_done[t][l] && !w_merge[t][l] &&
              (w_taddr[t][l] & ~32'(LINE_BYTES - 1)) == mem_resp_addr) begin
            w_res[t][l] <= extend(32'(mem_resp_data >> ((w_taddr[t][l] & 32'(LINE_BYTES - 1)) * 8)),
                                  w_size[t], w_signed[t]);
            w_done[t][l] <= 1'b1;
          end
        w_outstanding[t] <= w_outstanding[t] - 1;
      end
      // Lanes merged onto this response's fill, in the slots and in the
      // front end, take their words too.
      if (slot_resp) begin
        for (int s = 0; s < SLOTS; s++)
          for (int l = 0; l < 32; l++)
            if (w_busy[s] && w_merge[s][l] && !w_done[s][l] && w_mtag[s][l] == mem_resp_tag &&
                (w_taddr[s][l] & ~32'(LINE_BYTES - 1)) == mem_resp_addr) begin
              w_res[s][l] <= extend(32'(mem_resp_data >> ((w_taddr[s][l] & 32'(LINE_BYTES - 1)) * 8)),
                                    w_size[s], w_signed[s]);
              w_done[s][l] <= 1'b1;
            end
        if (state == S_LINES)
          for (int l = 0; l < 32; l++)
            if (q_merge[l] && !q_done[l] && q_mtag[l] == mem_resp_tag &&
                (q_taddr[l] & ~32'(LINE_BYTES - 1)) == mem_resp_addr) begin
              q_res[l] <= extend(32'(mem_resp_data >> ((q_taddr[l] & 32'(LINE_BYTES - 1)) * 8)),
                                 q_size, q_signed);
              q_done[l] <= 1'b1;
            end
      end
      // A finished slot writes back (the front end's own write-back first).
      if (wb_slot_valid) begin
        commit <= 1'b1;
        commit_warp <= w_warp[wb_slot];
        commit_pc <= w_pc[wb_slot];
        commit_exec <= w_exec[wb_slot];
        commit_from_slot <= 1'b1;
        commit_slot <= wb_slot;
        w_busy[wb_slot] <= 1'b0;
      end
      unique case (state)
        S_IDLE: if (issue) begin
          q_op <= op;
          q_space <= space_of(op);
          q_store <= is_store(op);
          q_atomic <= is_atomic(op);
          q_signed <= is_signed(op);
          q_size <= size_of(op);
          q_warp <= warp;
          q_pc <= pc;
          q_exec <= exec;
          q_rd <= rd;
          q_count <= '0;
          q_pending <= exec;
          q_done <= '0;
          q_outstanding <= '0;
          q_fill <= '0;
          q_merge <= '0;
          // The lowest free slot names this instruction's requests; one is
          // free (the front end hands a load on only while another is).
          for (int k = SLOTS - 1; k >= 0; k--)
            if (!w_busy[k]) q_slot <= TB'(k);
          for (int l = 0; l < 32; l++) begin
            q_addr[l] <= row1[l*32 +: 32] + imm;
            q_src[l] <= row1[l*32 +: 32];
            q_b[l] <= row2[l*32 +: 32];
            q_c[l] <= row3[l*32 +: 32];
            q_res[l] <= '0;
          end
          state <= space_of(op) == SPACE_NONE ? S_SHFL : S_AGU;
        end
        S_AGU: begin
          // LANES address adders: 32/LANES cycles for the warp.
          for (int l = 0; l < 32; l++)
            q_taddr[l] <= q_space == SPACE_LOCAL
                ? local_base + 32'(q_warp) * local_warp_stride +
                  (((q_addr[l] >> 2) << 5) + 32'(l)) * 4 + (q_addr[l] & 32'h3)
                : q_addr[l];
          q_count <= q_count + 1;
          if (int'(q_count) == CPW - 1) begin
            q_count <= '0;
            state <= S_CHECK;
          end
        end
        S_CHECK: if (chk_ok) begin
          if (q_exec == 0) state <= S_WB;
          else if (q_space == SPACE_SHARED) state <= q_atomic ? S_SATOM : S_SHARED;
          else state <= q_atomic ? S_GATOM : S_LINES;
        end
        // A cycle in which a slot's response fills the L1 is the L1's: the
        // front end's line work waits for the next.
        S_LINES: if (!slot_resp) begin
          logic [31:0] done_now;
          logic [15:0] outstanding;
          logic        fe_resp;
          done_now = q_done;
          outstanding = q_outstanding;
          fe_resp = mem_resp_valid && !w_busy[mem_resp_tag];
          // A response completes the lanes of its line (the L1 takes its
          // fill above, r_fills).
          if (fe_resp) begin
            for (int l = 0; l < 32; l++)
              if (q_exec[l] && !done_now[l] && !q_pending[l] && !q_merge[l] &&
                  (q_taddr[l] & ~32'(LINE_BYTES - 1)) == mem_resp_addr) begin
                q_res[l] <= extend(32'(mem_resp_data >> ((q_taddr[l] & 32'(LINE_BYTES - 1)) * 8)),
                                   q_size, q_signed);
                done_now[l] = 1'b1;
              end
            outstanding = outstanding - 1;
          end
          if (q_pending != 0) begin
            logic cached, local_wb, allocates;
            cached = q_space == SPACE_GLOBAL || q_space == SPACE_LOCAL;
            local_wb = blk_local_wb && q_space == SPACE_LOCAL;
            // A miss that takes the set's next way: a cached load (unless
            // its line is being filled already), or a write-back local
            // store that fills the whole line.
            allocates = !c_hit && (q_store ? local_wb && c_be == '1 : cached && !c_filling);
            if (!q_store && cached && c_hit) begin
              for (int l = 0; l < 32; l++)
                if (c_lanes[l]) begin
                  q_res[l] <= extend(32'(l1_data[c_idx] >> ((q_taddr[l] & 32'(LINE_BYTES - 1)) * 8)),
                                     q_size, q_signed);
                  done_now[l] = 1'b1;
                end
              q_pending <= q_pending & ~c_lanes;
              cnt_l1_hits <= cnt_l1_hits + 1;
            end else if (q_store && local_wb && c_hit) begin
              // Write-back hit: the line takes the bytes and becomes dirty,
              // so a fill reserved for its way must not replace it.
              l1_data[c_idx] <= c_merged;
              l1_dirty[c_idx] <= 1'b1;
              l1_fill_pending[c_idx] <= 1'b0;
              done_now = done_now | c_lanes;
              q_pending <= q_pending & ~c_lanes;
            end else if (!q_store && cached && c_filling) begin
              // The line is on its way for another instruction: merge onto
              // that fill (a miss, but no request).
              for (int l = 0; l < 32; l++)
                if (c_lanes[l]) q_mtag[l] <= l1_fill_slot[c_fidx];
              q_merge <= q_merge | c_lanes;
              q_pending <= q_pending & ~c_lanes;
              cnt_l1_misses <= cnt_l1_misses + 1;
            end else if (allocates && c_vdirty) begin
              // The way this miss wants holds a dirty line: write it back
              // first (the line stays, clean); the miss goes next cycle.
              if (mem_req_ready) begin
                mem_req_valid <= 1'b1;
                mem_req_kind <= KIND_WRITE;
                mem_req_space <= SP_DEVICE;
                mem_req_addr <= l1_tag[c_vidx];
                mem_req_tag <= q_slot;
                mem_req_wdata <= l1_data[c_vidx];
                mem_req_be <= '1;
                l1_dirty[c_vidx] <= 1'b0;
                cnt_l1_writebacks <= cnt_l1_writebacks + 1;
              end
            end else if (allocates && q_store) begin
              // Write-back miss over the whole line: allocate it dirty,
              // nothing to read.
              l1_valid[c_vidx] <= 1'b1;
              l1_dirty[c_vidx] <= 1'b1;
              l1_tag[c_vidx] <= c_line;
              l1_data[c_vidx] <= c_wdata;
              l1_victim[set_of(c_line)] <= l1_victim[set_of(c_line)] + 1'b1;
              l1_fill_pending[c_vidx] <= 1'b0;
              if (c_filling) l1_fill_pending[c_fidx] <= 1'b0;  // older than these bytes
              done_now = done_now | c_lanes;
              q_pending <= q_pending & ~c_lanes;
            end else if (mem_req_ready) begin
              mem_req_valid <= 1'b1;
              mem_req_kind <= q_store ? KIND_WRITE : KIND_READ;
              mem_req_space <= q_space == SPACE_PARAM ? SP_PARAM
                             : q_space == SPACE_CONST ? SP_CONST : SP_DEVICE;
              mem_req_addr <= c_line;
              mem_req_wdata <= c_wdata;
              mem_req_be <= c_be;
              mem_req_tag <= q_slot;
              q_pending <= q_pending & ~c_lanes;
              if (q_store) begin
                done_now = done_now | c_lanes;
                if (c_hit) l1_data[c_idx] <= c_merged;  // write-through, update on hit
                if (c_filling) l1_fill_pending[c_fidx] <= 1'b0;  // the fill predates this store
              end else begin
                outstanding = outstanding + 1;
                if (cached) cnt_l1_misses <= cnt_l1_misses + 1;
                if (allocates) begin
                  // Reserve the (clean) way the response will fill.
                  for (int l = 0; l < 32; l++)
                    if (c_lanes[l]) begin
                      q_way[l] <= l1_victim[set_of(c_line)];
                      q_fill[l] <= 1'b1;
                    end
                  l1_victim[set_of(c_line)] <= l1_victim[set_of(c_line)] + 1'b1;
                  l1_fill_pending[c_vidx] <= 1'b1;
                  l1_fill_tag[c_vidx] <= c_line;
                  l1_fill_slot[c_vidx] <= q_slot;
                end
              end
            end
          end
          q_done <= done_now;
          q_outstanding <= outstanding;
          if (q_pending == 0 && outstanding == 0 && done_now == q_exec) begin
            state <= S_WB;
          end else if (q_pending == 0 && !q_store && !fe_resp &&
                       5'($countones(w_busy)) + 5'd1 < blk_in_flight) begin
            // Every request sent, responses to come: the load waits in its
            // slot and the front end takes the next instruction.
            w_busy[q_slot] <= 1'b1;
            w_warp[q_slot] <= q_warp;
            w_rd[q_slot] <= q_rd;
            w_pc[q_slot] <= q_pc;
            w_exec[q_slot] <= q_exec;
            w_done[q_slot] <= done_now;
            w_outstanding[q_slot] <= outstanding;
            w_size[q_slot] <= q_size;
            w_signed[q_slot] <= q_signed;
            w_fill[q_slot] <= q_fill;
            w_merge[q_slot] <= q_merge;
            for (int l = 0; l < 32; l++) begin
              w_way[q_slot][l] <= q_way[l];
              w_mtag[q_slot][l] <= q_mtag[l];
              w_addr[q_slot][l] <= q_addr[l];
              w_taddr[q_slot][l] <= q_taddr[l];
              w_res[q_slot][l] <= q_res[l];
            end
            state <= S_IDLE;
          end
        end
        // Lanes go out one a cycle, in lane order, without waiting for each
        // other's responses: memory performs them in request order, so
        // lanes on one word still apply in lane order.
        S_GATOM: if (!slot_resp) begin
          logic [31:0] pending;
          logic [15:0] outstanding;
          pending = q_pending;
          outstanding = q_outstanding;
          if (q_pending != 0 && mem_req_ready) begin
            mem_req_valid <= 1'b1;
            mem_req_kind <= KIND_ATOMIC;
            mem_req_space <= SP_DEVICE;
            mem_req_addr <= q_taddr[c_lane];
            mem_req_op <= q_op;
            mem_req_b <= q_b[c_lane];
            mem_req_c <= q_c[c_lane];
            mem_req_tag <= q_slot;
            pending[c_lane] = 1'b0;
            outstanding = outstanding + 1;
            // The memory side changes the word: drop any cached copy, and
            // any fill of it in flight (it predates this atomic).
            if (c_hit) l1_valid[c_idx] <= 1'b0;
            if (c_filling) l1_fill_pending[c_fidx] <= 1'b0;
          end
          if (a_resp_valid) begin
            q_res[a_resp_lane] <= mem_resp_data[31:0];
            q_done[a_resp_lane] <= 1'b1;
            outstanding = outstanding - 1;
          end
          q_pending <= pending;
          q_outstanding <= outstanding;
          if (pending == 0 && outstanding == 0) state <= S_WB;
        end
        // Shared loads, stores and atomics: the lanes s_served picks this
        // cycle; the sub-warp is done when none of its lanes is left.
        S_SHARED, S_SATOM: begin
          for (int l = 0; l < 32; l++)
            if (s_served[l]) begin
              if (q_atomic) begin
                for (int k = 0; k < 4; k++) begin
                  smem[q_addr[l] + 32'(k)] <= sa_new[l % LANES][k*8 +: 8];
                  smem_written[$clog2(SHARED_BYTES)'(q_addr[l] + 32'(k))] <= 1'b1;
                end
                q_res[l] <= sa_old[l % LANES];
              end else if (q_store) begin
                for (int k = 0; k < 4; k++)
                  if (k < int'(q_size)) begin
                    smem[q_addr[l] + 32'(k)] <= q_b[l][k*8 +: 8];
                    smem_written[$clog2(SHARED_BYTES)'(q_addr[l] + 32'(k))] <= 1'b1;
                  end
              end else begin
                q_res[l] <= extend(sword(q_addr[l]), q_size, q_signed);
              end
            end
          q_pending <= q_pending & ~s_served;
          if ((s_sub & ~s_served) != 0) begin
            cnt_shared_bank_conflict_cycles <= cnt_shared_bank_conflict_cycles + 1;
          end else begin
            q_count <= q_count + 1;
            if (int'(q_count) == CPW - 1) state <= S_WB;
          end
        end
        S_SHFL: begin
          q_count <= q_count + 1;
          if (int'(q_count) == CPW - 1) begin
            for (int l = 0; l < 32; l++) q_res[l] <= shfl(q_op, l, q_b[l], q_exec, q_src);
            state <= S_WB;
          end
        end
        S_WB: begin
          commit <= 1'b1;
          commit_from_slot <= 1'b0;
          commit_warp <= q_warp;
          commit_pc <= q_pc;
          commit_exec <= q_exec;
          state <= S_IDLE;
        end
        default: state <= S_IDLE;
      endcase
    end
  end
endmodule
