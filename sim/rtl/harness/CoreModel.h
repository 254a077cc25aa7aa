//===- CoreModel.h - The Verilated core behind a configuration-free face --===//
//
// The harness (RtlSim.cpp) drives one Verilated simt_core whose port widths
// depend on its build parameters (lanes, warps, line size, ...). To serve
// every configuration with one harness, it reaches the model only through
// this header: a CoreModel (a small vtable: eval, waveform, the parameters
// the model was built with) and CorePorts, the address and storage size of
// every port. Verilator stores a port as CData/SData/IData/QData (1, 2, 4 or
// 8 bytes) or, beyond 64 bits, as an array of 32-bit words; unpacked arrays
// (warp_pc[WARPS], cnt_op_warp[256]) as arrays of such elements. The
// storage size alone therefore says how to read or write a port.
//
// The default configuration's model is linked into tandem_rtl; models of
// other configurations are shared libraries built on demand (ModelCache.h)
// that export the two C functions at the end. This header must stay free of
// LLVM and Verilator includes: the on-demand library compiles it with only
// Verilator's headers.
//
// Bump CoreModelAbiVersion whenever CoreModel, CorePorts or ModelParams
// change: a cached library of another version is rebuilt, never loaded.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>

namespace tandem::rtl {

constexpr unsigned CoreModelAbiVersion = 3;

/// One port: where Verilator keeps it and how many bytes that storage has.
struct Port {
  void *Data = nullptr;
  unsigned Bytes = 0;

  uint64_t get() const {
    switch (Bytes) {
    case 1:
      return *static_cast<const uint8_t *>(Data);
    case 2:
      return *static_cast<const uint16_t *>(Data);
    case 4:
      return *static_cast<const uint32_t *>(Data);
    default: // 8, or the low 64 bits of a wide port
      uint64_t V;
      std::memcpy(&V, Data, 8);
      return V;
    }
  }
  void set(uint64_t V) {
    switch (Bytes) {
    case 1:
      *static_cast<uint8_t *>(Data) = uint8_t(V);
      break;
    case 2:
      *static_cast<uint16_t *>(Data) = uint16_t(V);
      break;
    case 4:
      *static_cast<uint32_t *>(Data) = uint32_t(V);
      break;
    default:
      std::memcpy(Data, &V, 8);
      break;
    }
  }
  /// 32-bit word \p I (little-endian order of words, as Verilator's).
  uint32_t word(unsigned I) const {
    if (Bytes <= 8)
      return uint32_t(get() >> (32 * I));
    return static_cast<const uint32_t *>(Data)[I];
  }
  void setWord(unsigned I, uint32_t W) {
    if (Bytes <= 8) {
      uint64_t Mask = uint64_t(0xffffffffu) << (32 * I);
      set((get() & ~Mask) | (uint64_t(W) << (32 * I)));
    } else {
      static_cast<uint32_t *>(Data)[I] = W;
    }
  }
  bool bit(unsigned I) const { return (word(I / 32) >> (I % 32)) & 1; }
};

/// An unpacked array port: Count elements of ElemBytes each.
struct ArrayPort {
  void *Data = nullptr;
  unsigned ElemBytes = 0;
  unsigned Count = 0;

  uint64_t at(unsigned I) const {
    Port P{static_cast<char *>(Data) + size_t(I) * ElemBytes, ElemBytes};
    return P.get();
  }
};

/// Every port of simt_core the harness uses (names as in simt_core.sv).
struct CorePorts {
  // Inputs.
  Port clk, rst, imem_we, imem_addr, imem_wdata, clear_counters, start;
  Port code_base, code_bytes, regs_used, warp_lanes;
  Port ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z;
  Port nctaid_x, nctaid_y, nctaid_z, nwarps, local_base, local_warp_stride;
  Port sched_gto, local_write_back, mem_wait_register, lsu_in_flight, chk_ok, mem_req_ready,
      mem_resp_valid, mem_resp_tag, mem_resp_addr;
  Port mem_resp_data, dbg_warp, dbg_reg;
  // Outputs.
  Port done, fault, fault_cause, fault_warp, fault_pc;
  Port chk_valid, chk_warp, chk_pc, chk_mask, chk_addr;
  Port mem_req_valid, mem_req_kind, mem_req_space, mem_req_addr;
  Port mem_req_wdata, mem_req_be, mem_req_op, mem_req_b, mem_req_c, mem_req_tag;
  Port dp_commit, dp_commit_warp, dp_commit_pc, dp_commit_exec;
  Port dp_commit_exec_after, dp_commit_alive_after, dp_commit_taken;
  Port lsu_commit, lsu_commit_warp, lsu_commit_pc, lsu_commit_exec;
  Port lsu_commit_addr, lsu_commit_stval, dbg_row;
  ArrayPort warp_pc, warp_exec, warp_alive;
  Port warp_at_bar, warp_mem_wait, warp_finished;
  Port issue_valid, issue_warp, warp_blocked_dep, warp_blocked_unit;
  Port cnt_cycles, cnt_stall_dependency, cnt_stall_memory;
  Port cnt_stall_unit_busy, cnt_stall_barrier, cnt_stall_no_ready_warp;
  Port cnt_branches_taken, cnt_divergent_branches, cnt_l1_hits, cnt_l1_misses;
  Port cnt_l1_writebacks, cnt_shared_bank_conflict_cycles;
  ArrayPort cnt_op_warp, cnt_op_thread;
};

/// The Verilog parameters the model was built with.
struct ModelParams {
  unsigned Lanes, Warps, Regs, L1Bytes, L1Ways, LineBytes, SharedBytes,
      SharedBanks, ImemWords;
  unsigned LsuSlots; ///< lsu.max_in_flight: the LSU's slots and request tags

  bool operator==(const ModelParams &) const = default;
};

class CoreModel {
public:
  virtual ~CoreModel() = default;
  virtual const ModelParams &params() const = 0;
  virtual CorePorts &ports() = 0;
  virtual void eval() = 0;
  /// Starts a VCD of every signal (the model must have been created with
  /// tracing allowed); false if the file cannot be created.
  virtual bool openWaveform(const char *Path) = 0;
  /// Writes the signals at \p Time if a waveform is open.
  virtual void dumpWaveform(uint64_t Time) = 0;
  virtual void closeWaveform() = 0;
};

} // namespace tandem::rtl

// What an on-demand model library exports (C names, so dlsym finds them).
extern "C" {
/// CoreModelAbiVersion of the library.
unsigned tandem_rtl_model_abi_version();
/// A new model; \p AllowTracing must be set for openWaveform to work.
tandem::rtl::CoreModel *tandem_rtl_new_model(bool AllowTracing);
}
