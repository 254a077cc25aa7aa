# divrem.s - integer division and remainder, signed and unsigned, including
# the corner cases the ISA defines (x/0, x%0, INT_MIN / -1).
#
# Thread i < n computes, for a = as[i], b = bs[i]:
#   q[i] = div(a, b)    r[i] = rem(a, b)     (signed, toward zero)
#   qu[i] = divu(a, b)  ru[i] = remu(a, b)   (unsigned)
# and the host checks the identity q*b + r == a as well as the values of its
# reference, which implements target/simt/SimtInstrInfo.td's rules:
# x/0 = -1 (divu: 0xffffffff), x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0.
#
# Parameters: as, bs, q, r, qu, ru (ptr), n (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 i   r5 n   r6 condition
#   r7 exec mask on entry   r8 byte offset   r9 address   r10 a   r11 b
#   r12 result

.kernel divrem
.param as ptr
.param bs ptr
.param q ptr
.param r ptr
.param qu ptr
.param ru ptr
.param n u32
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
    ld.param.u32 r9, [r0 + @as]
    add r9, r9, r8
    ld.global.u32 r10, [r9]
    ld.param.u32 r9, [r0 + @bs]
    add r9, r9, r8
    ld.global.u32 r11, [r9]

    div r12, r10, r11
    ld.param.u32 r9, [r0 + @q]
    add r9, r9, r8
    st.global.u32 [r9], r12
    rem r12, r10, r11
    ld.param.u32 r9, [r0 + @r]
    add r9, r9, r8
    st.global.u32 [r9], r12
    divu r12, r10, r11
    ld.param.u32 r9, [r0 + @qu]
    add r9, r9, r8
    st.global.u32 [r9], r12
    remu r12, r10, r11
    ld.param.u32 r9, [r0 + @ru]
    add r9, r9, r8
    st.global.u32 [r9], r12
done:
    emask.set r7
    exit
