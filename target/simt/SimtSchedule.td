//===- SimtSchedule.td - SIMT latencies and functional units ----*- tblgen -*-===//
//
// The scheduler (isel/), the analytic models (models/) and the RTL issue
// logic read these numbers. ReleaseAtCycles is given for a full 32-lane
// datapath; a core with L physical lanes keeps a unit busy
// ReleaseAtCycles * 32 / L cycles per warp instruction.
//
// Load latency is the pipeline latency of a shared-memory or L1 hit; misses
// add the memory system's latency, which the configuration gives.
//
//===----------------------------------------------------------------------===//

def ALU  : ProcResource<"integer ALU: add, logic, shifts, compares, select, multiply">;
def FPU  : ProcResource<"fp32 unit: add, multiply, fused multiply-add, compare, convert">;
def SFU  : ProcResource<"iterative unit: integer divide/remainder, fp32 divide and square root">;
def LSU  : ProcResource<"load/store unit: loads, stores, atomics, shuffles">;
def CTRL : ProcResource<"control: branches, exec mask, votes, barrier, special registers">;

def WriteALU    : SchedWrite;
def WriteIMul   : SchedWrite;
def WriteIDiv   : SchedWrite;
def WriteFPU    : SchedWrite;
def WriteFMA    : SchedWrite;
def WriteFDiv   : SchedWrite;
def WriteFSqrt  : SchedWrite;
def WriteLoad   : SchedWrite;
def WriteStore  : SchedWrite;
def WriteAtomic : SchedWrite;
def WriteShfl   : SchedWrite;
def WriteCtrl   : SchedWrite;
def WriteBranch : SchedWrite;
def WriteBar    : SchedWrite;

def : WriteRes<WriteALU,    [ALU]>  { let Latency = 2; }
def : WriteRes<WriteIMul,   [ALU]>  { let Latency = 4; }
def : WriteRes<WriteIDiv,   [SFU]>  { let Latency = 34; let ReleaseAtCycles = 32; }
def : WriteRes<WriteFPU,    [FPU]>  { let Latency = 4; }
def : WriteRes<WriteFMA,    [FPU]>  { let Latency = 4; }
def : WriteRes<WriteFDiv,   [SFU]>  { let Latency = 28; let ReleaseAtCycles = 26; }
def : WriteRes<WriteFSqrt,  [SFU]>  { let Latency = 28; let ReleaseAtCycles = 26; }
def : WriteRes<WriteLoad,   [LSU]>  { let Latency = 4; }
def : WriteRes<WriteStore,  [LSU]>  { let Latency = 1; }
def : WriteRes<WriteAtomic, [LSU]>  { let Latency = 8; }
def : WriteRes<WriteShfl,   [LSU]>  { let Latency = 4; }
def : WriteRes<WriteCtrl,   [CTRL]> { let Latency = 1; }
def : WriteRes<WriteBranch, [CTRL]> { let Latency = 1; }
def : WriteRes<WriteBar,    [CTRL]> { let Latency = 1; }
