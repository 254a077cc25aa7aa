# divergent.s - divergence through the exec mask: early exit, if/else, and a
# loop whose trip count differs per thread, nested with an if/else inside.
#
# For thread i = ctaid.x * ntid.x + tid.x, x = in[i]:
#   1. Lanes with i >= n exit at once (early exit of some lanes).
#   2. Lanes with x % 7 == 0 write steps[i] = 0xffffffff and exit
#      (a data-dependent exit in the middle of the program).
#   3. if/else on the parity of x: odd writes half[i] = 3x + 1, even writes
#      half[i] = x / 2 (one Collatz step).
#   4. A Collatz loop: y = x, c = 0; while (y != 1 && c < cap)
#      { if (y odd) y = 3y + 1; else y = y / 2; c++; }  steps[i] = c.
#      Arithmetic wraps at 32 bits, as on the host reference.
#   Lanes that exit in 2 leave half[i] untouched (the host expects poison).
#
# A branch moves the whole warp, so every divergent decision is made on the
# exec mask: emask.and keeps the lanes where a flag is set (then-side, loop
# continues), emask.andn keeps those where it is clear (else-side), bnone
# skips a region no lane executes, bany loops back while some lane is left,
# and emask.set restores a mask saved with emask.get. emask.set also intersects with the alive mask, so restoring the
# entry mask after an exit never revives an exited lane.
#
# Parameters: in, half, steps (ptr), n, cap (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 i   r5 n   r6 cap
#   r7 byte offset 4*i   r8 &steps[i]   r9 &half[i]   r10 exec mask on entry
#   r11 condition   r12 x   r13 scratch (7, x % 7, -1, results)
#   r14 parity flag   r16 c   r17 y   r18 loop condition
#   r19 scratch   r20 mask of lanes still in the loop   r21 parity of y

.kernel divergent
.param in ptr
.param half ptr
.param steps ptr
.param n u32
.param cap u32
    emask.get r10
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    mul r4, r2, r3
    add r4, r4, r1              # i
    ld.param.u32 r5, [r0 + @n]
    ld.param.u32 r6, [r0 + @cap]
    setltu r11, r4, r5
    emask.andn r11              # lanes with i >= n ...
    bnone in_range
    exit                        # ... finish here
in_range:
    emask.set r10               # the lanes still alive: i < n
    shli r7, r4, 2
    ld.param.u32 r12, [r0 + @in]
    add r12, r12, r7
    ld.global.u32 r12, [r12]    # x
    ld.param.u32 r8, [r0 + @steps]
    add r8, r8, r7
    ld.param.u32 r9, [r0 + @half]
    add r9, r9, r7

    # 2. x % 7 == 0: mark and exit.
    movi r13, 7
    remu r13, r12, r13
    seteqi r11, r13, 0
    emask.and r11
    bnone keep_going
    movi r13, -1
    st.global.u32 [r8], r13
    exit
keep_going:
    emask.set r10

    # 3. if (x odd) half = 3x + 1; else half = x / 2.
    andi r14, r12, 1
    emask.and r14
    bnone else_side
    muli r13, r12, 3
    addi r13, r13, 1
    st.global.u32 [r9], r13
else_side:
    emask.set r10
    emask.andn r14
    bnone end_if
    shri r13, r12, 1
    st.global.u32 [r9], r13
end_if:
    emask.set r10

    # 4. Collatz steps, capped. The loop is rotated, as a compiler emits it:
    # the test sits at the bottom, and bany loops back while some lane is
    # still iterating (one branch per trip); bnone above skips the loop when
    # no lane enters it.
    movi r16, 0
    mov r17, r12
    setnei r18, r17, 1
    setltu r19, r16, r6
    and r18, r18, r19
    emask.and r18
    bnone loop_done
loop:
    emask.get r20               # lanes still iterating
    andi r21, r17, 1
    emask.and r21
    bnone loop_even
    muli r17, r17, 3
    addi r17, r17, 1
loop_even:
    emask.set r20
    emask.andn r21
    bnone loop_join
    shri r17, r17, 1
loop_join:
    emask.set r20
    addi r16, r16, 1
    setnei r18, r17, 1
    setltu r19, r16, r6
    and r18, r18, r19
    emask.and r18               # lanes that are done drop out for good
    bany loop
loop_done:
    emask.set r10
    st.global.u32 [r8], r16
    exit
