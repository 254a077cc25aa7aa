# vadd.s - vector add: c[i] = a[i] + b[i] in fp32, one thread per element.
#
# Thread i = ctaid.x * ntid.x + tid.x handles element i. The host rounds the
# grid up to whole blocks, so the last block holds threads past n. A branch
# moves the whole warp, so the bounds check cannot be a branch: the lanes
# with i >= n are removed from the exec mask (emask.and of the flag i < n),
# and bnone skips the body only when the whole warp is past the end. The
# saved mask is restored before exit, because exit finishes only the active
# lanes and a warp whose parked lanes never exit would run off its code.
#
# Parameters: a, b, c (ptr), n (u32).
# Registers:
#   r1 tid.x    r2 ctaid.x    r3 ntid.x    r4 i    r5 n
#   r6 in-bounds flag (i < n)   r7 exec mask on entry
#   r8 byte offset 4*i   r9 &a[i]   r10 &b[i]   r11 &c[i]
#   r12 a[i]    r13 b[i]    r14 a[i] + b[i]

.kernel vadd
.param a ptr
.param b ptr
.param c ptr
.param n u32
    emask.get r7
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    mul r4, r2, r3
    add r4, r4, r1              # i = ctaid.x * ntid.x + tid.x
    ld.param.u32 r5, [r0 + @n]
    setltu r6, r4, r5
    emask.and r6                # only lanes with i < n go on
    bnone done                  # the whole warp lies past n
    shli r8, r4, 2
    ld.param.u32 r9, [r0 + @a]
    ld.param.u32 r10, [r0 + @b]
    ld.param.u32 r11, [r0 + @c]
    add r9, r9, r8
    add r10, r10, r8
    add r11, r11, r8
    ld.global.u32 r12, [r9]
    ld.global.u32 r13, [r10]
    fadd r14, r12, r13
    st.global.u32 [r11], r14
done:
    emask.set r7                # bring the parked lanes back so all exit
    exit
