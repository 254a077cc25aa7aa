# saxpy.s - y[i] = a * x[i] + y[i] in fp32 with one fused multiply-add.
#
# A grid-stride loop: the host launches fewer threads than elements, so each
# thread handles i, i + stride, i + 2*stride, ... while i < n, and the lanes
# leave the loop at different trip counts (emask.and of i < n each round).
# ffma rounds once, exactly as the host's std::fma does, so the host compares
# bit for bit.
#
# Parameters: x, y (ptr), a (f32), n (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 nctaid.x   r5 i   r6 stride
#   r7 n   r8 &x[0]   r9 &y[0]   r10 exec mask on entry   r11 condition
#   r12 byte offset   r13 &x[i]   r14 &y[i]   r15 x[i]   r16 y[i]   r17 a

.kernel saxpy
.param x ptr
.param y ptr
.param a f32
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
    ld.param.u32 r8, [r0 + @x]
    ld.param.u32 r9, [r0 + @y]
    ld.param.u32 r17, [r0 + @a]
loop:
    setltu r11, r5, r7
    emask.and r11
    bnone done
    shli r12, r5, 2
    add r13, r8, r12
    add r14, r9, r12
    ld.global.u32 r15, [r13]
    ld.global.u32 r16, [r14]
    ffma r16, r17, r15, r16
    st.global.u32 [r14], r16
    add r5, r5, r6
    bra loop
done:
    emask.set r10
    exit
