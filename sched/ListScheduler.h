//===- ListScheduler.h - pre-allocation list scheduling for simt -*- C++ -*-===//
//
// Input: SSA MIR from isel (PHIs first in each block, one pseudo terminator
// last); nothing about registers is decided yet; every vreg below
// Fn.numVRegs() (mir::verify checks it).
// Output: the same instructions, each block's body (between its PHIs and its
// terminator) reordered by a list scheduler over the latencies in
// target/simt/SimtSchedule.td: every data and memory dependence is kept;
// long-latency operations (global loads above all: they leave the core) are
// started as early as the dependences allow, so a warp has several memory
// requests in flight before it needs the first result; a register-pressure
// guard stops hoisting when too many values would be live at once (values
// live into or through the block count: the guard sees the whole register
// file, not only the block's own values); in a block that hands a PHI its
// next value, every read of the PHI's result comes before that value's def,
// so the two can share a register and the back edge needs no copy. A block
// whose schedule would need more registers at its peak than the register
// file holds keeps selection order when that peaks lower (it spills less).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/MIR.h"

namespace tandem::sched {

struct ScheduleOptions {
  /// Extra cycles a global load or atomic is expected to take beyond the
  /// pipeline latency in the .td (the configuration's DRAM latency): what
  /// makes hoisting them worthwhile.
  unsigned GlobalMemoryLatency = 100;
  /// Registers available (the configuration's `registers`); hoisting stops
  /// adding live values when this many minus a reserve of 4 would be live.
  unsigned NumRegisters = 32;
};

struct ScheduleStats {
  unsigned BlocksReordered = 0;
  unsigned InstructionsMoved = 0;
};

ScheduleStats scheduleFunction(mir::Function &Fn, const ScheduleOptions &Opts);

} // namespace tandem::sched
