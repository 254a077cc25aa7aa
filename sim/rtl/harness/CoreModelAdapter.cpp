//===- CoreModelAdapter.cpp - One Verilated simt_core as a CoreModel ------===//
//
// Compiled once per Verilated model: into tandem_rtl for the default
// configuration's model (newDefaultCoreModel), and into every on-demand
// model library (ModelCache.cpp builds it with TANDEM_RTL_MODEL_LIBRARY, and
// the library exports the C functions of CoreModel.h). The build parameters
// arrive as TANDEM_RTL_* definitions, the same values given to Verilator
// as -G options. Only Verilator's headers and CoreModel.h are included, so
// the library needs no LLVM.
//
//===----------------------------------------------------------------------===//

#include "CoreModel.h"

#include "Vsimt_core.h"
#include "verilated.h"
#include "verilated_vcd_c.h"

#include <memory>

namespace tandem::rtl {
namespace {

template <typename T> Port portOf(T &Storage) {
  return Port{static_cast<void *>(&Storage), unsigned(sizeof(T))};
}
template <typename T> ArrayPort arrayOf(T &Storage) {
  return ArrayPort{static_cast<void *>(&Storage), unsigned(sizeof(Storage[0])),
                   unsigned(sizeof(T) / sizeof(Storage[0]))};
}

class VerilatedCore final : public CoreModel {
public:
  explicit VerilatedCore(bool AllowTracing)
      : Ctx(std::make_unique<VerilatedContext>()) {
    // Tracing must be allowed before the model is built.
    if (AllowTracing)
      Ctx->traceEverOn(true);
    Top = std::make_unique<Vsimt_core>(Ctx.get(), "simt_core");
    // Shown by waveform viewers: one cycle (two VCD time steps) is 2 ns.
    // (After the model: building it sets the precision from the sources.)
    Ctx->timeprecision(-9);
    Params = {TANDEM_RTL_LANES,        TANDEM_RTL_WARPS,        TANDEM_RTL_REGS,
              TANDEM_RTL_L1_BYTES,     TANDEM_RTL_L1_WAYS,      TANDEM_RTL_LINE_BYTES,
              TANDEM_RTL_SHARED_BYTES, TANDEM_RTL_SHARED_BANKS, TANDEM_RTL_IMEM_WORDS,
              TANDEM_RTL_LSU_SLOTS};
    bindPorts();
  }
  ~VerilatedCore() override {
    closeWaveform();
    Top->final();
  }

  const ModelParams &params() const override { return Params; }
  CorePorts &ports() override { return Ports; }
  void eval() override { Top->eval(); }

  bool openWaveform(const char *Path) override {
    Vcd = std::make_unique<VerilatedVcdC>();
    Top->trace(Vcd.get(), 99);
    Vcd->open(Path);
    if (!Vcd->isOpen()) {
      Vcd.reset();
      return false;
    }
    return true;
  }
  void dumpWaveform(uint64_t Time) override {
    if (Vcd)
      Vcd->dump(Time);
  }
  void closeWaveform() override {
    if (Vcd)
      Vcd->close();
    Vcd.reset();
  }

private:
  void bindPorts() {
    Vsimt_core &T = *Top;
    CorePorts &P = Ports;
#define TANDEM_PORT(Name) P.Name = portOf(T.Name)
#define TANDEM_ARRAY(Name) P.Name = arrayOf(T.Name)
    TANDEM_PORT(clk);
    TANDEM_PORT(rst);
    TANDEM_PORT(imem_we);
    TANDEM_PORT(imem_addr);
    TANDEM_PORT(imem_wdata);
    TANDEM_PORT(clear_counters);
    TANDEM_PORT(start);
    TANDEM_PORT(code_base);
    TANDEM_PORT(code_bytes);
    TANDEM_PORT(regs_used);
    TANDEM_PORT(warp_lanes);
    TANDEM_PORT(ntid_x);
    TANDEM_PORT(ntid_y);
    TANDEM_PORT(ntid_z);
    TANDEM_PORT(ctaid_x);
    TANDEM_PORT(ctaid_y);
    TANDEM_PORT(ctaid_z);
    TANDEM_PORT(nctaid_x);
    TANDEM_PORT(nctaid_y);
    TANDEM_PORT(nctaid_z);
    TANDEM_PORT(nwarps);
    TANDEM_PORT(local_base);
    TANDEM_PORT(local_warp_stride);
    TANDEM_PORT(sched_gto);
    TANDEM_PORT(local_write_back);
    TANDEM_PORT(mem_wait_register);
    TANDEM_PORT(lsu_in_flight);
    TANDEM_PORT(chk_ok);
    TANDEM_PORT(mem_req_ready);
    TANDEM_PORT(mem_resp_valid);
    TANDEM_PORT(mem_resp_tag);
    TANDEM_PORT(mem_resp_addr);
    TANDEM_PORT(mem_resp_data);
    TANDEM_PORT(dbg_warp);
    TANDEM_PORT(dbg_reg);
    TANDEM_PORT(done);
    TANDEM_PORT(fault);
    TANDEM_PORT(fault_cause);
    TANDEM_PORT(fault_warp);
    TANDEM_PORT(fault_pc);
    TANDEM_PORT(chk_valid);
    TANDEM_PORT(chk_warp);
    TANDEM_PORT(chk_pc);
    TANDEM_PORT(chk_mask);
    TANDEM_PORT(chk_addr);
    TANDEM_PORT(mem_req_valid);
    TANDEM_PORT(mem_req_kind);
    TANDEM_PORT(mem_req_space);
    TANDEM_PORT(mem_req_addr);
    TANDEM_PORT(mem_req_wdata);
    TANDEM_PORT(mem_req_be);
    TANDEM_PORT(mem_req_op);
    TANDEM_PORT(mem_req_b);
    TANDEM_PORT(mem_req_c);
    TANDEM_PORT(mem_req_tag);
    TANDEM_PORT(dp_commit);
    TANDEM_PORT(dp_commit_warp);
    TANDEM_PORT(dp_commit_pc);
    TANDEM_PORT(dp_commit_exec);
    TANDEM_PORT(dp_commit_exec_after);
    TANDEM_PORT(dp_commit_alive_after);
    TANDEM_PORT(dp_commit_taken);
    TANDEM_PORT(lsu_commit);
    TANDEM_PORT(lsu_commit_warp);
    TANDEM_PORT(lsu_commit_pc);
    TANDEM_PORT(lsu_commit_exec);
    TANDEM_PORT(lsu_commit_addr);
    TANDEM_PORT(lsu_commit_stval);
    TANDEM_PORT(dbg_row);
    TANDEM_ARRAY(warp_pc);
    TANDEM_ARRAY(warp_exec);
    TANDEM_ARRAY(warp_alive);
    TANDEM_PORT(warp_at_bar);
    TANDEM_PORT(warp_mem_wait);
    TANDEM_PORT(warp_finished);
    TANDEM_PORT(issue_valid);
    TANDEM_PORT(issue_warp);
    TANDEM_PORT(warp_blocked_dep);
    TANDEM_PORT(warp_blocked_unit);
    TANDEM_PORT(cnt_cycles);
    TANDEM_PORT(cnt_stall_dependency);
    TANDEM_PORT(cnt_stall_memory);
    TANDEM_PORT(cnt_stall_unit_busy);
    TANDEM_PORT(cnt_stall_barrier);
    TANDEM_PORT(cnt_stall_no_ready_warp);
    TANDEM_PORT(cnt_branches_taken);
    TANDEM_PORT(cnt_divergent_branches);
    TANDEM_PORT(cnt_l1_hits);
    TANDEM_PORT(cnt_l1_misses);
    TANDEM_PORT(cnt_l1_writebacks);
    TANDEM_PORT(cnt_shared_bank_conflict_cycles);
    TANDEM_ARRAY(cnt_op_warp);
    TANDEM_ARRAY(cnt_op_thread);
#undef TANDEM_PORT
#undef TANDEM_ARRAY
  }

  std::unique_ptr<VerilatedContext> Ctx;
  std::unique_ptr<Vsimt_core> Top;
  std::unique_ptr<VerilatedVcdC> Vcd;
  ModelParams Params;
  CorePorts Ports;
};

} // namespace

#ifdef TANDEM_RTL_MODEL_LIBRARY
} // namespace tandem::rtl

extern "C" __attribute__((visibility("default"))) unsigned
tandem_rtl_model_abi_version() {
  return tandem::rtl::CoreModelAbiVersion;
}

extern "C" __attribute__((visibility("default"))) tandem::rtl::CoreModel *
tandem_rtl_new_model(bool AllowTracing) {
  return new tandem::rtl::VerilatedCore(AllowTracing);
}
#else
std::unique_ptr<CoreModel> newDefaultCoreModel(bool AllowTracing) {
  return std::make_unique<VerilatedCore>(AllowTracing);
}
} // namespace tandem::rtl
#endif
