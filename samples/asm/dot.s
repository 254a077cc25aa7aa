# dot.s - fp32 dot product: result[0] += sum over i < n of x[i] * y[i].
#
# Each thread accumulates its grid-stride share with ffma (acc = x*y + acc),
# the warp adds its 32 partial sums with a shfl.xor butterfly (every lane
# ends with the warp's sum), and lane 0 adds that to result[0] with
# atom.global.fadd. The summation order (per thread, then the butterfly,
# then the order of the atomics) differs from the host's, and fp32 addition
# is not associative, so the host compares with a relative tolerance (see
# docs/Samples.md) rather than bit for bit.
#
# Parameters: x, y, result (ptr), n (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 nctaid.x   r5 i   r6 stride
#   r7 n   r8 &x[0]   r9 &y[0]   r10 exec mask on entry   r11 condition
#   r12 byte offset / address   r13 x[i]   r14 y[i]   r15 acc
#   r16 shuffle distance   r17 shuffled value   r18 lane id

.kernel dot
.param x ptr
.param y ptr
.param result ptr
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
    movi r15, 0                 # +0.0f
loop:
    setltu r11, r5, r7
    emask.and r11
    bnone summed
    shli r12, r5, 2
    add r13, r8, r12
    ld.global.u32 r13, [r13]
    add r14, r9, r12
    ld.global.u32 r14, [r14]
    ffma r15, r13, r14, r15
    add r5, r5, r6
    bra loop
summed:
    emask.set r10               # all lanes join the butterfly
    movi r16, 16
butterfly:
    shfl.xor r17, r15, r16
    fadd r15, r15, r17
    shri r16, r16, 1
    bnz r16, butterfly
    s2r r18, %laneid
    seteqi r11, r18, 0
    emask.and r11
    bnone done
    ld.param.u32 r12, [r0 + @result]
    atom.global.fadd r0, [r12], r15
done:
    emask.set r10
    exit
