# c[i] = a[i] + b[i] for i < n, one thread per element.
.kernel vadd
.param a ptr
.param b ptr
.param c ptr
.param n u32
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    mul r2, r2, r3
    add r1, r1, r2          # i
    ld.param.u32 r4, [r0 + @n]
    setltu r5, r1, r4
    emask.get r10           # save the mask: every lane must reach exit
    emask.and r5            # lanes with i < n
    bnone done
    shli r6, r1, 2
    ld.param.u32 r7, [r0 + @a]
    add r7, r7, r6
    ld.global.u32 r8, [r7 + 0]
    ld.param.u32 r7, [r0 + @b]
    add r7, r7, r6
    ld.global.u32 r9, [r7 + 0]
    fadd r8, r8, r9
    ld.param.u32 r7, [r0 + @c]
    add r7, r7, r6
    st.global.u32 [r7 + 0], r8
done:
    emask.set r10
    exit
