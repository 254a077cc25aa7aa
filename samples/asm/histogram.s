# histogram.s - 256-bin histograms of the low byte of u32 values, with atomics.
#
# Both kernels add to bins[] (they do not clear it): bin b receives the
# number of elements whose value & 255 == b. Threads visit elements with a
# grid-stride loop (i = global thread index, then i += threads in the grid,
# while i < n); lanes leave the loop at different trip counts through the
# exec mask.
#
# histogram_global: one atom.global.add per element. Lanes of a warp that
#   hit the same bin are applied in lane order, so nothing is lost.
# histogram_shared: privatized. Each block clears 256 shared counters, bar,
#   counts with atom.shared.add (cheap, on-chip), bar, then merges its 256
#   counters into bins[] with one atom.global.add each (zeros included, so
#   the number of global atomics is exactly 256 per block).
#
# Parameters: in, bins (ptr), n (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 nctaid.x   r5 i (or bin index)
#   r6 stride  r7 n   r8 &in[0]   r9 &bins[0]   r10 exec mask on entry
#   r11 condition   r12 address   r13 value / bin   r14 constant 1
#   r15 shared address   r16 bin count   r17 256

.kernel histogram_global
.param in ptr
.param bins ptr
.param n u32
    emask.get r10
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    s2r r4, %nctaid.x
    mul r5, r2, r3
    add r5, r5, r1
    mul r6, r3, r4
    ld.param.u32 r7, [r0 + @n]
    ld.param.u32 r8, [r0 + @in]
    ld.param.u32 r9, [r0 + @bins]
    movi r14, 1
count:
    setltu r11, r5, r7
    emask.and r11
    bnone counted
    shli r12, r5, 2
    add r12, r12, r8
    ld.global.u32 r13, [r12]
    andi r13, r13, 255
    shli r13, r13, 2
    add r13, r13, r9
    atom.global.add r0, [r13], r14
    add r5, r5, r6
    bra count
counted:
    emask.set r10
    exit

.kernel histogram_shared
.param in ptr
.param bins ptr
.param n u32
.shared 1024
    emask.get r10
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    s2r r4, %nctaid.x
    ld.param.u32 r7, [r0 + @n]
    ld.param.u32 r8, [r0 + @in]
    ld.param.u32 r9, [r0 + @bins]
    movi r14, 1
    movi r17, 256

    # Clear the block's counters: thread t clears t, t + ntid.x, ...
    mov r5, r1
clear:
    setltu r11, r5, r17
    emask.and r11
    bnone cleared
    shli r15, r5, 2
    st.shared.u32 [r15], r0
    add r5, r5, r3
    bra clear
cleared:
    emask.set r10
    bar

    # Count into shared memory.
    mul r5, r2, r3
    add r5, r5, r1
    mul r6, r3, r4
count:
    setltu r11, r5, r7
    emask.and r11
    bnone counted
    shli r12, r5, 2
    add r12, r12, r8
    ld.global.u32 r13, [r12]
    andi r13, r13, 255
    shli r15, r13, 2
    atom.shared.add r0, [r15], r14
    add r5, r5, r6
    bra count
counted:
    emask.set r10
    bar

    # Merge into the global bins.
    mov r5, r1
merge:
    setltu r11, r5, r17
    emask.and r11
    bnone merged
    shli r15, r5, 2
    ld.shared.u32 r16, [r15]
    add r12, r15, r9
    atom.global.add r0, [r12], r16
    add r5, r5, r3
    bra merge
merged:
    emask.set r10
    exit
