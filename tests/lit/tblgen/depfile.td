// The depfile names every included .td, so editing any of them reruns the generator.
// RUN: tandem-tblgen --gen-isa-doc -I %tandem_td_common -I %S/Inputs %s -o %t.md -d %t.d
// RUN: FileCheck %s < %t.d
// CHECK: {{.*}}.md: {{.*}}/IRNodes.td {{.*}}/Target.td {{.*}}/Inputs/MiniTarget.td
include "MiniTarget.td"
