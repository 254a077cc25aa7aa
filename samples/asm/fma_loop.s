# fma_loop.s - compute-bound: y[i] = f^(4*iters)(x[i]) with f(v) = v * a + b,
# each step one ffma (a single rounding, as the host's std::fma).
#
# Almost every instruction is arithmetic on registers: one load and one
# store per thread against 4 * iters ffma, so this is the compute-bound
# program of the ISS speed benchmark (bench/IssBench.cpp) as well as a
# sample. The loop count is a parameter, the same for every thread, so the
# loop branch (bnz on the counter) is uniform and needs no exec-mask work.
# The host keeps |a| < 1 so the iterates stay bounded.
#
# Parameters: x, y (ptr), a, b (f32), n, iters (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 i   r5 n   r6 condition
#   r7 exec mask on entry   r8 byte offset   r9 address   r10 v
#   r11 a   r12 b   r13 remaining iterations

.kernel fma_loop
.param x ptr
.param y ptr
.param a f32
.param b f32
.param n u32
.param iters u32
    emask.get r7
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    mul r4, r2, r3
    add r4, r4, r1
    ld.param.u32 r5, [r0 + @n]
    setltu r6, r4, r5
    emask.and r6
    bnone done
    shli r8, r4, 2
    ld.param.u32 r9, [r0 + @x]
    add r9, r9, r8
    ld.global.u32 r10, [r9]
    ld.param.u32 r11, [r0 + @a]
    ld.param.u32 r12, [r0 + @b]
    ld.param.u32 r13, [r0 + @iters]
    bz r13, store
loop:
    ffma r10, r10, r11, r12
    ffma r10, r10, r11, r12
    ffma r10, r10, r11, r12
    ffma r10, r10, r11, r12
    addi r13, r13, -1
    bnz r13, loop
store:
    ld.param.u32 r9, [r0 + @y]
    add r9, r9, r8
    st.global.u32 [r9], r10
done:
    emask.set r7
    exit
