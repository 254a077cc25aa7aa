// The SystemVerilog package carries opcodes and field positions.
// RUN: tandem-tblgen --gen-sv-package -I %tandem_td_common -I %S/Inputs %s -o - | FileCheck %s
// CHECK: package target_isa_pkg;
// CHECK: localparam logic [7:0] OP_ADD = 8'h01; // add
// CHECK: localparam int R_RD_LO = 18, R_RD_WIDTH = 6;
// CHECK: function automatic logic [31:0] opcode_field_mask(input logic [7:0] opcode);
// CHECK: OP_ADD: return 32'hffffffc0;
// CHECK: endpackage
include "MiniTarget.td"
